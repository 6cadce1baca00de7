/**
 * fn writes the objects it adds tenant by tenant (ARCHITECTURE.md "Rules of the house", Deterministic output;
 * src/pipelines/generate.ts generateGroups): each tenant's as they are rendered, so that it
 * never holds the whole tree's objects at once.
 */
import { compareObjects, keyOf, type KObject } from '../../src/k8s/model';
import {
  GENERATED_ANNOTATION,
  processResourceList,
  processResourceListStream,
  processResourceListText,
} from '../../src/protocols/krm';
import { render, renderedKeys, renderGroups } from '../../src/pipelines/render';

const OPTS = { defaultNow: '2026-01-01T00:00:00Z' };
const VALUES = { publishing: { host: 'example.org' }, gateway: { enabled: true } };
const config = {
  apiVersion: 'fn.cozystack.io/v1alpha1',
  kind: 'CozyGateway',
  metadata: { name: 'cfg' },
  spec: { values: VALUES },
};

function tenant(name: string, namespace = 'tenant-root', spec: Record<string, unknown> = {}): KObject {
  return { apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name, namespace }, spec };
}

/** Given out of walk order: the walk renders tenant-root's children by name, then the others by parent namespace. */
const TENANTS = () => [
  tenant('carol', 'tenant-alice'),
  tenant('bob', 'tenant-root', { gateway: true }),
  tenant('root', 'tenant-root', { gateway: true }),
  tenant('alice'),
];
const rl = (items: unknown[]) => ({
  apiVersion: 'config.kubernetes.io/v1',
  kind: 'ResourceList',
  items,
  functionConfig: config,
});

describe('fn: the new items tenant by tenant', () => {
  test("each tenant's namespaced items are one run, the tenants in walk order, each by compareObjects, the admission policies last", () => {
    const { output, exitCode } = processResourceList(rl(TENANTS()), OPTS);
    expect(exitCode).toBe(0);
    const added = (output.items as KObject[]).slice(4);
    const at = (ns: string) => added.flatMap((o, i) => (o.metadata.namespace === ns ? [i] : []));
    const order = ['tenant-alice', 'tenant-bob', 'tenant-alice-carol'];
    for (const ns of order) {
      const idx = at(ns);
      expect(idx.length).toBeGreaterThan(3);
      // No other tenant's object between a tenant's first and last (its dashboard RoleBinding lives in cozy-public).
      const between = added.slice(idx[0], idx[idx.length - 1] + 1).filter((o) => o.metadata.namespace);
      expect(
        between.filter((o) => o.metadata.namespace !== ns).map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ).toEqual([`cozy-public/cozy:${ns}:dashboard`]);
      const own = idx.map((i) => added[i]);
      expect([...own].sort(compareObjects)).toEqual(own);
    }
    expect(order.map((ns) => at(ns)[0])).toEqual(order.map((ns) => at(ns)[0]).sort((a, b) => a - b));
    // tenant-root's (with cozystack-basics') first, bob's TenantGateway with bob's.
    expect(at('tenant-root')[at('tenant-root').length - 1]).toBeLessThan(at('tenant-alice')[0]);
    const gw = added.findIndex((o) => o.kind === 'TenantGateway' && o.metadata.namespace === 'tenant-bob');
    expect(gw).toBeGreaterThan(at('tenant-alice').pop()!);
    expect(gw).toBeLessThan(at('tenant-alice-carol')[0]);
    const policies = added.filter((o) => o.apiVersion.startsWith('admissionregistration.k8s.io/'));
    expect(policies.length).toBeGreaterThan(0);
    expect(added.slice(-policies.length)).toEqual([...policies].sort(compareObjects));
  });

  test('the items are made while they are written: the last tenant is rendered after the first items went out', () => {
    // A Tenant whose spec records, each time the render reads it, how many new items were taken.
    let taken = 0;
    const readsAt: number[] = [];
    const last = tenant('carol', 'tenant-alice');
    const spec = { host: 'carol.example.org' };
    Object.defineProperty(last, 'spec', {
      enumerable: true,
      get: () => {
        readsAt.push(taken);
        return spec;
      },
    });
    const run = processResourceListStream(rl([last, ...TENANTS().slice(1)]), OPTS);
    expect(run.exitCode).toBe(0);
    const before = readsAt.length;
    expect(before).toBeGreaterThan(0); // the first render, for the findings alone
    for (const { object, marks } of run.generated()) {
      // The render's own object, not a copy: its marks are written beside it (kptMarkedEntry).
      expect(marks[GENERATED_ANNOTATION]).toBe('true');
      expect(object.metadata.annotations?.[GENERATED_ANNOTATION]).toBeUndefined();
      taken++;
    }
    expect(taken).toBeGreaterThan(50);
    // The second render read the last Tenant only once items had been handed on: an fn that rendered
    // the whole tree before writing would have read it with none taken.
    expect(Math.max(...readsAt.slice(before))).toBeGreaterThan(0);
    expect(Math.max(...readsAt.slice(before))).toBeLessThan(taken);
  });

  test('a render failure is known before any item is made: the items go out as they came in', () => {
    const bad = tenant('Bad-Name');
    const run = processResourceListStream(rl([...TENANTS(), bad]), OPTS);
    expect(run.exitCode).toBe(1);
    expect([...run.generated()]).toEqual([]);
    expect(run.output.items).toHaveLength(5);
  });
});

