#!/usr/bin/env node
'use strict';
/**
 * Build dist/ when it is missing or older than the sources (src/, schemas/, charts/, templates/ and
 * the examples `cozy-gw init` embeds), once at a
 * time: a lock directory keeps parallel callers (jest's workers, `npm run example` beside a test
 * run) from building together. `npm run example` runs it first, so that a fresh clone's
 * `npm install && npm run example` needs no install script; the tests' global set-up runs it too.
 *
 *   node scripts/ensure-built.js
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'index.js');
/** The bundle bin/ loads (scripts/bundle.js), made after CLI. */
const BUNDLE = path.join(ROOT, 'dist', 'cozy-gw.js');

/** What the build is made of: embedded (charts/, schemas/, templates/, the starter's examples/) or compiled (src/). */
const SOURCES = ['src', 'schemas', 'charts', 'templates', 'examples/init', 'examples/platform', 'examples/ci'];
/** What scripts/embed-assets.js writes into src/ from the others (before every build and test). */
const EMBEDDED = new Set(['assets.generated.ts', 'starter.generated.ts', 'validators.generated.ts']);

/** Whether dist/ holds a build at least as new as every source. */
function isFresh() {
  return buildProblem() === undefined;
}

/**
 * What is wrong with dist/ in a clone, for bin/ to say before it runs: missing (a clone after `npm
 * install` alone), or older than a source (a pull, a checkout or an edit since the last build);
 * undefined when dist/ is up to date. bin/ asks only in a clone (src/ beside it): the installed
 * package ships dist/ and no sources.
 */
function buildProblem() {
  if (!fs.existsSync(CLI) || !fs.existsSync(BUNDLE))
    return 'dist/ is missing: run `npm run build` first (a clone runs what the build makes of src/)';
  const built = fs.statSync(CLI).mtimeMs;
  for (const d of SOURCES) {
    const newer = newerThan(path.join(ROOT, d), built);
    if (newer) return `dist/ is older than ${path.relative(ROOT, newer)}: run \`npm run build\` to build it again`;
  }
  return undefined;
}

/** The first file under dir modified after `time` (the generated assets aside), or undefined. */
function newerThan(dir, time) {
  if (!fs.existsSync(dir)) return undefined;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      const found = newerThan(p, time);
      if (found) return found;
    } else if (!EMBEDDED.has(e.name) && fs.statSync(p).mtimeMs > time) return p;
  }
  return undefined;
}

/** Build when needed; throws with the build's output when it fails. */
function ensureBuilt() {
  if (isFresh()) return;
  // Required here: bin/ reads buildProblem on every run in a clone, and starts no process.
  const { spawnSync } = require('node:child_process');
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

module.exports = { ensureBuilt, isFresh, buildProblem };

if (require.main === module) {
  try {
    ensureBuilt();
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
