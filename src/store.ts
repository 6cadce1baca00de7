/**
 * The cluster state a controller pass reads and writes: an index over objects by
 * group/kind/namespace/name, and the record of what the pass created, changed and deleted
 * (with the reasons, for `-o plan`). Pure data structure: no I/O.
 */
import { clone, deepEqual, groupOf, keyOf, refOf, sortObjects, type KObject, type ObjRef } from './model';

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

/** A kind is named by its API group and kind: `kindOf('gateway.networking.k8s.io', 'Gateway')`. */
export interface KindRef {
  group: string;
  kind: string;
}

export class Store {
  private readonly objects = new Map<string, KObject>();
  /** group|kind -> namespace -> name -> key */
  private readonly byKind = new Map<string, Map<string, Map<string, KObject>>>();
  private readonly original = new Map<string, KObject>();
  private readonly reasons = new Map<string, string[]>();
  private readonly deleted = new Map<string, ObjRef>();

  constructor(objects: KObject[] = []) {
    for (const o of objects) {
      const k = keyOf(o);
      this.original.set(k, o);
      this.index(o);
    }
  }

  private index(o: KObject): void {
    const k = keyOf(o);
    this.objects.set(k, o);
    const kk = kindKey(groupOf(o.apiVersion), o.kind);
    let byNs = this.byKind.get(kk);
    if (!byNs) this.byKind.set(kk, (byNs = new Map()));
    const ns = o.metadata.namespace ?? '';
    let byName = byNs.get(ns);
    if (!byName) byNs.set(ns, (byName = new Map()));
    byName.set(o.metadata.name, o);
  }

  private unindex(ref: ObjRef): void {
    const k = keyOf(ref);
    this.objects.delete(k);
    this.byKind.get(kindKey(groupOf(ref.apiVersion), ref.kind))?.get(ref.namespace ?? '')?.delete(ref.name);
  }

  /** The current object, or undefined. Do not mutate it: `put` a changed copy. */
  get(group: string, kind: string, namespace: string | undefined, name: string): KObject | undefined {
    return this.byKind.get(kindKey(group, kind))?.get(namespace ?? '')?.get(name);
  }

  /** Objects of a kind, in one namespace or all, sorted by namespace then name. */
  list(group: string, kind: string, namespace?: string): KObject[] {
    const byNs = this.byKind.get(kindKey(group, kind));
    if (!byNs) return [];
    const out: KObject[] = [];
    const nss = namespace !== undefined ? [namespace] : [...byNs.keys()].sort();
    for (const ns of nss) {
      const byName = byNs.get(ns);
      if (!byName) continue;
      const names = [...byName.keys()].sort();
      for (const n of names) out.push(byName.get(n)!);
    }
    return out;
  }

  /**
   * Create or replace an object. Records a change (with the reason) only when the object
   * differs from the current one; returns whether it did.
   */
  put(o: KObject, reason: string): boolean {
    const k = keyOf(o);
    const cur = this.objects.get(k);
    if (cur && deepEqual(cur, o)) return false;
    this.deleted.delete(k);
    this.index(o);
    this.addReason(k, reason);
    return true;
  }

  /** Delete an object if present; returns whether it was. */
  delete(ref: ObjRef, reason: string): boolean {
    const k = keyOf(ref);
    const cur = this.objects.get(k);
    if (!cur) return false;
    this.unindex(refOf(cur));
    if (this.original.has(k)) this.deleted.set(k, refOf(cur));
    this.addReason(k, reason);
    return true;
  }

  private addReason(k: string, reason: string): void {
    const rs = this.reasons.get(k) ?? [];
    if (reason && !rs.includes(reason)) rs.push(reason);
    this.reasons.set(k, rs);
  }

  /** Every object now in the store, in the stable output order. */
  all(): KObject[] {
    return sortObjects([...this.objects.values()]);
  }

  /** What the pass did, relative to the objects the store was built from, in stable order. */
  changes(): Change[] {
    const out: Change[] = [];
    for (const [k, rs] of this.reasons) {
      const now = this.objects.get(k);
      const was = this.original.get(k);
      if (now && !was) out.push({ op: 'create', ref: refOf(now), reasons: rs });
      else if (now && was && !deepEqual(now, was)) out.push({ op: 'update', ref: refOf(now), reasons: rs });
      else if (!now && was) out.push({ op: 'delete', ref: this.deleted.get(k) ?? refOf(was), reasons: rs });
    }
    const order = (r: ObjRef) => `${r.apiVersion}\u0000${r.kind}\u0000${r.namespace ?? ''}\u0000${r.name}`;
    return out.sort((a, b) => (order(a.ref) < order(b.ref) ? -1 : order(a.ref) > order(b.ref) ? 1 : 0));
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
