/**
 * Route status (reference-facts §5.9; tenant-gateway.md layer 7 controller paragraph, "Default —
 * HTTP-01", "Opt-in — edge termination"; decisions.md §5, §6, §10): the verdict on every
 * (route, parentRef) claimant of a TenantGateway under HTTP-01, and the RouteParentStatus entries
 * under controllerName gateway.cozystack.io/tenantgateway-controller. Other controllers' entries
 * are never touched. GRPCRoute is never judged.
 */
import type { KObject } from '../k8s/model';
import { clone, deepEqual, isObject } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { mergeCondition, type Condition } from './conditions';
import { ROUTE_KINDS, reservingHostname, runRace, selectsPlainHttp, type Claimant, type PassthroughListener } from './hostnameClaims';
import { hostnamesOverlap, parentRefTargets, routeHostnames, routeParentRefs, type ParentRef } from '../k8s/gatewayApi';
import { CONTROLLER_NAME, perAppListenerName } from './names';
import { isValidHostname, isWildcardHostname } from '../k8s/dnsNames';
import type { TenantGatewayView } from './tenantGatewaySpec';

export type RouteReason = 'Accepted' | 'HostnameConflict' | 'NoMatchingListenerHostname' | 'NotAllowedByListeners' | 'NoMatchingParent';

export interface Verdict {
  claimant: Claimant;
  accepted: boolean;
  reason: RouteReason;
  message: string;
}

/** The per-hostname causes, in the order the message lists them (reference-facts §5.9). */
type CauseKind = 'conflict' | 'section' | 'port' | 'reserved' | 'wildcard' | 'tlsOnly' | 'invalid' | 'native';
const CAUSE_ORDER: CauseKind[] = ['conflict', 'section', 'port', 'reserved', 'wildcard', 'tlsOnly', 'invalid', 'native'];
const CAUSE_TEXT: Record<CauseKind, string> = {
  conflict: 'hostname held by a route in another namespace',
  section: 'the listener named by sectionName answers another hostname',
  port: 'no listener answering it is published on the parentRef port',
  reserved: 'answered only by a TLS-passthrough listener, which an HTTPRoute does not attach to, and no terminate listener is rendered beside it',
  wildcard: 'HTTP-01 issues no wildcard certificate, so no terminate listener can carry the wildcard',
  tlsOnly: 'no listener renders it (a hostname only a TLSRoute claims earns no listener)',
  invalid: 'not a valid hostname',
  native: 'the native-port listener answering it admits routes from the TenantGateway namespace only',
};

type Causes = Map<CauseKind, Map<string, string>>;

function addCause(cs: Causes, kind: CauseKind, h: string, detail = ''): void {
  let m = cs.get(kind);
  if (!m) cs.set(kind, (m = new Map()));
  if (!m.has(h)) m.set(h, detail);
}

/** `On TenantGateway <ns>/<name>: ` then the causes joined with `; `, each listing its hostnames sorted. */
function causesMessage(v: TenantGatewayView, cs: Causes): string {
  const parts: string[] = [];
  for (const k of CAUSE_ORDER) {
    const m = cs.get(k);
    if (!m || m.size === 0) continue;
    const items = [...m.keys()].sort().map((h) => (m.get(h) ? `${h} (${m.get(h)})` : h));
    parts.push(`${CAUSE_TEXT[k]}: ${items.join(', ')}`);
  }
  return `On TenantGateway ${v.id}: ${parts.join('; ')}`;
}

function refusal(v: TenantGatewayView, c: Claimant, reason: RouteReason, text: string): Verdict {
  return { claimant: c, accepted: false, reason, message: `On TenantGateway ${v.id}: ${text}` };
}

function accepted(v: TenantGatewayView, c: Claimant): Verdict {
  return { claimant: c, accepted: true, reason: 'Accepted', message: `Route attached to TenantGateway ${v.id}` };
}

