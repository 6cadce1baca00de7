/**
 * Go's number semantics where a chart's output depends on them (docs/tenant.md §2.0.6, §2.0.7):
 * sprig's decimal arithmetic (`mulf`, `divf`: shopspring/decimal), Go's `%v` printing of a float64
 * (shortest `%g`), and `strconv.ParseFloat`. JavaScript's `*`, `/` and `String(x)` differ from all
 * three (`1.1 / 10` is `0.11000000000000001` in JavaScript and `0.11` through sprig; `String(1234567)`
 * is `1234567`, Go prints `1.234567e+06`). Exact decimals are BigInt coefficients. Pure.
 */

/** An exact decimal: coef × 10^exp. */
export interface Decimal {
  coef: bigint;
  exp: number;
}

/** shopspring/decimal's DivisionPrecision: a quotient keeps 16 fractional digits. */
export const DIVISION_PRECISION = 16;

/** Thrown by an operation Go would panic or fail on (decimal division by zero, a float that is not finite). */
export class GoNumberError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoNumberError';
  }
}

/** The shortest round-trip decimal digits of a finite float, as `digits` with the first digit's exponent. */
function shortest(x: number): { negative: boolean; digits: string; e: number } {
  // toExponential() without an argument chooses the shortest digits that round-trip, as Go's
  // strconv (and shopspring's NewFromFloat) do.
  const s = Math.abs(x).toExponential();
  const [mant, exp] = s.split('e');
  return { negative: x < 0 || Object.is(x, -0), digits: mant.replace('.', ''), e: Number(exp) };
}

/** decimal.NewFromFloat: the float's shortest round-trip decimal. Panics (throws) on NaN and ±Inf, as shopspring does. */
export function decimalFromFloat(x: number): Decimal {
  if (!Number.isFinite(x)) throw new GoNumberError(`cannot create a Decimal from ${x}`);
  if (x === 0) return { coef: 0n, exp: 0 };
  const { negative, digits, e } = shortest(x);
  const coef = BigInt(digits);
  return { coef: negative ? -coef : coef, exp: e - (digits.length - 1) };
}

/** The nearest float64 to a decimal (big.Rat.Float64; JavaScript's number parsing is correctly rounded too). */
export function decimalToFloat(d: Decimal): number {
  return Number(`${d.coef}e${d.exp}`);
}

export function decimalMul(a: Decimal, b: Decimal): Decimal {
  return { coef: a.coef * b.coef, exp: a.exp + b.exp };
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * decimal.Div: the exact quotient rounded to `precision` fractional digits, half away from zero
 * (shopspring's DivRound). Division by zero throws, as shopspring panics.
 */
export function decimalDiv(a: Decimal, b: Decimal, precision = DIVISION_PRECISION): Decimal {
  if (b.coef === 0n) throw new GoNumberError('decimal division by zero');
  // a/b × 10^precision = (a.coef / b.coef) × 10^(a.exp - b.exp + precision).
  const s = a.exp - b.exp + precision;
  let num = a.coef;
  let den = b.coef;
  if (s >= 0) num *= pow10(s);
  else den *= pow10(-s);
  let q = num / den;
  const r = num % den;
  const abs = (v: bigint) => (v < 0n ? -v : v);
  if (2n * abs(r) >= abs(den)) q += num < 0n !== den < 0n ? -1n : 1n;
  return { coef: q, exp: -precision };
}

/** sprig's `mulf a b`: decimal product of the two floats' shortest decimals, back to the nearest float. */
export function mulf(a: number, b: number): number {
  return decimalToFloat(decimalMul(decimalFromFloat(a), decimalFromFloat(b)));
}

/** sprig's `divf a b`: decimal quotient (16 fractional digits, half away from zero), back to the nearest float. */
export function divf(a: number, b: number): number {
  return decimalToFloat(decimalDiv(decimalFromFloat(a), decimalFromFloat(b)));
}

/**
 * Go's `%v` (and sprig's `toString`) of a float64: the shortest round-trip digits, laid out as
 * `%g` with the exponent form iff the first digit's exponent is < -4 or >= 6 (`1e+06`,
 * `1.2345678e+06`, `1e-05`, `0.0001`, `123456`). The exponent has a sign and at least two digits.
 */
export function goFormatFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { negative, digits, e } = shortest(x);
  const sign = negative ? '-' : '';
  if (e < -4 || e >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ee = Math.abs(e);
    return `${sign}${mant}e${e < 0 ? '-' : '+'}${ee < 10 ? `0${ee}` : ee}`;
  }
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  if (digits.length <= e + 1) return `${sign}${digits}${'0'.repeat(e + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
}

/**
 * Go's `%v` of a value as the charts print it (sprig's `toString`, and `quote` of a platform
 * value: docs/tenant.md §2.0.7, docs/decisions.md §16): a string as it is, a number as the float64
 * every decoded number is (goFormatFloat: `1000000` → `1e+06`), a boolean as `true`/`false`. The
 * one printer of the quota helper and of `_cluster`.
 */
export function goValueString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFormatFloat(v);
  return String(v);
}

/** Go's `int` of a float64 (toward zero); out of int64's range it is what amd64 gives, the minimum int64. */
export function goTruncToInt(x: number): bigint {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 63) return -(2n ** 63n);
  return BigInt(Math.trunc(x));
}

const DECIMAL_FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const SPECIAL_FLOAT = /^[+-]?(inf|infinity|nan)$/i;

/**
 * strconv.ParseFloat(s, 64) for decimal text: the number, or undefined on a syntax error. A value
 * out of range gives ±Inf (Go returns it with a range error: callers that treat an error as 0
 * check isFinite). Hexadecimal floats and underscores are not accepted (no input can carry them:
 * the quantity grammar excludes them).
 */
export function goParseFloat(s: string): number | undefined {
  if (DECIMAL_FLOAT.test(s)) return Number(s);
  if (SPECIAL_FLOAT.test(s)) {
    const neg = s.startsWith('-');
    if (/nan/i.test(s)) return NaN;
    return neg ? -Infinity : Infinity;
  }
  return undefined;
}

/**
 * cast.ToFloat64 of a string, as sprig's `float64` reads a value: ParseFloat, and 0 on any error
 * (syntax or range).
 */
export function castToFloat64(s: string): number {
  const v = goParseFloat(s);
  if (v === undefined) return 0;
  if (!Number.isFinite(v) && !/inf|nan/i.test(s)) return 0; // a range error
  return v;
}
