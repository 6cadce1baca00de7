/**
 * fast-check generators of random but valid platforms for the self-check property tests
 * (test/properties/selfcheck.property.test.ts): platform values (solver and provider, wildcard Secret,
 * edge and tenant-selectable classes, gateway.enabled, attachedNamespaces, exposedServices),
 * a Tenant tree up to four levels deep (tenant-root plus three), and the cluster state a
 * controller pass reads: the Namespaces and TenantGateways `render` produced, the cozy-*
 * namespaces, and HTTPRoutes/TLSRoutes/GRPCRoutes pointing at the Gateway that serves their
 * namespace, with hostnames under the right apex (and some deliberately outside it, some
 * wildcards, some pinned to a section or a port).
 *
 * Routes are generated as intents (kind, namespace pick, hostname shape, pin) and materialised
 * after render, because their namespaces, apexes and parent Gateways come from its output.
 */
import fc from 'fast-check';
import type { KObject } from '../../src/k8s/model';

export const NS_HOST = 'namespace.cozystack.io/host';
export const NS_GATEWAY = 'namespace.cozystack.io/gateway';
export const NS_NAME = 'kubernetes.io/metadata.name';

const COZY_NAMESPACES = [
  'cozy-cert-manager',
  'cozy-dashboard',
  'cozy-keycloak',
  'cozy-system',
  'cozy-harbor',
  'cozy-monitoring',
  'default',
];
/** A system namespace never attached: its routes reach no Gateway by label. */
export const UNATTACHED = 'cozy-unattached';
const SERVICES = ['api', 'dashboard', 'vm-exportproxy', 'cdi-uploadproxy'];
const EDGE_CLASSES = ['edge-lb', 'cloud-edge'];
const OTHER_CLASSES = ['cilium-internal', 'envoy'];
const LEVEL1 = ['alice', 'bob', 'carol'];
const DEEPER = ['dev', 'prod', 'qa'];

export interface PlatformChoice {
  host: string;
  solver: 'http01' | 'dns01';
  provider: 'cloudflare' | 'route53' | 'digitalocean' | 'rfc2136';
  issuerName: 'letsencrypt-prod' | 'letsencrypt-stage';
  wildcardSecretName: string;
  wildcard: boolean;
  className: string;
  edgeClasses: string[];
  tenantClasses: string[];
  gatewayEnabled: boolean;
  attached: string[];
  exposed: string[];
  asPackage: boolean;
}

interface TenantNode {
  name: string;
  gateway: boolean;
  /** A custom host: outside the platform apex, or a sibling name under it. */
  customHost?: 'outside' | 'under';
  /** Index into the classes the tenant may select (resolved against the platform). */
  classPick?: number;
  children: TenantNode[];
}

export type HostShape = 'apex' | 'sub' | 'deep' | 'wildcard' | 'outside' | 'publishing';
export type Pin = 'none' | 'http' | 'https' | 'tls-api' | 'tls-nope' | 'port80' | 'port443';

export interface RouteIntent {
  kind: 'HTTPRoute' | 'TLSRoute' | 'GRPCRoute';
  tlsVersion: 'v1' | 'v1alpha2';
  /** Index into the namespaces a route can live in. */
  nsPick: number;
  shapes: HostShape[];
  label: string;
  pin: Pin;
}

export interface PlatformCase {
  platform: PlatformChoice;
  /** The root Tenant (tenant-root's own settings, docs/decisions.md §1), when present. */
  root?: { gateway: boolean; sameClass: boolean };
  tree: TenantNode[];
  routes: RouteIntent[];
}

export const arbPlatform: fc.Arbitrary<PlatformChoice> = fc.record({
  host: fc.constantFrom('example.org', 'cozy.example.net', 'k8s.acme.io'),
  solver: fc.constantFrom('http01', 'http01', 'dns01') as fc.Arbitrary<'http01' | 'dns01'>,
  provider: fc.constantFrom('cloudflare', 'route53', 'digitalocean', 'rfc2136') as fc.Arbitrary<
    PlatformChoice['provider']
  >,
  issuerName: fc.constantFrom('letsencrypt-prod', 'letsencrypt-stage') as fc.Arbitrary<PlatformChoice['issuerName']>,
  wildcardSecretName: fc.constantFrom('', '', '', 'wildcard-tls'),
  wildcard: fc.boolean(),
  className: fc.constantFrom('cilium', 'cilium', 'envoy', 'edge-lb'),
  edgeClasses: fc.subarray(EDGE_CLASSES),
  tenantClasses: fc.subarray([...EDGE_CLASSES, ...OTHER_CLASSES]),
  gatewayEnabled: fc.boolean(),
  attached: fc.subarray(COZY_NAMESPACES),
  exposed: fc.subarray(SERVICES),
  asPackage: fc.boolean(),
});

