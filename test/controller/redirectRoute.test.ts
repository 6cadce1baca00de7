/**
 * The controller-owned http-to-https redirect HTTPRoute (docs/behaviour.md §5.5; docs/decisions.md §5;
 * docs/behaviour.md §5.12: edge renders no redirect).
 */
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { ReconcileError } from '../../src/controller/errors';
import { reconcileRedirectRoute, redirectRouteSpec } from '../../src/controller/redirectRoute';

const NS = 'tenant-root';
const UID = '5f1c2a7e-0b9d-4c3e-8a61-2d7f4e9b1c05';
const OWNER = {
  apiVersion: 'gateway.cozystack.io/v1alpha1',
  kind: 'TenantGateway',
  name: 'cozystack',
  uid: UID,
  controller: true,
  blockOwnerDeletion: true,
};
const LABELS = { 'cozystack.io/managed-by': 'cozystack-controller', 'cozystack.io/tenantgateway': 'cozystack' };
const G = 'gateway.networking.k8s.io';
const NAME = 'cozystack-http-redirect';

function tgw(certMode: string | undefined, opts: { uid?: boolean; apex?: string } = {}): KObject {
  const md: KObject['metadata'] = { name: 'cozystack', namespace: NS };
  if (opts.uid !== false) md.uid = UID;
  const spec: Record<string, unknown> = { apex: opts.apex ?? 'example.org' };
  if (certMode !== undefined) spec.certMode = certMode;
  return { apiVersion: 'gateway.cozystack.io/v1alpha1', kind: 'TenantGateway', metadata: md, spec };
}

const expectedSpec = {
  parentRefs: [{ group: G, kind: 'Gateway', name: 'cozystack', sectionName: 'http' }],
  hostnames: ['example.org', '*.example.org'],
  rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }] }],
};

const route = (s: Store) => s.get(G, 'HTTPRoute', NS, NAME);

