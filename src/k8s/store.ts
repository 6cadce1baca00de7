/**
 * The cluster state a controller pass reads and writes: an index over objects by
 * group/kind/namespace/name, and the record of what the pass created, changed and deleted
 * (with the reasons, for `-o plan`). Pure data structure: no I/O.
 */
import { clone, compareRefs, deepEqual, groupOf, keyOf, refOf, type KObject, type ObjRef } from './model';

export type ChangeOp = 'create' | 'update' | 'delete';

export interface Change {
  op: ChangeOp;
  ref: ObjRef;
  /** Why, in the words of the specification; one entry per rule that touched the object. */
  reasons: string[];
}

function kindKey(apiGroup: string, kind: string): string {
  return `${apiGroup}|${kind}`;
}

/** Work counters of a Store's read boundary (docs/performance.md: the regression guard counts them). */
export interface StoreStats {
  gets: number;
  lists: number;
  listed: number;
}

/** Judges one object write against the store it would land in; throws to refuse it. */
export type WriteAdmission = (obj: KObject, store: Store) => void;

/**
 * The object a write over `current` leaves stored, where the store emulates an API server that
 * changes what it is given (its defaulting of a live object's rewrite).
 */
export type StoredForm = (obj: KObject, current: KObject) => KObject;

export class Store {
  /**
   * This store's work counters: every get(), every list() and every object a list() hands back.
   * test/k8s/complexity.test.ts reads them to guard the scaling of a pass without timing;
   * incrementing three numbers costs nothing measurable.
   */
  readonly stats: StoreStats = { gets: 0, lists: 0, listed: 0 };
  private readonly objects = new Map<string, KObject>();
  /** group|kind -> namespace -> name -> key */
  private readonly byKind = new Map<string, Map<string, Map<string, KObject>>>();
  /**
   * Sorted list() results, kept until a put/delete of that kind changes them (for speed: sorting
   * the keys on every call was 10% of a pass). group|kind -> the whole kind, resp. -> namespace
   * -> that namespace. An update of an object already listed replaces it in place; a create or a
   * delete drops the lists it belongs to.
   */
  private readonly listAll = new Map<string, KObject[]>();
  private readonly listNs = new Map<string, Map<string, KObject[]>>();
  /** changes(), kept until the next put/delete. */
  private changesMemo: Change[] | undefined;
  /**
   * all(), kept until the next put/delete that changes the store (each call returns a copy). A
   * private field, out of JSON.stringify's sight like the Maps: a result holding a store never
   * serialises the objects (Secrets included) through it.
   */
  #allMemo: KObject[] | undefined;
  private readonly original = new Map<string, KObject>();
  private readonly reasons = new Map<string, string[]>();
  private readonly deleted = new Map<string, ObjRef>();
  /**
   * Keys whose current object is known to differ from the original: put() replaced the original
   * itself after finding the two unequal, so changes() need not compare them again.
   */
  private readonly differs = new Set<string>();

  /**
   * The apiserver's admission of object writes (not status writes), when the store emulates one
   * that runs it: a writer calls admit() before it writes, and a refusal throws. A store built
   * without it admits everything.
   */
  private readonly admission: WriteAdmission | undefined;

  /** What a write over an object leaves stored (the written object itself without one). */
  private readonly storedForm: StoredForm | undefined;

  /**
   * Where index() filed the last object: its apiVersion and kind, their maps, its namespace's (a
   * private field, out of JSON.stringify's sight, like #allMemo).
   */
  #filing:
    | {
        apiVersion: string;
        kind: string;
        kk: string;
        byNs: Map<string, Map<string, KObject>>;
        ns: string | undefined;
        byName: Map<string, KObject> | undefined;
      }
    | undefined;

  constructor(objects: KObject[] = [], opts: { admission?: WriteAdmission; stored?: StoredForm } = {}) {
    this.admission = opts.admission;
    this.storedForm = opts.stored;
    for (const o of objects) {
      const k = keyOf(o);
      this.original.set(k, o);
      this.index(o, k);
    }
  }

