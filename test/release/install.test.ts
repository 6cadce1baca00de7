/**
 * The package as users install it: `npm pack` of the build, installed globally (`npm install -g`)
 * into a folder of its own with nothing else beside it. It installs without running a script,
 * brings no dependency (the libraries are bundled, scripts/bundle.js), and its commands print
 * what the checkout's print, byte for byte, writing nothing inside the installed package.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, tmpDir } from '../helpers/kpt';
import { EXAMPLE_INPUTS } from '../helpers/cli';
import { installPacked } from '../helpers/installed';

let prefix = '';
let npmOutput = '';
let pkgDir = '';
let dir = '';

beforeAll(() => {
  dir = tmpDir('install');
  ({ prefix, npmOutput } = installPacked(dir));
  pkgDir = path.join(prefix, 'lib', 'node_modules', 'cozy-gw');
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every file under dir with its size and modification time. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.statSync(p);
        out.push(`${path.relative(dir, p)} ${st.size} ${st.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

function run(bin: string, args: string[], input = '') {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npm install -g of the packed package', () => {
  test('runs no install script and warns about none', () => {
    expect(npmOutput).not.toMatch(/install-scripts|prepare|postinstall/i);
  });

  test('brings nothing beside the package: no dependency to install', () => {
    expect(fs.existsSync(path.join(pkgDir, 'node_modules'))).toBe(false);
    expect(fs.readdirSync(path.join(prefix, 'lib', 'node_modules'))).toEqual(['cozy-gw']);
  });

  test("its commands print the checkout's bytes and write nothing inside the installed package", () => {
    const before = listing(prefix);
    const installed = path.join(pkgDir, 'bin', 'cozy-gw.js');
    const checkout = path.join(ROOT, 'bin', 'cozy-gw.js');
    const resourceList = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n';
    const cases: [string, string[], string][] = [
      ['--version', ['--version'], ''],
      ['render', ['render', ...EXAMPLE_INPUTS], ''],
      ['reconcile --all', ['reconcile', '--all', ...EXAMPLE_INPUTS, '--now', '2026-01-01T00:00:00Z'], ''],
      ['render --validate', ['render', '--validate', ...EXAMPLE_INPUTS], ''],
    ];
    for (const [name, args, input] of cases)
      expect({ name, ...run(installed, args, input) }).toEqual({ name, ...run(checkout, args, input) });
    const fnInstalled = run(path.join(pkgDir, 'bin', 'cozy-gw-fn'), [], resourceList);
    expect(fnInstalled).toEqual(run(path.join(ROOT, 'bin', 'cozy-gw-fn'), [], resourceList));
    expect(fnInstalled.code).toBe(0);
    expect(listing(prefix)).toEqual(before);
  }, 120_000);

  test('the executables npm links run it', () => {
    const r = spawnSync(path.join(prefix, 'bin', 'cozy-gw'), ['--version'], { encoding: 'utf8' });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout.split('\n')[0]).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
  });
});
