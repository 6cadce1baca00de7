/**
 * Gateway API semantics every layer reads the same way, defined once: SNI overlap
 * between hostnames, whether a route's parentRef names a Gateway and which listener it selects,
 * and a route's hostnames and parentRefs as written. The TenantGateway controller (claims, the
 * hostname race, route status), the Cilium-hazard rules and the plan all use these; none keeps a
 * copy; so do a listener's attachment rules (`allowedRoutes`: which route kinds, from which
 * namespaces). Pure: objects in, answers out.
 */
import { isObject, type KObject } from './model';
import { GROUPS } from './store';
import { isWildcardHostname } from './dnsNames';
import { selectorMatches } from './labelSelector';

// ----- hostnames --------------------------------------------------------------------------------

/**
 * SNI overlap (docs/behaviour.md §5.8): equal, or one is `*.S` and the other ends with `.S`. A
 * multi-label match and a wildcard covering a narrower wildcard both count; `*.S` does not match
 * `S`. Case-insensitive. An absent hostname is a listener without one, which matches every name.
 */
export function hostnamesOverlap(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return true;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  if (isWildcardHostname(x) && y.endsWith(x.slice(1))) return true;
  if (isWildcardHostname(y) && x.endsWith(y.slice(1))) return true;
  return false;
}

/**
 * Whether `narrow` matches strictly fewer names than `wide` (Envoy then selects it first): a
 * name under `wide`'s wildcard, not `wide` itself. An absent `wide` matches everything; an
 * absent `narrow` is never narrower.
 */
export function strictlyNarrower(narrow: string | undefined, wide: string | undefined): boolean {
  if (narrow === undefined) return false;
  if (wide === undefined) return true;
  const n = narrow.toLowerCase();
  const w = wide.toLowerCase();
  return n !== w && isWildcardHostname(w) && n.endsWith(w.slice(1));
}

// ----- routes -----------------------------------------------------------------------------------

/** A parentRef as the route wrote it. */
export type ParentRef = Record<string, unknown>;

/** `spec.parentRefs` as written (entries not checked). */
export function routeParentRefs(route: KObject): unknown[] {
  const spec = isObject(route.spec) ? route.spec : {};
  return Array.isArray(spec.parentRefs) ? spec.parentRefs : [];
}

/** `spec.hostnames`: the string entries, de-duplicated, in the route's order. */
export function routeHostnames(route: KObject): string[] {
  const spec = isObject(route.spec) ? route.spec : {};
  const hs = Array.isArray(spec.hostnames) ? spec.hostnames : [];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const h of hs) {
    if (typeof h !== 'string' || seen.has(h)) continue;
    seen.add(h);
    out.push(h);
  }
  return out;
}

// ----- parentRefs -------------------------------------------------------------------------------

/** The namespace a parentRef names: its own when a non-empty string, else the route's (Gateway API's default). */
export function parentRefNamespace(ref: ParentRef, routeNamespace: string): string {
  return typeof ref.namespace === 'string' && ref.namespace !== '' ? ref.namespace : routeNamespace;
}

/** A parentRef's sectionName when it is a non-empty string. */
export function parentRefSection(ref: ParentRef): string | undefined {
  return typeof ref.sectionName === 'string' && ref.sectionName !== '' ? ref.sectionName : undefined;
}

/** A parentRef's port when it is a number. */
export function parentRefPort(ref: ParentRef): number | undefined {
  return typeof ref.port === 'number' ? ref.port : undefined;
}

/**
 * Does a parentRef name this Gateway (docs/behaviour.md §5.8)? Group empty or absent or
 * gateway.networking.k8s.io, kind absent or Gateway, namespace (defaulting to the route's, an
 * empty one included) the Gateway's, and name the Gateway's.
 */
