/** Runs the CLI in-process with captured standard streams (no child process: fast tests). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run, type CliIO } from '../../src/cli';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  stdin?: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
  isTTY?: boolean;
  /** The program runner (kubectl); default the real one. */
  exec?: CliIO['exec'];
}

export async function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    readStdin: () => opts.stdin ?? '',
    // The suite's version (test/setupVersion.ts) unless the test's own environment sets or clears it.
    env: { COZY_GW_COZYSTACK_VERSION: process.env.COZY_GW_COZYSTACK_VERSION, ...opts.env },
    isTTY: opts.isTTY ?? false,
    cwd: opts.cwd ?? process.cwd(),
    exec: opts.exec,
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

export const ROOT = path.resolve(__dirname, '..', '..');
export const TESTDATA = path.join(ROOT, 'testdata');

/** The README's example platform as a command's inputs (relative to ROOT: run with cwd ROOT). */
export const EXAMPLE_INPUTS: readonly string[] = [
  '--values',
  'examples/platform/values.yaml',
  '-f',
  'examples/platform/tenants',
];

/** The README's example diff: the example platform's state, and alice given a Gateway of her own (cwd ROOT). */
export const EXAMPLE_DIFF: readonly string[] = [
  'diff',
  '--state',
  'examples/diff/state.yaml',
  '--values',
  'examples/platform/values.yaml',
  '-f',
  'examples/diff/alice-gateway.yaml',
];

/** The smallest platform: tenant-root with its own Gateway, and the values that publish it. */
export const ROOT_TENANT =
  'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: root\n  namespace: tenant-root\nspec:\n  gateway: true\n';
export const MIN_VALUES = 'publishing:\n  host: example.org\ngateway:\n  enabled: true\n';

/** A stack frame on stderr: never printed for bad input. */
export const STACK_FRAME = /\n\s+at .+:\d+:\d+\)?/;

/**
 * The arguments that make a diff state as a user does: `reconcile --all` over rendered output and the
 * objects beside it, with values.yaml and a fixed clock.
 */
export function stateArgs(files: string[], now = '2026-01-01T00:00:00Z'): string[] {
  return ['reconcile', '--all', '--values', 'values.yaml', ...files.flatMap((f) => ['-f', f]), '--now', now];
}

export interface Scratch {
  /** The directory of the running test. */
  readonly dir: string;
  /** Writes a file below the directory (its folders made); returns the name. */
  write(name: string, text: string): string;
  /** Runs the CLI in the directory, as a user meets it; fails the test on a stack trace. */
  cli(args: string[], stdin?: string): Promise<CliResult>;
}

/**
 * A fresh scratch directory for every test of the file (registered with beforeEach/afterEach),
 * holding `files` at the start: for suites that run the CLI over small hand-written inputs.
 */
export function useScratch(prefix: string, files: Record<string, string> = {}): Scratch {
  let dir = '';
  const scratch: Scratch = {
    get dir() {
      return dir;
    },
    write(name, text) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
      return name;
    },
    async cli(args, stdin) {
      const r = await runCli(args, { cwd: dir, stdin });
      expect(r.stderr).not.toMatch(STACK_FRAME);
      return r;
    },
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    for (const [name, text] of Object.entries(files)) scratch.write(name, text);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  return scratch;
}

/**
 * One scratch directory for a whole test file, made by `make` (its path returned) and removed after
 * the file, and the CLI run in it (`base`'s options under each call's): `cli` checks that standard
 * error shows no stack trace, `must` also that the run exited 0, and returns its standard output.
 */
export function scratchCli(prefix: string, base: RunOptions = {}) {
  const scratch = { dir: '' };
  afterAll(() => scratch.dir && fs.rmSync(scratch.dir, { recursive: true, force: true }));
  const cli = async (args: string[], opts: RunOptions = {}): Promise<CliResult> => {
    const r = await runCli(args, { ...base, cwd: scratch.dir, ...opts });
    expect(r.stderr).not.toMatch(STACK_FRAME);
    return r;
  };
  const must = async (args: string[], opts: RunOptions = {}): Promise<string> => {
    const r = await cli(args, opts);
    if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    return r.stdout;
  };
  const make = () => (scratch.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { scratch, make, cli, must };
}
