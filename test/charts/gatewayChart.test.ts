import { DEFAULT_ATTACHED_NAMESPACES } from '../helpers/referenceFacts';
import { resolveCertMode, renderGateway, selectableClasses } from '../../src/charts/gatewayChart';
import { clusterValues, resolvePlatformValues } from '../../src/charts/platformValues';
import { type ClusterMap } from '../../src/platform/tenancy';
import { inheritNamespace } from '../../src/charts/namespaceTemplate';
import { rootNamespaceValues } from '../../src/charts/cozystackBasics';
import type { TenantRelease } from '../../src/charts/tenantRelease';
import type { KObject } from '../../src/k8s/model';

function cluster(values: Record<string, unknown> = {}): ClusterMap {
  const base = { gateway: { enabled: true } };
  return clusterValues(
    resolvePlatformValues({
      files: [
        { file: 'b', values: base },
        { file: 'v', values },
      ],
      objects: [],
    }).values,
  ).cluster;
}

const tenantObj = (name: string, ns: string): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace: ns },
  spec: { gateway: true },
});

/** tenant-root's release (the publishing tenant by default). */
function root(c: ClusterMap, gatewayClassName?: string): TenantRelease {
  return {
    tenant: tenantObj('root', 'tenant-root'),
    name: 'root',
    namespace: 'tenant-root',
    parentNamespace: 'tenant-root',
    releaseName: 'tenant-x',
    spec: {},
    values: { _cluster: c, _namespace: rootNamespaceValues(c) },
    ownsGateway: true,
    gatewayClassName,
  };
}

/** tenant-alice, a child of tenant-root owning its own Gateway. */
function alice(c: ClusterMap, extra: { host?: string; gatewayClassName?: string } = {}): TenantRelease {
  const ns = inheritNamespace('tenant-alice', 'alice', { gateway: true, host: extra.host }, rootNamespaceValues(c));
  return {
    tenant: tenantObj('alice', 'tenant-root'),
    name: 'alice',
    namespace: 'tenant-alice',
    parentNamespace: 'tenant-root',
    releaseName: 'tenant-x',
    spec: {},
    values: { _cluster: c, _namespace: ns },
    ownsGateway: true,
    gatewayClassName: extra.gatewayClassName,
  };
}

const spec = (r: TenantRelease) => {
  const g = renderGateway(r);
  // Errors only: an empty required DNS-01 key without a default warns (test/charts/specAuditRender.test.ts).
  expect(g.findings.filter((f) => f.severity === 'error')).toEqual([]);
  return (g.object as KObject).spec as Record<string, unknown>;
};
const rules = (r: TenantRelease) =>
  renderGateway(r)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => f.rule);

