/**
 * Unknown keys (docs/commands/README.md "Values, warnings and trees"): a key the schema does not know
 * in the platform values (a `--values` file, `--set`, a Package's `spec.components.platform.values`)
 * or in a Tenant's `spec` is a warning naming the nearest known key:
 * `publishing.hots: unknown key; did you mean publishing.host?`. The known keys come from
 * schemas/platform-values.schema.json and schemas/tenant.schema.json, less the tenant values the
 * Cozystack version's chart lacks (docs/versions.md §T6, §X1). Pure.
 *
 * Top-level platform values other than the schema's are other platform chart values, accepted and
 * ignored (docs/commands/render.md): one is reported only when it is a near miss of a known key
 * (`publshing`), never for `networking` or `authentication`.
 */
import { isReservedSpecKey } from '../platform/tenancy';
import { COZYSTACK_VERSIONS, MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
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
  /** Why the key is unknown here when another Cozystack version knows it (the hint then says so). */
  otherVersion?: string;
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
 * The schema annotation naming the version property (src/platform/cozystackVersions.ts) under
 * which a key is known (docs/versions.md §P3): in a version without it the key is unknown.
 */
export const KNOWN_WHEN = 'x-cozy-gw-known-when';

/** Whether the key a schema node describes is known in the version. */
function knownIn(s: Schema, behaviour: Behaviour): boolean {
  const property = s[KNOWN_WHEN];
  return typeof property !== 'string' || (behaviour as unknown as Record<string, unknown>)[property] === true;
}

/**
 * The versions that know a key the version rendered does not (`v1.6.0 … v1.6.2 and main`: each
 * line's run of patches shortened), or undefined for a key no version's schema node describes.
 */
function otherVersionsKnowing(s: Schema | undefined): { text: string; one: boolean } | undefined {
  if (!isObject(s) || typeof s[KNOWN_WHEN] !== 'string') return undefined;
  const byLine = new Map<string, string[]>();
  for (const v of COZYSTACK_VERSIONS)
    if (knownIn(s, v.behaviour)) byLine.set(v.line, [...(byLine.get(v.line) ?? []), v.name]);
  const parts = [...byLine.values()].map((r) => (r.length > 1 ? `${r[0]} … ${r.at(-1)}` : r[0]));
  if (!parts.length) return undefined;
  const text = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0];
  return { text, one: parts.length === 1 && !parts[0].includes('…') };
}

/** The properties of a schema node the version knows. */
function knownProperties(s: Schema, behaviour: Behaviour): Record<string, Schema> {
  const props = s.properties as Record<string, Schema>;
  return Object.fromEntries(Object.entries(props).filter(([, p]) => knownIn(p, behaviour)));
}

/**
 * Walk `value` along `schema`: every key of a mapping whose schema lists `properties` (and no
 * `additionalProperties`) must be one of them, and known in the version (`behaviour`, default
 * main). `lenientTop`: at the top, report a key only when it is a near miss. `base` prefixes
 * every path.
 */
