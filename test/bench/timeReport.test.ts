/**
 * bench/run.js reads a compiled executable's peak RSS and CPU from GNU time (`--binary`): what
 * /usr/bin/time writes, read as bench/maxrss.js writes it for a node child.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tmpDir } from '../helpers/kpt';
import { skippedTitle } from '../helpers/skip';

const { timeReport } = require('../../bench/run.js') as {
  timeReport: (file: string) => { maxRSS: number; userUs: number; systemUs: number };
};

test('the last line of -f "%U %S %M": seconds to microseconds, KiB as they are', () => {
  const f = path.join(tmpDir('time-report'), 'rss');
  fs.writeFileSync(f, 'Command exited with non-zero status 3\n0.12 0.03 74284\n');
  expect(timeReport(f)).toEqual({ maxRSS: 74284, userUs: 120000, systemUs: 30000 });
  fs.writeFileSync(f, 'Command terminated by signal 9\n');
  expect(() => timeReport(f)).toThrow(/signal 9/);
});

const time = fs.existsSync('/usr/bin/time') ? undefined : '/usr/bin/time (GNU time)';
(time ? test.skip : test)(
  time ? skippedTitle('a real child under /usr/bin/time', time) : 'a real child under /usr/bin/time',
  () => {
    const f = path.join(tmpDir('time-report-real'), 'rss');
    const r = spawnSync('/usr/bin/time', [
      '-f',
      '%U %S %M',
      '-o',
      f,
      process.execPath,
      '-e',
      'Buffer.alloc(64 << 20, 1)',
    ]);
    expect(r.status).toBe(0);
    const u = timeReport(f);
    // node itself, and the 64 MiB it filled.
    expect(u.maxRSS).toBeGreaterThan(64 * 1024);
    expect(u.userUs + u.systemUs).toBeGreaterThan(0);
  },
);
