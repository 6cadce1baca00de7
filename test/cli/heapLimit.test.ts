/**
 * The heap a large run gets (src/cli/heapLimit.ts, docs/performance.md "Memory at scale"): the decision over
 * what it is handed, the input sizes it counts, and the run again under the larger heap as a real
 * process: the same output and exit status, the signals it is sent passed on, nothing left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  heapFlag,
  inputPaths,
  inputSizes,
  LARGE_RUN_SEMI_SPACE_MIB,
  runFlags,
  THRESHOLDS,
  type HeapContext,
} from '../../src/cli/heapLimit';
import { BIN, ensureBuilt, runProcess, tmpDir } from '../helpers/kpt';
import { RECORD } from '../../src/io/treeRecord';
import { MIN_VALUES, ROOT, ROOT_TENANT } from '../helpers/cli';
import { skippedTitle } from '../helpers/skip';

const GiB = 1 << 30;
const big = (n: number) => ({ bytes: n, files: 0 });
/** Sizes where the state holds `s` and diff's -f inputs (tenants.yaml alone) nothing to speak of. */
const inState = (s: { bytes: number; files: number }) => (paths: string[]) => (paths.includes('state/') ? s : big(0));

function ctx(over: Partial<HeapContext> = {}): HeapContext {
  return {
    argv: ['diff', '--state', 'state/', '-f', 'tenants.yaml'],
    env: {},
    execArgv: [],
    heapLimit: 4 * GiB,
    memory: 24 * GiB,
    bun: false,
    sizes: () => big(THRESHOLDS.diff.bytes),
    ...over,
  };
}

describe('heapFlag', () => {
  test('large inputs on a machine with room: three quarters of its memory', () => {
    expect(heapFlag(ctx())).toBe(`--max-old-space-size=${18 * 1024}`);
  });

  test('a tree of many files counts by its files', () => {
    expect(heapFlag(ctx({ sizes: () => ({ bytes: 0, files: THRESHOLDS.diff.files }) }))).toBe(
      '--max-old-space-size=18432',
    );
    expect(heapFlag(ctx({ sizes: inState({ bytes: 0, files: THRESHOLDS.diff.files - 1 }) }))).toBeUndefined();
  });

  test('inputs below the command’s bound: run here', () => {
    expect(heapFlag(ctx({ sizes: inState(big(THRESHOLDS.diff.bytes - 1)) }))).toBeUndefined();
    // render's bound is lower: its output is many times its Tenants.
    expect(
      heapFlag(ctx({ argv: ['render', '-f', 't.yaml'], sizes: () => big(THRESHOLDS.render.bytes) })),
    ).toBeDefined();
  });

  test('inputs below the bound: the memory and the heap limit are not read (they load node:os and node:v8)', () => {
    const unread = (over: Partial<HeapContext>): HeapContext =>
      Object.defineProperties(ctx(over), {
        memory: {
          get: () => {
            throw new Error('memory read');
          },
        },
        heapLimit: {
          get: () => {
            throw new Error('heap limit read');
          },
        },
      });
    expect(heapFlag(unread({ sizes: inState(big(THRESHOLDS.diff.bytes - 1)) }))).toBeUndefined();
    expect(heapFlag(unread({ argv: ['diff'] }))).toBeUndefined();
    expect(heapFlag(unread({ argv: ['completion', 'bash'] }))).toBeUndefined();
    expect(() => heapFlag(unread({}))).toThrow(/read/);
  });

  test('a machine whose memory is not well past the cap: run here', () => {
    expect(heapFlag(ctx({ memory: 6 * GiB }))).toBeUndefined();
  });

  test('a heap limit given to node itself is kept', () => {
    expect(heapFlag(ctx({ execArgv: ['--max-old-space-size=2048'] }))).toBeUndefined();
    expect(heapFlag(ctx({ execArgv: ['--max_old_space_size=2048'] }))).toBeUndefined();
    expect(heapFlag(ctx({ env: { NODE_OPTIONS: '--enable-source-maps --max-old-space-size=8000' } }))).toBeUndefined();
  });

  test('under a debugger the run stays in the process it is attached to', () => {
    expect(heapFlag(ctx({ execArgv: ['--inspect'] }))).toBeUndefined();
    expect(heapFlag(ctx({ execArgv: ['--inspect-brk=9230'] }))).toBeUndefined();
    expect(heapFlag(ctx({ env: { NODE_OPTIONS: '--inspect=0.0.0.0:9229' } }))).toBeUndefined();
    // Other node options are no reason to stay.
    expect(heapFlag(ctx({ execArgv: ['--enable-source-maps'] }))).toBe('--max-old-space-size=18432');
  });

  test('COZY_GW_HEAP: off never, a number of MiB whatever the inputs', () => {
    expect(heapFlag(ctx({ env: { COZY_GW_HEAP: 'off' } }))).toBeUndefined();
    const sizes = jest.fn(() => big(0));
    expect(heapFlag(ctx({ env: { COZY_GW_HEAP: '3000' }, sizes }))).toBe('--max-old-space-size=3000');
    expect(sizes).not.toHaveBeenCalled();
    // Anything else is the automatic choice.
    expect(heapFlag(ctx({ env: { COZY_GW_HEAP: '0' } }))).toBe('--max-old-space-size=18432');
  });

  test('under Bun, and for commands that read no large inputs: run here', () => {
    expect(heapFlag(ctx({ bun: true }))).toBeUndefined();
    expect(heapFlag(ctx({ argv: ['fn'] }))).toBeUndefined();
    expect(heapFlag(ctx({ argv: ['version', '-f', 'x'] }))).toBeUndefined();
    expect(heapFlag(ctx({ argv: ['diff', '--state', '-'] }))).toBeUndefined();
  });
});

