/**
 * JSON input at `JSON.parse` speed (docs/commands/snapshot.md: a `kubectl get -o json` List or a
 * cozy-gw `-o json` output is read as fast as JSON is parsed), with positions found only when a
 * finding asks for one.
 *
 * - parseJsonFast, sameAsYaml, countJsonKeys: the value of a text that is one JSON document, read
 *   with `JSON.parse`, and whether it is certain to be the value js-yaml gives for the same text:
 *   no key repeated in a mapping (js-yaml refuses it; `JSON.parse` lets the last one win), no
 *   number js-yaml reads otherwise (`-0` it reads as 0, `1e400` as a string), no nesting js-yaml
 *   refuses. The caller reads any other text with js-yaml, with js-yaml's values, errors and lines.
 * - JsonPositions: the offset, and the line, of a path inside a JSON text, found by walking the
 *   text's structure from the root (no tree is built); the offsets of the elements of an array
 *   walked are remembered, so placing many findings in one `items` list walks it once.
 *
 * Pure: no I/O, no module state.
 */
import { COST, MAX_DEPTH, MAX_OBJECT_BYTES } from '../k8s/limits';
import { isList } from '../k8s/lists';
import { NON_PRINTABLE } from '../k8s/yaml';

/** The byte-order mark a file may begin with (the YAML reader drops it too). */
const BOM = 0xfeff;

/** Whether a text's first character, after a byte-order mark and white space, opens a JSON object or array. */
export function looksLikeJson(text: string): boolean {
  let i = text.charCodeAt(0) === BOM ? 1 : 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) return true;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return false;
}

/**
 * The keys of every JSON object in a text that `JSON.parse` accepted: each string token followed
 * (after white space) by a colon. Exact, not an estimate: strings are skipped as tokens (an
 * escaped quote never ends one), so a colon inside a string, or JSON held in a string value
 * (kubectl's last-applied-configuration annotation), counts nothing.
 */
export function countJsonKeys(text: string): number {
  let n = 0;
  let i = text.indexOf('"');
  while (i >= 0) {
    const end = stringEnd(text, i);
    let j = end;
    for (let c = text.charCodeAt(j); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++j));
    if (text.charCodeAt(j) === 0x3a /* : */) n++;
    i = text.indexOf('"', j);
  }
  return n;
}

/** The offset just past the string token that opens at `i` (a `"`): the first quote after it not escaped. */
function stringEnd(text: string, i: number): number {
  let q = text.indexOf('"', i + 1);
  while (q >= 0) {
    let backslashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === 0x5c /* \ */; k--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    q = text.indexOf('"', q + 1);
  }
  return text.length;
}

/**
 * The characters of NON_PRINTABLE a text `JSON.parse` accepted can still hold: `JSON.parse` refuses
 * every control character below U+0020 but tab, line feed and carriage return (white space outside
 * a string, nothing inside one), so only DEL, the C1 controls but NEL, U+FFFE/U+FFFF and surrogates
 * remain. One character class is a third quicker to scan than NON_PRINTABLE's alternation.
 */
const JSON_SUSPECT = /[\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]/;

/**
 * Whether js-yaml reads every character of a text `JSON.parse` accepted (NON_PRINTABLE finds none).
 * The whole pattern is asked only of a text that holds one of the characters it could find.
 *
 * `bytes`, when known, is the number of UTF-8 bytes the text was decoded from (an element of a
 * List read item by item, src/io/jsonList.ts). UTF-8 never decodes to more UTF-16 units than it has
 * bytes, and to as many only when each byte is a character of its own: an ASCII one, or U+FFFD for
 * a byte that is no UTF-8. Of those JSON_SUSPECT holds only DEL, which a character search finds,
 * several times quicker than the class (docs/performance.md).
 */
export function printableJson(text: string, bytes?: number): boolean {
  if (text.length === bytes) return text.indexOf('\x7f') < 0;
  return !JSON_SUSPECT.test(text) || !NON_PRINTABLE.test(text);
}

