#!/usr/bin/env node
'use strict';
/**
 * `npm run bench:tenants`: memory and CPU per tenant as the tenant tree grows. For each N (default
 * 2,000, 5,000 and 20,000 tenants: the target shape's tree, bench/generate.js with `tops` top-level
 * tenants of 10 children each and only the Tenants written), measured unrepeated, each under
 * `/usr/bin/time -v` (peak RSS, user + system CPU):
 *
 *   render  cozy-gw render --values values.yaml -f tenants.yaml             (to a file)
 *   fn      cozy-gw fn < resourcelist.yaml                                   (the Tenants as kpt hands them)
 *   diff    cozy-gw diff -o plan --state state/ --values values.yaml -f tenants-plus.yaml --prune
 *           (state/: `render --output-dir` of the N tenants, made unmeasured; the change: the same
 *           tenants and one child tenant more)
 *
 * Prints, per N and command, CPU seconds and peak RSS, both per tenant with node's own startup
 * (`node -e 0`) taken out, and the load average (`uptime`) when the run started: on a shared
 * machine CPU and memory are the figures to read, wall time is the load's.
 *
 * With `--state stream` diff's state is a cluster's instead of a tree: render's standard output of
 * the N tenants split into files of 5,000 documents, and the Tenants themselves (a snapshot as
 * `kubectl get` gives it, by the file; no record, so nothing is read back from a tree).
 *
 * Options: --tenants 2000,5000,20000  --only render,fn,diff  --state tree|stream  --seed N
 * --dir DIR (keep the files there)  --json FILE
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { StringDecoder } = require('node:string_decoder');
const { DEFAULT_SEED, generate, dumpStream, resourceList } = require('./generate.js');

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'cozy-gw.js');
const NOW = '2026-01-01T00:00:00Z';
const COMMANDS = ['render', 'fn', 'diff'];
const TIME = '/usr/bin/time';

function parseArgs(argv) {
  const o = {
    tenants: [2000, 5000, 20000],
    only: COMMANDS,
    state: 'tree',
    seed: DEFAULT_SEED,
    dir: undefined,
    json: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      return v;
    };
    if (a === '--tenants') o.tenants = val().split(',').map(Number);
    else if (a === '--only') o.only = val().split(',');
    else if (a === '--state') o.state = val();
    else if (a === '--seed') o.seed = Number(val());
    else if (a === '--dir') o.dir = val();
    else if (a === '--json') o.json = val();
    else if (a === '-h' || a === '--help') usage();
    else usage(`unknown option ${a}`);
  }
  for (const n of o.tenants) if (!Number.isInteger(n) || n < 12) usage('--tenants takes integers of at least 12');
  for (const c of o.only) if (!COMMANDS.includes(c)) usage(`unknown command ${c} (expected ${COMMANDS.join(', ')})`);
  if (o.state !== 'tree' && o.state !== 'stream') usage('--state takes tree or stream');
  return o;
}

function usage(msg) {
  if (msg) process.stderr.write(`bench: ${msg}\n`);
  process.stderr.write(
    `usage: npm run bench:tenants -- [--tenants 2000,5000,20000] [--only ${COMMANDS.join(',')}] [--state tree|stream] [--seed N] [--dir DIR] [--json FILE]\n`,
  );
  process.exit(msg ? 2 : 0);
}

/** One child under /usr/bin/time -v: CPU (user + system, ms), peak RSS (KiB), wall (ms), exit code. */
function measure(args, outFile, stdinFile) {
  const out = fs.openSync(outFile, 'w');
  const inp = stdinFile ? fs.openSync(stdinFile, 'r') : 'ignore';
  try {
    const load = os.loadavg()[0];
    const t0 = process.hrtime.bigint();
    const r = spawnSync(TIME, ['-v', process.execPath, ...args], {
      cwd: ROOT,
      stdio: [inp, out, 'pipe'],
      maxBuffer: 256 << 20,
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const err = r.stderr ? r.stderr.toString() : String(r.error ?? '');
    const num = (re) => {
      const m = re.exec(err);
      return m ? Number(m[1]) : NaN;
    };
    const cpuMs = (num(/User time \(seconds\): ([\d.]+)/) + num(/System time \(seconds\): ([\d.]+)/)) * 1000;
    const rssKiB = num(/Maximum resident set size \(kbytes\): (\d+)/);
    const exit = num(/Exit status: (\d+)/);
    const tail = err.split('\n\tCommand being timed')[0];
    return { ms, cpuMs, rssKiB, code: Number.isNaN(exit) ? r.status : exit, load, stderr: tail };
  } finally {
    fs.closeSync(out);
    if (typeof inp === 'number') fs.closeSync(inp);
  }
}

/** The files for N tenants: values, the tenants, the ResourceList, and diff's change (one tenant more). */
function writeInputs(dir, n, seed) {
  const tops = Math.max(1, Math.round((n - 1) / 11));
  const g = generate('FN', seed, { tops, tenantsOnly: true });
  fs.mkdirSync(dir, { recursive: true });
  const files = {
    values: path.join(dir, 'values.yaml'),
    tenants: path.join(dir, 'tenants.yaml'),
    resourceList: path.join(dir, 'resourcelist.yaml'),
    plus: path.join(dir, 'tenants-plus.yaml'),
    state: path.join(dir, 'state'),
  };
  fs.writeFileSync(files.values, dumpStream([g.values]));
  fs.writeFileSync(files.tenants, dumpStream(g.tenants));
  fs.writeFileSync(files.resourceList, resourceList(g.tenants, g.values));
  const owner = g.tenants[1];
  const extra = {
    apiVersion: owner.apiVersion,
    kind: 'Tenant',
    metadata: { name: 'newcomer', namespace: `tenant-${owner.metadata.name}` },
    spec: {},
  };
  fs.writeFileSync(files.plus, dumpStream([...g.tenants, extra]));
  return { files, tenants: g.tenants.length };
}

const mb = (kib) => (kib / 1024).toFixed(0);

/** A YAML stream split at its `---` lines into files of `per` documents each, read and written in pieces. */
function splitStream(file, dir, per) {
  fs.mkdirSync(dir, { recursive: true });
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(64 << 20);
  let rest = '';
  let docs = 0;
  let n = 0;
  let cur = [];
  // A character split between two reads is decoded whole.
  const decoder = new StringDecoder('utf8');
  const flush = () => {
    if (cur.length) fs.writeFileSync(path.join(dir, `part-${String(n++).padStart(5, '0')}.yaml`), cur.join(''));
    cur = [];
  };
  try {
    for (let k; (k = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) {
      const lines = (rest + decoder.write(buf.subarray(0, k))).split('\n');
      rest = lines.pop();
      for (const l of lines) {
        if (l === '---' && ++docs % per === 0) flush();
        else cur.push(`${l}\n`);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  if (rest) cur.push(rest);
  flush();
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'index.js'))) {
    process.stderr.write('bench: dist/cli/index.js is missing: run `npm run build` first\n');
    process.exit(1);
  }
  if (!fs.existsSync(TIME)) {
    process.stderr.write(`bench: ${TIME} is missing (GNU time measures peak RSS and CPU)\n`);
    process.exit(1);
  }
  const base = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-tenants-'));
  const scratch = path.join(base, 'scratch');
  fs.mkdirSync(scratch, { recursive: true });
  const baseRuns = [0, 1, 2].map(() => measure(['-e', '0'], path.join(scratch, 'out')));
  const baseline = {
    cpuMs: Math.min(...baseRuns.map((r) => r.cpuMs)),
    rssKiB: Math.max(...baseRuns.map((r) => r.rssKiB)),
  };
  const rows = [];
  for (const n of o.tenants) {
    const dir = path.join(base, `n${n}`);
    const { files, tenants } = writeInputs(dir, n, o.seed);
    process.stderr.write(`${tenants} tenants -> ${dir}\n`);
    const argv = {
      render: [BIN, 'render', '--values', files.values, '-f', files.tenants],
      fn: [BIN, 'fn'],
      diff: [
        BIN,
        ...['diff', '-o', 'plan', '--state', files.state, '--values', files.values, '-f', files.plus],
        ...['--prune', '--now', NOW],
      ],
    };
    if (o.only.includes('diff')) {
      fs.rmSync(files.state, { recursive: true, force: true });
      const stream = path.join(dir, 'state.out');
      const st = measure(
        o.state === 'tree'
          ? [BIN, 'render', '--values', files.values, '-f', files.tenants, '--output-dir', files.state]
          : [BIN, 'render', '--values', files.values, '-f', files.tenants],
        stream,
      );
      if (st.code !== 0) {
        process.stderr.write(`${tenants}: making the state failed (exit ${st.code}): ${st.stderr.slice(0, 500)}\n`);
        process.exit(1);
      }
      if (o.state === 'stream') {
        splitStream(stream, files.state, 5000);
        fs.copyFileSync(files.tenants, path.join(files.state, 'tenants.yaml'));
      }
    }
    for (const c of o.only) {
      const r = measure(argv[c], path.join(dir, `${c}.out`), c === 'fn' ? files.resourceList : undefined);
      const ok = c === 'diff' ? r.code === 3 : r.code === 0;
      if (!ok) process.stderr.write(`${tenants} ${c}: exit ${r.code}: ${r.stderr.slice(0, 500)}\n`);
      const row = {
        tenants,
        command: c,
        ok,
        exit: r.code,
        cpuMs: Math.round(r.cpuMs),
        wallMs: Math.round(r.ms),
        peakRssKiB: r.rssKiB,
        cpuMsPerTenant: +((r.cpuMs - baseline.cpuMs) / tenants).toFixed(3),
        rssKiBPerTenant: +((r.rssKiB - baseline.rssKiB) / tenants).toFixed(1),
        outputBytes: fs.statSync(path.join(dir, `${c}.out`)).size,
        load: +r.load.toFixed(2),
      };
      rows.push(row);
      process.stderr.write(
        `${tenants} ${c}: ${(r.cpuMs / 1000).toFixed(2)} s cpu, ${mb(r.rssKiB)} MB peak RSS, load ${row.load}\n`,
      );
    }
  }
  const lines = [
    `cozy-gw tenant scale — ${os.cpus().length} cpu, node ${process.version}; baseline (node -e 0) ${baseline.cpuMs} ms cpu, ${mb(baseline.rssKiB)} MB`,
    '',
    'tenants  command   exit     cpu  cpu/tenant   peak RSS  RSS/tenant   output  load',
    '-------  -------  -----  ------  ----------  ---------  ----------  -------  ----',
  ];
  for (const r of rows)
    lines.push(
      [
        String(r.tenants).padStart(7),
        r.command.padEnd(7),
        String(r.exit).padStart(5),
        `${(r.cpuMs / 1000).toFixed(1)} s`.padStart(6),
        `${r.cpuMsPerTenant.toFixed(2)} ms`.padStart(10),
        `${mb(r.peakRssKiB)} MB`.padStart(9),
        `${r.rssKiBPerTenant.toFixed(1)} KB`.padStart(10),
        `${(r.outputBytes / 1e6).toFixed(0)} MB`.padStart(7),
        String(r.load).padStart(4),
      ].join('  '),
    );
  lines.push(
    '',
    'per tenant: node startup (the baseline) taken out; load: 1-minute load average at the start of the run',
  );
  process.stdout.write(lines.join('\n') + '\n');
  if (o.json) fs.writeFileSync(o.json, JSON.stringify({ baseline, rows }, null, 2) + '\n');
  if (!o.dir) fs.rmSync(base, { recursive: true, force: true });
  if (rows.some((r) => !r.ok)) process.exitCode = 1;
}

main();
