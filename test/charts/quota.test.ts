/**
 * `quota.yaml` and cozy-lib's `resources.flatten` (docs/tenant.md §2.0.6, §2.3): the examples
 * of §2.0.6 as a table (Q10), the types in the output, the key mapping, and the two failures.
 */
import { asset } from '../../src/assets';
import { allocationRatio, flattenResources, QuotaError, quantityValue, renderQuota } from '../../src/charts/quota';
import type { KObject } from '../../src/k8s/model';

/** §2.0.6 "Examples" (default ratios 10/1/40): one M entry, and every output key it gives. */
const EXAMPLES: [string, Record<string, unknown>, Record<string, unknown>][] = [
  ['cpu: "4"', { cpu: '4' }, { 'limits.cpu': '4', 'requests.cpu': '0.4' }],
  ['cpu: 4', { cpu: 4 }, { 'limits.cpu': '4', 'requests.cpu': '0.4' }],
  ['cpu: 500m', { cpu: '500m' }, { 'limits.cpu': '500m', 'requests.cpu': '0.05' }],
  ['cpu: "12345678"', { cpu: '12345678' }, { 'limits.cpu': '12345678', 'requests.cpu': '1.2345678e+06' }],
  ['memory: 4Gi', { memory: '4Gi' }, { 'limits.memory': '4Gi', 'requests.memory': '4294967296' }],
  [
    'memory: 1073741824 (a number)',
    { memory: 1073741824 },
    { 'limits.memory': '1.073741824e+09', 'requests.memory': '1073741824' },
  ],
  [
    'ephemeral-storage: 10Gi',
    { 'ephemeral-storage': '10Gi' },
    { 'limits.ephemeral-storage': '10Gi', 'requests.ephemeral-storage': '268435456' },
  ],
  ['storage: 100Gi', { storage: '100Gi' }, { 'requests.storage': '100Gi' }],
  ['pods: "50"', { pods: '50' }, { pods: '50' }],
  ['pods: 50', { pods: 50 }, { pods: 50 }],
  ['services.loadbalancers: "3"', { 'services.loadbalancers': '3' }, { 'services.loadbalancers': '3' }],
  // §2.0.6 "JavaScript * and / are not equivalent"
  ['cpu: "1.1"', { cpu: '1.1' }, { 'limits.cpu': '1.1', 'requests.cpu': '0.11' }],
  // "Keys are not validated"
  [
    'requests.nvidia.com/gpu: 1',
    { 'requests.nvidia.com/gpu': 1 },
    { 'limits.requests.nvidia.com/gpu': 1, 'requests.requests.nvidia.com/gpu': 1 },
  ],
];