const arbTenantNode = (names: string[], depth: number): fc.Arbitrary<TenantNode> =>
  fc.record({
    name: fc.constantFrom(...names),
    gateway: fc.constantFrom(false, false, true),
    customHost: fc.constantFrom(undefined, undefined, undefined, undefined, 'outside', 'under') as fc.Arbitrary<
      TenantNode['customHost']
    >,
    classPick: fc.option(fc.nat(5), { nil: undefined }),
    children:
      depth > 0
        ? fc.uniqueArray(arbTenantNode(DEEPER, depth - 1), { maxLength: 2, selector: (n) => n.name })
        : fc.constant([] as TenantNode[]),
  });

const arbRoute: fc.Arbitrary<RouteIntent> = fc.record({
  kind: fc.constantFrom('HTTPRoute', 'HTTPRoute', 'HTTPRoute', 'TLSRoute', 'GRPCRoute') as fc.Arbitrary<
    RouteIntent['kind']
  >,
  tlsVersion: fc.constantFrom('v1', 'v1alpha2') as fc.Arbitrary<RouteIntent['tlsVersion']>,
  nsPick: fc.nat(40),
  shapes: fc.array(
    fc.constantFrom<HostShape>('sub', 'sub', 'sub', 'apex', 'deep', 'wildcard', 'outside', 'publishing'),
    { minLength: 1, maxLength: 3 },
  ),
  label: fc.constantFrom('app', 'www', 'api', 'shop', 'grafana', 'dashboard'),
  pin: fc.constantFrom<Pin>('none', 'none', 'none', 'http', 'https', 'tls-api', 'tls-nope', 'port80', 'port443'),
});

/** A whole generated platform: values, Tenants, and the routes to place once it is rendered. */
export const arbPlatformCase: fc.Arbitrary<PlatformCase> = fc.record({
  platform: arbPlatform,
  root: fc.option(fc.record({ gateway: fc.constantFrom(true, true, true, false), sameClass: fc.boolean() }), {
    nil: undefined,
    freq: 4,
  }),
  tree: fc.uniqueArray(arbTenantNode(LEVEL1, 2), { maxLength: 3, selector: (n) => n.name }),
  routes: fc.array(arbRoute, { maxLength: 10 }),
});

// ---------------------------------------------------------------------------------------------
// Materialising a case.

/** The platform values of a case, as a --values file or a Package would carry them. */
export function platformValues(p: PlatformChoice): Record<string, unknown> {
  const dns01: Record<string, unknown> = { provider: p.provider };
  if (p.provider === 'route53')
    dns01.route53 = { region: 'eu-west-1', accessKeyID: 'AKIAEXAMPLE', secretName: 'route53-credentials' };
  if (p.provider === 'rfc2136')
    dns01.rfc2136 = { nameserver: '10.0.0.53:53', tsigKeyName: 'cozy-key', secretName: 'tsig-secret' };
  return {
    publishing: {
      host: p.host,
      exposedServices: p.exposed,
      certificates: {
        solver: p.solver,
        issuerName: p.issuerName,
        wildcardSecretName: p.wildcardSecretName,
        wildcard: p.wildcard,
        dns01,
      },
    },
    gateway: {
      enabled: p.gatewayEnabled,
      className: p.className,
      edgeTerminatedClasses: p.edgeClasses,
      tenantSelectableClasses: p.tenantClasses,
      attachedNamespaces: p.attached,
    },
  };
}

export const PACKAGE_NAME = 'cozystack.cozystack-platform';

export function platformPackage(values: Record<string, unknown>): KObject {
  return {
    apiVersion: 'cozystack.io/v1alpha1',
    kind: 'Package',
    metadata: { name: PACKAGE_NAME },
    spec: { variant: 'isp-full', components: { platform: { values } } },
  };
}

function tenant(name: string, namespace: string, spec: Record<string, unknown>): KObject {
  return { apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name, namespace }, spec };
}

/** The classes a tenant may select (the platform default plus tenantSelectableClasses). */
export function selectable(p: PlatformChoice): string[] {
  return [p.className, ...p.tenantClasses.filter((c) => c !== p.className)];
}

/** The Tenant objects of a case, parents before children. */
export function tenantObjects(c: PlatformCase): KObject[] {
  const p = c.platform;
  const allowed = selectable(p);
  const out: KObject[] = [];
  if (c.root) {
    const spec: Record<string, unknown> = { gateway: c.root.gateway };
    // The publishing tenant may not cross the edge line with its own class (gateway chart guard 5):
    // it names the platform default, or nothing.
    if (c.root.gateway && c.root.sameClass) spec.gatewayClass = p.className;
    out.push(tenant('root', 'tenant-root', spec));
  }
  const walk = (nodes: TenantNode[], parentNs: string) => {
    for (const n of nodes) {
      const spec: Record<string, unknown> = {};
      if (n.gateway) spec.gateway = true;
      if (n.customHost === 'outside') spec.host = `${n.name}.customer.io`;
      if (n.customHost === 'under') spec.host = `${n.name}-own.${p.host}`;
      if (n.gateway && n.classPick !== undefined) spec.gatewayClass = allowed[n.classPick % allowed.length];
      out.push(tenant(n.name, parentNs, spec));
      walk(n.children, parentNs === 'tenant-root' ? `tenant-${n.name}` : `${parentNs}-${n.name}`);
    }
  };
  walk(c.tree, 'tenant-root');
  return out;
}

