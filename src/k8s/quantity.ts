/**
 * Kubernetes quantities (`resource.Quantity`) as the API server parses them, and exact decimal
 * arithmetic over them (docs/decisions.md §15): the grammar of `ParseQuantity` (a sign, digits
 * with an optional fraction, then one of the suffixes `n u m k M G T P E`, `Ki`…`Ei`, or an
 * exponent `e`/`E` followed by a signed INTEGER: `1e1.5` is refused although the apps/tenant
 * chart's pattern admits it), the value exact (BigInt decimals, src/k8s/goDecimal.ts), rounded up
 * to the nano unit as `ParseQuantity` rounds. Pure.
 */
import type { Decimal } from './goDecimal';

export type { Decimal } from './goDecimal';

/** A quantity's exact value, or why it is not a quantity. */
export type ParsedQuantity = { ok: true; value: Decimal } | { ok: false; reason: string };

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
/** The letters ParseQuantity reads as a suffix. */
const SUFFIX_LETTERS = 'eEinumkKMGTP';

/**
 * The largest decimal exponent of a value cozy-gw computes with exactly: 10^1000 (quantities far
 * beyond any resource; a larger one would take the arithmetic unbounded time, docs/decisions.md §13).
 */
export const MAX_MAGNITUDE_DIGITS = 1000;

const isDigit = (c: string) => c >= '0' && c <= '9';
const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** Why `ParseQuantity` refuses its input, in its own words. */
const FORMAT =
  'it does not match the Kubernetes quantity grammar (digits, an optional fraction, then a suffix such as m, k, Mi, Gi or an exponent e<integer>)';

/**
 * `resource.ParseQuantity`: the exact value of a quantity string, or the reason it is refused. A
 * value below one nano unit rounds up to it (away from zero), as the API server's parse does.
 */
export function parseQuantity(str: string): ParsedQuantity {
  if (str.length === 0) return { ok: false, reason: 'it is empty' };
  let pos = 0;
  const end = str.length;
  let negative = false;
  if (str[0] === '-' || str[0] === '+') {
    negative = str[0] === '-';
    pos++;
  }
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  const num = str.slice(numStart, pos);
  let denom = '';
  if (pos < end && str[pos] === '.') {
    pos++;
    const d = pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(d, pos);
  }
  const suffixStart = pos;
  while (pos < end && SUFFIX_LETTERS.includes(str[pos])) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return { ok: false, reason: FORMAT };
  const suffix = str.slice(suffixStart);
  let coef = BigInt(`${num || '0'}${denom}`);
  let exp = -denom.length;
  if (suffix in DECIMAL_SUFFIX) exp += DECIMAL_SUFFIX[suffix];
  else if (suffix in BINARY_SUFFIX) coef <<= BigInt(BINARY_SUFFIX[suffix]);
  else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > 4 * MAX_MAGNITUDE_DIGITS)
      return { ok: false, reason: `its exponent ${suffix.slice(1)} is out of range` };
    exp += e;
  } else
    return {
      ok: false,
      reason: `its suffix "${suffix}" is not a quantity suffix (n, u, m, k, M, G, T, P, E, Ki … Ei, or e<integer>)`,
    };
  if (coef !== 0n && magnitude({ coef, exp }) > MAX_MAGNITUDE_DIGITS)
    return { ok: false, reason: `it is larger than 10^${MAX_MAGNITUDE_DIGITS}` };
  return { ok: true, value: roundUpToNano({ coef: negative ? -coef : coef, exp }) };
}

/** The decimal exponent of the first digit of a non-zero value. */
function magnitude(d: Decimal): number {
  const c = d.coef < 0n ? -d.coef : d.coef;
  return c.toString().length - 1 + d.exp;
}

