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

  describe('a reader that closes the pipe early keeps the verdict as the exit status (also under pipefail)', () => {
    // Far more than a pipe buffer (64 KiB) of output, so the writer meets the closed pipe.
    let dir = '';
    beforeAll(() => {
      dir = tmpDir('cozy-gw-pipes-verdict-');
      const tenants = Array.from(
        { length: 400 },
        (_, i) =>
          `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: t${i}, namespace: tenant-root}\nspec: {}\n`,
      ).join('---\n');
      fs.writeFileSync(path.join(dir, 'tenants.yaml'), tenants);
      fs.writeFileSync(path.join(dir, 'empty.yaml'), '');
      // 500 routes in tenant-alice claiming a hostname outside its apex: 500 denials.
      const routes = Array.from(
        { length: 500 },
        (_, i) =>
          `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r${i}, namespace: tenant-alice}\nspec:\n  parentRefs: [{name: cozystack, namespace: tenant-root}]\n  hostnames: [dashboard.example.org]\n`,
      ).join('---\n');
      fs.writeFileSync(path.join(dir, 'routes.yaml'), routes);
      const rendered = sh(`${example} > ${path.join(dir, 'rendered.yaml')}`);
      expect(rendered.status).toBe(0);
    });
    const diffCmd = () => `node ${BIN} diff --state ${dir}/empty.yaml -f ${dir}/tenants.yaml`;
    const admitCmd = () =>
      `node ${BIN} admit --values examples/platform/values.yaml -f ${dir}/rendered.yaml -f ${dir}/routes.yaml 2>/dev/null`;

    it.each([
      ['diff | head -1', () => `${diffCmd()} | head -1 >/dev/null`, 3],
      ['diff | grep -q', () => `${diffCmd()} | grep -q Namespace`, 3],
      ['diff -o plan | head -1', () => `${diffCmd()} -o plan | head -1 >/dev/null`, 3],
      ['admit | head -1', () => `${admitCmd()} | head -1 >/dev/null`, 1],
      ['admit | grep -q', () => `${admitCmd()} | grep -q denied`, 1],
      ['render | head -1', () => `node ${BIN} render -f ${dir}/tenants.yaml | head -1 >/dev/null`, 0],
    ])('%s', (_what, script, verdict) => {
      const r = sh(`${script()}; echo "writer=\${PIPESTATUS[0]} pipeline=$?"`);
      expect(r.stdout).toContain(`writer=${verdict} pipeline=${verdict}`);
      expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    });
  });

  it('a reader slower than the writer gets every byte, the writer waiting on the full pipe (src/io/stdout.ts)', () => {
    // process.stdout made the pipe non-blocking; 4 MiB and a character of two UTF-16 units across
    // each slice boundary, read only after the writer has long filled the pipe.
    const writer = `process.stdout; require('./dist/io/stdout').writeAllSync(1, ('x'.repeat((1 << 20) - 1) + '\u{1F600}').repeat(4))`;
    const r = sh(
      `node -e "${writer}" | (sleep 1; node -e "let n = 0; process.stdin.on('data', (d) => n += d.length).on('end', () => console.log(n))")`,
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(String(4 * ((1 << 20) - 1 + 4)));
    const ok = sh(
      `node -e "${writer}" | (sleep 1; cat) | node -e "let s = ''; process.stdin.setEncoding('utf8').on('data', (d) => s += d).on('end', () => console.log(s === ('x'.repeat((1 << 20) - 1) + '\u{1F600}').repeat(4)))"`,
    );
    expect(ok.stdout.trim()).toBe('true');
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
