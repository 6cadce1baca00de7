/**
 * A fast reader for the YAML that Kubernetes tools write: block mappings and sequences, two or
 * more spaces of indentation, one-line plain and quoted scalars and literal block scalars, as
 * cozy-gw's own writer (src/k8s/yaml.ts), `kubectl get -o yaml` and most hand-written manifests lay
 * them out. It reads such a stream line by line, several times faster than the general parser,
 * and gives exactly the values js-yaml gives with the core schema (LOAD_OPTIONS): plain scalars
 * are resolved by js-yaml's own core-schema types, in its order, and keys are stringified as
 * js-yaml stringifies them.
 *
 * It answers only where it is sure: anything outside that subset (flow collections other than
 * `[]` and `{}`, folded or indented block scalars, anchors, aliases, tags, directives, comments
 * after a value, a scalar over several lines, tabs, a repeated key, `__proto__`, carriage returns,
 * characters js-yaml refuses) makes it return undefined, and the caller reads the text with js-yaml,
 * its values, errors and lines. test/k8s/yamlFastRead*.test.ts hold it to js-yaml's result on fixed
 * and generated streams. Pure, and not recursive: nesting is an explicit stack.
 */
import * as jsyaml from 'js-yaml';
import { NON_PRINTABLE } from './yaml';

/** The core schema's implicit types (null, bool, int, float), in the order js-yaml tries them. */
interface ImplicitType {
  resolve: (s: string) => boolean;
  construct: (s: string) => unknown;
}
const IMPLICIT = (jsyaml.CORE_SCHEMA as unknown as { compiledImplicit: ImplicitType[] }).compiledImplicit;

/** Why the fast reader gives up: the caller reads the text with js-yaml instead. */
const GIVE_UP = Symbol('give up');
type Answer<T> = T | typeof GIVE_UP;

/**
 * What this reader leaves to js-yaml wherever it occurs: the characters js-yaml refuses in a stream
 * (NON_PRINTABLE), tabs, carriage returns, the other line breaks (NEL, U+2028, U+2029) and
 * byte-order marks.
 */
const REFUSED = new RegExp(`${NON_PRINTABLE.source}|[\\t\\r\\x85\\u2028\\u2029\\uFEFF]`);

/**
 * A first character that could make a plain scalar something other than a string: ~ n N t T f F
 * - + . 0-9. After a letter only js-yaml's null and bool words resolve (its int and float forms all
 * start with a sign, a digit or a dot): 2 marks those letters, and a plain scalar starting with
 * one (`tenant-a`, `namespace`, `true`) is asked of the resolvers only when it is one of the words.
 */
const MAY_RESOLVE = new Uint8Array(128);
for (const c of '~-+.0123456789') MAY_RESOLVE[c.charCodeAt(0)] = 1;
for (const c of 'nNtTfF') MAY_RESOLVE[c.charCodeAt(0)] = 2;
const NULL_OR_BOOL = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
/** The characters no plain scalar starts with here: , [ ] { } # & * ! | > ' " % @ ` ? : (`-` only before a space). */
const NOT_PLAIN = new Uint8Array(128);
for (const c of ',[]{}#&*!|>\'"%@`?:') NOT_PLAIN[c.charCodeAt(0)] = 1;

const SPACE = 0x20;
const COLON = 0x3a;
const HASH = 0x23;
const DASH = 0x2d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

/** A plain scalar's value, resolved as js-yaml resolves it with the core schema. */
function plainValue(s: string): unknown {
  const c = s.charCodeAt(0);
  if (c >= 128 || !MAY_RESOLVE[c]) return s;
  if (MAY_RESOLVE[c] === 2 && !(s.length <= 5 && NULL_OR_BOOL.has(s))) return s;
  for (const t of IMPLICIT) if (t.resolve(s)) return t.construct(s);
  return s;
}

/**
 * Whether a plain scalar can start at t[i] (before `to`): js-yaml's rule (readPlainScalar), stricter
 * where that is simpler (`?` and `:` never start one here).
 */
