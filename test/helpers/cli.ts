/** Runs the CLI in-process with captured standard streams (no child process: fast tests). */
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
    env: opts.env ?? {},
    isTTY: opts.isTTY ?? false,
    cwd: opts.cwd ?? process.cwd(),
    exec: opts.exec,
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

export const ROOT = path.resolve(__dirname, '..', '..');
export const TESTDATA = path.join(ROOT, 'testdata');
