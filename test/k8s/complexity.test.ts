/**
 * Regression guard for the cost of a reconcile pass (docs/performance.md), without any timing: the pure core
 * runs over generated platforms of size n and 4n (bench/generate.js) while the Store's read
 * boundary is counted — every get(), every list() and every object a list() hands back. A pass
 * that stays linear in tenants and routes does about 4x the work on 4x the input; a step that is
 * quadratic (a list of every route per Gateway, a scan of every namespace per tenant) does about
 * 16x and fails here.
 *
 * The counts are the Store's own work counters (Store.stats in src/k8s/store.ts: three increments,
 * nothing else on the hot path), read before and after one run.
 */
import { generate } from '../../bench/generate.js';
import { ciliumHazards } from '../../src/controller/ciliumHazards';
import { SHIPPED_CILIUM_VERSION } from '../../src/controller/ciliumVersion';
import { runTenantGatewayController } from '../../src/controller/tenantGatewayController';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { reconcileWildcardSecrets } from '../../src/controller/wildcardSecrets';
import { wildcardChannel } from '../../src/pipelines/platformChannel';

interface Work {
  gets: number;
  lists: number;
  listed: number;
  total: number;
}

/** Run `fn` with the Store's get/list counted. */
function counted(store: Store, fn: () => void): Work {
  const storeStats = store.stats;
  const before = { ...storeStats };
  fn();
  const w: Work = {
    gets: storeStats.gets - before.gets,
    lists: storeStats.lists - before.lists,
    listed: storeStats.listed - before.listed,
    total: 0,
  };
  w.total = w.gets + w.lists + w.listed;
  return w;
}

type Phase = 'controller' | 'wildcard' | 'hazards';

/**
 * The three steps of src/pipelines/reconcile.ts, each counted on its own so a failure names the culprit.
 * The platform values name a wildcard Secret (and the snapshot holds its source) so that the
 * replication step has targets to walk.
 */
function reconcileWork(tops: number): { work: Record<Phase, Work>; objects: number } {
  const g = generate('S', 99, { tops });
  const values = JSON.parse(JSON.stringify(g.values));
  values.publishing.certificates.wildcardSecretName = 'wildcard-tls';
  const source = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name: 'wildcard-tls', namespace: 'tenant-root' },
    data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' },
  };
  const objects = [...g.snapshot, source] as KObject[];
  const valuesFiles = [{ file: 'values.yaml', values }];
  const store = new Store(objects);
  const controller = counted(store, () => {
    expect(
      runTenantGatewayController(store, { now: '2026-01-01T00:00:00Z' }).findings.filter((f) => f.severity === 'error'),
    ).toEqual([]);
  });
  // the pass did its job: every TenantGateway got a Gateway
  expect(store.list('gateway.networking.k8s.io', 'Gateway').length).toBe(g.meta.tenantGateways);
  const ch = wildcardChannel(objects, valuesFiles);
  const wildcard = counted(store, () => {
    reconcileWildcardSecrets(store, ch.channel);
  });
  expect(store.list('', 'Secret').length).toBeGreaterThan(tops);
  const hazards = counted(store, () => {
    ciliumHazards(store, SHIPPED_CILIUM_VERSION);
  });
  return { work: { controller, wildcard, hazards }, objects: objects.length };
}

/** Work per input object at 4n over work per input object at n: 1 is linear, 4 is quadratic. */
function growth(small: Work, smallN: number, big: Work, bigN: number, k: keyof Work): number {
  return big[k] / bigN / (small[k] / smallN);
}

describe('reconcile: Store work grows linearly with the platform', () => {
  const small = reconcileWork(6);
  const big = reconcileWork(24);
  const g = (phase: Phase, k: keyof Work) => growth(small.work[phase], small.objects, big.work[phase], big.objects, k);

  test('the counter sees the pass', () => {
    expect(big.objects / small.objects).toBeGreaterThan(3.5);
    expect(small.work.controller.gets).toBeGreaterThan(0);
    expect(small.work.controller.lists).toBeGreaterThan(0);
    expect(small.work.wildcard.lists).toBeGreaterThan(0);
    expect(small.work.hazards.lists).toBeGreaterThan(0);
  });

  test.each(['controller', 'wildcard'] as Phase[])(
    '%s: gets, lists and objects listed per input object stay flat from n to 4n',
    (phase) => {
      expect({
        gets: g(phase, 'gets') < 1.5,
        lists: g(phase, 'lists') < 1.5,
        listed: g(phase, 'listed') < 1.5,
      }).toEqual({ gets: true, lists: true, listed: true });
    },
  );

  // Was quadratic (found in a profile): routedPassthrough listed every TLSRoute of the cluster for
  // each Gateway; the routes are now indexed by the Gateway they name, once per call.
  test('hazards: objects listed per input object stay flat from n to 4n', () => {
    expect(g('hazards', 'listed')).toBeLessThan(1.5);
  });
});

describe('the guard itself', () => {
  test('a quadratic step (a list of every route per Gateway) is caught', () => {
    const quadratic = (tops: number) => {
      const g = generate('S', 99, { tops });
      const store = new Store(g.snapshot);
      const work = counted(store, () => {
        for (const t of store.list('gateway.cozystack.io', 'TenantGateway')) {
          store.get('gateway.cozystack.io', 'TenantGateway', t.metadata.namespace, t.metadata.name);
          store.list('gateway.networking.k8s.io', 'HTTPRoute');
        }
      });
      return { work, objects: g.snapshot.length };
    };
    const a = quadratic(6);
    const b = quadratic(24);
    expect(growth(a.work, a.objects, b.work, b.objects, 'listed')).toBeGreaterThan(3);
  });
});
