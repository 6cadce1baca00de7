/**
 * A CRD's structural schema as a JSON Schema for ajv (the TenantGateway's, docs/behaviour.md §4,
 * and the vendored upstream CRDs). A module of its own, with no imports, because
 * scripts/embed-assets.js and scripts/vendor-upstream-validators.js also load it (through
 * typescript's transpileModule) to precompile the validators: one definition for all.
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

/**
 * The parts of a CRD version's openAPIV3Schema that src/validation/crdRules.ts reads besides the
 * structural schema (defaults, CEL rules, list types), and the map types server-side apply reads
 * with them (src/validation/applySchema.ts), with every branch that holds none of them
 * dropped: what a vendored CRD carries beside its compiled validator
 * (scripts/vendor-upstream-validators.js). Undefined when nothing is left.
 */
export function ruleTree(s: Schema): Schema | undefined {
  const out: Schema = {};
  for (const k of [
    'default',
    'x-kubernetes-validations',
    'x-kubernetes-list-type',
    'x-kubernetes-list-map-keys',
    'x-kubernetes-map-type',
  ])
    if (s[k] !== undefined) out[k] = s[k];
  if (isPlainObject(s.properties)) {
    const props: Schema = {};
    for (const [k, ps] of Object.entries(s.properties)) {
      const t = ruleTree(ps as Schema);
      if (t) props[k] = t;
    }
    if (Object.keys(props).length) out.properties = props;
  }
  if (isPlainObject(s.items)) {
    const t = ruleTree(s.items);
    if (t) out.items = t;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The date-time format of status conditions, checked loosely as RFC 3339 (the only format left). */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
