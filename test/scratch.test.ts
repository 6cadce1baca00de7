/** The suite's scratch folder (test/scratch.ts): one per run, every temporary directory in it, removed at the end. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeScratch, SCRATCH_ENV } from './scratch';
import { tmpDir } from './helpers/kpt';

test("a test's temporary directories are in the run's scratch folder", () => {
  const scratch = process.env[SCRATCH_ENV];
  expect(scratch).toMatch(/cozy-gw-test-run-/);
  expect(os.tmpdir()).toBe(scratch);
  const made = tmpDir('scratch-probe');
  expect(path.dirname(made)).toBe(scratch);
  fs.rmSync(made, { recursive: true });
});

test('closing removes the folder and everything in it, read-only folders included', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-test-run-'));
  fs.mkdirSync(path.join(dir, 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'a', 'b', 'f'), 'x');
  fs.chmodSync(path.join(dir, 'a'), 0o500);
  closeScratch({ [SCRATCH_ENV]: dir });
  expect(fs.existsSync(dir)).toBe(false);
});

test('closing removes nothing but a scratch folder', () => {
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'not-scratch-'));
  closeScratch({ [SCRATCH_ENV]: other });
  expect(fs.existsSync(other)).toBe(true);
  fs.rmSync(other, { recursive: true });
  closeScratch({});
});
