/**
 * The Tenants API's checks (docs/decisions.md §15, src/charts/tenantsApi.ts), each at and past its
 * boundary, through render (the pure core every rendering command calls): a Tenant the API would
 * refuse is an error at its field naming the rule and the numbers, and nothing renders.
 */
import { render } from '../../src/pipelines/render';
import type { Finding } from '../../src/k8s/diagnostics';
import type { KObject } from '../../src/k8s/model';
import { NAME_LIMIT } from '../../src/charts/tenantsApi';
import { parseQuantity, decimalText } from '../../src/k8s/quantity';

const tenant = (name: string, namespace: string, spec: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace },
  spec,
});
const VALUES = [{ file: 'values.yaml', values: { publishing: { host: 'example.org' } } }];
const run = (...tenants: KObject[]) => render({ objects: tenants, valuesFiles: VALUES });
const errors = (r: { findings: Finding[] }) =>
  r.findings.filter((f) => f.severity === 'error').map((f) => [f.rule, f.object?.name, f.field]);
const ok = (r: { objects: KObject[]; findings: Finding[] }) => {
  expect(errors(r)).toEqual([]);
  expect(r.objects.length).toBeGreaterThan(0);
};

describe('the name: at most 46 characters, at every depth', () => {
  const n = (len: number, c = 'a') => c.repeat(len);
  it('46 renders and 47 is refused at depth 1', () => {
    expect(NAME_LIMIT).toBe(46);
    ok(run(tenant(n(46), 'tenant-root')));
    const r = run(tenant(n(47), 'tenant-root'));
    expect(errors(r)).toEqual([['tenant.name-length', n(47), 'metadata.name']]);
    expect(r.findings[0].message).toMatch(/47 characters long: the Tenants API admits at most 46/);
    expect(r.objects).toEqual([]);
  });
  it('46 renders and 47 is refused at depth 3', () => {
    const parents = [tenant('a', 'tenant-root'), tenant('b', 'tenant-a')];
    ok(run(...parents, tenant(n(46, 'c'), 'tenant-a-b')));
    expect(errors(run(...parents, tenant(n(47, 'c'), 'tenant-a-b')))).toEqual([
      ['tenant.name-length', n(47, 'c'), 'metadata.name'],
    ]);
  });
});

describe('the computed namespace: at most 63 characters', () => {
  // tenant-<p>-<name>: a parent of 10 characters leaves the child 63 - 18 = 45 for 63 exactly.
  const parent = tenant('p'.repeat(10), 'tenant-root');
  const P = `tenant-${'p'.repeat(10)}`;
  it('63 renders, 64 is refused (names within 46 each)', () => {
    // (A host of its own: the inherited one, <name>.<parent's host>, would be too long a label value.)
    const host = { host: 'c.example.org' };
    ok(run(parent, tenant('c'.repeat(63 - P.length - 1), P, host)));
    const r = run(parent, tenant('c'.repeat(64 - P.length - 1), P, host));
    expect(errors(r)).toEqual([['tenant.namespace-name', 'c'.repeat(46), 'metadata.name']]);
    expect(r.findings.find((f) => f.rule === 'tenant.namespace-name')!.message).toMatch(/64 characters long/);
  });
});

describe('reserved top-level spec keys', () => {
  it('a top-level key starting with _ is refused (not merely an unknown key); a nested one is admitted', () => {
    const r = run(tenant('a', 'tenant-root', { _cluster: { 'cpu-allocation-ratio': '1' } }));
    expect(errors(r)).toEqual([['tenant.reserved-key', 'a', 'spec._cluster']]);
    expect(r.findings.filter((f) => f.rule === 'input.unknown-key')).toEqual([]);
    expect(r.findings[0].message).toMatch(/"_cluster" is reserved/);
    ok(run(tenant('a', 'tenant-root', { resourceQuotas: { _x: '1' } })));
  });
});

describe('quantities: what Kubernetes parses, not only what the chart pattern admits', () => {
  it.each(['1e1.5', '1e.5', '2E1.', '1e+1.0'])('%s (admitted by the chart pattern) is refused', (q) => {
    const r = run(tenant('a', 'tenant-root', { resourceQuotas: { cpu: q } }));
    expect(errors(r)).toEqual([['tenant.quantity', 'a', 'spec.resourceQuotas.cpu']]);
    expect(r.findings[0].message).toMatch(/is not a Kubernetes quantity/);
  });
  it.each(['1e3', '1E-3', '+2', '.5', '5.', '500m', '4Gi', '1n', '3u', '0'])('%s renders', (q) => {
    ok(run(tenant('a', 'tenant-root', { resourceQuotas: { cpu: q } })));
  });
  it('parses exactly, rounding below a nano unit up as the API server does', () => {
    const v = (s: string) => {
      const p = parseQuantity(s);
      return p.ok ? decimalText(p.value) : p.reason;
    };
    expect([v('2Gi'), v('2049Mi'), v('1.5k'), v('100m'), v('1e-12'), v('-1e-12'), v('.5e2')]).toEqual([
      '2147483648',
      '2148532224',
      '1500',
      '0.1',
      '0.000000001',
      '-0.000000001',
      '50',
    ]);
    expect(v('1e1.5')).toMatch(/grammar/);
    expect(v('1Ki5')).toMatch(/suffix "Ki5"/);
    expect(v('1e99999')).toMatch(/out of range/);
  });
});

