/**
 * The TenantGateway CRD's structural schema as a JSON Schema for ajv (docs/behaviour.md §4). A
 * module of its own, with no imports, because scripts/embed-assets.js also loads it (through
 * typescript's transpileModule) to precompile the validator at build time: one definition for
 * both.
 */

type Schema = Record<string, unknown>;

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Structural schema → JSON Schema for ajv: x-kubernetes-* keywords dropped, `default` dropped
 * (defaults are applied before validation, as the apiserver does), int32/int64 formats dropped
 * (the bounds say it), and every object with properties closed (`additionalProperties: false`)
 * unless it preserves unknown fields: kubectl's strict field validation refuses unknown fields.
 * `metadata` is left open (the apiserver validates ObjectMeta itself).
 */
export function toJsonSchema(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith('x-kubernetes-') || k === 'default' || k === 'description') continue;
    if (k === 'format' && (v === 'int32' || v === 'int64')) continue;
    if (k === 'properties' && isPlainObject(v)) {
      out.properties = Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, toJsonSchema(ps as Schema)]));
    } else if (k === 'items' && isPlainObject(v)) {
      out.items = toJsonSchema(v as Schema);
    } else if (k === 'additionalProperties' && isPlainObject(v)) {
      out.additionalProperties = toJsonSchema(v as Schema);
    } else out[k] = v;
  }
  if (
    out.type === 'object' &&
    out.properties &&
    out.additionalProperties === undefined &&
    !s['x-kubernetes-preserve-unknown-fields']
  ) {
    out.additionalProperties = false;
  }
  return out;
}

/** The date-time format of status conditions, checked loosely as RFC 3339 (the only format left). */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
