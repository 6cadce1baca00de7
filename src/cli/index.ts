/**
 * The command-line edge: argument parsing, exit codes, and where output goes. The commands
 * themselves live in src/cli/commands/, one module each; the logic they call is pure.
 *
 * Start-up loads only what the command run needs: the commands are registered from a light
 * table (name, summary, how the top-level help lists it), and the module of a command, with
 * everything it imports, is loaded only when that command runs or shows its help. `cozy-gw
 * --help` loads commander and this directory; `cozy-gw render` the render chain, not the
 * controller's, the CEL engine or kubectl's runner.
 *
 * Exit codes: 0 success; 1 a render failure, an admission denial or invalid input; 2 usage;
 * 3 `diff` found differences (0 when it found none).
 */
import { Command, CommanderError, Help } from 'commander';
import { FindingsError } from '../k8s/diagnostics';
import { versionText } from './version';
import { readAllStdin } from '../io/stdin';
import { writeAllSync } from '../io/stdout';
import { makeContext, type CliContext, type CliIO } from './context';
import { withExamples } from './commands/help';
import { processHeapFlag, relaunch, watchParent } from './heapLimit';

export { locate, makeContext, type CliContext, type CliIO } from './context';

/** A command module: it defines the command's options, help and action. */
export interface CommandModule {
  register: (program: Command, ctx: CliContext) => Command;
}

export interface CommandEntry {
  name: string;
  /** The line the top-level help shows beside it. */
  summary: string;
  /** How the top-level help names it (`render [options]`); a test checks it against the loaded command. */
  term: string;
  load: () => CommandModule;
}

/** Every command, in the order the help lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'init',
    term: 'init [options] [dir]',
    summary: 'Write a starting platform repository: values, Tenants, cluster state, a kpt package, CI workflows',
    load: () => require('./commands/init'),
  },
  {
    name: 'render',
    term: 'render [options]',
    summary:
      'Render every tenant whole (Namespace, values Secret, RBAC, network policies, quotas, HelmReleases, TenantGateway) and the admission policies',
    load: () => require('./commands/render'),
  },
  {
    name: 'reconcile',
    term: 'reconcile [options]',
    summary: 'Run the controllers once over a cluster state: Gateways, certificates, route and TenantGateway status',
    load: () => require('./commands/reconcile'),
  },
  {
    name: 'diff',
    term: 'diff [options]',
    summary: 'Preview a change against a cluster state: object by object and hostname by hostname',
    load: () => require('./commands/diff'),
  },
  {
    name: 'admit',
    term: 'admit [options]',
    summary: 'Evaluate the platform admission policies (real CEL) against objects, as a CREATE by a given caller',
    load: () => require('./commands/admit'),
  },
  {
    name: 'fn',
    term: 'fn [options] [config] [args...]',
    summary: 'KRM function: render (and reconcile) inside kpt and kustomize pipelines',
    load: () => require('./commands/fn'),
  },
  {
    name: 'post-render',
    term: 'post-render [options]',
    summary: "Helm post-renderer: add the controller's objects for every TenantGateway in the release",
    load: () => require('./commands/post-render'),
  },
  {
    name: 'snapshot',
    term: 'snapshot [options]',
    summary: 'Write the cluster state cozy-gw reads (through kubectl) to a file',
    load: () => require('./commands/snapshot'),
  },
  {
    name: 'completion',
    term: 'completion <shell>',
    summary: 'Print a shell completion script (bash, zsh or fish) for cozy-gw',
    load: () => require('./commands/completion'),
  },
];

/**
 * The commands an argument list runs (or shows the help of): the first word, or the word after
 * `help`; every command for `completion` (the script lists them all) and when no arguments are
 * known (a program built for inspection).
 */
export function commandsNeeded(argv: string[] | undefined): Set<string> {
  if (!argv) return new Set(COMMANDS.map((c) => c.name));
  const words = argv.filter((a) => !a.startsWith('-'));
  const first = words[0] === 'help' ? words[1] : words[0];
  if (first === 'completion') return new Set(COMMANDS.map((c) => c.name));
  return new Set(first ? [first] : []);
}

