/**
 * The gateway chart's TenantGateway per Cozystack version (docs/versions.md §4, §X1, §X2, §X3): a
 * release's chart has no class guards and no edge, and writes the chart's passthrough services
 * and the platform's attached namespaces on every TenantGateway; main's (docs/behaviour.md §3)
 * writes both on the publishing tenant's only. Each release's own chart tests
 * (packages/extra/gateway/tests/tenantgateway_test.yaml, the same file at every tag) are mirrored
 * here, case by case, run against every release class.
 */
import { renderGateway } from '../../src/charts/gatewayChart';
import type { TenantRelease } from '../../src/charts/tenantRelease';
import type { KObject } from '../../src/k8s/model';
import type { ClusterMap } from '../../src/platform/tenancy';
import { COZYSTACK_VERSIONS, type CozystackVersion } from '../../src/platform/cozystackVersions';
import { validateTenantGateway } from '../../src/validation/tenantGatewayCrd';

const version = (name: string): CozystackVersion => COZYSTACK_VERSIONS.find((v) => v.name === name)!;
/** One version of each behaviour class (docs/versions.md §0). */
const RELEASES = ['v1.5.0', 'v1.5.2', 'v1.5.4', 'v1.6.2'];

/** The gateway release in `namespace` with `_cluster` and `_namespace.host` set, as helm-unittest's `set:` does. */
function release(
  cluster: ClusterMap,
  host: string,
  namespace = 'tenant-root',
  gatewayClassName?: string,
): TenantRelease {
  return {
    tenant: {
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'x', namespace: 'tenant-root' },
      spec: { gateway: true },
    },
    name: 'x',
    namespace,
    parentNamespace: 'tenant-root',
    releaseName: 'tenant-x',
    spec: {},
    values: { _cluster: cluster, _namespace: { host } },
    ownsGateway: true,
    gatewayClassName,
  };
}

const spec = (o: KObject | undefined) => (o?.spec ?? {}) as Record<string, unknown>;
const base: ClusterMap = { solver: 'http01', 'expose-ingress': 'tenant-root', 'issuer-name': 'letsencrypt-prod' };