/** The render input of a case: the Tenants, plus the values as a Package or as a --values file. */
export function renderInputOf(c: PlatformCase): {
  objects: KObject[];
  valuesFiles: { file: string; values: Record<string, unknown> }[];
} {
  const values = platformValues(c.platform);
  const tenants = tenantObjects(c);
  return c.platform.asPackage
    ? { objects: [platformPackage(values), ...tenants], valuesFiles: [] }
    : { objects: tenants, valuesFiles: [{ file: 'values.yaml', values }] };
}

function nsObject(name: string, labels: Record<string, string> = {}): KObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...labels, [NS_NAME]: name } } };
}

function hostname(shape: HostShape, label: string, apex: string, publishing: string): string {
  switch (shape) {
    case 'apex':
      return apex;
    case 'sub':
      return `${label}.${apex}`;
    case 'deep':
      return `${label}.svc.${apex}`;
    case 'wildcard':
      return `*.${apex}`;
    case 'outside':
      return `${label}.elsewhere.net`;
    case 'publishing':
      return `${label}.${publishing}`;
  }
}

/**
 * The cluster state of a rendered case: render's Namespaces (with the name label the apiserver
 * writes), its namespaced objects (TenantGateways, Secrets, RBAC, policies, HelmReleases, ...;
 * the cluster-scoped ones are the caller's to add), the cozy-* namespaces, the wildcard source Secret
 * when one is named, and the routes, each pointing at the Gateway that serves its namespace.
 */
export function clusterStateOf(c: PlatformCase, rendered: KObject[]): KObject[] {
  const p = c.platform;
  const out: KObject[] = [];
  const tenantNs: KObject[] = [];
  for (const o of rendered) {
    if (o.kind === 'Namespace' && o.apiVersion === 'v1') {
      const n: KObject = {
        ...o,
        metadata: { ...o.metadata, labels: { ...(o.metadata.labels ?? {}), [NS_NAME]: o.metadata.name } },
      };
      out.push(n);
      tenantNs.push(n);
    } else if (o.metadata.namespace) {
      out.push(o);
    }
  }
  for (const n of [...COZY_NAMESPACES, UNATTACHED]) out.push(nsObject(n));
  if (p.wildcardSecretName) {
    out.push({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name: p.wildcardSecretName, namespace: 'tenant-root' },
      data: { 'tls.crt': 'Y2VydA==', 'tls.key': 'a2V5' },
    });
  }

  // Where a route may live: tenant namespaces with a host, and the system namespaces.
  const homes: { ns: string; apex: string; gatewayNs: string }[] = [];
  for (const n of tenantNs) {
    const apex = n.metadata.labels?.[NS_HOST] ?? '';
    if (apex) homes.push({ ns: n.metadata.name, apex, gatewayNs: n.metadata.labels?.[NS_GATEWAY] || 'tenant-root' });
  }
  for (const n of [...COZY_NAMESPACES, UNATTACHED]) homes.push({ ns: n, apex: p.host, gatewayNs: 'tenant-root' });

  c.routes.forEach((r, i) => {
    const home = homes[r.nsPick % homes.length];
    const hostnames = [...new Set(r.shapes.map((s) => hostname(s, r.label, home.apex, p.host)))];
    const ref: Record<string, unknown> = {
      group: 'gateway.networking.k8s.io',
      kind: 'Gateway',
      name: 'cozystack',
      namespace: home.gatewayNs,
    };
    if (r.pin === 'http' || r.pin === 'https' || r.pin === 'tls-api' || r.pin === 'tls-nope') ref.sectionName = r.pin;
    if (r.pin === 'port80') ref.port = 80;
    if (r.pin === 'port443') ref.port = 443;
    const name = `${r.kind.toLowerCase()}-${i}`;
    if (r.kind === 'TLSRoute') {
      out.push({
        apiVersion: `gateway.networking.k8s.io/${r.tlsVersion}`,
        kind: 'TLSRoute',
        metadata: { name, namespace: home.ns },
        spec: { parentRefs: [ref], hostnames, rules: [{ backendRefs: [{ name: 'backend', port: 443 }] }] },
      });
    } else {
      out.push({
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: r.kind,
        metadata: { name, namespace: home.ns },
        spec: { parentRefs: [ref], hostnames, rules: [{ backendRefs: [{ name: 'backend', port: 8080 }] }] },
      });
    }
  });
  return out;
}
