import { runTenantGatewayController } from '../../src/controller/tenantGatewayController';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { LATER, NOW, acceptedOf, baseNamespaces, http, liveStatus, tgw } from './tgwFixtures';

const TGW = (s: Store, ns = 'tenant-root') => s.get('gateway.cozystack.io', 'TenantGateway', ns, 'cozystack')!;
const GW = (s: Store, ns = 'tenant-root') => s.get('gateway.networking.k8s.io', 'Gateway', ns, 'cozystack');
const ready = (o: KObject) =>
  ((o.status as { conditions: Record<string, unknown>[] }).conditions ?? []).find((c) => c.type === 'Ready')!;

describe('runTenantGatewayController (docs/behaviour.md §5.1)', () => {
  test('a full http01 pass: labels, Gateway, certificates, route status, redirect, status', () => {
    const store = new Store([
      tgw({ attachedNamespaces: ['cozy-harbor'] }),
      ...baseNamespaces(),
      http('cozy-harbor', 'harbor', ['harbor.example.org']),
    ]);
    const findings = runTenantGatewayController(store, { now: NOW }).findings;
    expect(findings).toEqual([]);
    const gw = GW(store)!;
    expect((gw.spec as { listeners: { name: string }[] }).listeners.map((l) => l.name)).toEqual([
      'http',
      'https-harbor-91fb3185',
    ]);
    expect(store.get('cert-manager.io', 'Certificate', 'tenant-root', 'cozystack-harbor-91fb3185-tls')).toBeDefined();
    expect(store.get('gateway.networking.k8s.io', 'HTTPRoute', 'tenant-root', 'cozystack-http-redirect')).toBeDefined();
    expect(acceptedOf(store.get('gateway.networking.k8s.io', 'HTTPRoute', 'cozy-harbor', 'harbor'))).toMatchObject({
      status: 'True',
    });
    const t = TGW(store);
    expect(t.status).toMatchObject({
      observedGeneration: 1,
      listeners: [{ name: 'http' }, { name: 'https-harbor-91fb3185' }],
    });
    expect(ready(t)).toMatchObject({ status: 'False', reason: 'GatewayNotAccepted', lastTransitionTime: NOW });
  });

  test('once the live Gateway is programmed the TenantGateway reads Ready=True', () => {
    const first = new Store([tgw({}), ...baseNamespaces()]);
    runTenantGatewayController(first, { now: NOW });
    const live = { ...GW(first)!, status: liveStatus(['http']) };
    const second = new Store([...first.all().filter((o) => o.kind !== 'Gateway'), live]);
    runTenantGatewayController(second, { now: LATER });
    expect(ready(TGW(second))).toMatchObject({ status: 'True', reason: 'Reconciled', lastTransitionTime: LATER });
    expect((TGW(second).status as { listeners: unknown[] }).listeners).toEqual([{ name: 'http', ready: true }]);
  });

  test('a validation error stops the pass: Ready=False ReconcileError, listener entries kept, nothing rendered, a warning', () => {
    const old = tgw({ tlsPassthroughServices: ['api', 'api'] }, { generation: 4 });
    old.status = { listeners: [{ name: 'http', ready: true }] };
    const store = new Store([old, ...baseNamespaces()]);
    const findings = runTenantGatewayController(store, { now: NOW }).findings;
    expect(GW(store)).toBeUndefined();
    const t = TGW(store);
    expect(ready(t)).toMatchObject({
      status: 'False',
      reason: 'ReconcileError',
      observedGeneration: 4,
      message: expect.stringMatching(/"api" is repeated/),
    });
    expect(t.status).toMatchObject({ observedGeneration: 4, listeners: [{ name: 'http', ready: true }] });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      severity: 'warning',
      object: { kind: 'TenantGateway', namespace: 'tenant-root', name: 'cozystack' },
    });
    // Namespaces were not labelled (the pass stopped before step 3).
    expect(store.get('', 'Namespace', undefined, 'tenant-root')!.metadata.annotations).toBeUndefined();
  });

  test('the listener budget is counted before the Gateway is written', () => {
    const hosts = Array.from({ length: 64 }, (_, i) => `h${i}.example.org`);
    const store = new Store([tgw({}), ...baseNamespaces(), http('tenant-root', 'many', hosts)]);
    runTenantGatewayController(store, { now: NOW });
    expect(GW(store)).toBeUndefined();
    expect(ready(TGW(store)).message).toMatch(/65 listeners.*64/);
  });

  test('the namespace-contest loser says so in its Ready message and does not relabel', () => {
    const store = new Store([
      tgw({ attachedNamespaces: ['cozy-harbor'] }),
      tgw({ apex: 'bob.example.org', attachedNamespaces: ['cozy-harbor'] }, { namespace: 'tenant-bob', uid: 'ub' }),
      ...baseNamespaces(),
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'tenant-bob', labels: { 'namespace.cozystack.io/host': 'bob.example.org' } },
      },
    ]);
    const findings = runTenantGatewayController(store, { now: NOW }).findings;
    expect(
      store.get('', 'Namespace', undefined, 'cozy-harbor')!.metadata.labels?.['namespace.cozystack.io/gateway'],
    ).toBe('tenant-root');
    expect(ready(TGW(store, 'tenant-bob')).message).toMatch(
      /cozy-harbor is attached to the TenantGateway in tenant-root/,
    );
    expect(findings.map((f) => f.rule)).toEqual(['tenantgateway.attached-namespace-contest']);
  });

  test('a second pass over the result changes nothing', () => {
    const store = new Store([
      tgw({ attachedNamespaces: ['cozy-harbor'], tlsPassthroughServices: ['api'] }),
      ...baseNamespaces(),
      http('cozy-harbor', 'harbor', ['harbor.example.org', 'api.example.org']),
      http('tenant-alice', 'x', ['harbor.example.org', '*.alice.example.org']),
    ]);
    runTenantGatewayController(store, { now: NOW });
    const again = new Store(store.all());
    runTenantGatewayController(again, { now: LATER });
    expect(again.changes()).toEqual([]);
  });
});
