/**
 * The TenantGateway's ACME objects (docs/behaviour.md §5.4, §5.5, §5.12):
 * Issuer, wildcard and per-listener Certificates, mode-switch GC, the takeover guard, ownership
 * with and without uids (docs/decisions.md §4), idempotence, and TLS Secrets never deleted.
 */
import fc from 'fast-check';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { ReconcileError } from '../../src/controller/errors';
import {
  reconcileIssuer,
  reconcilePerListenerCertificates,
  reconcileWildcardCertificate,
  wildcardDnsNames,
} from '../../src/controller/certificates';
import { reconcileRedirectRoute } from '../../src/controller/redirectRoute';
import { perAppCertificateName } from '../../src/platform/names';

const NS = 'tenant-root';
const UID = '3f0c2a8e-1b7d-4c5e-9a21-0d6f7e8a9b01';
const PROD = 'https://acme-v02.api.letsencrypt.org/directory';
const STAGE = 'https://acme-staging-v02.api.letsencrypt.org/directory';
const OWNER = {
  apiVersion: 'gateway.cozystack.io/v1alpha1',
  kind: 'TenantGateway',
  name: 'cozystack',
  uid: UID,
  controller: true,
  blockOwnerDeletion: true,
};
const MANAGED = { 'cozystack.io/managed-by': 'cozystack-controller' };
const CLOUDFLARE = { provider: 'cloudflare', cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'api-token' } } };

type Spec = Record<string, unknown>;

function tgw(spec: Spec = {}, opts: { uid?: string | null } = {}): KObject {
  const uid = opts.uid === undefined ? UID : opts.uid;
  const md: KObject['metadata'] = { name: 'cozystack', namespace: NS, generation: 1 };
  if (uid) md.uid = uid;
  return {
    apiVersion: 'gateway.cozystack.io/v1alpha1',
    kind: 'TenantGateway',
    metadata: md,
    spec: { apex: 'example.org', ...spec },
  };
}

const http01 = (extra: Spec = {}) => tgw({ certMode: 'http01', issuerName: 'letsencrypt-prod', ...extra });
const dns01 = (extra: Spec = {}) =>
  tgw({ certMode: 'dns01', issuerName: 'letsencrypt-prod', dns01: CLOUDFLARE, ...extra });
const existingSecret = () => tgw({ certMode: 'existingSecret', wildcardSecretRef: { name: 'wild' } });
const edge = () => tgw({ certMode: 'edge' });

function get(s: Store, kind: string, name: string, group = 'cert-manager.io'): KObject | undefined {
  return s.get(group, kind, NS, name);
}

function cert(name: string, dnsNames: string[], md: Partial<KObject['metadata']> = {}): KObject {
  return {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name, namespace: NS, ...md },
    spec: { secretName: name, issuerRef: { kind: 'Issuer', name: 'cozystack-gateway' }, dnsNames },
  };
}

function perListenerCert(host: string, md: Partial<KObject['metadata']> = { ownerReferences: [OWNER] }): KObject {
  return cert(perAppCertificateName('cozystack', host), [host], {
    labels: { ...MANAGED, 'cozystack.io/tenantgateway': 'cozystack', 'cozystack.io/per-listener-cert': 'true' },
    ...md,
  });
}

function tlsSecret(name: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' },
  };
}

/** The controller's ACME steps in the docs/behaviour.md §5.1 order. */
function pass(s: Store, t: KObject, served: string[] = [], children: string[] = []): Store {
  reconcileIssuer(s, t);
  reconcileWildcardCertificate(s, t, children);
  reconcilePerListenerCertificates(s, t, served);
  reconcileRedirectRoute(s, t);
  return s;
}

function errorOf(f: () => void): ReconcileError {
  try {
    f();
  } catch (e) {
    if (e instanceof ReconcileError) return e;
    throw e;
  }
  throw new Error('expected a ReconcileError');
}

