/**
 * Unknown keys (docs/commands/README.md "Values, warnings and trees"): a key the schema does not know
 * in the platform values (a `--values` file, `--set`, a Package's `spec.components.platform.values`)
 * or in a Tenant's `spec` is a warning naming the nearest known key:
 * `publishing.hots: unknown key; did you mean publishing.host?`. The known keys come from
 * schemas/platform-values.schema.json and schemas/tenant.schema.json. Pure.
 *
 * Top-level platform values other than the schema's are other platform chart values, accepted and
 * ignored (docs/commands/render.md): one is reported only when it is a near miss of a known key
 * (`publshing`), never for `networking` or `authentication`.
 */
import { isReservedSpecKey } from '../platform/tenancy';
import { asset } from '../assets';
import { isObject } from '../k8s/model';

type Schema = Record<string, unknown>;

/**
 * Levenshtein distance (insert, delete, substitute: cost 1 each). With `limit`, the work stops as
 * soon as the distance is known to pass it, and limit + 1 is returned: a key of hostile length
 * costs nothing against a known key it cannot be a misspelling of (the distance is at least the
 * difference of the lengths).
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (cur[j] < rowMin) rowMin = cur[j];
    }
    // Every later row is at least this row's minimum.
    if (rowMin > limit) return limit + 1;
    prev = cur;
  }
  return Math.min(prev[b.length], limit + 1);
}

/** The largest distance nearEnough accepts for a key. */
function maxDistance(key: string): number {
  return Math.max(2, Math.floor(key.length / 3));
}

/** How far a key may be from a known one to be suggested: 2 edits, or a third of the key. */
export function nearEnough(key: string, distance: number): boolean {
  return distance <= maxDistance(key);
}

/**
 * The known key nearest to `key` (edit distance, case-insensitive first, then exact; ties by
 * alphabetical order), or undefined when none is near enough to be a plausible misspelling.
 */
export function nearestKey(key: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  // Only a distance nearEnough accepts can be suggested: farther ones are not worked out.
  const limit = maxDistance(key);
  for (const k of [...known].sort()) {
    const d = k.toLowerCase() === key.toLowerCase() ? 0.5 : editDistance(key, k, limit);
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best !== undefined && nearEnough(key, bestD) ? best : undefined;
}

/** One unknown key: its dotted path, the nearest known path if any, and the known keys beside it. */
export interface UnknownKey {
  path: string;
  suggestion?: string;
  known: string[];
}

function resolveRef(s: Schema, root: Schema): Schema {
  const ref = s.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return s;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = isObject(node) ? node[part] : undefined;
  return isObject(node) ? resolveRef(node, root) : s;
}

const join = (base: string, k: string) => (base === '' ? k : `${base}.${k}`);

/**
 * Walk `value` along `schema`: every key of a mapping whose schema lists `properties` (and no
 * `additionalProperties`) must be one of them. `lenientTop`: at the top, report a key only when
 * it is a near miss. `base` prefixes every path.
 */
export function unknownKeys(
  value: unknown,
  schema: Schema,
  opts: { base?: string; lenientTop?: boolean; root?: Schema } = {},
): UnknownKey[] {
  const root = opts.root ?? schema;
  const out: UnknownKey[] = [];
  const walk = (v: unknown, s: Schema, base: string, top: boolean) => {
    s = resolveRef(s, root);
    if (!isObject(v) || !isObject(s.properties) || s.additionalProperties !== undefined) return;
    const props = s.properties as Record<string, Schema>;
    const known = Object.keys(props);
    for (const [k, x] of Object.entries(v)) {
      // Helm's null deletes a key: it sets nothing.
      if (x === null) continue;
      if (Object.prototype.hasOwnProperty.call(props, k)) {
        walk(x, props[k], join(base, k), false);
        continue;
      }
      const near = nearestKey(k, known);
      if (top && !near) continue;
      out.push({ path: join(base, k), suggestion: near === undefined ? undefined : join(base, near), known });
    }
  };
  walk(value, schema, opts.base ?? '', Boolean(opts.lenientTop));
  return out;
}

/** The unknown keys of platform values (schemas/platform-values.schema.json). */
export function unknownValueKeys(values: unknown): UnknownKey[] {
  return unknownKeys(values, asset<Schema>('schemas/platform-values.schema.json'), { lenientTop: true });
}

/** schemas/tenant.schema.json, read once: it is only read (a Tenant's spec is checked against it, Tenant by Tenant). */
let tenantSchema: Schema | undefined;

/** The unknown keys of a Tenant's spec (schemas/tenant.schema.json), paths starting `spec.`. */
export function unknownTenantSpecKeys(spec: unknown): UnknownKey[] {
  const schema = (tenantSchema ??= asset<Schema>('schemas/tenant.schema.json'));
  const specSchema = (schema.properties as Record<string, Schema>).spec;
  // A reserved key is an error of its own (docs/decisions.md §15), not an unknown key.
  return unknownKeys(spec, specSchema, { base: 'spec', root: schema }).filter(
    (u) => !isReservedSpecKey(u.path.slice('spec.'.length)),
  );
}

/** `unknown key; did you mean publishing.host?` (the field, file and line go beside it). */
export function unknownKeyMessage(u: UnknownKey): string {
  return u.suggestion ? `unknown key; did you mean ${u.suggestion}?` : 'unknown key';
}

/** What to do about a key with no near miss: the known keys beside it. */
export function unknownKeyHint(u: UnknownKey): string | undefined {
  return u.suggestion ? undefined : `known keys here: ${u.known.join(', ')}`;
}
