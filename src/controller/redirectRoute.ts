/**
 * The controller-owned http-to-https redirect HTTPRoute `<tgw>-http-redirect` (docs/behaviour.md
 * §5.5). Every mode but edge renders it; edge deletes an owned one (the edge redirects by itself,
 * §5.12). A release's redirect names no hostnames (docs/versions.md §X6).
 */
import type { KObject } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { apexOf, certModeOf } from './acmeSolvers';
import { viewOf } from './tenantGatewaySpec';
import { ReconcileError } from './errors';
import { isValidHostname } from '../k8s/dnsNames';
import { redirectRouteName } from '../platform/names';
import { applyOwned, deleteOwned, ownedMetadata } from './ownedObjects';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

/**
 * The redirect's spec. It selects the plain-HTTP listener by sectionName `http` with no namespace
 * (docs/behaviour.md §5.5), so it claims no hostname and takes no part in the hostname race
 * (docs/decisions.md §5). It still names the apex and its wildcard, because the route-hostname policy
 * requires every route to name its own hostnames (docs/behaviour.md §7.7). A release's names none:
 * its route policy admits a route without hostnames (docs/versions.md §X6, §X5).
 */
export function redirectRouteSpec(
  tgw: KObject,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): Record<string, unknown> {
  const parentRefs = [{ group: GROUPS.gateway, kind: 'Gateway', name: tgw.metadata.name, sectionName: 'http' }];
  const rules = [{ filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }] }];
  if (!behaviour.redirectRouteHostnames) return { parentRefs, rules };
  const apex = apexOf(tgw);
  return { parentRefs, hostnames: [apex, `*.${apex}`], rules };
}

export function reconcileRedirectRoute(
  store: Store,
  tgw: KObject,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): void {
  const mode = certModeOf(tgw);
  const name = redirectRouteName(tgw.metadata.name);
  if (mode === 'edge') {
    const existing = store.get(GROUPS.gateway, 'HTTPRoute', tgw.metadata.namespace, name);
    deleteOwned(store, tgw, existing, 'garbage-collected: mode switched to edge, which redirects at the edge');
    return;
  }
  const desired: KObject = {
    apiVersion: `${GROUPS.gateway}/v1`,
    kind: 'HTTPRoute',
    metadata: ownedMetadata(tgw, name),
    spec: redirectRouteSpec(tgw, behaviour),
  };
  const apex = viewOf(tgw).apex;
  // What the apiserver refuses in the write: route hostnames are Gateway API Hostnames (lowercase).
  // The apex arrives verbatim from the namespace.cozystack.io/host label, which nothing
  // normalizes and which may hold upper case, and such a tenant reads Ready=False
  // (docs/behaviour.md §4.4) — under http01 the redirect is the object that composes it.
  const bad = ((desired.spec as { hostnames?: string[] }).hostnames ?? []).filter((h) => !isValidHostname(h));
  if (bad.length > 0) {
    throw new ReconcileError(
      `HTTPRoute ${tgw.metadata.namespace}/${name} cannot be written: hostnames ${bad.map((h) => JSON.stringify(h)).join(', ')} are not lowercase DNS names of at most 253 characters (the apex ${JSON.stringify(apex)} comes from spec.apex)`,
    );
  }
  applyOwned(
    store,
    tgw,
    desired,
    behaviour.redirectRouteHostnames
      ? `http-to-https redirect (301) for ${apex} and *.${apex}`
      : 'http-to-https redirect (301) for every hostname the http listener answers',
  );
}
