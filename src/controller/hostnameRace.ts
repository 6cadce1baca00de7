/**
 * The hostname race under HTTP-01 and the verdict on every claim (docs/behaviour.md §5.8 "who
 * races", §5.9; docs/decisions.md §6, §10, §11): a withdrawn claim neither wins nor loses a
 * hostname, whether or not another route also claimed it; two TLSRoutes that could both attach to
 * one passthrough listener still conflict; a conflict beside any other cause is HostnameConflict.
 *
 * One implementation, in three phases:
 *  1. each (route, parentRef) claim is judged: a parentRef refused or settled as a whole (the
 *     plain-HTTP listener, NoMatchingParent, NotAllowedByListeners) claims no hostname; otherwise
 *     each of its hostnames is either *withdrawn* with its one cause (the claim cannot be served
 *     there) or *races*;
 *  2. per hostname, only the racing claims race: cozy-* first, then namespace, then name; the first
 *     wins, claims in its namespace hold the name with it, the others lose it. A withdrawn claim
 *     neither wins nor loses;
 *  3. each claim gets its reason and message: any lost race is HostnameConflict with every cause
 *     in the message; a native-port refusal alone is NotAllowedByListeners; any other cause is
 *     NoMatchingListenerHostname; none is Accepted.
 *
 * The result is plain data (per hostname: who holds it, who lost it to whom, who was withdrawn and
 * why, who claims it through a parentRef that claims nothing), read by route status, the plan,
 * `render --with-controller` and `diff` alike. Pure; independent of the order of the claims.
 */
import { isValidHostname, isWildcardHostname } from '../k8s/dnsNames';
import { hostnamesOverlap } from '../k8s/gatewayApi';
import { reservingHostname, selectsPlainHttp, type Claimant, type PassthroughListener } from './hostnameClaims';
import { perAppListenerName } from '../platform/names';
import type { TenantGatewayView } from './tenantGatewaySpec';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

export type RouteReason =
  'Accepted' | 'HostnameConflict' | 'NoMatchingListenerHostname' | 'NotAllowedByListeners' | 'NoMatchingParent';

/** The verdict on one claim: the Accepted condition this controller writes for it. */
export interface Verdict {
  claimant: Claimant;
  accepted: boolean;
  reason: RouteReason;
  message: string;
  /** The message without its `On TenantGateway <ns>/<name>: ` prefix: the verdict's own words. */
  detail: string;
}

/**
 * Why a claim cannot be served on a hostname (docs/behaviour.md §5.9 causes 2-6, and the HTTP-01
 * wildcard): it is withdrawn from that hostname's race.
 */
export type WithdrawalCause = 'section' | 'port' | 'reserved' | 'wildcard' | 'tlsOnly' | 'invalid' | 'native';

/** A claim's standing on one of its hostnames. */
export type Standing =
  | { status: 'holds' }
  | { status: 'lost'; heldBy: Claimant }
  | { status: 'withdrawn'; cause: WithdrawalCause; detail: string }
  /** The parentRef claims no hostname (the plain-HTTP listener, or refused as a whole). */
  | { status: 'claimsNone'; reason: RouteReason };

/** One hostname: every claim on it, in exactly one of the four lists, each sorted in race order. */
export interface HostnameOutcome {
  hostname: string;
  /** The name earns a per-app HTTPS listener and Certificate (the race does not matter here). */
  listener: boolean;
  /** The passthrough listener answering the name (the one with the smallest hostname), if any. */
  passthrough?: string;
  /** The claims that hold it and are served on it: the winner and the racing claims in its namespace. */
  holders: Claimant[];
  /** Racing claims from another namespace than the winner's, and the winner that holds the name. */
  lost: { claimant: Claimant; heldBy: Claimant }[];
  /** Claims that cannot be served on the name, with their cause; they took no part in its race. */
  withdrawn: { claimant: Claimant; cause: WithdrawalCause; detail: string }[];
  /** Claims whose parentRef claims no hostname, with their verdict's reason. */
  claimsNone: { claimant: Claimant; reason: RouteReason }[];
}

