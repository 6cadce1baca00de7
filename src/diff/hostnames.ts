/**
 * The hostname table (docs/commands/diff.md and "cozy-gw reconcile"): for every hostname any
 * route claims, what happens to it in one state and in another: served by which Gateway and
 * listener with which certificate, or refused with which reason. A row is one (hostname, route)
 * pair, so a contested hostname shows its winner and its losers.
 *
 * Each side reads the controller's decision as data: the hostname race the pass computed
 * (controller/hostnameRace.ts, ReconcileResult.races: who holds each hostname, who lost it to whom,
 * who was withdrawn and why), worded by the race module itself, never by reading back the messages
 * it wrote into route status. A state no pass wrote (the input of `reconcile -o plan`, the state of
 * `diff --state` alone) holds only recorded verdicts: a route's recorded Accepted condition is read
 * through the race of the pass that started from that state where the two agree (the pass would
 * write the very same verdict), else at the level it was recorded (Accepted=True: every hostname a
 * listener answers is served; Accepted=False: refused, with the recorded reason and message).
 * Gateways whose TenantGateway judges no claims (DNS-01, an existing wildcard Secret, edge) attach
 * routes as Gateway API does (the listeners' allowedRoutes) and serve a hostname to every route
 * they admit: the row says so (`shared`: how many routes, `rule`), and the reports name a shared
 * hostname's routes once (hostnameGroups). The controller's own routes (the http→https redirect)
 * claim nothing. Pure.
 */
import { isNamespace, deepEqual, isObject, keyOf, nonEmptyString, stringField, type KObject } from '../k8s/model';
import {
  explicitRouteKinds,
  hostnamesOverlap,
  listenerAdmitsNamespace,
  listenerNamespaces,
  listenerRouteKinds,
  parentRefNamespace,
  parentRefSelectsListener,
  routeHostnames,
  routeParentRefs,
  type ParentRef,
} from '../k8s/gatewayApi';
import { CONTROLLER_NAME, TGW_KIND } from '../platform/names';
import { isControllerOwned, isRoute } from '../platform/kinds';
import {
  causeText,
  standingCause,
  withdrawalReason,
  type HostnameRace,
  type Standing,
  type Verdict,
} from '../controller/hostnameRace';

/** What one route does with one hostname in one state. */
export type HostnameState =
  | {
      state: 'served';
      gateway: string;
      listener: string;
      certificate?: string;
      /**
       * How many routes the same Gateway serves this hostname to, this one included (each named
       * by its own row), and the rule that lets it.
       */
      shared?: number;
      rule?: string;
    }
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
  /** Served with TLS before and by a plain-HTTP listener only after (not an edge Gateway): `lost`. */
  tls?: 'lost';
}

/** One state as the table reads it: its objects, and the races of the pass that wrote it (none: a state no pass wrote). */
export interface HostnameSide {
  objects: readonly KObject[];
  races?: readonly HostnameRace[];
  /** For a side no pass wrote: the races of the pass that started from it, read where they agree with what it records. */
  judgedBy?: readonly HostnameRace[];
}

/** The order the plan lists changes in (docs/commands/diff.md: stop, start, move, then reasons). */
export const CHANGE_ORDER: HostnameChange[] = ['stops', 'starts', 'moves', 'reason', 'none'];

