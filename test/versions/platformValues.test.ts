/**
 * The platform chart per Cozystack version (docs/versions.md §6, §X1): the `_cluster` map each
 * version's apps.yaml template writes (§P1's keys and derived wildcard, §P2's keycloakInternalUrl,
 * no class keys in a release), which platform values each version knows (§P3), and the exactness
 * of main where values enter (docs/behaviour.md §1: scheduling, branding, an empty clusterDomain,
 * sprig's `default` on the dns01 keys; docs/decisions.md §17: nulls). The upstream chart tests
 * (packages/core/platform/tests/apps_*_test.yaml) are mirrored per tag in platformUpstream.test.ts.
 */
import { clusterValues, platformValuesSecret, resolvePlatformValues } from '../../src/charts/platformValues';
import { COZYSTACK_VERSIONS, type CozystackVersion } from '../../src/platform/cozystackVersions';
import { render } from '../../src/pipelines/render';
import { unknownKeyFindings } from '../../src/validation/inputValidation';
import { getPath, type KObject } from '../../src/k8s/model';
import { useScratch } from '../helpers/cli';

const version = (name: string): CozystackVersion => COZYSTACK_VERSIONS.find((v) => v.name === name)!;
const ALL = COZYSTACK_VERSIONS.map((v) => v.name);
const V15 = ALL.filter((n) => n.startsWith('v1.5'));
const V16 = ALL.filter((n) => n.startsWith('v1.6'));
const RELEASES = [...V15, ...V16];

const clusterOf = (v: string, values: Record<string, unknown> = {}) => {
  const b = version(v).behaviour;
  const r = resolvePlatformValues({ files: [{ file: 'values.yaml', values }], objects: [] }, b);
  return clusterValues(r.values, r.pkg, b);
};

const V15_KEYS = [
  'root-host',
  'bundle-name',
  'solver',
  'issuer-name',
  'wildcard-secret-name',
  ...['provider', 'cloudflare-secret-name', 'cloudflare-secret-key', 'route53-region', 'route53-access-key-id']
    .concat(['route53-secret-name', 'route53-secret-key', 'digitalocean-secret-name', 'digitalocean-secret-key'])
    .concat(['rfc2136-nameserver', 'rfc2136-tsig-key-name', 'rfc2136-tsig-algorithm', 'rfc2136-secret-name'])
    .concat(['rfc2136-secret-key'])
    .map((k) => `dns01-${k}`),
  'oidc-enabled',
  'oidc-insecure-skip-verify',
  'extra-keycloak-redirect-uri-for-dashboard',
  'keycloak-internal-url',
  'expose-services',
  'expose-ingress',
  'expose-external-ips',
  'proxy-protocol',
  'gateway-enabled',
  'gateway-attached-namespaces',
  'cluster-domain',
  'api-server-endpoint',
  'cpu-allocation-ratio',
  'memory-allocation-ratio',
  'ephemeral-storage-allocation-ratio',
  'scheduling',
];
const insertAfter = (keys: string[], after: string, ...add: string[]) => {
  const i = keys.indexOf(after) + 1;
  return [...keys.slice(0, i), ...add, ...keys.slice(i)];
};
/** v1.6's template: the four keys of docs/versions.md §P1, each where the template writes it. */
const V16_KEYS = insertAfter(
  insertAfter(
    insertAfter(
      insertAfter(V15_KEYS, 'wildcard-secret-name', 'wildcard-issue'),
      'expose-ingress',
      'expose-ingress-admin',
    ),
    'expose-external-ips',
    'load-balancer-class',
  ),
  'gateway-attached-namespaces',
  'monitoring-enabled',
);
const MAIN_KEYS = insertAfter(
  V16_KEYS,
  'gateway-attached-namespaces',
  'gateway-class-name',
  'gateway-edge-classes',
  'gateway-tenant-classes',
);