/** The value of a text `JSON.parse` accepts (a byte-order mark dropped first), or undefined. */
export function parseJsonFast(text: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === BOM ? text.slice(1) : text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The number of mapping entries in a parsed JSON value, or undefined when js-yaml could read the
 * same text otherwise, or when the value passes a bound of src/k8s/limits.ts: a number that is -0
 * or not finite (js-yaml reads `-0` as 0 and `1e400` as a string), a collection MAX_DEPTH levels
 * deep (js-yaml counts every node, the scalars at the bottom too, and refuses more than
 * MAX_DEPTH), or a part larger than MAX_OBJECT_BYTES by limits.ts's measure (each item of a List
 * and the rest of it, else the whole value; JSON has no aliases, so the size is the tree's). One
 * walk answers all three, so a value it counts passes checkParsed (whose depth, counted from each
 * part, is never more than the one counted here from the root). A text with more keys than its
 * value has entries (countJsonKeys) repeats a key. Stops at that depth: never deeper than MAX_DEPTH
 * frames.
 */
export function sameAsYaml(value: unknown): number | undefined {
  let entries = 0;
  // The size limits.ts measures, or -1 where js-yaml would read the value otherwise.
  const size = (v: unknown, level: number): number => {
    if (typeof v === 'string') return COST.string(v);
    if (typeof v === 'number') return (v === 0 ? 1 / v > 0 : Number.isFinite(v)) ? COST.scalar : -1;
    if (v === null || typeof v !== 'object') return COST.scalar;
    if (level >= MAX_DEPTH) return -1;
    let n = COST.collection;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const m = size(v[i], level + 1);
        if (m < 0) return -1;
        n += m + COST.item;
      }
      return n;
    }
    // for-in, not Object.keys: no array of keys made per object (JSON.parse's objects have no
    // enumerable inherited key, and for-in walks own keys in Object.keys's order).
    for (const k in v as Record<string, unknown>) {
      entries++;
      const m = size((v as Record<string, unknown>)[k], level + 1);
      if (m < 0) return -1;
      n += COST.entry(k) + m;
    }
    return n;
  };
  if (!isList(value)) {
    const n = size(value, 1);
    return n < 0 || n > MAX_OBJECT_BYTES ? undefined : entries;
  }
  // A List: every item on its own (at level 3: the List, its items, the item), then the rest.
  const items = value.items;
  for (let i = 0; i < items.length; i++) {
    const n = size(items[i], 3);
    if (n < 0 || n > MAX_OBJECT_BYTES) return undefined;
  }
  const keys = Object.keys(value);
  entries += keys.length;
  let rest = COST.collection;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] === 'items') continue;
    const n = size(value[keys[i]], 2);
    if (n < 0) return undefined;
    rest += COST.entry(keys[i]) + n;
  }
  return rest > MAX_OBJECT_BYTES ? undefined : entries;
}

/** JSON's white space between tokens (a character code, or a byte: all four are ASCII). */
export const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Where a place in a JSON text is: its offset (the key of a member, the first character of an element) and line. */
export class JsonPositions {
  /** Offsets of the elements found so far of each array walked, by the offset of its `[`. */
  private readonly elements = new Map<number, { offsets: number[]; done: boolean }>();
  private lineStarts: number[] | undefined;

  constructor(private readonly text: string) {}

  /** The offset of the root value. */
  root(): number {
    return this.skipWs(this.text.charCodeAt(0) === BOM ? 1 : 0);
  }

  /** Whether the value at an offset is an object or an array. */
  isObject(at: number): boolean {
    return this.text.charCodeAt(at) === 0x7b;
  }
  isArray(at: number): boolean {
    return this.text.charCodeAt(at) === 0x5b;
  }

  /** The member `key` of the object at `at`: the offsets of its key and of its value. */
  member(at: number, key: string): { key: number; value: number } | undefined {
    const t = this.text;
    let p = this.skipWs(at + 1);
    while (t.charCodeAt(p) === 0x22 /* " */) {
      const end = stringEnd(t, p);
      const raw = t.slice(p + 1, end - 1);
      const name = raw.indexOf('\\') < 0 ? raw : (JSON.parse(t.slice(p, end)) as string);
      const colon = this.skipWs(end);
      const value = this.skipWs(colon + 1);
      if (name === key) return { key: p, value };
      p = this.skipWs(this.valueEnd(value));
      if (t.charCodeAt(p) !== 0x2c /* , */) return undefined;
      p = this.skipWs(p + 1);
    }
    return undefined;
  }

  /** The offset of element `index` of the array at `at`. */
  element(at: number, index: number): number | undefined {
    const t = this.text;
    let known = this.elements.get(at);
    if (!known) {
      const first = this.skipWs(at + 1);
      known = t.charCodeAt(first) === 0x5d /* ] */ ? { offsets: [], done: true } : { offsets: [first], done: false };
      this.elements.set(at, known);
    }
    while (known.offsets.length <= index && !known.done) {
      const p = this.skipWs(this.valueEnd(known.offsets[known.offsets.length - 1]));
      if (t.charCodeAt(p) === 0x2c) known.offsets.push(this.skipWs(p + 1));
      else known.done = true;
    }
    return known.offsets[index];
  }

  /** The 1-based line of an offset; lines end at \r\n, \r or \n. */
  line(offset: number): number {
    const starts = (this.lineStarts ??= lineStartsOf(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  private skipWs(p: number): number {
    const t = this.text;
    while (p < t.length && WS(t.charCodeAt(p))) p++;
    return p;
  }

  /** The offset just past the value that starts at `p`. */
  private valueEnd(p: number): number {
    const t = this.text;
    const c = t.charCodeAt(p);
    if (c === 0x22) return stringEnd(t, p);
    if (c !== 0x7b && c !== 0x5b) {
      while (p < t.length) {
        const d = t.charCodeAt(p);
        if (d === 0x2c || d === 0x7d || d === 0x5d || WS(d)) break;
        p++;
      }
      return p;
    }
    // A collection: to its matching bracket, strings skipped as tokens.
    let depth = 0;
    for (; p < t.length; p++) {
      const d = t.charCodeAt(p);
      if (d === 0x22) p = stringEnd(t, p) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return p + 1;
    }
    return p;
  }
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) starts.push(i + 1);
  }
  return starts;
}
