/**
 * Writing standard output synchronously, whatever it is. process.stdout keeps in memory what a
 * pipe does not take at once (libuv makes the pipe non-blocking, and a command that runs to its end
 * without returning to the event loop never lets that queue drain): `cozy-gw fn` piped into kpt
 * held its whole output, 447 MB of text and 3 GB of memory at 20,000 tenants, however it made the
 * text piece by piece. Here a full pipe (EAGAIN) is waited for, as stdin.ts waits for an empty one.
 */
import * as fs from 'node:fs';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** At most this many UTF-16 units are encoded at a time (a large output is not copied whole). */
const SLICE = 1 << 20;

/** Write all of `s` to the descriptor before returning; its errors (EPIPE, ENOSPC, ...) are thrown. */
export function writeAllSync(fd: number, s: string): void {
  for (let i = 0; i < s.length;) {
    let end = Math.min(i + SLICE, s.length);
    // Never between the two halves of a surrogate pair.
    const c = s.charCodeAt(end - 1);
    if (end < s.length && c >= 0xd800 && c <= 0xdbff) end++;
    writeBuffer(fd, Buffer.from(s.slice(i, end), 'utf8'));
    i = end;
  }
}

function writeBuffer(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}
