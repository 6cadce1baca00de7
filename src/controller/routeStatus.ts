/**
 * Route status (docs/behaviour.md §5.9, and the edge mode of §5.12): the RouteParentStatus entries under controllerName
 * gateway.cozystack.io/tenantgateway-controller, written from the verdicts of the hostname race
 * (hostnameRace.ts) under HTTP-01, and removed or refused under the apex-wide modes. Other
 * controllers' entries are never touched. GRPCRoute is never judged. A release's controller
 * (docs/versions.md §X7) writes its verdicts under HTTP-01 only and never removes an entry.
 */
import type { KObject } from '../k8s/model';
import { deepEqual, isObject } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { mergeCondition, type Condition, type TransitionOn } from './conditions';
import { RACING_ROUTE_KINDS } from './hostnameClaims';
import type { Verdict } from './hostnameRace';
import {
  parentRefNamespace,
  parentRefTargets,
  routeHostnames,
  routeParentRefs,
  type ParentRef,
} from '../k8s/gatewayApi';
import { CONTROLLER_NAME } from '../platform/names';
import type { TenantGatewayView } from './tenantGatewaySpec';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

function condition(v: Verdict): Condition {
  return { type: 'Accepted', status: v.accepted ? 'True' : 'False', reason: v.reason, message: v.message };
}

function parentsOf(route: KObject): Record<string, unknown>[] {
  const st = isObject(route.status) ? route.status : {};
  return Array.isArray(st.parents) ? (st.parents as Record<string, unknown>[]) : [];
}

function isOurs(entry: unknown, route: KObject, v: TenantGatewayView): boolean {
  return (
    isObject(entry) &&
    entry.controllerName === CONTROLLER_NAME &&
    parentRefTargets(entry.parentRef, route.metadata.namespace ?? '', v)
  );
}

/**
 * Merge `cond` into this controller's entry for exactly `ref` (in place), or append a new entry.
 * `parents` is the caller's own array; the entries themselves are shared with the stored route
 * and never mutated. `on`: what moves lastTransitionTime (a release's controller merges as
 * metav1's SetStatusCondition does, on the status alone).
 */
function upsertOurEntry(
  parents: Record<string, unknown>[],
  ref: ParentRef,
  cond: Condition,
  now: string,
  on: TransitionOn = 'status-reason-message',
): void {
  const i = parents.findIndex((e) => e.controllerName === CONTROLLER_NAME && deepEqual(e.parentRef, ref));
  if (i >= 0)
    parents[i] = {
      ...parents[i],
      conditions: mergeCondition(parents[i].conditions, cond, now, on),
    };
  else
    parents.push({
      // A copy of the route's own entry, one level deep: a parentRef's fields are scalars, and nothing mutates a shared value.
      parentRef: { ...ref },
      controllerName: CONTROLLER_NAME,
      conditions: mergeCondition([], cond, now, on),
    });
}

/**
 * Put the route with a new status.parents. A shallow copy: nothing here mutates the objects it
 * shares with the stored route, and copying 20,000 whole routes dominated the pass.
 */
function writeParents(store: Store, route: KObject, parents: Record<string, unknown>[], reason: string): void {
  const st = isObject(route.status) ? route.status : {};
  store.put({ ...route, status: { ...st, parents } }, reason);
}

/**
 * Write the verdicts (docs/behaviour.md §5.9): one entry per claimant keyed by controllerName and
 * the exact parentRef, conditions merged by type, new entries appended. This controller's entries
 * on an attached route for a parentRef that no longer claims anything are dropped.
 */
export function writeRouteStatuses(
  store: Store,
  v: TenantGatewayView,
  routes: readonly KObject[],
  verdicts: readonly Verdict[],
  now: string,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): void {
  if (behaviour.listenerClaims === 'releases') return writeReleaseRouteStatuses(store, v, routes, verdicts, now);
  const byRoute = new Map<KObject, Verdict[]>();
  for (const vd of verdicts) {
    const l = byRoute.get(vd.claimant.route) ?? [];
    l.push(vd);
    byRoute.set(vd.claimant.route, l);
  }
  for (const route of routes) {
    const vs = byRoute.get(route) ?? [];
    const cur = parentsOf(route);
    const parents = cur.filter(
      (e) => !isOurs(e, route, v) || vs.some((vd) => deepEqual(e.parentRef, vd.claimant.parentRef)),
    );
    const kept = parents.length;
    const why: string[] = [];
    for (const vd of vs) {
      upsertOurEntry(parents, vd.claimant.parentRef, condition(vd), now);
      const w = `Accepted=${vd.accepted ? 'True' : `False (${vd.reason})`} on TenantGateway ${v.id}`;
      if (!why.includes(w)) why.push(w);
    }
    if (vs.length === 0 && kept === cur.length) continue;
    if (deepEqual(parents, cur)) continue;
    writeParents(
      store,
      route,
      parents,
      why.length ? `route status: ${why.join(', ')}` : `route status: stale entry of TenantGateway ${v.id} removed`,
    );
  }
}

/**
 * A release's route status (docs/versions.md §X7): one entry per claim, keyed by controllerName and
 * the exact parentRef, its Accepted condition merged as metav1's SetStatusCondition merges it
 * (lastTransitionTime moves with the status alone). Nothing is removed: an entry for a parentRef
 * that no longer claims, or on a route that left the Gateway, stays as it was written.
 */