describe('resources.flatten: the examples of docs/tenant.md §2.0.6 (Q10)', () => {
  it.each(EXAMPLES)('%s', (_name, m, want) => {
    const hard = flattenResources(m, {});
    // Values and their types (a string stays a string, a number a number).
    expect(hard).toStrictEqual(want);
  });

  it('"2" cpu with cpu-allocation-ratio "3" requests 0.6666666666666667 (JavaScript: ...666)', () => {
    expect(flattenResources({ cpu: '2' }, { 'cpu-allocation-ratio': '3' })['requests.cpu']).toBe('0.6666666666666667');
  });

  it('one map, keys in byte order', () => {
    const hard = flattenResources({ pods: 5, memory: '1Gi', cpu: '2', storage: '5Gi', 'ephemeral-storage': '4Gi' }, {});
    expect(Object.keys(hard)).toEqual([
      'limits.cpu',
      'limits.ephemeral-storage',
      'limits.memory',
      'pods',
      'requests.cpu',
      'requests.ephemeral-storage',
      'requests.memory',
      'requests.storage',
    ]);
  });

  it('every RAW key is itself, never a limits. or requests. key', () => {
    for (const k of [
      'pods',
      'services',
      'services.nodeports',
      'services.clusterip',
      'configmaps',
      'secrets',
      'persistentvolumeclaims',
      'replicationcontrollers',
      'resourcequotas',
    ])
      expect([k, flattenResources({ [k]: '7' }, {})]).toEqual([k, { [k]: '7' }]);
  });

  it('the ratios: read from _cluster (a string parsed, a number as is), defaulted only when the key is absent', () => {
    expect(allocationRatio(undefined, 'cpu')).toBe(10);
    expect(allocationRatio({}, 'memory')).toBe(1);
    expect(allocationRatio({}, 'ephemeral-storage')).toBe(40);
    expect(allocationRatio({ 'cpu-allocation-ratio': '2.5' }, 'cpu')).toBe(2.5);
    expect(allocationRatio({ 'cpu-allocation-ratio': 4 }, 'cpu')).toBe(4);
    expect(allocationRatio({ 'cpu-allocation-ratio': '' }, 'cpu')).toBe(0);
    expect(allocationRatio({ 'cpu-allocation-ratio': 'ten' }, 'cpu')).toBe(0);
    expect(flattenResources({ memory: '4Gi' }, { 'memory-allocation-ratio': '2' })['requests.memory']).toBe(
      '2147483648',
    );
  });

  it('Q(v): the suffix table, and an unparsable rest silently 0', () => {
    expect(quantityValue('2Ki')).toBe(2048);
    expect(quantityValue('3n')).toBe(3e-9);
    expect(quantityValue('7u')).toBe(7e-6);
    expect(quantityValue('1k')).toBe(1000);
    expect(quantityValue('2E')).toBe(2e18);
    expect(quantityValue('1Ei')).toBe(2 ** 60);
    expect(quantityValue('1e3')).toBe(1000);
    expect(quantityValue('xGi')).toBe(0);
  });
});

describe('quota.yaml failures (docs/tenant.md §2.3, §2.11)', () => {
  it('nested limits: or requests: sections fail with the flat-map message', () => {
    for (const m of [{ limits: { cpu: 1 } }, { requests: { cpu: 1 } }]) {
      expect(() => flattenResources(m, {})).toThrow(QuotaError);
      expect(() => flattenResources(m, {})).toThrow(/flat map of resources.*not nested requests: and limits: sections/);
    }
  });
  it('an allocation ratio of 0 fails, naming the _cluster key (Q10)', () => {
    try {
      flattenResources({ cpu: '1' }, { 'cpu-allocation-ratio': '0' });
      throw new Error('no failure');
    } catch (e) {
      expect(e).toBeInstanceOf(QuotaError);
      expect((e as QuotaError).clusterKey).toBe('cpu-allocation-ratio');
      expect((e as Error).message).toMatch(
        /_cluster\.cpu-allocation-ratio is "0".*decimal division by zero.*resources\.cpuAllocationRatio/,
      );
    }
  });
  it('a ratio of 0 for a resource the map does not name divides nothing and does not fail', () => {
    expect(flattenResources({ pods: 3 }, { 'cpu-allocation-ratio': '0' })).toEqual({ pods: 3 });
  });
});

describe('renderQuota (docs/tenant.md §2.3)', () => {
  const limitRange = asset<KObject>('templates/tenant/limitrange.yaml');
  it('renders nothing for an empty or absent map', () => {
    expect(renderQuota('tenant-a', {}, {}, limitRange)).toEqual([]);
    expect(renderQuota('tenant-a', undefined, {}, limitRange)).toEqual([]);
  });
  it('ResourceQuota tenant-quota and the fixed LimitRange tenant-range-limits in T', () => {
    const [quota, range] = renderQuota('tenant-a', { cpu: '4' }, {}, limitRange);
    expect(quota).toEqual({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'tenant-quota', namespace: 'tenant-a' },
      spec: { hard: { 'limits.cpu': '4', 'requests.cpu': '0.4' } },
    });
    expect(range).toEqual({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'tenant-range-limits', namespace: 'tenant-a' },
      spec: {
        limits: [
          {
            default: { cpu: '250m', memory: '128Mi', 'ephemeral-storage': '2Gi' },
            defaultRequest: { cpu: '25m', memory: '128Mi', 'ephemeral-storage': '50Mi' },
            type: 'Container',
          },
        ],
      },
    });
    // The shared LimitRange data is not touched.
    expect(limitRange.metadata.namespace).toBeUndefined();
  });
});