function plainStart(t: string, i: number, to: number): boolean {
  if (i >= to) return false;
  const c = t.charCodeAt(i);
  if (c < 128 && NOT_PLAIN[c]) return false;
  if (c === DASH) return i + 1 < to && t.charCodeAt(i + 1) !== SPACE;
  return true;
}

/** A one-line plain value t[from, to), or GIVE_UP where js-yaml could read more (or less) into it. */
function plainText(t: string, from: number, to: number): Answer<string> {
  if (!plainStart(t, from, to)) return GIVE_UP;
  for (let i = from + 1; i < to; i++) {
    const c = t.charCodeAt(i);
    if (c === SPACE) {
      const n = t.charCodeAt(i + 1);
      if (n === HASH || i + 1 === to) return GIVE_UP;
    } else if (c === COLON && (i + 1 === to || t.charCodeAt(i + 1) === SPACE)) return GIVE_UP;
  }
  if (t.charCodeAt(to - 1) === COLON) return GIVE_UP;
  return t.slice(from, to);
}

/** The one-character escapes of a double-quoted scalar in YAML 1.2, as js-yaml reads them. */
const ESCAPES: Record<string, string> = {
  '0': '\x00',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** The body of a double-quoted scalar, t[from, to) (no quotes), its escapes decoded. */
function unescape(t: string, from: number, to: number): Answer<string> {
  let out = '';
  let run = from;
  for (let i = from; i < to; i++) {
    if (t.charCodeAt(i) !== 0x5c) continue;
    out += t.slice(run, i);
    const e = t[i + 1];
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i++;
    } else {
      const n = HEX_LENGTH[e];
      if (n === undefined || i + 2 + n > to) return GIVE_UP;
      const hex = t.slice(i + 2, i + 2 + n);
      if (!/^[0-9a-fA-F]+$/.test(hex)) return GIVE_UP;
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) return GIVE_UP;
      out += String.fromCodePoint(cp);
      i += 1 + n;
    }
    run = i + 1;
  }
  return out + t.slice(run, to);
}

/** A double-quoted scalar on one line from t[from], and where it ends. */
function doubleQuoted(t: string, from: number, to: number): Answer<{ value: string; end: number }> {
  let escaped = false;
  for (let i = from + 1; i < to; i++) {
    const c = t.charCodeAt(i);
    if (c === 0x5c) {
      escaped = true;
      i++;
    } else if (c === DQUOTE) {
      if (!escaped) return { value: t.slice(from + 1, i), end: i + 1 };
      const value = unescape(t, from + 1, i);
      return value === GIVE_UP ? GIVE_UP : { value, end: i + 1 };
    }
  }
  return GIVE_UP;
}

/** A single-quoted scalar on one line (`''` is a quote) from t[from], and where it ends. */
function singleQuoted(t: string, from: number, to: number): Answer<{ value: string; end: number }> {
  let doubled = false;
  for (let i = from + 1; i < to; i++) {
    if (t.charCodeAt(i) !== SQUOTE) continue;
    if (t.charCodeAt(i + 1) === SQUOTE && i + 1 < to) {
      doubled = true;
      i++;
      continue;
    }
    const raw = t.slice(from + 1, i);
    return { value: doubled ? raw.replace(/''/g, "'") : raw, end: i + 1 };
  }
  return GIVE_UP;
}

function quoted(t: string, from: number, to: number): Answer<{ value: string; end: number }> {
  return t.charCodeAt(from) === DQUOTE ? doubleQuoted(t, from, to) : singleQuoted(t, from, to);
}

/**
 * A mapping entry `key:` in t[from, to): its key, or undefined when the text is not one. Where its
 * value starts (after the colon) is left in the reader's `rest`: no object made per entry.
 */
