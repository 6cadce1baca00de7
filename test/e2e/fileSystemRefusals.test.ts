/**
 * Runs where the file system refuses a write, as a user meets them (child processes of
 * bin/cozy-gw.js, each stopped after 30 s: a run that loops never ends on its own):
 * - a directory that cannot be made under a parent that exists (/proc answers ENOENT): the code
 *   cache's directory (TMPDIR, COZY_GW_CODE_CACHE_DIR) and `diff --comment-dir`. Node.js's recursive
 *   mkdir spun there for ever; the cache is left off, and --comment-dir is an error naming it.
 * - Node.js's permission model (`--permission`, `--experimental-permission` on Node.js 20): a tree
 *   written with `--allow-fs-write` granting DIR is the tree written without it (SafeDir used to
 *   write through /proc/self/fd, which no grant of DIR covers, and fsync is disabled there); a
 *   grant the tree cannot use is an error that says so, and leaves nothing.
 * - a TMPDIR that is not there: the code cache's default directory is made only inside a temporary
 *   directory that exists (the recursive mkdir made the whole of TMPDIR).
 * - a working directory removed before the run: process.cwd() threw at start, a stack trace for
 *   every command; now only a command that resolves a path stops, with an error that says why.
 * - a low limit of open files (`ulimit -n 40`): the tree's walk kept 64 folders open and a tree of
 *   a hundred tenants failed halfway (EMFILE, not rolled back); now it closes them and goes on.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXAMPLE_DIFF, EXAMPLE_INPUTS, MIN_VALUES, ROOT, ROOT_TENANT, STACK_FRAME } from '../helpers/cli';
import { ensureBuilt, tmpDir } from '../helpers/kpt';
import { testUnless } from '../helpers/skip';
import { versionText } from '../../src/cli/version';

const BIN = path.join(ROOT, 'bin', 'cozy-gw.js');
/** What `--version` prints: cozy-gw's version, then the Cozystack versions it reproduces (src/cli/version.ts). */
const VERSION_TEXT = versionText();

beforeAll(() => ensureBuilt());

function cozy(args: readonly string[], o: { env?: NodeJS.ProcessEnv; node?: readonly string[] } = {}) {
  const r = spawnSync(process.execPath, [...(o.node ?? []), BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...o.env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.signal) throw new Error(`cozy-gw ${args.join(' ')} did not end within 30 s (${r.signal})`);
  expect(r.stderr).not.toMatch(STACK_FRAME);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** cozy-gw run by `sh -c '<setup> && exec node bin/cozy-gw.js ARGS'` (a limit set, a directory removed first). */
function inShell(setup: string, args: readonly string[]) {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync('sh', ['-c', `${setup} && exec ${quoted}`], { encoding: 'utf8', timeout: 60_000 });
  if (r.signal) throw new Error(`cozy-gw ${args.join(' ')} did not end within 60 s (${r.signal})`);
  expect(r.stderr).not.toMatch(STACK_FRAME);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under dir with its bytes, by path. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else out[r] = fs.readFileSync(path.join(dir, r), 'utf8');
    }
  };
  walk('');
  return out;
}

const noProc = fs.existsSync('/proc/self') ? undefined : '/proc (Linux)';
describe('a directory that cannot be made under a parent that exists', () => {
  const it = testUnless(noProc);
  it('TMPDIR=/proc: --version prints the version and the run ends', () => {
    for (const env of [{ TMPDIR: '/proc' }, { COZY_GW_CODE_CACHE_DIR: '/proc/cozy-gw/cache' }]) {
      const r = cozy(['--version'], { env });
      expect({ env, r }).toEqual({ env, r: { code: 0, stdout: `${VERSION_TEXT}\n`, stderr: '' } });
    }
  });

  it('diff --comment-dir under /proc: an error naming the option, exit 1', () => {
    const r = cozy([...EXAMPLE_DIFF, '-o', 'markdown', '--comment-dir', '/proc/cozy-gw/comments']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "error: --comment-dir /proc/cozy-gw/comments: cannot write the comment's parts: no such file or directory (ENOENT)",
    );
  });
});

test('TMPDIR naming a directory that is not there: the version printed, and that directory never made', () => {
  const base = tmpDir('missing-tmpdir');
  const r = cozy(['--version'], { env: { TMPDIR: path.join(base, 'missing', 'tmp') } });
  expect(r).toEqual({ code: 0, stdout: `${VERSION_TEXT}\n`, stderr: '' });
  expect(fs.readdirSync(base)).toEqual([]);
});

