#!/usr/bin/env node
'use strict';
/**
 * `npm run bench:diff-lines`: the unified diff of one large object (docs/commands/diff.md: the line
 * diff is bounded in time and memory). Writes, into a temporary folder, a state of two objects of
 * 10,000 lines each and a change that rewrites every value of the first (a ConfigMap of 10,000 keys)
 * and reverses the list of the second (10,000 items: every line still matches one on the other
 * side, the worst case for a line diff), then measures `cozy-gw diff --state state.yaml -f
 * change.yaml` as a child process, `--repeat` times: median wall and CPU time, peak RSS (the
 * preloaded bench/maxrss.js). The target: under 2 s wall and 300 MB peak RSS; printed as `met` /
 * `MISSED`, never asserted by a test. Needs `npm run build` (runs dist/ through bin/cozy-gw.js).
 *
 * Options: --lines N (default 10000)  --repeat N (default 3)  --json FILE  --keep (keep the folder)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const jsyaml = require('js-yaml');

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'cozy-gw.js');
const HOOK = path.join(__dirname, 'maxrss.js');
const NOW = '2026-01-01T00:00:00Z';
const TARGET_MS = 2000;
const TARGET_MB = 300;

function parseArgs(argv) {
  const o = { lines: 10000, repeat: 3, json: undefined, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--lines') o.lines = Number(val());
    else if (a === '--repeat') o.repeat = Number(val());
    else if (a === '--json') o.json = val();
    else if (a === '--keep') o.keep = true;
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown option ${a}`);
  }
  if (!Number.isInteger(o.lines) || o.lines < 1) usage('--lines must be a positive integer');
  if (!Number.isInteger(o.repeat) || o.repeat < 1) usage('--repeat must be a positive integer');
  return o;
}

function usage(msg) {
  if (msg) process.stderr.write(`bench: ${msg}\n`);
  process.stderr.write('usage: npm run bench:diff-lines -- [--lines N] [--repeat N] [--json FILE] [--keep]\n');
  process.exit(msg ? 2 : 0);
}

/** The state's (`old`) or the change's (`new`, the list reversed) two objects of `n` lines each. */
function objects(n, side) {
  const data = {};
  for (let i = 0; i < n; i++) data[`key-${i}`] = `${side}-${i}`;
  const items = Array.from({ length: n }, (_, i) => `item-${i}`);
  if (side === 'new') items.reverse();
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'bench' }, data },
    {
      apiVersion: 'bench.example.org/v1',
      kind: 'BenchList',
      metadata: { name: 'list', namespace: 'bench' },
      spec: { items },
    },
  ];
}

function measure(dir) {
  const rssFile = path.join(dir, 'rss.json');
  const out = fs.openSync(path.join(dir, 'out.diff'), 'w');
  try {
    fs.rmSync(rssFile, { force: true });
    const t0 = process.hrtime.bigint();
    const r = spawnSync(
      process.execPath,
      [
        '-r',
        HOOK,
        BIN,
        'diff',
        '--state',
        path.join(dir, 'state.yaml'),
        '-f',
        path.join(dir, 'change.yaml'),
        '--now',
        NOW,
      ],
      { cwd: ROOT, stdio: ['ignore', out, 'pipe'], env: { ...process.env, BENCH_RSS_FILE: rssFile } },
    );
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const u = JSON.parse(fs.readFileSync(rssFile, 'utf8'));
    return { ms, cpuMs: (u.userUs + u.systemUs) / 1000, rssKiB: u.maxRSS, code: r.status, stderr: String(r.stderr) };
  } finally {
    fs.closeSync(out);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'index.js'))) {
    process.stderr.write('bench: run `npm run build` first\n');
    process.exit(1);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-bench-diff-lines-'));
  try {
    const write = (f, objs) => fs.writeFileSync(path.join(dir, f), objs.map((x) => jsyaml.dump(x)).join('---\n'));
    write('state.yaml', objects(o.lines, 'old'));
    write('change.yaml', objects(o.lines, 'new'));
    const runs = [];
    for (let i = 0; i < o.repeat; i++) {
      const r = measure(dir);
      // diff exits 3 when it finds differences, which it must here.
      if (r.code !== 3) {
        process.stderr.write(`bench: diff exited ${r.code} (expected 3): ${r.stderr.split('\n')[0]}\n`);
        process.exit(1);
      }
      runs.push(r);
    }
    const outLines = fs.readFileSync(path.join(dir, 'out.diff'), 'utf8').split('\n').length - 1;
    const result = {
      lines: o.lines,
      repeat: o.repeat,
      outputLines: outLines,
      medianMs: +median(runs.map((r) => r.ms)).toFixed(0),
      medianCpuMs: +median(runs.map((r) => r.cpuMs)).toFixed(0),
      peakRssMB: +((Math.max(...runs.map((r) => r.rssKiB)) * 1024) / 1e6).toFixed(1),
    };
    const checks = [
      {
        target: `diff of ${o.lines} changed lines (and ${o.lines} reversed) under 2 s wall`,
        value: `${result.medianMs} ms`,
        ok: result.medianMs < TARGET_MS,
      },
      {
        target: `... under ${TARGET_MB} MB peak RSS`,
        value: `${result.peakRssMB} MB`,
        ok: result.peakRssMB < TARGET_MB,
      },
    ];
    process.stdout.write(
      `diff-lines: ${o.lines} lines per object, ${outLines} lines of unified diff; median wall ${result.medianMs} ms, ` +
        `CPU ${result.medianCpuMs} ms, peak RSS ${result.peakRssMB} MB (${o.repeat} runs)\n`,
    );
    for (const c of checks) process.stdout.write(`  ${c.ok ? 'met   ' : 'MISSED'} ${c.target}: ${c.value}\n`);
    if (o.json) fs.writeFileSync(o.json, `${JSON.stringify({ ...result, checks }, null, 2)}\n`);
  } finally {
    if (o.keep) process.stderr.write(`bench: inputs kept in ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
