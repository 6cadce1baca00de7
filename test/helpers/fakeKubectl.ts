/**
 * The injectable kubectl runner of the snapshot tests: resolves the executable as a shell would
 * (a path, or a name searched on the environment's PATH), reports a missing one as the real
 * runner does, and runs testdata/fake-kubectl in-process (no child process per listing).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Exec } from '../../src/io/exec';
import { TESTDATA } from './cli';

export const FAKE_KUBECTL_DIR = path.join(TESTDATA, 'fake-kubectl');
const FAKE = path.join(FAKE_KUBECTL_DIR, 'kubectl');

const { fakeKubectl } = require(path.join(FAKE_KUBECTL_DIR, 'fake.js')) as {
  fakeKubectl: (
    argv: string[],
    o: { env: Record<string, string | undefined>; cwd: string },
  ) => { code: number; stdout: string; stderr: string };
};

export const inProcessKubectl: Exec = async (bin, args, o) => {
  const candidates = bin.includes('/')
    ? [path.resolve(o.cwd, bin)]
    : (o.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((d) => path.join(d, bin));
  const found = candidates.find((f) => fs.existsSync(f));
  if (!found) return { exitCode: 1, stdout: '', stderr: '', missing: true };
  if (fs.realpathSync(found) !== fs.realpathSync(FAKE))
    throw new Error(`the in-process runner runs the fake kubectl only, not ${found}`);
  const r = fakeKubectl(args, { env: o.env, cwd: o.cwd });
  return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr, missing: false };
};