describe('the TenantGateway (docs/behaviour.md §3)', () => {
  it('is gateway.cozystack.io/v1alpha1 cozystack in the owning namespace, fields in chart order', () => {
    const g = renderGateway(root(cluster())).object as KObject;
    expect(g.apiVersion).toBe('gateway.cozystack.io/v1alpha1');
    expect(g.kind).toBe('TenantGateway');
    expect(g.metadata).toEqual({ name: 'cozystack', namespace: 'tenant-root' });
    expect(Object.keys(g.spec as object)).toEqual([
      'apex',
      'gatewayClassName',
      'certMode',
      'issuerName',
      'attachedNamespaces',
      'tlsPassthroughServices',
    ]);
  });

  it('http01 by default, with the issuer', () => {
    expect(spec(alice(cluster()))).toEqual({
      apex: 'alice.example.org',
      gatewayClassName: 'cilium',
      certMode: 'http01',
      issuerName: 'letsencrypt-prod',
    });
  });

  it('dns01 renders the selected provider block only, with defaults', () => {
    const s = spec(
      alice(cluster({ publishing: { certificates: { solver: 'dns01', issuerName: 'letsencrypt-stage' } } })),
    );
    expect(s).toEqual({
      apex: 'alice.example.org',
      gatewayClassName: 'cilium',
      certMode: 'dns01',
      issuerName: 'letsencrypt-stage',
      dns01: {
        provider: 'cloudflare',
        cloudflare: { apiTokenSecretRef: { name: 'cloudflare-api-token-secret', key: 'api-token' } },
      },
    });
  });

  it.each([
    [
      'route53',
      { region: 'eu-west-1' },
      { region: 'eu-west-1', accessKeyID: '', secretAccessKeySecretRef: { name: '', key: 'secret-access-key' } },
    ],
    ['digitalocean', {}, { tokenSecretRef: { name: 'digitalocean-api-token-secret', key: 'access-token' } }],
    [
      'rfc2136',
      { nameserver: '10.0.0.53:53', tsigKeyName: 'k', tsigAlgorithm: '', secretName: 's' },
      {
        nameserver: '10.0.0.53:53',
        tsigKeyName: 'k',
        tsigAlgorithm: 'HMACSHA256',
        tsigSecretSecretRef: { name: 's', key: 'tsig-secret-key' },
      },
    ],
    [
      'cloudflare',
      { secretName: '', secretKey: 'tok' },
      { apiTokenSecretRef: { name: 'cloudflare-api-token-secret', key: 'tok' } },
    ],
  ])('dns01 provider %s block and its defaults', (provider, block, want) => {
    const s = spec(
      alice(cluster({ publishing: { certificates: { solver: 'dns01', dns01: { provider, [provider]: block } } } })),
    );
    expect(s.dns01).toEqual({ provider, [provider]: want });
  });

  it('existingSecret wins over the solver: wildcardSecretRef, no issuer, no provider checks', () => {
    const s = spec(
      alice(
        cluster({
          publishing: {
            certificates: {
              solver: 'dns01',
              wildcardSecretName: 'wild',
              issuerName: 'zerossl',
              dns01: { provider: 'route53' },
            },
          },
        }),
      ),
    );
    expect(s).toEqual({
      apex: 'alice.example.org',
      gatewayClassName: 'cilium',
      certMode: 'existingSecret',
      wildcardSecretRef: { name: 'wild' },
    });
  });

  it('edge wins over everything: from the platform default class', () => {
    const c = cluster({
      gateway: { className: 'cf', edgeTerminatedClasses: ['cf'] },
      publishing: { certificates: { wildcardSecretName: 'w', solver: 'bogus' } },
    });
    const s = spec(root(c));
    expect(s.certMode).toBe('edge');
    expect(s).not.toHaveProperty('tlsPassthroughServices');
    expect(s).not.toHaveProperty('issuerName');
    expect(s).not.toHaveProperty('wildcardSecretRef');
  });

  it("edge from the tenant's own selectable class", () => {
    const c = cluster({ gateway: { edgeTerminatedClasses: ['cf'], tenantSelectableClasses: ['cf'] } });
    expect(spec(alice(c, { gatewayClassName: ' cf ' }))).toMatchObject({ gatewayClassName: 'cf', certMode: 'edge' });
    expect(resolveCertMode(c, 'cilium')).toBe('http01');
  });

  it('attachedNamespaces go on the publishing tenant only (docs/decisions.md §3)', () => {
    const c = cluster({ gateway: { attachedNamespaces: [' cozy-system ', '', 'default'] } });
    expect(spec(root(c)).attachedNamespaces).toEqual(['cozy-system', 'default']);
    expect(spec(alice(c))).not.toHaveProperty('attachedNamespaces');
    const moved = cluster({ publishing: { ingressName: 'tenant-alice' } });
    expect(spec(alice(moved)).attachedNamespaces).toEqual(DEFAULT_ATTACHED_NAMESPACES);
    expect(spec(root(moved))).not.toHaveProperty('attachedNamespaces');
  });

  it('attachedNamespaces omitted when empty', () => {
    expect(spec(root(cluster({ gateway: { attachedNamespaces: [] } })))).not.toHaveProperty('attachedNamespaces');
  });

  it('tlsPassthroughServices: publishing tenant, gateway.enabled, filtered to exposedServices in chart order', () => {
    expect(spec(root(cluster())).tlsPassthroughServices).toEqual(['api', 'vm-exportproxy', 'cdi-uploadproxy']);
    expect(
      spec(root(cluster({ publishing: { exposedServices: ['cdi-uploadproxy', 'dashboard', 'api'] } })))
        .tlsPassthroughServices,
    ).toEqual(['api', 'cdi-uploadproxy']);
    expect(spec(root(cluster({ publishing: { exposedServices: ['dashboard'] } })))).not.toHaveProperty(
      'tlsPassthroughServices',
    );
    expect(spec(root(cluster({ gateway: { enabled: false } })))).not.toHaveProperty('tlsPassthroughServices');
    expect(spec(alice(cluster()))).not.toHaveProperty('tlsPassthroughServices');
  });

  it('the apex is the host verbatim', () => {
    expect(spec(alice(cluster(), { host: 'Customer1.IO' })).apex).toBe('Customer1.IO');
  });
});

