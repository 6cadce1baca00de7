/**
 * Invariants of the TenantGateway pass over generated snapshots: no Gateway over 64 listeners,
 * every listener name a valid SectionName, every claimed hostname served by a listener or refused
 * on the route naming it, determinism, and idempotence (a second pass changes nothing).
 */
import fc from 'fast-check';
import { isValidSectionName } from '../../src/k8s/dnsNames';
import { selectsPlainHttp } from '../../src/controller/hostnameClaims';
import { hostnamesOverlap } from '../../src/k8s/gatewayApi';
import { runTenantGatewayController } from '../../src/controller/tenantGatewayController';
import { clone, type KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { LATER, NOW, ns, route, tgw } from './tgwFixtures';

const CTRL = 'gateway.cozystack.io/tenantgateway-controller';
const NAMESPACES = [
  'tenant-root',
  'tenant-alice',
  'tenant-bob',
  'cozy-harbor',
  'cozy-dashboard',
  'cozy-cert-manager',
  'tenant-eve',
];
const HOSTS = [
  'a.example.org',
  'b.example.org',
  'api.example.org',
  'pg.example.org',
  '*.example.org',
  'x.alice.example.org',
  '*.alice.example.org',
  'example.org',
  'Bad_Name.example.org',
  'bob.example.org',
  'c.bob.example.org',
  ...Array.from({ length: 70 }, (_, i) => `h${i}.example.org`),
];
const REFS: Record<string, unknown>[] = [
  { name: 'cozystack', namespace: 'tenant-root' },
  { name: 'cozystack', namespace: 'tenant-root', sectionName: 'http' },
  { name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-api' },
  { name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-pg' },
  { name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-nope' },
  { name: 'cozystack', namespace: 'tenant-root', sectionName: 'https-whatever' },
  { name: 'cozystack', namespace: 'tenant-root', port: 80 },
  { name: 'cozystack', namespace: 'tenant-root', port: 443 },
  { name: 'cozystack', namespace: 'tenant-root', port: 8443 },
  { name: 'cozystack', namespace: 'tenant-root', port: 5432 },
  { name: 'cozystack', namespace: 'tenant-bob' },
  {
    group: 'gateway.networking.k8s.io',
    kind: 'Gateway',
    name: 'cozystack',
    namespace: 'tenant-bob',
    sectionName: 'http',
  },
];

const arbTgw = (namespace: string, apex: string) =>
  fc
    .record({
      certMode: fc.constantFrom('http01', 'http01', 'dns01', 'existingSecret', 'edge'),
      services: fc.subarray(['api', 'vm-exportproxy']),
      native: fc.boolean(),
      attached: fc.subarray(['cozy-harbor', 'cozy-dashboard', 'cozy-cert-manager', 'tenant-eve']),
    })
    .map((r) => {
      const spec: Record<string, unknown> = {
        apex,
        certMode: r.certMode,
        attachedNamespaces: r.attached,
        tlsPassthroughServices: r.services,
      };
      if (r.certMode === 'existingSecret') spec.wildcardSecretRef = { name: 'wild' };
      if (r.native && r.certMode !== 'edge')
        spec.tlsPassthroughListeners = [{ name: 'pg', port: 5432, hostname: `pg.${apex}` }];
      return tgw(spec, { namespace, uid: `uid-${namespace}` });
    });

const arbNamespace = (name: string) =>
  fc.record({ label: fc.constantFrom(undefined, 'tenant-root', 'tenant-bob'), annotated: fc.boolean() }).map((r) => {
    const labels: Record<string, string> = {};
    if (name === 'tenant-alice') labels['namespace.cozystack.io/host'] = 'alice.example.org';
    if (r.label) labels['namespace.cozystack.io/gateway'] = r.label;
    return ns(name, labels, r.annotated && r.label ? { 'cozystack.io/gateway-attached-by': r.label } : undefined);
  });

const arbRoute = fc
  .record({
    kind: fc.constantFrom('HTTPRoute', 'HTTPRoute', 'TLSRoute', 'GRPCRoute'),
    namespace: fc.constantFrom(...NAMESPACES),
    hostnames: fc.oneof(
      fc.constant(undefined),
      fc.uniqueArray(fc.constantFrom(...HOSTS), { maxLength: 5 }),
      fc.uniqueArray(fc.constantFrom(...HOSTS), { minLength: 40, maxLength: 70 }),
    ),
    refs: fc.uniqueArray(fc.constantFrom(...REFS), { minLength: 1, maxLength: 3 }),
  })
  .map((r) => r);

const arbSnapshot = fc
  .record({
    root: arbTgw('tenant-root', 'example.org'),
    bob: fc.option(arbTgw('tenant-bob', 'bob.example.org'), { nil: undefined }),
    namespaces: fc.tuple(...NAMESPACES.map(arbNamespace)),
    routes: fc.array(arbRoute, { maxLength: 12 }),
  })
  .map((s) => {
    const objs: KObject[] = [s.root, ...(s.bob ? [s.bob] : []), ...s.namespaces];
    s.routes.forEach((r, i) => objs.push(route(r.kind as 'HTTPRoute', r.namespace, `r${i}`, r.hostnames, r.refs)));
    return objs;
  });

function run(objs: KObject[], now = NOW): Store {
  const store = new Store(clone(objs));
  runTenantGatewayController(store, { now });
  return store;
}

describe('TenantGateway pass invariants', () => {
  test('budget, SectionNames, served-or-refused, determinism, idempotence', () => {
    fc.assert(
      fc.property(arbSnapshot, (objs) => {
        const store = run(objs);
        // Determinism.
        expect(JSON.stringify(run(objs).all())).toBe(JSON.stringify(store.all()));
        // Idempotence.
        const again = new Store(store.all());
        runTenantGatewayController(again, { now: LATER });
        expect(again.changes()).toEqual([]);

        for (const gw of store.list('gateway.networking.k8s.io', 'Gateway')) {
          const ls = (gw.spec as { listeners: { name: string; hostname?: string }[] }).listeners;
          expect(ls.length).toBeLessThanOrEqual(64);
          for (const l of ls) expect(isValidSectionName(l.name)).toBe(true);
        }

        // Every hostname a route claims on an http01 TenantGateway that reconciled is served by a
        // listener answering it, or the route's entry for that parentRef is Accepted=False naming it.
        for (const t of store.list('gateway.cozystack.io', 'TenantGateway')) {
          const tns = t.metadata.namespace!;
          const readyReason = (
            (t.status as { conditions: { type: string; reason: string }[] }).conditions.find(
              (c) => c.type === 'Ready',
            ) ?? {}
          ).reason;
          if ((t.spec as { certMode: string }).certMode !== 'http01' || readyReason === 'ReconcileError') continue;
          const gw = store.get('gateway.networking.k8s.io', 'Gateway', tns, 'cozystack')!;
          const ls = (gw.spec as { listeners: { hostname?: string }[] }).listeners;
          for (const kind of ['HTTPRoute', 'TLSRoute']) {
            for (const r of store.list('gateway.networking.k8s.io', kind)) {
              const parents = ((r.status as { parents?: Record<string, unknown>[] })?.parents ?? []).filter(
                (p) => p.controllerName === CTRL,
              );
              for (const p of parents) {
                const ref = p.parentRef as Record<string, unknown>;
                if ((ref.namespace ?? r.metadata.namespace) !== tns) continue;
                const cond = (p.conditions as Record<string, string>[]).find((c) => c.type === 'Accepted')!;
                const plain = selectsPlainHttp({
                  sectionName: ref.sectionName as string | undefined,
                  port: ref.port as number | undefined,
                });
                for (const h of (r.spec as { hostnames?: string[] }).hostnames ?? []) {
                  const answered = plain || ls.some((l) => l.hostname !== undefined && hostnamesOverlap(l.hostname, h));
                  if (cond.status === 'True') expect(answered).toBe(true);
                  else if (!answered && cond.reason !== 'NoMatchingParent' && cond.reason !== 'NotAllowedByListeners')
                    expect(cond.message).toContain(h);
                }
              }
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