describe.each(RELEASES)("upstream tenantgateway_test.yaml, run as %s (the chart's own tests at that tag)", (name) => {
  const b = version(name).behaviour;
  const render = (c: ClusterMap, host = 'example.org', ns = 'tenant-root') => renderGateway(release(c, host, ns), b);
  const rendered = (c: ClusterMap, host?: string, ns?: string) => {
    const r = render(c, host, ns);
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    return r.object!;
  };
  const refused = (c: ClusterMap, host?: string) => {
    const r = render(c, host);
    expect(r.object).toBeUndefined();
    return r.findings.filter((f) => f.severity === 'error').map((f) => f.rule);
  };

  test('defaults to certMode=http01 with the apex from _namespace.host', () => {
    const o = rendered(base);
    expect([o.apiVersion, o.kind, o.metadata.name]).toEqual([
      'gateway.cozystack.io/v1alpha1',
      'TenantGateway',
      'cozystack',
    ]);
    expect(spec(o)).toMatchObject({ apex: 'example.org', certMode: 'http01', gatewayClassName: 'cilium' });
    expect(spec(o)).not.toHaveProperty('dns01');
  });
  test('child tenant carries its own apex (host inherited from parent)', () => {
    expect(spec(rendered(base, 'alice.example.org', 'tenant-alice')).apex).toBe('alice.example.org');
  });
  test('empty _namespace.host fails with explicit error', () => {
    expect(refused({ solver: 'http01', 'expose-ingress': 'tenant-root' }, '')).toEqual(['gateway.empty-host']);
    expect(render({ solver: 'http01' }, '').findings[0].message).toMatch(/set tenant\.spec\.host or inherit one/);
  });
  test('dns01 mode renders dns01.cloudflare with default secret refs', () => {
    expect(spec(rendered({ ...base, solver: 'dns01' }))).toMatchObject({
      certMode: 'dns01',
      dns01: {
        provider: 'cloudflare',
        cloudflare: { apiTokenSecretRef: { name: 'cloudflare-api-token-secret', key: 'api-token' } },
      },
    });
  });
  test('dns01-provider=cloudflare with custom secret refs', () => {
    const c = {
      ...base,
      solver: 'dns01',
      'dns01-provider': 'cloudflare',
      'dns01-cloudflare-secret-name': 'my-cf-secret',
      'dns01-cloudflare-secret-key': 'token',
    };
    expect(spec(rendered(c)).dns01).toMatchObject({
      cloudflare: { apiTokenSecretRef: { name: 'my-cf-secret', key: 'token' } },
    });
  });
  test('dns01-provider=route53 renders route53 block', () => {
    const c = {
      ...base,
      solver: 'dns01',
      'dns01-provider': 'route53',
      'dns01-route53-region': 'us-east-1',
      'dns01-route53-access-key-id': 'AKIAEXAMPLE',
      'dns01-route53-secret-name': 'route53-creds',
      'dns01-route53-secret-key': 'secret-access-key',
    };
    expect(spec(rendered(c)).dns01).toMatchObject({
      provider: 'route53',
      route53: { region: 'us-east-1', accessKeyID: 'AKIAEXAMPLE', secretAccessKeySecretRef: { name: 'route53-creds' } },
    });
  });
  test('dns01-provider=digitalocean', () => {
    const c = {
      ...base,
      solver: 'dns01',
      'dns01-provider': 'digitalocean',
      'dns01-digitalocean-secret-name': 'do-token',
      'dns01-digitalocean-secret-key': 'access-token',
    };
    expect(spec(rendered(c)).dns01).toMatchObject({
      provider: 'digitalocean',
      digitalocean: { tokenSecretRef: { name: 'do-token' } },
    });
  });
  test('dns01-provider=rfc2136 renders TSIG block with default algorithm', () => {
    const c = {
      ...base,
      solver: 'dns01',
      'dns01-provider': 'rfc2136',
      'dns01-rfc2136-nameserver': '192.0.2.53:53',
      'dns01-rfc2136-tsig-key-name': 'cozystack-acme',
      'dns01-rfc2136-secret-name': 'rfc2136-tsig',
    };
    expect(spec(rendered(c)).dns01).toMatchObject({
      rfc2136: { nameserver: '192.0.2.53:53', tsigKeyName: 'cozystack-acme', tsigAlgorithm: 'HMACSHA256' },
    });
  });
  test('route53 fails clearly when required region is empty', () => {
    const c = {
      ...base,
      solver: 'dns01',
      'dns01-provider': 'route53',
      'dns01-route53-access-key-id': 'AKIAEXAMPLE',
      'dns01-route53-secret-name': 'route53-creds',
    };
    expect(refused(c)).toEqual(['gateway.dns01-missing-field']);
  });
  test('rfc2136 fails clearly when nameserver is empty', () => {
    const c = {
      ...base,
      solver: 'dns01',
      'dns01-provider': 'rfc2136',
      'dns01-rfc2136-tsig-key-name': 'cozystack-acme',
      'dns01-rfc2136-secret-name': 'rfc2136-tsig',
    };
    expect(refused(c)).toEqual(['gateway.dns01-missing-field']);
  });
  test('unknown dns01-provider fails chart render', () => {
    expect(refused({ ...base, solver: 'dns01', 'dns01-provider': 'oraclednslol' })).toEqual([
      'gateway.unsupported-provider',
    ]);
  });
  test('unknown solver fails chart render', () => {
    expect(refused({ ...base, solver: 'tls-alpn-01' })).toEqual(['gateway.unsupported-solver']);
  });
  test('unknown issuer-name fails chart render', () => {
    expect(refused({ ...base, 'issuer-name': 'my-custom-ca' })).toEqual(['gateway.unsupported-issuer']);
  });
  test('attachedNamespaces propagates from _cluster.gateway-attached-namespaces', () => {
    const c = { ...base, 'gateway-attached-namespaces': 'cozy-cert-manager,cozy-dashboard,cozy-keycloak' };
    expect(spec(rendered(c)).attachedNamespaces).toEqual(['cozy-cert-manager', 'cozy-dashboard', 'cozy-keycloak']);
  });
  test('tlsPassthroughServices defaults to api,vm-exportproxy,cdi-uploadproxy', () => {
    expect(spec(rendered(base)).tlsPassthroughServices).toEqual(['api', 'vm-exportproxy', 'cdi-uploadproxy']);
  });
  test('wildcard-secret-name switches to certMode=existingSecret with wildcardSecretRef', () => {
    const s = spec(rendered({ ...base, 'wildcard-secret-name': 'wildcard-tls' }));
    expect(s).toMatchObject({ certMode: 'existingSecret', wildcardSecretRef: { name: 'wildcard-tls' } });
    expect(s).not.toHaveProperty('dns01');
    expect(s).not.toHaveProperty('issuerName');
  });
  test('wildcard-secret-name takes precedence over solver=dns01', () => {
    const s = spec(
      rendered({ ...base, solver: 'dns01', 'dns01-provider': 'cloudflare', 'wildcard-secret-name': 'wildcard-tls' }),
    );
    expect(s).toMatchObject({ certMode: 'existingSecret', wildcardSecretRef: { name: 'wildcard-tls' } });
    expect(s).not.toHaveProperty('dns01');
  });
  test('wildcard mode skips ACME validations (custom issuer-name ignored)', () => {
    const s = spec(rendered({ ...base, 'issuer-name': 'my-custom-ca', 'wildcard-secret-name': 'wildcard-tls' }));
    expect(s.certMode).toBe('existingSecret');
    expect(s).not.toHaveProperty('issuerName');
  });
  test('tlsPassthroughServices still render in wildcard mode', () => {
    const s = spec(rendered({ ...base, 'wildcard-secret-name': 'wildcard-tls' }));
    expect(s.tlsPassthroughServices).toEqual(['api', 'vm-exportproxy', 'cdi-uploadproxy']);
  });
});