export function writeReleaseRouteStatuses(
  store: Store,
  v: TenantGatewayView,
  routes: readonly KObject[],
  verdicts: readonly Verdict[],
  now: string,
): void {
  const byRoute = new Map<KObject, Verdict[]>();
  for (const vd of verdicts) {
    const l = byRoute.get(vd.claimant.route);
    if (l) l.push(vd);
    else byRoute.set(vd.claimant.route, [vd]);
  }
  for (const route of routes) {
    const vs = byRoute.get(route);
    if (!vs) continue;
    const cur = parentsOf(route);
    const parents = [...cur];
    const why: string[] = [];
    for (const vd of vs) {
      upsertOurEntry(parents, vd.claimant.parentRef, condition(vd), now, 'status');
      const w = `Accepted=${vd.accepted ? 'True' : `False (${vd.reason})`} on TenantGateway ${v.id}`;
      if (!why.includes(w)) why.push(w);
    }
    if (!deepEqual(parents, cur)) writeParents(store, route, parents, `route status: ${why.join(', ')}`);
  }
}

/**
 * The HTTPRoutes and TLSRoutes that carry an entry of this controller, read once per run and
 * indexed by the Gateway each entry's parentRef names ({@link gatewayKey}): the candidates for
 * {@link dropDetachedEntries}. GRPCRoutes never carry one. A pass only adds entries for its own
 * Gateway, to routes it judges, so the index read at the start holds every candidate of every pass.
 */
export function routesWithOurEntries(store: Store): Map<string, KObject[]> {
  const out = new Map<string, KObject[]>();
  for (const kind of RACING_ROUTE_KINDS) {
    for (const r of store.list(GROUPS.gateway, kind)) {
      const ns = r.metadata.namespace ?? '';
      for (const e of parentsOf(r)) {
        if (!isObject(e) || e.controllerName !== CONTROLLER_NAME || !isObject(e.parentRef)) continue;
        const ref = e.parentRef as ParentRef;
        const key = gatewayKey(parentRefNamespace(ref, ns), String(ref.name));
        const l = out.get(key);
        if (!l) out.set(key, [r]);
        else if (l[l.length - 1] !== r) l.push(r);
      }
    }
  }
  return out;
}

/** The key of a Gateway in {@link routesWithOurEntries}. */
export function gatewayKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * "One RouteParentStatus per claimant" (docs/behaviour.md §5.9): a route that no longer attaches to
 * this Gateway — its parentRefs stopped naming it, or its namespace left the attach set — is no
 * claimant, so this controller's entry for the Gateway goes (other controllers' entries and
 * entries for other Gateways stay). `candidates` are the routes read at the start of the run with
 * an entry naming this Gateway; `attached` are the ones this pass judged.
 */
export function dropDetachedEntries(
  store: Store,
  v: TenantGatewayView,
  candidates: readonly KObject[],
  attached: readonly KObject[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): void {
  // docs/versions.md §X7: a release's controller removes no entry.
  if (candidates.length === 0 || behaviour.listenerClaims === 'releases') return;
  const judged = new Set(attached.map((r) => `${r.kind}/${r.metadata.namespace ?? ''}/${r.metadata.name}`));
  for (const c of candidates) {
    if (judged.has(`${c.kind}/${c.metadata.namespace ?? ''}/${c.metadata.name}`)) continue;
    const route = store.get(GROUPS.gateway, c.kind, c.metadata.namespace, c.metadata.name);
    if (!route) continue;
    const cur = parentsOf(route);
    const parents = cur.filter((e) => !isOurs(e, route, v));
    if (parents.length !== cur.length)
      writeParents(
        store,
        route,
        parents,
        `route status: entry of TenantGateway ${v.id} removed (the route no longer attaches to its Gateway)`,
      );
  }
}

/** The message an edge TenantGateway writes on a TLSRoute that declares hostnames. */
export function edgeTlsRouteMessage(v: TenantGatewayView): string {
  return `TenantGateway ${v.id} terminates TLS at its class provider`;
}

/**
 * Under the apex-wide modes (docs/behaviour.md §5.9, §5.12): this
 * controller's entries on attached routes are removed — it collects no hostname claims there —
 * except that under edge every attached TLSRoute declaring hostnames reads Accepted=False,
 * NoMatchingParent, per parentRef naming the Gateway.
 */
export function writeApexWideRouteStatuses(
  store: Store,
  v: TenantGatewayView,
  routes: readonly KObject[],
  now: string,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): void {
  // docs/versions.md §X7: under DNS-01 and existingSecret a release's controller writes no route
  // status at all; the entries it wrote under HTTP-01 stay.
  if (behaviour.listenerClaims === 'releases') return;
  for (const route of routes) {
    const cur = parentsOf(route);
    const ns = route.metadata.namespace ?? '';
    if (v.certMode === 'edge' && route.kind === 'TLSRoute' && routeHostnames(route).length > 0) {
      const refs = routeParentRefs(route).filter((p) => parentRefTargets(p, ns, v));
      const parents = cur.filter((e) => !isOurs(e, route, v) || refs.some((p) => deepEqual(p, e.parentRef)));
      const cond: Condition = {
        type: 'Accepted',
        status: 'False',
        reason: 'NoMatchingParent',
        message: edgeTlsRouteMessage(v),
      };
      for (const ref of refs) upsertOurEntry(parents, ref as ParentRef, cond, now);
      if (!deepEqual(parents, cur))
        writeParents(
          store,
          route,
          parents,
          `route status: Accepted=False (NoMatchingParent): TenantGateway ${v.id} is edge-terminated and renders no TLS listener`,
        );
      continue;
    }
    const parents = cur.filter((e) => !isOurs(e, route, v));
    if (parents.length !== cur.length) {
      writeParents(
        store,
        route,
        parents,
        `route status: entry of TenantGateway ${v.id} removed (certMode ${v.certMode} collects no hostname claims)`,
      );
    }
  }
}
