#!/usr/bin/env node
'use strict';
/**
 * An independent A/B harness for one-shot calls (bench/README.md): an installed cozy-gw's
 * `reconcile --all -o yaml` and the floor (bench/floor.js, js-yaml reading and writing the same
 * file) run as a user runs them: `node FILE ARGS`, no preload, wall time from spawn to exit seen
 * by this parent, alternating (the order rotated each round) so that a busy moment hits every
 * variant alike; medians, ranges, and each variant's ratio to the floor's median with the range
 * of the per-round ratios. It shares no code with bench/run.js.
 *
 *   node bench/oneshot.js --bin APP/node_modules/cozy-gw/bin/cozy-gw.js [--dir PLATFORM]
 *     [--nodes PATH,PATH] [--runs 11] [--variants floor,warm,cold] [--time] [--taskset CPUS]
 *     [--out file|null|pipe]
 *
 * Variants (the code cache's state is what they differ in; docs/performance.md "Running the benchmark"):
 *   floor   node bench/floor.js snapshot.yaml
 *   warm    cozy-gw with a code cache directory of this run, primed by an unmeasured call
 *   cold    cozy-gw with a new, empty code cache directory each run (a first call; a container's)
 *   shared  cozy-gw with the default directory, shared with everything else on the machine
 *   off     cozy-gw with COZY_GW_CODE_CACHE=off
 *   hook    warm, under `node -r bench/maxrss.js` as npm run bench runs it
 * --dir: a platform of bench/generate.js (snapshot.yaml, values.yaml); default TS, generated into a
 * temporary folder. --time: CPU (user + system) from /usr/bin/time too. --taskset: every child on
 * those CPUs. --out: where a child's stdout goes (a file truncated each run, /dev/null, a pipe).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const FLOOR = path.join(__dirname, 'floor.js');
const HOOK = path.join(__dirname, 'maxrss.js');
const NOW = '2026-01-01T00:00:00Z';
const VARIANTS = ['floor', 'warm', 'cold', 'shared', 'off', 'hook'];

function parseArgs(argv) {
  const o = { nodes: [process.execPath], runs: 11, variants: ['floor', 'warm', 'cold'], out: 'file' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === '--bin') o.bin = path.resolve(val());
    else if (a === '--dir') o.dir = path.resolve(val());
    else if (a === '--nodes') o.nodes = val().split(',').filter(Boolean);
    else if (a === '--runs') o.runs = Number(val());
    else if (a === '--variants') o.variants = val().split(',').filter(Boolean);
    else if (a === '--time') o.time = true;
    else if (a === '--taskset') o.taskset = val();
    else if (a === '--out') o.out = val();
    else if (a === '-h' || a === '--help') usage();
    else usage(`unknown option ${a}`);
  }
  if (!o.bin) usage('--bin is needed: the bin/cozy-gw.js of an installed package');
  if (!Number.isInteger(o.runs) || o.runs < 1) usage('--runs must be a positive integer');
  for (const v of o.variants)
    if (!VARIANTS.includes(v)) usage(`unknown variant ${v} (expected ${VARIANTS.join(', ')})`);
  if (o.variants[0] !== 'floor') o.variants.unshift('floor');
  if (!['file', 'null', 'pipe'].includes(o.out)) usage('--out is file, null or pipe');
  return o;
}

function usage(msg) {
  if (msg) process.stderr.write(`oneshot: ${msg}\n`);
  process.stderr.write(
    'usage: node bench/oneshot.js --bin BIN [--dir PLATFORM] [--nodes PATH,...] [--runs N] [--variants floor,warm,cold,shared,off,hook] [--time] [--taskset CPUS] [--out file|null|pipe]\n',
  );
  process.exit(msg ? 2 : 0);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function main() {
  const o = parseArgs(process.argv.slice(2));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-oneshot-'));
  let dir = o.dir;
  if (!dir) {
    dir = path.join(work, 'TS');
    const g = require('./generate.js');
    g.writePlatform(dir, 'TS', g.DEFAULT_SEED);
  }
  const reconcile = [o.bin, 'reconcile', '--all', '-o', 'yaml', '--now', NOW];
  reconcile.push('--values', path.join(dir, 'values.yaml'), '-f', path.join(dir, 'snapshot.yaml'));
  const own = path.join(work, 'code-cache');
  let cold = 0;
  const variant = {
    floor: () => ({ argv: [FLOOR, path.join(dir, 'snapshot.yaml')] }),
    warm: () => ({ argv: reconcile, env: { COZY_GW_CODE_CACHE_DIR: own } }),
    cold: () => ({ argv: reconcile, env: { COZY_GW_CODE_CACHE_DIR: path.join(work, `cold-${cold++}`) } }),
    shared: () => ({ argv: reconcile }),
    off: () => ({ argv: reconcile, env: { COZY_GW_CODE_CACHE: 'off' } }),
    hook: () => ({
      argv: ['-r', HOOK, ...reconcile],
      env: { COZY_GW_CODE_CACHE_DIR: own, BENCH_RSS_FILE: path.join(work, 'rss') },
    }),
  };
  const timeFile = path.join(work, 'time');
  for (const node of o.nodes) {
    const load0 = os.loadavg()[0];
    const runs = Object.fromEntries(o.variants.map((v) => [v, { ms: [], cpuMs: [] }]));
    // Round -1 is unmeasured: it primes the warm cache, as a user's earlier call would.
    for (let r = -1; r < o.runs; r++) {
      for (let j = 0; j < o.variants.length; j++) {
        const name = o.variants[(j + Math.max(r, 0)) % o.variants.length];
        const v = variant[name]();
        const argv = [
          ...(o.taskset ? ['taskset', '-c', o.taskset] : []),
          ...(o.time ? ['/usr/bin/time', '-f', '%U %S', '-o', timeFile] : []),
          node,
          ...v.argv,
        ];
        const fd =
          o.out === 'pipe' ? 'pipe' : fs.openSync(o.out === 'null' ? '/dev/null' : path.join(work, 'out'), 'w');
        const t0 = process.hrtime.bigint();
        const res = spawnSync(argv[0], argv.slice(1), {
          stdio: ['ignore', fd, 'pipe'],
          env: { ...process.env, ...(v.env ?? {}) },
          maxBuffer: 1 << 30,
        });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (fd !== 'pipe') fs.closeSync(fd);
        if (res.status !== 0) throw new Error(`${name}: exit ${res.status}: ${String(res.stderr).slice(0, 400)}`);
        if (r < 0) continue;
        runs[name].ms.push(ms);
        if (o.time) {
          const [u, s] = fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
          runs[name].cpuMs.push((u + s) * 1000);
        }
      }
    }
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    const load = `load average ${load0.toFixed(2)} -> ${os.loadavg()[0].toFixed(2)}`;
    process.stdout.write(`node ${version}, ${o.runs} alternating runs each, ${load}\n`);
    const floor = runs.floor;
    for (const name of o.variants) {
      const x = runs[name];
      const pairs = x.ms.map((ms, i) => ms / floor.ms[i]).sort((a, b) => a - b);
      const cpu = o.time
        ? `  cpu ${median(x.cpuMs).toFixed(0)} ms (x${(median(x.cpuMs) / median(floor.cpuMs)).toFixed(2)})`
        : '';
      process.stdout.write(
        `  ${name.padEnd(7)} wall ${median(x.ms).toFixed(0).padStart(5)} ms  range ${Math.min(...x.ms).toFixed(0)}-${Math.max(...x.ms).toFixed(0)}  x floor ${(median(x.ms) / median(floor.ms)).toFixed(2)} (rounds ${pairs[0].toFixed(2)}-${pairs[pairs.length - 1].toFixed(2)})${cpu}\n`,
      );
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
}

if (require.main === module) main();