function arr(x: unknown): Record<string, unknown>[] {
  return Array.isArray(x) ? x.filter(isObject) : [];
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

/** A listener as servingListener weighs it, read once per state (a Gateway has dozens, every hostname asks). */
interface ListenerEntry {
  l: Record<string, unknown>;
  name: string;
  port: number;
  /** The route kinds it admits. */
  kinds: string[];
  hostname: string | undefined;
  protocolRank: number;
  /** What serving through it reads (its name, its certificate), once it has served. */
  serves?: { listener: string; certificate: string | undefined };
}

/** A Gateway's listeners in order, and by hostname (lower case) for the exact match that outranks any other. */
interface GatewayListeners {
  all: ListenerEntry[];
  byHostname: Map<string, ListenerEntry[]>;
  /** Above the rank of any listener whose hostname is not the one asked (no shortcut when Infinity). */
  looseRankBound: number;
}

function gatewayListeners(gw: KObject): GatewayListeners {
  const spec = isObject(gw.spec) ? gw.spec : {};
  const out: GatewayListeners = { all: [], byHostname: new Map(), looseRankBound: 0 };
  let longest = 0;
  for (const l of arr(spec.listeners)) {
    const e: ListenerEntry = {
      l,
      name: String(l.name ?? ''),
      port: typeof l.port === 'number' ? l.port : -1,
      kinds: listenerRouteKinds({ protocol: stringField(l.protocol), kinds: explicitRouteKinds(l) }),
      hostname: nonEmptyString(l.hostname),
      protocolRank: PROTOCOL_RANK[nonEmptyString(l.protocol) ?? ''] ?? 0,
    };
    out.all.push(e);
    if (typeof e.protocolRank !== 'number' || !(e.protocolRank >= 0 && e.protocolRank <= 3))
      out.looseRankBound = Infinity;
    if (e.hostname !== undefined) {
      longest = Math.max(longest, e.hostname.length);
      const k = e.hostname.toLowerCase();
      const same = out.byHostname.get(k);
      if (same) same.push(e);
      else out.byHostname.set(k, [e]);
    }
  }
  // answers(): a listener hostname other than h scores at most 2 + its length, none at all 1.
  out.looseRankBound = Math.max(out.looseRankBound, (2 + longest) * 10 + 3);
  return out;
}

interface Index {
  /** Namespace name -> its labels. */
  namespaces: Map<string, Record<string, string>>;
  routes: Map<string, KObject>;
  gateways: Map<string, KObject>;
  /** namespace/name -> the TenantGateway's certMode */
  certModes: Map<string, string>;
  /** namespace/secretName -> the Certificate writing that Secret */
  certificates: Map<string, KObject>;
  /** Gateway namespace/name -> its listeners, read when first asked. */
  listeners: Map<string, GatewayListeners>;
}

/** The apiVersion up to its first '/' (read only for the kinds that ask: every object passes index()). */
function groupWritten(o: KObject): string {
  return o.apiVersion.split('/')[0];
}

function index(objs: readonly KObject[]): Index {
  const ix: Index = {
    namespaces: new Map(),
    routes: new Map(),
    gateways: new Map(),
    certModes: new Map(),
    certificates: new Map(),
    listeners: new Map(),
  };
  for (const o of objs) {
    if (isNamespace(o)) ix.namespaces.set(o.metadata.name, o.metadata.labels ?? {});
    else if (isRoute(o)) {
      if (!isControllerOwned(o) && routeHostnames(o).length) ix.routes.set(keyOf(o), o);
    } else if (o.kind === 'Gateway' && groupWritten(o) === 'gateway.networking.k8s.io')
      ix.gateways.set(`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
    else if (o.kind === TGW_KIND && groupWritten(o) === 'gateway.cozystack.io')
      ix.certModes.set(
        `${o.metadata.namespace ?? ''}/${o.metadata.name}`,
        (isObject(o.spec) ? nonEmptyString(o.spec.certMode) : undefined) ?? 'http01',
      );
    else if (o.kind === 'Certificate' && groupWritten(o) === 'cert-manager.io') {
      const secret = isObject(o.spec) ? nonEmptyString(o.spec.secretName) : undefined;
      if (secret) ix.certificates.set(`${o.metadata.namespace ?? ''}/${secret}`, o);
    }
  }
  return ix;
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
  let listeners = ix.listeners.get(gwKey);
  if (!listeners) ix.listeners.set(gwKey, (listeners = gatewayListeners(gw)));
  const pick = (entries: readonly ListenerEntry[]): [ListenerEntry | undefined, number] => {
    let bestOf: ListenerEntry | undefined;
    let bestRankOf = 0;
    for (const e of entries) {
      if (!parentRefSelectsListener(ref, e)) continue;
      if (!e.kinds.includes(kind)) continue;
      if (
        routeNamespace !== undefined &&
        !listenerAdmitsNamespace(listenerNamespaces(e.l), gw.metadata.namespace ?? '', routeNamespace, (ns) =>
          ix.namespaces.get(ns),
        )
      )
        continue;
      const m = answers(e.hostname, h);
      if (!m) continue;
      const rank = m * 10 + e.protocolRank;
      if (rank > bestRankOf) [bestOf, bestRankOf] = [e, rank];
    }
    return [bestOf, bestRankOf];
  };
  // The listeners of h's own name outrank every other one: the first best of them is the first best of all.
  let [best, bestRank] = pick(listeners.byHostname.get(h.toLowerCase()) ?? []);
  if (!(bestRank > listeners.looseRankBound)) [best, bestRank] = pick(listeners.all);
  if (!best) return undefined;
  best.serves ??= { listener: String(best.l.name ?? ''), certificate: servedCertificate(ix, gw, best.l) };
  const out: HostnameState = { state: 'served', gateway: gwKey, listener: best.serves.listener };
  if (best.serves.certificate !== undefined) out.certificate = best.serves.certificate;
  return out;
}

/** The certificate a listener of gw serves with, in words (undefined: plain, or no certificate named). */
function servedCertificate(ix: Index, gw: KObject, best: Record<string, unknown>): string | undefined {
  const gwNs = gw.metadata.namespace ?? '';
  const tls = isObject(best.tls) ? best.tls : undefined;
  if (tls && tls.mode === 'Passthrough') return 'TLS passthrough (the backend holds the certificate)';
  else if (tls) {
    const ref = arr(tls.certificateRefs)[0];
    const name = ref && nonEmptyString(ref.name);
    if (name) {
      const ns = nonEmptyString(ref.namespace) ?? gwNs;
      const cert = ix.certificates.get(`${ns}/${name}`);
      return cert ? `Certificate ${ns}/${cert.metadata.name}` : `Secret ${ns}/${name}`;
    }
  }
  return undefined;
}

function gatewayRefs(route: KObject): { gw: string; ref: ParentRef; index: number }[] {
  const ns = route.metadata.namespace ?? '';
  const out: { gw: string; ref: ParentRef; index: number }[] = [];
  routeParentRefs(route).forEach((p, index) => {
    if (
      isObject(p) &&
      (p.kind ?? 'Gateway') === 'Gateway' &&
      ['', 'gateway.networking.k8s.io'].includes(String(p.group ?? ''))
    )
      out.push({ gw: `${parentRefNamespace(p as ParentRef, ns)}/${String(p.name ?? '')}`, ref: p as ParentRef, index });
  });
  return out;
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

/** A claim's identity in a race: the route and the index of its parentRef. */
function claimKey(kind: string, ns: string, name: string, refIndex: number): string {
  return `${kind}|${ns}|${name}|${refIndex}`;
}

interface Judged {
  verdict: Verdict;
  standings: Map<string, Standing>;
}

/** The races as data: per Gateway (`namespace/name`), per claim, its verdict and its standing on each hostname. */
function raceIndex(races: readonly HostnameRace[] | undefined): Map<string, Map<string, Judged>> {
  const out = new Map<string, Map<string, Judged>>();
  for (const race of races ?? []) {
    const claims = new Map<string, Judged>();
    for (const vd of race.verdicts) {
      const c = vd.claimant;
      claims.set(claimKey(c.kind, c.namespace, c.name, c.refIndex), { verdict: vd, standings: new Map() });
    }
    for (const o of race.hostnames) {
      const put = (c: { kind: string; namespace: string; name: string; refIndex: number }, s: Standing) =>
        claims.get(claimKey(c.kind, c.namespace, c.name, c.refIndex))?.standings.set(o.hostname, s);
      for (const c of o.holders) put(c, { status: 'holds' });
      for (const x of o.lost) put(x.claimant, { status: 'lost', heldBy: x.heldBy });
      for (const x of o.withdrawn) put(x.claimant, { status: 'withdrawn', cause: x.cause, detail: x.detail });
      for (const x of o.claimsNone) put(x.claimant, { status: 'claimsNone', reason: x.reason });
    }
    out.set(race.tenantGateway, claims);
  }
  return out;
}

/** What the race decided for one claim on hostname h. */
function fromRace(ix: Index, j: Judged, gwKey: string, ref: ParentRef, kind: string, h: string): HostnameState {
  const s = j.standings.get(h);
  const cause = s && standingCause(h, s);
  if (cause && s!.status === 'lost')
    return {
      state: 'refused',
      reason: 'HostnameConflict',
      message: causeText(cause.kind, [cause.item]),
      gateway: gwKey,
    };
  if (cause && s!.status === 'withdrawn')
    return {
      state: 'refused',
      reason: j.verdict.accepted ? withdrawalReason(s!.cause) : j.verdict.reason,
      message: causeText(cause.kind, [cause.item]),
      gateway: gwKey,
    };
  // A hostname the claim holds is served whatever its other hostnames did; one the claim does not
  // race for (its parentRef claims none) follows the verdict on the parentRef.
  if (s?.status !== 'holds' && !j.verdict.accepted)
    return { state: 'refused', reason: j.verdict.reason, message: j.verdict.detail, gateway: gwKey };
  return (
    servingListener(ix, gwKey, ref, kind, h) ?? {
      state: 'refused',
      reason: 'NoListener',
      message: `no listener of Gateway ${gwKey} answers it`,
      gateway: gwKey,
    }
  );
}

function conditionOf(p: Record<string, unknown>): Record<string, unknown> | undefined {
  return arr(p.conditions).find((c) => c.type === 'Accepted');
}

/** Whether a recorded Accepted condition is the verdict a race gave (the same decision). */
function agrees(recorded: Record<string, unknown>, vd: Verdict): boolean {
  return (
    recorded.status === (vd.accepted ? 'True' : 'False') &&
    recorded.reason === vd.reason &&
    recorded.message === vd.message
  );
}

type SideRow = { row: Omit<HostnameRow, 'before' | 'after' | 'change'>; state: HostnameState };

/** Every (hostname, route) of one state, with what the state does with it. */
export function hostnameStates(side: HostnameSide): Map<string, SideRow> {
  const ix = index(side.objects);
  const decided = raceIndex(side.races);
  const judgedBy = side.races ? undefined : raceIndex(side.judgedBy);
  const out = new Map<string, SideRow>();
  for (const route of ix.routes.values()) {
    const ns = route.metadata.namespace ?? '';
    const routeName = `${route.kind} ${ns}/${route.metadata.name}`;
    const hostnames = routeHostnames(route);
    const refs = gatewayRefs(route);
    const st = isObject(route.status) ? route.status : {};
    const recorded = arr(st.parents).filter((p) => p.controllerName === CONTROLLER_NAME);
    for (const h of hostnames) {
      let state: HostnameState | undefined;
      let refusal: HostnameState | undefined;
      let judged = false;
      for (const r of refs) {
        let s: HostnameState;
        const key = claimKey(route.kind, ns, route.metadata.name, r.index);
        const j = (side.races ? decided : judgedBy)?.get(r.gw)?.get(key);
        const entry = recorded.find((p) => deepEqual(p.parentRef, r.ref));
        const accepted = entry && conditionOf(entry);
        if (j && (side.races || (accepted && agrees(accepted, j.verdict))))
          s = fromRace(ix, j, r.gw, r.ref, route.kind, h);
        // A verdict no race holds (an edge Gateway refusing a TLSRoute), or one another pass wrote: as recorded.
        else if (accepted && accepted.status !== 'True')
          s = {
            state: 'refused',
            reason: String(accepted.reason ?? 'Refused'),
            message: String(accepted.message ?? ''),
            gateway: r.gw,
          };
        else if (accepted)
          s = servingListener(ix, r.gw, r.ref, route.kind, h) ?? {
            state: 'refused',
            reason: 'NoListener',
            message: `no listener of Gateway ${r.gw} answers it`,
            gateway: r.gw,
          };
        // A route the controller gave no verdict on this Gateway attaches as Gateway API says.
        else continue;
        judged = true;
        if (s.state === 'served') {
          state = s;
          break;
        }
        refusal ??= s;
      }
      if (!state && !refusal && !judged) state = attachedWithoutVerdict(ix, route, h);
      state ??= refusal ?? {
        state: 'unattached',
        reason: judged ? 'no verdict from the TenantGateway controller' : unattachedReason(ix, route, h),
      };
      out.set(`${h}\u0000${routeName}`, { row: { hostname: h, route: routeName, namespace: ns }, state });
    }
  }
  noteSharing(ix, out);
  return out;
}

/** The rule by which a Gateway serves one hostname to several routes. */
function sharingRule(ix: Index, gwKey: string): string {
  switch (ix.certModes.get(gwKey)) {
    case 'http01':
      return 'under HTTP-01 the routes of the namespace that won the hostname share it';
    case 'dns01':
      return 'DNS-01 serves a hostname to every route the wildcard listener admits (no race)';
    case 'existingSecret':
      return 'with an existing wildcard Secret a hostname is served to every route the wildcard listener admits (no race)';
    case 'edge':
      return 'an edge Gateway serves a hostname to every route its listeners admit (no race)';
    default:
      return 'the Gateway serves a hostname to every route its listeners admit';
  }
}

/** Mark the hostnames one Gateway serves to several routes, and why that is the rule. */
function noteSharing(ix: Index, rows: Map<string, SideRow>): void {
  const byName = new Map<string, SideRow[]>();
  for (const r of rows.values()) {
    if (r.state.state !== 'served') continue;
    const k = `${r.state.gateway}\u0000${r.row.hostname.toLowerCase()}`;
    const l = byName.get(k);
    if (l) l.push(r);
    else byName.set(k, [r]);
  }
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    // The count, not the other routes' names: each route is named once, by its own row (a
    // hostname shared by 3,000 routes is 3,000 rows, not 3,000 lists of 2,999 names).
    for (const r of group) {
      const s = r.state as Extract<HostnameState, { state: 'served' }>;
      r.state = { ...s, shared: group.length, rule: sharingRule(ix, s.gateway) };
    }
  }
}

function isServed(s: HostnameState): s is Extract<HostnameState, { state: 'served' }> {
  return s.state === 'served';
}

/** Whether two states read the same (JSON-equal: the same members in the same order). */
function sameState(a: HostnameState, b: HostnameState): boolean {
  return flatJsonEqual(a, b) ?? JSON.stringify(a) === JSON.stringify(b);
}

/**
 * JSON.stringify(a) === JSON.stringify(b) without the two strings, for records of strings and
 * string lists (what a state holds); undefined for any other member (JSON.stringify decides).
 */
function flatJsonEqual(a: object, b: object): boolean | undefined {
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ka = Object.keys(ao);
  const kb = Object.keys(bo);
  for (const [o, ks] of [
    [ao, ka],
    [bo, kb],
  ] as const)
    for (const k of ks) {
      const v = o[k];
      if (v === undefined || typeof v === 'string') continue;
      if (!Array.isArray(v)) return undefined;
      for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return undefined; // holes too
    }
  // Members set to undefined are left out, as JSON.stringify leaves them.
  const na = ka.filter((k) => ao[k] !== undefined);
  const nb = kb.filter((k) => bo[k] !== undefined);
  if (na.length !== nb.length) return false;
  for (let i = 0; i < na.length; i++) {
    if (na[i] !== nb[i]) return false;
    const x = ao[na[i]];
    const y = bo[nb[i]];
    if (typeof x === 'string' || typeof y === 'string') {
      if (x !== y) return false;
    } else {
      const xs = x as string[];
      const ys = y as string[];
      if (xs.length !== ys.length) return false;
      for (let j = 0; j < xs.length; j++) if (xs[j] !== ys[j]) return false;
    }
  }
  return true;
}

/** A state without the routes it is shared with: who else a Gateway serves a hostname to is their rows' news, not this one's. */
function ownState(s: HostnameState): HostnameState {
  if (s.state !== 'served' || (s.shared === undefined && s.rule === undefined)) return s;
  const own = { ...s };
  delete own.shared;
  delete own.rule;
  return own;
}

export function classify(before: HostnameState, after: HostnameState): HostnameChange {
  if (sameState(ownState(before), ownState(after))) return 'none';
  if (isServed(before) && !isServed(after)) return 'stops';
  if (!isServed(before) && isServed(after)) return 'starts';
  if (isServed(before) && isServed(after)) return 'moves';
  return 'reason';
}

/** Whether a side served with TLS (a certificate, or TLS passthrough). */
function withTls(s: HostnameState): boolean {
  return s.state === 'served' && s.certificate !== undefined;
}

/**
 * The table for two states: every (hostname, route) either claims, sorted by change (stops,
 * starts, moves, reason, none), then hostname, then route.
 */
export function hostnameTable(before: HostnameSide, after: HostnameSide): HostnameRow[] {
  const b = hostnameStates(before);
  const a = hostnameStates(after);
  const edge = new Set<string>();
  for (const o of after.objects)
    if (o.kind === TGW_KIND && isObject(o.spec) && o.spec.certMode === 'edge')
      edge.add(`${o.metadata.namespace ?? ''}/${o.metadata.name}`);
  // The rows of each change apart (in the order found), each sorted, then one after the other. A
  // row's key is `hostname NUL route` (hostnameStates): with no NUL in a hostname, the keys sort
  // as the (hostname, route) pairs do.
  const byChange = new Map<HostnameChange, { k: string; r: HostnameRow }[]>(CHANGE_ORDER.map((c) => [c, []]));
  let byKey = true;
  const add = (k: string, bRow: SideRow | undefined, aRow: SideRow | undefined) => {
    const row = (aRow ?? bRow)!.row;
    const bs = bRow?.state ?? { state: 'absent' };
    const as = aRow?.state ?? { state: 'absent' };
    const r: HostnameRow = { ...row, before: bs, after: as, change: classify(bs, as) };
    if (withTls(bs) && as.state === 'served' && !withTls(as) && !edge.has(as.gateway)) r.tls = 'lost';
    if (byKey && r.hostname.includes('\u0000')) byKey = false;
    byChange.get(r.change)!.push({ k, r });
  };
  // Every key of either side once, the before side's first.
  for (const [k, bRow] of b) add(k, bRow, a.get(k));
  for (const [k, aRow] of a) if (!b.has(k)) add(k, undefined, aRow);
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const rows: HostnameRow[] = [];
  for (const c of CHANGE_ORDER) {
    const group = byChange.get(c)!;
    group.sort(
      byKey ? (x, y) => cmp(x.k, y.k) : (x, y) => cmp(x.r.hostname, y.r.hostname) || cmp(x.r.route, y.r.route),
    );
    for (const e of group) rows.push(e.r);
  }
  return rows;
}

/** One state of a row in words. */
export function describeState(s: HostnameState): string {
  switch (s.state) {
    case 'served':
      return `served by Gateway ${s.gateway} listener ${s.listener}${s.certificate ? ` with ${s.certificate}` : ' (plain HTTP)'}${s.shared ? `; shared by ${s.shared.toLocaleString('en-US')} routes: ${s.rule}` : ''}`;
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

/** The word the reviewer's reports (`-o html`, `-o markdown`) give each change, in their counts and their table. */
const REPORT_WORD: Record<HostnameChange, string> = {
  stops: 'stops',
  starts: 'starts',
  moves: 'moves',
  reason: 'other reason',
  none: 'unchanged',
};

/** Each change's count as the reports print it, in CHANGE_ORDER (`stops 2`, ..., `unchanged 40`). */
export function reportCounts(rows: readonly HostnameRow[]): string[] {
  return CHANGE_ORDER.map((c) => `${REPORT_WORD[c]} ${rows.filter((r) => r.change === c).length}`);
}

/** A row's change as the reports' table names it, with the TLS it loses. */
export function reportChange(r: HostnameRow): string {
  return r.tls === 'lost' ? `${REPORT_WORD[r.change]}, loses TLS` : REPORT_WORD[r.change];
}

/** The most routes a report names for one shared hostname; the rest are counted. */
export const GROUP_NAMES = 10;

/** Rows of one hostname that read alike but for their route: the reports print them once. */
export interface HostnameGroup {
  rows: HostnameRow[];
  /** The first rows' routes (at most GROUP_NAMES), and how many more there are. */
  routes: string[];
  more: number;
}

/**
 * The rows as the reports print them (docs/commands/diff.md "What it does": a shared hostname's
 * routes named once): consecutive rows of one hostname and one change that read alike (the same
 * before, after and TLS, in words) are one group, its routes named up to GROUP_NAMES and counted
 * past them; so a hostname shared by 3,000 routes is one entry of ten names and a count, in every
 * report, whatever the number of routes.
 */
export function hostnameGroups(rows: readonly HostnameRow[]): HostnameGroup[] {
  const out: HostnameGroup[] = [];
  let key = '';
  for (const r of rows) {
    const k = JSON.stringify([r.change, r.hostname, r.tls ?? '', describeState(r.before), describeState(r.after)]);
    const last = out[out.length - 1];
    if (last && k === key) {
      last.rows.push(r);
      if (last.routes.length < GROUP_NAMES) last.routes.push(r.route);
      else last.more++;
      continue;
    }
    key = k;
    out.push({ rows: [r], routes: [r.route], more: 0 });
  }
  return out;
}

/** A group's routes in words: `HTTPRoute a/x` alone, or `3,000 routes: HTTPRoute a/x, ... and 2,990 more`. */
export function groupRoutes(g: HostnameGroup): string {
  if (g.rows.length === 1) return g.routes[0];
  const more = g.more ? ` and ${g.more.toLocaleString('en-US')} more` : '';
  return `${g.rows.length.toLocaleString('en-US')} routes: ${g.routes.join(', ')}${more}`;
}

/** The table as the plans print it: the changed rows under a heading per change, a shared hostname's once; unchanged ones counted. */
export function formatHostnameTable(rows: readonly HostnameRow[]): string[] {
  // One walk over the rows (a table has a row per hostname of the platform): each change's rows, in order.
  const byChange = new Map<HostnameChange, HostnameRow[]>(CHANGE_ORDER.map((c) => [c, []]));
  for (const r of rows) byChange.get(r.change)?.push(r);
  const counts = CHANGE_ORDER.map((c) => `${byChange.get(c)!.length} ${COUNT_WORD[c]}`);
  const lines = [`Hostnames: ${counts.slice(0, 4).join(', ')}; ${counts[4]}.`];
  for (const c of CHANGE_ORDER.slice(0, 4)) {
    const group = byChange.get(c)!;
    if (!group.length) continue;
    lines.push(`  ${HEADING[c]}:`);
    for (const g of hostnameGroups(group)) {
      const r = g.rows[0];
      lines.push(
        `    ${r.hostname}  (${groupRoutes(g)})${r.tls === 'lost' ? ' — loses TLS: only a plain-HTTP listener answers it now' : ''}`,
      );
      lines.push(`      before: ${describeState(r.before)}`);
      lines.push(`      after:  ${describeState(r.after)}`);
    }
  }
  return lines;
}
