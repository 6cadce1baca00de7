/**
 * Attached-namespace labels and their garbage collection (docs/behaviour.md §5.6: the controller
 * patches the tenant's gateway label onto every namespace of spec.attachedNamespaces and removes
 * the labels it wrote when an entry leaves the list),
 * the contest between TenantGateways listing the same namespace (docs/decisions.md §3), the attach
 * set (docs/behaviour.md §5.8) and the inheriting child apexes (§5.7).
 *
 * The plan is computed once for every TenantGateway of the snapshot, before any pass writes, so
 * that each pass reads the labels the whole run leaves behind: a namespace this run relabels or
 * strips counts where its label ends up, which keeps a second run a no-op.
 */
import type { KObject } from '../k8s/model';
import { clone } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { ANNOTATION_ATTACHED_BY, NS_LABEL_GATEWAY, NS_LABEL_HOST } from '../platform/names';
import type { TenantGatewayView } from './tenantGatewaySpec';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

export interface AttachmentLoss {
  namespace: string;
  /** The TenantGateway namespace whose claim on it wins. */
  winner: string;
}

export interface AttachmentPlan {
  /** Namespace name -> the gateway label value it ends with (undefined: no label). */
  finalLabel(ns: string): string | undefined;
  /** The namespaces (existing or not) a TenantGateway namespace holds through its own namespace and attachedNamespaces. */
  held(tgwNamespace: string): string[];
  /** The attachedNamespaces entries a TenantGateway lost to another one. */
  lost(tgwNamespace: string): AttachmentLoss[];
  /** Existing namespaces whose label and annotation a TenantGateway namespace garbage-collects. */
  collected(tgwNamespace: string): string[];
  /** Existing namespaces that end labelled `gateway=<tgwNamespace>`, sorted. */
  labelledFor(tgwNamespace: string): string[];
}

/**
 * Decide who labels what. Only TenantGateways whose pass reaches the labelling step take part
 * (`active`). A TenantGateway always holds its own namespace. For an attachedNamespaces entry
 * several TenantGateways list, the publishing tenant's wins, then the lexicographically smallest
 * TenantGateway namespace (docs/decisions.md §3); the others do not relabel it.
 */
export function planAttachment(
  store: Store,
  active: readonly TenantGatewayView[],
  publishingNamespace: string,
): AttachmentPlan {
  const namespaces = store.list(GROUPS.core, 'Namespace');
  const byName = new Map<string, KObject>(namespaces.map((n) => [n.metadata.name, n]));
  const { winnerOf, heldBy, lostBy } = decideClaims(claimsOf(active), publishingNamespace);
  const { final, collectedBy } = finalLabels(namespaces, winnerOf, active);
  const labelled = new Map<string, string[]>();
  for (const [name, value] of final) {
    if (value === undefined) continue;
    const l = labelled.get(value) ?? [];
    l.push(name);
    labelled.set(value, l);
  }
  for (const l of labelled.values()) l.sort();

  return {
    finalLabel: (ns) => (final.has(ns) ? final.get(ns) : byName.get(ns)?.metadata.labels?.[NS_LABEL_GATEWAY]),
    held: (t) => heldBy.get(t) ?? [],
    lost: (t) => lostBy.get(t) ?? [],
    collected: (t) => collectedBy.get(t) ?? [],
    labelledFor: (t) => labelled.get(t) ?? [],
  };
}

interface Claim {
  tgwNs: string;
  own: boolean;
}

/** The claims on each namespace: the TenantGateway namespace that claims it, and whether it is its own. */
function claimsOf(active: readonly TenantGatewayView[]): Map<string, Claim[]> {
  const claims = new Map<string, Claim[]>();
  const add = (ns: string, tgwNs: string, own: boolean) => {
    let l = claims.get(ns);
    if (!l) claims.set(ns, (l = []));
    if (!l.some((c) => c.tgwNs === tgwNs && c.own === own)) l.push({ tgwNs, own });
  };
  for (const v of active) {
    add(v.namespace, v.namespace, true);
    for (const a of v.attachedNamespaces) add(a, v.namespace, a === v.namespace);
  }
  return claims;
}

/**
 * The winner of each claimed namespace (its own TenantGateway, then the publishing tenant's, then
 * the smallest namespace), what each TenantGateway holds, and what each lost and to whom.
 */
function decideClaims(
  claims: Map<string, Claim[]>,
  publishingNamespace: string,
): { winnerOf: Map<string, string>; heldBy: Map<string, string[]>; lostBy: Map<string, AttachmentLoss[]> } {
  const rank = (c: Claim) => [c.own ? 0 : 1, c.tgwNs === publishingNamespace ? 0 : 1] as const;
  const winnerOf = new Map<string, string>();
  const heldBy = new Map<string, string[]>();
  const lostBy = new Map<string, AttachmentLoss[]>();
  for (const ns of [...claims.keys()].sort()) {
    const cs = claims.get(ns)!;
    let w = cs[0];
    for (const c of cs) {
      const [a1, a2] = rank(c);
      const [b1, b2] = rank(w);
      if (a1 < b1 || (a1 === b1 && (a2 < b2 || (a2 === b2 && c.tgwNs < w.tgwNs)))) w = c;
    }
    winnerOf.set(ns, w.tgwNs);
    for (const c of cs) {
      if (c.tgwNs === w.tgwNs) {
        const h = heldBy.get(c.tgwNs) ?? [];
        if (!h.includes(ns)) h.push(ns);
        heldBy.set(c.tgwNs, h);
      } else if (!c.own) {
        const l = lostBy.get(c.tgwNs) ?? [];
        if (!l.some((x) => x.namespace === ns)) l.push({ namespace: ns, winner: w.tgwNs });
        lostBy.set(c.tgwNs, l);
      }
    }
  }
  return { winnerOf, heldBy, lostBy };
}

