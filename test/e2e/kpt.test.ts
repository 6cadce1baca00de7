/**
 * `cozy-gw fn` under the real kpt (docs/commands/fn.md: it must work as an exec function
 * under `kpt fn eval --exec` and in a Kptfile pipeline under `kpt fn render --allow-exec`).
 * kpt runs an executable: a wrapper script runs `node bin/cozy-gw.js fn` (helpers/kpt.ts builds
 * dist/ first when it is missing or stale). Skipped, visibly, where kpt is not on PATH.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ensureBuilt,
  kptfile,
  ROOT,
  TESTDATA,
  readFiles,
  runProcess,
  tmpDir,
  which,
  writeFiles,
  writeWrapper,
} from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';

const KPT = which('kpt');
const PKG = path.join(TESTDATA, 'krm', 'pkg');
const GENERATED = 'cozy-gw.cozystack.io/generated: "true"';

function copyPackage(extra: Record<string, string> = {}): { dir: string; wrapper: string } {
  const base = tmpDir('kpt');
  const dir = path.join(base, 'pkg');
  fs.mkdirSync(dir);
  writeFiles(dir, readFiles(PKG));
  writeFiles(dir, extra);
  const wrapper = writeWrapper(path.join(base, 'bin', 'cozy-gw-fn'), ['fn']);
  return { dir, wrapper };
}

/** The exit code, with kpt's account of what happened when it is not the one wanted. */
function expectExit(r: { code: number; stdout: string; stderr: string }, want: 0 | 'failure'): void {
  const ok = want === 0 ? r.code === 0 : r.code !== 0;
  if (!ok) throw new Error(`kpt exited ${r.code}, want ${want}:\n${r.stdout}\n${r.stderr}`);
}

function userFiles(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter(([k]) => !k.startsWith('cozy-gw/')));
}