/** The race of one TenantGateway's pass. */
export interface HostnameRace {
  /** `<namespace>/<name>` of the TenantGateway. */
  tenantGateway: string;
  /** Every claimed hostname, sorted. */
  hostnames: HostnameOutcome[];
  /** One verdict per claim, in the order the claims were given. */
  verdicts: Verdict[];
}

/** What the race needs to know about the rendered Gateway. */
export interface RaceContext {
  v: TenantGatewayView;
  passthrough: readonly PassthroughListener[];
  /** Hostnames with a per-app terminate listener on 443. */
  served: ReadonlySet<string>;
  /** The namespaces the plain-HTTP listener admits. */
  plainHttpNamespaces: readonly string[];
}

// ----- ordering -----------------------------------------------------------------------------------

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Race rank (docs/behaviour.md §5.8): cozy-* namespaces first, then namespace, then name (byte order). */
export function compareRaceRank(
  a: Pick<Claimant, 'namespace' | 'name'>,
  b: Pick<Claimant, 'namespace' | 'name'>,
): number {
  const ca = a.namespace.startsWith('cozy-') ? 0 : 1;
  const cb = b.namespace.startsWith('cozy-') ? 0 : 1;
  return ca - cb || cmp(a.namespace, b.namespace) || cmp(a.name, b.name);
}

/**
 * Race rank, then kind and parentRef index: a total order on the claims, so the holder a message
 * names (an HTTPRoute and a TLSRoute may share a name) never depends on the order of the inputs.
 */
export function compareClaims(a: Claimant, b: Claimant): number {
  return compareRaceRank(a, b) || cmp(a.kind, b.kind) || a.refIndex - b.refIndex;
}

// ----- messages -----------------------------------------------------------------------------------

export type CauseKind = 'conflict' | WithdrawalCause;
/** The causes in the order a message lists them (docs/behaviour.md §5.9). */
const CAUSE_ORDER: CauseKind[] = [
  'conflict',
  'section',
  'port',
  'reserved',
  'wildcard',
  'tlsOnly',
  'invalid',
  'native',
];
const CAUSE_TEXT: Record<CauseKind, string> = {
  conflict: 'hostname held by a route in another namespace',
  section: 'the listener named by sectionName answers another hostname',
  port: 'no listener answering it is published on the parentRef port',
  reserved:
    'answered only by a TLS-passthrough listener, which an HTTPRoute does not attach to, and no terminate listener is rendered beside it',
  wildcard: 'HTTP-01 issues no wildcard certificate, so no terminate listener can carry the wildcard',
  tlsOnly: 'no listener renders it (a hostname only a TLSRoute claims earns no listener)',
  invalid: 'not a valid hostname',
  native: 'the native-port listener answering it admits routes from the TenantGateway namespace only',
};

function describeRoute(c: Claimant): string {
  return `${c.kind} ${c.namespace}/${c.name}`;
}

/**
 * `On TenantGateway <ns>/<name>: ` then the causes joined with `; `, in CAUSE_ORDER, each listing
 * its hostnames sorted. A hostname has one standing per claim, so each is named once.
 */
/**
 * The cause of a claim's standing on hostname h, as route status words it (`hostname held by a
 * route in another namespace: h (held by HTTPRoute ns/name)`), or undefined when the claim holds
 * the name or claims none. The one statement of each cause: route status messages and the
 * hostname table (src/diff/hostnames.ts) both read it from here.
 */
export function standingCause(h: string, s: Standing): { kind: CauseKind; item: string } | undefined {
  let kind: CauseKind;
  let detail: string;
  if (s.status === 'lost') [kind, detail] = ['conflict', `held by ${describeRoute(s.heldBy)}`];
  else if (s.status === 'withdrawn') [kind, detail] = [s.cause, s.detail];
  else return undefined;
  return { kind, item: detail ? `${h} (${detail})` : h };
}

/** `<cause text>: <items>`, the part of a message that states one cause. */
export function causeText(kind: CauseKind, items: readonly string[]): string {
  return `${CAUSE_TEXT[kind]}: ${items.join(', ')}`;
}

