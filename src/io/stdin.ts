/**
 * Reading all of standard input synchronously, whatever it is: a file, a terminal, or a pipe
 * another process set non-blocking (a node writer does: `cozy-gw render | cozy-gw reconcile -f -`),
 * where a plain readFileSync(0) fails with EAGAIN before the writer has written.
 */
import * as fs from 'node:fs';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function readAllStdin(fd = 0): string {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, buf.length, null);
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
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}
