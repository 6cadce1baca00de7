/**
 * The heap a large run gets (docs/decisions.md §C13). V8 caps Node.js's heap at
 * about 4 GB whatever the machine has: a `diff` over a committed tree of 20,000 tenants then spends
 * half its time collecting garbage near the cap (89 s against 46 s with room), and past about
 * 25,000 tenants it dies. So when the inputs a command names are large and the machine (or its
 * cgroup) has the memory, cozy-gw runs itself again, once, with a heap of three quarters of that
 * memory, passing its arguments, standard streams and exit status through and the signals it is
 * sent on to the run.
 *
 * `COZY_GW_HEAP`: `off` never; a number of MiB: that heap, whatever the inputs. A heap limit given
 * to Node.js itself (`NODE_OPTIONS=--max-old-space-size=MB`, or on node's command line) is kept
 * as given, and a run under a debugger (`--inspect`) stays where it is. Under Bun (the release
 * binaries) there is no such limit to raise.
 *
 * {@link heapFlag} decides from what it is handed (pure); {@link inputSizes} and {@link relaunch}
 * are the edges.
 */
import type { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RECORD, RECORD_V4_HEADER } from '../io/treeFiles';
import { INTERRUPTING, signalStatus } from '../io/signals';

/** How large the named inputs are: bytes and files, counted up to the bounds asked for. */
export interface InputSizes {
  bytes: number;
  files: number;
}

/**
 * From which size of its `-f` and `--state` inputs a command runs with the larger heap: where it
 * may need a good part of Node.js's default cap. render writing a tree holds about 70 KB per Tenant
 * (some 22 objects each, the whole tenant, and the tree's record), 2 MiB of Tenants being some
 * 17,000; diff holds about 220 KB per tenant of a committed tree (22 files each), 150,000 files
 * being some 6,800 tenants.
 */
export const THRESHOLDS: Readonly<Record<string, InputSizes>> = {
  render: { bytes: 2 << 20, files: 20_000 },
  diff: { bytes: 128 << 20, files: 150_000 },
  reconcile: { bytes: 128 << 20, files: 150_000 },
  admit: { bytes: 128 << 20, files: 150_000 },
};

/** The options naming inputs, each taking a value. */
const INPUT_OPTIONS = new Set(['-f', '--filename', '--state']);

export interface HeapContext {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** node's own options (process.execArgv). */
  execArgv: readonly string[];
  /** The heap limit now, in bytes (v8's heap_size_limit). */
  heapLimit: number;
  /** The memory the process may use, in bytes: the machine's, or its cgroup's when lower. */
  memory: number;
  /** Under Bun: no V8 heap limit. */
  bun: boolean;
  /**
   * The sizes of the given paths, counting up to `bound` (reached: the count may stop there);
   * `indexed: false`: a tree whose record indexes its files counts nothing (a diff reads a part of it).
   */
  sizes: (paths: string[], bound: InputSizes, opts?: { indexed?: boolean }) => InputSizes;
}

const HEAP_OPTION = /^--max[-_]old[-_]space[-_]size(=|$)/;
const INSPECT_OPTION = /^--inspect(-brk|-wait)?(=|$)/;

/**
 * The command, the paths its input options name (`-f X`, `-fX`, `--state=X`; `-` is a stream, not
 * counted), and of them those `-f` names (what diff renders).
 */
export function inputPaths(argv: readonly string[]): { command?: string; paths: string[]; filenames: string[] } {
  let command: string | undefined;
  const paths: string[] = [];
  const filenames: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    let value: string | undefined;
    const eq = a.indexOf('=');
    if (INPUT_OPTIONS.has(a)) value = argv[++i];
    else if (a.startsWith('--') && eq > 0 && INPUT_OPTIONS.has(a.slice(0, eq))) value = a.slice(eq + 1);
    else if (a.startsWith('-f') && a.length > 2 && !a.startsWith('--')) value = a.slice(2);
    else if (command === undefined && !a.startsWith('-')) command = a;
    if (value !== undefined && value !== '-' && value !== '') {
      paths.push(value);
      if (!a.startsWith('--state')) filenames.push(value);
    }
  }
  return { command, paths, filenames };
}