describe('Issuer', () => {
  test('http01: the ACME Issuer with an HTTP-01 gatewayHTTPRoute solver on the http listener', () => {
    const s = new Store();
    reconcileIssuer(s, http01());
    expect(get(s, 'Issuer', 'cozystack-gateway')).toEqual({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: { name: 'cozystack-gateway', namespace: NS, labels: MANAGED, ownerReferences: [OWNER] },
      spec: {
        acme: {
          server: PROD,
          privateKeySecretRef: { name: 'cozystack-acme-account' },
          solvers: [
            {
              http01: {
                gatewayHTTPRoute: {
                  parentRefs: [
                    {
                      group: 'gateway.networking.k8s.io',
                      kind: 'Gateway',
                      name: 'cozystack',
                      namespace: NS,
                      sectionName: 'http',
                    },
                  ],
                },
              },
            },
          ],
        },
      },
    });
    expect(s.changes()).toEqual([
      expect.objectContaining({ op: 'create', reasons: [expect.stringMatching(/HTTP-01.*http01/)] }),
    ]);
  });

  test('CRD defaults: a missing certMode is http01 and a missing issuerName is letsencrypt-prod', () => {
    const s = new Store();
    reconcileIssuer(s, tgw({}));
    const spec = get(s, 'Issuer', 'cozystack-gateway')!.spec as any;
    expect(spec.acme.server).toBe(PROD);
    expect(spec.acme.solvers[0].http01).toBeDefined();
    const s2 = new Store();
    reconcileIssuer(s2, tgw({ issuerName: '' }));
    expect((get(s2, 'Issuer', 'cozystack-gateway')!.spec as any).acme.server).toBe(PROD);
  });

  test('letsencrypt-stage maps to the staging directory', () => {
    const s = new Store();
    reconcileIssuer(s, http01({ issuerName: 'letsencrypt-stage' }));
    expect((get(s, 'Issuer', 'cozystack-gateway')!.spec as any).acme.server).toBe(STAGE);
  });

  test('an unsupported issuerName is a ReconcileError naming it and the supported ones', () => {
    for (const t of [http01({ issuerName: 'zerossl' }), dns01({ issuerName: 'zerossl' })]) {
      const s = new Store();
      const e = errorOf(() => reconcileIssuer(s, t));
      expect(e.message).toMatch(/unsupported issuerName "zerossl".*letsencrypt-prod, letsencrypt-stage/);
      expect(s.all()).toEqual([]);
    }
  });

  const providers: Array<[string, Spec, Record<string, unknown>]> = [
    ['cloudflare', CLOUDFLARE, { cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'api-token' } } }],
    [
      'route53',
      {
        provider: 'route53',
        route53: {
          region: 'eu-west-1',
          accessKeyID: 'AKIA',
          secretAccessKeySecretRef: { name: 'r53', key: 'secret-access-key' },
        },
      },
      {
        route53: {
          region: 'eu-west-1',
          accessKeyID: 'AKIA',
          secretAccessKeySecretRef: { name: 'r53', key: 'secret-access-key' },
        },
      },
    ],
    [
      'route53 with IRSA (no access key id)',
      {
        provider: 'route53',
        route53: {
          region: 'eu-west-1',
          accessKeyID: '',
          secretAccessKeySecretRef: { name: '', key: 'secret-access-key' },
        },
      },
      { route53: { region: 'eu-west-1', secretAccessKeySecretRef: { name: '', key: 'secret-access-key' } } },
    ],
    [
      'digitalocean',
      { provider: 'digitalocean', digitalocean: { tokenSecretRef: { name: 'do', key: 'access-token' } } },
      { digitalocean: { tokenSecretRef: { name: 'do', key: 'access-token' } } },
    ],
    [
      'rfc2136',
      {
        provider: 'rfc2136',
        rfc2136: {
          nameserver: 'ns1.example.test:53',
          tsigKeyName: 'le.',
          tsigAlgorithm: 'HMACSHA512',
          tsigSecretSecretRef: { name: 'tsig', key: 'tsig-secret-key' },
        },
      },
      {
        rfc2136: {
          nameserver: 'ns1.example.test:53',
          tsigKeyName: 'le.',
          tsigAlgorithm: 'HMACSHA512',
          tsigSecretSecretRef: { name: 'tsig', key: 'tsig-secret-key' },
        },
      },
    ],
    [
      'rfc2136 with the default TSIG algorithm',
      {
        provider: 'rfc2136',
        rfc2136: { nameserver: 'ns1', tsigKeyName: 'le.', tsigSecretSecretRef: { name: 'tsig', key: 'k' } },
      },
      {
        rfc2136: {
          nameserver: 'ns1',
          tsigKeyName: 'le.',
          tsigAlgorithm: 'HMACSHA256',
          tsigSecretSecretRef: { name: 'tsig', key: 'k' },
        },
      },
    ],
    [
      'a missing provider (cloudflare by default)',
      { cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'api-token' } } },
      { cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'api-token' } } },
    ],
  ];
  test.each(providers)('dns01 %s: one dns01 solver with the provider block', (_n, block, want) => {
    const s = new Store();
    reconcileIssuer(s, dns01({ dns01: block }));
    const acme = (get(s, 'Issuer', 'cozystack-gateway')!.spec as any).acme;
    expect(acme.solvers).toEqual([{ dns01: want }]);
    expect(acme.privateKeySecretRef).toEqual({ name: 'cozystack-acme-account' });
    expect(acme.email).toBeUndefined();
  });

  test.each([
    ['a missing dns01 block', { dns01: undefined }, /certMode dns01 requires spec\.dns01/],
    [
      'an unknown provider',
      { dns01: { provider: 'gandi', gandi: {} } },
      /unsupported dns01\.provider "gandi".*cloudflare, route53, digitalocean, rfc2136/,
    ],
    [
      'a missing provider block',
      { dns01: { provider: 'route53' } },
      /dns01\.provider is route53 but spec\.dns01\.route53 is missing/,
    ],
    ['a missing cloudflare block', { dns01: { provider: 'cloudflare' } }, /spec\.dns01\.cloudflare is missing/],
    [
      'a provider block without its secret ref',
      { dns01: { provider: 'digitalocean', digitalocean: {} } },
      /spec\.dns01\.digitalocean\.tokenSecretRef is missing/,
    ],
    [
      'route53 without a region',
      { dns01: { provider: 'route53', route53: { region: '' } } },
      /route53\.region is required/,
    ],
    [
      'rfc2136 without a nameserver',
      { dns01: { provider: 'rfc2136', rfc2136: { tsigKeyName: 'k', tsigSecretSecretRef: { name: 'n', key: 'k' } } } },
      /rfc2136\.nameserver is required/,
    ],
  ])('dns01 with %s is a ReconcileError and writes nothing', (_n, extra, msg) => {
    const s = new Store();
    const e = errorOf(() => reconcileIssuer(s, dns01(extra as Spec)));
    expect(e.message).toMatch(msg);
    expect(e.message).toMatch(/TenantGateway tenant-root\/cozystack/);
    expect(s.all()).toEqual([]);
  });

  test('http01 -> dns01 replaces the spec of the owned Issuer, keeping its other metadata and status', () => {
    const s = new Store();
    reconcileIssuer(s, http01());
    const before = get(s, 'Issuer', 'cozystack-gateway')!;
    const edited: KObject = {
      ...before,
      metadata: {
        ...before.metadata,
        labels: { ...before.metadata.labels, team: 'a' },
        annotations: { note: 'x' },
        resourceVersion: '7',
      },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const s2 = new Store([edited]);
    reconcileIssuer(s2, dns01());
    const after = get(s2, 'Issuer', 'cozystack-gateway')!;
    expect((after.spec as any).acme.solvers).toEqual([
      { dns01: { cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'api-token' } } } },
    ]);
    expect(after.metadata).toEqual(edited.metadata);
    expect(after.status).toEqual(edited.status);
    expect(s2.changes()).toEqual([
      expect.objectContaining({ op: 'update', reasons: [expect.stringMatching(/DNS-01 solver via cloudflare/)] }),
    ]);
  });

  test('labels are re-asserted on an owned Issuer whose label was removed', () => {
    const s = new Store();
    reconcileIssuer(s, http01());
    const o = get(s, 'Issuer', 'cozystack-gateway')!;
    const s2 = new Store([{ ...o, metadata: { ...o.metadata, labels: { other: 'y' } } }]);
    reconcileIssuer(s2, http01());
    expect(get(s2, 'Issuer', 'cozystack-gateway')!.metadata.labels).toEqual({ other: 'y', ...MANAGED });
  });

  test.each([
    ['existingSecret', existingSecret()],
    ['edge', edge()],
  ])('%s deletes an owned Issuer and leaves the account Secret', (mode, t) => {
    const s = new Store();
    reconcileIssuer(s, http01());
    const s2 = new Store([...s.all(), tlsSecret('cozystack-acme-account')]);
    reconcileIssuer(s2, t);
    expect(get(s2, 'Issuer', 'cozystack-gateway')).toBeUndefined();
    expect(s2.get('', 'Secret', NS, 'cozystack-acme-account')).toBeDefined();
    expect(s2.changes()).toEqual([
      expect.objectContaining({
        op: 'delete',
        reasons: [`garbage-collected: mode switched to ${mode}, which mints no Issuer`],
      }),
    ]);
  });

  test('existingSecret and edge never delete an unowned Issuer', () => {
    const foreign: KObject = {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: { name: 'cozystack-gateway', namespace: NS },
      spec: { selfSigned: {} },
    };
    for (const t of [existingSecret(), edge()]) {
      const s = new Store([foreign]);
      reconcileIssuer(s, t);
      expect(get(s, 'Issuer', 'cozystack-gateway')).toEqual(foreign);
      expect(s.changes()).toEqual([]);
    }
  });

  test('takeover guard: an unowned Issuer of the derived name fails the pass and is left alone', () => {
    const foreigners: KObject[] = [
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: 'cozystack-gateway', namespace: NS },
        spec: { selfSigned: {} },
      },
      // owned by another TenantGateway uid
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: 'cozystack-gateway', namespace: NS, ownerReferences: [{ ...OWNER, uid: 'other' }] },
        spec: {},
      },
      // labelled only, while the TenantGateway has a uid: labels do not prove ownership then
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: {
          name: 'cozystack-gateway',
          namespace: NS,
          labels: { ...MANAGED, 'cozystack.io/tenantgateway': 'cozystack' },
        },
        spec: {},
      },
    ];
    for (const f of foreigners) {
      for (const t of [http01(), dns01()]) {
        const s = new Store([f]);
        const e = errorOf(() => reconcileIssuer(s, t));
        expect(e.message).toBe(
          'Issuer tenant-root/cozystack-gateway exists and is not owned by TenantGateway cozystack; refusing to take it over',
        );
        expect(get(s, 'Issuer', 'cozystack-gateway')).toEqual(f);
        expect(s.changes()).toEqual([]);
      }
    }
  });

  test('without a uid: no ownerReference, both labels, and the labels prove ownership for GC', () => {
    const noUid = tgw({ certMode: 'http01' }, { uid: null });
    const s1 = new Store();
    reconcileIssuer(s1, noUid);
    const o = get(s1, 'Issuer', 'cozystack-gateway')!;
    expect(o.metadata.ownerReferences).toBeUndefined();
    expect(o.metadata.labels).toEqual({ ...MANAGED, 'cozystack.io/tenantgateway': 'cozystack' });
    const s2 = new Store(s1.all());
    reconcileIssuer(s2, tgw({ certMode: 'edge' }, { uid: null }));
    expect(get(s2, 'Issuer', 'cozystack-gateway')).toBeUndefined();
    // an Issuer with only managed-by is not ours without a uid either
    const s3 = new Store([{ ...o, metadata: { ...o.metadata, labels: MANAGED } }]);
    expect(() => reconcileIssuer(s3, noUid)).toThrow(/not owned by TenantGateway cozystack/);
    reconcileIssuer(s3, tgw({ certMode: 'edge' }, { uid: null }));
    expect(get(s3, 'Issuer', 'cozystack-gateway')).toBeDefined();
  });

  test('an Issuer created without a uid is owned when the TenantGateway has one only via its ownerReference', () => {
    const s = new Store([
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: 'cozystack-gateway', namespace: NS, ownerReferences: [{ ...OWNER, uid: undefined }] },
        spec: {},
      },
    ]);
    reconcileIssuer(s, http01());
    expect((get(s, 'Issuer', 'cozystack-gateway')!.spec as any).acme.server).toBe(PROD);
  });
});