describe('_cluster per version (docs/versions.md §P1, §X1)', () => {
  test.each(V15)('%s: exactly the keys of v1.5, in template order', (v) => {
    expect(Object.keys(clusterOf(v).cluster)).toEqual(V15_KEYS);
  });
  test.each(V16)('%s: four more keys, in template order; no class keys', (v) => {
    expect(Object.keys(clusterOf(v).cluster)).toEqual(V16_KEYS);
  });
  test('main: the class keys after gateway-attached-namespaces', () => {
    expect(Object.keys(clusterOf('main').cluster)).toEqual(MAIN_KEYS);
  });
  test.each(RELEASES)('%s: the class values are no platform values: ignored, nothing in _cluster', (v) => {
    const c = clusterOf(v, {
      gateway: { className: '   ', edgeTerminatedClasses: ['a,b'], tenantSelectableClasses: [3] },
    });
    expect(c.findings).toEqual([]);
    expect(Object.keys(c.cluster).filter((k) => k.startsWith('gateway-') && k.includes('class'))).toEqual([]);
  });
  test.each(RELEASES)('%s: with no class in _cluster, every TenantGateway is cilium, whatever the Tenant asks', (v) => {
    const carol: KObject = {
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'carol', namespace: 'tenant-root' },
      spec: { gateway: true, gatewayClass: 'cloudflare-tunnel' },
    };
    const values = { publishing: { host: 'example.org' }, gateway: { tenantSelectableClasses: ['cloudflare-tunnel'] } };
    const r = render({ objects: [carol], valuesFiles: [{ file: 'values.yaml', values }] }, { cozystack: version(v) });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(r.objects.filter((o) => o.kind === 'TenantGateway').map((o) => getPath(o, 'spec.gatewayClassName'))).toEqual(
      ['cilium'],
    );
  });
  test.each(V16)('%s: the four v1.6 keys carry their values', (v) => {
    const c = clusterOf(v, {
      publishing: { ingressNameAdmin: 'cozy-private', loadBalancerClass: 'metallb.io/metallb' },
      monitoring: { rootEnabled: false },
    }).cluster;
    expect([c['expose-ingress-admin'], c['load-balancer-class'], c['monitoring-enabled'], c['wildcard-issue']]).toEqual(
      ['cozy-private', 'metallb.io/metallb', 'false', 'false'],
    );
  });
});

describe('the derived wildcard Secret and its knock-on (docs/versions.md §P1)', () => {
  const dns01Wildcard = { publishing: { host: 'example.org', certificates: { solver: 'dns01', wildcard: true } } };
  const tenants: KObject[] = [
    {
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'alice', namespace: 'tenant-root' },
      spec: { gateway: true },
    },
  ];
  const tgwSpec = (v: string) => {
    const r = render(
      { objects: tenants, valuesFiles: [{ file: 'values.yaml', values: dns01Wildcard }] },
      { cozystack: version(v) },
    );
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    return r.objects.find((o) => o.kind === 'TenantGateway')!.spec as Record<string, unknown>;
  };
  test.each(V15)('%s: wildcard-secret-name stays "" and the TenantGateway solves dns01 itself', (v) => {
    expect(clusterOf(v, dns01Wildcard).cluster['wildcard-secret-name']).toBe('');
    const spec = tgwSpec(v);
    expect([spec.certMode, spec.wildcardSecretRef]).toEqual(['dns01', undefined]);
  });
  test.each([...V16, 'main'])('%s: cozystack-wildcard-tls, and the TenantGateway takes it as existingSecret', (v) => {
    const c = clusterOf(v, dns01Wildcard).cluster;
    expect([c['wildcard-secret-name'], c['wildcard-issue']]).toEqual(['cozystack-wildcard-tls', 'true']);
    const spec = tgwSpec(v);
    expect([spec.certMode, spec.wildcardSecretRef]).toEqual(['existingSecret', { name: 'cozystack-wildcard-tls' }]);
  });
  test.each(ALL)('%s: a named wildcard Secret is taken as given', (v) => {
    expect(
      clusterOf(v, { publishing: { certificates: { wildcardSecretName: 'corp' } } }).cluster['wildcard-secret-name'],
    ).toBe('corp');
  });
});

