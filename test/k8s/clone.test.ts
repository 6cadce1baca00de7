/**
 * model.clone copies plain data by a walk (for speed) and must give exactly what the JSON round
 * trip gave: same values, same key order, the same dropping of undefined, functions and
 * symbols, null for non-finite numbers, and the round trip's own handling of anything else.
 */
import fc from 'fast-check';
import { clone } from '../../src/k8s/model';

const roundTrip = (x: unknown) => JSON.parse(JSON.stringify(x));
/** Equal as JSON texts (key order included) and in structure, with -0 told apart from 0. */
function same(x: unknown): void {
  const a = clone(x);
  const b = roundTrip(x);
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  expect(Object.is(a, -0)).toBe(false);
  expect(a).toStrictEqual(b);
}

describe('clone = JSON.parse(JSON.stringify(x))', () => {
  test.each([
    ['scalars', { s: 'x', n: 1.5, z: -0, t: true, f: false, nul: null }],
    ['non-finite numbers', { a: NaN, b: Infinity, c: [-Infinity, NaN] }],
    [
      'undefined, functions and symbols',
      { u: undefined, f: () => 1, s: Symbol('x'), l: [undefined, () => 1, Symbol('y'), 1] },
    ],
    ['a sparse list', [1, , 3]], // eslint-disable-line no-sparse-arrays
    ['a __proto__ key', JSON.parse('{"__proto__": {"x": 1}, "a": [{"__proto__": 2}]}')],
    ['integer-like keys', { b: 1, 2: 'two', a: 3, 1: 'one' }],
    ['a null-prototype object', Object.assign(Object.create(null), { a: 1 })],
    ['a Date and a toJSON method', { when: new Date(0), custom: { toJSON: (k: string) => `key ${k}` } }],
    ['Maps, Sets and boxed values', { m: new Map([[1, 2]]), s: new Set([1]), b: new String('x'), n: new Number(2) }],
    [
      'a class instance',
      {
        c: new (class {
          a = 1;
          b = [2];
        })(),
      },
    ],
    ['nested', { a: { b: { c: [[{ d: [] }], {}] } } }],
  ])('%s', (_n, x) => same(x));

  test('a copy: nothing shared', () => {
    const x = { a: { b: [1, { c: 2 }] } };
    const y = clone(x);
    (y.a.b[1] as { c: number }).c = 3;
    expect(x.a.b[1]).toEqual({ c: 2 });
  });

  test('what the round trip refuses, clone refuses', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => clone(cyclic)).toThrow(TypeError);
    expect(() => clone({ big: BigInt(1) })).toThrow(TypeError);
    expect(() => clone(() => 1)).toThrow(SyntaxError);
    expect(clone(undefined)).toBeUndefined();
  });

  test('generated values', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBoxedValues: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withSparseArray: true,
          withDate: true,
          maxDepth: 4,
        }),
        (x) => {
          if (x === undefined) return;
          same(x);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
