'use strict';
/**
 * Preloaded into every measured child (`node -r bench/maxrss.js ...`): at exit, writes the
 * process's peak resident set size (process.resourceUsage().maxRSS, in KiB) to the file named by
 * BENCH_RSS_FILE, with the CPU time it used (user + system, all threads). Portable (no /usr/bin/time needed) and costs nothing while the command runs.
 */
const fs = require('node:fs');

const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      const u = process.resourceUsage();
      fs.writeFileSync(file, JSON.stringify({ maxRSS: u.maxRSS, userUs: u.userCPUTime, systemUs: u.systemCPUTime }));
    } catch {
      /* the measurement is lost, not the command */
    }
  });
}