describe("render's groups", () => {
  test('one group per release, then the policies: together, the objects render gives, in its chart order', () => {
    const input = { objects: TENANTS(), valuesFiles: [{ file: 'v.yaml', values: VALUES }] };
    const findings: never[] = [];
    const groups = [...renderGroups(input, {}, findings)];
    expect(groups.map((g) => g.release?.namespace)).toEqual([
      'tenant-root',
      'tenant-alice',
      'tenant-bob',
      'tenant-alice-carol',
      undefined,
    ]);
    expect(groups[2].gateway.map((o) => o.kind)).toEqual(['TenantGateway']);
    const chartOrder = [
      ...groups.flatMap((g) => (g.release ? g.objects : [])),
      ...groups.flatMap((g) => g.gateway),
      ...groups[groups.length - 1].objects,
    ];
    expect(render(input, { unordered: true }).objects).toEqual(chartOrder);
  });
});

describe('fn reads its input item by item', () => {
  test("an alias finds its anchor in an earlier item (the items' nodes are kept when one may)", () => {
    const text = [
      'apiVersion: config.kubernetes.io/v1',
      'kind: ResourceList',
      'items:',
      '- apiVersion: apps.cozystack.io/v1alpha1',
      '  kind: Tenant',
      '  metadata: {name: alice, namespace: tenant-root}',
      '  spec: &owns {gateway: true}',
      '- apiVersion: apps.cozystack.io/v1alpha1',
      '  kind: Tenant',
      '  metadata: {name: bob, namespace: tenant-root}',
      '  spec: *owns',
      'functionConfig:',
      '  apiVersion: fn.cozystack.io/v1alpha1',
      '  kind: CozyGateway',
      '  metadata: {name: cfg}',
      '  spec: {values: {publishing: {host: example.org}, gateway: {enabled: true}}}',
      '',
    ].join('\n');
    const run = processResourceListText(text, OPTS);
    expect(run.exitCode).toBe(0);
    const gateways = run.stdout.match(
      /^  kind: TenantGateway\n  metadata:\n    name: cozystack\n    namespace: (\S+)/gm,
    );
    expect(gateways?.map((g) => g.split(' ').pop())).toEqual(['tenant-alice', 'tenant-bob']);
  });

  test("renderedKeys: the keys of render's objects, without them; none when render fails", () => {
    const input = { objects: TENANTS(), valuesFiles: [{ file: 'v.yaml', values: VALUES }] };
    const keys = render(input).objects.map(keyOf);
    expect(keys.length).toBeGreaterThan(40);
    expect([...renderedKeys(input)].sort()).toEqual([...keys].sort());
    const failing = { ...input, objects: [...TENANTS(), tenant('Bad-Name')] };
    expect(render(failing).objects).toEqual([]);
    expect(renderedKeys(failing).size).toBe(0);
  });
});