/** What the judge needs to know about the rendered Gateway. */
export interface JudgeContext {
  v: TenantGatewayView;
  passthrough: readonly PassthroughListener[];
  /** Hostnames with a per-app terminate listener on 443. */
  served: ReadonlySet<string>;
  /** The namespaces the plain-HTTP listener admits. */
  plainHttpNamespaces: readonly string[];
}

interface Indexed extends JudgeContext {
  ptByName: ReadonlyMap<string, PassthroughListener>;
}

interface Pending {
  claimant: Claimant;
  /** A verdict settled at the parentRef level (no hostname claimed, no race). */
  settled?: Verdict;
  causes: Causes;
}

function describeRoute(c: Claimant): string {
  return `${c.kind} ${c.namespace}/${c.name}`;
}

/** Phase 1: what the parentRef selects and, per hostname, what keeps it from being served. */
function judgeOne(ctx: Indexed, c: Claimant): Pending {
  const { v, passthrough, ptByName } = ctx;
  const causes: Causes = new Map();
  const p: Pending = { claimant: c, causes };
  const port = c.port;
  // "A sectionName outside that prefix, http aside, is not judged here at all: the listener
  // families it could name are the ones this pass is still deciding, so the route is written
  // Accepted=True like any attached route" — such a section is read as no section at all.
  const section = c.sectionName === 'http' || c.sectionName?.startsWith('tls-') ? c.sectionName : undefined;

  // Section and port selecting different listeners: NoMatchingParent ("an HTTPRoute whose
  // sectionName and parentRef port select different listeners, http with port 443 for one").
  const sectionPort = section === 'http' ? 80 : ptByName.get(section ?? '')?.port;
  if (section !== undefined && port !== undefined && sectionPort !== undefined && sectionPort !== port) {
    p.settled = refusal(v, c, 'NoMatchingParent', `sectionName ${section} and port ${port} select different listeners (${section} is on port ${sectionPort})`);
    return p;
  }

  // The plain-HTTP listener: no hostname claimed (decisions.md §5). It admits the tenant
  // namespace and cozy-cert-manager only, and takes no TLSRoute.
  if (selectsPlainHttp({ sectionName: section, port })) {
    if (c.kind === 'TLSRoute') {
      p.settled = refusal(v, c, 'NotAllowedByListeners', 'listener http serves plain HTTP and takes no TLSRoute');
    } else if (!ctx.plainHttpNamespaces.includes(c.namespace)) {
      p.settled = refusal(
        v,
        c,
        'NotAllowedByListeners',
        `listener http admits routes from namespaces ${ctx.plainHttpNamespaces.join(', ')} only, not from ${c.namespace}`,
      );
    } else {
      p.settled = accepted(v, c);
    }
    return p;
  }

  if (section !== undefined && section.startsWith('tls-')) {
    const l = ptByName.get(section);
    if (c.kind === 'HTTPRoute') {
      // A rendered tls-<name> forwards a stream it never terminates: NotAllowedByListeners.
      // An absent one: NoMatchingParent "whatever answers the hostname".
      p.settled = l
        ? refusal(v, c, 'NotAllowedByListeners', `listener ${section} passes TLS through without terminating it and takes TLSRoute only`)
        : refusal(v, c, 'NoMatchingParent', `sectionName ${section} names no listener on Gateway ${v.id}`);
      return p;
    }
    if (!l) {
      // TLSRoute on an absent section: NoMatchingParent where a passthrough listener answers
      // its hostname; otherwise judged like any attached route (a terminate listener rendered
      // for an HTTPRoute on the name serves it, else "unserved for the plainer reason").
      const answered = c.hostnames.map((h) => [h, reservingHostname(h, passthrough)] as const).filter(([, r]) => r !== undefined);
      if (answered.length > 0) {
        const [h, r] = answered[0];
        p.settled = refusal(v, c, 'NoMatchingParent', `sectionName ${section} names no listener on Gateway ${v.id} (${h} is answered by ${r})`);
        return p;
      }
      judgeTlsHostnames(ctx, c, causes);
      return p;
    }
    for (const h of c.hostnames) {
      if (!isValidHostname(h)) addCause(causes, 'invalid', h);
      else if (!hostnamesOverlap(l.hostname, h)) addCause(causes, 'section', h, `sectionName ${section} answers ${l.hostname}`);
      else if (l.native && c.namespace !== v.namespace) addCause(causes, 'native', h, `listener ${l.listenerName} admits ${v.namespace}`);
    }
    settleNative(ctx, p);
    return p;
  }

  if (c.kind === 'HTTPRoute') {
    // Terminate wanted: the per-app listener is published on 443 alone.
    for (const h of c.hostnames) {
      if (!isValidHostname(h)) addCause(causes, 'invalid', h);
      else if (port !== undefined && port !== 443) addCause(causes, 'port', h, `port ${port}; terminate listeners are published on 443 only`);
      else if (isWildcardHostname(h)) addCause(causes, 'wildcard', h);
      else if (reservingHostname(h, passthrough) !== undefined) addCause(causes, 'reserved', h, `answered by ${reservingHostname(h, passthrough)}`);
    }
    return p;
  }

  // TLSRoute with no tls-* section.
  judgeTlsHostnames(ctx, c, causes);
  settleNative(ctx, p);
  return p;
}