describe('keycloakInternalUrl default (docs/versions.md §P2)', () => {
  test.each(V15)('%s: ""', (v) => {
    expect(clusterOf(v).cluster['keycloak-internal-url']).toBe('');
  });
  test.each([...V16, 'main'])('%s: the in-cluster realm URL', (v) => {
    expect(clusterOf(v).cluster['keycloak-internal-url']).toBe(
      'http://keycloak-http.cozy-keycloak.svc:8080/realms/cozy',
    );
  });
  test.each(ALL)('%s: a value given, "" included, is kept', (v) => {
    expect(
      clusterOf(v, { authentication: { oidc: { keycloakInternalUrl: '' } } }).cluster['keycloak-internal-url'],
    ).toBe('');
  });
});

describe('the platform values each version knows (docs/versions.md §P3)', () => {
  const unknown = (v: string, values: Record<string, unknown>) =>
    unknownKeyFindings({ objects: [], valuesFiles: [{ file: 'values.yaml', values }] }, version(v).behaviour).map(
      (f) => f.field,
    );
  const V16_ONLY = {
    publishing: { ingressNameAdmin: 'x', loadBalancerClass: 'y', certificates: { wildcard: true } },
    monitoring: { rootEnabled: false },
  };
  const V16_PATHS = [
    'publishing.ingressNameAdmin',
    'publishing.loadBalancerClass',
    'publishing.certificates.wildcard',
    'monitoring.rootEnabled',
  ];
  const PACK = { gateway: { http2: false, className: 'c', edgeTerminatedClasses: [], tenantSelectableClasses: [] } };
  const PACK_PATHS = [
    'gateway.http2',
    'gateway.className',
    'gateway.edgeTerminatedClasses',
    'gateway.tenantSelectableClasses',
  ];
  test.each(V15)("%s: the v1.6 keys and main's are unknown", (v) => {
    expect(unknown(v, V16_ONLY)).toEqual(V16_PATHS);
    expect(unknown(v, PACK)).toEqual(PACK_PATHS);
  });
  test.each(V16)("%s: the v1.6 keys are known, main's are not", (v) => {
    expect(unknown(v, V16_ONLY)).toEqual([]);
    expect(unknown(v, PACK)).toEqual(PACK_PATHS);
  });
  test('main: all known', () => {
    expect(unknown('main', { ...V16_ONLY, ...PACK })).toEqual([]);
  });
  test.each(RELEASES)('%s: an unknown key is never checked against the schema: a warning, not an error', (v) => {
    const r = render(
      { objects: [], valuesFiles: [{ file: 'values.yaml', values: { gateway: { className: 7, http2: 'yes' } } }] },
      { cozystack: version(v) },
    );
    expect(r.findings.map((f) => [f.severity, f.field])).toEqual([
      ['warning', 'gateway.className'],
      ['warning', 'gateway.http2'],
    ]);
  });
  test('main: the same values are checked: errors', () => {
    const r = render(
      { objects: [], valuesFiles: [{ file: 'values.yaml', values: { gateway: { className: 7, http2: 'yes' } } }] },
      { cozystack: version('main') },
    );
    expect(r.findings.filter((f) => f.severity === 'error').map((f) => f.field)).toEqual([
      'gateway.className',
      'gateway.http2',
    ]);
  });
});

