'use strict';
/**
 * Preloaded into every measured child (`node -r bench/maxrss.js ...`): at exit, writes the
 * process's peak resident set size (process.resourceUsage().maxRSS, in KiB) to the file named by
 * BENCH_RSS_FILE, with the CPU time it used (user + system, all threads). Portable (no /usr/bin/time needed) and costs nothing while the command runs.
 *
 * A large run starts cozy-gw again under a larger heap (src/cli/heapLimit.ts), with the same node
 * options, so this hook runs in that process too, and it ends first: what it wrote is found here
 * (the harness removes the file before each run) and counted in, its CPU added and the larger peak
 * RSS kept. Otherwise the parent, which only waits, would be measured alone.
 */
const fs = require('node:fs');

const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      const u = process.resourceUsage();
      const own = { maxRSS: u.maxRSS, userUs: u.userCPUTime, systemUs: u.systemCPUTime };
      let child;
      try {
        child = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {
        child = undefined; // no run under a larger heap
      }
      const total = child
        ? {
            maxRSS: Math.max(own.maxRSS, child.maxRSS),
            userUs: own.userUs + child.userUs,
            systemUs: own.systemUs + child.systemUs,
          }
        : own;
      fs.writeFileSync(file, JSON.stringify(total));
    } catch {
      /* the measurement is lost, not the command */
    }
  });
}