/** The node option to run again with, or undefined to run here. */
export function heapFlag(ctx: HeapContext): string | undefined {
  if (ctx.bun) return undefined;
  const nodeOptions = (ctx.env.NODE_OPTIONS ?? '').split(/\s+/);
  const given = [...ctx.execArgv, ...nodeOptions];
  if (given.some((a) => HEAP_OPTION.test(a))) return undefined;
  // Under a debugger the run stays in the process it is attached to (a second would want its port).
  if (given.some((a) => INSPECT_OPTION.test(a))) return undefined;
  const asked = (ctx.env.COZY_GW_HEAP ?? '').trim();
  if (asked === 'off') return undefined;
  if (/^[1-9][0-9]*$/.test(asked)) return `--max-old-space-size=${asked}`;
  const { command, paths, filenames } = inputPaths(ctx.argv);
  const bound = command === undefined ? undefined : THRESHOLDS[command];
  if (!bound || paths.length === 0) return undefined;
  // A diff against a tree whose record indexes it reads the part the change touches (changed-only,
  // docs/performance.md): the tree counts only where it is read whole (--full; src/cli/commands/diff.ts
  // runs again with --full where the whole tree is to be diffed, and the decision is made then).
  const indexed = command !== 'diff' || ctx.argv.includes('--full');
  const over = (ps: string[], b: InputSizes) => {
    const s = ctx.sizes(ps, b, { indexed });
    return s.bytes >= b.bytes || s.files >= b.files;
  };
  // diff renders its -f inputs as render does: Tenants there weigh as they do in render (70,000
  // Tenants, 8 MB, hold some 3 GB), however small the state.
  const large =
    over(paths, bound) || (command === 'diff' && filenames.length > 0 && over(filenames, THRESHOLDS.render));
  if (!large) return undefined;
  // Read last (the memory and the heap limit load modules of their own): only for a large input.
  const mib = Math.floor((ctx.memory * 0.75) / (1 << 20));
  // Nothing to gain where three quarters of the memory is not well past the cap already.
  return mib * (1 << 20) < ctx.heapLimit * 1.25 ? undefined : `--max-old-space-size=${mib}`;
}

/**
 * The bytes and the files of the given paths: a file's size, and under a directory each file and
 * its size (a committed tree's files estimated from the size of its record instead), walked without
 * recursion and stopped once either bound is reached, so that at most a bound's worth of files is
 * looked at. A directory of a few large streams (a snapshot split by namespace) counts by its bytes
 * as a tree of many small files counts by its files. A path that cannot be read counts nothing:
 * reading it names the problem.
 */
export function inputSizes(
  paths: string[],
  bound: InputSizes,
  at?: string,
  opts: { indexed?: boolean } = {},
): InputSizes {
  const out = { bytes: 0, files: 0 };
  let cwd: string;
  try {
    cwd = at ?? process.cwd();
  } catch {
    // No working directory (removed under the run): the command says so when it resolves a path.
    return out;
  }
  const dirs: string[] = [];
  for (const p of paths) {
    try {
      const st = fs.statSync(path.resolve(cwd, p));
      if (st.isFile()) out.bytes += st.size;
      else if (st.isDirectory()) dirs.push(path.resolve(cwd, p));
    } catch {
      // unreadable: counts nothing
    }
  }
  while (dirs.length && out.bytes < bound.bytes && out.files < bound.files) {
    const d = dirs.pop()!;
    // A committed tree lists its files in its record, a line each: estimated from it, not walked.
    const recorded = recordedFiles(path.join(d, RECORD), opts.indexed ?? true);
    if (recorded !== undefined) {
      out.files += recorded;
      continue;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (out.bytes >= bound.bytes || out.files >= bound.files) break;
      if (e.isDirectory()) {
        dirs.push(path.join(d, e.name));
        continue;
      }
      out.files++;
      try {
        out.bytes += fs.statSync(path.join(d, e.name)).size;
      } catch {
        // unreadable: its bytes count nothing
      }
    }
  }
  return out;
}

/** A record line's bytes, about (a path, a digest and the object's identity, in JSON). */
const RECORD_LINE_BYTES = 210;

/**
 * The files a committed tree's record lists, estimated from its size; none for a record that indexes
 * them (format 4) unless `indexed`; undefined without a record.
 */
function recordedFiles(file: string, indexed: boolean): number | undefined {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return undefined;
  }
  if (!indexed && firstLine(file) === RECORD_V4_HEADER) return 0;
  return Math.floor(size / RECORD_LINE_BYTES);
}

/** A file's first line (of its first 512 bytes); '' when it cannot be read. */
function firstLine(file: string): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(512);
      const n = fs.readSync(fd, buf, 0, 512, 0);
      const text = buf.toString('utf8', 0, n);
      const nl = text.indexOf('\n');
      return nl < 0 ? text : text.slice(0, nl);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** The memory this process may use: the machine's, or its cgroup's limit when that is lower. */
function availableMemory(): number {
  const total = (require('node:os') as typeof import('node:os')).totalmem();
  const constrained = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  return constrained && constrained > 0 && constrained < total ? constrained : total;
}

/**
 * The young generation a run given the larger heap gets, in MiB a semi-space (V8's default is 16):
 * a large state survives its young collections nearly whole, and each collection costs more the
 * larger the old generation, so fewer of them cost less (diff at 60,000 tenants: 1,438 scavenges
 * taking 23.8 s became 369 taking 14.9 s, 112 s of CPU 101 s). A few hundred MB more at most, for
 * runs that hold gigabytes.
 */
