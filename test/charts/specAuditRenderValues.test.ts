/**
 * Spec audit, platform values → `_cluster` (docs/behaviour.md §1): every key with its default, and
 * every value landing on its own key, so that a renamed or dropped key fails a test.
 */
import { clusterValues, platformDefaults, resolvePlatformValues } from '../../src/charts/platformValues';

const cluster = (v: Record<string, unknown> = {}) =>
  clusterValues(resolvePlatformValues({ files: [{ file: 'v', values: v }], objects: [] }).values).cluster;

describe('_cluster keys and defaults (docs/behaviour.md §1)', () => {
  // "DNS-01 keys: always written, whatever the solver" — the default solver is http01.
  it('the whole map under the platform defaults, every value a string but the scheduling map', () => {
    expect(clusterValues(platformDefaults()).cluster).toEqual({
      'root-host': 'example.org',
      'bundle-name': 'isp-full',
      solver: 'http01',
      'issuer-name': 'letsencrypt-prod',
      'wildcard-secret-name': '',
      'wildcard-issue': 'false',
      'dns01-provider': 'cloudflare',
      'dns01-cloudflare-secret-name': 'cloudflare-api-token-secret',
      'dns01-cloudflare-secret-key': 'api-token',
      'dns01-route53-region': '',
      'dns01-route53-access-key-id': '',
      'dns01-route53-secret-name': '',
      'dns01-route53-secret-key': 'secret-access-key',
      'dns01-digitalocean-secret-name': 'digitalocean-api-token-secret',
      'dns01-digitalocean-secret-key': 'access-token',
      'dns01-rfc2136-nameserver': '',
      'dns01-rfc2136-tsig-key-name': '',
      'dns01-rfc2136-tsig-algorithm': 'HMACSHA256',
      'dns01-rfc2136-secret-name': '',
      'dns01-rfc2136-secret-key': 'tsig-secret-key',
      'expose-services': 'api,dashboard,vm-exportproxy,cdi-uploadproxy',
      'expose-ingress': 'tenant-root',
      'expose-ingress-admin': '',
      'expose-external-ips': '',
      'load-balancer-class': '',
      'proxy-protocol': 'false',
      'gateway-enabled': 'false',
      'gateway-attached-namespaces':
        'cozy-cert-manager,cozy-dashboard,cozy-keycloak,cozy-system,cozy-harbor,cozy-bucket,cozy-kubevirt,cozy-kubevirt-cdi,cozy-monitoring,cozy-linstor-gui,default',
      'gateway-class-name': 'cilium',
      'gateway-edge-classes': '',
      'gateway-tenant-classes': '',
      // "Other keys, copied into every tenant Secret"
      'oidc-enabled': 'false',
      'oidc-insecure-skip-verify': 'false',
      'extra-keycloak-redirect-uri-for-dashboard': '',
      'api-server-endpoint': '',
      'keycloak-internal-url': 'http://keycloak-http.cozy-keycloak.svc:8080/realms/cozy',
      'monitoring-enabled': 'true',
      'cluster-domain': 'cozy.local',
      'cpu-allocation-ratio': '10',
      'memory-allocation-ratio': '1',
      'ephemeral-storage-allocation-ratio': '40',
      scheduling: { globalAppTopologySpreadConstraints: '' },
    });
  });

  it.each([
    [{ publishing: { host: 'cozy.example.net' } }, 'root-host', 'cozy.example.net'],
    [{ bundles: { system: { variant: 'paas-full' } } }, 'bundle-name', 'paas-full'],
    [{ publishing: { certificates: { solver: 'dns01' } } }, 'solver', 'dns01'],
    [{ publishing: { certificates: { issuerName: 'letsencrypt-stage' } } }, 'issuer-name', 'letsencrypt-stage'],
    [{ publishing: { certificates: { wildcardSecretName: 'corp' } } }, 'wildcard-secret-name', 'corp'],
    [{ publishing: { certificates: { dns01: { provider: 'route53' } } } }, 'dns01-provider', 'route53'],
    [
      { publishing: { certificates: { dns01: { cloudflare: { secretName: 'cf' } } } } },
      'dns01-cloudflare-secret-name',
      'cf',
    ],
    [
      { publishing: { certificates: { dns01: { cloudflare: { secretKey: 'tok' } } } } },
      'dns01-cloudflare-secret-key',
      'tok',
    ],
    [
      { publishing: { certificates: { dns01: { route53: { region: 'eu-west-1' } } } } },
      'dns01-route53-region',
      'eu-west-1',
    ],
    [
      { publishing: { certificates: { dns01: { route53: { accessKeyID: 'AKIA' } } } } },
      'dns01-route53-access-key-id',
      'AKIA',
    ],
    [
      { publishing: { certificates: { dns01: { route53: { secretName: 'r53' } } } } },
      'dns01-route53-secret-name',
      'r53',
    ],
    [{ publishing: { certificates: { dns01: { route53: { secretKey: 'k' } } } } }, 'dns01-route53-secret-key', 'k'],
    [
      { publishing: { certificates: { dns01: { digitalocean: { secretName: 'do' } } } } },
      'dns01-digitalocean-secret-name',
      'do',
    ],
    [
      { publishing: { certificates: { dns01: { digitalocean: { secretKey: 'k' } } } } },
      'dns01-digitalocean-secret-key',
      'k',
    ],
    [
      { publishing: { certificates: { dns01: { rfc2136: { nameserver: 'ns:53' } } } } },
      'dns01-rfc2136-nameserver',
      'ns:53',
    ],
    [
      { publishing: { certificates: { dns01: { rfc2136: { tsigKeyName: 'key' } } } } },
      'dns01-rfc2136-tsig-key-name',
      'key',
    ],
    [
      { publishing: { certificates: { dns01: { rfc2136: { tsigAlgorithm: 'HMACSHA512' } } } } },
      'dns01-rfc2136-tsig-algorithm',
      'HMACSHA512',
    ],
    [
      { publishing: { certificates: { dns01: { rfc2136: { secretName: 'tsig' } } } } },
      'dns01-rfc2136-secret-name',
      'tsig',
    ],
    [{ publishing: { certificates: { dns01: { rfc2136: { secretKey: 'k' } } } } }, 'dns01-rfc2136-secret-key', 'k'],
    [{ publishing: { exposedServices: ['api', 'dashboard'] } }, 'expose-services', 'api,dashboard'],
    [{ publishing: { ingressName: 'tenant-pub' } }, 'expose-ingress', 'tenant-pub'],
    [{ publishing: { ingressNameAdmin: 'tenant-admin' } }, 'expose-ingress-admin', 'tenant-admin'],
    [{ publishing: { externalIPs: ['192.0.2.1', '192.0.2.2'] } }, 'expose-external-ips', '192.0.2.1,192.0.2.2'],
    [{ publishing: { loadBalancerClass: 'io.cilium/l2' } }, 'load-balancer-class', 'io.cilium/l2'],
    [{ publishing: { proxyProtocol: true } }, 'proxy-protocol', 'true'],
    [{ gateway: { enabled: true } }, 'gateway-enabled', 'true'],
    [
      { gateway: { attachedNamespaces: ['cozy-system', 'default'] } },
      'gateway-attached-namespaces',
      'cozy-system,default',
    ],
    [{ gateway: { className: 'envoy' } }, 'gateway-class-name', 'envoy'],
    [{ gateway: { edgeTerminatedClasses: ['cf', 'cf2'] } }, 'gateway-edge-classes', 'cf,cf2'],
    [{ gateway: { tenantSelectableClasses: ['envoy', 'cf'] } }, 'gateway-tenant-classes', 'envoy,cf'],
  ])('%j → %s', (v, key, want) => {
    expect(cluster(v)[key]).toBe(want);
  });

  // "gateway.http2 | true | not in _cluster (Cilium config only)".
  it('gateway.http2 does not reach _cluster', () => {
    const c = cluster({ gateway: { http2: false } });
    expect(Object.keys(c).filter((k) => k.includes('http2'))).toEqual([]);
  });
});
