import { fieldOf as fieldPath } from '../../src/validation/ajvErrors';
import {
  applyTenantGatewayDefaults,
  tenantGatewayCrd,
  toJsonSchema,
  tenantGatewaySchema,
  validateTenantGateway,
} from '../../src/validation/tenantGatewayCrd';
import type { KObject } from '../../src/k8s/model';

function tgw(spec: Record<string, unknown>): KObject {
  return {
    apiVersion: 'gateway.cozystack.io/v1alpha1',
    kind: 'TenantGateway',
    metadata: { name: 'cozystack', namespace: 'tenant-root' },
    spec,
  };
}
const msgs = (o: KObject) => validateTenantGateway(o).map((f) => `${f.field}: ${f.message}`);

describe('TenantGateway CRD shape (docs/behaviour.md §4)', () => {
  const crd = tenantGatewayCrd() as unknown as { spec: Record<string, any> };
  it('is namespaced, short name tgw, one version with status and printer columns', () => {
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names.shortNames).toEqual(['tgw']);
    expect(crd.spec.versions.map((v: { name: string }) => v.name)).toEqual(['v1alpha1']);
    expect(crd.spec.versions[0].subresources).toEqual({ status: {} });
    expect(crd.spec.versions[0].additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual([
      'Apex',
      'Mode',
      'Ready',
      'Age',
    ]);
  });
  it('translates x-kubernetes-* away and closes objects', () => {
    const js = JSON.stringify(toJsonSchema(tenantGatewaySchema()));
    expect(js).not.toMatch(/x-kubernetes/);
    expect(js).not.toMatch(/"default"/);
    expect(js).toMatch(/"additionalProperties":false/);
  });
  it('names field paths', () => {
    expect(fieldPath('/spec/tlsPassthroughListeners/0/port')).toBe('spec.tlsPassthroughListeners[0].port');
  });
});

describe('defaults', () => {
  it('applies certMode, issuerName, gatewayClassName, provider, tsigAlgorithm, selector name', () => {
    const o = applyTenantGatewayDefaults(
      tgw({
        apex: 'example.org',
        dns01: { rfc2136: { nameserver: 'ns', tsigKeyName: 'k', tsigSecretSecretRef: { key: 'x' } } },
      }),
    );
    expect(o.spec).toMatchObject({
      certMode: 'http01',
      issuerName: 'letsencrypt-prod',
      gatewayClassName: 'cilium',
      dns01: {
        provider: 'cloudflare',
        rfc2136: { tsigAlgorithm: 'HMACSHA256', tsigSecretSecretRef: { name: '', key: 'x' } },
      },
    });
  });
  it('does not touch the input', () => {
    const i = tgw({ apex: 'example.org' });
    applyTenantGatewayDefaults(i);
    expect(i.spec).toEqual({ apex: 'example.org' });
  });
});

describe('schema', () => {
  it('accepts a minimal and a full object', () => {
    expect(msgs(tgw({ apex: 'example.org' }))).toEqual([]);
    expect(
      msgs(
        tgw({
          apex: 'example.org',
          gatewayClassName: 'cilium',
          certMode: 'dns01',
          issuerName: 'letsencrypt-stage',
          dns01: {
            provider: 'route53',
            route53: { region: 'eu-west-1', accessKeyID: '', secretAccessKeySecretRef: { name: 's', key: 'k' } },
          },
          attachedNamespaces: ['cozy-system'],
          tlsPassthroughServices: ['api', 'vm-exportproxy'],
          tlsPassthroughListeners: [
            { name: 'redis', port: 6379, hostname: 'redis.example.org' },
            { name: 'pg', port: 5432, hostname: '*.db.example.org' },
          ],
        }),
      ),
    ).toEqual([]);
  });
  it('requires apex and bounds it', () => {
    expect(msgs(tgw({}))).toEqual(['spec.apex: Required value']);
    expect(msgs(tgw({ apex: 'a'.repeat(254) }))[0]).toMatch(/^spec.apex: must NOT have more than 253 characters/);
  });
  it('refuses values outside the enums', () => {
    expect(msgs(tgw({ apex: 'x.org', certMode: 'tls' }))[0]).toMatch(/^spec.certMode: Unsupported value.*"edge"/);
    expect(msgs(tgw({ apex: 'x.org', issuerName: 'zerossl' }))[0]).toMatch(/^spec.issuerName: Unsupported value/);
    expect(msgs(tgw({ apex: 'x.org', dns01: { provider: 'gandi' } }))[0]).toMatch(
      /^spec.dns01.provider: Unsupported value/,
    );
  });
  it('requires provider blocks and selector keys', () => {
    expect(msgs(tgw({ apex: 'x.org', dns01: { cloudflare: {} } }))).toEqual([
      'spec.dns01.cloudflare.apiTokenSecretRef: Required value',
    ]);
    expect(msgs(tgw({ apex: 'x.org', dns01: { cloudflare: { apiTokenSecretRef: { name: 'a' } } } }))).toEqual([
      'spec.dns01.cloudflare.apiTokenSecretRef.key: Required value',
    ]);
    expect(msgs(tgw({ apex: 'x.org', dns01: { route53: {} } }))).toEqual(['spec.dns01.route53.region: Required value']);
    expect(msgs(tgw({ apex: 'x.org', dns01: { rfc2136: { nameserver: 'n' } } })).sort()).toEqual([
      'spec.dns01.rfc2136.tsigKeyName: Required value',
      'spec.dns01.rfc2136.tsigSecretSecretRef: Required value',
    ]);
  });
  it('refuses unknown fields', () => {
    expect(msgs(tgw({ apex: 'x.org', hostnames: [] }))).toEqual(['spec.hostnames: unknown field']);
  });
  it('bounds tlsPassthroughServices', () => {
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughServices: ['API'] }))[0]).toMatch(
      /^spec.tlsPassthroughServices\[0\]: must match/,
    );
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughServices: ['a'.repeat(250)] }))[0]).toMatch(
      /must NOT have more than 249/,
    );
    expect(
      msgs(tgw({ apex: 'x.org', tlsPassthroughServices: Array.from({ length: 63 }, (_, i) => `s${i}`) }))[0],
    ).toMatch(/^spec.tlsPassthroughServices: must NOT have more than 62 items/);
    // not a set: duplicates are the controller's to report
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughServices: ['api', 'api'] }))).toEqual([]);
  });
  it('bounds listener fields', () => {
    const l = (x: Record<string, unknown>) =>
      msgs(tgw({ apex: 'x.org', tlsPassthroughListeners: [{ name: 'a', port: 6379, hostname: 'a.x.org', ...x }] }));
    expect(l({ port: 0 })[0]).toMatch(/^spec.tlsPassthroughListeners\[0\].port: must be >= 1/);
    expect(l({ port: 65536 })[0]).toMatch(/must be <= 65535/);
    expect(l({ port: 6.5 })[0]).toMatch(/must be integer/);
    expect(l({ name: 'Redis' })[0]).toMatch(/^spec.tlsPassthroughListeners\[0\].name: must match/);
    expect(l({ name: 'a'.repeat(64) })[0]).toMatch(/more than 63/);
    expect(l({ hostname: 'A.x.org' })[0]).toMatch(/^spec.tlsPassthroughListeners\[0\].hostname: must match/);
    expect(l({ hostname: '*.x.org' })).toEqual([]);
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughListeners: [{ name: 'a' }] })).sort()).toEqual([
      'spec.tlsPassthroughListeners[0].hostname: Required value',
      'spec.tlsPassthroughListeners[0].port: Required value',
    ]);
  });
});

