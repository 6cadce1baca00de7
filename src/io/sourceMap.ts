/**
 * The source map the readers return beside the objects they read: for each object (and each
 * `--values` mapping), the file, the YAML document and the path inside it, and the text of every
 * source, so that the line of any field can be found later (stdin cannot be read twice). One map
 * per run, passed along to the CLI edge, which alone places findings at file and line; nothing of
 * it lives in module state.
 *
 * Lines are found with the `yaml` library (it keeps source positions); a document is re-read
 * lazily, the first time a line in it is asked for: a run without findings never parses twice.
 * A source read as one JSON document (markJson) is never re-read: its lines are found by walking
 * its text (src/io/jsonText.ts), also only when asked for.
 */
import * as fs from 'node:fs';
import type { Document, LineCounter, Node } from 'yaml';
import { keyOf, type KObject, type ObjRef } from '../k8s/model';
import { JsonPositions } from './jsonText';
import { readFileBytes } from './stdin';

/** Where an object came from. Kept beside objects (a WeakMap), never inside them. */
export interface Origin {
  file: string;
  /** Index of the YAML document within the file. */
  doc: number;
  /** Path from the document root to the object (e.g. `['items', 3]` for a List item). */
  path: (string | number)[];
}

/**
 * A regular file as it was read: where it is, and what tells that it is still the same file (its
 * device and inode, size and modification time). Its text is not kept: it is read again when a line
 * in it is asked for, and only if the file is still the one read.
 */
export interface FileStamp {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** The stamp of a regular file from its status as it was opened; undefined for anything else (a stream). */
export function stampOf(absolutePath: string, st: fs.Stats): FileStamp | undefined {
  return st.isFile() ? { path: absolutePath, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } : undefined;
}

/**
 * The texts of the sources, for the lines of findings. A regular file's is not kept but read again
 * when asked for (its FileStamp): a state of 2.7 GB (200,000 tenants) kept its texts whole, 2.7 GB
 * more memory and the time of copying every byte into it, for the few lines a run that finds
 * something asks for. A file changed since it was read gives no text (a line in it would not be the
 * line read), and the finding names the file without a line. Anything else read (standard input, a
 * FIFO, a text handed in) is kept, as UTF-8 bytes in large blocks outside the JavaScript heap, each
 * block twice the size of the last (4 MiB first, 1 GiB at most): V8 answers every 64 MB of memory
 * made outside its heap with a full collection, so blocks of one size would cost a collection per
 * 64 MB of text, where doubling blocks cost a few. (One Buffer per text would waste most of Node's
 * shared 8 KB slabs on small texts.)
 */
class TextStore {
  private static readonly FIRST = 4 << 20;
  private static readonly LARGEST = 1 << 30;
  private readonly blocks: Buffer[] = [];
  /** How much of the last block is written. */
  private used = 0;
  private readonly at = new Map<string, { block: number; start: number; end: number } | FileStamp>();

  /** Where to read a regular file's text again. */
  setStamp(file: string, stamp: FileStamp): void {
    this.at.set(file, stamp);
  }

  /** Keep a text, or with `stamp` only where to read it again. */
  set(file: string, text: string, stamp?: FileStamp): void {
    if (stamp) {
      this.setStamp(file, stamp);
      return;
    }
    const n = Buffer.byteLength(text, 'utf8');
    const last = this.blocks.length - 1;
    if (last < 0 || n > this.blocks[last].length - this.used) {
      const next = last < 0 ? TextStore.FIRST : Math.min(2 * this.blocks[last].length, TextStore.LARGEST);
      this.blocks.push(Buffer.allocUnsafeSlow(Math.max(n, next)));
      this.used = 0;
    }
    const index = this.blocks.length - 1;
    this.blocks[index].write(text, this.used, 'utf8');
    this.at.set(file, { block: index, start: this.used, end: this.used + n });
    this.used += n;
  }

