import { ReconcileError } from '../../src/controller/errors';
import { checkListeners, reconcileGateway, renderListeners, LISTENER_CAP } from '../../src/controller/gatewayRendering';
import { passthroughListenersOf } from '../../src/controller/hostnameClaims';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import { Store } from '../../src/k8s/store';
import { tgw } from './tgwFixtures';

const render = (spec: Record<string, unknown>, served: string[] = [], children: string[] = []) => {
  const v = viewOf(tgw(spec));
  return renderListeners(v, served, children, passthroughListenersOf(v));
};

describe('listeners (docs/behaviour.md §5.3)', () => {
  test('http01: http, per-app listeners in hostname order, tls-<svc>, then native-port entries', () => {
    const ls = render(
      {
        tlsPassthroughServices: ['api'],
        tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
      },
      ['harbor.foo.example.com', 'a.example.org'],
    );
    expect(ls.map((l) => l.name)).toEqual(['http', 'https-harbor-760d5a8a', 'https-a-8479b785', 'tls-api', 'tls-pg']);
    expect(ls[0]).toEqual({
      name: 'http',
      port: 80,
      protocol: 'HTTP',
      allowedRoutes: {
        namespaces: {
          from: 'Selector',
          selector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'In', values: ['tenant-root', 'cozy-cert-manager'] },
            ],
          },
        },
      },
    });
    expect(ls.map((l) => l.hostname)).toEqual([
      undefined,
      'harbor.foo.example.com',
      'a.example.org',
      'api.example.org',
      'pg.example.org',
    ]);
    expect(ls[1]).toEqual({
      name: 'https-harbor-760d5a8a',
      hostname: 'harbor.foo.example.com',
      port: 443,
      protocol: 'HTTPS',
      tls: { mode: 'Terminate', certificateRefs: [{ name: 'cozystack-harbor-760d5a8a-tls' }] },
      allowedRoutes: {
        namespaces: {
          from: 'Selector',
          selector: { matchLabels: { 'namespace.cozystack.io/gateway': 'tenant-root' } },
        },
        kinds: [
          { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' },
          { group: 'gateway.networking.k8s.io', kind: 'TLSRoute' },
        ],
      },
    });
    expect(ls[3]).toMatchObject({ name: 'tls-api', port: 443, protocol: 'TLS', tls: { mode: 'Passthrough' } });
    expect((ls[3].allowedRoutes as { kinds: unknown[] }).kinds).toHaveLength(2);
    expect(ls[4]).toEqual({
      name: 'tls-pg',
      hostname: 'pg.example.org',
      port: 5432,
      protocol: 'TLS',
      tls: { mode: 'Passthrough' },
      allowedRoutes: {
        namespaces: {
          from: 'Selector',
          selector: {
            matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['tenant-root'] }],
          },
        },
      },
    });
  });

  test('the http selector drops the duplicate when the TGW lives in cozy-cert-manager', () => {
    const v = viewOf(tgw({}, { namespace: 'cozy-cert-manager' }));
    const http = renderListeners(v, [], [], [])[0];
    expect(JSON.stringify(http)).toContain('"values":["cozy-cert-manager"]');
  });

  test('dns01 and existingSecret: https, https-apex, then a child listener per child apex, all on one certificate', () => {
    const dns = render(
      { certMode: 'dns01', tlsPassthroughServices: ['api'] },
      ['ignored.example.org'],
      ['alice.example.org'],
    );
    expect(dns.map((l) => [l.name, l.hostname])).toEqual([
      ['http', undefined],
      ['https', '*.example.org'],
      ['https-apex', 'example.org'],
      [dns[3].name, '*.alice.example.org'],
      ['tls-api', 'api.example.org'],
    ]);
    expect(dns[3].name).toMatch(/^https-child-alice-[0-9a-f]{8}$/);
    for (const l of dns.slice(1, 4))
      expect(l.tls).toEqual({ mode: 'Terminate', certificateRefs: [{ name: 'cozystack-gateway-tls' }] });
    const es = render({ certMode: 'existingSecret', wildcardSecretRef: { name: 'wild' } });
    expect(es[1].tls).toEqual({ mode: 'Terminate', certificateRefs: [{ name: 'wild' }] });
    expect(() => render({ certMode: 'existingSecret' })).toThrow(ReconcileError);
  });

  test('edge: edge, edge-apex and edge-child-* on port 80 without TLS, kinds [HTTPRoute]; no http and no passthrough', () => {
    const ls = render({ certMode: 'edge', tlsPassthroughServices: ['api'] }, [], ['alice.example.org']);
    expect(ls.map((l) => l.name)).toEqual(['edge', 'edge-apex', ls[2].name]);
    expect(ls[2].name).toMatch(/^edge-child-alice-[0-9a-f]{8}$/);
    for (const l of ls) {
      expect(l).toMatchObject({ port: 80, protocol: 'HTTP' });
      expect(l.tls).toBeUndefined();
      expect((l.allowedRoutes as { kinds: unknown }).kinds).toEqual([
        { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' },
      ]);
    }
  });
});