describe('the hierarchical quota', () => {
  const root = (q: Record<string, unknown>) => tenant('root', 'tenant-root', { resourceQuotas: q });
  it('a child that fits exactly renders; one that exceeds by the smallest unit is refused (mixed units)', () => {
    ok(
      run(
        tenant('a', 'tenant-root', { resourceQuotas: { memory: '2Gi' } }),
        tenant('b', 'tenant-a', { resourceQuotas: { memory: '2048Mi' } }),
      ),
    );
    const r = run(
      tenant('a', 'tenant-root', { resourceQuotas: { memory: '2Gi' } }),
      tenant('b', 'tenant-a', { resourceQuotas: { memory: '2049Mi' } }),
    );
    expect(errors(r)).toEqual([['tenant.quota-hierarchy', 'b', 'spec.resourceQuotas.memory']]);
    expect(r.findings[0].message).toBe(
      "2049Mi does not fit in its parent's quota: tenant-a declares memory 2Gi and it has no sibling declaring it; over by 1Mi",
    );
    // The smallest unit of a quantity: one nano.
    expect(
      errors(
        run(
          tenant('a', 'tenant-root', { resourceQuotas: { cpu: '1' } }),
          tenant('b', 'tenant-a', { resourceQuotas: { cpu: '1000000001n' } }),
        ),
      ),
    ).toEqual([['tenant.quota-hierarchy', 'b', 'spec.resourceQuotas.cpu']]);
  });
  it('siblings that fit exactly render (0.1 + 0.2 fits 0.3); siblings over by one milli are both refused, each naming the other', () => {
    ok(
      run(
        root({ cpu: '0.3' }),
        tenant('a', 'tenant-root', { resourceQuotas: { cpu: '0.1' } }),
        tenant('b', 'tenant-root', { resourceQuotas: { cpu: '0.2' } }),
      ),
    );
    ok(
      run(
        root({ cpu: '300m' }),
        tenant('a', 'tenant-root', { resourceQuotas: { cpu: '100m' } }),
        tenant('b', 'tenant-root', { resourceQuotas: { cpu: '0.2' } }),
      ),
    );
    const r = run(
      root({ cpu: '0.3' }),
      tenant('a', 'tenant-root', { resourceQuotas: { cpu: '0.1' } }),
      tenant('b', 'tenant-root', { resourceQuotas: { cpu: '201m' } }),
    );
    expect(errors(r)).toEqual([
      ['tenant.quota-hierarchy', 'a', 'spec.resourceQuotas.cpu'],
      ['tenant.quota-hierarchy', 'b', 'spec.resourceQuotas.cpu'],
    ]);
    expect(r.findings[0].message).toBe(
      "0.1 does not fit in its parent's quota: tenant-root declares cpu 0.3 and its siblings hold 201m (tenant-b 201m), which leaves 99m; over by 1m",
    );
    expect(r.findings[1].message).toMatch(/its siblings hold 100m \(tenant-a 0\.1\), which leaves 200m; over by 1m/);
    // Over by the smallest unit, one nano.
    expect(
      errors(
        run(
          root({ cpu: '0.3' }),
          tenant('a', 'tenant-root', { resourceQuotas: { cpu: '0.1' } }),
          tenant('b', 'tenant-root', { resourceQuotas: { cpu: '200000001n' } }),
        ),
      ).map((e) => e[1]),
    ).toEqual(['a', 'b']);
  });

  it('only the direct parent and the keys it declares count; children without a quota are not checked', () => {
    ok(
      run(
        tenant('a', 'tenant-root', { resourceQuotas: { cpu: '1' } }),
        tenant('b', 'tenant-a', { resourceQuotas: { memory: '100Gi' } }),
        tenant('c', 'tenant-a'),
        tenant('d', 'tenant-a-b', { resourceQuotas: { cpu: '5', memory: '100Gi' } }),
      ),
    );
  });
  it('numbers and strings mix: an integer quota and a string one are compared exactly', () => {
    ok(
      run(
        tenant('a', 'tenant-root', { resourceQuotas: { pods: 10 } }),
        tenant('b', 'tenant-a', { resourceQuotas: { pods: '10' } }),
      ),
    );
    expect(
      errors(
        run(
          tenant('a', 'tenant-root', { resourceQuotas: { pods: '10' } }),
          tenant('b', 'tenant-a', { resourceQuotas: { pods: 11 } }),
        ),
      ),
    ).toEqual([['tenant.quota-hierarchy', 'b', 'spec.resourceQuotas.pods']]);
  });
});
