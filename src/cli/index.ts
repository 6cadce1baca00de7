/**
 * The command-line edge: argument parsing, exit codes, and where output goes. The commands
 * themselves live in src/commands/, one module each; the logic they call is pure.
 *
 * Exit codes: 0 success; 1 a render failure, an admission denial or invalid input; 2 usage;
 * 3 `diff` found differences (0 when it found none).
 */
import { Command, CommanderError } from 'commander';
import { FindingsError, formatFinding, type Finding } from '../k8s/diagnostics';
import { VERSION } from './version';
import { readAllStdin } from '../io/stdin';
import type { SourceMap } from '../io/sourceMap';
import * as render from './commands/render';
import * as reconcile from './commands/reconcile';
import * as admit from './commands/admit';
import * as diff from './commands/diff';
import * as fn from './commands/fn';
import * as postRender from './commands/post-render';
import * as snapshot from './commands/snapshot';
import * as completion from './commands/completion';

/** Everything a command may touch outside the core; injected so tests run in-process. */
export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => string;
  env: Record<string, string | undefined>;
  /** Whether stderr is a terminal (colour is used only then, and never with NO_COLOR). */
  isTTY: boolean;
  cwd: string;
}

export interface CliContext {
  io: CliIO;
  exitCode: number;
  /** Print findings on stderr, errors and warnings alike. */
  report: (findings: Finding[]) => void;
  color: boolean;
  /** Where the inputs were read (the readers' source map), so that a finding gets its file and line. */
  sources?: SourceMap;
}

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

/**
 * A finding placed at file and line, from the readers' source map: the core names objects,
 * values files and fields, never lines. A finding about an input object gets the object's file
 * and the line of its field; one about a `--values` file the line of the field in it; a finding
 * about a platform value also says where that value is set.
 */
export function locate(f: Finding, sources: SourceMap | undefined): Finding {
  if (!sources) return f;
  let out = f;
  if (f.line === undefined) {
    if (f.object && !f.file) {
      const o = sources.objectOf(f.object);
      const origin = o && sources.originOf(o);
      if (o && origin) out = { ...f, file: origin.file, line: sources.lineOf(o, f.field) };
    } else if (f.file && !f.object) {
      const values = sources.valuesOf(f.file);
      if (values) out = { ...f, line: sources.lineOf(values, f.field) };
    }
  }
  const at = f.valueAt;
  if (at && at.line === undefined) {
    if (at.object) {
      const o = sources.objectOf(at.object);
      const origin = o && sources.originOf(o);
      if (o && origin) out = { ...out, valueAt: { ...at, file: origin.file, line: sources.lineOf(o, at.field) } };
    } else if (at.file) {
      const values = sources.valuesOf(at.file);
      if (values) out = { ...out, valueAt: { ...at, line: sources.lineOf(values, at.field) } };
    }
  }
  return out;
}

function paint(ctx: CliContext, code: string, s: string): string {
  return ctx.color ? `\u001b[${code}m${s}\u001b[0m` : s;
}

export function makeContext(io: CliIO): CliContext {
  const ctx: CliContext = {
    io,
    exitCode: 0,
    color: io.isTTY && !io.env.NO_COLOR && io.env.TERM !== 'dumb',
    report: (findings) => {
      for (const f of findings.map((x) => locate(x, ctx.sources))) {
        const line = formatFinding(f);
        const colored = f.severity === 'error' ? line.replace(/^error/, paint(ctx, '31', 'error')) : line.replace(/^warning/, paint(ctx, '33', 'warning'));
        io.stderr(colored + '\n');
      }
    },
  };
  return ctx;
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

export function processIO(): CliIO {
  return {
    stdout: (s) => void process.stdout.write(s),
    stderr: (s) => void process.stderr.write(s),
    readStdin: () => readAllStdin(),
    env: process.env,
    isTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
  };
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  // A reader that stops early (`cozy-gw render | head`) closes the pipe: that is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  const code = await run(argv, processIO());
  process.exitCode = code;
}