function keyOfEntry(r: Reader, from: number, to: number): Answer<string | undefined> {
  const t = r.t;
  const c = t.charCodeAt(from);
  if (c === DQUOTE || c === SQUOTE) {
    const q = quoted(t, from, to);
    if (q === GIVE_UP) return GIVE_UP;
    if (q.end >= to || t.charCodeAt(q.end) !== COLON) return undefined;
    if (q.end + 1 < to && t.charCodeAt(q.end + 1) !== SPACE) return GIVE_UP;
    r.rest = q.end + 1;
    return q.value;
  }
  let colon = -1;
  for (let i = from; i < to; i++) {
    const ch = t.charCodeAt(i);
    if (ch === COLON && (i + 1 === to || t.charCodeAt(i + 1) === SPACE)) {
      colon = i;
      break;
    }
    if (ch === HASH && i > from && t.charCodeAt(i - 1) === SPACE) return GIVE_UP;
  }
  if (colon < 0) return undefined;
  if (!plainStart(t, from, colon) || t.charCodeAt(colon - 1) === SPACE) return GIVE_UP;
  // js-yaml resolves a plain key as any plain scalar and then stringifies it (`1.0` is "1", `~` "null").
  const text = r.key(from, colon);
  const key = MAY_RESOLVE[c] ? String(plainValue(text)) : text;
  if (key === '__proto__' || key === '<<') return GIVE_UP;
  r.rest = colon + 1;
  return key;
}

/** One collection being filled: its column and the mapping or the sequence. */
interface Frame {
  col: number;
  map?: Record<string, unknown>;
  seq?: unknown[];
}

/** A value still to come: the key or `-` whose value is on the lines below (null until it is). */
interface Pending {
  frame: Frame;
  key?: string;
  index?: number;
}

/**
 * The scalar strings read so far, each kept once: a caller reading many streams (a state of tens
 * of thousands of files) passes one pool to every call, and each value repeated across them
 * (`rbac.authorization.k8s.io`, a tenant's namespace, in every object of the tenant) is then one
 * string instead of one per occurrence: about 600,000 values but 22,000 distinct in a state of
 * 2,000 tenants. Strings longer than POOLED_LENGTH (certificates, values files) are left out,
 * and the pool stops growing at POOL_SIZE (a Map's own bound is 2^24 entries).
 */
export type StringPool = Map<string, string>;

/**
 * A string of its own, not a view into the text it was read from: V8 makes a slice of 13
 * characters or more a view that keeps the whole text alive, and a reader with a pool keeps
 * what it reads longer than the text (the caller keeps the texts elsewhere, src/io/sourceMap.ts).
 * Slicing a concatenation copies it first, so the slice views the copy.
 */
function detached(s: string): string {
  return s.length < 13 ? s : ` ${s}`.slice(1);
}
const POOLED_LENGTH = 128;
const KEY_LENGTH = 64;
const KEYS_PER_LENGTH = 8;
const POOL_SIZE = 1 << 23;

/** The reader's place in one stream: the current line is t[ls, le), its content from cs. */
class Reader {
  pos = 0;
  ls = 0;
  le = 0;
  /** Column of the first character that is not a space; -1 for a line of spaces only. */
  col = 0;
  /** Where the value of the entry keyOfEntry last read starts (after its colon). */
  rest = 0;
  /** Keys met, by their length (key()). */
  private readonly keys: string[][] = [];
  constructor(
    readonly t: string,
    private readonly pool?: StringPool,
  ) {}

  /**
   * The pool's copy of a scalar string, or a copy of it made now (see StringPool). Without a pool,
   * the string itself.
   */
  pooled(s: string): string {
    const pool = this.pool;
    if (!pool) return s;
    if (s.length > POOLED_LENGTH) return detached(s);
    const seen = pool.get(s);
    if (seen !== undefined) return seen;
    const own = detached(s);
    if (pool.size < POOL_SIZE) pool.set(own, own);
    return own;
  }

