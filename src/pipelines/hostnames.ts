/**
 * The hostname table (README "cozy-gw diff"): for every hostname any route claims,
 * what happens to it in one state and in another: served by which Gateway and listener with which
 * certificate, or refused with which reason. A pure function of two states, read from what a
 * controller pass leaves behind (route status under this controller's name, the Gateways'
 * listeners, the Certificates), never from the race's internals: `diff` prints it for a change,
 * `reconcile -o plan` for one pass.
 *
 * A row is one (hostname, route) pair, so a contested hostname shows its winner and its losers.
 * A route's `Accepted=False` names the hostnames that lost and why ("at least one of the route's
 * hostnames is not served"); a hostname the message does not name is still served when a listener
 * of the Gateway answers it. A refusal that names none of the route's hostnames (a parentRef-level
 * verdict) refuses them all. The controller's own routes (the http→https redirect) claim nothing.
 */
import { isObject, keyOf, nonEmptyString, stringField, type KObject } from '../k8s/model';
import {
  explicitRouteKinds,
  hostnamesOverlap,
  listenerRouteKinds,
  parentRefNamespace,
  parentRefSelectsListener,
  routeHostnames,
  routeParentRefs,
  type ParentRef,
} from '../k8s/gatewayApi';
import { CONTROLLER_NAME, LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../platform/names';
import { selectorMatches } from '../k8s/labelSelector';
import { isRoute } from '../platform/kinds';

/** What one route does with one hostname in one state. */
export type HostnameState =
  | { state: 'served'; gateway: string; listener: string; certificate?: string }
  | { state: 'refused'; reason: string; message: string; gateway?: string }
  | { state: 'unattached'; reason: string }
  | { state: 'absent' };

export type HostnameChange = 'stops' | 'starts' | 'moves' | 'reason' | 'none';

export interface HostnameRow {
  hostname: string;
  /** `Kind namespace/name` of the route that claims it. */
  route: string;
  /** The route's namespace (the plan groups by it). */
  namespace: string;
  before: HostnameState;
  after: HostnameState;
  change: HostnameChange;
}

/** The order the plan lists changes in (README "cozy-gw diff": stop, start, move, then reasons). */
export const CHANGE_ORDER: HostnameChange[] = ['stops', 'starts', 'moves', 'reason', 'none'];

function arr(x: unknown): Record<string, unknown>[] {
  return Array.isArray(x) ? x.filter(isObject) : [];
}

function isControllerOwned(o: KObject): boolean {
  return o.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY_VALUE;
}

/**
 * How well a listener's hostname answers a route hostname, 0 for not at all (Gateway API: the
 * names overlap): the same name first, then the narrowest listener hostname (a longer wildcard
 * matches fewer names), a listener without a hostname last.
 */
function answers(listenerHost: string | undefined, h: string): number {
  if (!hostnamesOverlap(listenerHost, h)) return 0;
  if (listenerHost === undefined) return 1;
  return listenerHost.toLowerCase() === h.toLowerCase() ? 1000 : 2 + listenerHost.length;
}

const PROTOCOL_RANK: Record<string, number> = { HTTPS: 3, TLS: 2, HTTP: 1 };

function admitsKind(listener: Record<string, unknown>, kind: string): boolean {
  return listenerRouteKinds({ protocol: stringField(listener.protocol), kinds: explicitRouteKinds(listener) }).includes(
    kind,
  );
}

interface Index {
  /** Namespace name -> its labels. */
  namespaces: Map<string, Record<string, string>>;
  routes: Map<string, KObject>;
  gateways: Map<string, KObject>;
  /** namespace/secretName -> the Certificate writing that Secret */
  certificates: Map<string, KObject>;
}

function index(objs: readonly KObject[]): Index {
  const ix: Index = { namespaces: new Map(), routes: new Map(), gateways: new Map(), certificates: new Map() };
  for (const o of objs) {
    const g = o.apiVersion.split('/')[0];
    if (o.kind === 'Namespace' && o.apiVersion === 'v1') ix.namespaces.set(o.metadata.name, o.metadata.labels ?? {});
    else if (isRoute(o)) {
      if (!isControllerOwned(o) && routeHostnames(o).length) ix.routes.set(keyOf(o), o);
    } else if (o.kind === 'Gateway' && g === 'gateway.networking.k8s.io')
      ix.gateways.set(`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
    else if (o.kind === 'Certificate' && g === 'cert-manager.io') {
      const secret = isObject(o.spec) ? nonEmptyString(o.spec.secretName) : undefined;
      if (secret) ix.certificates.set(`${o.metadata.namespace ?? ''}/${secret}`, o);
    }
  }
  return ix;
}

/** Whether a listener's allowedRoutes.namespaces admits routes from namespace ns (Gateway API: Same by default, All, Selector). */
function admitsNamespace(ix: Index, listener: Record<string, unknown>, gwNamespace: string, ns: string): boolean {
  const allowed =
    isObject(listener.allowedRoutes) && isObject(listener.allowedRoutes.namespaces)
      ? listener.allowedRoutes.namespaces
      : {};
  const from = nonEmptyString(allowed.from) ?? 'Same';
  if (from === 'All') return true;
  if (from === 'Same') return ns === gwNamespace;
  if (from !== 'Selector' || !isObject(allowed.selector)) return false;
  const labels: Record<string, string> = { 'kubernetes.io/metadata.name': ns, ...(ix.namespaces.get(ns) ?? {}) };
  return selectorMatches(allowed.selector, labels);
}

/**
 * The listener of a Gateway that serves hostname h for a route of this kind (most specific
 * hostname, then HTTPS over TLS over HTTP). With `routeNamespace`, only listeners whose
 * allowedRoutes admit that namespace (a route the TenantGateway controller gave no verdict, as
 * under DNS-01, attaches as Gateway API attaches it).
 */
function servingListener(
  ix: Index,
  gwKey: string,
  ref: ParentRef,
  kind: string,
  h: string,
  routeNamespace?: string,
): HostnameState | undefined {
  const gw = ix.gateways.get(gwKey);
  if (!gw) return undefined;
  const spec = isObject(gw.spec) ? gw.spec : {};
  let best: Record<string, unknown> | undefined;
  let bestRank = 0;
  for (const l of arr(spec.listeners)) {
    if (!parentRefSelectsListener(ref, { name: String(l.name ?? ''), port: typeof l.port === 'number' ? l.port : -1 }))
      continue;
    if (!admitsKind(l, kind)) continue;
    if (routeNamespace !== undefined && !admitsNamespace(ix, l, gw.metadata.namespace ?? '', routeNamespace)) continue;
    const m = answers(nonEmptyString(l.hostname), h);
    if (!m) continue;
    const rank = m * 10 + (PROTOCOL_RANK[nonEmptyString(l.protocol) ?? ''] ?? 0);
    if (rank > bestRank) [best, bestRank] = [l, rank];
  }
  if (!best) return undefined;
  const gwNs = gw.metadata.namespace ?? '';
  const out: HostnameState = { state: 'served', gateway: gwKey, listener: String(best.name ?? '') };
  const tls = isObject(best.tls) ? best.tls : undefined;
  if (tls && tls.mode === 'Passthrough') out.certificate = 'TLS passthrough (the backend holds the certificate)';
  else if (tls) {
    const ref = arr(tls.certificateRefs)[0];
    const name = ref && nonEmptyString(ref.name);
    if (name) {
      const ns = nonEmptyString(ref.namespace) ?? gwNs;
      const cert = ix.certificates.get(`${ns}/${name}`);
      out.certificate = cert ? `Certificate ${ns}/${cert.metadata.name}` : `Secret ${ns}/${name}`;
    }
  }
  return out;
}

const HOST_CHARS = /[A-Za-z0-9*.-]/;

/** Whether a condition message names hostname h as a whole token. */
function names(message: string, h: string): boolean {
  for (let i = message.indexOf(h); i >= 0; i = message.indexOf(h, i + 1)) {
    const before = i === 0 ? '' : message[i - 1];
    const next = message[i + h.length] ?? '';
    // A full stop ending a sentence is not part of the name.
    const endsHere = !HOST_CHARS.test(next) || (next === '.' && !HOST_CHARS.test(message[i + h.length + 1] ?? ''));
    if (!HOST_CHARS.test(before) && endsHere) return true;
  }
  return false;
}

/** The part of a refusal message that concerns hostname h (the cause naming it), else the whole message. */
function causeFor(message: string, h: string): string {
  const body = message.replace(/^On TenantGateway [^:]+: /, '');
  const part = body.split('; ').find((p) => names(p, h));
  return part ?? body;
}

function gatewayRefs(route: KObject): { gw: string; ref: ParentRef }[] {
  const ns = route.metadata.namespace ?? '';
  return routeParentRefs(route)
    .filter(
      (p): p is ParentRef =>
        isObject(p) &&
        (p.kind ?? 'Gateway') === 'Gateway' &&
        ['', 'gateway.networking.k8s.io'].includes(String(p.group ?? '')),
    )
    .map((p) => ({ gw: `${parentRefNamespace(p, ns)}/${String(p.name ?? '')}`, ref: p }));
}

/** A route without a verdict from the TenantGateway controller (DNS-01, edge: it judges no claims) attaches as Gateway API attaches it. */
function attachedWithoutVerdict(ix: Index, route: KObject, h: string): HostnameState | undefined {
  for (const r of gatewayRefs(route)) {
    const served = servingListener(ix, r.gw, r.ref, route.kind, h, route.metadata.namespace ?? '');
    if (served) return served;
  }
  return undefined;
}

/** Why a route has no listener for h, from its parentRefs and the Gateways there are. */
function unattachedReason(ix: Index, route: KObject, h: string): string {
  const ns = route.metadata.namespace ?? '';
  const refs = gatewayRefs(route);
  if (!refs.length) return 'not attached: the route names no Gateway in its parentRefs';
  const gws = [...new Set(refs.map((r) => r.gw))];
  const existing = gws.filter((g) => ix.gateways.has(g));
  if (!existing.length) return `not attached: no Gateway ${gws.join(', ')} exists`;
  if (refs.some((r) => ix.gateways.has(r.gw) && servingListener(ix, r.gw, r.ref, route.kind, h)))
    return `not attached: Gateway ${existing.join(', ')} takes no routes from namespace ${ns}`;
  return `no listener of Gateway ${existing.join(', ')} answers ${h}`;
}

/** Every (hostname, route) of one state, with what the state does with it. */
export function hostnameStates(
  objs: readonly KObject[],
): Map<string, { row: Omit<HostnameRow, 'before' | 'after' | 'change'>; state: HostnameState }> {
  const ix = index(objs);
  const out = new Map<string, { row: Omit<HostnameRow, 'before' | 'after' | 'change'>; state: HostnameState }>();
  for (const route of ix.routes.values()) {
    const ns = route.metadata.namespace ?? '';
    const routeName = `${route.kind} ${ns}/${route.metadata.name}`;
    const hostnames = routeHostnames(route);
    const st = isObject(route.status) ? route.status : {};
    const ours = arr(st.parents).filter((p) => p.controllerName === CONTROLLER_NAME);
    for (const h of hostnames) {
      let state: HostnameState | undefined;
      let refusal: HostnameState | undefined;
      for (const p of ours) {
        const ref = isObject(p.parentRef) ? p.parentRef : {};
        const gwKey = `${parentRefNamespace(ref, ns)}/${String(ref.name ?? '')}`;
        const accepted = arr(p.conditions).find((c) => c.type === 'Accepted');
        if (!accepted) continue;
        const message = String(accepted.message ?? '');
        if (accepted.status !== 'True') {
          const namesAny = hostnames.some((x) => names(message, x));
          if (!namesAny || names(message, h)) {
            refusal ??= {
              state: 'refused',
              reason: String(accepted.reason ?? 'Refused'),
              message: causeFor(message, h),
              gateway: gwKey,
            };
            continue;
          }
        }
        const served = servingListener(ix, gwKey, ref, route.kind, h);
        if (served) {
          state = served;
          break;
        }
        refusal ??= {
          state: 'refused',
          reason: 'NoListener',
          message: `no listener of Gateway ${gwKey} answers it`,
          gateway: gwKey,
        };
      }
      if (!state && !refusal && !ours.length) state = attachedWithoutVerdict(ix, route, h);
      state ??= refusal ?? {
        state: 'unattached',
        reason: ours.length
          ? 'no Accepted condition from the TenantGateway controller'
          : unattachedReason(ix, route, h),
      };
      out.set(`${h}\u0000${routeName}`, { row: { hostname: h, route: routeName, namespace: ns }, state });
    }
  }
  return out;
}

function isServed(s: HostnameState): s is Extract<HostnameState, { state: 'served' }> {
  return s.state === 'served';
}

function sameState(a: HostnameState, b: HostnameState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function classify(before: HostnameState, after: HostnameState): HostnameChange {
  if (sameState(before, after)) return 'none';
  if (isServed(before) && !isServed(after)) return 'stops';
  if (!isServed(before) && isServed(after)) return 'starts';
  if (isServed(before) && isServed(after)) return 'moves';
  return 'reason';
}

/**
 * The table for two states: every (hostname, route) either claims, sorted by change (stops,
 * starts, moves, reason, none), then hostname, then route.
 */
export function hostnameTable(before: readonly KObject[], after: readonly KObject[]): HostnameRow[] {
  const b = hostnameStates(before);
  const a = hostnameStates(after);
  const rows: HostnameRow[] = [];
  for (const k of new Set([...b.keys(), ...a.keys()])) {
    const row = (a.get(k) ?? b.get(k))!.row;
    const bs = b.get(k)?.state ?? { state: 'absent' };
    const as = a.get(k)?.state ?? { state: 'absent' };
    rows.push({ ...row, before: bs, after: as, change: classify(bs, as) });
  }
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return rows.sort(
    (x, y) =>
      CHANGE_ORDER.indexOf(x.change) - CHANGE_ORDER.indexOf(y.change) ||
      cmp(x.hostname, y.hostname) ||
      cmp(x.route, y.route),
  );
}

/** One state of a row in words. */
export function describeState(s: HostnameState): string {
  switch (s.state) {
    case 'served':
      return `served by Gateway ${s.gateway} listener ${s.listener}${s.certificate ? ` with ${s.certificate}` : ' (plain HTTP)'}`;
    case 'refused':
      return `refused: ${s.reason}${s.message ? ` (${s.message})` : ''}`;
    case 'unattached':
      return `not served, ${s.reason}`;
    default:
      return 'no route claims it';
  }
}

const HEADING: Record<HostnameChange, string> = {
  stops: 'Stop being served',
  starts: 'Start being served',
  moves: 'Move to another Gateway, listener or certificate',
  reason: 'Change reason (served neither before nor after)',
  none: 'Unchanged',
};

const COUNT_WORD: Record<HostnameChange, string> = {
  stops: 'stop',
  starts: 'start',
  moves: 'move',
  reason: 'change reason',
  none: 'unchanged',
};

/** The table as the plans print it: the changed rows under a heading per change; unchanged ones counted. */
export function formatHostnameTable(rows: readonly HostnameRow[]): string[] {
  const counts = CHANGE_ORDER.map((c) => `${rows.filter((r) => r.change === c).length} ${COUNT_WORD[c]}`);
  const lines = [`Hostnames: ${counts.slice(0, 4).join(', ')}; ${counts[4]}.`];
  for (const c of CHANGE_ORDER.slice(0, 4)) {
    const group = rows.filter((r) => r.change === c);
    if (!group.length) continue;
    lines.push(`  ${HEADING[c]}:`);
    for (const r of group) {
      lines.push(`    ${r.hostname}  (${r.route})`);
      lines.push(`      before: ${describeState(r.before)}`);
      lines.push(`      after:  ${describeState(r.after)}`);
    }
  }
  return lines;
}