/** A TLSRoute hostname is served by a passthrough listener answering it, or by the terminate listener an HTTPRoute earned for it. */
function judgeTlsHostnames(ctx: JudgeContext, c: Claimant, causes: Causes): void {
  const { v, passthrough, served } = ctx;
  for (const h of c.hostnames) {
    if (!isValidHostname(h)) {
      addCause(causes, 'invalid', h);
      continue;
    }
    const cands: { port: number; native: boolean; name: string }[] = passthrough
      .filter((x) => hostnamesOverlap(x.hostname, h))
      .map((x) => ({ port: x.port, native: x.native, name: x.listenerName }));
    if (served.has(h)) cands.push({ port: 443, native: false, name: perAppListenerName(h) });
    const onPort = c.port === undefined ? cands : cands.filter((x) => x.port === c.port);
    if (cands.length === 0) addCause(causes, 'tlsOnly', h);
    else if (onPort.length === 0) {
      const ports = [...new Set(cands.map((x) => x.port))].sort((a, b) => a - b);
      addCause(causes, 'port', h, `port ${c.port}; answered on port ${ports.join(', ')}`);
    } else if (onPort.every((x) => x.native) && c.namespace !== v.namespace) {
      addCause(causes, 'native', h, `listener ${onPort[0].name} admits ${v.namespace}`);
    }
  }
}

/**
 * "A native-port listener would take the route's kind and admits routes from the tenant's own
 * namespace alone": that cause alone is NotAllowedByListeners, a listener turning the route
 * away, which claims no hostname (decisions.md §6).
 */
function settleNative(ctx: JudgeContext, p: Pending): void {
  const native = p.causes.get('native');
  if (native && p.causes.size === 1) p.settled = refusal(ctx.v, p.claimant, 'NotAllowedByListeners', causesMessage(ctx.v, p.causes).replace(/^On TenantGateway [^:]*: /, ''));
}

/**
 * Judge every claimant (phase 1), race the ones that claim hostnames (phase 2), and settle the
 * reason (phase 3, decisions.md §6): NoMatchingParent / NotAllowedByListeners as settled; else a
 * lost race on any hostname is HostnameConflict with every cause in the message; else any other
 * cause is NoMatchingListenerHostname; else Accepted.
 */