describe("main's exactness where values enter (docs/behaviour.md §1)", () => {
  test.each(ALL)('%s: scheduling is copied whole, its default included', (v) => {
    expect(clusterOf(v).cluster.scheduling).toEqual({ globalAppTopologySpreadConstraints: '' });
    const spread = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' }];
    expect(clusterOf(v, { scheduling: { globalAppTopologySpreadConstraints: spread } }).cluster.scheduling).toEqual({
      globalAppTopologySpreadConstraints: spread,
    });
  });
  test.each(ALL)('%s: an empty scheduling map writes no scheduling key', (v) => {
    expect('scheduling' in clusterOf(v, { scheduling: { globalAppTopologySpreadConstraints: null } }).cluster).toBe(
      false,
    );
  });
  test.each(ALL)('%s: branding is written only when set, whole', (v) => {
    expect('branding' in clusterOf(v).cluster).toBe(false);
    const branding = { brandName: 'Acme Platform', brandHtmlName: '<b>Acme</b> Platform', loginTheme: 'acme' };
    expect(clusterOf(v, { branding }).cluster.branding).toEqual(branding);
  });
  test.each(ALL)('%s: clusterDomain "" stays "" (no default put back)', (v) => {
    expect(clusterOf(v, { networking: { clusterDomain: '' } }).cluster['cluster-domain']).toBe('');
  });
  test.each(ALL)('%s: an empty dns01 name, key or algorithm gets its default (sprig default)', (v) => {
    const c = clusterOf(v, {
      publishing: {
        certificates: {
          dns01: {
            provider: '',
            cloudflare: { secretName: '', secretKey: '' },
            route53: { secretKey: '' },
            digitalocean: { secretName: '', secretKey: '' },
            rfc2136: { tsigAlgorithm: '', secretKey: '' },
          },
        },
      },
    }).cluster;
    expect([
      c['dns01-provider'],
      c['dns01-cloudflare-secret-name'],
      c['dns01-cloudflare-secret-key'],
      c['dns01-route53-secret-key'],
      c['dns01-digitalocean-secret-name'],
      c['dns01-digitalocean-secret-key'],
      c['dns01-rfc2136-tsig-algorithm'],
      c['dns01-rfc2136-secret-key'],
    ]).toEqual([
      'cloudflare',
      'cloudflare-api-token-secret',
      'api-token',
      'secret-access-key',
      'digitalocean-api-token-secret',
      'access-token',
      'HMACSHA256',
      'tsig-secret-key',
    ]);
  });
  test('a list inside a copied map is written as Go writes YAML: not indented under its key', () => {
    const spread = [{ maxSkew: 1, topologyKey: 'zone' }];
    const r = render(
      {
        objects: [],
        valuesFiles: [{ file: 'values.yaml', values: { scheduling: { globalAppTopologySpreadConstraints: spread } } }],
      },
      { cozystack: version('main') },
    );
    const secret = r.objects.find((o) => o.kind === 'Secret' && o.metadata.namespace === 'tenant-root')!;
    expect((secret.stringData as Record<string, string>)['values.yaml']).toContain(
      '  scheduling:\n    globalAppTopologySpreadConstraints:\n    - maxSkew: 1\n      topologyKey: zone\n',
    );
  });
});