describe('wildcard Certificate', () => {
  test('dnsNames: apex, *.apex, then c, *.c per sorted child apex, duplicates and empties skipped', () => {
    expect(wildcardDnsNames('example.org', [])).toEqual(['example.org', '*.example.org']);
    expect(
      wildcardDnsNames('example.org', ['zed.example.org', '', 'alice.example.org', 'example.org', 'alice.example.org']),
    ).toEqual([
      'example.org',
      '*.example.org',
      'alice.example.org',
      '*.alice.example.org',
      'zed.example.org',
      '*.zed.example.org',
    ]);
  });

  test('dns01: <tgw>-gateway-tls with secretName, issuerRef without group, managed-by', () => {
    const s = new Store();
    reconcileWildcardCertificate(s, dns01(), ['b.example.org', 'customer1.io']);
    expect(get(s, 'Certificate', 'cozystack-gateway-tls')).toEqual({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'cozystack-gateway-tls', namespace: NS, labels: MANAGED, ownerReferences: [OWNER] },
      spec: {
        secretName: 'cozystack-gateway-tls',
        issuerRef: { kind: 'Issuer', name: 'cozystack-gateway' },
        dnsNames: [
          'example.org',
          '*.example.org',
          'b.example.org',
          '*.b.example.org',
          'customer1.io',
          '*.customer1.io',
        ],
      },
    });
    expect(s.changes()[0].reasons).toEqual([
      'wildcard certificate for example.org and *.example.org plus 2 child apexes (dns01)',
    ]);
  });

  test('a new child apex extends the SANs of the owned Certificate in place', () => {
    const s = new Store();
    reconcileWildcardCertificate(s, dns01(), []);
    const s2 = new Store(s.all());
    reconcileWildcardCertificate(s2, dns01(), ['alice.example.org']);
    expect((get(s2, 'Certificate', 'cozystack-gateway-tls')!.spec as any).dnsNames).toHaveLength(4);
    expect(s2.changes().map((c) => c.op)).toEqual(['update']);
  });

  test.each([
    ['http01', http01()],
    ['existingSecret', existingSecret()],
    ['edge', edge()],
  ])('%s deletes an owned wildcard Certificate, never its Secret', (mode, t) => {
    const s = new Store();
    reconcileWildcardCertificate(s, dns01(), []);
    const s2 = new Store([...s.all(), tlsSecret('cozystack-gateway-tls')]);
    reconcileWildcardCertificate(s2, t, []);
    expect(get(s2, 'Certificate', 'cozystack-gateway-tls')).toBeUndefined();
    expect(s2.get('', 'Secret', NS, 'cozystack-gateway-tls')).toBeDefined();
    expect(s2.changes()).toEqual([
      expect.objectContaining({
        op: 'delete',
        reasons: [`garbage-collected: mode switched to ${mode}, which has no wildcard certificate`],
      }),
    ]);
  });

  test('other modes leave an unowned Certificate of that name alone; dns01 refuses to take it over', () => {
    const foreign = cert('cozystack-gateway-tls', ['example.org'], { labels: MANAGED });
    for (const t of [http01(), existingSecret(), edge()]) {
      const s = new Store([foreign]);
      reconcileWildcardCertificate(s, t, []);
      expect(s.changes()).toEqual([]);
    }
    const s = new Store([foreign]);
    expect(() => reconcileWildcardCertificate(s, dns01(), [])).toThrow(
      'Certificate tenant-root/cozystack-gateway-tls exists and is not owned by TenantGateway cozystack; refusing to take it over',
    );
    expect(get(s, 'Certificate', 'cozystack-gateway-tls')).toEqual(foreign);
  });

  test('an empty apex is a ReconcileError', () => {
    expect(() => reconcileWildcardCertificate(new Store(), dns01({ apex: '' }), [])).toThrow(/spec\.apex is empty/);
  });
});