describe('diff renders its -f inputs', () => {
  test("Tenants that render's bound finds large run diff with the larger heap, however small the state", () => {
    const sizes = (paths: string[]) => (paths.includes('tenants.yaml') ? big(THRESHOLDS.render.bytes) : big(1000));
    expect(heapFlag(ctx({ argv: ['diff', '--state', 's.yaml', '-f', 'tenants.yaml'], sizes }))).toMatch(
      /^--max-old-space-size=\d+$/,
    );
    // The same bytes in the state alone are far below diff's own bound.
    const stateOnly = (paths: string[]) => (paths.includes('s.yaml') ? big(THRESHOLDS.render.bytes) : big(0));
    expect(
      heapFlag(ctx({ argv: ['diff', '--state', 's.yaml', '-f', 'tenants.yaml'], sizes: stateOnly })),
    ).toBeUndefined();
  });
});

describe('inputPaths', () => {
  test('every spelling of the input options; a stream is not a path', () => {
    expect(
      inputPaths([
        'diff',
        '--state',
        'a',
        '--state=b',
        '-f',
        'c',
        '-fd',
        '--filename',
        'e',
        '--filename=f',
        '-f',
        '-',
        '--values',
        'v.yaml',
      ]),
    ).toEqual({ command: 'diff', paths: ['a', 'b', 'c', 'd', 'e', 'f'], filenames: ['c', 'd', 'e', 'f'] });
    expect(inputPaths(['--no-color', 'render', '-f', 'x', '--', '-f', 'y'])).toEqual({
      command: 'render',
      paths: ['x'],
      filenames: ['x'],
    });
  });
});

describe('inputSizes', () => {
  test("a file's bytes; a directory's files and their bytes, below and stopped at the bound", () => {
    const dir = tmpDir('heap-sizes');
    fs.writeFileSync(path.join(dir, 'one.yaml'), 'x'.repeat(1000));
    fs.mkdirSync(path.join(dir, 'tree', 'ns'), { recursive: true });
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(dir, 'tree', 'ns', `o${i}.yaml`), 'a: b\n');
    expect(inputSizes(['one.yaml', 'tree', 'missing'], { bytes: 1 << 30, files: 1 << 30 }, dir)).toEqual({
      bytes: 1000 + 30 * 5,
      files: 30,
    });
    // Stopped once a bound is reached: of a listing of 30, one file is looked at.
    fs.mkdirSync(path.join(dir, 'tree', 'other'));
    fs.writeFileSync(path.join(dir, 'tree', 'other', 'p.yaml'), 'a: b\n');
    expect(inputSizes(['tree/ns', 'tree/other'], { bytes: 1 << 30, files: 1 }, dir)).toEqual({ bytes: 5, files: 1 });
  });

  test('a directory of a few large streams counts by its bytes (a snapshot split by namespace)', () => {
    const dir = tmpDir('heap-streams');
    fs.mkdirSync(path.join(dir, 'state'));
    for (const n of ['a', 'b', 'c']) fs.writeFileSync(path.join(dir, 'state', `${n}.yaml`), 'x'.repeat(1000));
    const s = inputSizes(['state'], { bytes: 1500, files: 150_000 }, dir);
    expect(s).toEqual({ bytes: 2000, files: 2 });
    expect(s.bytes >= 1500).toBe(true);
  });
});

describe('inputSizes of a committed tree', () => {
  test('estimated from the size of its record (about 210 bytes a file), not walked', () => {
    const dir = tmpDir('heap-tree');
    fs.mkdirSync(path.join(dir, 'tree'));
    // The record alone: no file it names is there, so a walk would count one (the record).
    fs.writeFileSync(path.join(dir, 'tree', RECORD), `${'x'.repeat(209)}\n`.repeat(7));
    expect(inputSizes(['tree'], { bytes: 1 << 30, files: 1 << 30 }, dir)).toEqual({ bytes: 0, files: 7 });
  });
});

