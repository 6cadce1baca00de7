/**
 * YAML text, both ways. Reading: every input is read with the YAML core schema (LOAD_OPTIONS).
 * Writing manifests: YAML is js-yaml's, byte for byte: js-yaml quotes the strings a
 * YAML 1.1 reader (kubectl, sigs.k8s.io/yaml) would take for booleans or numbers (`yes`, `on`,
 * `0777`), so the output reads back with the types it was written with.
 *
 * For speed (printing is half of a large reconcile), documents made of plain data are
 * written by a small emitter that reproduces js-yaml's block style for the options below, and
 * asks js-yaml itself how to write any scalar that is not obviously plain (memoised for the
 * length of one stream: the memo is made per call, never kept in the module). Anything
 * else — a key that needs quoting across lines or is over 1024 characters, a value that is not
 * JSON-like data — falls back to js-yaml for the whole document. test/bench/bench-output.test.ts
 * and test/k8s/yaml*.test.ts check the two agree byte for byte, on fixed cases and on generated data.
 */
import * as jsyaml from 'js-yaml';
import type { KObject } from './model';

/**
 * How every input is read: the YAML core schema, as Kubernetes reads manifests (JSON types only).
 * js-yaml's default schema would turn `2024-05-01` or an unquoted timestamp into a Date and
 * write it back as `2024-05-01T00:00:00.000Z`, corrupting a ConfigMap value or a condition time.
 */
export const LOAD_OPTIONS = Object.freeze({ schema: jsyaml.CORE_SCHEMA });

/** The characters js-yaml refuses anywhere in a stream it reads (its PATTERN_NON_PRINTABLE). */
export const NON_PRINTABLE =
  /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;

/** js-yaml's options for the manifests written (test/helpers/yamlReference.ts dumps with them as the oracle). */
export const DUMP_OPTIONS: Readonly<jsyaml.DumpOptions> = Object.freeze({
  noRefs: true,
  lineWidth: -1,
  sortKeys: false,
  quotingType: '"',
});
const OPTIONS = DUMP_OPTIONS;

export function dumpYaml(value: unknown, memo: Memo = newMemo()): string {
  try {
    const out = node(value, 0, true, memo);
    return out === undefined ? '' : out + '\n';
  } catch (e) {
    if (e === UNSUPPORTED) return jsyaml.dump(value, OPTIONS);
    throw e;
  }
}

/** Multi-document YAML, `---` between documents; empty string for no documents. */
export function toYamlStream(objs: unknown[]): string {
  const memo = newMemo();
  return objs.map((o) => dumpYaml(o, memo)).join('---\n');
}

/**
 * The same stream as toYamlStream, in pieces of about `chunkSize` characters, each made when it
 * is asked for: a caller writing them one by one never holds the whole text. The
 * pieces joined are toYamlStream's text, byte for byte. 64 Ki characters by default: a piece is
 * made flat when it is written, and a flat string this small is made in V8's young generation,
 * whose memory is reused from piece to piece; a piece of a megabyte was a large object, fresh
 * memory each time (18 MB of them for an 18 MB output, docs/performance.md).
 */
