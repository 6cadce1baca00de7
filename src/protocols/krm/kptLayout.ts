/**
 * New items written as kpt lays out its own files (compact sequences, no folding), their
 * scalars the YAML-1.1-safe way: the text the `yaml` library writes (text.ts STRINGIFY) for the
 * failsafe reading of js-yaml's dump (src/k8s/yaml.ts), produced here directly, one entry at a
 * time, without building either document. That round trip, over every generated object of a
 * large tree at once, was most of `fn`'s time and memory.
 *
 * How each scalar is written is still asked of the two libraries: js-yaml dumps it as a mapping
 * value or key, the `yaml` library reads that line with the failsafe schema and writes it back
 * (memoised for one run: the memo is made per call, never kept in the module). Strings a letter
 * begins, made of letters, digits and `._/-,()=;+@'"`, inner spaces and colons not followed by
 * one, are plain in both and skip the question; a multi-line string both write as the same literal
 * block (safeLiteralBlock) is written directly. Anything the layout below does not cover (any other
 * multi-line string, a key written over several lines, a string that could read as a document marker
 * (DOCUMENT_MARKER), a sequence directly inside a sequence, a value that is not
 * JSON-like data) makes `kptEntry` answer undefined, and the caller writes that item by the round
 * trip itself. test/protocols/kptLayout.property.test.ts checks the two agree byte for byte.
 * Pure.
 */
import { parseDocument } from 'yaml';
import * as jsyaml from 'js-yaml';
import { DUMP_OPTIONS, isAmbiguousWord, literalBlock } from '../../k8s/yaml';

/** kpt's own layout (compact sequences), and no folding of long lines. */
export const STRINGIFY = { lineWidth: 0, minContentWidth: 0, indentSeq: false } as const;

/** What one run has already asked the libraries: how a value and a key are written. */
export interface LayoutMemo {
  value: Map<unknown, string | null>;
  key: Map<string, string | null>;
}

export function newLayoutMemo(): LayoutMemo {
  return { value: new Map(), key: new Map() };
}

