/**
 * The suite's scratch folder: every temporary directory a test makes (`fs.mkdtempSync(os.tmpdir())`,
 * test/helpers/kpt.ts tmpDir) and every one a child process makes lands in one folder per run,
 * which the run removes at its end (test/globalTeardown.ts). Without it a run left about a hundred
 * `cozy-gw-*` directories in /tmp: `npm test` cleans up after itself.
 *
 * Set in the process that starts the workers (test/globalSetup.ts), so that TMPDIR is in the real
 * environment every worker and child inherits; os.tmpdir() reads TMPDIR at each call.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The environment variable naming the run's scratch folder (set beside TMPDIR). */
export const SCRATCH_ENV = 'COZY_GW_TEST_SCRATCH';

/** Make the run's scratch folder under the system's temporary folder and point TMPDIR at it. */
export function openScratch(env: NodeJS.ProcessEnv = process.env): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-test-run-'));
  env[SCRATCH_ENV] = dir;
  env.TMPDIR = dir;
  return dir;
}

/** Remove the run's scratch folder and everything the tests left in it. */
export function closeScratch(env: NodeJS.ProcessEnv = process.env): void {
  const dir = env[SCRATCH_ENV];
  if (!dir || !path.basename(dir).startsWith('cozy-gw-test-run-')) return;
  // Tests make read-only folders (test/io/outputDir.test.ts): give write permission back first.
  const writable = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return;
    }
    if (!st.isDirectory()) return;
    try {
      fs.chmodSync(p, 0o700);
    } catch {
      // not ours: rmSync below reports nothing for it either
    }
    for (const e of fs.readdirSync(p)) writable(path.join(p, e));
  };
  writable(dir);
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