describe('render-time guards, in the chart order', () => {
  it('1. an empty host', () => {
    const c = cluster({ publishing: { host: '' } });
    const f = renderGateway(alice(c)).findings;
    expect(f[0]).toMatchObject({ rule: 'gateway.empty-host', object: { kind: 'Tenant', name: 'alice' } });
    expect(f[0].hint).toMatch(/tenant\.spec\.host/);
  });

  it('2. a whitespace-only _cluster.gateway-class-name', () => {
    expect(rules(alice({ ...cluster(), 'gateway-class-name': '   ' }))).toEqual(['gateway.class-whitespace']);
  });

  it('3. a whitespace-only tenant class', () => {
    expect(rules(alice(cluster(), { gatewayClassName: '  ' }))).toEqual(['gateway.class-whitespace']);
  });

  it('4. a class the tenant may not select; the default is always selectable', () => {
    const f = renderGateway(
      alice(cluster({ gateway: { tenantSelectableClasses: ['envoy'] } }), { gatewayClassName: 'nginx' }),
    ).findings;
    expect(f.map((x) => x.rule)).toEqual(['gateway.class-not-selectable']);
    expect(f[0].message).toMatch(/"nginx".*cilium, envoy/);
    expect(rules(alice(cluster(), { gatewayClassName: 'cilium' }))).toEqual([]);
    expect(selectableClasses(cluster({ gateway: { className: 'x', tenantSelectableClasses: [' y ', 'x'] } }))).toEqual([
      'x',
      'y',
    ]);
  });

  it('5. the publishing tenant crossing the edge line, in either direction', () => {
    const into = cluster({ gateway: { edgeTerminatedClasses: ['cf'], tenantSelectableClasses: ['cf'] } });
    expect(rules(root(into, 'cf'))).toEqual(['gateway.publishing-edge-line']);
    expect(rules(alice(into, { gatewayClassName: 'cf' }))).toEqual([]); // not the publishing tenant
    const outOf = cluster({
      gateway: { className: 'cf', edgeTerminatedClasses: ['cf'], tenantSelectableClasses: ['cilium'] },
    });
    expect(rules(root(outOf, 'cilium'))).toEqual(['gateway.publishing-edge-line']);
    const same = cluster({
      gateway: { edgeTerminatedClasses: ['cf', 'cf2'], className: 'cf', tenantSelectableClasses: ['cf2'] },
    });
    expect(rules(root(same, 'cf2'))).toEqual([]);
  });

  it('6. unsupported solver, provider and issuer — unless edge or a wildcard Secret', () => {
    expect(rules(alice(cluster({ publishing: { certificates: { solver: 'tls-alpn-01' } } })))).toEqual([
      'gateway.unsupported-solver',
    ]);
    expect(
      rules(alice(cluster({ publishing: { certificates: { solver: 'dns01', dns01: { provider: 'gandi' } } } }))),
    ).toEqual(['gateway.unsupported-provider']);
    expect(rules(alice(cluster({ publishing: { certificates: { issuerName: 'zerossl' } } })))).toEqual([
      'gateway.unsupported-issuer',
    ]);
    expect(
      rules(
        alice(cluster({ publishing: { certificates: { solver: 'x', issuerName: 'y', wildcardSecretName: 'w' } } })),
      ),
    ).toEqual([]);
    expect(
      rules(
        alice(
          cluster({
            gateway: { className: 'cf', edgeTerminatedClasses: ['cf'] },
            publishing: { certificates: { solver: 'x', issuerName: 'y' } },
          }),
        ),
      ),
    ).toEqual([]);
  });

  it('an empty solver or issuer means the default', () => {
    expect(spec(alice(cluster({ publishing: { certificates: { solver: '', issuerName: '' } } })))).toMatchObject({
      certMode: 'http01',
      issuerName: 'letsencrypt-prod',
    });
  });

  it('7. route53 needs a region, rfc2136 a nameserver', () => {
    expect(
      rules(alice(cluster({ publishing: { certificates: { solver: 'dns01', dns01: { provider: 'route53' } } } }))),
    ).toEqual(['gateway.dns01-missing-field']);
    expect(
      rules(alice(cluster({ publishing: { certificates: { solver: 'dns01', dns01: { provider: 'rfc2136' } } } }))),
    ).toEqual(['gateway.dns01-missing-field']);
  });

  it('reports every failing guard, in order', () => {
    const c = cluster({ publishing: { host: '', certificates: { solver: 'x', issuerName: 'y' } } });
    expect(rules(alice(c, { gatewayClassName: 'nope' }))).toEqual([
      'gateway.empty-host',
      'gateway.class-not-selectable',
      'gateway.unsupported-solver',
      'gateway.unsupported-issuer',
    ]);
    expect(renderGateway(alice(c)).object).toBeUndefined();
  });
});