/** The program; with `argv`, only the commands it needs are loaded, the others are listed from the table. */
export function buildProgram(ctx: CliContext, argv?: string[]): Command {
  const program = new Command();
  program
    .name('cozy-gw')
    .description('Render and preview a Cozystack multi-tenant Gateway API platform offline.')
    .version(versionText(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  withExamples(program, [
    "cozy-gw render --values values.yaml -f tenants/                      # the platform's manifests",
    'cozy-gw render --values values.yaml -f tenants/ -f cluster/ --with-controller --now 2026-01-01T00:00:00Z',
    'cozy-gw reconcile --values values.yaml -f cluster.yaml -o plan       # what the controller would do, and why',
    'cozy-gw diff --state state.yaml --values values.yaml -f tenants/ -o plan   # a change, hostname by hostname',
    'cozy-gw admit --values values.yaml -f routes/ --as alice             # what the admission policies refuse',
  ]).addHelpText('after', "\nRun 'cozy-gw <command> --help' for a command's options and examples.");
  const needed = commandsNeeded(argv);
  const terms = new Map<Command, string>();
  for (const c of COMMANDS) {
    let sub: Command;
    if (needed.has(c.name)) sub = c.load().register(program, ctx);
    else terms.set((sub = program.command(c.name)), c.term);
    sub
      .summary(c.summary)
      .exitOverride()
      .configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  }
  if (terms.size) {
    program.configureHelp({ subcommandTerm: (cmd) => terms.get(cmd) ?? new Help().subcommandTerm(cmd) });
  }
  return program;
}

/** Run the CLI; resolves to the exit code. Never throws for user errors. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  const ctx = makeContext(io);
  const program = buildProgram(ctx, argv);
  // Bare `cozy-gw` asks what the tool does: the help on standard output, exit 0, as kubectl and
  // helm answer it (docs/commands/README.md).
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    ctx.progress.clear();
    return ctx.exitCode;
  } catch (e) {
    ctx.progress.clear();
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
        return 0;
      return 2;
    }
    if (e instanceof FindingsError) {
      ctx.report(e.findings);
      return 1;
    }
    const err = e as Error;
    io.stderr(`error: ${err.message}\n`);
    if (io.env.COZY_GW_DEBUG) io.stderr(`${err.stack}\n`);
    return 1;
  }
}

/** The one line a failed write to standard output earns: what went wrong, without a stack. */
export function outputErrorLine(e: NodeJS.ErrnoException): string {
  const why: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EBADF: 'standard output is not open for writing',
    EIO: 'input/output error',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EFBIG: 'file too large',
    EDQUOT: 'disk quota exceeded',
  };
  const reason = (e.code && why[e.code]) ?? String(e.message ?? e).split('\n')[0];
  return `error: cannot write to standard output: ${reason}${e.code ? ` (${e.code})` : ''}\n`;
}

/**
 * Whether standard output's reader went away (EPIPE: `cozy-gw diff | head -1`, `| grep -q`).
 * What is left to print is dropped; the command runs to its end and its verdict stays its exit
 * status (diff's 3 for differences, admit's 1 for denials), so a gate under `set -o pipefail`
 * still sees it.
 */
let stdoutClosed = false;

/**
 * A write to standard output failed. A reader that stopped early closed the pipe: that is not an
 * error and stays silent (stdoutClosed). Anything else (a full disk, `> /dev/full`, a descriptor
 * not open for writing) is one line on stderr and exit 1.
 */
function stdoutFailed(e: NodeJS.ErrnoException): void {
  if (stdoutClosed) return;
  if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') {
    stdoutClosed = true;
    return;
  }
  try {
    process.stderr.write(outputErrorLine(e));
  } catch {
    // stderr is gone too: the exit code is all that is left
  }
  process.exit(1);
}

export function processIO(o: { relaunched?: boolean } = {}): CliIO {
  return {
    runAgainWith: async (extra) => {
      const flags =
        o.relaunched || !process.argv[1] ? undefined : processHeapFlag([...process.argv.slice(2), ...extra]);
      return flags && relaunch(flags, [...process.argv.slice(1), ...extra]);
    },
    stdout: (s) => {
      if (stdoutClosed) return;
      try {
        writeAllSync(1, s);
      } catch (e) {
        stdoutFailed(e as NodeJS.ErrnoException);
      }
    },
    stderr: (s) => void process.stderr.write(s),
    readStdin: () => readAllStdin(),
    env: process.env,
    isTTY: Boolean(process.stderr.isTTY),
    get cwd() {
      return workingDirectory();
    },
  };
}

/**
 * The working directory, read when a command first resolves a path: where it has been removed (a
 * shell left in a folder deleted under it, a CI step after a clean-up) process.cwd() throws, and
 * read at start it took every run down with a stack trace, `--version` included. Now only a command
 * with a path to resolve stops, with an error that says why.
 */
function workingDirectory(): string {
  try {
    return process.cwd();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'unknown';
    throw new Error(`the working directory cannot be read (${code}): run cozy-gw from a directory that exists`);
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  // A large run gets the heap the machine has (heapLimit.ts): run again once, with it; a run
  // started so ends with the process that started it.
  const relaunched = watchParent();
  const flags = relaunched ? undefined : processHeapFlag(argv);
  if (flags && process.argv[1]) {
    const code = await relaunch(flags, process.argv.slice(1));
    if (code !== undefined) {
      process.exitCode = code;
      return;
    }
  }
  // A reader that stops early (`cozy-gw render | head`) closes the pipe: that is not an error,
  // and the command's verdict stays its exit status.
  process.stdout.on('error', stdoutFailed);
  // A closed stderr must not crash a run whose output went through.
  process.stderr.on('error', () => undefined);
  const code = await run(argv, processIO({ relaunched }));
  process.exitCode = code;
  exitWhenWritten(code);
}

/**
 * The command has returned and standard output was written synchronously (stdout.ts): end the
 * process now rather than let the event loop wind down, which waits on V8's own background
 * tasks and tears the heap down piece by piece (10-20 ms of a small run, more of a large one;
 * docs/performance.md). Only when nothing written through process.stdout or process.stderr is
 * still queued: a stream that buffers (a TTY or pipe on some platforms) is left to drain, and the
 * process ends on its own.
 */
export function exitWhenWritten(
  code: number,
  proc: Pick<NodeJS.Process, 'stdout' | 'stderr' | 'exit'> = process,
): void {
  if (proc.stdout.writableLength === 0 && proc.stderr.writableLength === 0) proc.exit(code);
}
