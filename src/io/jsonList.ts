/**
 * A JSON List read item by item from its bytes (docs/performance.md): a `kubectl get -o json`
 * snapshot is one object whose `items` array holds every object. Read whole, its text is one flat
 * string as large as the file (22 MB at the bench's TL size), made in fresh memory, and the pieces
 * it was decoded from live until it is; here each item is decoded and parsed on its own as soon as
 * its last byte is read, so only the bytes of the item being read are held, and its text dies young.
 *
 * The reader is handed the bytes as they are read (space, scan; the caller reads into the buffer
 * it gives) and tells at the end what the source was:
 * - `list`: an object with a top-level member `items` holding an array of objects. `head` is its
 *   text up to the `[` of that array, `tail` from its `]` to the end, and `items` the value of each
 *   element's text, with the keys counted (countJsonKeys) and the characters looked at
 *   (printableJson) in each: the caller decides from these, as it does for a whole text, whether
 *   the value is certain to be js-yaml's (src/io/inputs.ts, readJsonList).
 * - `text`: anything else (YAML, a JSON object without such an array, a value not an object), the
 *   bytes decoded as readFdText decodes them, for the readers of a whole text; nothing was let go.
 * - `again`: a List given up after items were let go (an element that is not an object, an element
 *   JSON.parse refuses, bytes between elements that are not a comma and white space, a truncated
 *   file): the caller reads the file again whole, and reports what is wrong with it at its line.
 *
 * Exact whatever the layout: an element that opens its line is first looked for where an indented
 * text closes it (its indentation and `}`, found with indexOf), and that end is taken only when
 * JSON.parse takes the text; any other element is read byte by byte, string tokens skipped to their
 * closing quote (an escaped quote never closes one), brackets counted outside them; every byte
 * between elements is checked. A raw UTF-8 sequence never straddles a bracket, a comma or a quote (all ASCII), so each
 * element's bytes decode to exactly the characters the whole file's decoding holds there.
 *
 * Pure: no I/O and no module state; the caller reads (src/io/inputs.ts, readFileSource).
 */
import type { StringDecoder } from 'node:string_decoder';
import { countJsonKeys, parseJsonFast, printableJson, WS } from './jsonText';
import { isObject } from '../k8s/model';
import { MAX_OBJECT_BYTES } from '../k8s/limits';

export interface StreamedList {
  list: { head: string; tail: string; items: Record<string, unknown>[]; keys: number; printable: boolean };
}
export type JsonListResult = StreamedList | { text: string } | 'again';

/** Where the reader is in the source. */
const enum Mode {
  /** Before the first character that is not white space (or a byte-order mark). */
  Sniff,
  /** Inside the top-level object, before its `items` array. */
  Head,
  /** Inside the `items` array, between elements. */
  Between,
  /** Inside an element. */
  Item,
  /** After the `items` array: kept whole, read by JSON.parse with the head. */
  Tail,
  /** Not such a List: decoded as text. */
  Text,
  /** Given up after items were let go: the caller reads the file again. */
  Again,
}

