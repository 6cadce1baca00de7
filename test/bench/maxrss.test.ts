/**
 * bench/maxrss.js, the hook every measured command runs under: a command that starts itself again
 * under a larger heap (src/cli/heapLimit.ts) is measured whole, its run's CPU added in and the
 * larger peak RSS kept, not the parent that only waits.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const HOOK = path.resolve(__dirname, '../../bench/maxrss.js');

function measured(script: string): { maxRSS: number; userUs: number; systemUs: number } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-maxrss-')), 'rss.json');
  const r = spawnSync(process.execPath, ['-r', HOOK, '-e', script], {
    env: { ...process.env, BENCH_RSS_FILE: file },
    encoding: 'utf8',
  });
  expect(r.status).toBe(0);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { maxRSS: number; userUs: number; systemUs: number };
}

describe('bench/maxrss.js', () => {
  // About 300 ms of CPU and 200 MB of memory, in whichever process runs it.
  const busy =
    'const a = []; for (let i = 0; i < 50; i++) a.push(Buffer.alloc(4 << 20, 1)); const t = process.cpuUsage(); while (process.cpuUsage(t).user < 300_000);';

  it('a process alone: its own CPU and peak RSS', () => {
    const u = measured(busy);
    expect(u.userUs + u.systemUs).toBeGreaterThan(250_000);
    expect(u.maxRSS).toBeGreaterThan(200 * 1024);
  });

  it('a process that runs itself again (same node options) and waits: the run counted in', () => {
    const again = `require('child_process').spawnSync(process.execPath, [...process.execArgv, '-e', ${JSON.stringify(busy)}], { stdio: 'inherit' });`;
    const u = measured(again);
    expect(u.userUs + u.systemUs).toBeGreaterThan(250_000);
    expect(u.maxRSS).toBeGreaterThan(200 * 1024);
  });
});