  private index(o: KObject, k: string): void {
    this.objects.set(k, o);
    // Objects of one kind and namespace come together (a List, a kind's writes): the maps they go
    // in are looked up again only when the kind or the namespace changes. byKind's maps are never
    // removed, so the ones remembered stay the store's.
    let f = this.#filing;
    if (f === undefined || f.apiVersion !== o.apiVersion || f.kind !== o.kind) {
      const kk = kindKey(groupOf(o.apiVersion), o.kind);
      let byNs = this.byKind.get(kk);
      if (!byNs) this.byKind.set(kk, (byNs = new Map()));
      this.#filing = f = { apiVersion: o.apiVersion, kind: o.kind, kk, byNs, ns: undefined, byName: undefined };
    }
    const kk = f.kk;
    const ns = o.metadata.namespace ?? '';
    let byName = f.byName;
    if (f.ns !== ns || byName === undefined) {
      byName = f.byNs.get(ns);
      if (!byName) f.byNs.set(ns, (byName = new Map()));
      f.ns = ns;
      f.byName = byName;
    }
    const name = o.metadata.name;
    if (byName.has(name)) {
      // an update: the cached lists keep their order, the object is replaced where it stands
      const inNs = this.listNs.get(kk)?.get(ns);
      if (inNs) inNs[findSorted(inNs, ns, name)] = o;
      const inAll = this.listAll.get(kk);
      if (inAll) inAll[findSorted(inAll, ns, name)] = o;
    } else this.dropLists(kk, ns);
    byName.set(name, o);
  }

  private unindex(ref: ObjRef): void {
    const k = keyOf(ref);
    this.objects.delete(k);
    const kk = kindKey(groupOf(ref.apiVersion), ref.kind);
    const ns = ref.namespace ?? '';
    if (this.byKind.get(kk)?.get(ns)?.delete(ref.name)) this.dropLists(kk, ns);
  }

  private dropLists(kk: string, ns: string): void {
    if (this.listAll.size === 0 && this.listNs.size === 0) return;
    this.listAll.delete(kk);
    this.listNs.get(kk)?.delete(ns);
  }

  /**
   * How many distinct identities (keyOf) the objects the store was built from have: fewer than
   * the objects exactly when one was given twice (the later copy is the one stored;
   * duplicateFindings names every copy).
   */
  get originalIdentities(): number {
    return this.original.size;
  }

  /** Ask the store's write admission about an object write (a no-op without one). */
  admit(obj: KObject): void {
    this.admission?.(obj, this);
  }

  /** The current object, or undefined. Do not mutate it: `put` a changed copy. */
  get(group: string, kind: string, namespace: string | undefined, name: string): KObject | undefined {
    this.stats.gets++;
    return this.byKind
      .get(kindKey(group, kind))
      ?.get(namespace ?? '')
      ?.get(name);
  }

  /**
   * Objects of a kind, in one namespace or all, sorted by namespace then name. The array is the
   * caller's own (a copy of the cached list); the objects are the store's: do not mutate them.
   */
  list(group: string, kind: string, namespace?: string): KObject[] {
    this.stats.lists++;
    const kk = kindKey(group, kind);
    const byNs = this.byKind.get(kk);
    if (!byNs) return [];
    let sorted: KObject[] | undefined;
    if (namespace !== undefined) {
      let perNs = this.listNs.get(kk);
      sorted = perNs?.get(namespace);
      if (!sorted) {
        const byName = byNs.get(namespace);
        if (!byName) return [];
        sorted = sortedValues(byName);
        if (!perNs) this.listNs.set(kk, (perNs = new Map()));
        perNs.set(namespace, sorted);
      }
    } else sorted = this.sortedKind(kk, byNs);
    this.stats.listed += sorted.length;
    return sorted.slice();
  }

  /** Every object of a kind, sorted by namespace then name (cached; the store's own array). */
  private sortedKind(kk: string, byNs: Map<string, Map<string, KObject>>): KObject[] {
    let sorted = this.listAll.get(kk);
    if (!sorted) {
      sorted = [];
      for (const ns of [...byNs.keys()].sort()) for (const o of sortedValues(byNs.get(ns)!)) sorted.push(o);
      this.listAll.set(kk, sorted);
    }
    return sorted;
  }

  /**
   * Create or replace an object. Records a change (with the reason) only when the object
   * differs from the current one; returns whether it did.
   */
  put(o: KObject, reason: string): boolean {
    const k = keyOf(o);
    const cur = this.objects.get(k);
    if (cur && this.storedForm) o = this.storedForm(o, cur);
    if (cur && deepEqual(cur, o)) return false;
    this.changesMemo = undefined;
    this.#allMemo = undefined;
    if (cur !== undefined && cur === this.original.get(k)) this.differs.add(k);
    else this.differs.delete(k);
    this.deleted.delete(k);
    this.index(o, k);
    this.addReason(k, reason);
    return true;
  }

  /** Delete an object if present; returns whether it was. */
  delete(ref: ObjRef, reason: string): boolean {
    const k = keyOf(ref);
    const cur = this.objects.get(k);
    if (!cur) return false;
    this.changesMemo = undefined;
    this.#allMemo = undefined;
    this.differs.delete(k);
    this.unindex(refOf(cur));
    if (this.original.has(k)) this.deleted.set(k, refOf(cur));
    this.addReason(k, reason);
    return true;
  }

  private addReason(k: string, reason: string): void {
    const rs = this.reasons.get(k);
    if (rs === undefined) this.reasons.set(k, reason ? [reason] : []);
    else if (reason && !rs.includes(reason)) rs.push(reason);
  }