export function parentRefTargets(
  ref: unknown,
  routeNamespace: string,
  gateway: { namespace: string; name: string },
): ref is ParentRef {
  if (!isObject(ref)) return false;
  const group = ref.group ?? '';
  const kind = ref.kind ?? 'Gateway';
  return (
    (group === '' || group === GROUPS.gateway) &&
    kind === 'Gateway' &&
    ref.name === gateway.name &&
    parentRefNamespace(ref, routeNamespace) === gateway.namespace
  );
}

/**
 * Does a parentRef that names the Gateway select this listener? A sectionName must be the
 * listener's name and a port the listener's port; a parentRef with neither selects every listener.
 */
export function parentRefSelectsListener(ref: ParentRef, listener: { name: string; port: number }): boolean {
  const section = parentRefSection(ref);
  const port = parentRefPort(ref);
  return (section === undefined || section === listener.name) && (port === undefined || port === listener.port);
}

// ----- listeners --------------------------------------------------------------------------------

/**
 * The route kinds a listener protocol admits when the listener names none, as Cilium derives them
 * (docs/behaviour.md §5.3: Gateway API leaves the mapping to the implementation): HTTP and HTTPS take HTTPRoute and GRPCRoute, TLS takes TLSRoute, TCP TCPRoute,
 * UDP UDPRoute; any other protocol admits nothing. Sorted.
 */
export function protocolRouteKinds(protocol: string): string[] {
  switch (protocol) {
    case 'HTTP':
    case 'HTTPS':
      return ['GRPCRoute', 'HTTPRoute'];
    case 'TLS':
      return ['TLSRoute'];
    case 'TCP':
      return ['TCPRoute'];
    case 'UDP':
      return ['UDPRoute'];
    default:
      return [];
  }
}

/**
 * The kinds a listener's `allowedRoutes.kinds` names, or undefined when it names none (the list
 * unset or empty: Gateway API then derives them from the protocol).
 */
export function explicitRouteKinds(listener: Record<string, unknown>): string[] | undefined {
  const allowed = isObject(listener.allowedRoutes) ? listener.allowedRoutes : {};
  const kinds = Array.isArray(allowed.kinds) ? allowed.kinds.filter(isObject).map((k) => String(k.kind ?? '')) : [];
  return kinds.length ? kinds : undefined;
}

/** The route kinds a listener admits: those it names, else those its protocol admits. Sorted, without repeats. */
export function listenerRouteKinds(listener: { protocol: string; kinds?: readonly string[] }): string[] {
  return listener.kinds ? [...new Set(listener.kinds)].sort() : protocolRouteKinds(listener.protocol);
}

/** A listener's `allowedRoutes.namespaces` as written (an empty map when unset: Gateway API's default, Same). */
export function listenerNamespaces(listener: Record<string, unknown>): Record<string, unknown> {
  return isObject(listener.allowedRoutes) && isObject(listener.allowedRoutes.namespaces)
    ? listener.allowedRoutes.namespaces
    : {};
}

/**
 * Whether a listener's `allowedRoutes.namespaces` admits routes from namespace `routeNamespace`
 * (Gateway API: `from` is Same by default, the Gateway's own namespace; All; or Selector, a label
 * selector over the route namespace's labels, `kubernetes.io/metadata.name` included; any other
 * `from`, or Selector without a selector, admits none). `labelsOf` gives a namespace's labels
 * (undefined: no such Namespace known, only its name label then).
 */
export function listenerAdmitsNamespace(
  allowed: Record<string, unknown>,
  gatewayNamespace: string,
  routeNamespace: string,
  labelsOf: (ns: string) => Record<string, string> | undefined,
): boolean {
  const from = typeof allowed.from === 'string' && allowed.from !== '' ? allowed.from : 'Same';
  if (from === 'All') return true;
  if (from === 'Same') return routeNamespace === gatewayNamespace;
  if (from !== 'Selector' || !isObject(allowed.selector)) return false;
  const labels: Record<string, string> = {
    'kubernetes.io/metadata.name': routeNamespace,
    ...(labelsOf(routeNamespace) ?? {}),
  };
  return selectorMatches(allowed.selector, labels);
}
