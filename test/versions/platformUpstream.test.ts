/**
 * The platform chart's own helm-unittest cases of its apps.yaml template
 * (packages/core/platform/tests/apps_*_test.yaml), per tag, each run against every version whose
 * tag has it: apps_dns01_wiring, apps_proxy_protocol_wiring and apps_wildcard_secret at every
 * version; apps_admin_ingress_wiring, apps_load_balancer_class_wiring,
 * apps_monitoring_enabled_wiring, apps_oidc_keycloak_internal_url and apps_wildcard_acme from
 * v1.6.0 on (identical at v1.6.2 and upstream main). Each asserts on `stringData["values.yaml"]` of
 * Secret cozy-system/cozystack-values, which platformValuesSecret writes as the template does;
 * `set:` is the suite's values (dotted keys nested). Tests are named `<version>: <file> "<it>"`.
 */
import { clusterValues, platformValuesSecret, resolvePlatformValues } from '../../src/charts/platformValues';
import { COZYSTACK_VERSIONS } from '../../src/platform/cozystackVersions';

const ALL = COZYSTACK_VERSIONS.map((v) => v.name);
const FROM_V16 = ALL.filter((n) => !n.startsWith('v1.5'));

/** helm-unittest's `set:` (dotted keys) as values. */
function set(dotted: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(dotted)) {
    const parts = k.split('.');
    let cur = out;
    for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
    cur[parts[parts.length - 1]] = v;
  }
  return out;
}

/** `stringData["values.yaml"]` of the platform's Secret at version `v` with the values set. */
function valuesYaml(v: string, dotted: Record<string, unknown> = {}): string {
  const b = COZYSTACK_VERSIONS.find((x) => x.name === v)!.behaviour;
  const r = resolvePlatformValues({ files: [{ file: 'values.yaml', values: set(dotted) }], objects: [] }, b);
  const secret = platformValuesSecret(clusterValues(r.values, r.pkg, b).cluster);
  return (secret.stringData as Record<string, string>)['values.yaml'];
}

/** One upstream case: `matchRegex` assertions on the values.yaml text. */
function cases(
  versions: string[],
  file: string,
  list: [it: string, dotted: Record<string, unknown>, patterns: RegExp[]][],
): void {
  describe.each(versions)(`%s: ${file}`, (v) => {
    test.each(list)(`${v}: ${file} "%s"`, (_, dotted, patterns) => {
      const text = valuesYaml(v, dotted);
      for (const p of patterns) expect([String(p), p.test(text)]).toEqual([String(p), true]);
    });
  });
}

cases(ALL, 'apps_dns01_wiring_test.yaml', [
  ['writes dns01-provider default (cloudflare) when not explicitly set', {}, [/dns01-provider:\s*"cloudflare"/]],
  [
    'writes dns01-cloudflare-secret-name default',
    {},
    [/dns01-cloudflare-secret-name:\s*"cloudflare-api-token-secret"/, /dns01-cloudflare-secret-key:\s*"api-token"/],
  ],
  [
    'route53 provider writes region + secret refs',
    {
      'publishing.certificates.dns01.provider': 'route53',
      'publishing.certificates.dns01.route53.region': 'us-east-1',
      'publishing.certificates.dns01.route53.accessKeyID': 'AKIAIOSFODNN7EXAMPLE',
      'publishing.certificates.dns01.route53.secretName': 'aws-iam-secret',
      'publishing.certificates.dns01.route53.secretKey': 'secret-access-key',
    },
    [
      /dns01-provider:\s*"route53"/,
      /dns01-route53-region:\s*"us-east-1"/,
      /dns01-route53-access-key-id:\s*"AKIAIOSFODNN7EXAMPLE"/,
      /dns01-route53-secret-name:\s*"aws-iam-secret"/,
      /dns01-route53-secret-key:\s*"secret-access-key"/,
    ],
  ],
  [
    'digitalocean provider writes secret refs with defaults',
    { 'publishing.certificates.dns01.provider': 'digitalocean' },
    [
      /dns01-provider:\s*"digitalocean"/,
      /dns01-digitalocean-secret-name:\s*"digitalocean-api-token-secret"/,
      /dns01-digitalocean-secret-key:\s*"access-token"/,
    ],
  ],
  [
    'rfc2136 provider writes nameserver + tsig refs',
    {
      'publishing.certificates.dns01.provider': 'rfc2136',
      'publishing.certificates.dns01.rfc2136.nameserver': 'ns1.example.test:53',
      'publishing.certificates.dns01.rfc2136.tsigKeyName': 'letsencrypt.example.test.',
      'publishing.certificates.dns01.rfc2136.secretName': 'tsig-secret',
      'publishing.certificates.dns01.rfc2136.secretKey': 'tsig-secret-key',
    },
    [
      /dns01-provider:\s*"rfc2136"/,
      /dns01-rfc2136-nameserver:\s*"ns1\.example\.test:53"/,
      /dns01-rfc2136-tsig-key-name:\s*"letsencrypt\.example\.test\."/,
      /dns01-rfc2136-tsig-algorithm:\s*"HMACSHA256"/,
      /dns01-rfc2136-secret-name:\s*"tsig-secret"/,
    ],
  ],
  [
    'rfc2136 tsigAlgorithm override is honored',
    {
      'publishing.certificates.dns01.provider': 'rfc2136',
      'publishing.certificates.dns01.rfc2136.nameserver': 'ns.example.test',
      'publishing.certificates.dns01.rfc2136.tsigKeyName': 'k.example.test.',
      'publishing.certificates.dns01.rfc2136.tsigAlgorithm': 'HMACSHA512',
      'publishing.certificates.dns01.rfc2136.secretName': 'tsig',
    },
    [/dns01-rfc2136-tsig-algorithm:\s*"HMACSHA512"/],
  ],
]);

