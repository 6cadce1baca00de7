/**
 * Server-side apply by Flux's kustomize-controller over a live object (docs/decisions.md §C8;
 * docs/commands/diff.md "A live snapshot is compared as it will be applied"), as the API server
 * merges it:
 *
 * 1. The applied configuration is what Flux sends: the given object with Flux's own labels, a
 *    Secret's `stringData` folded into `data` (Flux applies Secrets so), without `status` and the
 *    fields the server sets (uid, resourceVersion, generation, creationTimestamp, managedFields).
 * 2. Merged over the live object by the kind's schema (src/validation/applySchema.ts): a map
 *    member by member (unless atomic), a `map` list element by element by its keys, a `set` by
 *    value, an atomic list or map and every scalar replaced by the given value. Every field the
 *    given object sets wins (Flux applies with force).
 * 3. What the given object no longer sets is removed where the applier owned it, Flux's own fields
 *    and the kubectl managers' it takes over (src/k8s/managedFields.ts), and no other manager owns
 *    it; a field another manager co-owns, or only others own, or no one (the server's defaults),
 *    stays.
 * 4. The server's defaulting (src/validation/serverDefaults.ts): what an atomic list or map gave
 *    again is defaulted again.
 *
 * The result keeps the live object's order of fields (the server's), the given object's new ones
 * after. Pure.
 */
import { isObject, type KObject } from '../k8s/model';
import {
  elementSets,
  keyIdentity,
  memberSets,
  ownershipOf,
  ownsWhole,
  valueIdentity,
  type FieldSet,
} from '../k8s/managedFields';
import { storedSecret } from '../k8s/secretMasking';
import { isSecret } from '../k8s/secretRedaction';
import {
  applySchemaOf,
  isAtomicMap,
  itemSchema,
  listTypeOf,
  memberSchema,
  type ApplySchema,
} from '../validation/applySchema';
import { withServerDefaults } from '../validation/serverDefaults';

/** Fields the API server sets: never the applied configuration's. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink'];

/** Flux's own labels (it adds them to every object it applies). */
const FLUX_PREFIX = 'kustomize.toolkit.fluxcd.io/';

/** Who owns the fields at one node: the applier's sets (`whole` below a field it owns whole), and the others'. */
interface At {
  applier: readonly FieldSet[] | 'whole';
  others: readonly FieldSet[] | 'whole';
}

const REMOVED = Symbol('removed');
type Out = unknown;

/** Whether the sets own the node as a whole value (a leaf: an atomic list or map, a scalar, all below). */
function ownsSubtree(sets: readonly FieldSet[]): boolean {
  return sets.some((s) => {
    for (const _ in s) return false;
    return true;
  });
}

function downSets(sets: readonly FieldSet[] | 'whole', pick: (s: readonly FieldSet[]) => FieldSet[]) {
  return sets === 'whole' || ownsSubtree(sets) ? 'whole' : pick(sets);
}

function member(at: At, key: string): At {
  return {
    applier: downSets(at.applier, (s) => memberSets(s, key)),
    others: downSets(at.others, (s) => memberSets(s, key)),
  };
}

function element(at: At, id: string): At {
  return {
    applier: downSets(at.applier, (s) => elementSets(s, id)),
    others: downSets(at.others, (s) => elementSets(s, id)),
  };
}

/** Set a member as data, whatever its name (`__proto__` stays a plain key, as model.ts copies it). */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** A list element's identity under the list's type (keys with their defaults for a `map` list). */
function identity(x: unknown, s: ApplySchema, keys: string[] | undefined): string {
  if (!keys) return `v:${valueIdentity(x)}`;
  const item = itemSchema(s);
  const k: Record<string, unknown> = {};
  for (const f of keys) {
    const v = isObject(x) ? x[f] : undefined;
    const d = memberSchema(item, f).default;
    if (v !== undefined || d !== undefined) k[f] = v ?? d;
  }
  return `k:${keyIdentity(k)}`;
}

/** What stays of a live value the given object does not set. */
function prune(live: unknown, at: At, s: ApplySchema): Out {
  if (at.others === 'whole') return live;
  const applierWhole = at.applier === 'whole';
  if (!applierWhole && !at.applier.length) return live;
  const ownsNode = applierWhole || ownsWhole(at.applier as FieldSet[]);
  if (ownsNode && !at.others.length) return REMOVED;
  if (ownsSubtree(at.others)) return live;
  const othersOwnNode = ownsWhole(at.others);
  let out: unknown;
  if (isObject(live) && !isAtomicMap(s)) {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(live)) {
      const r = prune(v, member(at, k), memberSchema(s, k));
      if (r !== REMOVED) put(o, k, r);
    }
    if (!Object.keys(o).length && Object.keys(live).length && !othersOwnNode) return REMOVED;
    out = o;
  } else if (Array.isArray(live) && listTypeOf(s).type !== 'atomic') {
    const lt = listTypeOf(s);
    const keys = lt.type === 'map' ? lt.keys : undefined;
    const kept = live.flatMap((x) => {
      const r = keys
        ? keepKeys(prune(x, element(at, identity(x, s, keys)), itemSchema(s)), x, keys)
        : prune(x, element(at, identity(x, s, keys)), itemSchema(s));
      return r === REMOVED ? [] : [r];
    });
    if (!kept.length && live.length && !othersOwnNode) return REMOVED;
    out = kept;
  } else out = live;
  return out;
}