/** In Between: what may come next. */
const enum Expect {
  /** Just after `[`: an element or `]`. */
  First,
  /** After an element: `,` or `]`. */
  CommaOrEnd,
  /** After `,`: an element. */
  Element,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** `"items"`, the key whose array is read element by element. */
const ITEMS_KEY = Buffer.from('"items"', 'latin1');
/** What ends an indented element's closing line (closerOf). */
const CLOSE_LINE = Buffer.from('}', 'latin1');

/**
 * How far past an element's start its closing line is looked for before the element is read byte
 * by byte instead: well past the bytes an element within MAX_OBJECT_BYTES (src/k8s/limits.ts)
 * takes in an indented text. Only how an element's end is found depends on it, never what it is.
 */
const CLOSER_REACH = 2 * MAX_OBJECT_BYTES + (1 << 16);

/**
 * The first offset at or after `from` where `closer` (a line feed, indentation, `}`) is in `b`, or
 * -1. Its last byte is looked for with indexOf (a byte search, several times quicker here than
 * Buffer's search for the whole line, docs/performance.md), and the rest compared where one is.
 */
export function closerAt(b: Buffer, closer: Buffer, from: number): number {
  const last = closer.length - 1;
  // Its line feed first: a `}` nested deeper has indentation there, one on a line of its own less.
  const before = closer[last - 1];
  for (let q = b.indexOf(CLOSE_OBJECT, from + last); q >= 0; q = b.indexOf(CLOSE_OBJECT, q + 1)) {
    if (b[q - last] === 0x0a && b[q - 1] === before && holds(b, q - last, closer, last)) return q - last;
  }
  return -1;
}

/**
 * Whether `b` holds the first `n` bytes of `pattern` at `at`. A loop, not Buffer's compare: the
 * lines compared are a few bytes long, shorter than a call into compare costs.
 */
function holds(b: Buffer, at: number, pattern: Buffer, n: number): boolean {
  for (let k = 0; k < n; k++) if (b[at + k] !== pattern[k]) return false;
  return true;
}

/** A step of scan that cannot go on before more bytes are read (and must not pass what it has). */
const WAIT = -1;

export class JsonListReader {
  private buf: Buffer;
  /** Bytes held: [0, len). */
  private len = 0;
  /** Where scanning resumes. */
  private pos = 0;
  /**
   * The first byte still needed; bytes before it are let go. The head's start until the head is
   * read; then the end of the head until the first element is read (nothing but the head is let go
   * before an element is kept: a source given up then is decoded whole); then the end of the last
   * element read; the tail's start (a List read to its tail is never decoded whole).
   */
  private mark = 0;
  /** Where the element being read starts. */
  private start = 0;
  /**
   * The element being read opens its line: a line feed, its indentation and `}`, the line that
   * closes it in an indented text (kubectl's), looked for with indexOf from `searchFrom`; a text
   * whose elements do not open their lines is read byte by byte (scanItem).
   */
  private closer: Buffer | undefined;
  private searchFrom = 0;
  private mode = Mode.Sniff;
  private expect = Expect.First;
  /** Brackets open at `pos`, counted outside strings. */
  private depth = 0;
  /** A string token is open at `pos` (its closing quote not yet read). */
  private inString = false;
  /** With inString: the bytes read ended inside an escape, whose next byte is not to be looked at. */
  private escaped = false;
  /** In Head: the last string token closed inside the top-level object, [start, end), for the `items` key. */
  private keyStart = -1;
  private keyEnd = -1;
  private head = '';
  private readonly items: Record<string, unknown>[] = [];
  private keys = 0;
  private printable = true;
  private readonly pieces: string[] = [];

  /**
   * `grow(n, keep)` gives a buffer of at least `n` bytes holding the first `keep` bytes of the last
   * it gave (a ReadBuffer's, reused from file to file); `decoder` decodes a source that is not such
   * a List, and is ended by end() or abandon().
   */
  constructor(
    private readonly grow: (n: number, keep: number) => Buffer,
    private readonly decoder: StringDecoder,
  ) {
    this.buf = grow(0, 0);
  }

  /** The buffer the next read of up to `n` bytes goes into (then scan, with the bytes it read). */
  space(n: number): Buffer {
    if (this.mode === Mode.Text || this.mode === Mode.Again) {
      // Everything read is decoded (or not wanted): the next read reuses the buffer from its start.
      this.len = this.pos = this.mark = 0;
    } else if (this.mark > 0) {
      // Let go of what is no longer needed: what is held moves to the buffer's start.
      this.buf.copy(this.buf, 0, this.mark, this.len);
      this.len -= this.mark;
      this.pos -= this.mark;
      this.start -= this.mark;
      this.searchFrom -= this.mark;
      this.mark = 0;
    }
    if (this.buf.length < this.len + n) this.buf = this.grow(this.len + n, this.len);
    return this.buf.subarray(this.len, this.len + n);
  }

  /** `n` bytes were read into the buffer space() gave. */
  scan(n: number): void {
    const from = this.len;
    this.len += n;
    if (this.mode === Mode.Text) {
      this.pieces.push(this.decoder.write(this.buf.subarray(from, this.len)));
      return;
    }
    // Bounded to what is held: indexOf never looks at bytes of an earlier read.
    const b = this.buf.subarray(0, this.len);
    let p = this.pos;
    while (p < b.length && this.scanning()) {
      let next: number;
      if (this.inString) next = this.stringResumed(b, p);
      else if (this.mode === Mode.Sniff) next = this.sniff(b, p);
      else if (this.mode === Mode.Head) next = this.inHead(b, p);
      else if (this.mode === Mode.Between) next = this.between(b, p);
      else next = this.closer ? this.findByCloser(b) : this.scanItem(b, p);
      if (next === WAIT) break;
      p = next;
    }
    this.pos = p;
  }

  /** A string token open when the last read ended: on to its closing quote. */
  private stringResumed(b: Buffer, p: number): number {
    const q = this.stringEnd(b, this.escaped ? p + 1 : p);
    if (q < 0) return b.length;
    this.inString = false;
    if (this.mode === Mode.Head && this.depth === 1) this.keyEnd = q + 1;
    return q + 1;
  }

  /** Before the first character: white space and a byte-order mark are passed, `{` opens the head, anything else is text. */
  private sniff(b: Buffer, p: number): number {
    const c = b[p];
    if (p === 0 && c === 0xef) {
      if (b.length < 3) return WAIT; // a byte-order mark not yet whole
      if (b[1] === 0xbb && b[2] === 0xbf) return 3;
    }
    if (WS(c)) return p + 1;
    if (c !== OPEN_OBJECT) {
      this.toText(b);
      return b.length;
    }
    this.mode = Mode.Head;
    this.depth = 1;
    return p + 1;
  }

  /** In the head: brackets counted, strings skipped, the last one in the top-level object kept as a possible key. */
  private inHead(b: Buffer, p: number): number {
    const c = b[p];
    if (c === QUOTE) {
      if (this.depth === 1) this.keyStart = p;
      const q = this.stringEnd(b, p + 1);
      if (q < 0) return b.length;
      if (this.depth === 1) this.keyEnd = q + 1;
      return q + 1;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (c === OPEN_ARRAY && this.depth === 1 && this.itemsKeyBefore(b, p)) {
        this.head = b.toString('utf8', 0, p + 1);
        this.mark = p + 1;
        this.mode = Mode.Between;
        this.expect = Expect.First;
      }
      this.depth++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.depth--;
    return p + 1;
  }

  /** Between elements: white space, then what may come (Expect); anything else gives up. */
  private between(b: Buffer, p: number): number {
    const c = b[p];
    if (WS(c)) return p + 1;
    if (c === CLOSE_ARRAY && this.expect !== Expect.Element) {
      this.mode = Mode.Tail;
      this.mark = this.start = p;
      this.depth = 1;
      return p;
    }
    if (c === COMMA && this.expect === Expect.CommaOrEnd) {
      this.expect = Expect.Element;
      return p + 1;
    }
    if (c === OPEN_OBJECT && this.expect !== Expect.CommaOrEnd) {
      this.mode = Mode.Item;
      this.start = p;
      this.depth = 3;
      this.closer = this.closerOf(b, p);
      return (this.searchFrom = p + 1);
    }
    this.giveUp(b);
    return p;
  }

  /** Whether the bytes read still need looking at (the tail is kept whole, a text decoded, a source given up skipped). */
  private scanning(): boolean {
    return this.mode === Mode.Sniff || this.mode === Mode.Head || this.mode === Mode.Between || this.mode === Mode.Item;
  }

  /**
   * The hot loop: an element's bytes up to its closing bracket, strings skipped by their closing
   * quote. Returns where scanning goes on (the end of what is held when the element is not whole).
   */
  private scanItem(b: Buffer, p: number): number {
    let depth = this.depth;
    const n = b.length;
    while (p < n) {
      const c = b[p];
      if (c === QUOTE) {
        const q = this.stringEnd(b, p + 1);
        if (q < 0) {
          this.depth = depth;
          return n;
        }
        p = q + 1;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 2) {
        this.depth = 2;
        this.element(b, p + 1);
        return p + 1;
      }
      p++;
    }
    this.depth = depth;
    return n;
  }

  /**
   * The offset of the quote that closes a string token whose characters start at `p`; -1 when the
   * bytes read end first (inString set, and escaped when they end inside an escape). Byte by byte
   * in the loop: most strings are a few bytes long, shorter than a call to Buffer's indexOf costs.
   */
  private stringEnd(b: Buffer, p: number): number {
    const n = b.length;
    while (p < n) {
      const c = b[p];
      if (c === QUOTE) return p;
      p += c === BACKSLASH ? 2 : 1;
    }
    this.inString = true;
    this.escaped = p > n;
    return -1;
  }

  /**
   * The line that would close the element opening at `p` (a line feed, the indentation before it,
   * `}`), or undefined when something but white space is before it on its line. The last one made
   * is kept: every element of a List is usually indented alike.
   */
  private closerOf(b: Buffer, p: number): Buffer | undefined {
    // The element's first member on a line of its own: `{` ends its line.
    if (p + 1 >= b.length || (b[p + 1] !== 0x0a && b[p + 1] !== 0x0d)) return undefined;
    let i = p - 1;
    while (i >= this.mark && (b[i] === 0x20 || b[i] === 0x09)) i--;
    if (i < this.mark || b[i] !== 0x0a) return undefined;
    const last = this.closer;
    if (last && last.length === p - i + 1 && holds(b, i, last, last.length - 1)) return last;
    return Buffer.concat([b.subarray(i, p), CLOSE_LINE]);
  }

  /**
   * The element's end found by its closing line: the first place after its start where that line
   * is. A text from `{` to a `}` that JSON.parse takes is the whole element (an object ends at the
   * first `}` that balances it, and bytes after it make JSON.parse refuse the text), so the element
   * is taken when JSON.parse takes it; else it is read byte by byte from its start.
   */
  private findByCloser(b: Buffer): number {
    const closer = this.closer as Buffer;
    const f = closerAt(b, closer, this.searchFrom);
    if (f < 0) {
      if (b.length - this.start > CLOSER_REACH) {
        // An element this large is past the bound (src/k8s/limits.ts) or not indented alike:
        // found byte by byte, rather than holding bytes up to a line that may never come.
        this.closer = undefined;
        return this.scanItem(b, this.start + 1);
      }
      // Not read yet: look again from where the line could begin in the bytes read so far.
      this.searchFrom = Math.max(this.searchFrom, b.length - closer.length + 1);
      return b.length;
    }
    const end = f + closer.length;
    if (this.element(b, end, true)) return end;
    this.closer = undefined;
    return this.scanItem(b, this.start + 1);
  }

  /**
   * An element's text, [start, end): parsed, its keys counted, its characters looked at. When it
   * is not an object JSON.parse takes: false when `tentative` (the end was a guess), else given up.
   */
  private element(b: Buffer, end: number, tentative = false): boolean {
    const text = b.toString('utf8', this.start, end);
    const value = parseJsonFast(text);
    if (!isObject(value)) {
      if (!tentative) this.giveUp(b);
      return false;
    }
    this.items.push(value);
    this.keys += countJsonKeys(text);
    if (this.printable && !printableJson(text, end - this.start)) this.printable = false;
    this.mark = end;
    this.mode = Mode.Between;
    this.expect = Expect.CommaOrEnd;
    return true;
  }

  /** Whether the `[` at `p` opens the value of a top-level member `"items"` (the key and a colon before it). */
  private itemsKeyBefore(b: Buffer, p: number): boolean {
    if (
      this.keyEnd - this.keyStart !== ITEMS_KEY.length ||
      b.compare(ITEMS_KEY, 0, ITEMS_KEY.length, this.keyStart, this.keyEnd) !== 0
    )
      return false;
    let colons = 0;
    for (let i = this.keyEnd; i < p; i++) {
      if (b[i] === COLON) colons++;
      else if (!WS(b[i])) return false;
    }
    return colons === 1;
  }

  /** Not an element-by-element List after all: text, when nothing was let go yet; else read again. */
  private giveUp(b: Buffer): void {
    if (this.items.length > 0) {
      this.mode = Mode.Again;
      return;
    }
    this.pieces.push(this.head);
    this.toText(b, this.mark);
  }

  /** From here on, decode: what is held from `from` first. */
  private toText(b: Buffer, from = 0): void {
    this.mode = Mode.Text;
    this.pieces.push(this.decoder.write(b.subarray(from, this.len)));
  }

  /** What the source was, once every byte is scanned. */
  end(): JsonListResult {
    switch (this.mode) {
      case Mode.Tail:
        return {
          list: {
            head: this.head,
            tail: this.buf.toString('utf8', this.start, this.len),
            items: this.items,
            keys: this.keys,
            printable: this.printable,
          },
        };
      case Mode.Again:
        this.decoder.end();
        return 'again';
      case Mode.Between:
      case Mode.Item:
        // A file that ends inside the array: its error is reported from its whole text.
        if (this.items.length > 0) {
          this.decoder.end();
          return 'again';
        }
        this.pieces.push(this.head);
        this.toText(this.buf.subarray(0, this.len), this.mark);
        break;
      case Mode.Sniff:
      case Mode.Head:
        this.toText(this.buf.subarray(0, this.len));
        break;
    }
    this.pieces.push(this.decoder.end());
    return { text: this.pieces.length === 2 ? this.pieces[0] + this.pieces[1] : this.pieces.join('') };
  }

  /** A read that failed: the decoder is left clean for the next source. */
  abandon(): void {
    this.decoder.end();
  }
}