describe("null platform values are Helm's null (docs/decisions.md §17)", () => {
  test.each(ALL)('%s: a null key is null in _cluster, its default not restored', (v) => {
    const c = clusterOf(v, {
      authentication: { oidc: { enabled: null, keycloakInternalUrl: null } },
      publishing: { apiServerEndpoint: null, host: null },
      networking: { clusterDomain: null },
    }).cluster;
    expect([
      c['oidc-enabled'],
      c['keycloak-internal-url'],
      c['api-server-endpoint'],
      c['cluster-domain'],
      c['root-host'],
    ]).toEqual([null, null, null, null, null]);
  });
  test.each(ALL)('%s: a null list is "", a null with a default in the template gets that default', (v) => {
    const c = clusterOf(v, {
      publishing: { exposedServices: null, proxyProtocol: null, certificates: { wildcardSecretName: null } },
      gateway: { attachedNamespaces: null, enabled: null },
    }).cluster;
    expect([
      c['expose-services'],
      c['proxy-protocol'],
      c['wildcard-secret-name'],
      c['gateway-attached-namespaces'],
      c['gateway-enabled'],
    ]).toEqual(['', 'false', '', '', 'false']);
  });
  test.each(ALL)('%s: a null dns01 block writes no dns01 key; a null provider block none of its keys', (v) => {
    const none = clusterOf(v, { publishing: { certificates: { dns01: null } } }).cluster;
    expect(Object.keys(none).filter((k) => k.startsWith('dns01-'))).toEqual([]);
    const noCloudflare = clusterOf(v, { publishing: { certificates: { dns01: { cloudflare: null } } } }).cluster;
    expect(Object.keys(noCloudflare).filter((k) => k.startsWith('dns01-cloudflare'))).toEqual([]);
    expect(noCloudflare['dns01-provider']).toBe('cloudflare');
    expect(noCloudflare['dns01-route53-secret-key']).toBe('secret-access-key');
  });
  test.each([...V16, 'main'])('%s: monitoring: null falls back to "true" (the template\'s dig)', (v) => {
    expect(clusterOf(v, { monitoring: null }).cluster['monitoring-enabled']).toBe('true');
    expect(clusterOf(v, { monitoring: { rootEnabled: null } }).cluster['monitoring-enabled']).toBe('true');
  });
  test.each(ALL)('%s: a null map the chart reads into fails, naming the key and what upstream does', (v) => {
    for (const key of ['publishing', 'scheduling', 'resources', 'networking', 'gateway']) {
      const { findings } = clusterOf(v, { [key]: null });
      expect([key, findings.map((f) => [f.severity, f.rule, f.field])]).toEqual([
        key,
        [['error', 'platform.null-value', key]],
      ]);
      expect(findings[0].message).toMatch(/platform release fails to render/);
    }
  });
  test('the tenant Secrets carry a null key as null', () => {
    const r = render(
      { objects: [], valuesFiles: [{ file: 'values.yaml', values: { authentication: { oidc: { enabled: null } } } }] },
      { cozystack: version('main') },
    );
    const secret = r.objects.find((o) => o.kind === 'Secret' && o.metadata.namespace === 'tenant-root')!;
    expect((secret.stringData as Record<string, string>)['values.yaml']).toMatch(/^ {2}oidc-enabled: null$/m);
  });
});

