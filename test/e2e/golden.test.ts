/**
 * Golden-file tests for whole commands, in the manner of helm's command tests and kyaml's
 * fn/framework: each folder under testdata/golden/<command>/<case>/ holds
 *   args        the command line (one line, paths relative to the case folder)
 *   stdin       optional standard input
 *   expected    the exact standard output (absent: none)
 *   stderr      the exact standard error: every finding with its file:line, message and hint
 *               (absent: none)
 *   exit        optional: the expected exit code (default 0)
 * Every case runs twice and must give byte-identical output (determinism), never a stack trace.
 *
 * `UPDATE_GOLDEN=1 npx jest test/e2e/golden` is the only way to change the goldens: it rewrites
 * only the files whose content differs from the command's, prints the diff of each, and still
 * fails a case on anything else (exit code, determinism, a stack trace).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, TESTDATA } from '../helpers/cli';
import { golden as compare } from '../helpers/golden';

const UPDATE = Boolean(process.env.UPDATE_GOLDEN);
const golden = (file: string, actual: string) =>
  compare(file, actual, { update: UPDATE, print: (t) => process.stdout.write(t), name: path.relative(root, file) });

const root = path.join(TESTDATA, 'golden');

function cases(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    if (fs.existsSync(path.join(d, 'args'))) out.push(d);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
  };
  walk(root);
  return out.sort();
}

function splitArgs(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

const all = cases();

describe('golden command cases', () => {
  if (all.length === 0) {
    it('has cases', () => {
      expect(all.length).toBeGreaterThan(0);
    });
  }
  for (const dir of all) {
    const name = path.relative(root, dir);
    it(name, async () => {
      const args = splitArgs(fs.readFileSync(path.join(dir, 'args'), 'utf8').trim());
      const stdinFile = path.join(dir, 'stdin');
      const stdin = fs.existsSync(stdinFile) ? fs.readFileSync(stdinFile, 'utf8') : undefined;
      const exitFile = path.join(dir, 'exit');
      const wantExit = fs.existsSync(exitFile) ? Number(fs.readFileSync(exitFile, 'utf8').trim()) : 0;
      const first = await runCli(args, { cwd: dir, stdin });
      const second = await runCli(args, { cwd: dir, stdin });
      expect(second.stdout).toBe(first.stdout);
      expect(second.stderr).toBe(first.stderr);
      if (first.code !== wantExit) throw new Error(`exit ${first.code}, want ${wantExit}\nstderr:\n${first.stderr}`);
      expect(first.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // never a stack trace
      golden(path.join(dir, 'expected'), first.stdout);
      golden(path.join(dir, 'stderr'), first.stderr);
    });
  }
});