/** The reason a hostname withdrawn for this cause alone gets (phase 3). */
export function withdrawalReason(cause: WithdrawalCause): RouteReason {
  return cause === 'native' ? 'NotAllowedByListeners' : 'NoMatchingListenerHostname';
}

/**
 * The causes joined with `; `, in CAUSE_ORDER, each listing its hostnames sorted. A hostname has
 * one standing per claim, so each is named once.
 */
function causesDetail(standings: ReadonlyMap<string, Standing>): string {
  const byCause = new Map<CauseKind, string[]>();
  for (const h of [...standings.keys()].sort()) {
    const s = standings.get(h)!;
    const c = standingCause(h, s);
    if (!c) continue;
    const items = byCause.get(c.kind) ?? [];
    items.push(c.item);
    byCause.set(c.kind, items);
  }
  return CAUSE_ORDER.filter((k) => byCause.has(k))
    .map((k) => causeText(k, byCause.get(k)!))
    .join('; ');
}

function verdictOf(v: TenantGatewayView, c: Claimant, acc: boolean, reason: RouteReason, detail: string): Verdict {
  return { claimant: c, accepted: acc, reason, message: `On TenantGateway ${v.id}: ${detail}`, detail };
}

function refusal(v: TenantGatewayView, c: Claimant, reason: RouteReason, text: string): Verdict {
  return verdictOf(v, c, false, reason, text);
}

function accepted(v: TenantGatewayView, c: Claimant): Verdict {
  return {
    claimant: c,
    accepted: true,
    reason: 'Accepted',
    message: `Route attached to TenantGateway ${v.id}`,
    detail: `Route attached to TenantGateway ${v.id}`,
  };
}

// ----- phase 1: the claim, parentRef by parentRef and hostname by hostname --------------------------

interface Judged {
  claimant: Claimant;
  /** A verdict settled for the parentRef as a whole: it claims no hostname and races nowhere. */
  settled?: Verdict;
  /** The hostnames the claim cannot be served on, and why; every other hostname races. */
  withdrawn: Map<string, { cause: WithdrawalCause; detail: string }>;
}

interface Indexed extends RaceContext {
  ptByName: ReadonlyMap<string, PassthroughListener>;
}

function withdraw(j: Judged, h: string, cause: WithdrawalCause, detail = ''): void {
  if (!j.withdrawn.has(h)) j.withdrawn.set(h, { cause, detail });
}

function judgeClaim(ctx: Indexed, c: Claimant): Judged {
  const { v, ptByName } = ctx;
  const j: Judged = { claimant: c, withdrawn: new Map() };
  const port = c.port;
  // "A sectionName outside that prefix, http aside, is not judged here at all: the listener
  // families it could name are the ones this pass is still deciding, so the route is written
  // Accepted=True like any attached route" — such a section is read as no section at all.
  const section = c.sectionName === 'http' || c.sectionName?.startsWith('tls-') ? c.sectionName : undefined;

  // Section and port selecting different listeners: NoMatchingParent ("an HTTPRoute whose
  // sectionName and parentRef port select different listeners, http with port 443 for one").
  const sectionPort = section === 'http' ? 80 : ptByName.get(section ?? '')?.port;
  if (section !== undefined && port !== undefined && sectionPort !== undefined && sectionPort !== port) {
    j.settled = refusal(
      v,
      c,
      'NoMatchingParent',
      `sectionName ${section} and port ${port} select different listeners (${section} is on port ${sectionPort})`,
    );
    return j;
  }
  if (selectsPlainHttp({ sectionName: section, port })) j.settled = judgePlainHttp(ctx, c);
  else if (section !== undefined && section.startsWith('tls-')) judgeTlsSection(ctx, j, section);
  else if (c.kind === 'HTTPRoute') judgeTerminateHostnames(ctx, j);
  // TLSRoute with no tls-* section.
  else judgeTlsHostnames(ctx, j);
  return j;
}

/**
 * The plain-HTTP listener: no hostname claimed, no race (docs/decisions.md §5). It admits the
 * tenant namespace and cozy-cert-manager only, and takes no TLSRoute.
 */
