#!/usr/bin/env node
'use strict';
/**
 * Build dist/ when it is missing or older than the sources (src/, schemas/, charts/), once at a
 * time: a lock directory keeps parallel callers (jest's workers, `npm run example` beside a test
 * run) from building together. `npm run example` runs it first, so that a fresh clone's
 * `npm install && npm run example` needs no install script; the tests' global set-up runs it too.
 *
 *   node scripts/ensure-built.js
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'index.js');
/** The bundle bin/ loads (scripts/bundle.js), made after CLI. */
const BUNDLE = path.join(ROOT, 'dist', 'cozy-gw.js');

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (e.name !== 'assets.generated.ts') newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Whether dist/ holds a build at least as new as every source. */
function isFresh() {
  if (!fs.existsSync(CLI) || !fs.existsSync(BUNDLE)) return false;
  const built = fs.statSync(CLI).mtimeMs;
  return built >= Math.max(...['src', 'schemas', 'charts'].map((d) => newestMtime(path.join(ROOT, d))));
}

/** Build when needed; throws with the build's output when it fails. */
function ensureBuilt() {
  if (isFresh()) return;
  const lock = path.join(os.tmpdir(), `cozy-gw-build-lock-${Buffer.from(ROOT).toString('hex').slice(-24)}`);
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`ensure-built: ${lock} held for too long (remove it if no build is running)`);
      spawnSync('sleep', ['0.5']);
    }
  }
  try {
    if (isFresh()) return;
    process.stderr.write('cozy-gw: building dist/ (npm run build): it is missing or older than the sources\n');
    const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
    // tsc writes its output even when another module has a type error; what matters is dist/.
    if (!fs.existsSync(CLI) || !fs.existsSync(BUNDLE))
      throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
    const now = new Date();
    fs.utimesSync(CLI, now, now);
  } finally {
    fs.rmdirSync(lock);
  }
}

module.exports = { ensureBuilt, isFresh };

if (require.main === module) {
  try {
    ensureBuilt();
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
