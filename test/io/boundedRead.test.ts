/**
 * Reading is bounded before it allocates (docs/decisions.md §13, MAX_SOURCE_BYTES in
 * src/k8s/limits.ts, src/io/stdin.ts): a regular file is refused by its size before a byte is
 * read, a stream (stdin, a FIFO, a device) as soon as it passes the bound, and inside a directory
 * only regular files are read: a `tenants/zero.yaml` link to /dev/zero or a FIFO is an input error
 * naming it, at once, never a run that grows without end or blocks.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readFdBounded, readFileBounded, SourceNotText, SourceTooLarge } from '../../src/io/stdin';
import { STACK_FRAME } from '../helpers/cli';
import { MAX_SOURCE_BYTES } from '../../src/k8s/limits';
import { BIN, ensureBuilt, tmpDir } from '../helpers/kpt';

const TENANT =
  'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: alice, namespace: tenant-root}\n';

describe('readFileBounded', () => {
  it('refuses a regular file larger than the bound by its size, before reading it', () => {
    const dir = tmpDir('cozy-gw-bounded-');
    const file = path.join(dir, 'big.yaml');
    fs.writeFileSync(file, 'x'.repeat(5000));
    let thrown: unknown;
    try {
      readFileBounded(file, 4096);
    } catch (e) {
      thrown = e;
    }
    // The file's whole size, not streamed: its size was judged, nothing read (a read stops at 4097).
    expect(thrown).toBeInstanceOf(SourceTooLarge);
    expect({ ...(thrown as SourceTooLarge) }).toEqual({
      bytes: 5000,
      streamed: false,
      max: 4096,
      name: 'SourceTooLarge',
    });
  });

  it('reads a file up to the bound whole', () => {
    const dir = tmpDir('cozy-gw-bounded-');
    const file = path.join(dir, 'ok.yaml');
    fs.writeFileSync(file, 'é'.repeat(2048)); // 4096 bytes: multi-byte characters across chunks
    expect(readFileBounded(file, 4096)).toBe('é'.repeat(2048));
  });

  it('stops a stream one chunk past the bound', () => {
    const file = path.join(tmpDir('cozy-gw-bounded-'), 'text.yaml');
    fs.writeFileSync(file, 'a: b\n'.repeat((1 << 19) + 1)); // 2 MiB of text, read through the descriptor
    const fd = fs.openSync(file, 'r');
    try {
      let thrown: unknown;
      try {
        readFdBounded(fd, 1 << 20);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(SourceTooLarge);
      const e = thrown as SourceTooLarge;
      expect({ streamed: e.streamed, past: e.bytes > 1 << 20, within: e.bytes <= (1 << 20) + (1 << 16) }).toEqual({
        streamed: true,
        past: true,
        within: true,
      });
    } finally {
      fs.closeSync(fd);
    }
  });

  it('refuses /dev/zero at its first chunk: a NUL byte is no YAML or JSON text', () => {
    const fd = fs.openSync('/dev/zero', 'r');
    try {
      let thrown: unknown;
      try {
        readFdBounded(fd);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(SourceNotText);
      expect((thrown as SourceNotText).offset).toBe(0);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('names the offset of the first NUL byte, past earlier chunks', () => {
    const file = path.join(tmpDir('cozy-gw-bounded-'), 'nul.yaml');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('a'.repeat(100_000)), Buffer.from([0])]));
    expect(() => readFileBounded(file)).toThrow('a NUL byte at offset 100000');
  });
});

describe('the CLI over sources that never end or block (real processes)', () => {
  beforeAll(() => ensureBuilt());
  const run = (args: string[], cwd: string, input?: string) =>
    spawnSync(process.execPath, [BIN, ...args], { cwd, input, encoding: 'utf8', timeout: 60000 });

  it('a tenants directory holding a link to /dev/zero and a FIFO: an error naming each, at once', () => {
    const dir = tmpDir('cozy-gw-bounded-');
    fs.mkdirSync(path.join(dir, 'tenants'));
    fs.writeFileSync(path.join(dir, 'tenants', 'alice.yaml'), TENANT);
    fs.symlinkSync('/dev/zero', path.join(dir, 'tenants', 'zero.yaml'));
    const fifo = spawnSync('mkfifo', [path.join(dir, 'tenants', 'pipe.yaml')]);
    const r = run(['render', '-f', 'tenants'], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'error: tenants/zero.yaml: not a regular file but a character device: a directory is read for regular files only',
    );
    if (fifo.status === 0) expect(r.stderr).toContain('error: tenants/pipe.yaml: not a regular file but a FIFO');
  });

  it('-f /dev/zero, or a link to it, given explicitly: refused at its first chunk, naming it', () => {
    const dir = tmpDir('cozy-gw-bounded-');
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero.yaml'));
    for (const f of ['/dev/zero', 'zero.yaml']) {
      const r = run(['render', '-f', f], dir);
      expect({ f, status: r.status, stdout: r.stdout }).toEqual({ f, status: 1, stdout: '' });
      expect(r.stderr).toMatch(
        new RegExp(`^error: ${f.replace(/\//g, '\\/')}: holds a NUL byte at byte 0: it is not YAML or JSON text`),
      );
      expect(r.stderr).not.toMatch(STACK_FRAME);
    }
  });

  it(`a FIFO given explicitly, fed more than ${MAX_SOURCE_BYTES >> 20} MiB of text: refused once the bound is passed`, () => {
    const dir = tmpDir('cozy-gw-bounded-');
    const fifo = path.join(dir, 'pipe.yaml');
    if (spawnSync('mkfifo', [fifo]).status !== 0) throw new Error('mkfifo failed');
    const r = spawnSync('bash', ['-c', `(yes 'a: b' > pipe.yaml 2>/dev/null &) ; node ${BIN} render -f pipe.yaml`], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: pipe\.yaml: holds more than 256 MiB \(read as a stream\)/);
  });

  it('standard input past the bound: refused, naming <stdin>', () => {
    const r = spawnSync('bash', ['-c', `yes 'a: b' | head -c ${MAX_SOURCE_BYTES + 1} | node ${BIN} render -f -`], {
      encoding: 'utf8',
      timeout: 60000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: <stdin>: holds more than 256 MiB/);
  });

  it('a regular file past the bound: refused by its size', () => {
    const dir = tmpDir('cozy-gw-bounded-');
    const fd = fs.openSync(path.join(dir, 'huge.yaml'), 'w');
    fs.ftruncateSync(fd, MAX_SOURCE_BYTES + 1); // sparse: no disk used
    fs.closeSync(fd);
    const r = run(['render', '-f', 'huge.yaml'], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`error: huge.yaml: is ${MAX_SOURCE_BYTES + 1} bytes, larger than the limit of 256 MiB`);
  });
});
