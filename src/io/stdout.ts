/**
 * Writing standard output synchronously, whatever it is. process.stdout keeps in memory what a
 * pipe does not take at once (libuv makes the pipe non-blocking, and a command that runs to its end
 * without returning to the event loop never lets that queue drain): `cozy-gw fn` piped into kpt
 * held its whole output, 447 MB of text and 3 GB of memory at 20,000 tenants, however it made the
 * text piece by piece. Here a full pipe (EAGAIN) is waited for, as stdin.ts waits for an empty one.
 */
import * as fs from 'node:fs';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/**
 * At most this many UTF-16 units are encoded at a time (a large output is not copied whole): a
 * slice below V8's large-object size is made in the young generation, not in fresh memory.
 */
const SLICE = 1 << 16;
/**
 * The bytes of one slice are encoded into this buffer, made once and reused (UTF-8 takes at most
 * three bytes per UTF-16 unit): a new buffer per slice was a fresh megabyte of memory touched for
 * every megabyte written. Only the bytes of the slice being written are in it, never kept.
 */
let scratch: Buffer | undefined;

/** Write all of `s` to the descriptor before returning; its errors (EPIPE, ENOSPC, ...) are thrown. */
export function writeAllSync(fd: number, s: string): void {
  for (let i = 0; i < s.length;) {
    let end = Math.min(i + SLICE, s.length);
    // Never between the two halves of a surrogate pair.
    const c = s.charCodeAt(end - 1);
    if (end < s.length && c >= 0xd800 && c <= 0xdbff) end++;
    const room = 3 * (end - i);
    if (scratch === undefined || scratch.length < room) scratch = Buffer.allocUnsafeSlow(Math.max(room, 4096));
    const n = scratch.write(i === 0 && end === s.length ? s : s.slice(i, end), 0, 'utf8');
    writeBuffer(fd, scratch, n);
    i = end;
  }
}

/** The first `length` bytes of `buf`, all of them, waiting out a full pipe. */
function writeBuffer(fd: number, buf: Buffer, length: number): void {
  let off = 0;
  while (off < length) {
    try {
      off += fs.writeSync(fd, buf, off, length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}