export function* yamlStreamChunks(objs: unknown[], chunkSize = 1 << 16): Generator<string> {
  const memo = newMemo();
  let buf = '';
  for (let i = 0; i < objs.length; i++) {
    if (i > 0) buf += '---\n';
    buf += dumpYaml(objs[i], memo);
    if (buf.length >= chunkSize) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}

export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

export function toJsonList(objs: KObject[]): string {
  return toJson({ apiVersion: 'v1', kind: 'List', items: objs });
}

// --- the emitter -------------------------------------------------------------------------------

const UNSUPPORTED = Symbol('unsupported');
const toString = Object.prototype.toString;

/**
 * Strings js-yaml writes plain without a second look: a letter first (no indicator), then
 * letters, digits, spaces and `._/-,()=;+@'"`, and no space last. None of these makes a `: ` or
 * ` #`, and among such strings only the words below resolve to another type (js-yaml's null and
 * bool, and the YAML 1.1 booleans it quotes): every number, timestamp and base-60 form starts
 * with a digit, a sign or a dot.
 */
const SIMPLE = /^[A-Za-z](?:[A-Za-z0-9._/\-,()=;+@'" ]*[A-Za-z0-9._/\-,()=;+@'"])?$/;
const AMBIGUOUS_WORDS = new Set([
  'null',
  'Null',
  'NULL',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
]);
/** One of the words above: none is longer than five letters, so a longer string is never hashed to ask. */
export function isAmbiguousWord(s: string): boolean {
  return s.length <= 5 && AMBIGUOUS_WORDS.has(s);
}

/**
 * What one stream has already asked js-yaml: the rendering of a single-line string or a number
 * (it depends on nothing but the value), of a multi-line string at level 0 (indented by 2), and
 * of a key. Keys and values repeat across the objects of a stream (apiVersion, metadata, labels).
 */
export interface Memo {
  scalar: Map<string, string>;
  number: Map<number, string>;
  block: Map<string, string>;
  key: Map<string, string>;
}

export function newMemo(): Memo {
  return { scalar: new Map(), number: new Map(), block: new Map(), key: new Map() };
}

const CACHE_LIMIT = 200_000;

function remember<K, V>(m: Map<K, V>, k: K, v: V): V {
  if (m.size >= CACHE_LIMIT) m.clear();
  m.set(k, v);
  return v;
}

/**
 * Single-line strings js-yaml writes between double quotes as they are: printable ASCII without
 * `"` or `\` (escapeString changes none of its characters) that it cannot write plain, a `*`
 * first (an alias) or a `: ` anywhere (a mapping); with quotingType `"` and no line width,
 * chooseScalarStyle double-quotes every single-line string it cannot write plain. A wildcard
 * hostname and a status message are the common ones (thousands in a large reconcile, each a
 * call into js-yaml's dumper before it was memoised).
 */
const DOUBLE_QUOTED =
  /^(?:\*[\x20\x21\x23-\x5B\x5D-\x7E]*|[\x20\x21\x23-\x5B\x5D-\x7E]*: [\x20\x21\x23-\x5B\x5D-\x7E]*)$/;

function stringScalar(s: string, level: number, memo: Memo): string {
  if (SIMPLE.test(s) && !isAmbiguousWord(s)) return s;
  if (s.indexOf('\n') < 0) {
    if (DOUBLE_QUOTED.test(s)) return `"${s}"`;
    return memo.scalar.get(s) ?? remember(memo.scalar, s, jsyaml.dump(s, OPTIONS).slice(0, -1));
  }
  // A multi-line string of printable ASCII: js-yaml's literal block scalar, written here (for speed:
  // js-yaml's character-by-character style check was most of render's printing).
  if (PRINTABLE_ASCII.test(s)) return literalBlock(s, level);
  // Otherwise a literal block scalar indented 2 * max(1, level), or a double-quoted one
  // (non-printable characters) that does not depend on the level. js-yaml indents every
  // non-empty line and leaves empty ones bare, so re-indenting level 0's text is exact.
  const top = memo.block.get(s) ?? remember(memo.block, s, jsyaml.dump(s, OPTIONS).slice(0, -1));
  if (top[0] !== '|' || level <= 1) return top;
  const ind = ' '.repeat(2 * level);
  const lines = top.split('\n');
  for (let i = 1; i < lines.length; i++) if (lines[i].length) lines[i] = ind + lines[i].slice(2);
  return lines.join('\n');
}

/** Printable ASCII and line feeds only: every character js-yaml's isPrintable admits as is. */
const PRINTABLE_ASCII = /^[\x20-\x7E\n]*$/;

/**
 * js-yaml's writeScalar for a multi-line string of printable characters with lineWidth -1
 * (STYLE_LITERAL): `|`, an indentation indicator when the first non-empty line starts with a
 * space, the chomping indicator (`-` no final line break, none for one, `+` for more), then every
 * non-empty line indented by 2 * max(1, level), the final line break dropped.
 */
export function literalBlock(s: string, level: number): string {
  const n = s.length;
  const clip = s.charCodeAt(n - 1) === 10;
  const keep = clip && (n === 1 || s.charCodeAt(n - 2) === 10);
  let out = LEADING_SPACE.test(s) ? '|2' : '|';
  if (keep) out += '+';
  else if (!clip) out += '-';
  const ind = level <= 1 ? '  ' : ' '.repeat(2 * level);
  let start = 0;
  while (start < n) {
    const end = s.indexOf('\n', start);
    const stop = end < 0 ? n : end;
    out += stop > start ? '\n' + ind + s.slice(start, stop) : '\n';
    start = stop + 1;
  }
  return out;
}
const LEADING_SPACE = /^\n* /;

function keyScalar(k: string, memo: Memo): string {
  const hit = memo.key.get(k);
  if (hit !== undefined) return hit;
  return remember(memo.key, k, keyScalarUncached(k, memo));
}

function keyScalarUncached(k: string, memo: Memo): string {
  if (SIMPLE.test(k) && !isAmbiguousWord(k)) return k;
  // js-yaml writes keys on one line only and makes an explicit `? ` pair of long ones.
  if (k.indexOf('\n') >= 0 || k.length > 1024) throw UNSUPPORTED;
  const out = stringScalar(k, 0, memo);
  if (out.length > 1024) throw UNSUPPORTED;
  return out;
}

/** A line break and the indentation of each level, made up front (a lookup past the end deoptimised the emitter). */
const NL: readonly string[] = Object.freeze(Array.from({ length: 64 }, (_, l) => '\n' + ' '.repeat(2 * l)));
function nl(level: number): string {
  return NL[level] ?? '\n' + ' '.repeat(2 * level);
}

/**
 * js-yaml's writeNode for block style (flowLevel -1, indent 2, noArrayIndent false): the text
 * of `v` at `level`, or undefined where js-yaml writes nothing (undefined).
 */
function node(v: unknown, level: number, compact: boolean, memo: Memo): string | undefined {
  switch (typeof v) {
    case 'string':
      return v.length === 0 ? '""' : stringScalar(v, level, memo);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      // (a Map does not tell 0 from -0, which js-yaml writes as -0.0)
      if (v === 0) return jsyaml.dump(v, OPTIONS).slice(0, -1);
      return memo.number.get(v) ?? remember(memo.number, v, jsyaml.dump(v, OPTIONS).slice(0, -1));
    case 'undefined':
      return undefined;
    case 'object': {
      if (v === null) return 'null';
      const t = toString.call(v);
      if (t === '[object Array]') return sequence(v as unknown[], level, compact, memo);
      if (t === '[object Object]') return mapping(v as Record<string, unknown>, level, compact, memo);
      throw UNSUPPORTED;
    }
    default:
      throw UNSUPPORTED;
  }
}

function mapping(o: Record<string, unknown>, level: number, compact: boolean, memo: Memo): string {
  let out = '';
  // for-in, not Object.keys: no array of keys per object written (the objects written inherit no
  // enumerable key, and for-in walks the own keys in Object.keys's order).
  for (const k in o) {
    const v = o[k];
    const vs = node(v, level + 1, false, memo);
    if (vs === undefined) continue;
    if (!compact || out !== '') out += nl(level);
    out += keyScalar(k, memo);
    out += opensOnNewLine(v) ? ':' : ': ';
    out += vs;
  }
  return out === '' ? '{}' : out;
}

/**
 * Whether the text node() writes for a mapping's value (not compact) starts with a line break: a
 * sequence with items, or a mapping with an entry js-yaml writes; no scalar's text does. Told from
 * the value, not read from the text: the text of a collection is a concatenation, and reading its
 * first character made V8 copy it whole into one flat string, at every level of nesting (a fifth
 * of what printing allocated).
 */
function opensOnNewLine(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  for (const k in v) if ((v as Record<string, unknown>)[k] !== undefined) return true;
  return false;
}

function sequence(a: unknown[], level: number, compact: boolean, memo: Memo): string {
  if (a.length === 0) return '[]';
  // In a mapping (not compact), js-yaml writes the sequence at the mapping value's level: the
  // caller already passes level + 1. An item is written compact: its text never starts with a
  // line break (a mapping starts with its first key, a sequence with its first `-`).
  let out = '';
  for (let i = 0; i < a.length; i++) {
    let vs = node(a[i], level + 1, true, memo);
    if (vs === undefined) vs = 'null';
    if (!compact || out !== '') out += nl(level);
    out += '- ';
    out += vs;
  }
  return out;
}
