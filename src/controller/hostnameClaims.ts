/**
 * Hostname claims under HTTP-01 (docs/behaviour.md §5.8; the passthrough reservation of §5.13;
 * the route refusals of §5.9): which routes
 * attach, which (route, parentRef) pairs claim which hostnames, the passthrough reservation,
 * and which hostnames earn a per-app listener and certificate. The race is in hostnameRace.ts.
 */
import type { KObject } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { passthroughListenerName, passthroughServiceListenerName, redirectRouteName } from '../platform/names';
import type { TenantGatewayView } from './tenantGatewaySpec';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { isValidHostname, isWildcardHostname } from '../k8s/dnsNames';
import {
  hostnamesOverlap,
  parentRefPort,
  parentRefSection,
  parentRefTargets,
  routeHostnames,
  routeParentRefs,
  type ParentRef,
} from '../k8s/gatewayApi';

export type RouteKind = 'HTTPRoute' | 'TLSRoute';
/** The route kinds that race for hostnames under HTTP-01 (GRPCRoute "takes no part in that race"). */
export const RACING_ROUTE_KINDS: readonly RouteKind[] = ['HTTPRoute', 'TLSRoute'];

/** A passthrough listener the TenantGateway declares: `tls-<svc>` on 443, or a native-port `tls-<name>`. */
export interface PassthroughListener {
  listenerName: string;
  hostname: string;
  port: number;
  /** From tlsPassthroughListeners: admits routes from the TenantGateway's own namespace only. */
  native: boolean;
}

/**
 * The passthrough listeners, services first then native-port entries, in spec order. None under
 * edge: an HTTP-only edge renders no TLS listener ("TLSPassthroughServices are not rendered").
 * Call after validation (the entries are then well-formed).
 */
export function passthroughListenersOf(v: TenantGatewayView): PassthroughListener[] {
  if (v.certMode === 'edge') return [];
  const out: PassthroughListener[] = [];
  for (const svc of v.passthroughServices) {
    out.push({
      listenerName: passthroughServiceListenerName(svc),
      hostname: `${svc}.${v.apex}`,
      port: 443,
      native: false,
    });
  }
  for (const l of v.passthroughListeners) {
    out.push({
      listenerName: passthroughListenerName(String(l.name)),
      hostname: String(l.hostname),
      port: Number(l.port),
      native: true,
    });
  }
  return out;
}

/**
 * The passthrough hostname that reserves h, the lexicographically smallest overlapping one
 * (docs/behaviour.md §5.9 cause 4), or undefined. A hostname a passthrough listener answers earns
 * neither a listener nor a certificate, and a name beneath a wildcard entry is reserved the same way (§5.13).
 */
export function reservingHostname(h: string, passthrough: readonly PassthroughListener[]): string | undefined {
  let best: string | undefined;
  for (const p of passthrough)
    if (hostnamesOverlap(h, p.hostname) && (best === undefined || p.hostname < best)) best = p.hostname;
  return best;
}

/** One (route, parentRef) pair that claims every hostname of the route (docs/behaviour.md §5.8). */
export interface Claimant {
  route: KObject;
  kind: RouteKind;
  namespace: string;
  name: string;
  /** Index of the parentRef in spec.parentRefs. */
  refIndex: number;
  parentRef: ParentRef;
  sectionName?: string;
  port?: number;
  /** spec.hostnames, de-duplicated, in the route's order. */
  hostnames: string[];
}

/**
 * The controller's own redirect route is not judged: it is written by this pass after route
 * statuses (docs/behaviour.md §5.1), selects the plain-HTTP listener and claims nothing
 * (docs/decisions.md §5), so judging it would only make a second pass differ from the first.
 */
export function isOwnRedirect(route: KObject, v: TenantGatewayView): boolean {
  return (
    route.kind === 'HTTPRoute' &&
    route.metadata.namespace === v.namespace &&
    route.metadata.name === redirectRouteName(v.name)
  );
}

/**
 * Every route of the attach set with a parentRef naming this Gateway (GRPCRoute never: it
 * "takes no part in that race"), sorted by kind, namespace and name. Routes are read per
 * namespace of the attach set, so the cost follows the attach set, not the cluster.
 */
export function attachedRoutes(store: Store, v: TenantGatewayView, attachSet: readonly string[]): KObject[] {
  const out: KObject[] = [];
  for (const kind of RACING_ROUTE_KINDS) {
    for (const ns of attachSet) {
      for (const r of store.list(GROUPS.gateway, kind, ns)) {
        if (isOwnRedirect(r, v)) continue;
        if (routeParentRefs(r).some((p) => parentRefTargets(p, ns, v))) out.push(r);
      }
    }
  }
  return out;
}

/** The claimants among attached routes. "A route with no hostnames gets no claim and no status." */
export function collectClaimants(routes: readonly KObject[], v: TenantGatewayView): Claimant[] {
  const out: Claimant[] = [];
  for (const route of routes) {
    const hostnames = routeHostnames(route);
    if (hostnames.length === 0) continue;
    const ns = route.metadata.namespace ?? '';
    routeParentRefs(route).forEach((p, i) => {
      if (!parentRefTargets(p, ns, v)) return;
      const c: Claimant = {
        route,
        kind: route.kind as RouteKind,
        namespace: ns,
        name: route.metadata.name,
        refIndex: i,
        parentRef: p,
        hostnames,
      };
      const section = parentRefSection(p);
      const port = parentRefPort(p);
      if (section !== undefined) c.sectionName = section;
      if (port !== undefined) c.port = port;
      out.push(c);
    });
  }
  return out;
}

/** sectionName `http`, or port 80 with no sectionName: the plain-HTTP listener (docs/decisions.md §5). */
export function selectsPlainHttp(c: Pick<Claimant, 'sectionName' | 'port'>): boolean {
  return c.sectionName === 'http' || (c.sectionName === undefined && c.port === 80);
}

/**
 * "Wants termination" (docs/behaviour.md §5.8): no sectionName or one other than `http`/`tls-*`,
 * and port absent or 443.
 */
export function wantsTermination(c: Claimant): boolean {
  if (c.kind !== 'HTTPRoute') return false;
  if (c.sectionName !== undefined && (c.sectionName === 'http' || c.sectionName.startsWith('tls-'))) return false;
  return c.port === undefined || c.port === 443;
}

/**
 * The hostnames that earn a per-app HTTPS listener and Certificate, sorted: claimed by an
 * HTTPRoute claimant that wants termination, valid, not a wildcard (HTTP-01 issues no wildcard
 * certificate) and not SNI-overlapping any passthrough hostname (the reservation is read off the
 * spec alone). "The race does not matter here." A TLSRoute-only hostname earns nothing.
 * A release's controller (docs/versions.md §X7) gives every claimed hostname one, whoever claims
 * it and however: a TLSRoute's, a passthrough listener's, a wildcard, one claimed through the
 * plain-HTTP listener, an invalid one (the Gateway write then fails on it).
 */
export function servedHostnames(
  claimants: readonly Claimant[],
  passthrough: readonly PassthroughListener[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): string[] {
  if (behaviour.listenerClaims === 'releases') return [...new Set(claimants.flatMap((c) => c.hostnames))].sort();
  const served = new Set<string>();
  const seen = new Set<string>();
  for (const c of claimants) {
    if (!wantsTermination(c)) continue;
    for (const h of c.hostnames) {
      if (seen.has(h)) continue;
      seen.add(h);
      if (!isValidHostname(h) || isWildcardHostname(h)) continue;
      if (reservingHostname(h, passthrough) !== undefined) continue;
      served.add(h);
    }
  }
  return [...served].sort();
}