/** ParseQuantity's rounding: to 9 fractional digits, away from zero (inf.RoundUp). */
function roundUpToNano(d: Decimal): Decimal {
  if (d.exp >= -9 || d.coef === 0n) return d;
  const drop = -9 - d.exp;
  const neg = d.coef < 0n;
  const c = neg ? -d.coef : d.coef;
  const digits = c.toString().length;
  let q: bigint;
  if (drop > digits) q = 1n;
  else {
    const p = pow10(drop);
    q = c / p + (c % p === 0n ? 0n : 1n);
  }
  return { coef: neg ? -q : q, exp: -9 };
}

/** A quantity written in a Tenant or a rendered object: a string parsed, a number taken as its shortest decimal. */
export function quantityOf(v: unknown): ParsedQuantity {
  if (typeof v === 'string') return parseQuantity(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { ok: false, reason: 'it is not a finite number' };
    // JSON carries the number's shortest digits; the API server parses those.
    return parseQuantity(v.toExponential().replace('e+', 'e'));
  }
  return {
    ok: false,
    reason: `it is ${v === null ? 'null' : Array.isArray(v) ? 'a list' : `a ${typeof v}`}, not a quantity`,
  };
}

/** Two decimals over one exponent (the smaller), exact. */
function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const exp = Math.min(a.exp, b.exp);
  return [a.coef * pow10(a.exp - exp), b.coef * pow10(b.exp - exp), exp];
}

export function decimalAdd(a: Decimal, b: Decimal): Decimal {
  const [x, y, exp] = align(a, b);
  return { coef: x + y, exp };
}

export function decimalSub(a: Decimal, b: Decimal): Decimal {
  return decimalAdd(a, { coef: -b.coef, exp: b.exp });
}

/** -1, 0 or 1 as a is below, equal to or above b. */
export function decimalCmp(a: Decimal, b: Decimal): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export const ZERO: Decimal = { coef: 0n, exp: 0 };

/** The decimal digits of a value, exactly (`-1.5`, `2147483648`, `0.000000001`). */
export function decimalText(d: Decimal): string {
  const neg = d.coef < 0n;
  let s = (neg ? -d.coef : d.coef).toString();
  let exp = d.exp;
  // Trailing zeros of a fraction go.
  while (exp < 0 && s.length > 1 && s.endsWith('0')) {
    s = s.slice(0, -1);
    exp++;
  }
  if (d.coef === 0n) return '0';
  if (exp >= 0) s += '0'.repeat(exp);
  else {
    const point = s.length + exp;
    s = point > 0 ? `${s.slice(0, point)}.${s.slice(point)}` : `0.${'0'.repeat(-point)}${s}`;
  }
  return `${neg ? '-' : ''}${s}`;
}

/**
 * A value as a person reads a quantity: the largest binary suffix that divides it exactly (`2Gi`,
 * `1Mi`), else its decimal digits with `m` for thousandths (`500m`) where exact, else the plain
 * digits.
 */
export function showQuantity(d: Decimal): string {
  if (d.coef === 0n) return '0';
  const neg = d.coef < 0n;
  const abs: Decimal = { coef: neg ? -d.coef : d.coef, exp: d.exp };
  const sign = neg ? '-' : '';
  const integer =
    abs.exp >= 0
      ? abs.coef * pow10(abs.exp)
      : abs.coef % pow10(-abs.exp) === 0n
        ? abs.coef / pow10(-abs.exp)
        : undefined;
  if (integer !== undefined) {
    for (const [suffix, bits] of Object.entries(BINARY_SUFFIX).reverse()) {
      const unit = 1n << BigInt(bits);
      if (integer >= unit && integer % unit === 0n) return `${sign}${integer / unit}${suffix}`;
    }
    return `${sign}${integer}`;
  }
  const milli = decimalText({ coef: abs.coef, exp: abs.exp + 3 });
  if (!milli.includes('.')) return `${sign}${milli}m`;
  return `${sign}${decimalText(abs)}`;
}

/** The largest int64, the bound of a quantity's `Value()` (a quantity beyond it overflows). */
export const MAX_INT64: Decimal = { coef: 2n ** 63n - 1n, exp: 0 };