  /**
   * The plain key t[from, to): one met before at its length is handed out again, found by comparing
   * the text in place, instead of a new string sliced for every entry (TL: 600,000 keys, most of
   * them a few dozen field names, 27 MB of short-lived strings). KEYS_PER_LENGTH are kept for each
   * length up to KEY_LENGTH, the first met; any other key is sliced as before.
   */
  key(from: number, to: number): string {
    const n = to - from;
    const t = this.t;
    if (n > KEY_LENGTH) return t.slice(from, to);
    let known = this.keys[n];
    if (known === undefined) this.keys[n] = known = [];
    for (let i = 0; i < known.length; i++) if (t.startsWith(known[i], from)) return known[i];
    const k = detached(t.slice(from, to));
    if (known.length < KEYS_PER_LENGTH) known.push(k);
    return k;
  }

  /** Move to the next line; false at the end. */
  next(): boolean {
    const t = this.t;
    if (this.pos >= t.length) return false;
    let nl = t.indexOf('\n', this.pos);
    if (nl < 0) nl = t.length;
    this.ls = this.pos;
    this.le = nl;
    this.pos = nl + 1;
    let i = this.ls;
    while (i < nl && t.charCodeAt(i) === SPACE) i++;
    this.col = i === nl && nl > this.ls ? -1 : i - this.ls;
    return true;
  }

  get empty(): boolean {
    return this.le === this.ls;
  }

  /** The current line is `---` (a document ends). */
  get marker(): boolean {
    return this.le - this.ls === 3 && this.t.startsWith('---', this.ls);
  }

  /** The current line is a comment. */
  get comment(): boolean {
    return this.col >= 0 && this.t.charCodeAt(this.ls + this.col) === HASH;
  }
}

/**
 * A literal block scalar (`|`, `|-`, `|+`, its header t[from, to)) whose owner's entries sit at
 * column `owner`: its lines are read on; the first line less indented than its content ends it
 * and is the reader's next line.
 */
function literalBlock(r: Reader, from: number, to: number, owner: number): Answer<string> {
  const n = to - from;
  const mode = n === 1 ? 0 : n === 2 ? r.t.charCodeAt(from + 1) : -1;
  const chomp = mode === 0 ? 'clip' : mode === DASH ? 'strip' : mode === 0x2b ? 'keep' : undefined;
  if (!chomp) return GIVE_UP;
  const t = r.t;
  let indent = -1;
  // The lines, joined once at the end: one flat string, not a chain of concatenations per line.
  const lines: string[] = [];
  let empties = 0;
  for (;;) {
    const at = r.pos;
    if (!r.next()) {
      // The stream ends inside the block: only a text ending in a newline is read here.
      if (t.charCodeAt(t.length - 1) !== 0x0a) return GIVE_UP;
      break;
    }
    if (r.empty) {
      empties++;
      continue;
    }
    if (r.col < 0) return GIVE_UP;
    if (indent < 0) {
      if (r.col <= owner) {
        r.pos = at;
        break;
      }
      // Empty lines before the first line of content are line breaks of the value.
      indent = r.col;
      lines.push(`${'\n'.repeat(empties)}${t.slice(r.ls + indent, r.le)}`);
      empties = 0;
      continue;
    }
    if (r.col < indent) {
      r.pos = at;
      break;
    }
    lines.push(`${'\n'.repeat(empties)}${t.slice(r.ls + indent, r.le)}`);
    empties = 0;
  }
  // A block of empty lines alone holds only its line breaks, which only `|+` keeps.
  if (indent < 0) return chomp === 'keep' ? '\n'.repeat(empties) : '';
  const out = lines.join('\n');
  if (chomp === 'strip') return out;
  if (chomp === 'clip') return `${out}\n`;
  return `${out}\n${'\n'.repeat(empties)}`;
}

/**
 * The value after `key:` or `- ` on its line, t[from, to): a scalar, `[]`, `{}`, a literal block
 * (read on), or PENDING when it is on the lines below.
 */
const PENDING = Symbol('pending');
function inlineValue(r: Reader, from: number, to: number, owner: number): Answer<unknown> {
  if (from >= to) return PENDING;
  const t = r.t;
  const c = t.charCodeAt(from);
  if (c === DQUOTE || c === SQUOTE) {
    const q = quoted(t, from, to);
    if (q === GIVE_UP || q.end !== to) return GIVE_UP;
    return r.pooled(q.value);
  }
  if (c === 0x7c /* | */) return literalBlock(r, from, to, owner);
  if (to - from === 2 && (t.startsWith('[]', from) || t.startsWith('{}', from))) return c === 0x5b ? [] : {};
  const p = plainText(t, from, to);
  if (p === GIVE_UP) return GIVE_UP;
  const v = plainValue(p);
  return typeof v === 'string' ? r.pooled(v) : v;
}