describe('runFlags', () => {
  it('a run given the larger heap gets a larger young generation too', () => {
    expect(runFlags(ctx())).toEqual([
      `--max-old-space-size=${18 * 1024}`,
      `--max-semi-space-size=${LARGE_RUN_SEMI_SPACE_MIB}`,
    ]);
    expect(runFlags(ctx({ env: { COZY_GW_HEAP: '3000' } }))).toEqual([
      '--max-old-space-size=3000',
      `--max-semi-space-size=${LARGE_RUN_SEMI_SPACE_MIB}`,
    ]);
  });
  it("keeps a young generation given to node, in either spelling, on node's command line or in NODE_OPTIONS", () => {
    expect(runFlags(ctx({ execArgv: ['--max-semi-space-size=8'] }))).toEqual([`--max-old-space-size=${18 * 1024}`]);
    expect(runFlags(ctx({ execArgv: ['--min_semi_space_size=32'] }))).toEqual([`--max-old-space-size=${18 * 1024}`]);
    expect(runFlags(ctx({ env: { NODE_OPTIONS: '--max-semi-space-size=16' } }))).toEqual([
      `--max-old-space-size=${18 * 1024}`,
    ]);
  });
  it('nothing where the run stays here', () => {
    expect(runFlags(ctx({ env: { COZY_GW_HEAP: 'off' } }))).toBeUndefined();
    expect(runFlags(ctx({ sizes: () => ({ bytes: 0, files: 0 }) }))).toBeUndefined();
  });
});

