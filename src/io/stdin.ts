/**
 * Reading an input source whole, bounded before it allocates (docs/decisions.md §13,
 * MAX_SOURCE_BYTES in src/k8s/limits.ts): a regular file is refused by its size before a byte is
 * read; anything else (standard input, a pipe, a FIFO, a device such as /dev/zero) is read in
 * chunks and refused as soon as it passes the bound. Synchronously, whatever it is: a pipe another
 * process set non-blocking (a node writer does: `cozy-gw render | cozy-gw reconcile -f -`), where
 * a plain readFileSync(0) fails with EAGAIN before the writer has written, is waited for.
 */
import * as fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { error, FindingsError } from '../k8s/diagnostics';
import { MAX_SOURCE_BYTES, mib } from '../k8s/limits';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** How much one read asks for (a regular file smaller than this is read in one). */
export const CHUNK = 1 << 16;

/** A source refused before it is read whole; the caller names it (tooLargeError). */
export class SourceRefused extends Error {}

/** A source past the bound: what the caller names it by (a file, `<stdin>`), and what was seen. */
export class SourceTooLarge extends SourceRefused {
  constructor(
    /** The size of a regular file, or the bytes read from a stream when it passed the bound. */
    readonly bytes: number,
    /** Whether it was read as a stream (not a regular file). */
    readonly streamed: boolean,
    readonly max: number,
  ) {
    super(`larger than ${mib(max)}`);
    this.name = 'SourceTooLarge';
  }
}

/**
 * A stream holding a NUL byte: no YAML or JSON text does (the YAML character set allows no C0
 * control but tab, line feed and carriage return), so a device such as /dev/zero or a binary file
 * is refused at its first chunk instead of after the bound.
 */
export class SourceNotText extends SourceRefused {
  constructor(
    /** The offset of the first NUL byte. */
    readonly offset: number,
  ) {
    super(`a NUL byte at offset ${offset}`);
    this.name = 'SourceNotText';
  }
}

/** The input error for a refused source (past the bound, or not text), naming it. */
export function tooLargeError(file: string, e: SourceRefused): FindingsError {
  if (e instanceof SourceNotText)
    return new FindingsError([
      error(`holds a NUL byte at byte ${e.offset}: it is not YAML or JSON text`, {
        file,
        rule: 'input.not-text',
        hint: 'give the manifests file itself, not a device (such as /dev/zero) or a binary file',
      }),
    ]);
  if (!(e instanceof SourceTooLarge)) throw e;
  const what = e.streamed
    ? `holds more than ${mib(e.max)} (read as a stream)`
    : `is ${e.bytes} bytes, larger than the limit of ${mib(e.max)} for one input`;
  return new FindingsError([
    error(what, {
      file,
      rule: 'input.limit',
      hint: `cozy-gw reads at most ${mib(e.max)} from one file or stream, more than any real set of manifests holds; check that this is the input you meant`,
    }),
  ]);
}

/**
 * Every byte of an open descriptor up to `max`; throws SourceTooLarge one chunk past it, and
 * SourceNotText at the first chunk holding a NUL byte. `size`, a regular file's size, makes the
 * first read one buffer of that size (and a byte more, to see whether it grew): the file is decoded
 * from it as it is, without copying chunks together.
 */
export function readFdBounded(fd: number, max = MAX_SOURCE_BYTES, size = 0): string {
  return readFdBytes(fd, max, size).toString('utf8');
}

/**
 * The buffer a reader of many files reads each regular file into, made once and grown as a larger
 * file needs (to twice its size at least): a new buffer per file is memory outside the JavaScript
 * heap, and V8 answers every 64 MB of that with a full collection of the heap (its "external
 * memory pressure"), so that reading a state of 2.7 GB in files (200,000 tenants) set off some forty
 * collections of a heap of gigabytes, more work the larger the state: a quadratic cost. What a read
 * returns from it holds until the next read; the reader copies what it keeps. Input files are read
 * through it 64 KiB at a time and decoded as they are read (readFileText), so for them it stays
 * that small; a whole file is read into it by readFileBytes.
 */
export class ReadBuffer {
  private buf: Buffer | undefined;
  private utf8: StringDecoder | undefined;

  /**
   * The UTF-8 decoder of readFdText, made once (each StringDecoder makes a small Buffer of its
   * own): reset by its end() at the end of every text.
   */
  decoder(): StringDecoder {
    return (this.utf8 ??= new StringDecoder('utf8'));
  }

  /**
   * The buffer itself, of `n` bytes at least, holding the first `keep` bytes of the last one it gave
   * (a JsonListReader keeps an item's bytes across reads in it, src/io/jsonList.ts).
   */
  hold(n: number, keep: number): Buffer {
    if (this.buf === undefined || this.buf.length < n) {
      const last = this.buf;
      this.buf = Buffer.allocUnsafeSlow(Math.max(n, 2 * (last?.length ?? 0), 64 << 10));
      last?.copy(this.buf, 0, 0, keep);
    }
    return this.buf;
  }

  /** A buffer of `n` bytes, valid until the next call (a reader's, or a writer's that encodes into it). */
  take(n: number): Buffer {
    return this.hold(n, 0).subarray(0, n);
  }
}

/**
 * readFdBounded's bytes, undecoded. With `into`, a regular file is read into that buffer (see
 * ReadBuffer): the bytes returned hold until its next read.
 */