export const LARGE_RUN_SEMI_SPACE_MIB = 64;
const SEMI_SPACE_OPTION = /^--(max|min)[-_]semi[-_]space[-_]size(=|$)/;

/**
 * The node options to run again with (heapFlag's, and the young generation of a large run unless
 * one is given to node), or undefined to run here.
 */
export function runFlags(ctx: HeapContext): string[] | undefined {
  const heap = heapFlag(ctx);
  if (heap === undefined) return undefined;
  const given = [...ctx.execArgv, ...(ctx.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((a) => SEMI_SPACE_OPTION.test(a))
    ? [heap]
    : [heap, `--max-semi-space-size=${LARGE_RUN_SEMI_SPACE_MIB}`];
}

/** The heap decision for this process: the node options to run again with, or undefined. */
export function processHeapFlag(argv: readonly string[]): string[] | undefined {
  return runFlags({
    argv,
    env: process.env,
    execArgv: process.execArgv,
    // Read when asked (heapFlag asks only about a large input): node:v8 and node:os load then.
    get heapLimit() {
      return (require('node:v8') as typeof import('node:v8')).getHeapStatistics().heap_size_limit;
    },
    get memory() {
      return availableMemory();
    },
    bun: typeof (process.versions as Record<string, string | undefined>).bun === 'string',
    sizes: (paths, bound, o) => inputSizes(paths, bound, undefined, o),
  });
}

/**
 * The variable a run started again carries: the pid of the run that started it. Read once and
 * removed (watchParent), so that nothing this run starts in turn takes it for its own.
 */
export const RELAUNCHED = 'COZY_GW_RELAUNCHED';

/**
 * Run this script again under the node options `flags`, with `argv` (the script and its arguments
 * as this process was given them, `process.argv.slice(1)`: an entry point that adds a command of
 * its own, bin/cozy-gw-fn, has it added again by the run) and the same standard streams; resolves
 * to its exit code. A signal sent here is sent on to it; when it dies of a signal, so does this
 * process (its status is the run's). The run ends with this process however this one ends (a
 * SIGKILL included): it holds an IPC channel to it and stops as if sent SIGTERM when the channel
 * closes (watchParent). Resolves undefined when it could not be started (Node.js's permission
 * model without --allow-child-process, a process limit, ...): run here then, unless a signal came
 * meanwhile, which then ends this process. `start` is node's spawn (a test's seam).
 */
export function relaunch(
  flags: readonly string[],
  argv: readonly string[],
  // node:child_process loaded here, for a large run only: its load is a good part of a small run's start.
  start: typeof spawn = (require('node:child_process') as typeof import('node:child_process')).spawn,
): Promise<number | undefined> {
  return new Promise((resolve) => {
    // Listened for before the run starts: a signal that came between its start and the listeners
    // would end this process by its default action and leave the run behind, still running. A
    // listener runs from the event loop, so never before the run is set.
    const started: { run?: ReturnType<typeof spawn> } = {};
    let received: NodeJS.Signals | undefined;
    const forward = (sig: NodeJS.Signals) => {
      received = sig;
      started.run?.kill(sig);
    };
    for (const s of INTERRUPTING) process.on(s, forward);
    const done = () => {
      for (const s of INTERRUPTING) process.off(s, forward);
    };
    const couldNotStart = () => {
      done();
      if (received) process.kill(process.pid, received);
      resolve(received && signalStatus(received));
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = start(process.execPath, [...process.execArgv, ...flags, ...argv], {
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, [RELAUNCHED]: String(process.pid) },
      });
    } catch {
      // Thrown, not emitted: the permission model refuses the spawn itself (ERR_ACCESS_DENIED).
      couldNotStart();
      return;
    }
    started.run = child;
    child.on('error', couldNotStart);
    child.on('exit', (code, signal) => {
      done();
      if (signal) {
        process.kill(process.pid, signal);
        // Signals this process ignores still end it with the run's status.
        resolve(signalStatus(signal));
      } else resolve(code ?? 1);
    });
  });
}

/**
 * In a run started again (RELAUNCHED set): end with the run that started it. Its IPC channel
 * closes when that process ends, whatever ended it; this run then stops as on SIGTERM (a tree
 * being written is rolled back, src/io/treeCommit.ts). A parent already gone (this run was
 * re-parented before it got here) stops it at once. The channel keeps nothing waiting. Returns
 * whether this is such a run.
 */
export function watchParent(proc: NodeJS.Process = process): boolean {
  const parent = proc.env[RELAUNCHED];
  if (parent === undefined) return false;
  delete proc.env[RELAUNCHED];
  // Without the channel relaunch opens, the variable did not come from relaunch.
  if (!proc.channel) return false;
  const stop = () => void proc.kill(proc.pid, 'SIGTERM');
  if (proc.ppid !== Number(parent)) {
    stop();
    return true;
  }
  proc.channel.unref();
  proc.on('disconnect', stop);
  return true;
}