/** Whether t[i, to) is a sequence entry (`-` then a space or the end). */
function isItem(t: string, i: number, to: number): boolean {
  return t.charCodeAt(i) === DASH && (i + 1 === to || t.charCodeAt(i + 1) === SPACE);
}

/**
 * A line at column 0 that starts like a document separator but is not the line `---` alone
 * (`--- x`, `...`, a key `---x`): js-yaml reads such lines by rules of its own.
 */
function separator(t: string, at: number): boolean {
  return t.startsWith('---', at) || t.startsWith('...', at);
}

/** Put a value into the slot a pending entry left (the key, or the sequence index). */
function fill(p: Pending, v: unknown): void {
  if (p.frame.map) p.frame.map[p.key!] = v;
  else p.frame.seq![p.index!] = v;
}

/** Letters, digits and `_`: the characters of a field name (`apiVersion`, `matchLabels`). */
const FIELD_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) FIELD_CHAR[c] = /[A-Za-z0-9_]/.test(String.fromCharCode(c)) ? 1 : 0;

/** Whether the entry at t[i, to) starts with a key spelled like a field name. */
function fieldKeyAt(t: string, i: number, to: number): boolean {
  let j = i;
  while (j < to) {
    const c = t.charCodeAt(j);
    if (c >= 128 || !FIELD_CHAR[c]) break;
    j++;
  }
  return j > i && t.charCodeAt(j) === COLON && (j + 1 === to || t.charCodeAt(j + 1) === SPACE);
}

/**
 * A mapping for keys that are data, not field names (a label, an annotation, a Secret's
 * `values.yaml`): an object in V8's dictionary mode. Such keys differ from object to object (a
 * tenant's own label), and every new first key of a plain `{}` adds a transition to the one
 * shape all plain objects start from; past about 1,500 of them V8 stops sharing shapes for the
 * objects made after, each then carrying a shape of its own (a quarter of a large state's heap,
 * and slower field reads everywhere). A dictionary-mode object adds no transition.
 */
function dataMap(): Record<string, unknown> {
  const m: Record<string, unknown> = { a: 0, b: 0 };
  delete m.a;
  delete m.b;
  return m;
}

/** A new collection at a column: a sequence when the line is an entry of one, else a mapping. */
function frameFor(t: string, i: number, to: number, col: number): Frame {
  if (isItem(t, i, to)) return { col, seq: [] };
  return { col, map: fieldKeyAt(t, i, to) ? {} : dataMap() };
}

/**
 * The entries on the reader's current line, from t[at] at column `col`, into the stack's top
 * collection: `- - x` and `- key: v` open collections within the line. Returns the entry whose
 * value is on the lines below, if any.
 */
function lineEntries(r: Reader, stack: Frame[], at: number, col: number): Answer<Pending | undefined> {
  const t = r.t;
  const to = r.le;
  let top = stack[stack.length - 1];
  for (;;) {
    if (top.seq) {
      if (!isItem(t, at, to)) return GIVE_UP;
      let i = at + 1;
      while (i < to && t.charCodeAt(i) === SPACE) i++;
      if (i >= to) {
        top.seq.push(null);
        return { frame: top, index: top.seq.length - 1 };
      }
      const nested = isItem(t, i, to);
      const k = nested ? undefined : keyOfEntry(r, i, to);
      if (k === GIVE_UP) return GIVE_UP;
      if (k === undefined && !nested) {
        const v = inlineValue(r, i, to, top.col);
        if (v === GIVE_UP || v === PENDING) return GIVE_UP;
        top.seq.push(v);
        return undefined;
      }
      const f = frameFor(t, i, to, col + (i - at));
      top.seq.push(f.seq ?? f.map);
      stack.push(f);
      top = f;
      col += i - at;
      at = i;
      continue;
    }
    const key = keyOfEntry(r, at, to);
    if (key === GIVE_UP || key === undefined) return GIVE_UP;
    const map = top.map!;
    if (Object.prototype.hasOwnProperty.call(map, key)) return GIVE_UP;
    let v = r.rest;
    while (v < to && t.charCodeAt(v) === SPACE) v++;
    const value = inlineValue(r, v, to, top.col);
    if (value === GIVE_UP) return GIVE_UP;
    if (value !== PENDING) {
      map[key] = value;
      return undefined;
    }
    map[key] = null;
    return { frame: top, key };
  }
}

