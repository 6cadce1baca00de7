/**
 * Bounds on what a parsed input may expand to (docs/decisions.md §13: hostile input is bounded). No real
 * manifest reaches them; crossing one is an input error that the edge places at the file and
 * the line of the document.
 *
 * - MAX_DOCUMENT_BYTES: the text of one YAML document (between `---` lines), checked before it
 *   is parsed, so a 50 MB scalar is refused without being read into a tree. Generous so that a
 *   `kubectl get -A -o yaml` List of tens of thousands of objects still reads.
 * - MAX_OBJECT_BYTES: the expanded size of one object (of each item of a List, of the document
 *   otherwise), aliases counted as expanded: 3 MiB, the API server's request limit. A
 *   "billion laughs" alias bomb of a few hundred bytes expands past it and is refused.
 * - MAX_DEPTH: nesting of mappings and sequences; js-yaml refuses more than 100 while parsing,
 *   the same bound is applied to what the `yaml` library reads.
 * - MAX_SOURCE_BYTES: one input source (a file, standard input, a stream given to -f), checked
 *   before anything is allocated for it: a regular file by its size, anything else (a pipe, a
 *   FIFO, a device such as /dev/zero) while it is read, which stops one chunk past the bound
 *   (src/io/stdin.ts). About five times the bench's file of 500,000 objects, and well below the
 *   longest string V8 can hold (512 MiB), which a larger file would fail on anyway.
 *
 * The measure is linear in the size of the parsed graph: node sizes are memoised over the object
 * graph, so an alias (a shared node) is measured once and counted each time it is referred to.
 * Pure: no I/O, no state between calls.
 */
import { isList } from './lists';

export const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
export const MAX_OBJECT_BYTES = 3 * 1024 * 1024;
export const MAX_DEPTH = 100;
export const MAX_SOURCE_BYTES = 256 * 1024 * 1024;

/** One YAML document of a stream: its 1-based first line and its length in characters. */
export interface DocumentSpan {
  line: number;
  length: number;
}

/**
 * The documents of a YAML stream as its `---` lines split it (a segment holding nothing but
 * comments, directives and blank lines before the first `---` is no document). Linear; used
 * only to place and size documents, never to parse them.
 */
export function documentSpans(text: string): DocumentSpan[] {
  const LINE_END = /\r\n|\r|\n/g;
  const spans: DocumentSpan[] = [];
  let start = 0;
  let startLine = 1;
  let line = 1;
  let pos = 0;
  let leading = true;
  let leadingHasContent = false;
  const close = (end: number) => {
    if (!leading || leadingHasContent) spans.push({ line: startLine, length: end - start });
  };
  // Line ends found with indexOf where the text has no carriage return (for speed: the usual case).
  const crs = text.indexOf('\r') >= 0;
  while (pos <= text.length) {
    let end: number;
    let next: number;
    if (crs) {
      LINE_END.lastIndex = pos;
      const m = LINE_END.exec(text);
      end = m ? m.index : text.length;
      next = m ? m.index + m[0].length : text.length + 1;
    } else {
      const i = text.indexOf('\n', pos);
      end = i < 0 ? text.length : i;
      next = i < 0 ? text.length + 1 : i + 1;
    }
    const l = text.charCodeAt(pos) === 0x2d /* - */ ? text.slice(pos, Math.min(end, pos + 4)) : '';
    if (l !== '' && (/^---(\s|$)/.test(l) || l === '---')) {
      close(pos);
      leading = false;
      start = pos;
      startLine = line;
    } else if (leading && !leadingHasContent && !/^\s*(#|%|$)/.test(text.slice(pos, Math.min(end, pos + 200)))) {
      leadingHasContent = true;
    }
    pos = next;
    line++;
  }
  close(text.length);
  return spans;
}

/** The first document of a stream longer than MAX_DOCUMENT_BYTES, or undefined. */
export function oversizedDocument(text: string, max = MAX_DOCUMENT_BYTES): DocumentSpan | undefined {
  if (text.length <= max) return undefined;
  return documentSpans(text).find((s) => s.length > max);
}

/**
 * The measure, in one place: a string its length + 2, any other scalar 4, a mapping or sequence 2,
 * plus 2 per sequence item and the key's length + 4 per mapping entry, each value added in.
 */
export const COST = {
  string: (s: string) => s.length + 2,
  scalar: 4,
  collection: 2,
  item: 2,
  entry: (key: string) => key.length + 4,
};

/**
 * Whether a value, walked as the tree it expands to, stays within both bounds: a plain recursive
 * sum with no memo, abandoned as soon as a bound is crossed. It adds up the expanded size the
 * memoised measure computes (shared nodes counted each time) and visits every place a node
 * stands, so a value it passes also passes the memoised measure; it costs no allocation per node
 * (the memo does), and an alias bomb or a cycle stops it after at most maxBytes / 2 visits.
 */
function withinExpanded(value: unknown, maxBytes: number, maxDepth: number): boolean {
  let total = 0;
  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v === 'string') return (total += COST.string(v)) <= maxBytes;
    if (v === null || typeof v !== 'object') return (total += COST.scalar) <= maxBytes;
    if (depth > maxDepth) return false;
    total += COST.collection;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        total += COST.item;
        if (!walk(v[i], depth + 1)) return false;
      }
      return true;
    }
    // for-in, not Object.keys: no array of keys per object (a parsed value's objects inherit no
    // enumerable key, and for-in walks the own keys in Object.keys's order).
    for (const k in v as Record<string, unknown>) {
      total += COST.entry(k);
      if (!walk((v as Record<string, unknown>)[k], depth + 1)) return false;
    }
    return true;
  };
  return walk(value, 1);
}