function judgePlainHttp(ctx: Indexed, c: Claimant): Verdict {
  const { v } = ctx;
  if (c.kind === 'TLSRoute')
    return refusal(v, c, 'NotAllowedByListeners', 'listener http serves plain HTTP and takes no TLSRoute');
  if (!ctx.plainHttpNamespaces.includes(c.namespace))
    return refusal(
      v,
      c,
      'NotAllowedByListeners',
      `listener http admits routes from namespaces ${ctx.plainHttpNamespaces.join(', ')} only, not from ${c.namespace}`,
    );
  return accepted(v, c);
}

/** A claim whose sectionName is a `tls-<name>`: rendered or absent, for an HTTPRoute or a TLSRoute. */
function judgeTlsSection(ctx: Indexed, j: Judged, section: string): void {
  const { v, passthrough, ptByName } = ctx;
  const c = j.claimant;
  const l = ptByName.get(section);
  if (c.kind === 'HTTPRoute') {
    // A rendered tls-<name> forwards a stream it never terminates: NotAllowedByListeners.
    // An absent one: NoMatchingParent "whatever answers the hostname".
    j.settled = l
      ? refusal(
          v,
          c,
          'NotAllowedByListeners',
          `listener ${section} passes TLS through without terminating it and takes TLSRoute only`,
        )
      : refusal(v, c, 'NoMatchingParent', `sectionName ${section} names no listener on Gateway ${v.id}`);
    return;
  }
  if (!l) {
    // TLSRoute on an absent section: NoMatchingParent where a passthrough listener answers
    // its hostname; otherwise judged like any attached route (a terminate listener rendered
    // for an HTTPRoute on the name serves it, else "unserved for the plainer reason").
    for (const h of [...c.hostnames].sort()) {
      const r = reservingHostname(h, passthrough);
      if (r === undefined) continue;
      j.settled = refusal(
        v,
        c,
        'NoMatchingParent',
        `sectionName ${section} names no listener on Gateway ${v.id} (${h} is answered by ${r})`,
      );
      return;
    }
    judgeTlsHostnames(ctx, j);
    return;
  }
  // Pinned to a rendered passthrough listener: it races where that listener answers the name.
  for (const h of c.hostnames) {
    if (!isValidHostname(h)) withdraw(j, h, 'invalid');
    else if (!hostnamesOverlap(l.hostname, h))
      withdraw(j, h, 'section', `sectionName ${section} answers ${l.hostname}`);
    else if (l.native && c.namespace !== v.namespace)
      withdraw(j, h, 'native', `listener ${l.listenerName} admits ${v.namespace}`);
  }
}

/**
 * An HTTPRoute wanting termination: the per-app listener is published on 443 alone, carries no
 * wildcard under HTTP-01, and is never rendered for a name a passthrough listener answers.
 */
function judgeTerminateHostnames(ctx: Indexed, j: Judged): void {
  const c = j.claimant;
  for (const h of c.hostnames) {
    if (!isValidHostname(h)) withdraw(j, h, 'invalid');
    else if (c.port !== undefined && c.port !== 443)
      withdraw(j, h, 'port', `port ${c.port}; terminate listeners are published on 443 only`);
    else if (isWildcardHostname(h)) withdraw(j, h, 'wildcard');
    else {
      const r = reservingHostname(h, ctx.passthrough);
      if (r !== undefined) withdraw(j, h, 'reserved', `answered by ${r}`);
    }
  }
}

/**
 * A TLSRoute hostname is served by a passthrough listener answering it or by the terminate
 * listener an HTTPRoute earned for it, judged against every one of them: none → withdrawn (only
 * a TLSRoute claims it); none on the parentRef port → withdrawn (port); only native-port
 * listeners on that port and the route outside the TenantGateway namespace → withdrawn (native).
 */