/** A `map` list element that stays keeps its key fields, whoever owned them. */
function keepKeys(r: Out, live: unknown, keys: string[]): Out {
  if (r === REMOVED || !isObject(r) || !isObject(live)) return r;
  const missing = keys.filter((k) => live[k] !== undefined && r[k] === undefined);
  if (!missing.length) return r;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(live)) if (has(r, k) || missing.includes(k)) put(out, k, has(r, k) ? r[k] : live[k]);
  return out;
}

/** The given value over the live one at a node (see the module comment). */
function merge(live: unknown, given: unknown, at: At, s: ApplySchema): Out {
  if (isObject(live) && isObject(given) && !isAtomicMap(s)) {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(live)) {
      if (has(given, k) && given[k] !== undefined) put(o, k, merge(v, given[k], member(at, k), memberSchema(s, k)));
      else {
        const r = prune(v, member(at, k), memberSchema(s, k));
        if (r !== REMOVED) put(o, k, r);
      }
    }
    for (const [k, g] of Object.entries(given)) if (!has(live, k) && g !== undefined) put(o, k, g);
    return o;
  }
  if (Array.isArray(live) && Array.isArray(given)) {
    const lt = listTypeOf(s);
    if (lt.type !== 'atomic') return mergeList(live, given, at, s, lt.type === 'map' ? lt.keys : undefined);
  }
  return given;
}

/**
 * A `map` or `set` list, as the API server merges one: the elements both hold in the given
 * list's order, each merged with the live one of its identity; a live element the given list
 * lacks where it stood (pruned by ownership); a given element the live list lacks where the
 * given list has it.
 */
function mergeList(live: unknown[], given: unknown[], at: At, s: ApplySchema, keys: string[] | undefined): unknown[] {
  const item = itemSchema(s);
  const givenIds = given.map((g) => identity(g, s, keys));
  const liveIds = live.map((x) => identity(x, s, keys));
  const liveAt = new Map<string, number>();
  liveIds.forEach((id, i) => liveAt.has(id) || liveAt.set(id, i));
  const inGiven = new Set(givenIds);
  // The elements both hold, in the given order: each is merged when the given list reaches it.
  const shared = givenIds.filter((id) => liveAt.has(id));
  let nextShared = 0;
  const merged = new Set<string>();
  const out: unknown[] = [];
  const takeGiven = (r: number) => {
    const id = givenIds[r];
    merged.add(id);
    const l = liveAt.get(id);
    out.push(l === undefined ? given[r] : keys ? merge(live[l], given[r], element(at, id), item) : given[r]);
    if (shared[nextShared] === id) nextShared++;
  };
  let l = 0;
  let r = 0;
  while (l < live.length || r < given.length) {
    if (l < live.length && r < given.length && liveIds[l] === givenIds[r] && !merged.has(liveIds[l])) {
      takeGiven(r++);
      l++;
      continue;
    }
    if (l < live.length && (!inGiven.has(liveIds[l]) || merged.has(liveIds[l]) || shared[nextShared] !== liveIds[l])) {
      if (!inGiven.has(liveIds[l])) {
        const x = live[l];
        const at1 = element(at, liveIds[l]);
        const kept = keys ? keepKeys(prune(x, at1, item), x, keys) : prune(x, at1, item);
        if (kept !== REMOVED) out.push(kept);
      }
      l++;
      continue;
    }
    if (r < given.length) takeGiven(r++);
    else l++;
  }
  return out;
}

/** What Flux sends for the given object: its own labels, a Secret's data as stored, nothing the server sets. */
function appliedConfiguration(given: KObject, live: KObject): KObject {
  const g: KObject = isSecret(given) ? storedSecret(given) : { ...given };
  delete g.status;
  const metadata: KObject['metadata'] = { ...g.metadata };
  for (const f of SERVER_METADATA) delete metadata[f];
  const flux = Object.entries(live.metadata.labels ?? {}).filter(([k]) => k.startsWith(FLUX_PREFIX));
  if (flux.length) metadata.labels = { ...Object.fromEntries(flux), ...(metadata.labels ?? {}) };
  g.metadata = metadata;
  return g;
}

/** `given` applied over `live` (which carries managedFields) by Flux's server-side apply. */
export function serverSideApply(given: KObject, live: KObject): KObject {
  const schema = applySchemaOf(given.apiVersion, given.kind);
  const { applier, others } = ownershipOf(live);
  const merged = merge(live, appliedConfiguration(given, live), { applier, others }, schema) as KObject;
  // What the server sets is no manager's to remove, whatever a managedFields entry claims.
  for (const f of SERVER_METADATA)
    if (live.metadata[f] !== undefined && merged.metadata[f] === undefined) merged.metadata[f] = live.metadata[f];
  return withServerDefaults(merged, schema);
}