  /**
   * Every object now in the store, in the stable output order (compareObjects: apiVersion, kind,
   * namespace, name). Built from the per-kind lists, which are already sorted by namespace and
   * name (for speed: sorting every object with a four-field comparison was 2% of a pass): the
   * kinds are ordered by apiVersion and kind, and a kind stored under several apiVersions of its
   * group is split by apiVersion, order kept.
   */
  all(): KObject[] {
    this.#allMemo ??= this.computeAll();
    return this.#allMemo.slice();
  }

  private computeAll(): KObject[] {
    // Each kind's sorted list, and the apiVersions it holds (nearly always one: then the list is
    // taken whole, with no second look at each object).
    const kinds: { v: string; k: string; sorted: KObject[]; only: boolean }[] = [];
    for (const [kk, byNs] of this.byKind) {
      const sorted = this.sortedKind(kk, byNs);
      if (sorted.length === 0) continue;
      const versions = new Set<string>();
      let last: string | undefined;
      for (let i = 0; i < sorted.length; i++) {
        const v = sorted[i].apiVersion;
        if (v !== last) versions.add((last = v));
      }
      for (const v of versions) kinds.push({ v, k: sorted[0].kind, sorted, only: versions.size === 1 });
    }
    kinds.sort((a, b) => cmp(a.v, b.v) || cmp(a.k, b.k));
    const out: KObject[] = [];
    for (const { v, sorted, only } of kinds) {
      if (only) for (let i = 0; i < sorted.length; i++) out.push(sorted[i]);
      else for (let i = 0; i < sorted.length; i++) if (sorted[i].apiVersion === v) out.push(sorted[i]);
    }
    return out;
  }

  /**
   * What the pass did, relative to the objects the store was built from, in stable order.
   * Computed once and kept until the next put/delete; each call returns its own array of
   * fresh Change records (the memo is never handed out).
   */
  changes(): Change[] {
    this.changesMemo ??= this.computeChanges();
    return this.changesMemo.map((c) => ({ op: c.op, ref: { ...c.ref }, reasons: [...c.reasons] }));
  }

  private computeChanges(): Change[] {
    const out: Change[] = [];
    for (const [k, reasons] of this.reasons) {
      const now = this.objects.get(k);
      const was = this.original.get(k);
      if (now && !was) out.push({ op: 'create', ref: refOf(now), reasons });
      else if (now && was && (this.differs.has(k) || !deepEqual(now, was)))
        out.push({ op: 'update', ref: refOf(now), reasons });
      else if (!now && was) out.push({ op: 'delete', ref: this.deleted.get(k) ?? refOf(was), reasons });
    }
    return out.sort(compareChanges);
  }

  /**
   * The objects of the original state the pass deleted, in changes()'s order: its `delete`
   * records' refs (each call returns fresh refs), without building the records of every change.
   */
  deletions(): ObjRef[] {
    return [...this.deleted.values()].sort(compareRefs).map((r) => ({ ...r }));
  }

  /** The objects created or changed by the pass, as they stand now. */
  changedObjects(): KObject[] {
    return this.changes()
      .filter((c) => c.op !== 'delete')
      .map((c) => this.objects.get(keyOf(c.ref))!)
      .filter(Boolean);
  }

  /** A mutable copy of the current object, for a read-modify-put. */
  editable(group: string, kind: string, namespace: string | undefined, name: string): KObject | undefined {
    const cur = this.get(group, kind, namespace, name);
    return cur ? clone(cur) : undefined;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The values of a name -> object map, sorted by name. */
function sortedValues(byName: Map<string, KObject>): KObject[] {
  return [...byName.keys()].sort().map((n) => byName.get(n)!);
}

/** The index of the object `ns`/`name` in a list sorted by namespace then name (it is there). */
function findSorted(list: KObject[], ns: string, name: string): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = list[mid].metadata;
    const mns = m.namespace ?? '';
    const c = mns < ns ? -1 : mns > ns ? 1 : m.name < name ? -1 : m.name > name ? 1 : 0;
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  throw new Error(`store: ${ns}/${name} missing from a cached list`);
}

/** The order changes are listed in: by the identity of what they change (compareRefs). */
export function compareChanges(a: Change, b: Change): number {
  return compareRefs(a.ref, b.ref);
}

export const GROUPS = {
  core: '',
  gateway: 'gateway.networking.k8s.io',
  certManager: 'cert-manager.io',
  cozyGateway: 'gateway.cozystack.io',
  cozyApps: 'apps.cozystack.io',
  cozy: 'cozystack.io',
  admission: 'admissionregistration.k8s.io',
  networking: 'networking.k8s.io',
} as const;
