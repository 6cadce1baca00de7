/**
 * bin/ in a clone whose dist/ is missing (a fresh clone after `npm install` alone) or older than a
 * source (a pull or an edit since the build): one line saying to run `npm run build`, exit 1, never
 * Node.js's stack trace nor a stale run. The installed package (dist/ and no src/) is never
 * checked: it runs without scripts/ beside it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureBuilt, ROOT, tmpDir } from '../helpers/kpt';
import { STACK_FRAME } from '../helpers/cli';
import { versionText } from '../../src/cli/version';

let dir = '';

beforeAll(() => {
  ensureBuilt();
  dir = tmpDir('bin-build');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A checkout's layout under `name`: bin/ and scripts/ensure-built.js, with src/ (a clone) or without (the package). */
function layout(name: string, o: { src: boolean; dist: boolean }): string {
  const at = path.join(dir, name);
  for (const f of ['bin/cozy-gw.js', 'bin/cozy-gw-fn', 'package.json', ...(o.src ? ['scripts/ensure-built.js'] : [])]) {
    fs.mkdirSync(path.dirname(path.join(at, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(at, f));
  }
  if (o.src) {
    fs.mkdirSync(path.join(at, 'src', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(at, 'src', 'cli', 'index.ts'), '// the sources\n');
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(path.join(at, 'src', 'cli', 'index.ts'), past, past);
  }
  if (o.dist) fs.cpSync(path.join(ROOT, 'dist'), path.join(at, 'dist'), { recursive: true });
  return at;
}

function run(at: string, bin = 'cozy-gw.js', args = ['--version']) {
  const r = spawnSync(process.execPath, [path.join(at, 'bin', bin), ...args], {
    encoding: 'utf8',
    input: 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n',
    env: { ...process.env, COZY_GW_CODE_CACHE_DIR: path.join(dir, 'cache') },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bin/ and a build that is not there', () => {
  it('a clone without dist/: "run npm run build", exit 1, no stack trace (both executables)', () => {
    const at = layout('no-dist', { src: true, dist: false });
    for (const bin of ['cozy-gw.js', 'cozy-gw-fn']) {
      const r = run(at, bin);
      expect({ bin, ...r }).toEqual({
        bin,
        code: 1,
        stdout: '',
        stderr: 'cozy-gw: dist/ is missing: run `npm run build` first (a clone runs what the build makes of src/)\n',
      });
      expect(r.stderr).not.toMatch(STACK_FRAME);
    }
  });

  it('a clone whose dist/ is older than a source: it names the source and refuses; once built again, it runs', () => {
    const at = layout('stale', { src: true, dist: true });
    expect(run(at)).toEqual({ code: 0, stdout: `${versionText()}\n`, stderr: '' });
    const future = new Date(Date.now() + 3_600_000);
    fs.utimesSync(path.join(at, 'src', 'cli', 'index.ts'), future, future);
    for (const bin of ['cozy-gw.js', 'cozy-gw-fn'])
      expect({ bin, ...run(at, bin) }).toEqual({
        bin,
        code: 1,
        stdout: '',
        stderr: `cozy-gw: dist/ is older than ${path.join('src', 'cli', 'index.ts')}: run \`npm run build\` to build it again\n`,
      });
  });

  it('the installed package (dist/, no src/ nor scripts/) runs unchecked, whatever the times of its files', () => {
    const at = layout('package', { src: false, dist: true });
    const past = new Date(0);
    fs.utimesSync(path.join(at, 'dist', 'cli', 'index.js'), past, past);
    expect(run(at)).toEqual({ code: 0, stdout: `${versionText()}\n`, stderr: '' });
    const fn = run(at, 'cozy-gw-fn', []);
    expect({ code: fn.code, resourceList: fn.stdout.includes('kind: ResourceList') }).toEqual({
      code: 0,
      resourceList: true,
    });
  });
});
