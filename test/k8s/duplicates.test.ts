/** The one duplicate rule (src/k8s/duplicates.ts): a finding at every copy, in reading order, none without a repeat. */
import fc from 'fast-check';
import { duplicateFindings } from '../../src/k8s/duplicates';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { FC_SEED } from '../helpers/tenantTreeArbitrary';

const ns = (name: string, label = ''): KObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { l: label } },
});

describe('duplicateFindings', () => {
  it('finds nothing when every identity is given once (a Namespace and a Tenant of one name are two identities)', () => {
    const tenant: KObject = { apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name: 'a' } };
    expect(duplicateFindings([ns('a'), tenant, ns('b')])).toEqual([]);
  });

  it('places one finding at each copy, in reading order, and leaves the single ones alone', () => {
    const copies = [ns('a', '1'), ns('b'), ns('a', '2'), ns('a', '3')];
    const f = duplicateFindings(copies, 'state');
    expect(f.map((x) => [x.message, x.object?.name, x.instance])).toEqual([
      ['given 3 times in the state; this is copy 1 of 3', 'a', copies[0]],
      ['given 3 times in the state; this is copy 2 of 3', 'a', copies[2]],
      ['given 3 times in the state; this is copy 3 of 3', 'a', copies[3]],
    ]);
    expect(f.map((x) => [x.severity, x.rule])).toEqual(Array(3).fill(['error', 'input.duplicate']));
  });

  it('a Store holds fewer identities than objects exactly when duplicateFindings finds some', () => {
    const obj = fc.record({
      apiVersion: fc.constantFrom('v1', 'apps/v1', 'apps/v2'),
      kind: fc.constantFrom('Namespace', 'ConfigMap'),
      metadata: fc.record({ name: fc.constantFrom('a', 'b', 'c'), namespace: fc.constantFrom(undefined, '', 'x') }),
    }) as fc.Arbitrary<KObject>;
    fc.assert(
      fc.property(fc.array(obj, { maxLength: 8 }), (objs) => {
        const repeats = new Store(objs).originalIdentities < objs.length;
        expect({ objs, repeats }).toEqual({ objs, repeats: duplicateFindings(objs).length > 0 });
      }),
      { seed: FC_SEED },
    );
    expect(new Store([ns('a'), ns('a', 'x'), ns('b')]).originalIdentities).toBe(2);
  });
});
