/**
 * Store.all() is built from the per-kind sorted lists and changes() skips comparing an object
 * put() already found different from the original (for speed): both must stay exactly what a fresh
 * computation gives (compareObjects order; an update only where the object differs from the
 * original), after any sequence of puts and deletes, with a kind stored under several
 * apiVersions of its group.
 */
import fc from 'fast-check';
import { compareObjects, deepEqual, keyOf, type KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';

const obj = (apiVersion: string, kind: string, ns: string, name: string, v: number): KObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace: ns },
  data: { v },
});
const id = (o: KObject) =>
  `${o.apiVersion} ${o.kind} ${o.metadata.namespace}/${o.metadata.name} ${JSON.stringify(o.data)}`;

test('all() and changes() equal a fresh computation after any puts and deletes', () => {
  const arb = fc.record({
    del: fc.boolean(),
    apiVersion: fc.constantFrom('v1', 'apps/v1', 'apps/v1beta1', 'b.io/v1', 'B.io/v1'),
    kind: fc.constantFrom('ConfigMap', 'Deployment', 'A'),
    ns: fc.constantFrom('a', 'b', 'B', ''),
    name: fc.constantFrom('x', 'y', 'Z'),
    v: fc.integer({ min: 0, max: 2 }),
    look: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(arb, { maxLength: 6 }), fc.array(arb, { maxLength: 40 }), (init, ops) => {
      const seen = new Map<string, KObject>();
      for (const o of init)
        seen.set(keyOf(obj(o.apiVersion, o.kind, o.ns, o.name, o.v)), obj(o.apiVersion, o.kind, o.ns, o.name, o.v));
      const original = new Map(seen);
      const store = new Store([...original.values()]);
      const live = new Map(original);
      const check = () => {
        expect(store.all().map(id)).toEqual([...live.values()].sort(compareObjects).map(id));
        const want: string[] = [];
        for (const k of new Set([...original.keys(), ...live.keys()])) {
          const now = live.get(k);
          const was = original.get(k);
          if (now && !was) want.push(`create ${id(now)}`);
          else if (now && was && !deepEqual(now, was)) want.push(`update ${id(now)}`);
          else if (!now && was) want.push(`delete ${id(was)}`);
        }
        const got = store.changes().map((c) => {
          const o = c.op === 'delete' ? original.get(keyOf(c.ref))! : live.get(keyOf(c.ref))!;
          return `${c.op} ${id(o)}`;
        });
        expect(got.sort()).toEqual(want.sort());
      };
      for (const o of ops) {
        const x = obj(o.apiVersion, o.kind, o.ns, o.name, o.v);
        if (o.del) {
          store.delete({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.ns, name: o.name }, 'del');
          live.delete(keyOf(x));
        } else {
          store.put(x, 'put');
          live.set(keyOf(x), x);
        }
        if (o.look) check();
      }
      check();
    }),
    { numRuns: 500 },
  );
});

test('an object put back to its original is no update', () => {
  const store = new Store([obj('v1', 'ConfigMap', 'a', 'x', 1)]);
  store.put(obj('v1', 'ConfigMap', 'a', 'x', 2), 'change');
  expect(store.changes().map((c) => c.op)).toEqual(['update']);
  store.put(obj('v1', 'ConfigMap', 'a', 'x', 1), 'change back');
  expect(store.changes()).toEqual([]);
});

test('all() is remembered until the store changes, and each caller gets its own array', () => {
  const store = new Store([obj('v1', 'ConfigMap', 'a', 'x', 1), obj('v1', 'ConfigMap', 'a', 'y', 1)]);
  const first = store.all();
  first.pop();
  expect(store.all().map(id)).toEqual(['v1 ConfigMap a/x {"v":1}', 'v1 ConfigMap a/y {"v":1}']);
  store.put(obj('v1', 'ConfigMap', 'a', 'x', 2), 'change');
  expect(store.all().map(id)).toEqual(['v1 ConfigMap a/x {"v":2}', 'v1 ConfigMap a/y {"v":1}']);
  store.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'y' }, 'gone');
  expect(store.all().map(id)).toEqual(['v1 ConfigMap a/x {"v":2}']);
});