function judgeTlsHostnames(ctx: RaceContext, j: Judged): void {
  const { v, passthrough, served } = ctx;
  const c = j.claimant;
  for (const h of c.hostnames) {
    if (!isValidHostname(h)) {
      withdraw(j, h, 'invalid');
      continue;
    }
    const cands: { port: number; native: boolean; name: string }[] = passthrough
      .filter((x) => hostnamesOverlap(x.hostname, h))
      .map((x) => ({ port: x.port, native: x.native, name: x.listenerName }));
    if (served.has(h)) cands.push({ port: 443, native: false, name: perAppListenerName(h) });
    const onPort = c.port === undefined ? cands : cands.filter((x) => x.port === c.port);
    if (cands.length === 0) withdraw(j, h, 'tlsOnly');
    else if (onPort.length === 0) {
      const ports = [...new Set(cands.map((x) => x.port))].sort((a, b) => a - b);
      withdraw(j, h, 'port', `port ${c.port}; answered on port ${ports.join(', ')}`);
    } else if (onPort.every((x) => x.native) && c.namespace !== v.namespace) {
      const names = onPort.map((x) => x.name).sort();
      withdraw(j, h, 'native', `listener ${names[0]} admits ${v.namespace}`);
    }
  }
}

// ----- phases 2 and 3 -------------------------------------------------------------------------------

/** A hostname's outcome with no claim placed yet; `passthrough` names the listener answering it, if any. */
function newOutcome(h: string, listener: boolean, passthrough: readonly PassthroughListener[]): HostnameOutcome {
  const o: HostnameOutcome = { hostname: h, listener, holders: [], lost: [], withdrawn: [], claimsNone: [] };
  const r = reservingHostname(h, passthrough);
  if (r !== undefined) o.passthrough = passthrough.find((x) => x.hostname === r)!.listenerName;
  return o;
}

/**
 * Decide the race of one TenantGateway's pass over its claims (phase 1 to 3 above). Every claim
 * gets one verdict; every claimed hostname one outcome. A release's controller runs its own race
 * ({@link decideReleaseHostnames}).
 */