describe('the run again under a larger heap (real processes)', () => {
  beforeAll(() => ensureBuilt());
  const dir = tmpDir('heap-relaunch');
  fs.writeFileSync(path.join(dir, 'values.yaml'), MIN_VALUES);
  fs.writeFileSync(path.join(dir, 'tenants.yaml'), ROOT_TENANT);
  fs.writeFileSync(path.join(dir, 'state.yaml'), ROOT_TENANT);
  const args = ['diff', '--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-o', 'plan'];

  test('the same output and exit status (3: differences) as a run in place', () => {
    const here = runProcess(process.execPath, [BIN, ...args], { cwd: dir, env: { COZY_GW_HEAP: 'off' } });
    const again = runProcess(process.execPath, [BIN, ...args], { cwd: dir, env: { COZY_GW_HEAP: '700' } });
    expect(here.code).toBe(3);
    expect(again).toEqual(here);
  });

  onLinux('a signal sent to it reaches the run; both end, nothing is left running', async () => {
    // The run waits on standard input (--state -): the pipe is held open until the signal.
    const parent = spawn(process.execPath, [BIN, 'diff', '--state', '-'], {
      cwd: dir,
      env: { ...process.env, COZY_GW_HEAP: '700' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const child = await childOf(parent.pid!);
    const cmdline = (await execedCommandLine(child, parent.pid!)).split('\0');
    expect(cmdline).toContain('--max-old-space-size=700');
    expect(cmdline).toContain(`--max-semi-space-size=${LARGE_RUN_SEMI_SPACE_MIB}`);
    const ended = exitOf(parent);
    parent.kill('SIGTERM');
    expect(await ended).toEqual({ code: null, signal: 'SIGTERM' });
    expect(fs.existsSync(`/proc/${child}`)).toBe(false);
    parent.stdin!.destroy();
  });

  // A signal in the moment the run has started but this process has not yet listened for signals
  // (a test's seam makes the moment: the signal is sent from inside the start): before relaunch
  // listened first, it ended this process by its default action and left the run behind.
  onLinux('a signal that comes while the run is being started still reaches it', async () => {
    const heapLimit = path.join(ROOT, 'dist/cli/heapLimit.js');
    const run = path.join(dir, 'run-forever.js');
    fs.writeFileSync(run, 'setInterval(() => {}, 1000);\n');
    const driver = path.join(dir, 'driver.js');
    fs.writeFileSync(
      driver,
      `const cp = require('node:child_process');
const fs = require('node:fs');
require(${JSON.stringify(heapLimit)}).relaunch([], [${JSON.stringify(run)}], (...a) => {
  const c = cp.spawn(...a);
  fs.writeSync(1, c.pid + '\\n');
  process.kill(process.pid, 'SIGTERM');
  return c;
});
`,
    );
    const parent = spawn(process.execPath, [driver], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const ended = await exitOf(parent);
    const child = Number(out.trim());
    const left = child > 0 && fs.existsSync(`/proc/${child}`);
    if (left) process.kill(child, 'SIGKILL');
    expect({ ended, child: child > 0, left }).toEqual({
      ended: { code: null, signal: 'SIGTERM' },
      child: true,
      left: false,
    });
  });
});

describe('a run started again ends with the process that started it', () => {
  beforeAll(() => ensureBuilt());
  const dir = tmpDir('heap-parent');
  fs.writeFileSync(path.join(dir, 'values.yaml'), MIN_VALUES);
  const tenant = (name: string) =>
    `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: ${name}\n  namespace: tenant-root\nspec: {}\n`;

  onLinux('a SIGKILL of the parent leaves no process and the tree as it was', async () => {
    const tree = path.join(dir, 'tree');
    const first = runProcess(
      process.execPath,
      [BIN, 'render', '--values', 'values.yaml', '-f', '-', '--output-dir', 'tree'],
      { cwd: dir, input: tenant('alpha'), env: { COZY_GW_HEAP: 'off' } },
    );
    expect(first.code).toBe(0);
    const before = readTree(tree);
    // The run reads its Tenants from standard input, held open until the parent is gone.
    const parent = spawn(
      process.execPath,
      [BIN, 'render', '--values', 'values.yaml', '-f', '-', '--output-dir', 'tree'],
      {
        cwd: dir,
        env: { ...process.env, COZY_GW_HEAP: '700' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const child = await childOf(parent.pid!);
    expect((await execedCommandLine(child, parent.pid!)).split('\0')).toContain('--max-old-space-size=700');
    const ended = exitOf(parent);
    parent.kill('SIGKILL');
    expect(await ended).toEqual({ code: null, signal: 'SIGKILL' });
    // The change it would have written, had it gone on.
    parent.stdin!.on('error', () => undefined);
    parent.stdin!.end(tenant('alpha') + '---\n' + tenant('beta'));
    const gone = await processGone(child, 20_000);
    if (!gone) process.kill(child, 'SIGKILL');
    expect({ gone, tree: readTree(tree) }).toEqual({ gone: true, tree: before });
  });

  test('cozy-gw-fn started again answers an empty ResourceList as it does in place', () => {
    const fnBin = path.join(ROOT, 'bin', 'cozy-gw-fn');
    const input = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n';
    const here = runProcess(process.execPath, [fnBin], { cwd: dir, input, env: { COZY_GW_HEAP: 'off' } });
    const again = runProcess(process.execPath, [fnBin], { cwd: dir, input, env: { COZY_GW_HEAP: '512' } });
    expect(here.code).toBe(0);
    expect(here.stdout).toContain('kind: ResourceList');
    expect(again).toEqual(here);
  });

  test("under Node.js's permission model, where the run cannot be started, it runs in place", () => {
    const flag = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
    const args = [flag, `--allow-fs-read=*`, BIN, 'render', '--values', 'values.yaml', '-f', '-'];
    const input = tenant('alpha');
    const here = runProcess(process.execPath, args, { cwd: dir, input, env: { COZY_GW_HEAP: 'off' } });
    const again = runProcess(process.execPath, args, { cwd: dir, input, env: { COZY_GW_HEAP: '512' } });
    expect(here.code).toBe(0);
    expect(here.stdout).toContain('kind: Namespace');
    // Node.js itself warns that the permission model is experimental on some lines, with its pid
    // and when its event loop gets to it: left out of the comparison.
    const ours = (p: typeof here) => ({
      ...p,
      stderr: p.stderr.replace(/^\(node:\d+\) ExperimentalWarning: .*\n(\(Use `node --trace-warnings.*\n)?/m, ''),
    });
    expect(ours(again)).toEqual(ours(here));
  });
});

/** Every file under dir, relative path → content (the tree's work area and lock included). */
function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out[r] = fs.readFileSync(path.join(d, e.name), 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

/** Whether process `pid` has ended (its /proc entry gone, or a zombie) within `ms`. */
async function processGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return true;
    }
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/**
 * The command line of `child` once it has replaced the copy of its parent it starts as (between
 * fork and exec /proc shows the parent's command line), waited for up to ten seconds.
 */
async function execedCommandLine(child: number, parent: number): Promise<string> {
  const parentLine = fs.readFileSync(`/proc/${parent}/cmdline`, 'utf8');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = fs.readFileSync(`/proc/${child}/cmdline`, 'utf8');
    if (line !== parentLine || Date.now() > deadline) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The process `pid` started (Linux /proc), waited for up to ten seconds. */
async function childOf(pid: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    for (const p of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      } catch {
        continue;
      }
      // The parent's pid is the second field after the command's closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) return Number(p);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no child of ${pid} within ten seconds`);
}

/** A test that reads /proc (Linux): elsewhere it skips, and says why. */
function onLinux(title: string, fn: () => Promise<void>): void {
  if (process.platform === 'linux') test(title, fn);
  else test.skip(skippedTitle(title, 'needs Linux: /proc names the processes'), fn);
}

/** How a process ended: its exit code, or the signal that ended it. */
function exitOf(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
}