export function readFdBytes(fd: number, max = MAX_SOURCE_BYTES, size = 0, into?: ReadBuffer): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  readChunks(
    fd,
    max,
    size,
    (len, first) => (first && into ? into.take(len) : Buffer.allocUnsafe(len)),
    (chunk) => {
      chunks.push(chunk);
      total += chunk.length;
    },
  );
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

/**
 * readFdBounded's text, decoded a chunk at a time from `scratch` (a 64 KiB buffer reused from
 * chunk to chunk and from file to file): no buffer of the whole file is made, only the text. The
 * pieces are below V8's large-object size, made in its young generation; the buffer of a 22 MB
 * file was 22 MB of fresh memory besides the text's (docs/performance.md). StringDecoder keeps a
 * character split between two chunks for the next, so the text is the whole bytes' decoding
 * (test/io/readText.test.ts holds the two equal on any bytes across the chunk boundaries).
 */
export function readFdText(fd: number, max = MAX_SOURCE_BYTES, size = 0, scratch = new ReadBuffer()): string {
  const decoder = scratch.decoder();
  const pieces: string[] = [];
  // A file that fits one chunk is read in one call, as readFdBytes reads it (a byte more than its size).
  try {
    readChunks(
      fd,
      max,
      size > 0 && size < CHUNK ? size : 0,
      (len) => scratch.take(Math.min(len, CHUNK)),
      (chunk) => void pieces.push(decoder.write(chunk)),
    );
  } catch (e) {
    decoder.end(); // a character split at a refused chunk is not the next text's first
    throw e;
  }
  pieces.push(decoder.end());
  return pieces.length === 2 ? pieces[0] + pieces[1] : pieces.join('');
}

/**
 * The one read loop: every chunk of an open descriptor up to `max`, handed to `each` (valid only
 * during the call), into the buffer `take` gives for a read of `len` bytes at most; throws
 * SourceTooLarge one chunk past the bound, and SourceNotText at the first chunk holding a NUL byte.
 * A pipe with nothing to read yet (EAGAIN) is waited for. `whole`, a regular file's size when it
 * is read in one call, makes that call ask for a byte more: a short read is its end (the second
 * read, always empty, was a system call per file of a committed tree).
 */
export function readChunks(
  fd: number,
  max: number,
  whole: number,
  take: (len: number, first: boolean) => Buffer,
  each: (chunk: Buffer) => void,
): void {
  let total = 0;
  let reads = 0;
  for (;;) {
    const first = reads === 0 && whole > 0;
    const len = Math.min(first ? whole + 1 : CHUNK, max + 1 - total);
    const buf = take(len, first);
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, Math.min(len, buf.length), null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        Atomics.wait(sleeper, 0, 0, 5); // nothing to read yet: wait a little, without spinning
        continue;
      }
      if (code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    reads++;
    const chunk = n === buf.length ? buf : buf.subarray(0, n);
    const nul = chunk.indexOf(0);
    if (nul >= 0) throw new SourceNotText(total + nul);
    total += n;
    if (total > max) throw new SourceTooLarge(total, true, max);
    each(chunk);
    if (first && n < len) break;
  }
}

/**
 * A file whole, up to `max` bytes: a regular file larger than that is refused by its size
 * before anything is read (and one that grows while it is read, as it passes the bound); a
 * stream (a FIFO, a device, /dev/stdin) is read in chunks and refused as it passes the bound.
 */
export function readFileBounded(file: string, max = MAX_SOURCE_BYTES): string {
  return readFileBytes(file, max).toString('utf8');
}

/**
 * readFileBounded's bytes, undecoded (see readFdBytes; with `into`, they hold until its next read).
 * `seen` is handed the file's status as it was opened (src/io/sourceMap.ts keeps a regular file's
 * identity instead of its text).
 */
export function readFileBytes(
  file: string,
  max = MAX_SOURCE_BYTES,
  into?: ReadBuffer,
  seen?: (st: fs.Stats) => void,
): Buffer {
  return readOpened(file, max, seen, (fd, size) => readFdBytes(fd, max, size, into));
}

/**
 * readFileBytes's text, decoded a chunk at a time through `scratch` (readFdText): the reader of
 * many files passes one scratch buffer to every call. `seen` is handed the file's status as it
 * was opened.
 */
export function readFileText(
  file: string,
  max = MAX_SOURCE_BYTES,
  scratch?: ReadBuffer,
  seen?: (st: fs.Stats) => void,
): string {
  return readOpened(file, max, seen, (fd, size) => readFdText(fd, max, size, scratch));
}

/**
 * A file opened, and `read` from it with its size when it is a regular file (0 for a stream): a
 * regular file larger than `max` is refused by its size before a byte is read. `seen` is handed
 * its status as it was opened; the descriptor is closed whatever happens.
 */
export function readOpened<T>(
  file: string,
  max: number,
  seen: ((st: fs.Stats) => void) | undefined,
  read: (fd: number, size: number) => T,
): T {
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    if (st.isFile() && st.size > max) throw new SourceTooLarge(st.size, false, max);
    seen?.(st);
    return read(fd, st.isFile() ? st.size : 0);
  } finally {
    fs.closeSync(fd);
  }
}

/** Standard input whole, bounded; past the bound an input error naming `<stdin>`. */
export function readAllStdin(fd = 0, max = MAX_SOURCE_BYTES): string {
  try {
    return readFdBounded(fd, max);
  } catch (e) {
    if (e instanceof SourceRefused) throw tooLargeError('<stdin>', e);
    throw e;
  }
}