describe('per-listener Certificates', () => {
  test('http01: one Certificate per served hostname, named <tgw>-<fl>-<hex8>-tls, dnsNames exactly the hostname', () => {
    const s = new Store();
    reconcilePerListenerCertificates(s, http01(), [
      'harbor.foo.example.com',
      'grafana.example.org',
      'harbor.foo.example.com',
      '',
    ]);
    expect(s.list('cert-manager.io', 'Certificate', NS).map((c) => c.metadata.name)).toEqual([
      'cozystack-grafana-ba6dd572-tls',
      'cozystack-harbor-760d5a8a-tls',
    ]);
    expect(get(s, 'Certificate', 'cozystack-harbor-760d5a8a-tls')).toEqual({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: {
        name: 'cozystack-harbor-760d5a8a-tls',
        namespace: NS,
        labels: { ...MANAGED, 'cozystack.io/tenantgateway': 'cozystack', 'cozystack.io/per-listener-cert': 'true' },
        ownerReferences: [OWNER],
      },
      spec: {
        secretName: 'cozystack-harbor-760d5a8a-tls',
        issuerRef: { kind: 'Issuer', name: 'cozystack-gateway' },
        dnsNames: ['harbor.foo.example.com'],
      },
    });
    const reasons = s.changes().flatMap((c) => c.reasons);
    expect(reasons).toContain('per-listener certificate for harbor.foo.example.com (http01)');
  });

  test('http01 GC: an owned Certificate no route wants is deleted, its Secret kept; wanted, unowned, wildcard and unlabelled ones stay', () => {
    const gone = perListenerCert('old.example.org');
    const kept = perListenerCert('keep.example.org');
    const unowned = perListenerCert('foreign.example.org', { ownerReferences: [{ ...OWNER, uid: 'other-uid' }] });
    const wildcard = cert('cozystack-gateway-tls', ['example.org'], { labels: MANAGED, ownerReferences: [OWNER] });
    const unlabelled = cert('cozystack-x-00000000-tls', ['x.example.org'], { ownerReferences: [OWNER] });
    const secret = tlsSecret(gone.metadata.name);
    const s = new Store([gone, kept, unowned, wildcard, unlabelled, secret]);
    reconcilePerListenerCertificates(s, http01(), ['keep.example.org']);
    expect(get(s, 'Certificate', gone.metadata.name)).toBeUndefined();
    for (const o of [kept, unowned, wildcard, unlabelled]) expect(get(s, 'Certificate', o.metadata.name)).toEqual(o);
    expect(s.get('', 'Secret', NS, secret.metadata.name)).toEqual(secret);
    expect(s.changes()).toEqual([
      expect.objectContaining({
        op: 'delete',
        ref: expect.objectContaining({ name: gone.metadata.name }),
        reasons: ['garbage-collected: no route claims old.example.org any more'],
      }),
    ]);
  });

  test('GC in another namespace never happens', () => {
    const elsewhere = {
      ...perListenerCert('old.example.org'),
      metadata: { ...perListenerCert('old.example.org').metadata, namespace: 'tenant-other' },
    };
    const s = new Store([elsewhere]);
    reconcilePerListenerCertificates(s, dns01(), []);
    expect(s.changes()).toEqual([]);
  });

  test.each([
    ['dns01', dns01()],
    ['existingSecret', existingSecret()],
    ['edge', edge()],
  ])('%s garbage-collects every owned per-listener Certificate and ignores served hostnames', (mode, t) => {
    const s = new Store([
      perListenerCert('a.example.org'),
      perListenerCert('b.example.org'),
      tlsSecret(perListenerCert('a.example.org').metadata.name),
    ]);
    reconcilePerListenerCertificates(s, t, ['a.example.org']);
    expect(s.list('cert-manager.io', 'Certificate', NS)).toEqual([]);
    expect(s.list('', 'Secret', NS)).toHaveLength(1);
    expect(s.changes().map((c) => c.reasons)).toEqual([
      [`garbage-collected: mode switched to ${mode}, which has no per-listener certificates`],
      [`garbage-collected: mode switched to ${mode}, which has no per-listener certificates`],
    ]);
  });

  test('takeover guard: an unowned Certificate with a wanted name fails the pass before anything is written', () => {
    const foreign = cert(perAppCertificateName('cozystack', 'b.example.org'), ['b.example.org']);
    const stale = perListenerCert('old.example.org');
    const s = new Store([foreign, stale]);
    expect(() => reconcilePerListenerCertificates(s, http01(), ['a.example.org', 'b.example.org'])).toThrow(
      `Certificate tenant-root/${foreign.metadata.name} exists and is not owned by TenantGateway cozystack; refusing to take it over`,
    );
    expect(s.changes()).toEqual([]);
  });

  test('without a uid: created with both labels and no ownerReference; recognised by labels for GC', () => {
    const noUid = (mode: string) => tgw({ certMode: mode, dns01: CLOUDFLARE }, { uid: null });
    const s = new Store();
    reconcilePerListenerCertificates(s, noUid('http01'), ['a.example.org']);
    const c = get(s, 'Certificate', perAppCertificateName('cozystack', 'a.example.org'))!;
    expect(c.metadata.ownerReferences).toBeUndefined();
    const foreignNoTgwLabel = cert('cozystack-z-11111111-tls', ['z.example.org'], { labels: MANAGED });
    const s2 = new Store([...s.all(), foreignNoTgwLabel]);
    reconcilePerListenerCertificates(s2, noUid('dns01'), []);
    expect(get(s2, 'Certificate', c.metadata.name)).toBeUndefined();
    expect(get(s2, 'Certificate', foreignNoTgwLabel.metadata.name)).toEqual(foreignNoTgwLabel);
  });

  test('an owned Certificate still wanted is updated in place when its spec drifted', () => {
    const drifted = perListenerCert('a.example.org');
    (drifted.spec as any).dnsNames = ['wrong.example.org'];
    drifted.status = { conditions: [{ type: 'Ready', status: 'True' }] };
    const s = new Store([drifted]);
    reconcilePerListenerCertificates(s, http01(), ['a.example.org']);
    const now = get(s, 'Certificate', drifted.metadata.name)!;
    expect((now.spec as any).dnsNames).toEqual(['a.example.org']);
    expect(now.status).toEqual(drifted.status);
    expect(s.changes().map((c) => c.op)).toEqual(['update']);
  });
});