describe('null platform values at the command line (docs/decisions.md §17)', () => {
  const scratch = useScratch('cozy-gw-versions-null-');
  const tenant =
    'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: alice\n  namespace: tenant-root\nspec:\n  resourceQuotas:\n    memory: 4Gi\n';
  test.each(['v1.5.0', 'v1.6.2', 'main'])(
    '%s: memoryAllocationRatio: null fails the quota of a tenant with a memory quota, at its file and line',
    async (v) => {
      scratch.write('values.yaml', 'publishing:\n  host: example.org\nresources:\n  memoryAllocationRatio: null\n');
      scratch.write('tenants.yaml', tenant);
      const r = await scratch.cli([
        'render',
        '--cozystack-version',
        v,
        '--values',
        'values.yaml',
        '-f',
        'tenants.yaml',
      ]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('_cluster.memory-allocation-ratio is null, which reads as 0');
      expect(r.stderr).toContain('decimal division by zero, which fails the tenant release upstream');
      expect(r.stderr).toContain('resources.memoryAllocationRatio is set at values.yaml:4');
    },
  );
  test.each(['v1.5.0', 'v1.6.2', 'main'])('%s: scheduling: null fails the render at its line', async (v) => {
    scratch.write('values.yaml', 'publishing:\n  host: example.org\nscheduling: null\n');
    const r = await scratch.cli(['render', '--cozystack-version', v, '--values', 'values.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: values\.yaml:3: scheduling: scheduling is null .*templates\/scheduling\.yaml reads \.Values\.scheduling\.globalAppTopologySpreadConstraints/m,
    );
  });
});

describe("the platform's own Secret, as the apps.yaml template writes it", () => {
  const text = (v: string, values: Record<string, unknown> = {}) =>
    (platformValuesSecret(clusterOf(v, values).cluster).stringData as Record<string, string>)['values.yaml'];
  test('v1.5.0 under the defaults: every value quoted, in template order', () => {
    expect(text('v1.5.0')).toBe(
      [
        '_cluster:',
        '  root-host: "example.org"',
        '  bundle-name: "isp-full"',
        '  solver: "http01"',
        '  issuer-name: "letsencrypt-prod"',
        '  wildcard-secret-name: ""',
        '  dns01-provider: "cloudflare"',
        '  dns01-cloudflare-secret-name: "cloudflare-api-token-secret"',
        '  dns01-cloudflare-secret-key: "api-token"',
        '  dns01-route53-region: ""',
        '  dns01-route53-access-key-id: ""',
        '  dns01-route53-secret-name: ""',
        '  dns01-route53-secret-key: "secret-access-key"',
        '  dns01-digitalocean-secret-name: "digitalocean-api-token-secret"',
        '  dns01-digitalocean-secret-key: "access-token"',
        '  dns01-rfc2136-nameserver: ""',
        '  dns01-rfc2136-tsig-key-name: ""',
        '  dns01-rfc2136-tsig-algorithm: "HMACSHA256"',
        '  dns01-rfc2136-secret-name: ""',
        '  dns01-rfc2136-secret-key: "tsig-secret-key"',
        '  oidc-enabled: "false"',
        '  oidc-insecure-skip-verify: "false"',
        '  extra-keycloak-redirect-uri-for-dashboard: ""',
        '  keycloak-internal-url: ""',
        '  expose-services: "api,dashboard,vm-exportproxy,cdi-uploadproxy"',
        '  expose-ingress: "tenant-root"',
        '  expose-external-ips: ""',
        '  proxy-protocol: "false"',
        '  gateway-enabled: "false"',
        '  gateway-attached-namespaces: "cozy-cert-manager,cozy-dashboard,cozy-keycloak,cozy-system,cozy-harbor,cozy-bucket,cozy-kubevirt,cozy-kubevirt-cdi,cozy-monitoring,cozy-linstor-gui,default"',
        '  cluster-domain: "cozy.local"',
        '  api-server-endpoint: ""',
        '  cpu-allocation-ratio: "10"',
        '  memory-allocation-ratio: "1"',
        '  ephemeral-storage-allocation-ratio: "40"',
        '  scheduling:',
        '    globalAppTopologySpreadConstraints: ""',
        '',
      ].join('\n'),
    );
  });
  test('a null value writes nothing after the key, and Go escapes what %q escapes', () => {
    const t = text('main', { publishing: { host: null, apiServerEndpoint: 'a"b\\c\td' } });
    expect(t).toContain('\n  root-host: \n');
    expect(t).toContain('\n  api-server-endpoint: "a\\"b\\\\c\\td"\n');
  });
  test('the object', () => {
    const s = platformValuesSecret({});
    expect([s.metadata, s.type]).toEqual([
      { name: 'cozystack-values', namespace: 'cozy-system', labels: { 'reconcile.fluxcd.io/watch': 'Enabled' } },
      'Opaque',
    ]);
    expect(getPath(s, 'stringData.values.yaml')).toBeUndefined();
  });
});

describe('the schema names version properties that exist (docs/versions.md §P3)', () => {
  test('every x-cozy-gw-known-when is a boolean property of every version', () => {
    const schema = JSON.parse(
      require('node:fs').readFileSync(
        require('node:path').join(__dirname, '../../schemas/platform-values.schema.json'),
        'utf8',
      ),
    ) as unknown;
    const named: string[] = [];
    const walk = (n: unknown): void => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object')
        for (const [k, v] of Object.entries(n)) {
          if (k === 'x-cozy-gw-known-when') named.push(String(v));
          walk(v);
        }
    };
    walk(schema);
    expect(named.length).toBeGreaterThan(0);
    for (const p of named)
      for (const v of COZYSTACK_VERSIONS)
        expect([p, v.name, typeof (v.behaviour as unknown as Record<string, unknown>)[p]]).toEqual([
          p,
          v.name,
          'boolean',
        ]);
  });
});