export function judgeClaimants(context: JudgeContext, claimants: readonly Claimant[]): Verdict[] {
  const ctx: Indexed = { ...context, ptByName: new Map(context.passthrough.map((x) => [x.listenerName, x])) };
  const pending = claimants.map((c) => judgeOne(ctx, c));
  const participants = pending.filter((p) => !p.settled).map((p) => p.claimant);
  const losses = runRace(participants);
  return pending.map((p) => {
    if (p.settled) return p.settled;
    const lost = losses.get(p.claimant);
    if (lost) for (const [h, w] of lost) addCause(p.causes, 'conflict', h, `held by ${describeRoute(w)}`);
    // decisions.md §10: an HTTPRoute whose only refusal is the passthrough reservation, and which
    // also claims a hostname outside it, "stays Accepted and is served on that one". Refused for
    // any other cause as well, it keeps the reservation in the message ("every cause spelled out").
    const reserved = p.causes.get('reserved');
    if (reserved && p.causes.size === 1 && p.claimant.hostnames.some((h) => !reserved.has(h))) p.causes.delete('reserved');
    if (p.causes.size === 0) return accepted(ctx.v, p.claimant);
    const reason: RouteReason = lost ? 'HostnameConflict' : 'NoMatchingListenerHostname';
    return { claimant: p.claimant, accepted: false, reason, message: causesMessage(ctx.v, p.causes) };
  });
}

function condition(v: Verdict): Condition {
  return { type: 'Accepted', status: v.accepted ? 'True' : 'False', reason: v.reason, message: v.message };
}

function parentsOf(route: KObject): Record<string, unknown>[] {
  const st = isObject(route.status) ? route.status : {};
  return Array.isArray(st.parents) ? (st.parents as Record<string, unknown>[]) : [];
}

function isOurs(entry: unknown, route: KObject, v: TenantGatewayView): boolean {
  return isObject(entry) && entry.controllerName === CONTROLLER_NAME && parentRefTargets(entry.parentRef, route.metadata.namespace ?? '', v);
}

/**
 * Merge `cond` into this controller's entry for exactly `ref` (in place), or append a new entry.
 * `parents` is the caller's own array; the entries themselves are shared with the stored route
 * and never mutated.
 */