export function decideHostnames(
  context: RaceContext,
  claimants: readonly Claimant[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): HostnameRace {
  if (behaviour.listenerClaims === 'releases') return decideReleaseHostnames(context, claimants);
  const ctx: Indexed = { ...context, ptByName: new Map(context.passthrough.map((x) => [x.listenerName, x])) };
  const judged = claimants.map((c) => judgeClaim(ctx, c));

  // Phase 2: per hostname, the racing claims only.
  const standings = new Map<Claimant, Map<string, Standing>>();
  const racing = new Map<string, Claimant[]>();
  for (const j of judged) {
    const m = new Map<string, Standing>();
    standings.set(j.claimant, m);
    for (const h of j.claimant.hostnames) {
      const w = j.withdrawn.get(h);
      if (j.settled) m.set(h, { status: 'claimsNone', reason: j.settled.reason });
      else if (w) m.set(h, { status: 'withdrawn', cause: w.cause, detail: w.detail });
      else {
        m.set(h, { status: 'holds' });
        const l = racing.get(h) ?? [];
        l.push(j.claimant);
        racing.set(h, l);
      }
    }
  }
  for (const [h, cs] of racing) {
    let winner = cs[0];
    for (const c of cs) if (compareClaims(c, winner) < 0) winner = c;
    for (const c of cs)
      if (c.namespace !== winner.namespace) standings.get(c)!.set(h, { status: 'lost', heldBy: winner });
  }

  // Phase 3: the verdicts (docs/decisions.md §6, §10, §11; docs/behaviour.md §5.9, the reason).
  const verdicts = judged.map((j): Verdict => {
    if (j.settled) return j.settled;
    const c = j.claimant;
    const mine = standings.get(c)!;
    const all = [...mine.values()];
    const lost = all.some((s) => s.status === 'lost');
    const causes = new Set(all.flatMap((s) => (s.status === 'withdrawn' ? [s.cause] : [])));
    if (!lost) {
      // docs/decisions.md §10: an HTTPRoute whose only refusal is the passthrough reservation, and
      // which also claims a name outside it, "stays Accepted and is served on that one".
      // Refused for any other cause as well, it keeps the reservation in the message.
      if (causes.size === 0 || (causes.size === 1 && causes.has('reserved') && all.some((s) => s.status === 'holds')))
        return accepted(ctx.v, c);
      const reason: RouteReason =
        causes.size === 1 && causes.has('native') ? 'NotAllowedByListeners' : 'NoMatchingListenerHostname';
      return verdictOf(ctx.v, c, false, reason, causesDetail(mine));
    }
    return verdictOf(ctx.v, c, false, 'HostnameConflict', causesDetail(mine));
  });

  // The outcome per hostname.
  const outcomes = new Map<string, HostnameOutcome>();
  for (const j of judged) {
    for (const [h, s] of standings.get(j.claimant)!) {
      let o = outcomes.get(h);
      if (!o) outcomes.set(h, (o = newOutcome(h, ctx.served.has(h), ctx.passthrough)));
      const c = j.claimant;
      if (s.status === 'holds') o.holders.push(c);
      else if (s.status === 'lost') o.lost.push({ claimant: c, heldBy: s.heldBy });
      else if (s.status === 'withdrawn') o.withdrawn.push({ claimant: c, cause: s.cause, detail: s.detail });
      else o.claimsNone.push({ claimant: c, reason: s.reason });
    }
  }
  const hostnames = [...outcomes.values()].sort((a, b) => cmp(a.hostname, b.hostname));
  for (const o of hostnames) {
    o.holders.sort(compareClaims);
    o.lost.sort((a, b) => compareClaims(a.claimant, b.claimant));
    o.withdrawn.sort((a, b) => compareClaims(a.claimant, b.claimant));
    o.claimsNone.sort((a, b) => compareClaims(a.claimant, b.claimant));
  }
  return { tenantGateway: ctx.v.id, hostnames, verdicts };
}

// ----- a release's race (docs/versions.md §X7) ------------------------------------------------------

/**
 * The releases' message for a claim that lost hostnames: every lost name (as often as the route
 * lists it) sorted, where upstream iterates a map (docs/versions.md §X7).
 */
export function releaseConflictMessage(v: TenantGatewayView, lost: readonly string[]): string {
  return `Hostname(s) ${[...lost].sort().join(', ')} already claimed by another route on TenantGateway ${v.id}`;
}

/** The hostnames as the route lists them, repeats included (the release collects claims per entry). */
function listedHostnames(c: Claimant): string[] {
  const spec = c.route.spec as { hostnames?: unknown } | undefined;
  return Array.isArray(spec?.hostnames) ? spec.hostnames.filter((h): h is string => typeof h === 'string') : [];
}

/**
 * The race of a release's controller (docs/versions.md §X7): no claim is judged before it races
 * (sectionName and port are not read, and nothing is withdrawn), every claimed hostname earns a
 * listener, and per hostname the first claim by rank wins while the claims in its namespace hold
 * it with it. A claim that lost any hostname reads `Accepted=False`, HostnameConflict, naming the
 * names it lost; every other `Accepted=True`. No other reason exists there.
 */
export function decideReleaseHostnames(context: RaceContext, claimants: readonly Claimant[]): HostnameRace {
  const { v, passthrough } = context;
  const byHost = new Map<string, Claimant[]>();
  for (const c of claimants)
    for (const h of c.hostnames) {
      const l = byHost.get(h);
      if (l) l.push(c);
      else byHost.set(h, [c]);
    }
  const hostnames: HostnameOutcome[] = [];
  const lostBy = new Map<Claimant, Set<string>>();
  for (const h of [...byHost.keys()].sort(cmp)) {
    const cs = [...byHost.get(h)!].sort(compareClaims);
    const o = newOutcome(h, true, passthrough);
    for (const c of cs) {
      if (c.namespace === cs[0].namespace) o.holders.push(c);
      else {
        o.lost.push({ claimant: c, heldBy: cs[0] });
        lostBy.set(c, (lostBy.get(c) ?? new Set()).add(h));
      }
    }
    hostnames.push(o);
  }
  const verdicts = claimants.map((c): Verdict => {
    const lost = lostBy.get(c);
    if (!lost) return accepted(v, c);
    const message = releaseConflictMessage(
      v,
      listedHostnames(c).filter((h) => lost.has(h)),
    );
    return { claimant: c, accepted: false, reason: 'HostnameConflict', message, detail: message };
  });
  return { tenantGateway: v.id, hostnames, verdicts };
}
