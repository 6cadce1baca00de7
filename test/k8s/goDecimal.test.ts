/**
 * Go's number semantics (src/k8s/goDecimal.ts): docs/tenant.md §2.0.7's `%g` examples (and the
 * Helm issues it cites), sprig's decimal `mulf`/`divf` (§2.0.6: the cases where JavaScript's
 * arithmetic differs), and ParseFloat as the quota helper reads a string.
 */
import fc from 'fast-check';
import {
  castToFloat64,
  decimalDiv,
  decimalFromFloat,
  divf,
  goFormatFloat,
  GoNumberError,
  goParseFloat,
  goTruncToInt,
  mulf,
} from '../../src/k8s/goDecimal';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

describe('goFormatFloat: Go %v of a float64 (docs/tenant.md §2.0.7)', () => {
  it.each([
    [0.4, '0.4'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [123456, '123456'],
    [1e6, '1e+06'],
    [1234567.8, '1.2345678e+06'],
    [1073741824, '1.073741824e+09'],
    // The two Helm reports the specification cites: values printed as Go prints a float64
    [1234567, '1.234567e+06'],
    [356136738, '3.56136738e+08'],
    [0.05, '0.05'],
    [4, '4'],
    [-2.5, '-2.5'],
    [0, '0'],
    [1e21, '1e+21'],
    [1.5e-7, '1.5e-07'],
    [1e100, '1e+100'],
    [0.6666666666666667, '0.6666666666666667'],
  ])('%p prints %p', (x, want) => {
    expect(goFormatFloat(x)).toBe(want);
  });
  it('keeps the shortest round-trip digits: it reads back to the same float (property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect([x, Number(goFormatFloat(x))]).toEqual([x, x]);
      }),
      { seed },
    );
  });
});

describe('sprig decimal arithmetic (docs/tenant.md §2.0.6, Q10)', () => {
  it('"1.1" cpu over ratio 10 is 0.11 (JavaScript: 0.11000000000000001)', () => {
    expect(1.1 / 10).toBe(0.11000000000000001);
    expect(divf(1.1, 10)).toBe(0.11);
  });
  it('"2" cpu over ratio 3 is 0.6666666666666667 (16 fractional digits, rounded up; JavaScript: ...666)', () => {
    expect(2 / 3).toBe(0.6666666666666666);
    expect(divf(2, 3)).toBe(0.6666666666666667);
  });
  it('rounds the 16th fractional digit half away from zero', () => {
    // 1/32 = 0.03125 exactly: no rounding; 5e-17 / 1 at 16 digits is 1e-16 (half up), -5e-17 is -1e-16.
    expect(divf(1, 32)).toBe(0.03125);
    const d = (c: bigint, e: number) => ({ coef: c, exp: e });
    expect(decimalDiv(d(5n, -17), d(1n, 0))).toEqual(d(1n, -16));
    expect(decimalDiv(d(-5n, -17), d(1n, 0))).toEqual(d(-1n, -16));
    expect(decimalDiv(d(4n, -17), d(1n, 0))).toEqual(d(0n, -16));
  });
  it('products are exact on the shortest decimals: 500 × 0.001 is 0.5, 0.1 × 3 is 0.3 (JavaScript: 0.30000000000000004)', () => {
    expect(mulf(500, 0.001)).toBe(0.5);
    expect(0.1 * 3).toBe(0.30000000000000004);
    expect(mulf(0.1, 3)).toBe(0.3);
  });
  it('a float becomes its shortest decimal', () => {
    expect(decimalFromFloat(0.1)).toEqual({ coef: 1n, exp: -1 });
    expect(decimalFromFloat(1073741824)).toEqual({ coef: 1073741824n, exp: 0 });
    expect(decimalFromFloat(-2.5)).toEqual({ coef: -25n, exp: -1 });
  });
  it('division by zero and non-finite operands fail, as shopspring panics', () => {
    expect(() => divf(1, 0)).toThrow(GoNumberError);
    expect(() => divf(1, 0)).toThrow(/decimal division by zero/);
    expect(() => mulf(Infinity, 1)).toThrow(GoNumberError);
  });
  it('int() truncates toward zero', () => {
    expect(goTruncToInt(4294967296.9)).toBe(4294967296n);
    expect(goTruncToInt(-1.9)).toBe(-1n);
  });
});

describe('ParseFloat as the helper reads a string', () => {
  it.each([
    ['1e3', 1000],
    ['.5', 0.5],
    ['+2', 2],
    ['5.', 5],
    ['-1.25E-2', -0.0125],
  ])('%p parses as %p', (s, want) => {
    expect(goParseFloat(s)).toBe(want);
    expect(castToFloat64(s)).toBe(want);
  });
  it.each(['', 'abc', '1e2.5', '0x10', ' 5', '1_000'])('%p is a syntax error, read as 0', (s) => {
    expect(goParseFloat(s)).toBeUndefined();
    expect(castToFloat64(s)).toBe(0);
  });
  it('out of range reads as 0 (cast drops a range error); inf is infinite', () => {
    expect(castToFloat64('1e400')).toBe(0);
    expect(castToFloat64('inf')).toBe(Infinity);
  });
});