describe('before the write', () => {
  test('more than 64 listeners fails naming the count, the cap and dns01', () => {
    const v = viewOf(tgw({}));
    const hosts = Array.from({ length: 64 }, (_, i) => `h${i}.example.org`);
    const ls = renderListeners(v, hosts, [], []);
    expect(ls).toHaveLength(65);
    expect(() => checkListeners(v, ls)).toThrow(/65 listeners, over the Gateway API budget of 64.*dns01/);
    expect(() => checkListeners(v, ls.slice(0, LISTENER_CAP))).not.toThrow();
  });

  test('a mixed-case apex composes hostnames the Gateway CRD refuses: the write is refused', () => {
    const v = viewOf(tgw({ certMode: 'dns01', apex: 'Example.org' }));
    expect(() => checkListeners(v, renderListeners(v, [], [], []))).toThrow(
      /hostname "\*\.Example\.org" is not a lowercase DNS name/,
    );
  });
});

describe('the Gateway write (docs/behaviour.md §5.2)', () => {
  test('a TenantGateway without a uid: no ownerReference, ownership by the controller labels (docs/decisions.md §4)', () => {
    const t = tgw({});
    delete (t.metadata as { uid?: string }).uid;
    const v = viewOf(t);
    const gw = reconcileGateway(new Store([]), v, renderListeners(v, [], [], []));
    expect(gw.metadata.ownerReferences).toBeUndefined();
    expect(gw.metadata.labels).toMatchObject({
      'cozystack.io/managed-by': 'cozystack-controller',
      'cozystack.io/tenantgateway': 'cozystack',
    });
  });

  test('class default, labels, owner reference; foreign labels and status kept on update', () => {
    const v = viewOf(tgw({ gatewayClassName: '' }));
    const store = new Store([]);
    const gw = reconcileGateway(store, v, renderListeners(v, [], [], []));
    expect(gw.spec).toMatchObject({ gatewayClassName: 'cilium' });
    // With a uid the Gateway carries exactly the upstream labels (docs/behaviour.md §5.2).
    expect(gw.metadata.labels).toEqual({
      'cozystack.io/managed-by': 'cozystack-controller',
      'cozystack.io/gateway': 'tenant-root',
    });
    expect(gw.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'gateway.cozystack.io/v1alpha1',
        kind: 'TenantGateway',
        name: 'cozystack',
        uid: 'uid-root',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const live = {
      ...gw,
      metadata: { ...gw.metadata, labels: { ...gw.metadata.labels, foreign: 'x' } },
      status: { conditions: [] },
    };
    const store2 = new Store([live]);
    const v2 = viewOf(tgw({ gatewayClassName: 'other' }));
    const gw2 = reconcileGateway(store2, v2, renderListeners(v2, [], [], []));
    expect(gw2.metadata.labels?.foreign).toBe('x');
    expect(gw2.status).toEqual({ conditions: [] });
    expect(gw2.spec).toMatchObject({ gatewayClassName: 'other' });
  });

  test('an existing Gateway the TenantGateway does not own stops the pass', () => {
    const v = viewOf(tgw({}));
    const store = new Store([
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: 'cozystack', namespace: 'tenant-root' },
        spec: {},
      },
    ]);
    expect(() => reconcileGateway(store, v, renderListeners(v, [], [], []))).toThrow(
      /not owned by TenantGateway cozystack/,
    );
  });
});
