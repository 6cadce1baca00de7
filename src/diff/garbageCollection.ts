/**
 * What leaves with an object that leaves the cluster (docs/commands/diff.md: "what render
 * produced for a removed tenant goes too: its Namespace, its cozystack-values Secret, its
 * TenantGateway, and everything else in that Namespace"), as the API server deletes it:
 * - everything in a deleted Namespace is deleted with it;
 * - an object whose owner leaves is garbage-collected with it (its ownerReferences; an object the
 *   controller wrote without one, because its TenantGateway has no uid, names the TenantGateway
 *   in the labels `cozystack.io/managed-by` and `cozystack.io/tenantgateway`).
 * Transitively, for any kind, namespaced or cluster-scoped (a Namespace owning a child tenant's
 * Namespace takes the child's contents along). One walk over a worklist: linear in the objects
 * and their references, never recursive. Pure.
 */
import { isNamespace, groupOf, keyOf, type KObject } from '../k8s/model';
import { LABEL_MANAGED_BY, LABEL_TENANTGATEWAY, MANAGED_BY_VALUE, TGW_KIND, TGW_NAME } from '../platform/names';

/** The objects leaving, by keyOf, each with the first reason it leaves for. */
export type Leaving = Map<string, string>;

function ownerWords(o: KObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/**
 * Add to `leaving` (in place) everything that goes with what it holds: the contents of every
 * leaving Namespace and the dependents of every leaving owner, transitively. Returns the keys
 * added, in the order they were found.
 */
export function cascade(objects: readonly KObject[], leaving: Leaving): string[] {
  const byKey = new Map<string, KObject>();
  const inNamespace = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  const depend = (owner: string, k: string) => {
    const l = dependents.get(owner);
    if (l) l.push(k);
    else dependents.set(owner, [k]);
  };
  for (const o of objects) {
    const k = keyOf(o);
    byKey.set(k, o);
    const ns = o.metadata.namespace ?? '';
    if (ns) {
      const l = inNamespace.get(ns);
      if (l) l.push(k);
      else inNamespace.set(ns, [k]);
    }
    for (const r of o.metadata.ownerReferences ?? []) {
      if (!r || typeof r.kind !== 'string' || typeof r.name !== 'string') continue;
      const g = groupOf(typeof r.apiVersion === 'string' ? r.apiVersion : '');
      // An owner is in the dependent's namespace or cluster-scoped.
      if (ns) depend(`${g}|${r.kind}|${ns}|${r.name}`, k);
      depend(`${g}|${r.kind}||${r.name}`, k);
    }
    // Without a uid the controller writes no ownerReference; its labels say the same.
    const labels = o.metadata.labels;
    if (ns && labels?.[LABEL_MANAGED_BY] === MANAGED_BY_VALUE)
      depend(`gateway.cozystack.io|${TGW_KIND}|${ns}|${labels[LABEL_TENANTGATEWAY] ?? TGW_NAME}`, k);
  }
  const added: string[] = [];
  const queue = [...leaving.keys()];
  for (let i = 0; i < queue.length; i++) {
    const owner = byKey.get(queue[i]);
    if (!owner) continue;
    const take = (k: string, why: string) => {
      if (leaving.has(k) || !byKey.has(k)) return;
      leaving.set(k, why);
      added.push(k);
      queue.push(k);
    };
    if (isNamespace(owner))
      for (const k of inNamespace.get(owner.metadata.name) ?? [])
        take(k, `goes with Namespace ${owner.metadata.name} (everything in a deleted Namespace is deleted with it)`);
    for (const k of dependents.get(queue[i]) ?? []) take(k, `garbage-collected with its owner ${ownerWords(owner)}`);
  }
  return added;
}
