/**
 * Running cozy-gw under the real clients (kpt, kubectl kustomize) and as a child process.
 *
 * Those clients run an executable, so the tests need the built CLI (bin/cozy-gw.js requires
 * dist/). `ensureBuilt()` checks that dist/cli/index.js exists and is newer than every file under
 * src/ and schemas/; if not, it runs `npm run build` once (a lock directory keeps parallel jest
 * workers from building at the same time). CI builds before testing, so there it only checks.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The repository root (not imported from ./cli, which loads the whole CLI). */
export const ROOT = path.resolve(__dirname, '..', '..');
export const TESTDATA = path.join(ROOT, 'testdata');

export const BIN = path.join(ROOT, 'bin', 'cozy-gw.js');

/** The absolute path of a tool on PATH, or undefined. */
export function which(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, tool);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** Make sure dist/ holds a build of the current sources (see the module comment): scripts/ensure-built.js. */
export function ensureBuilt(): void {
  (require('../../scripts/ensure-built.js') as { ensureBuilt: () => void }).ensureBuilt();
}

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `cozy-gw-${prefix}-`));
}

/** A wrapper executable that runs `node bin/cozy-gw.js <args...> "$@"` (kpt and kustomize run executables). */
export function writeWrapper(file: string, args: string[]): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  fs.writeFileSync(file, `#!/bin/sh\nexec '${process.execPath}' '${BIN}' ${quoted} "$@"\n`, { mode: 0o755 });
  return file;
}

export interface Proc {
  code: number;
  stdout: string;
  stderr: string;
}

export function runProcess(
  cmd: string,
  args: string[],
  opts: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): Proc {
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...(opts.env ?? {}) },
    timeout: 120_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** The CLI as a child process (the real stdin/stdout), e.g. for piping manifests. */
export function runBin(args: string[], input: string, env: Record<string, string> = {}): Proc {
  return runProcess(process.execPath, [BIN, ...args], { input, env });
}

/** Write a package: `{ 'tenants.yaml': '...' }`. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const p = path.join(dir, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
}

/** Every file of a directory, relative path → content, sorted. */
export function readFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/**
 * Run one command module in-process (its `register` on a fresh commander program) with
 * captured streams: like helpers/cli.ts's runCli, without loading every other command.
 */
export async function runCommand(
  mod: {
    register: (
      program: import('commander').Command,
      ctx: import('../../src/cli').CliContext,
    ) => import('commander').Command;
  },
  args: string[],
  opts: { stdin?: string; cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<Proc> {
  const { Command } = await import('commander');
  const { FindingsError } = require('../../src/k8s/diagnostics') as typeof import('../../src/k8s/diagnostics');
  const { makeContext } = require('../../src/cli/context') as typeof import('../../src/cli/context');
  let stdout = '';
  let stderr = '';
  // The CLI's own context (reporting and notes as the program does them), over captured streams.
  const ctx = makeContext({
    stdout: (s: string) => void (stdout += s),
    stderr: (s: string) => void (stderr += s),
    readStdin: () => opts.stdin ?? '',
    env: opts.env ?? {},
    isTTY: false,
    cwd: opts.cwd ?? process.cwd(),
  });
  const program = new Command()
    .exitOverride()
    .configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  mod.register(program, ctx).exitOverride();
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (e: unknown) {
    if (e instanceof FindingsError) {
      ctx.report(e.findings);
      return { code: 1, stdout, stderr };
    }
    if ((e as { code?: string }).code?.startsWith('commander.')) return { code: 2, stdout, stderr };
    throw e;
  }
  return { code: ctx.exitCode, stdout, stderr };
}

/** A kpt package's Kptfile whose one mutator runs `wrapper` (an exec function) with `configPath`. */
export function kptfile(wrapper: string, configPath: string): string {
  return `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
  - exec: ${wrapper}
    configPath: ${configPath}
`;
}
