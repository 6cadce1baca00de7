/** toCel's loops (written for speed) convert exactly as the entries/fromEntries form they replaced. */
import fc from 'fast-check';
import { toCel } from '../../src/cel/cel';

function reference(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(reference);
  if (
    v !== null &&
    typeof v === 'object' &&
    !(v instanceof Uint8Array) &&
    !(v instanceof Date) &&
    !(v instanceof Map)
  ) {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => [k, reference(x)]),
    );
  }
  return v;
}

test('toCel equals the reference conversion on JSON-like data, undefined members included', () => {
  const data = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.array(tie('v'), { maxLength: 4 }),
      fc.dictionary(fc.string(), tie('v'), { maxKeys: 4 }),
    ),
  })).v;
  fc.assert(fc.property(data, (v) => expect(toCel(v)).toStrictEqual(reference(v))));
});

test('a __proto__ key stays a key and does not set the prototype', () => {
  const v = JSON.parse('{"__proto__": {"polluted": 1}, "a": 2}');
  const out = toCel(v) as Record<string, unknown>;
  expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  expect(Object.keys(out)).toEqual(['__proto__', 'a']);
  expect((out as { polluted?: unknown }).polluted).toBeUndefined();
  expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: 1n });
});
