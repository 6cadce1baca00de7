/**
 * Store.list keeps sorted lists between calls (for speed) and changes() is memoised: both must
 * stay exactly what a fresh computation gives, whatever sequence of puts and deletes came before.
 */
import fc from 'fast-check';
import { compareObjects, type KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';

const cm = (ns: string, name: string, v: number): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data: { v: String(v) },
});

/** What list() must return: the live objects of the kind, sorted by namespace then name. */
function expected(live: Map<string, KObject>, ns?: string): string[] {
  return [...live.values()]
    .filter((o) => ns === undefined || o.metadata.namespace === ns)
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}=${(o.data as Record<string, string>).v}`)
    .sort((a, b) => {
      const [an, ax] = a.split('=')[0].split('/');
      const [bn, bx] = b.split('=')[0].split('/');
      return an < bn ? -1 : an > bn ? 1 : ax < bx ? -1 : ax > bx ? 1 : 0;
    });
}
const shown = (os: KObject[]) =>
  os.map((o) => `${o.metadata.namespace}/${o.metadata.name}=${(o.data as Record<string, string>).v}`);

test('list() after any sequence of puts and deletes equals a fresh sort, per namespace and overall', () => {
  const op = fc.record({
    del: fc.boolean(),
    ns: fc.constantFrom('a', 'b', 'B', 'c-1'),
    name: fc.constantFrom('x', 'y', 'Z', 'x-2', 'aa'),
    v: fc.integer({ min: 0, max: 3 }),
    look: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
      const store = new Store([cm('b', 'y', 9), cm('a', 'x', 9)]);
      const live = new Map<string, KObject>([
        ['b/y', cm('b', 'y', 9)],
        ['a/x', cm('a', 'x', 9)],
      ]);
      for (const o of ops) {
        if (o.del) {
          store.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: o.ns, name: o.name }, 'test');
          live.delete(`${o.ns}/${o.name}`);
        } else {
          store.put(cm(o.ns, o.name, o.v), 'test');
          live.set(`${o.ns}/${o.name}`, cm(o.ns, o.name, o.v));
        }
        // look between writes, so the cached lists are there to be kept up to date
        if (o.look) {
          expect(shown(store.list('', 'ConfigMap'))).toEqual(expected(live));
          expect(shown(store.list('', 'ConfigMap', o.ns))).toEqual(expected(live, o.ns));
        }
      }
      expect(shown(store.list('', 'ConfigMap'))).toEqual(expected(live));
      for (const ns of ['a', 'b', 'B', 'c-1'])
        expect(shown(store.list('', 'ConfigMap', ns))).toEqual(expected(live, ns));
      // deletions(): the refs of changes()'s delete records, in their order, without building the records.
      expect(store.deletions()).toEqual(store.changes().flatMap((c) => (c.op === 'delete' ? [c.ref] : [])));
    }),
    { seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined },
  );
});

test('deletions() names what was deleted, in order, fresh refs each call; a re-created object is not deleted', () => {
  const store = new Store([cm('b', 'y', 1), cm('a', 'x', 1), cm('a', 'z', 1)]);
  store.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'y' }, 'gone');
  store.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'x' }, 'gone');
  store.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'z' }, 'gone');
  store.put(cm('a', 'z', 2), 'back');
  const first = store.deletions();
  expect(first.map((r) => `${r.namespace}/${r.name}`)).toEqual(['a/x', 'b/y']);
  first[0].name = 'scribbled';
  expect(store.deletions()[0].name).toBe('x');
});

test('list() hands out a copy: changing the array does not change the store', () => {
  const store = new Store([cm('a', 'x', 1), cm('a', 'y', 2)]);
  store.list('', 'ConfigMap').pop();
  store.list('', 'ConfigMap', 'a').length = 0;
  expect(shown(store.list('', 'ConfigMap'))).toEqual(['a/x=1', 'a/y=2']);
  expect(shown(store.list('', 'ConfigMap', 'a'))).toEqual(['a/x=1', 'a/y=2']);
});

test('changes() is memoised until the next write and each call gets its own records', () => {
  const store = new Store([cm('a', 'x', 1)]);
  store.put(cm('a', 'y', 1), 'create y');
  const first = store.changes();
  expect(first.map((c) => `${c.op} ${c.ref.name}`)).toEqual(['create y']);
  first[0].reasons.push('scribbled');
  expect(store.changes()[0].reasons).toEqual(['create y']);
  store.put(cm('a', 'x', 2), 'update x');
  expect(store.changes().map((c) => `${c.op} ${c.ref.name}`)).toEqual(['update x', 'create y']);
  store.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'x' }, 'delete x');
  expect(store.changes().map((c) => `${c.op} ${c.ref.name}`)).toEqual(['delete x', 'create y']);
});

test('store.stats counts gets, lists and the objects listed, per store', () => {
  const store = new Store([cm('a', 'x', 1), cm('b', 'y', 2)]);
  new Store([cm('a', 'x', 1)]).get('', 'ConfigMap', 'a', 'x');
  const storeStats = store.stats;
  const before = { ...storeStats };
  expect(before).toEqual({ gets: 0, lists: 0, listed: 0 });
  store.get('', 'ConfigMap', 'a', 'x');
  store.list('', 'ConfigMap');
  store.list('', 'ConfigMap', 'b');
  expect({
    gets: storeStats.gets - before.gets,
    lists: storeStats.lists - before.lists,
    listed: storeStats.listed - before.listed,
  }).toEqual({ gets: 1, lists: 2, listed: 3 });
});

test('all() is in compareObjects order', () => {
  const objs: KObject[] = [
    cm('b', 'y', 1),
    cm('a', 'y', 1),
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'a' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
    cm('a', 'x', 1),
    { apiVersion: 'v1beta1', kind: 'ConfigMap', metadata: { name: 'z', namespace: '' } },
  ];
  const store = new Store(objs);
  expect(store.all()).toEqual([...objs].sort(compareObjects));
});