/**
 * The memoised measure (linear in the parsed graph, aliases counted as expanded): a function that
 * gives the reason a value passes a bound. One memo for the calls of one exceedsLimits, so nodes
 * shared between the items of a List are measured once.
 */
function exactMeasure(maxBytes: number, maxDepth: number): (value: unknown) => string | undefined {
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  let tooDeep = false;
  const size = (v: unknown, depth: number): number => {
    if (typeof v === 'string') return COST.string(v);
    if (v === null || typeof v !== 'object') return COST.scalar;
    const known = sizes.get(v);
    if (known !== undefined) return known;
    if (open.has(v)) return Infinity;
    if (depth > maxDepth) {
      tooDeep = true;
      return Infinity;
    }
    open.add(v);
    let n = COST.collection;
    if (Array.isArray(v)) for (const it of v) n += size(it, depth + 1) + COST.item;
    else for (const [k, it] of Object.entries(v as Record<string, unknown>)) n += COST.entry(k) + size(it, depth + 1);
    open.delete(v);
    sizes.set(v, n);
    return n;
  };
  return (v) => {
    const n = size(v, 1);
    if (tooDeep) return `nested more than ${maxDepth} levels deep (limit ${maxDepth})`;
    if (n === Infinity) return CYCLE;
    if (n > maxBytes)
      return `expands to more than ${mib(maxBytes)} (aliases counted as expanded; limit ${mib(maxBytes)}, the API server's request limit)`;
    return undefined;
  };
}

/** What is measured on its own: each item of a List document (kubectl get -o yaml) and the rest of it; else the whole value. */
function measuredParts(value: unknown): unknown[] {
  if (isList(value)) {
    const { items, ...rest } = value;
    return [...(items as unknown[]), rest];
  }
  return [value];
}

/** Why a parsed value passes a bound, or undefined when it stays within them. */
export function exceedsLimits(value: unknown, maxBytes = MAX_OBJECT_BYTES, maxDepth = MAX_DEPTH): string | undefined {
  let exact: ((v: unknown) => string | undefined) | undefined;
  for (const part of measuredParts(value)) {
    // Every real manifest: the cheap walk says it is within bounds. Only a part it refuses is
    // measured again, with the memo, for the exact reason.
    if (withinExpanded(part, maxBytes, maxDepth)) continue;
    exact ??= exactMeasure(maxBytes, maxDepth);
    const why = exact(part);
    if (why) return why;
  }
  return undefined;
}

export function mib(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/** Why a value with an alias inside the node it names cannot be read (it would never end). */
export const CYCLE = 'holds an alias that refers to a node containing it, a cycle';

/** What to do about a crossed bound: a cycle is fixed in the YAML, a size by splitting the input. */
export function limitHint(message: string): string {
  return message.endsWith(CYCLE)
    ? 'point the alias at a node outside the one that holds its anchor, or write the repeated part out'
    : 'cozy-gw reads at most 32 MiB of text per YAML document and 3 MiB per object once aliases are expanded, nested at most 100 levels deep; no real manifest reaches these limits';
}

/** A bound crossed by a stream: the 1-based line of the document and why. */
export interface LimitProblem {
  line: number;
  message: string;
}

/** Before parsing: a document whose text is longer than MAX_DOCUMENT_BYTES. */
export function checkText(text: string): LimitProblem | undefined {
  const big = oversizedDocument(text);
  return big
    ? {
        line: big.line,
        message: `a YAML document of ${big.length} characters is larger than the limit of ${mib(MAX_DOCUMENT_BYTES)}`,
      }
    : undefined;
}

/** After parsing: the first parsed document (index = document of the stream) that passes a bound. */
export function checkParsed(text: string, docs: unknown[]): LimitProblem | undefined {
  for (let i = 0; i < docs.length; i++) {
    const why = exceedsLimits(docs[i]);
    if (why) return { line: documentSpans(text)[i]?.line ?? 1, message: `the YAML document ${why}` };
  }
  return undefined;
}
