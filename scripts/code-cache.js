#!/usr/bin/env node
'use strict';
/**
 * The last step of `npm run build`: V8's code cache for the built CLI (src/cli/codeCache.ts),
 * written to dist/code-cache/ for the Node.js that runs the build.
 *
 * It generates a small platform (bench/generate.js, size TS: 722 objects) in a temporary folder
 * and runs the commands a CI job runs over it (reconcile from YAML and from JSON, render, diff,
 * admit, fn), each in its own process with this file preloaded as the recorder. Each run writes
 * the bytecode of every module it compiled once it ends. Each command gets its own file: a
 * module's entry is taken from that command's run that compiled the most of it. The temporary
 * folder is removed. A failure leaves no cache and says why; the build goes on.
 *
 *   node scripts/code-cache.js            write dist/code-cache/<this Node.js>/<command>.bin
 *   node scripts/code-cache.js --check    list the files and how many modules each holds
 *
 * Preloaded (`node -r scripts/code-cache.js`) with COZY_GW_CODE_CACHE_RECORD=FILE, it is the
 * recorder of one run instead.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const codeCache = () => require(path.join(ROOT, 'dist', 'cli', 'codeCache.js'));

if (require.main !== module) {
  record(process.env.COZY_GW_CODE_CACHE_RECORD);
} else if (process.argv.includes('--check')) {
  check();
} else {
  build();
}

/** One training run: every module of the package compiled through the recorder, written at exit. */
function record(out) {
  if (!out) return;
  const { installCodeCache, encodeCache } = codeCache();
  const scripts = [];
  const requires = new Map();
  const resolved = (file, request, target) => {
    if (!requires.has(file)) requires.set(file, {});
    requires.get(file)[request] = target;
  };
  installCodeCache({
    env: {},
    recorder: { record: (file, sha1, script) => scripts.push({ file, sha1, script }), resolved },
  });
  process.on('exit', () => {
    const entries = scripts.map(({ file, sha1, script }) => ({
      file,
      sha1,
      data: script.createCachedData(),
      requires: requires.get(file),
    }));
    fs.writeFileSync(out, encodeCache(entries));
  });
}

function build() {
  const { cacheDir } = codeCache();
  const dir = cacheDir(ROOT);
  fs.rmSync(path.join(ROOT, 'dist', 'code-cache'), { recursive: true, force: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-code-cache-'));
  try {
    const written = [];
    for (const [command, runs] of trainingRuns(work)) {
      written.push(`${command} ${writeCommand(dir, command, runs, work)}`);
    }
    process.stdout.write(`code cache: ${path.relative(ROOT, dir)}/ (modules: ${written.join(', ')})\n`);
  } catch (e) {
    // The cache only saves start-up time: a build without it still works (test/cli/codeCache.test.ts
    // fails on a build that lacks it).
    fs.rmSync(path.join(ROOT, 'dist', 'code-cache'), { recursive: true, force: true });
    process.stderr.write(`code cache: not written: ${e instanceof Error ? e.message : String(e)}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Run one command's training runs and write its file: a module's entry from the run that compiled
 * the most of it, with the requests it made in any of them.
 */
function writeCommand(dir, command, runs, work) {
  const { decodeCache, encodeCache } = codeCache();
  const best = new Map();
  for (const [i, run] of runs.entries()) {
    const out = path.join(work, `${command}-${i}.bin`);
    const r = spawnSync(
      process.execPath,
      ['-r', __filename, path.join(ROOT, 'bin', 'cozy-gw.js'), command, ...run.args],
      {
        cwd: work,
        input: run.stdin ? fs.readFileSync(path.join(work, run.stdin)) : '',
        env: { ...process.env, COZY_GW_CODE_CACHE_RECORD: out, COZY_GW_CODE_CACHE: 'off' },
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    if (!(run.ok ?? [0, 3]).includes(r.status))
      throw new Error(`${command} exited ${r.status}: ${String(r.stderr).slice(0, 2000)}`);
    for (const [file, e] of decodeCache(fs.readFileSync(out)) ?? []) {
      const requires = { ...best.get(file)?.requires, ...Object.fromEntries(e.requires) };
      if (!best.has(file) || best.get(file).data.length < e.data.length) best.set(file, { file, ...e });
      best.get(file).requires = requires;
    }
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${command}.bin`), encodeCache([...best.values()]));
  return best.size;
}

/** The commands a CI job runs, each with its runs, over a generated platform in `dir`. */
function trainingRuns(dir) {
  const { writePlatform } = require(path.join(ROOT, 'bench', 'generate.js'));
  writePlatform(dir, 'TS');
  const now = ['--now', '2026-01-01T00:00:00Z'];
  const values = ['--values', 'values.yaml'];
  return new Map([
    [
      'reconcile',
      [
        { args: ['--all', '-o', 'yaml', '-f', 'snapshot.yaml', ...values, ...now] },
        { args: ['-o', 'plan', '-f', 'snapshot.json', ...values, ...now] },
      ],
    ],
    ['render', [{ args: ['-f', 'tenants.yaml', ...values] }]],
    ['diff', [{ args: ['-o', 'plan', '--state', 'snapshot.yaml', '-f', 'tenants.yaml', ...values, ...now] }]],
    // admit exits 1 on the denials it prints: the generated snapshot has some.
    ['admit', [{ args: ['-f', 'snapshot.yaml', ...values], ok: [0, 1] }]],
    ['fn', [{ args: [], stdin: 'resourcelist.yaml' }]],
  ]);
}

function check() {
  const { cacheDir, decodeCache } = codeCache();
  const dir = cacheDir(ROOT);
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  for (const f of files) {
    const entries = decodeCache(fs.readFileSync(path.join(dir, f)));
    process.stdout.write(`${f}: ${entries ? `${entries.size} modules` : 'not a cache file'}\n`);
  }
  if (files.length === 0) process.stdout.write(`no code cache for this Node.js (${path.relative(ROOT, dir)})\n`);
  process.exitCode = files.length > 0 ? 0 : 1;
}
