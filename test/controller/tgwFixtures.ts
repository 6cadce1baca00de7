/** Object builders for the TenantGateway controller tests. */
import { collectClaimants, passthroughListenersOf, servedHostnames } from '../../src/controller/hostnameClaims';
import { decideHostnames, type HostnameRace, type Verdict } from '../../src/controller/hostnameRace';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import type { KObject } from '../../src/k8s/model';

export const NOW = '2026-01-01T00:00:00Z';
export const LATER = '2026-02-01T00:00:00Z';

export function tgw(spec: Record<string, unknown>, md: Partial<KObject['metadata']> = {}): KObject {
  return {
    apiVersion: 'gateway.cozystack.io/v1alpha1',
    kind: 'TenantGateway',
    metadata: { name: 'cozystack', namespace: 'tenant-root', uid: 'uid-root', generation: 1, ...md },
    spec: { apex: 'example.org', certMode: 'http01', ...spec },
  };
}

export function ns(name: string, labels: Record<string, string> = {}, annotations?: Record<string, string>): KObject {
  const o: KObject = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } },
  };
  if (annotations) o.metadata.annotations = annotations;
  return o;
}

export function route(
  kind: 'HTTPRoute' | 'TLSRoute' | 'GRPCRoute',
  namespace: string,
  name: string,
  hostnames: string[] | undefined,
  parentRefs: Record<string, unknown>[] = [{ name: 'cozystack', namespace: 'tenant-root' }],
  status?: Record<string, unknown>,
): KObject {
  const o: KObject = {
    apiVersion: kind === 'TLSRoute' ? 'gateway.networking.k8s.io/v1alpha2' : 'gateway.networking.k8s.io/v1',
    kind,
    metadata: { name, namespace },
    spec: { parentRefs, ...(hostnames ? { hostnames } : {}) },
  };
  if (status) o.status = status;
  return o;
}

export const http = (namespace: string, name: string, hostnames?: string[], parentRefs?: Record<string, unknown>[]) =>
  route('HTTPRoute', namespace, name, hostnames, parentRefs);
export const tls = (namespace: string, name: string, hostnames?: string[], parentRefs?: Record<string, unknown>[]) =>
  route('TLSRoute', namespace, name, hostnames, parentRefs);

/** The usual tenant-root cluster: tenant-root labelled, cozy-cert-manager attached. */
export function baseNamespaces(): KObject[] {
  return [
    ns('tenant-root', {
      'namespace.cozystack.io/gateway': 'tenant-root',
      'namespace.cozystack.io/host': 'example.org',
    }),
    ns('cozy-cert-manager'),
    ns('cozy-harbor'),
    ns('cozy-dashboard'),
    ns('tenant-alice', {
      'namespace.cozystack.io/gateway': 'tenant-root',
      'namespace.cozystack.io/host': 'alice.example.org',
    }),
    ns('tenant-eve'),
  ];
}

/** A live Gateway status with every listener Accepted and Programmed. */
export function liveStatus(
  listenerNames: string[],
  gw: { accepted?: boolean; programmed?: boolean } = {},
): Record<string, unknown> {
  const c = (type: string, ok = true) => ({
    type,
    status: ok ? 'True' : 'False',
    reason: type,
    message: '',
    lastTransitionTime: NOW,
  });
  return {
    conditions: [c('Accepted', gw.accepted ?? true), c('Programmed', gw.programmed ?? true)],
    listeners: listenerNames.map((name) => ({ name, attachedRoutes: 0, conditions: [c('Accepted'), c('Programmed')] })),
  };
}

export function acceptedOf(o: KObject | undefined, ref?: Record<string, unknown>): Record<string, unknown> | undefined {
  const parents = ((o?.status as { parents?: Record<string, unknown>[] })?.parents ?? []).filter(
    (p) =>
      p.controllerName === 'gateway.cozystack.io/tenantgateway-controller' &&
      (!ref || JSON.stringify(p.parentRef) === JSON.stringify(ref)),
  );
  const conds = (parents[0]?.conditions ?? []) as Record<string, unknown>[];
  return conds.find((c) => c.type === 'Accepted');
}

/**
 * The route verdicts of tenant-root/cozystack (spec over the fixture defaults) on these routes,
 * keyed `<namespace>/<name>#<parentRef index>`: claims, served hostnames and judgement as a pass runs them.
 */
export function judge(routes: KObject[], spec: Record<string, unknown> = {}): Map<string, Verdict> {
  const out = new Map<string, Verdict>();
  for (const vd of race(routes, spec).verdicts)
    out.set(`${vd.claimant.namespace}/${vd.claimant.name}#${vd.claimant.refIndex}`, vd);
  return out;
}

/** The hostname race of tenant-root/cozystack (spec over the fixture defaults) on these routes, as a pass runs it. */
export function race(routes: KObject[], spec: Record<string, unknown> = {}): HostnameRace {
  const v = viewOf(tgw(spec));
  const pt = passthroughListenersOf(v);
  const claimants = collectClaimants(routes, v);
  const served = servedHostnames(claimants, pt);
  return decideHostnames(
    { v, passthrough: pt, served: new Set(served), plainHttpNamespaces: ['tenant-root', 'cozy-cert-manager'] },
    claimants,
  );
}