const MEMO_LIMIT = 200_000;
const SIMPLE = /^[A-Za-z](?:[A-Za-z0-9._/\-,()=;+@'" :]*[A-Za-z0-9._/\-,()=;+@'"])?$/;
/** Plain in both libraries: SIMPLE with no `: ` (a colon inside a word, `cozy:tenant-a:dashboard`, stays plain). */
function plain(s: string): boolean {
  return SIMPLE.test(s) && !isAmbiguousWord(s) && s.indexOf(': ') < 0;
}

/**
 * A string with what could read as a document marker at a line's start (`%`, `---`, `...`): the
 * `yaml` library writes it by where it stands (at no indentation a block scalar, as a key one step
 * in quoted, deeper plain), so how it is written at the top level says nothing of elsewhere. Left to
 * the round trip.
 */
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;

class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported();

/** The `yaml` library's failsafe rewrite of one line `key: value` js-yaml wrote, or null. */
function rewrite(line: string): string | null {
  const doc = parseDocument(line, { schema: 'failsafe' });
  if (doc.errors.length || doc.warnings.length) return null;
  const out = doc.toString(STRINGIFY);
  return out.indexOf('\n') === out.length - 1 ? out.slice(0, -1) : null;
}

function remember<K, V>(m: Map<K, V>, k: K, v: V): V {
  if (m.size >= MEMO_LIMIT) m.clear();
  m.set(k, v);
  return v;
}

/**
 * A scalar as a mapping value: one line, or a block scalar's header line and its lines indented
 * for a key at the top level (value() indents them for its own key).
 */
function scalarText(v: unknown, memo: LayoutMemo): string {
  if (typeof v === 'string') {
    if (plain(v)) return v;
    if (DOCUMENT_MARKER.test(v)) throw UNSUPPORTED;
    // Multi-line strings are mostly one of a kind (each tenant's values.yaml): not worth a memo entry.
    // Any other multi-line string is left to the round trip, item by item: how the `yaml` library
    // writes a block scalar with trailing white space depends on what follows it (a blank line kept
    // before a next key, dropped at the end), so its text cannot be reused elsewhere.
    if (v.indexOf('\n') >= 0) {
      const block = safeLiteralBlock(v);
      if (block === undefined) throw UNSUPPORTED;
      return block;
    }
  }
  // (a Map does not tell 0 from -0)
  let text = v === 0 ? undefined : memo.value.get(v);
  if (text === undefined) {
    const doc = parseDocument(jsyaml.dump({ k: v }, DUMP_OPTIONS), { schema: 'failsafe' });
    const out = doc.errors.length || doc.warnings.length ? '' : doc.toString(STRINGIFY);
    const oneLine = out.indexOf('\n') === out.length - 1;
    text =
      out.startsWith('k: ') && (oneLine || out.startsWith('k: |') || out.startsWith('k: >')) ? out.slice(3, -1) : null;
    if (v !== 0) remember(memo.value, v, text);
  }
  if (text === null) throw UNSUPPORTED;
  return text;
}

/**
 * Lines both libraries write as the same literal block without being asked: printable ASCII and
 * line breaks, a first character that is no space (no indentation indicator), no line ending in
 * a space, and at most one final line break (`|` clips it, `|-` has none; `|+` is left to them).
 */
const LITERAL_SAFE = /^[\x21-\x7E][\x20-\x7E\n]*$/;

/**
 * A multi-line string as the round trip writes it for a key at the top level, or undefined: on
 * LITERAL_SAFE strings the `yaml` library writes js-yaml's own literal block (src/k8s/yaml.ts).
 */
function safeLiteralBlock(s: string): string | undefined {
  if (s.indexOf('\n') < 0 || s.indexOf(' \n') >= 0 || s.endsWith(' ') || s.endsWith('\n\n')) return undefined;
  return LITERAL_SAFE.test(s) ? literalBlock(s, 1) : undefined;
}

/** A scalar on one line (a sequence item). */
function scalar(v: unknown, memo: LayoutMemo): string {
  const text = scalarText(v, memo);
  if (text.indexOf('\n') >= 0) throw UNSUPPORTED;
  return text;
}

/**
 * A block scalar's lines for a key at indentation `ind`: the `yaml` library indents every line
 * that is not empty by the key's indentation and two, and nothing else depends on it.
 */
function reindent(text: string, ind: string): string {
  if (ind === '') return text;
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) if (lines[i].startsWith('  ')) lines[i] = ind + lines[i];
  return lines.join('\n');
}

function key(k: string, memo: LayoutMemo): string {
  // Keys repeat across every object (apiVersion, metadata, labels): the memo first, plain ones too.
  let text = memo.key.get(k);
  if (text === undefined) {
    if (plain(k)) text = k;
    else if (DOCUMENT_MARKER.test(k)) text = null;
    else {
      const line = rewrite(jsyaml.dump({ [k]: 'x' }, DUMP_OPTIONS));
      text = line !== null && line.endsWith(': x') && !line.startsWith('? ') ? line.slice(0, -3) : null;
    }
    remember(memo.key, k, text);
  }
  if (text === null) throw UNSUPPORTED;
  return text;
}

const toString = Object.prototype.toString;
function shape(v: unknown): 'map' | 'seq' | 'scalar' {
  if (v === null) return 'scalar';
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return 'scalar';
    case 'object': {
      const t = toString.call(v);
      if (t === '[object Array]') return 'seq';
      if (t === '[object Object]') return 'map';
      throw UNSUPPORTED;
    }
    default:
      throw UNSUPPORTED;
  }
}

/**
 * The pairs of a mapping at indentation `ind`, the first one's indentation left to the caller;
 * '' when it has none (js-yaml leaves out a key whose value is undefined).
 */
function pairs(o: Record<string, unknown>, ind: string, memo: LayoutMemo): string {
  let out = '';
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = o[k];
    if (v === undefined) continue;
    if (out !== '') out += ind;
    out += key(k, memo);
    out += ':';
    out += value(v, ind, memo);
  }
  return out;
}

