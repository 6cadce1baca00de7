/**
 * Running another program (kubectl, for `snapshot`): the one place a child process starts. The
 * runner is part of the CLI's I/O (CliIO.exec), so tests inject one that answers in-process.
 */
import type * as Execa from 'execa';

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The executable was not found. */
  missing: boolean;
}

/** Run `bin` with `args` in `cwd`, with exactly the environment `env`, standard input closed. */
export type Exec = (
  bin: string,
  args: string[],
  o: { env: Record<string, string | undefined>; cwd: string },
) => Promise<ExecResult>;

/** The real runner (execa). */
export const execProcess: Exec = async (bin, args, o) => {
  // execa is an ES module: required here, when a program runs (jest's module loader cannot load it at import).
  const { execa } = require('execa') as typeof Execa;
  const r = await execa(bin, args, {
    reject: false,
    env: o.env,
    extendEnv: false,
    cwd: o.cwd,
    stdin: 'ignore',
    maxBuffer: 2 ** 30,
    stripFinalNewline: false,
  });
  const code = (r as { code?: string }).code;
  const missing = code === 'ENOENT' || (r.failed && r.exitCode === undefined && /ENOENT/.test(String(r.message)));
  return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), missing };
};