/** The flag that turns the permission model on in this Node.js (20 has only the experimental one). */
const flags = process.allowedNodeEnvironmentFlags;
const PERMISSION = flags.has('--permission')
  ? '--permission'
  : flags.has('--experimental-permission')
    ? '--experimental-permission'
    : undefined;
const permissionModel = PERMISSION ? undefined : "Node.js's permission model (20.x and later)";

describe("Node.js's permission model", () => {
  const it = testUnless(permissionModel);
  it('render --output-dir with DIR granted: the same tree, new and rewritten, as without the model', () => {
    const base = tmpDir('permission-model');
    const free = path.join(base, 'free');
    const granted = path.join(base, 'granted');
    const node = (grant: string) => [PERMISSION!, '--allow-fs-read=*', `--allow-fs-write=${grant}`];
    const change = ['--set', 'publishing.host=other.example'];

    // A new DIR: Node.js grants what does not exist yet as DIR/*.
    expect(cozy(['render', ...EXAMPLE_INPUTS, '--output-dir', free]).code).toBe(0);
    const first = cozy(['render', ...EXAMPLE_INPUTS, '--output-dir', granted], { node: node(`${granted}/*`) });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`to ${granted}`);
    expect(tree(granted)).toEqual(tree(free));

    // DIR as it is now, granted as itself: the change rewrites it as it rewrites the other.
    expect(cozy(['render', ...EXAMPLE_INPUTS, ...change, '--output-dir', free]).code).toBe(0);
    const second = cozy(['render', ...EXAMPLE_INPUTS, ...change, '--output-dir', granted], { node: node(granted) });
    expect(second.code).toBe(0);
    expect(tree(granted)).toEqual(tree(free));
  });

  it('a grant the tree cannot use: an error that names the permission model, and nothing left', () => {
    const base = tmpDir('permission-model-refused');
    const dir = path.join(base, 'new');
    // A path that does not exist yet, granted as itself, covers nothing inside it.
    const r = cozy(['render', ...EXAMPLE_INPUTS, '--output-dir', dir], {
      node: [PERMISSION!, '--allow-fs-read=*', `--allow-fs-write=${dir}`],
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: --output-dir ${dir}: cannot write the tree: not allowed by Node.js's permission model (grant DIR/* with --allow-fs-write) (ERR_ACCESS_DENIED)`,
    );
    expect(fs.readdirSync(base)).toEqual([]);
  });
});

describe('a working directory removed under the run', () => {
  /** Run cozy-gw from a directory removed before node starts (a shell left in it). */
  const inRemoved = (args: readonly string[]) => {
    const dir = tmpDir('removed-cwd');
    return inShell(`cd '${dir}' && rmdir '${dir}'`, args);
  };

  test('--version needs none: the version, exit 0', () => {
    expect(inRemoved(['--version'])).toEqual({ code: 0, stdout: `${VERSION_TEXT}\n`, stderr: '' });
  });

  test('a command with paths to resolve: an error that says why, exit 1, nothing on standard output', () => {
    const r = inRemoved(['render', '--values', 'values.yaml']);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: the working directory cannot be read (ENOENT): run cozy-gw from a directory that exists\n',
    });
  });
});

const noShell = process.platform === 'win32' ? 'a POSIX shell (ulimit)' : undefined;
describe('a low limit of open files', () => {
  const it = testUnless(noShell);
  it('ulimit -n 40: a tree of 100 tenants written, and rewritten with a change, as with the default limit', () => {
    const base = tmpDir('open-files');
    const tenants = Array.from(
      { length: 100 },
      (_, i) =>
        `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: t${i}\n  namespace: tenant-root\n`,
    );
    fs.writeFileSync(path.join(base, 'values.yaml'), MIN_VALUES);
    fs.writeFileSync(path.join(base, 'tenants.yaml'), [ROOT_TENANT, ...tenants].join('---\n'));
    const inputs = ['--values', path.join(base, 'values.yaml'), '-f', path.join(base, 'tenants.yaml')];
    const limited = (args: readonly string[]) => inShell('ulimit -n 40', args).code;
    for (const change of [[], ['--set', 'publishing.host=other.example']]) {
      expect(cozy(['render', ...inputs, ...change, '--output-dir', path.join(base, 'free')]).code).toBe(0);
      expect({
        change,
        code: limited(['render', ...inputs, ...change, '--output-dir', path.join(base, 'low')]),
      }).toEqual({
        change,
        code: 0,
      });
      expect(tree(path.join(base, 'low'))).toEqual(tree(path.join(base, 'free')));
    }
    expect(fs.readdirSync(path.join(base, 'low')).length).toBeGreaterThan(100);
  });
});