/** Indentation two spaces deeper than `ind`, a run of spaces (made once per width). */
const DEEPER: readonly string[] = Array.from({ length: 128 }, (_, n) => ' '.repeat(n + 2));
function deeper(ind: string): string {
  return DEEPER[ind.length] ?? ind + '  ';
}

/** A mapping value after its key's colon, through the end of its last line. */
function value(v: unknown, ind: string, memo: LayoutMemo): string {
  const s = shape(v);
  if (s === 'scalar') {
    const text = scalarText(v, memo);
    return ` ${text.indexOf('\n') < 0 ? text : reindent(text, ind)}\n`;
  }
  if (s === 'map') {
    const inner = deeper(ind);
    const body = pairs(v as Record<string, unknown>, inner, memo);
    return body === '' ? ' {}\n' : `\n${inner}${body}`;
  }
  const a = v as unknown[];
  if (a.length === 0) return ' []\n';
  // Compact sequences: the items at the key's own indentation.
  let out = '\n';
  for (let i = 0; i < a.length; i++) out += item(a[i], ind, memo);
  return out;
}

/** One sequence item at indentation `ind`: `- ` and its content. */
function item(v: unknown, ind: string, memo: LayoutMemo): string {
  if (v === undefined) throw UNSUPPORTED;
  const s = shape(v);
  if (s === 'scalar') return `${ind}- ${scalar(v, memo)}\n`;
  if (s === 'seq') {
    if ((v as unknown[]).length === 0) return `${ind}- []\n`;
    throw UNSUPPORTED;
  }
  const body = pairs(v as Record<string, unknown>, deeper(ind), memo);
  return body === '' ? `${ind}- {}\n` : `${ind}- ${body}`;
}

/**
 * The pairs of a mapping as pairs() writes them, but the value of the key `name` written by `own`
 * (given the mapping's value, even undefined), and that key added last where the mapping lacks it.
 */
function pairsWith(
  o: Record<string, unknown>,
  ind: string,
  memo: LayoutMemo,
  name: string,
  own: (v: unknown) => string,
): string {
  let out = '';
  let seen = false;
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = o[k];
    const mine = k === name;
    if (v === undefined && !mine) continue;
    if (out !== '') out += ind;
    out += key(k, memo);
    out += ':';
    out += mine ? own(v) : value(v, ind, memo);
    seen ||= mine;
  }
  if (seen) return out;
  return `${out}${out !== '' ? ind : ''}${key(name, memo)}:${own(undefined)}`;
}

/** Own annotations with the marks set over them (a mark in an own one's place, the others after), as withMarks sets them. */
function markedAnnotations(own: unknown, marks: Record<string, string>): Record<string, unknown> {
  if (own === undefined) return marks;
  const out: Record<string, unknown> = { ...(own as Record<string, unknown>) };
  for (const k of Object.keys(marks)) out[k] = marks[k];
  return out;
}

/**
 * The entry kptEntry writes for the object with the generated marks among its annotations, as
 * items.ts withMarks makes it (a new metadata whose annotations are the object's own and then the
 * marks, `annotations` added last where it has none), without making that copy; undefined where
 * kptEntry would answer so.
 */
export function kptMarkedEntry(
  o: Record<string, unknown>,
  marks: Record<string, string>,
  indent: string,
  memo: LayoutMemo,
): string | undefined {
  try {
    const inner = deeper(indent);
    const metadata = (m: unknown) => {
      if (m === undefined || shape(m) !== 'map') throw UNSUPPORTED;
      const at = deeper(inner);
      const annotations = (a: unknown) => value(markedAnnotations(a, marks), at, memo);
      return `\n${at}${pairsWith(m as Record<string, unknown>, at, memo, 'annotations', annotations)}`;
    };
    return `${indent}- ${pairsWith(o, inner, memo, 'metadata', metadata)}`;
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

/**
 * The block sequence entry for `value` with its `-` at indentation `indent` (spaces), as the
 * round trip writes it; undefined where this layout does not cover the value.
 */
export function kptEntry(value: unknown, indent: string, memo: LayoutMemo): string | undefined {
  try {
    return item(value, indent, memo);
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}