export function unknownKeys(
  value: unknown,
  schema: Schema,
  opts: { base?: string; lenientTop?: boolean; root?: Schema; behaviour?: Behaviour } = {},
): UnknownKey[] {
  const root = opts.root ?? schema;
  const behaviour = opts.behaviour ?? MAIN_VERSION.behaviour;
  const out: UnknownKey[] = [];
  const walk = (v: unknown, s: Schema, base: string, top: boolean) => {
    s = resolveRef(s, root);
    if (!isObject(v) || !isObject(s.properties) || s.additionalProperties !== undefined) return;
    const props = knownProperties(s, behaviour);
    const known = Object.keys(props);
    for (const [k, x] of Object.entries(v)) {
      // Helm's null deletes a key: it sets nothing.
      if (x === null) continue;
      if (Object.prototype.hasOwnProperty.call(props, k)) {
        walk(x, props[k], join(base, k), false);
        continue;
      }
      const elsewhere = otherVersionsKnowing((s.properties as Record<string, Schema>)[k]);
      if (elsewhere) {
        // Another version's key, not a misspelling (docs/versions.md §P3).
        const path = join(base, k);
        out.push({
          path,
          known,
          otherVersion: `only Cozystack ${elsewhere.text} ${elsewhere.one ? 'has' : 'have'} the platform value ${path}; the charts of the version rendered ignore it`,
        });
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

/** The unknown keys of platform values in a version (schemas/platform-values.schema.json, docs/versions.md §P3). */
export function unknownValueKeys(values: unknown, behaviour: Behaviour = MAIN_VERSION.behaviour): UnknownKey[] {
  return unknownKeys(values, asset<Schema>('schemas/platform-values.schema.json'), { lenientTop: true, behaviour });
}

/**
 * The dotted paths of the platform values the schema describes but the version does not know
 * (docs/versions.md §P3): their schema does not apply there, an unknown key is only a warning.
 */
export function valueKeysUnknownIn(behaviour: Behaviour): string[] {
  const root = asset<Schema>('schemas/platform-values.schema.json');
  const out: string[] = [];
  const walk = (s: Schema, base: string) => {
    s = resolveRef(s, root);
    if (!isObject(s.properties)) return;
    for (const [k, p] of Object.entries(s.properties as Record<string, Schema>)) {
      if (!knownIn(p, behaviour)) out.push(join(base, k));
      else walk(p, join(base, k));
    }
  };
  walk(root, '');
  return out;
}

/**
 * The tenant values of schemas/tenant.schema.json that the version's chart does not have
 * (docs/versions.md §T6: `computeplane`; §X1: `gatewayClass`): under it they are unknown keys,
 * which nothing reads and no type check applies to.
 */
export function tenantKeysUnknownTo(behaviour: Behaviour): string[] {
  return Object.keys(MAIN_ONLY_TENANT_KEYS).filter((k) => !behaviour[MAIN_ONLY_TENANT_KEYS[k].property]);
}

/** The tenant values only main has (docs/versions.md §T6, §X1): the property of the version that has them, and what they do. */
const MAIN_ONLY_TENANT_KEYS: Record<string, { property: 'computeplaneModule' | 'gatewayClasses'; what: string }> = {
  computeplane: { property: 'computeplaneModule', what: 'which turns on its computeplane module' },
  gatewayClass: { property: 'gatewayClasses', what: "which chooses the class of the tenant's Gateway" },
};

/** schemas/tenant.schema.json, read once (a memo, ARCHITECTURE.md "Rules of the house"): it is only read, Tenant by Tenant. */
let tenantSchema: Schema | undefined;

/** The unknown keys of a Tenant's spec (schemas/tenant.schema.json, the version's keys), paths starting `spec.`. */
export function unknownTenantSpecKeys(spec: unknown, behaviour: Behaviour = MAIN_VERSION.behaviour): UnknownKey[] {
  const schema = (tenantSchema ??= asset<Schema>('schemas/tenant.schema.json'));
  let specSchema = (schema.properties as Record<string, Schema>).spec;
  const lacking = tenantKeysUnknownTo(behaviour);
  if (lacking.length) {
    const properties = { ...(specSchema.properties as Record<string, Schema>) };
    for (const k of lacking) delete properties[k];
    specSchema = { ...specSchema, properties };
  }
  // A reserved key is an error of its own (docs/decisions.md §15), not an unknown key.
  return unknownKeys(spec, specSchema, { base: 'spec', root: schema })
    .filter((u) => !isReservedSpecKey(u.path.slice('spec.'.length)))
    .map((u) => {
      const k = u.path.slice('spec.'.length);
      if (!lacking.includes(k)) return u;
      return {
        ...u,
        otherVersion: `only Cozystack main has the tenant value ${k}, ${MAIN_ONLY_TENANT_KEYS[k].what}; the chart of the version rendered ignores it`,
      };
    });
}

/** `unknown key; did you mean publishing.host?` (the field, file and line go beside it). */
export function unknownKeyMessage(u: UnknownKey): string {
  return u.suggestion ? `unknown key; did you mean ${u.suggestion}?` : 'unknown key';
}

/**
 * What to do about a key with no near miss: the known keys beside it, or that the version knows
 * none there (docs/versions.md §P3: `monitoring.rootEnabled` before v1.6).
 */
export function unknownKeyHint(u: UnknownKey): string | undefined {
  if (u.otherVersion) return u.otherVersion;
  if (u.suggestion) return undefined;
  return u.known.length ? `known keys here: ${u.known.join(', ')}` : 'the Cozystack version reproduced has no key here';
}