describe('CEL rules 1-5', () => {
  const L = (name: string, port: number, hostname: string) => ({ name, port, hostname });
  it('rule 1: no port 80 or 443', () => {
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughListeners: [L('a', 443, 'a.x.org')] }))).toEqual([
      "spec.tlsPassthroughListeners[0].port: port 443 belongs to the Gateway's own listeners (80 and 443 are reserved)",
    ]);
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughListeners: [L('a', 80, 'a.x.org')] }))).toHaveLength(1);
  });
  it('rule 2: distinct ports (int comparison)', () => {
    expect(
      msgs(tgw({ apex: 'x.org', tlsPassthroughListeners: [L('a', 6379, 'a.x.org'), L('b', 6379, 'b.x.org')] })),
    ).toEqual(['spec.tlsPassthroughListeners: tlsPassthroughListeners ports must be distinct: a=6379, b=6379']);
  });
  it('rule 3: hostname within apex, bytewise', () => {
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughListeners: [L('a', 6379, 'x.org.evil.net')] }))).toEqual([
      'spec.tlsPassthroughListeners: tlsPassthroughListeners hostname(s) x.org.evil.net must equal the apex x.org or end with .x.org',
    ]);
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughListeners: [L('a', 6379, 'evilx.org')] }))).toHaveLength(1);
    expect(msgs(tgw({ apex: 'x.org', tlsPassthroughListeners: [L('a', 6379, 'x.org')] }))).toEqual([]);
    // a mixed-case apex with a lowercase hostname is refused, naming the hostname
    expect(msgs(tgw({ apex: 'X.org', tlsPassthroughListeners: [L('a', 6379, 'a.x.org')] }))[0]).toMatch(
      /a\.x\.org must equal the apex X\.org/,
    );
  });
  it('rule 4: listener name is not a service', () => {
    expect(
      msgs(
        tgw({ apex: 'x.org', tlsPassthroughServices: ['api'], tlsPassthroughListeners: [L('api', 6379, 'a.x.org')] }),
      ),
    ).toEqual([
      'spec.tlsPassthroughListeners: tlsPassthroughListeners name(s) api clash with tlsPassthroughServices: both render a tls-<name> listener',
    ]);
  });
  it('rule 5: refused under edge only, on the spec node', () => {
    const f = validateTenantGateway(
      tgw({ apex: 'x.org', certMode: 'edge', tlsPassthroughListeners: [L('a', 6379, 'a.x.org')] }),
    );
    expect(f).toHaveLength(1);
    expect(f[0].field).toBe('spec.tlsPassthroughListeners');
    expect(f[0].message).toMatch(/edge/);
    expect(msgs(tgw({ apex: 'x.org', certMode: 'edge', tlsPassthroughListeners: [] }))).toEqual([]);
    for (const m of ['http01', 'dns01', 'existingSecret'])
      expect(msgs(tgw({ apex: 'x.org', certMode: m, tlsPassthroughListeners: [L('a', 6379, 'a.x.org')] }))).toEqual([]);
  });
  it('reports every failure at once', () => {
    const f = validateTenantGateway(
      tgw({ apex: 'x.org', certMode: 'edge', issuerName: 'nope', tlsPassthroughListeners: [L('a', 443, 'a.y.org')] }),
    );
    expect(f.length).toBeGreaterThanOrEqual(4);
    expect(f.filter((x) => x.object?.name !== 'cozystack')).toEqual([]);
  });
});
