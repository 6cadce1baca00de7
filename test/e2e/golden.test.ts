/**
 * Golden-file tests for whole commands, in the manner of helm's command tests and kyaml's
 * fn/framework: each folder under testdata/golden/<command>/<case>/ holds
 *   args        the command line (one line, paths relative to the case folder)
 *   stdin       optional standard input
 *   expected    the exact standard output (when the command succeeds)
 *   errors.txt  optional: one regex per line that standard error must match
 *   exit        optional: the expected exit code (default 0, or 1 when errors.txt exists)
 * Every case runs twice and must give byte-identical output (determinism).
 * UPDATE_GOLDEN=1 npx jest test/golden rewrites `expected` from the current output.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, TESTDATA } from '../helpers/cli';

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
      const errorsFile = path.join(dir, 'errors.txt');
      const exitFile = path.join(dir, 'exit');
      const wantExit = fs.existsSync(exitFile) ? Number(fs.readFileSync(exitFile, 'utf8').trim()) : fs.existsSync(errorsFile) ? 1 : 0;
      const first = await runCli(args, { cwd: dir, stdin });
      const second = await runCli(args, { cwd: dir, stdin });
      expect(second.stdout).toBe(first.stdout);
      expect(second.stderr).toBe(first.stderr);
      if (first.code !== wantExit) throw new Error(`exit ${first.code}, want ${wantExit}\nstderr:\n${first.stderr}`);
      if (fs.existsSync(errorsFile)) {
        for (const rx of fs.readFileSync(errorsFile, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'))) {
          expect(first.stderr).toMatch(new RegExp(rx, 'i'));
        }
      }
      expect(first.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // never a stack trace
      const expectedFile = path.join(dir, 'expected');
      if (process.env.UPDATE_GOLDEN) fs.writeFileSync(expectedFile, first.stdout);
      if (fs.existsSync(expectedFile)) expect(first.stdout).toBe(fs.readFileSync(expectedFile, 'utf8'));
      else if (wantExit !== 0) expect(first.stdout).toBe('');
    });
  }
});