  get(file: string): string | undefined {
    const p = this.at.get(file);
    if (p === undefined) return undefined;
    return 'path' in p ? readAgain(p) : this.blocks[p.block].toString('utf8', p.start, p.end);
  }
}

/** The text of a regular file read again, if it is still the file that was read; else undefined. */
function readAgain(stamp: FileStamp): string | undefined {
  const changed = new Error('changed since it was read');
  try {
    return readFileBytes(stamp.path, stamp.size, undefined, (st) => {
      if (st.dev !== stamp.dev || st.ino !== stamp.ino || st.size !== stamp.size || st.mtimeMs !== stamp.mtimeMs)
        throw changed;
    }).toString('utf8');
  } catch {
    // gone, changed, or no longer readable: no line rather than a wrong one
    return undefined;
  }
}

/**
 * A source's documents parsed for their lines: all at once (`docs`), or, where the text splits
 * plainly at `---` lines (documentSegments), one document at a time as a line in it is asked for
 * (a finding about one object of a 20,000-line state parses that object's document, not the file).
 */
interface Parsed {
  /** The text, lone \r made \n (offsets unchanged). */
  text: string;
  /** Each document's place: [start offset, end offset, first line]; undefined when parsed whole. */
  segments?: [number, number, number][];
  docs: (DocAt | undefined)[];
}

/** One parsed document, its line counter, and the line its text starts on. */
interface DocAt {
  doc: Document.Parsed;
  lc: LineCounter;
  firstLine: number;
}

/**
 * Where each document of a YAML stream is, when the stream is one the split is sure of: documents
 * separated by lines that are `---` alone (spaces or a comment after it), no directive (`%`), no
 * `...` and no content on a `---` line. The text before the first `---` is a document only when it
 * holds content; every `---` begins one (an empty one included), as the yaml library counts them.
 * undefined for any other stream: it is parsed whole.
 */
export function documentSegments(text: string): [number, number, number][] | undefined {
  if (/^(%|\.\.\.)/m.test(text) || /^---(?![ \t]*(#.*)?$)/m.test(text)) return undefined;
  const out: [number, number, number][] = [];
  const marker = /^---[ \t]*(#.*)?$/gm;
  // The document being read: its start offset and first line; `counted` lines end before `at`.
  let start = 0;
  let line = 1;
  let at = 0;
  let counted = 0;
  let first = true;
  const push = (end: number) => {
    if (!first || /^[ \t]*[^\s#]/m.test(text.slice(start, end))) out.push([start, end, line]);
  };
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    push(m.index);
    first = false;
    // The next document starts on the line after the marker.
    const eol = text.indexOf('\n', m.index);
    const next = eol < 0 ? text.length : eol + 1;
    for (let i = text.indexOf('\n', at); i >= 0 && i < next; i = text.indexOf('\n', i + 1)) counted++;
    at = next;
    start = next;
    line = counted + 1;
    marker.lastIndex = next;
  }
  push(text.length);
  return out;
}

export class SourceMap {
  // A Map, not a WeakMap: the map lives as long as the run's objects do, and a Map's set is the
  // cheaper of the two on a snapshot of tens of thousands of objects. An input object's origin is
  // kept beside it in `addedOrigins` and goes into the map only when an origin is first looked up:
  // a run that places no finding never hashes its objects (docs/performance.md).
  private readonly origins = new Map<object, Origin>();
  private readonly addedOrigins: Origin[] = [];
  private originsIndexed = 0;
  private readonly texts = new TextStore();
  private readonly parsed = new Map<string, Parsed>();
  /** The sources read as one JSON document, and the positions found in each (made on the first look-up). */
  private readonly json = new Map<string, JsonPositions | undefined>();
  /** The input objects in reading order; indexed by identity only when one is looked up. */
  private readonly added: KObject[] = [];
  private readonly objects = new Map<string, KObject>();
  private indexed = 0;
  private readonly values = new Map<string, object>();

  /**
   * The text of a source, as read; with `stamp` (a regular file's), only where to read it again
   * when a line in it is asked for (TextStore).
   */
  addText(file: string, text: string, stamp?: FileStamp): void {
    this.forget(file);
    this.texts.set(file, text, stamp);
  }

  /**
   * A regular file read without its whole text (a JSON List read item by item, src/io/jsonList.ts):
   * where to read it again when a line in it is asked for.
   */
  addFile(file: string, stamp: FileStamp): void {
    this.forget(file);
    this.texts.setStamp(file, stamp);
  }

  /** A path read again in the same run (or a text handed in again) is parsed again for its lines. */
  private forget(file: string): void {
    this.parsed.delete(file);
    this.json.delete(file);
  }

  /** The source (its text added) was read as one JSON document: its lines are found in its text. */
  markJson(file: string): void {
    this.json.set(file, undefined);
  }

  /** An input object and where it was read; a later object of the same identity wins, as in the store. */
  addObject(o: KObject, origin: Origin): void {
    this.added.push(o);
    this.addedOrigins.push(origin);
  }

  /** A `--values` file's mapping. */
  addValues(file: string, values: object): void {
    this.origins.set(values, { file, doc: 0, path: [] });
    this.values.set(file, values);
  }

  originOf(o: object): Origin | undefined {
    this.indexOrigins();
    return this.origins.get(o);
  }

  /** The origins of the input objects added since the last look-up, into the map, in the order added. */
  private indexOrigins(): void {
    for (; this.originsIndexed < this.added.length; this.originsIndexed++)
      this.origins.set(this.added[this.originsIndexed], this.addedOrigins[this.originsIndexed]);
  }

  /** The input object of an identity. */
  objectOf(ref: ObjRef): KObject | undefined {
    for (; this.indexed < this.added.length; this.indexed++)
      this.objects.set(keyOf(this.added[this.indexed]), this.added[this.indexed]);
    return this.objects.get(keyOf(ref));
  }

  /** The mapping read from a `--values` file. */
  valuesOf(file: string): object | undefined {
    return this.values.get(file);
  }

  /**
   * The 1-based line of a field of an object read from a file (or of the object itself when the
   * field is not in the source). `field` is a dotted path; `[n]` or `.n` index lists.
   */
  lineOf(o: object, field?: string): number | undefined {
    const origin = this.originOf(o);
    return origin ? this.lineAt(origin, field) : undefined;
  }

  /** The line of a field below a place in a source (the object itself when the field is not there). */
  lineAt(origin: Origin, field?: string): number | undefined {
    if (this.json.has(origin.file)) return this.jsonLineAt(origin, field);
    const at = this.documentAt(origin.file, origin.doc);
    if (!at) return undefined;
    const { doc } = at;
    const { isMap, isSeq, isScalar } = yaml();
    const parts: (string | number)[] = [...origin.path, ...(field ? splitField(field) : [])];
    let node: Node | null | undefined = doc.contents as Node | null;
    let best = node?.range ? node.range[0] : undefined;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (isMap(node)) {
        const map = node;
        const keyed = (key: string) => map.items.find((it) => isScalar(it.key) && String(it.key.value) === key);
        let pair = keyed(String(p));
        // A key with dots in it (`services.loadbalancers` under resourceQuotas): the longest run of
        // the remaining parts that names a key.
        for (let j = parts.length; !pair && j > i + 1; j--) {
          pair = keyed(parts.slice(i, j).join('.'));
          if (pair) i = j - 1;
        }
        if (!pair) break;
        const k = pair.key as Node;
        best = k.range ? k.range[0] : best;
        node = pair.value as Node | null;
      } else if (isSeq(node) && typeof p === 'number') {
        const item = node.items[p] as Node | undefined;
        if (!item) break;
        best = item.range ? item.range[0] : best;
        node = item;
      } else break;
    }
    return best === undefined ? undefined : at.firstLine - 1 + at.lc.linePos(best).line;
  }

  /** lineAt in a source read as JSON: the same walk (keys with dots included) over its text. */
  private jsonLineAt(origin: Origin, field?: string): number | undefined {
    if (origin.doc !== 0) return undefined;
    let at = this.json.get(origin.file);
    if (!at) {
      // The text is looked up (a regular file read again) once, for the first line asked for.
      const text = this.texts.get(origin.file);
      if (text === undefined) return undefined;
      this.json.set(origin.file, (at = new JsonPositions(text)));
    }
    const parts: (string | number)[] = [...origin.path, ...(field ? splitField(field) : [])];
    let node = at.root();
    let best = node;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (at.isObject(node)) {
        let pair = at.member(node, String(p));
        for (let j = parts.length; !pair && j > i + 1; j--) {
          pair = at.member(node, parts.slice(i, j).join('.'));
          if (pair) i = j - 1;
        }
        if (!pair) break;
        best = pair.key;
        node = pair.value;
      } else if (at.isArray(node) && typeof p === 'number') {
        const item = at.element(node, p);
        if (item === undefined) break;
        best = node = item;
      } else break;
    }
    return at.line(best);
  }

  /** One document of a source, parsed on the first line asked for in it (Parsed). */
  private documentAt(file: string, index: number): DocAt | undefined {
    let parsed = this.parsed.get(file);
    if (!parsed) {
      const read = this.texts.get(file);
      if (read === undefined) return undefined;
      // Lines end at \r\n, \r or \n: a lone \r is made a \n so the line counter (which counts \n) sees it; offsets stay the same.
      const text = read.replace(/\r(?!\n)/g, '\n');
      parsed = { text, segments: documentSegments(text), docs: [] };
      this.parsed.set(file, parsed);
    }
    const { LineCounter, parseAllDocuments, parseDocument } = yaml();
    if (!parsed.segments) {
      if (!parsed.docs.length) {
        const lc = new LineCounter();
        const docs = parseAllDocuments(parsed.text, { lineCounter: lc });
        parsed.docs = (Array.isArray(docs) ? docs : [docs as unknown as Document.Parsed]).map((doc) => ({
          doc,
          lc,
          firstLine: 1,
        }));
      }
      return parsed.docs[index];
    }
    const segment = parsed.segments[index];
    if (!segment) return undefined;
    let at = parsed.docs[index];
    if (!at) {
      const lc = new LineCounter();
      const doc = parseDocument(parsed.text.slice(segment[0], segment[1]), { lineCounter: lc });
      at = parsed.docs[index] = { doc, lc, firstLine: segment[2] };
    }
    return at;
  }
}

/** The `yaml` library (line positions), loaded on the first line asked for: a run without findings never needs it. */
function yaml(): typeof import('yaml') {
  return require('yaml') as typeof import('yaml');
}

function splitField(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of field.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    if (part === '') continue;
    out.push(/^\d+$/.test(part) ? Number(part) : part);
  }
  return out;
}
