/**
 * The command-line edge: argument parsing, exit codes, and where output goes. The commands
 * themselves live in src/commands/, one module each; the logic they call is pure.
 *
 * Exit codes: 0 success; 1 a render failure, an admission denial or invalid input; 2 usage;
 * 3 `diff` found differences (0 when it found none).
 */
import { Command, CommanderError } from 'commander';
import { FindingsError } from '../k8s/diagnostics';
import { VERSION } from './version';
import { readAllStdin } from '../io/stdin';
import { makeContext, type CliContext, type CliIO } from './context';

export { locate, makeContext, type CliContext, type CliIO } from './context';
import * as render from './commands/render';
import * as reconcile from './commands/reconcile';
import * as admit from './commands/admit';
import * as diff from './commands/diff';
import * as fn from './commands/fn';
import * as postRender from './commands/post-render';
import * as snapshot from './commands/snapshot';
import * as completion from './commands/completion';

export const COMMANDS = [render, reconcile, diff, admit, fn, postRender, snapshot, completion];

export function buildProgram(ctx: CliContext): Command {
  const program = new Command();
  program
    .name('cozy-gw')
    .description('Render and preview a Cozystack multi-tenant Gateway API platform offline.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  cozy-gw render --values values.yaml -f tenants/                      # the platform's manifests
  cozy-gw render --values values.yaml -f tenants/ -f cluster/ --with-controller --now 2026-01-01T00:00:00Z
  cozy-gw reconcile --values values.yaml -f cluster.yaml -o plan       # what the controller would do, and why
  cozy-gw diff --state state.yaml --values values.yaml -f tenants/ -o plan   # a change, hostname by hostname
  cozy-gw admit --values values.yaml -f routes/ --as alice             # what the admission policies refuse

Run 'cozy-gw <command> --help' for a command's options and examples.`,
    )
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  for (const c of COMMANDS) {
    const sub = c.register(program, ctx);
    sub.exitOverride().configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  }
  return program;
}

/** Run the CLI; resolves to the exit code. Never throws for user errors. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  const ctx = makeContext(io);
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
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
 * A write to standard output failed. A reader that stopped early (`cozy-gw render | head`)
 * closed the pipe: that is not an error and stays silent. Anything else (a full disk,
 * `> /dev/full`, a descriptor not open for writing) is one line on stderr and exit 1.
 */
function stdoutFailed(e: NodeJS.ErrnoException): never {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  try {
    process.stderr.write(outputErrorLine(e));
  } catch {
    // stderr is gone too: the exit code is all that is left
  }
  process.exit(1);
}

export function processIO(): CliIO {
  return {
    stdout: (s) => {
      try {
        process.stdout.write(s);
      } catch (e) {
        stdoutFailed(e as NodeJS.ErrnoException);
      }
    },
    stderr: (s) => void process.stderr.write(s),
    readStdin: () => readAllStdin(),
    env: process.env,
    isTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
  };
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  // A reader that stops early (`cozy-gw render | head`) closes the pipe: that is not an error.
  process.stdout.on('error', stdoutFailed);
  // A closed stderr must not crash a run whose output went through.
  process.stderr.on('error', () => undefined);
  const code = await run(argv, processIO());
  process.exitCode = code;
}