describe('redirect route', () => {
  test.each([['http01'], ['dns01'], ['existingSecret'], [undefined]])(
    'certMode %s renders <tgw>-http-redirect',
    (mode) => {
      const s = new Store();
      reconcileRedirectRoute(s, tgw(mode));
      expect(route(s)).toEqual({
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: NAME, namespace: NS, labels: LABELS, ownerReferences: [OWNER] },
        spec: expectedSpec,
      });
      expect(s.changes()).toEqual([
        expect.objectContaining({
          op: 'create',
          reasons: ['http-to-https redirect (301) for example.org and *.example.org'],
        }),
      ]);
    },
  );

  test('it selects section http with no namespace and names the apex and its wildcard (docs/decisions.md §5)', () => {
    const spec = redirectRouteSpec(tgw('http01', { apex: 'alice.example.org' })) as typeof expectedSpec;
    expect(spec.parentRefs).toHaveLength(1);
    expect(spec.parentRefs[0]).not.toHaveProperty('namespace');
    expect(spec.parentRefs[0]).not.toHaveProperty('port');
    expect(spec.hostnames).toEqual(['alice.example.org', '*.alice.example.org']);
  });

  test('edge deletes an owned redirect', () => {
    const s = new Store();
    reconcileRedirectRoute(s, tgw('http01'));
    const s2 = new Store(s.all());
    reconcileRedirectRoute(s2, tgw('edge'));
    expect(route(s2)).toBeUndefined();
    expect(s2.changes()).toEqual([
      expect.objectContaining({
        op: 'delete',
        reasons: ['garbage-collected: mode switched to edge, which redirects at the edge'],
      }),
    ]);
  });

  test('edge -> http01 brings the redirect back', () => {
    const s = new Store();
    reconcileRedirectRoute(s, tgw('edge'));
    expect(route(s)).toBeUndefined();
    reconcileRedirectRoute(s, tgw('http01'));
    expect(route(s)!.spec).toEqual(expectedSpec);
  });

  test('edge never deletes an unowned route of that name', () => {
    const foreign: KObject = {
      apiVersion: `${G}/v1`,
      kind: 'HTTPRoute',
      metadata: { name: NAME, namespace: NS },
      spec: { hostnames: ['x.example.org'] },
    };
    const s = new Store([foreign]);
    reconcileRedirectRoute(s, tgw('edge'));
    expect(route(s)).toEqual(foreign);
    expect(s.changes()).toEqual([]);
  });

  test('takeover guard: an unowned route of the derived name fails the pass and is not touched', () => {
    const foreigners: KObject[] = [
      { apiVersion: `${G}/v1`, kind: 'HTTPRoute', metadata: { name: NAME, namespace: NS }, spec: {} },
      {
        apiVersion: `${G}/v1`,
        kind: 'HTTPRoute',
        metadata: { name: NAME, namespace: NS, ownerReferences: [{ ...OWNER, uid: 'someone-else' }] },
        spec: {},
      },
      {
        apiVersion: `${G}/v1`,
        kind: 'HTTPRoute',
        metadata: {
          name: NAME,
          namespace: NS,
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', controller: true }],
        },
        spec: {},
      },
    ];
    for (const f of foreigners) {
      const s = new Store([f]);
      let err: unknown;
      try {
        reconcileRedirectRoute(s, tgw('dns01'));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ReconcileError);
      expect((err as Error).message).toBe(
        'HTTPRoute tenant-root/cozystack-http-redirect exists and is not owned by TenantGateway cozystack; refusing to take it over',
      );
      expect(route(s)).toEqual(f);
    }
  });

  test('an owned route is updated spec-only: status, annotations, foreign labels and its apiVersion are kept', () => {
    const existing: KObject = {
      apiVersion: `${G}/v1beta1`,
      kind: 'HTTPRoute',
      metadata: { name: NAME, namespace: NS, labels: { team: 'x' }, annotations: { a: 'b' }, ownerReferences: [OWNER] },
      spec: { parentRefs: [{ name: 'cozystack' }] },
      status: { parents: [{ controllerName: 'io.cilium/gateway-controller', conditions: [] }] },
    };
    const s = new Store([existing]);
    reconcileRedirectRoute(s, tgw('http01'));
    expect(route(s)).toEqual({
      ...existing,
      metadata: { ...existing.metadata, labels: { team: 'x', ...LABELS } },
      spec: expectedSpec,
    });
  });

  test('an apex change rewrites the hostnames', () => {
    const s = new Store();
    reconcileRedirectRoute(s, tgw('http01'));
    const s2 = new Store(s.all());
    reconcileRedirectRoute(s2, tgw('http01', { apex: 'new.example.org' }));
    expect((route(s2)!.spec as typeof expectedSpec).hostnames).toEqual(['new.example.org', '*.new.example.org']);
    expect(s2.changes().map((c) => c.op)).toEqual(['update']);
  });

  test('idempotence: a second pass over the result writes nothing', () => {
    for (const mode of ['http01', 'dns01', 'existingSecret', 'edge']) {
      const s = new Store();
      reconcileRedirectRoute(s, tgw(mode));
      const s2 = new Store(s.all());
      reconcileRedirectRoute(s2, tgw(mode));
      expect(s2.changes()).toEqual([]);
    }
  });

  test('without a uid: no ownerReference, both labels; edge then deletes it by its labels', () => {
    const s = new Store();
    reconcileRedirectRoute(s, tgw('http01', { uid: false }));
    const r = route(s)!;
    expect(r.metadata.ownerReferences).toBeUndefined();
    expect(r.metadata.labels).toEqual(LABELS);
    const s2 = new Store(s.all());
    reconcileRedirectRoute(s2, tgw('edge', { uid: false }));
    expect(route(s2)).toBeUndefined();
    // a route carrying only managed-by is not this TenantGateway's
    const s3 = new Store([
      { ...r, metadata: { ...r.metadata, labels: { 'cozystack.io/managed-by': 'cozystack-controller' } } },
    ]);
    reconcileRedirectRoute(s3, tgw('edge', { uid: false }));
    expect(route(s3)).toBeDefined();
  });

  test('an unknown certMode and an empty apex are ReconcileErrors', () => {
    expect(() => reconcileRedirectRoute(new Store(), tgw('selfSigned'))).toThrow(/unsupported certMode "selfSigned"/);
    expect(() => reconcileRedirectRoute(new Store(), tgw('http01', { apex: '' }))).toThrow(/spec\.apex is empty/);
  });
});