cases(ALL, 'apps_proxy_protocol_wiring_test.yaml', [
  ['writes proxy-protocol false by default', {}, [/^\s*proxy-protocol:\s*"false"/m]],
  [
    'writes proxy-protocol true when publishing.proxyProtocol is enabled',
    { 'publishing.proxyProtocol': true },
    [/^\s*proxy-protocol:\s*"true"/m],
  ],
]);

cases(ALL, 'apps_wildcard_secret_test.yaml', [
  ['writes empty wildcard-secret-name by default', {}, [/wildcard-secret-name:\s*""/]],
  [
    'writes the operator-supplied wildcard secret name when set',
    { 'publishing.certificates.wildcardSecretName': 'wildcard-tls' },
    [/wildcard-secret-name:\s*"wildcard-tls"/],
  ],
]);

cases(FROM_V16, 'apps_admin_ingress_wiring_test.yaml', [
  ['writes an empty expose-ingress-admin by default', {}, [/expose-ingress-admin:\s*""/]],
  [
    'writes the configured admin ingress namespace',
    { 'publishing.ingressNameAdmin': 'cozy-private' },
    [/expose-ingress-admin:\s*"cozy-private"/],
  ],
]);

cases(FROM_V16, 'apps_load_balancer_class_wiring_test.yaml', [
  ['writes an empty load-balancer-class by default', {}, [/^\s*load-balancer-class:\s*""/m]],
  [
    'writes the load-balancer-class when publishing.loadBalancerClass is set',
    { 'publishing.loadBalancerClass': 'metallb.io/metallb' },
    [/^\s*load-balancer-class:\s*"metallb\.io\/metallb"/m],
  ],
]);

cases(FROM_V16, 'apps_monitoring_enabled_wiring_test.yaml', [
  ['writes monitoring-enabled true by default', {}, [/^\s*monitoring-enabled:\s*"true"/m]],
  [
    'writes monitoring-enabled false when monitoring.rootEnabled is disabled',
    { 'monitoring.rootEnabled': false },
    [/^\s*monitoring-enabled:\s*"false"/m],
  ],
  [
    'falls back to true (no panic) when monitoring is null',
    { monitoring: null },
    [/^\s*monitoring-enabled:\s*"true"/m],
  ],
]);

const REALM = /keycloak-internal-url:\s*"http:\/\/keycloak-http\.cozy-keycloak\.svc:8080\/realms\/cozy"/;
cases(FROM_V16, 'apps_oidc_keycloak_internal_url_test.yaml', [
  ['writes the in-cluster keycloak Service address by default', {}, [REALM]],
  [
    'writes the in-cluster default even when OIDC is enabled',
    { 'authentication.oidc.enabled': true },
    [/oidc-enabled:\s*"true"/, REALM],
  ],
  [
    'honors an operator override pointing at a non-standard keycloak placement',
    {
      'authentication.oidc.enabled': true,
      'authentication.oidc.keycloakInternalUrl': 'http://keycloak.example.test:8080/realms/other',
    },
    [/keycloak-internal-url:\s*"http:\/\/keycloak\.example\.test:8080\/realms\/other"/],
  ],
  [
    'keeps the empty-string escape hatch, restoring external OIDC discovery',
    { 'authentication.oidc.enabled': true, 'authentication.oidc.keycloakInternalUrl': '' },
    [/keycloak-internal-url:\s*""/],
  ],
]);

const noIssue = [/wildcard-secret-name:\s*""/, /wildcard-issue:\s*"false"/];
cases(FROM_V16, 'apps_wildcard_acme_test.yaml', [
  ['does not issue a wildcard by default (http01)', {}, noIssue],
  ['does not auto-issue on dns01 unless explicitly opted in', { 'publishing.certificates.solver': 'dns01' }, noIssue],
  [
    'issues a shared wildcard when opted in on the dns01 ingress path',
    { 'publishing.certificates.solver': 'dns01', 'publishing.certificates.wildcard': true },
    [/wildcard-secret-name:\s*"cozystack-wildcard-tls"/, /wildcard-issue:\s*"true"/],
  ],
  [
    'does not auto-issue on the ingress path when Gateway API is enabled',
    { 'publishing.certificates.solver': 'dns01', 'publishing.certificates.wildcard': true, 'gateway.enabled': true },
    noIssue,
  ],
  [
    'operator-provided wildcard secret wins and never triggers issuance',
    {
      'publishing.certificates.solver': 'dns01',
      'publishing.certificates.wildcard': true,
      'publishing.certificates.wildcardSecretName': 'byo-wildcard-tls',
    },
    [/wildcard-secret-name:\s*"byo-wildcard-tls"/, /wildcard-issue:\s*"false"/],
  ],
  [
    'http01 never issues a wildcard even when opted in',
    { 'publishing.certificates.solver': 'http01', 'publishing.certificates.wildcard': true },
    noIssue,
  ],
]);

describe('the v1.6 suites do not hold at v1.5 (docs/versions.md §P1, §P2): the keys they look for are not written', () => {
  test.each(ALL.filter((n) => n.startsWith('v1.5')))('%s', (v) => {
    const text = valuesYaml(v, { 'publishing.certificates.solver': 'dns01', 'publishing.certificates.wildcard': true });
    for (const key of ['expose-ingress-admin', 'load-balancer-class', 'monitoring-enabled', 'wildcard-issue'])
      expect([key, text.includes(`${key}:`)]).toEqual([key, false]);
    expect(text).toMatch(/wildcard-secret-name:\s*""/);
    expect(text).toMatch(/keycloak-internal-url:\s*""/);
  });
});