describe('mode switches over the whole ACME pass', () => {
  const acmeKinds = (s: Store) =>
    [
      ...s.list('cert-manager.io', 'Issuer', NS),
      ...s.list('cert-manager.io', 'Certificate', NS),
      ...s.list('gateway.networking.k8s.io', 'HTTPRoute', NS),
    ].map((o) => `${o.kind}/${o.metadata.name}`);

  const modes: Record<string, () => KObject> = { http01: () => http01(), dns01: () => dns01(), existingSecret, edge };
  const expected: Record<string, string[]> = {
    http01: [
      'Issuer/cozystack-gateway',
      'Certificate/cozystack-harbor-91fb3185-tls',
      'HTTPRoute/cozystack-http-redirect',
    ],
    dns01: ['Issuer/cozystack-gateway', 'Certificate/cozystack-gateway-tls', 'HTTPRoute/cozystack-http-redirect'],
    existingSecret: ['HTTPRoute/cozystack-http-redirect'],
    edge: [],
  };
  const secrets = ['cozystack-acme-account', 'cozystack-gateway-tls', 'cozystack-harbor-91fb3185-tls'].map(tlsSecret);

  const transitions: Array<[string, string]> = [];
  for (const a of Object.keys(modes)) for (const b of Object.keys(modes)) transitions.push([a, b]);

  test.each(transitions)('%s -> %s leaves exactly the objects of the new mode, and every Secret', (a, b) => {
    const first = pass(new Store(secrets), modes[a](), ['harbor.example.org']);
    expect(acmeKinds(first).sort()).toEqual([...expected[a]].sort());
    const second = pass(new Store(first.all()), modes[b](), ['harbor.example.org']);
    expect(acmeKinds(second).sort()).toEqual([...expected[b]].sort());
    expect(second.list('', 'Secret', NS)).toEqual(secrets);
    // a second pass in the same mode changes nothing
    const third = pass(new Store(second.all()), modes[b](), ['harbor.example.org']);
    expect(third.changes()).toEqual([]);
  });

  test('calling each function twice on one store records nothing new (idempotence)', () => {
    for (const m of Object.keys(modes)) {
      const s = pass(new Store(), modes[m](), ['a.example.org', 'b.example.org'], ['c.example.org']);
      const once = JSON.stringify({ c: s.changes(), o: s.all() });
      pass(s, modes[m](), ['a.example.org', 'b.example.org'], ['c.example.org']);
      expect(JSON.stringify({ c: s.changes(), o: s.all() })).toBe(once);
    }
  });

  test('property: any sequence of modes and served hostnames ends with the objects of the last step, Secrets untouched, unowned objects untouched', () => {
    const foreign = cert('cozystack-foreign-12345678-tls', ['foreign.example.org'], {
      labels: { ...MANAGED, 'cozystack.io/per-listener-cert': 'true' },
    });
    const host = fc.constantFrom('a.example.org', 'b.example.org', 'c.example.org', 'harbor.example.org');
    const step = fc.record({
      mode: fc.constantFrom(...Object.keys(modes)),
      served: fc.array(host, { maxLength: 4 }),
      uid: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 5 }), fc.boolean(), (steps, withUid) => {
        let objects: KObject[] = [...secrets, foreign];
        for (const st of steps) {
          const base = modes[st.mode]();
          const t = withUid ? base : { ...base, metadata: { ...base.metadata, uid: undefined } };
          objects = pass(new Store(objects), t, st.served).all();
        }
        const last = steps[steps.length - 1];
        const s = new Store(objects);
        const certs = s
          .list('cert-manager.io', 'Certificate', NS)
          .map((c) => c.metadata.name)
          .filter((n) => n !== foreign.metadata.name);
        const wantCerts =
          last.mode === 'http01'
            ? [...new Set(last.served)].map((h) => perAppCertificateName('cozystack', h))
            : last.mode === 'dns01'
              ? ['cozystack-gateway-tls']
              : [];
        expect(certs.sort()).toEqual(wantCerts.sort());
        expect(s.get('cert-manager.io', 'Issuer', NS, 'cozystack-gateway') !== undefined).toBe(
          last.mode === 'http01' || last.mode === 'dns01',
        );
        expect(s.get('gateway.networking.k8s.io', 'HTTPRoute', NS, 'cozystack-http-redirect') !== undefined).toBe(
          last.mode !== 'edge',
        );
        expect(s.list('', 'Secret', NS)).toEqual(secrets);
        expect(s.get('cert-manager.io', 'Certificate', NS, foreign.metadata.name)).toEqual(foreign);
      }),
      { numRuns: 150 },
    );
  });
});