if (!KPT) {
  describe('kpt (real client)', () => {
    it.skip(skippedTitle('kpt fn eval and kpt fn render', needs('kpt')!), () => undefined);
  });
} else {
  describe('kpt (real client)', () => {
    beforeAll(() => ensureBuilt(), 240_000);
    const VALUES = [
      'publishing.host=example.org',
      'gateway.enabled=true',
      'reconcile=true',
      'now=2026-01-01T00:00:00Z',
    ];

    it('kpt fn eval --exec: adds the rendered objects as new files, leaves the user files byte for byte, and is idempotent', () => {
      const { dir, wrapper } = copyPackage();
      const before = readFiles(dir);
      const r1 = runProcess(KPT, ['fn', 'eval', dir, '--exec', wrapper, '--', ...VALUES]);
      expectExit(r1, 0);
      expect(r1.stdout + r1.stderr).toMatch(/\[PASS\]/);
      const after = readFiles(dir);
      // The user's files, comments and quoting included, are untouched.
      expect(userFiles(after)).toEqual(before);
      // The new objects, each in its own file under cozy-gw/.
      expect(Object.keys(after)).toEqual(
        expect.arrayContaining([
          'cozy-gw/tenant-root/tenantgateway-cozystack.yaml',
          'cozy-gw/_cluster/namespace-tenant-root.yaml',
          'cozy-gw/_cluster/namespace-tenant-alice.yaml',
          'cozy-gw/tenant-alice/secret-cozystack-values.yaml',
        ]),
      );
      // The local-config Tenant is passed through, never rendered.
      expect(Object.keys(after).filter((k) => k.includes('tenant-draft'))).toEqual([]);
      const tgw = after['cozy-gw/tenant-root/tenantgateway-cozystack.yaml'];
      expect(tgw).toContain(GENERATED);
      expect(tgw).toContain('apex: example.org');
      expect(tgw).not.toMatch(/config\.kubernetes\.io\/(path|index)/); // kpt strips its annotations when writing
      // A second run replaces what the first generated instead of adding copies.
      const r2 = runProcess(KPT, ['fn', 'eval', dir, '--exec', wrapper, '--', ...VALUES]);
      expectExit(r2, 0);
      expect(readFiles(dir)).toEqual(after);
    }, 120_000);

    it('kpt fn eval --exec: a render failure fails the function with an error result naming the file, and writes nothing', () => {
      const { dir, wrapper } = copyPackage();
      const before = readFiles(dir);
      const r = runProcess(KPT, [
        'fn',
        'eval',
        dir,
        '--exec',
        wrapper,
        '--',
        'publishing.host=example.org',
        'gateway.enabled=true',
        'publishing.certificates.solver=tls-alpn-01',
        'bogus=1',
      ]);
      expectExit(r, 'failure');
      const out = r.stdout + r.stderr;
      expect(out).toMatch(/\[FAIL\]/);
      expect(out).toMatch(/\[error\].*unsupported solver "tls-alpn-01"/);
      expect(out).toMatch(/\[error\].*data\.bogus: unknown functionConfig key "bogus"/); // every failure, not only the first
      expect(out).toMatch(/tenants\.yaml: Tenant tenant-root\/root/); // stderr names the user's file and the object
      expect(readFiles(dir)).toEqual(before);
    }, 120_000);

    it('kpt fn render --allow-exec: runs in a Kptfile pipeline with a CozyGateway configPath, idempotently', () => {
      const { dir, wrapper } = copyPackage();
      writeFiles(dir, {
        Kptfile: kptfile(wrapper, 'cozygateway.yaml'),
        'cozygateway.yaml': fs.readFileSync(path.join(TESTDATA, 'krm', 'cozygateway.yaml'), 'utf8'),
      });
      const before = readFiles(dir);
      const r1 = runProcess(KPT, ['fn', 'render', dir, '--allow-exec']);
      expectExit(r1, 0);
      expect(r1.stdout + r1.stderr).toMatch(/Successfully executed 1 function/);
      const after = readFiles(dir);
      expect(userFiles(after)).toEqual(before); // Kptfile, config and user files untouched
      expect(after['cozy-gw/tenant-root/tenantgateway-cozystack.yaml']).toContain(GENERATED);
      expect(after['cozy-gw/_cluster/namespace-tenant-alice.yaml']).toContain(
        'namespace.cozystack.io/host: alice.example.org',
      );
      expect(after['cozy-gw/tenant-root/gateway-cozystack.yaml']).toContain('kind: Gateway'); // reconcile: true in the config
      const r2 = runProcess(KPT, ['fn', 'render', dir, '--allow-exec']);
      expectExit(r2, 0);
      expect(readFiles(dir)).toEqual(after);
    }, 120_000);

    it('kpt fn render --allow-exec: an exec with arguments and a Kptfile configMap (the key=value form)', () => {
      const { dir } = copyPackage();
      const exec = `${process.execPath} ${path.join(ROOT, 'bin', 'cozy-gw.js')} fn`;
      writeFiles(dir, {
        Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\npipeline:\n  mutators:\n  - exec: "${exec}"\n    configMap:\n      publishing.host: example.org\n      gateway.enabled: "true"\n`,
      });
      const before = readFiles(dir);
      const r = runProcess(KPT, ['fn', 'render', dir, '--allow-exec']);
      expectExit(r, 0);
      const after = readFiles(dir);
      expect(userFiles(after)).toEqual(before);
      expect(after['cozy-gw/tenant-root/tenantgateway-cozystack.yaml']).toContain('apex: example.org');
      expect(after['cozy-gw/tenant-root/gateway-cozystack.yaml']).toBeUndefined(); // no reconcile asked for
    }, 120_000);

    it('kpt fn render --allow-exec: a render failure fails the pipeline and leaves the package as it was', () => {
      const { dir, wrapper } = copyPackage();
      writeFiles(dir, {
        Kptfile: kptfile(wrapper, 'cozygateway.yaml'),
        'cozygateway.yaml': fs.readFileSync(path.join(TESTDATA, 'krm', 'cozygateway-bad.yaml'), 'utf8'),
      });
      const before = readFiles(dir);
      const r = runProcess(KPT, ['fn', 'render', dir, '--allow-exec']);
      expectExit(r, 'failure');
      expect(r.stdout + r.stderr).toMatch(/\[error\].*unsupported solver "tls-alpn-01"/);
      expect(readFiles(dir)).toEqual(before);
    }, 120_000);
  });
}
