/** src/k8s/model.ts: helm's values merge, equality and order. */
import { compareObjects, deepEqual, keyOf, mergeValues, type KObject } from '../../src/k8s/model';

describe('mergeValues (helm -f semantics)', () => {
  it('merges maps recursively, replaces lists and scalars, deletes on null', () => {
    const base = { a: { b: 1, c: [1, 2] }, d: 'x', e: 1 };
    expect(mergeValues(base, { a: { c: [3] }, d: null, f: true })).toEqual({ a: { b: 1, c: [3] }, e: 1, f: true });
    expect(base).toEqual({ a: { b: 1, c: [1, 2] }, d: 'x', e: 1 }); // inputs untouched
  });

  it('keeps a __proto__ key as a plain key and never touches any prototype', () => {
    const over = JSON.parse('{"__proto__": {"polluted": true}, "a": {"__proto__": {"x": 1}}}');
    const out = mergeValues({ a: { y: 2 } }, over);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"a":{"y":2,"__proto__":{"x":1}},"__proto__":{"polluted":true}}');
  });
});

describe('object identity and order', () => {
  it('deepEqual ignores key order and undefined members', () => {
    expect(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1, z: undefined })).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
  });

  it('sorts by apiVersion, kind, namespace, name (byte order)', () => {
    const o = (apiVersion: string, kind: string, name: string, namespace?: string): KObject => ({
      apiVersion,
      kind,
      metadata: { name, namespace },
    });
    const sorted = [
      o('v1', 'Secret', 'b', 'x'),
      o('apps/v1', 'Deployment', 'a'),
      o('v1', 'Namespace', 'a'),
      o('v1', 'Secret', 'a', 'x'),
    ].sort(compareObjects);
    expect(sorted.map((x) => `${x.apiVersion}/${x.kind}/${x.metadata.namespace ?? ''}/${x.metadata.name}`)).toEqual([
      'apps/v1/Deployment//a',
      'v1/Namespace//a',
      'v1/Secret/x/a',
      'v1/Secret/x/b',
    ]);
  });
});

describe('deepEqual agrees with canonical JSON equality (property)', () => {
  it('for any two JSON values', () => {
    const fc = require('fast-check') as typeof import('fast-check');
    const canon = (v: unknown): string =>
      JSON.stringify(v, (_k, x) =>
        x && typeof x === 'object' && !Array.isArray(x)
          ? Object.fromEntries(
              Object.keys(x)
                .sort()
                .map((k) => [k, x[k]]),
            )
          : x,
      );
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(json, json, (a, b) => deepEqual(a, b) === (canon(a) === canon(b))),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(json, (a) => deepEqual(a, JSON.parse(JSON.stringify(a)))),
      { numRuns: 300 },
    );
  });
});

describe("keyOf remembers a key on the object's metadata, unseen", () => {
  const cm = (name: string, namespace?: string): KObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: namespace ? { name, namespace } : { name },
  });

  it('no copy, comparison, JSON or key listing of the object sees the memo', () => {
    const o = cm('a', 'ns');
    expect(keyOf(o)).toBe('|ConfigMap|ns|a');
    expect(Object.keys(o)).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(JSON.stringify(o)).toBe('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"}}');
    expect(Object.getOwnPropertySymbols({ ...o })).toEqual([]);
    expect(structuredClone(o)).toEqual(cm('a', 'ns'));
    expect(deepEqual(o, cm('a', 'ns'))).toBe(true);
    expect(o).toStrictEqual(cm('a', 'ns'));
  });

  it('a key follows the identity it was read from; a frozen object has its key, unremembered', () => {
    const o = cm('a', 'ns');
    expect(keyOf(o)).toBe('|ConfigMap|ns|a');
    o.metadata.name = 'b';
    expect(keyOf(o)).toBe('|ConfigMap|ns|b');
    delete o.metadata.namespace;
    expect(keyOf(o)).toBe('|ConfigMap||b');
    (o as { apiVersion: string }).apiVersion = 'example.io/v1';
    expect(keyOf(o)).toBe('example.io|ConfigMap||b');
    const frozen = Object.freeze(cm('f', 'ns'));
    expect(keyOf(frozen)).toBe('|ConfigMap|ns|f');
    expect(keyOf(frozen)).toBe('|ConfigMap|ns|f');
    const deep = cm('g', 'ns');
    Object.freeze(deep.metadata);
    expect([keyOf(deep), keyOf(deep)]).toEqual(['|ConfigMap|ns|g', '|ConfigMap|ns|g']);
  });

  it('a copy sharing the metadata (a status written: { ...route, status }) finds the key, not made again', () => {
    const o = cm('a', 'ns');
    expect(keyOf(o)).toBe('|ConfigMap|ns|a');
    const join = jest.spyOn(Array.prototype, 'join');
    try {
      const copy = { ...o, status: { parents: [] } };
      expect(keyOf(copy)).toBe('|ConfigMap|ns|a');
      expect(join.mock.calls.length).toBe(0);
      // A copy with its metadata changed is another identity: its key is made.
      expect(keyOf({ ...o, metadata: { ...o.metadata, name: 'b' } })).toBe('|ConfigMap|ns|b');
      expect(join.mock.calls.length).toBe(1);
    } finally {
      join.mockRestore();
    }
  });

  it('objects of different identities sharing one metadata each get their own key, in any order', () => {
    const metadata = { name: 'a', namespace: 'ns' };
    const a: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata };
    const b: KObject = { apiVersion: 'example.io/v1', kind: 'Secret', metadata };
    expect([keyOf(a), keyOf(b), keyOf(a), keyOf(b)]).toEqual([
      '|ConfigMap|ns|a',
      'example.io|Secret|ns|a',
      '|ConfigMap|ns|a',
      'example.io|Secret|ns|a',
    ]);
    expect(Object.keys(metadata)).toEqual(['name', 'namespace']);
    expect(JSON.stringify(a)).toBe('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"}}');
  });
});
