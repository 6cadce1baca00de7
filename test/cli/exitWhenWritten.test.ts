/**
 * main() ends the process once the command has returned (src/cli/index.ts, exitWhenWritten),
 * but never while process.stdout or process.stderr still holds queued bytes.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { exitWhenWritten } from '../../src/cli';

const fake = (stdout: number, stderr: number) => {
  const exits: number[] = [];
  return {
    exits,
    proc: {
      stdout: { writableLength: stdout },
      stderr: { writableLength: stderr },
      exit: (code?: number) => void exits.push(code ?? 0),
    } as unknown as Pick<NodeJS.Process, 'stdout' | 'stderr' | 'exit'>,
  };
};

test.each([
  [0, 0, [3]],
  [12, 0, []],
  [0, 1, []],
])('stdout queue %d, stderr queue %d: exits with %j', (out, err, want) => {
  const f = fake(out, err);
  exitWhenWritten(3, f.proc);
  expect(f.exits).toEqual(want);
});

test('the built command ends with its exit status and all its output, piped', () => {
  const bin = path.join(__dirname, '..', '..', 'bin', 'cozy-gw.js');
  let status = 0;
  let out = '';
  try {
    out = execFileSync(process.execPath, [bin, 'completion', 'bash'], { encoding: 'utf8' });
  } catch (e) {
    status = (e as { status: number }).status;
  }
  expect(status).toBe(0);
  expect(out.trimEnd().split('\n').length).toBeGreaterThan(10);
});
