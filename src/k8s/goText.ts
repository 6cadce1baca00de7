/**
 * How Go prints a value into text where the charts cozy-gw reproduces print one: sprig's `quote`
 * (Go's `%q` of the value's `%v`, docs/behaviour.md §1) and `%v` itself. Numbers are the float64
 * a YAML number decodes to (docs/decisions.md §16). Pure.
 */
import { goFormatFloat } from './goDecimal';

/** Go's `%v` of a decoded YAML value: `[a b]` for a list, `map[k:v]` (keys sorted) for a map, `<nil>` for null. */
export function goSprint(v: unknown): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFormatFloat(v);
  if (Array.isArray(v)) return `[${v.map(goSprint).join(' ')}]`;
  if (typeof v === 'object') {
    const m = v as Record<string, unknown>;
    return `map[${Object.keys(m)
      .sort()
      .map((k) => `${k}:${goSprint(m[k])}`)
      .join(' ')}]`;
  }
  return String(v);
}

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;
const ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** Go's `strconv.Quote` (`%q`): double quotes, printable runes as they are, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else if (PRINTABLE.test(ch)) out += ch;
    else {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}