function upsertOurEntry(parents: Record<string, unknown>[], ref: ParentRef, cond: Condition, now: string): void {
  const i = parents.findIndex((e) => e.controllerName === CONTROLLER_NAME && deepEqual(e.parentRef, ref));
  if (i >= 0) parents[i] = { ...parents[i], conditions: mergeCondition(parents[i].conditions, cond, now, 'status-reason-message') };
  else parents.push({ parentRef: clone(ref), controllerName: CONTROLLER_NAME, conditions: mergeCondition([], cond, now, 'status-reason-message') });
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
 * Write the verdicts (reference-facts §5.9): one entry per claimant keyed by controllerName and
 * the exact parentRef, conditions merged by type, new entries appended. This controller's entries
 * on an attached route for a parentRef that no longer claims anything are dropped.
 */
export function writeRouteStatuses(store: Store, v: TenantGatewayView, routes: readonly KObject[], verdicts: readonly Verdict[], now: string): void {
  const byRoute = new Map<KObject, Verdict[]>();
  for (const vd of verdicts) {
    const l = byRoute.get(vd.claimant.route) ?? [];
    l.push(vd);
    byRoute.set(vd.claimant.route, l);
  }
  for (const route of routes) {
    const vs = byRoute.get(route) ?? [];
    const cur = parentsOf(route);
    const parents = cur.filter((e) => !isOurs(e, route, v) || vs.some((vd) => deepEqual(e.parentRef, vd.claimant.parentRef)));
    const kept = parents.length;
    const why: string[] = [];
    for (const vd of vs) {
      upsertOurEntry(parents, vd.claimant.parentRef, condition(vd), now);
      const w = `Accepted=${vd.accepted ? 'True' : `False (${vd.reason})`} on TenantGateway ${v.id}`;
      if (!why.includes(w)) why.push(w);
    }
    if (vs.length === 0 && kept === cur.length) continue;
    if (deepEqual(parents, cur)) continue;
    writeParents(store, route, parents, why.length ? `route status: ${why.join(', ')}` : `route status: stale entry of TenantGateway ${v.id} removed`);
  }
}

/**
 * The HTTPRoutes and TLSRoutes that carry an entry of this controller, read once per run: the
 * candidates for {@link dropDetachedEntries}. GRPCRoutes never carry one.
 */
export function routesWithOurEntries(store: Store): KObject[] {
  const out: KObject[] = [];
  for (const kind of ROUTE_KINDS) {
    for (const r of store.list(GROUPS.gateway, kind)) if (parentsOf(r).some((e) => isObject(e) && e.controllerName === CONTROLLER_NAME)) out.push(r);
  }
  return out;
}

/**
 * "One RouteParentStatus per claimant" (reference-facts §5.9): a route that no longer attaches to
 * this Gateway — its parentRefs stopped naming it, or its namespace left the attach set — is no
 * claimant, so this controller's entry for the Gateway goes (other controllers' entries and
 * entries for other Gateways stay). `candidates` are routes read at the start of the run;
 * `attached` are the ones this pass judged.
 */
export function dropDetachedEntries(store: Store, v: TenantGatewayView, candidates: readonly KObject[], attached: readonly KObject[]): void {
  const judged = new Set(attached.map((r) => `${r.kind}/${r.metadata.namespace ?? ''}/${r.metadata.name}`));
  for (const c of candidates) {
    if (judged.has(`${c.kind}/${c.metadata.namespace ?? ''}/${c.metadata.name}`)) continue;
    const route = store.get(GROUPS.gateway, c.kind, c.metadata.namespace, c.metadata.name);
    if (!route) continue;
    const cur = parentsOf(route);
    const parents = cur.filter((e) => !isOurs(e, route, v));
    if (parents.length !== cur.length) writeParents(store, route, parents, `route status: entry of TenantGateway ${v.id} removed (the route no longer attaches to its Gateway)`);
  }
}

/** The message an edge TenantGateway writes on a TLSRoute that declares hostnames. */
export function edgeTlsRouteMessage(v: TenantGatewayView): string {
  return `TenantGateway ${v.id} terminates TLS at its class provider`;
}

/**
 * Under the apex-wide modes (reference-facts §5.9 [S]; tenant-gateway.md edge section): this
 * controller's entries on attached routes are removed — it collects no hostname claims there —
 * except that under edge every attached TLSRoute declaring hostnames reads Accepted=False,
 * NoMatchingParent, per parentRef naming the Gateway.
 */
export function writeApexWideRouteStatuses(store: Store, v: TenantGatewayView, routes: readonly KObject[], now: string): void {
  for (const route of routes) {
    const cur = parentsOf(route);
    const ns = route.metadata.namespace ?? '';
    if (v.certMode === 'edge' && route.kind === 'TLSRoute' && routeHostnames(route).length > 0) {
      const refs = routeParentRefs(route).filter((p) => parentRefTargets(p, ns, v));
      const parents = cur.filter((e) => !isOurs(e, route, v) || refs.some((p) => deepEqual(p, e.parentRef)));
      const cond: Condition = { type: 'Accepted', status: 'False', reason: 'NoMatchingParent', message: edgeTlsRouteMessage(v) };
      for (const ref of refs) upsertOurEntry(parents, ref as ParentRef, cond, now);
      if (!deepEqual(parents, cur)) writeParents(store, route, parents, `route status: Accepted=False (NoMatchingParent): TenantGateway ${v.id} is edge-terminated and renders no TLS listener`);
      continue;
    }
    const parents = cur.filter((e) => !isOurs(e, route, v));
    if (parents.length !== cur.length) {
      writeParents(store, route, parents, `route status: entry of TenantGateway ${v.id} removed (certMode ${v.certMode} collects no hostname claims)`);
    }
  }
}