/**
 * One document, from the reader's current line (its first content) to a `---` line or the end of
 * the text. Returns the value and whether a `---` ended it.
 */
function readDocument(r: Reader): Answer<{ value: unknown; more: boolean }> {
  const t = r.t;
  const stack: Frame[] = [];
  let root: unknown;
  let pending: Pending | undefined;
  let first = true;
  for (; first || r.next(); first = false) {
    if (r.empty) continue;
    if (r.marker) return { value: root, more: true };
    const col = r.col;
    if (col < 0) return GIVE_UP;
    const at = r.ls + col;
    const c = t.charCodeAt(at);
    if (c === HASH) continue;
    if (col === 0 && (c === 0x25 /* % */ || separator(t, at))) return GIVE_UP;
    // Where the line belongs: a child of the pending entry, or an entry of an open collection.
    if (pending) {
      const compact = pending.key !== undefined && col === pending.frame.col && isItem(t, at, r.le);
      if (col > pending.frame.col || compact) {
        const f = frameFor(t, at, r.le, col);
        fill(pending, f.seq ?? f.map);
        stack.push(f);
      }
      pending = undefined;
    } else if (stack.length === 0) {
      if (col !== 0) return GIVE_UP;
      const f = frameFor(t, at, r.le, col);
      root = f.seq ?? f.map;
      stack.push(f);
    }
    while (stack.length > 1 && stack[stack.length - 1].col > col) stack.pop();
    const top = stack[stack.length - 1];
    // A sequence written at its key's column ends at the next key.
    if (top.seq && top.col === col && stack.length > 1 && stack[stack.length - 2].col === col && !isItem(t, at, r.le))
      stack.pop();
    if (stack[stack.length - 1].col !== col) return GIVE_UP;
    const p = lineEntries(r, stack, at, col);
    if (p === GIVE_UP) return GIVE_UP;
    pending = p;
  }
  return { value: root, more: false };
}

/**
 * Every document of a stream, as js-yaml's loadAll with the core schema gives them, or undefined
 * when the stream is not in the subset this reader is sure of (module comment): read it with js-yaml.
 */
export function loadAllFast(text: string, pool?: StringPool): unknown[] | undefined {
  if (REFUSED.test(text)) return undefined;
  const r = new Reader(text, pool);
  const docs: unknown[] = [];
  let first = true;
  for (;;) {
    // Skip to the document's first line of content: blank lines and comments before it.
    let more = r.next();
    while (more && !r.marker && (r.empty || r.comment)) more = r.next();
    if (more && r.col < 0) return undefined;
    if (more && r.marker) {
      // A document of nothing is null, except what precedes the first `---`.
      if (!first) docs.push(null);
      first = false;
      continue;
    }
    if (!more) {
      if (!first) docs.push(null);
      // A text of blank lines and comments alone: js-yaml's answer (none, or a null document)
      // depends on more than this reader keeps.
      else if (text !== '') return undefined;
      return docs;
    }
    const doc = readDocument(r);
    if (doc === GIVE_UP) return undefined;
    docs.push(doc.value);
    if (!doc.more) return docs;
    first = false;
    // After a `---`: the next document, a null one when nothing follows.
    if (r.pos >= text.length) {
      docs.push(null);
      return docs;
    }
  }
}