/**
 * The platform of the cases below: the gateway enabled, tenant-root publishing, two exposed
 * services, an edge class and a selectable class (keys a release's `_cluster` lacks are read by
 * main only), two attached namespaces.
 */
const platform: ClusterMap = {
  ...base,
  'gateway-enabled': 'true',
  'expose-services': 'api,dashboard,vm-exportproxy',
  'gateway-attached-namespaces': 'cozy-cert-manager, cozy-dashboard,',
  'gateway-class-name': 'cilium',
  'gateway-edge-classes': 'cloudflare-tunnel',
  'gateway-tenant-classes': 'cloudflare-tunnel',
};

describe.each([...RELEASES, 'main'])('the TenantGateway of each tenant, as %s renders it', (name) => {
  const b = version(name).behaviour;
  const main = name === 'main';
  const render = (r: TenantRelease) => renderGateway(r, b);

  test("docs/versions.md §X1: the class is always cilium and certMode never edge in a release; main resolves the tenant's class", () => {
    const r = render(release(platform, 'alice.example.org', 'tenant-alice', 'cloudflare-tunnel'));
    expect(r.findings).toEqual([]);
    expect(spec(r.object)).toMatchObject(
      main
        ? { gatewayClassName: 'cloudflare-tunnel', certMode: 'edge' }
        : { gatewayClassName: 'cilium', certMode: 'http01' },
    );
    expect(spec(r.object).issuerName).toBe(main ? undefined : 'letsencrypt-prod');
  });

  test('docs/versions.md §X1: guards 2-5 of docs/behaviour.md §3.1 exist in main only', () => {
    const r = render(
      release({ ...platform, 'gateway-class-name': '  ' }, 'alice.example.org', 'tenant-alice', 'nginx'),
    );
    const rules = r.findings.map((f) => f.rule);
    expect(rules).toEqual(main ? ['gateway.class-whitespace', 'gateway.class-not-selectable'] : []);
    expect(spec(r.object).gatewayClassName).toBe(main ? undefined : 'cilium');
  });

  test('docs/versions.md §X2: passthrough services on every TenantGateway in a release, on the publishing one (filtered) in main', () => {
    const child = spec(render(release(platform, 'alice.example.org', 'tenant-alice')).object);
    const publishing = spec(render(release(platform, 'example.org')).object);
    const off = spec(render(release({ ...platform, 'gateway-enabled': 'false' }, 'example.org')).object);
    const all = ['api', 'vm-exportproxy', 'cdi-uploadproxy'];
    expect([child.tlsPassthroughServices, publishing.tlsPassthroughServices, off.tlsPassthroughServices]).toEqual(
      main ? [undefined, ['api', 'vm-exportproxy'], undefined] : [all, all, all],
    );
  });

  test("docs/versions.md §X3: the platform's attached namespaces on every TenantGateway in a release, on the publishing one in main", () => {
    const child = spec(render(release(platform, 'alice.example.org', 'tenant-alice')).object);
    const publishing = spec(render(release(platform, 'example.org')).object);
    const attached = ['cozy-cert-manager', 'cozy-dashboard'];
    expect([child.attachedNamespaces, publishing.attachedNamespaces]).toEqual(
      main ? [undefined, attached] : [attached, attached],
    );
  });

  test("what the chart renders passes that version's TenantGateway CRD (docs/versions.md §9)", () => {
    for (const [r, what] of [
      [release(platform, 'example.org'), 'publishing'],
      [release(platform, 'alice.example.org', 'tenant-alice', 'cloudflare-tunnel'), 'child with a class'],
      [release({ ...platform, 'wildcard-secret-name': 'wild' }, 'example.org'), 'existingSecret'],
    ] as const) {
      const o = render(r).object!;
      expect({ what, findings: validateTenantGateway(o, b) }).toEqual({ what, findings: [] });
    }
  });
});