/**
 * Each namespace's label after the pass. GC: a namespace annotated by an active TenantGateway
 * namespace that no longer holds it loses the label and the annotation (namespaces without the
 * annotation are never stripped).
 */
function finalLabels(
  namespaces: readonly KObject[],
  winnerOf: Map<string, string>,
  active: readonly TenantGatewayView[],
): { final: Map<string, string | undefined>; collectedBy: Map<string, string[]> } {
  const activeNs = new Set(active.map((v) => v.namespace));
  const collectedBy = new Map<string, string[]>();
  const final = new Map<string, string | undefined>();
  for (const n of namespaces) {
    const name = n.metadata.name;
    const w = winnerOf.get(name);
    if (w !== undefined) {
      final.set(name, w);
      continue;
    }
    const by = n.metadata.annotations?.[ANNOTATION_ATTACHED_BY];
    if (by !== undefined && activeNs.has(by)) {
      final.set(name, undefined);
      const l = collectedBy.get(by) ?? [];
      l.push(name);
      collectedBy.set(by, l);
      continue;
    }
    final.set(name, n.metadata.labels?.[NS_LABEL_GATEWAY]);
  }
  return { final, collectedBy };
}

/**
 * Apply the plan for one TenantGateway (docs/behaviour.md §5.6): each existing held namespace gets
 * `namespace.cozystack.io/gateway=<tgw ns>` and `cozystack.io/gateway-attached-by=<tgw ns>`,
 * overwriting any value; a missing namespace is skipped. Each collected namespace loses both.
 */
export function applyNamespaceLabels(store: Store, plan: AttachmentPlan, v: TenantGatewayView): void {
  for (const ns of plan.held(v.namespace)) {
    const cur = store.get(GROUPS.core, 'Namespace', undefined, ns);
    if (!cur) continue;
    const next = clone(cur);
    next.metadata.labels = { ...(next.metadata.labels ?? {}), [NS_LABEL_GATEWAY]: v.namespace };
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [ANNOTATION_ATTACHED_BY]: v.namespace };
    const why =
      ns === v.namespace ? `namespace of TenantGateway ${v.id}` : `in attachedNamespaces of TenantGateway ${v.id}`;
    store.put(next, `gateway label ${v.namespace}: ${why}`);
  }
  for (const ns of plan.collected(v.namespace)) {
    const cur = store.get(GROUPS.core, 'Namespace', undefined, ns);
    if (!cur) continue;
    const next = clone(cur);
    if (next.metadata.labels) {
      delete next.metadata.labels[NS_LABEL_GATEWAY];
      if (Object.keys(next.metadata.labels).length === 0) delete next.metadata.labels;
    }
    if (next.metadata.annotations) {
      delete next.metadata.annotations[ANNOTATION_ATTACHED_BY];
      if (Object.keys(next.metadata.annotations).length === 0) delete next.metadata.annotations;
    }
    store.put(next, `gateway label garbage-collected: no longer in attachedNamespaces of TenantGateway ${v.id}`);
  }
}

/**
 * The attach set (docs/behaviour.md §5.8): the TenantGateway namespace, the attachedNamespaces it
 * holds (whether or not the Namespace is labelled yet, or exists), and every namespace labelled
 * `gateway=<tgw ns>`, sorted. A release's controller reads every attachedNamespaces entry of the
 * spec, held or not (docs/versions.md §X3): it settles no contest, so an entry another
 * TenantGateway labels still counts for it.
 */
export function attachSet(
  plan: AttachmentPlan,
  v: TenantGatewayView,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): string[] {
  const listed = behaviour.attachedNamespacesPublishingOnly ? plan.held(v.namespace) : v.attachedNamespaces;
  const s = new Set<string>([v.namespace, ...listed, ...plan.labelledFor(v.namespace)]);
  return [...s].sort();
}

/**
 * Inheriting child apexes (docs/behaviour.md §5.7): the host labels of namespaces labelled
 * `gateway=<tgw ns>` other than the TenantGateway's own; empties, the apex and duplicates dropped; sorted.
 */
export function childApexes(store: Store, plan: AttachmentPlan, v: TenantGatewayView): string[] {
  const out = new Set<string>();
  for (const ns of plan.labelledFor(v.namespace)) {
    if (ns === v.namespace) continue;
    const host = store.get(GROUPS.core, 'Namespace', undefined, ns)?.metadata.labels?.[NS_LABEL_HOST];
    if (host && host !== v.apex) out.add(host);
  }
  return [...out].sort();
}
