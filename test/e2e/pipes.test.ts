/**
 * The CLI as a pipeline stage, in real processes: reading stdin a node writer made non-blocking
 * (EAGAIN), and a reader that closes the pipe early (EPIPE), both without a stack trace.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, ensureBuilt, ROOT, tmpDir } from '../helpers/kpt';

beforeAll(() => ensureBuilt());

const sh = (script: string) =>
  spawnSync('bash', ['-o', 'pipefail', '-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 60000 });
const example = `node ${BIN} render --values examples/platform/values.yaml -f examples/platform/tenants`;

describe('cozy-gw in a shell pipeline', () => {
  it('render | reconcile -f - reads the whole stream written by another node process', () => {
    const r = sh(`${example} | node ${BIN} reconcile -f - --now 2026-01-01T00:00:00Z -o json`);
    expect(r.stderr).not.toMatch(/EAGAIN|\n\s+at /);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { changed: { kind: string }[] };
    expect(out.changed.some((o) => o.kind === 'Gateway')).toBe(true);
  });

  it('render | head ends quietly when the reader closes the pipe', () => {
    // Far more than a pipe buffer (64 KiB), so the writer is still writing when head exits.
    const dir = tmpDir('cozy-gw-pipes-');
    const tenants = Array.from(
      { length: 400 },
      (_, i) =>
        `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: t${i}, namespace: tenant-root}\nspec: {}\n`,
    ).join('---\n');
    fs.writeFileSync(path.join(dir, 'tenants.yaml'), tenants);
    const r = sh(
      `node ${BIN} render -f ${path.join(dir, 'tenants.yaml')} | head -c 100 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`,
    );
    expect(r.stdout).toMatch(/exit=0/);
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
  });

  // A failed write to standard output is one clean line and exit 1 (after
  // render's one note, on the Helm hooks it left out).
  it.each([
    [
      'a full disk (ENOSPC)',
      '> /dev/full',
      /^(info: Helm hooks left out[^\n]*\n)?error: cannot write to standard output: no space left on device \(ENOSPC\)\n$/,
    ],
    [
      'a descriptor not open for writing (EBADF)',
      '1</dev/null',
      /^(info: Helm hooks left out[^\n]*\n)?error: cannot write to standard output: .*\(EBADF\)\n$/,
    ],
  ])('output to %s: one line on stderr, exit 1, no stack', (_what, redirect, line) => {
    const r = sh(`${example} ${redirect}`);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(line);
  });
});
