#!/usr/bin/env node
'use strict';
/**
 * `npm run bench`: for each size, generate a synthetic platform (bench/generate.js) into a
 * temporary folder, then measure, alternating and repeated, each as a child process:
 *
 *   floor        node bench/floor.js snapshot.yaml         (js-yaml read + write of reconcile's input)
 *   reconcile    cozy-gw reconcile --all -o yaml -f snapshot.yaml --values values.yaml --now ...
 *   render-floor node bench/floor.js render-output.yaml    (js-yaml read + write of render's output)
 *   render       cozy-gw render -f tenants.yaml --values values.yaml
 *   diff-floor   node bench/floor.js diff-state.yaml diff-tenants.yaml  (js-yaml read + write of diff's inputs)
 *   diff         cozy-gw diff --state diff-state.yaml --values values.yaml -f diff-tenants.yaml --prune
 *   diff-lines   cozy-gw diff --state diff-lines-state.yaml -f diff-lines-change.yaml  (the unified diff of
 *                one object with 10,000 changed lines, and one whose 10,000 list lines are reversed)
 *
 * diff's state is the platform after one pass (reconcile --all over render's output, the Tenants
 * and the snapshot's routes, made unmeasured); its change is the whole tenants file with one child
 * tenant given its own Gateway (a pull request on a tenants directory): render of the whole tree,
 * the pass, the comparison and the unified diff of what differs.
 *
 * Then the scale row (bench/generate.js writeScale): one file of 500,000 objects read
 * (`read`: reconcile -o json over it, nothing to change) and a plan of 200,000 hostnames
 * (`plan`: reconcile -o plan over a dns01 TenantGateway and 200,000 HTTPRoutes), each also at
 * half the size, so that CPU and peak RSS per object from half to full say whether time and
 * memory stay linear.
 *
 * Prints medians, the ratio to the floor, objects per second and peak RSS as a table, and the
 * same as JSON with --json FILE. Needs `npm run build` (runs dist/ through bin/cozy-gw.js).
 *
 * Options: --sizes S,M,L,XL  --repeat N (default 3)  --json FILE  --seed N  --keep (keep the
 * generated folders)  --dir DIR (generate under DIR instead of a temporary folder)
 * --only floor,reconcile,render-floor,render,diff-floor,diff,diff-lines  --no-scale (skip the scale row)
 * --scale-repeat N (default 1)  --scale-objects N --scale-routes N (the full sizes)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { SIZES, DEFAULT_SEED, SCALE, writePlatform, writeScale } = require('./generate.js');

const ROOT = path.resolve(__dirname, '..');
let BIN = path.join(ROOT, 'bin', 'cozy-gw.js');
const FLOOR = path.join(__dirname, 'floor.js');
const HOOK = path.join(__dirname, 'maxrss.js');
const NOW = '2026-01-01T00:00:00Z';
const COMMANDS = ['floor', 'reconcile', 'render-floor', 'render', 'diff-floor', 'diff', 'diff-lines'];
/** Exit codes that are success: diff exits 3 when it finds differences. */
const OK_EXIT = { diff: [0, 3], 'diff-lines': [3] };
const okExit = (c, code) => (OK_EXIT[c] ?? [0]).includes(code);

function parseArgs(argv) {
  const o = {
    sizes: Object.keys(SIZES),
    repeat: 3,
    json: undefined,
    seed: DEFAULT_SEED,
    keep: false,
    dir: undefined,
    only: COMMANDS,
    scale: true,
    scaleRepeat: 1,
    scaleObjects: SCALE.objects,
    scaleRoutes: SCALE.routes,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      return v;
    };
    if (a === '--sizes')
      o.sizes = val()
        .split(',')
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean);
    else if (a === '--repeat') o.repeat = Number(val());
    else if (a === '--json') o.json = val();
    else if (a === '--seed') o.seed = Number(val());
    else if (a === '--dir') o.dir = val();
    else if (a === '--only')
      o.only = val()
        .split(',')
        .map((s) => s.trim());
    else if (a === '--keep') o.keep = true;
    else if (a === '--no-scale') o.scale = false;
    else if (a === '--scale-repeat') o.scaleRepeat = Number(val());
    else if (a === '--scale-objects') o.scaleObjects = Number(val());
    else if (a === '--scale-routes') o.scaleRoutes = Number(val());
    else if (a === '-h' || a === '--help') usage();
    else usage(`unknown option ${a}`);
  }
  for (const s of o.sizes) if (!SIZES[s]) usage(`unknown size ${s} (expected ${Object.keys(SIZES).join(', ')})`);
  for (const c of o.only) if (!COMMANDS.includes(c)) usage(`unknown command ${c} (expected ${COMMANDS.join(', ')})`);
  if (!Number.isInteger(o.repeat) || o.repeat < 1) usage('--repeat must be a positive integer');
  if (!Number.isInteger(o.scaleRepeat) || o.scaleRepeat < 1) usage('--scale-repeat must be a positive integer');
  for (const [k, flag] of [
    ['scaleObjects', '--scale-objects'],
    ['scaleRoutes', '--scale-routes'],
  ])
    if (!Number.isInteger(o[k]) || o[k] < 2) usage(`${flag} must be an integer of at least 2`);
  if (!Number.isFinite(o.seed)) usage('--seed must be a number');
  return o;
}

function usage(msg) {
  if (msg) process.stderr.write(`bench: ${msg}\n`);
  process.stderr.write(
    'usage: npm run bench -- [--sizes S,M,L,XL] [--repeat N] [--json FILE] [--seed N] [--keep] [--dir DIR] [--only floor,reconcile,render-floor,render,diff-floor,diff,diff-lines] [--no-scale] [--scale-repeat N] [--scale-objects N] [--scale-routes N]\n',
  );
  process.exit(msg ? 2 : 0);
}

/** Run one child: wall time (ms), peak RSS (KiB, from the preloaded hook), exit code, stderr. */
function measure(args, outFile, rssFile) {
  const fd = fs.openSync(outFile, 'w');
  try {
    try {
      fs.unlinkSync(rssFile);
    } catch {
      /* first run */
    }
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['-r', HOOK, ...args], {
      cwd: ROOT,
      stdio: ['ignore', fd, 'pipe'],
      env: { ...process.env, BENCH_RSS_FILE: rssFile },
      maxBuffer: 64 << 20,
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    let rssKiB;
    let cpuMs;
    try {
      const u = JSON.parse(fs.readFileSync(rssFile, 'utf8'));
      rssKiB = u.maxRSS;
      cpuMs = (u.userUs + u.systemUs) / 1000;
    } catch {
      /* the child died before its exit hook */
    }
    return { ms, cpuMs, rssKiB, code: r.status, stderr: r.stderr ? r.stderr.toString() : String(r.error ?? '') };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * diff's inputs (unmeasured): the state, the platform after one pass over render's output, the
 * Tenants and the snapshot's routes; the change, the tenants with one child tenant given its own
 * Gateway. Returns 'ok' or why not.
 */
function prepareDiff(dir, files, renderOut, rss) {
  const jsyaml = require('js-yaml');
  const routes = [];
  jsyaml.loadAll(fs.readFileSync(files.snapshot, 'utf8'), (d) => {
    if (d && d.kind !== 'Namespace' && d.kind !== 'TenantGateway') routes.push(d);
  });
  const routesFile = path.join(dir, 'diff-routes.yaml');
  fs.writeFileSync(routesFile, routes.map((d) => jsyaml.dump(d, { noRefs: true, lineWidth: -1 })).join('---\n'));
  const stateFile = path.join(dir, 'diff-state.yaml');
  const st = measure(
    [
      BIN,
      'reconcile',
      '--all',
      '--now',
      NOW,
      '--values',
      files.values,
      '-f',
      renderOut,
      '-f',
      files.tenants,
      '-f',
      routesFile,
    ],
    stateFile,
    rss,
  );
  if (st.code !== 0) return `exit ${st.code} making the state: ${st.stderr.split('\n')[0].slice(0, 200)}`;
  const tenants = [];
  jsyaml.loadAll(fs.readFileSync(files.tenants, 'utf8'), (d) => d && tenants.push(d));
  const child = tenants.find((t) => t.metadata.namespace !== 'tenant-root' && !(t.spec && t.spec.gateway));
  if (!child) return 'no inheriting tenant to give a Gateway';
  child.spec = { ...(child.spec || {}), gateway: true };
  fs.writeFileSync(
    path.join(dir, 'diff-tenants.yaml'),
    tenants.map((d) => jsyaml.dump(d, { noRefs: true, lineWidth: -1 })).join('---\n'),
  );
  const probe = measure(argvDiff(dir, files), path.join(dir, 'diff.probe.yaml'), rss);
  return okExit('diff', probe.code) ? 'ok' : `exit ${probe.code}: ${probe.stderr.split('\n')[0].slice(0, 200)}`;
}

function argvDiff(dir, files) {
  return [
    BIN,
    'diff',
    '--state',
    path.join(dir, 'diff-state.yaml'),
    '--values',
    files.values,
    '-f',
    path.join(dir, 'diff-tenants.yaml'),
    '--prune',
    '--now',
    NOW,
  ];
}

/** The number of changed lines in diff-lines' objects. */
const DIFF_LINES = 10000;

/**
 * diff-lines' inputs: a state of two objects of 10,000 lines each, and a change that rewrites every
 * value of the first and reverses the list of the second (every line still matches one on the other
 * side, the worst case for a line diff). Independent of the size.
 */
function prepareDiffLines(dir) {
  const jsyaml = require('js-yaml');
  const objects = (values, reversed) => {
    const data = {};
    for (let i = 0; i < DIFF_LINES; i++) data[`key-${i}`] = `${values}-${i}`;
    const items = Array.from({ length: DIFF_LINES }, (_, i) => `item-${i}`);
    return [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'bench' }, data },
      {
        apiVersion: 'bench.example.org/v1',
        kind: 'BenchList',
        metadata: { name: 'list', namespace: 'bench' },
        spec: { items: reversed ? items.reverse() : items },
      },
    ];
  };
  const write = (f, objs) => fs.writeFileSync(path.join(dir, f), objs.map((o) => jsyaml.dump(o)).join('---\n'));
  write('diff-lines-state.yaml', objects('old', false));
  write('diff-lines-change.yaml', objects('new', true));
}

function argvDiffLines(dir) {
  return [
    BIN,
    'diff',
    '--state',
    path.join(dir, 'diff-lines-state.yaml'),
    '-f',
    path.join(dir, 'diff-lines-change.yaml'),
    '--now',
    NOW,
  ];
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function countDocs(file) {
  // Documents in a js-yaml stream written by cozy-gw or floor.js: one `---` line between each.
  const text = fs.readFileSync(file, 'utf8');
  if (!text.trim()) return 0;
  let n = 1;
  for (let i = text.indexOf('\n---\n'); i >= 0; i = text.indexOf('\n---\n', i + 1)) n++;
  return n;
}

function fmtMs(ms) {
  return ms >= 10000
    ? `${(ms / 1000).toFixed(1)} s`
    : ms >= 1000
      ? `${(ms / 1000).toFixed(2)} s`
      : `${Math.round(ms)} ms`;
}
function fmtMB(bytes) {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

function machine() {
  let cpu = 'unknown';
  try {
    const m = /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1].trim();
  } catch {
    cpu = os.cpus()[0]?.model ?? 'unknown';
  }
  return {
    nproc: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    cpu,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    memGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
  };
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'index.js'))) {
    process.stderr.write('bench: dist/cli/index.js is missing: run `npm run build` first\n');
    process.exit(1);
  }
  const m = machine();
  process.stderr.write(`machine: ${m.nproc} cpu, ${m.cpu}, ${m.memGiB} GiB, node ${m.node}\n`);
  const base = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-bench-'));
  // Measure a copy of the build, so that a rebuild of dist/ during a long run changes nothing.
  const app = path.join(base, 'app');
  fs.rmSync(app, { recursive: true, force: true });
  fs.cpSync(path.join(ROOT, 'dist'), path.join(app, 'dist'), { recursive: true });
  fs.cpSync(path.join(ROOT, 'bin'), path.join(app, 'bin'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(app, 'node_modules'), 'dir');
  BIN = path.join(app, 'bin', 'cozy-gw.js');
  // Baseline: an empty node process (startup time and RSS every child pays).
  const scratch = path.join(base, 'scratch');
  fs.mkdirSync(scratch, { recursive: true });
  const baseRuns = [];
  for (let i = 0; i < 5; i++) baseRuns.push(measure(['-e', '0'], path.join(scratch, 'out'), path.join(scratch, 'rss')));
  const baseline = {
    ms: median(baseRuns.map((r) => r.ms)),
    cpuMs: median(baseRuns.map((r) => r.cpuMs ?? 0)),
    rssKiB: Math.max(...baseRuns.map((r) => r.rssKiB ?? 0)),
  };
  process.stderr.write(
    `baseline (node -e 0): ${fmtMs(baseline.ms)} wall, ${fmtMs(baseline.cpuMs)} cpu, ${fmtMB(baseline.rssKiB * 1024)} RSS\n`,
  );

  const results = [];
  for (const size of o.sizes) {
    const dir = path.join(base, size);
    const t0 = Date.now();
    const { files, meta } = writePlatform(dir, size, o.seed);
    process.stderr.write(
      `${size}: generated ${meta.tenants} tenants, ${meta.snapshotObjects} snapshot objects (${fmtMB(meta.snapshotBytes)}) in ${Date.now() - t0} ms -> ${dir}\n`,
    );
    const out = (n) => path.join(dir, `${n}.out.yaml`);
    const rss = path.join(dir, 'rss');
    const renderOut = path.join(dir, 'render-output.yaml');
    const argv = {
      floor: [FLOOR, files.snapshot],
      reconcile: [
        BIN,
        'reconcile',
        '--all',
        '-o',
        'yaml',
        '--now',
        NOW,
        '--values',
        files.values,
        '-f',
        files.snapshot,
      ],
      'render-floor': [FLOOR, renderOut],
      render: [BIN, 'render', '--values', files.values, '-f', files.tenants],
      'diff-floor': [FLOOR, path.join(dir, 'diff-state.yaml'), path.join(dir, 'diff-tenants.yaml')],
      diff: argvDiff(dir, files),
      'diff-lines': argvDiffLines(dir),
    };
    // A first, unmeasured render produces the render floor's input (and proves render works).
    const status = {};
    const first = measure(argv.render, renderOut, rss);
    status.render = first.code === 0 ? 'ok' : `exit ${first.code}: ${first.stderr.split('\n')[0].slice(0, 200)}`;
    status['render-floor'] = status.render;
    const rec = measure(argv.reconcile, out('reconcile'), rss);
    status.reconcile = rec.code === 0 ? 'ok' : `exit ${rec.code}: ${rec.stderr.split('\n')[0].slice(0, 200)}`;
    status.floor = 'ok';
    status.diff = status['diff-floor'] = o.only.some((c) => c.startsWith('diff'))
      ? prepareDiff(dir, files, renderOut, rss)
      : 'not asked for';
    if (o.only.includes('diff-lines')) {
      prepareDiffLines(dir);
      status['diff-lines'] = 'ok';
    }
    const cmds = o.only.filter((c) => status[c] === 'ok');
    for (const c of o.only) if (status[c] !== 'ok') process.stderr.write(`${size}: ${c} skipped (${status[c]})\n`);
    const runs = Object.fromEntries(cmds.map((c) => [c, []]));
    for (let r = 0; r < o.repeat; r++) {
      // Alternate, and rotate the order each round so no command always runs after the same one.
      for (let j = 0; j < cmds.length; j++) {
        const c = cmds[(j + r) % cmds.length];
        const res = measure(argv[c], out(c), rss);
        if (!okExit(c, res.code)) {
          process.stderr.write(`${size}: ${c} failed (exit ${res.code}): ${res.stderr.slice(0, 500)}\n`);
          process.exit(1);
        }
        runs[c].push(res);
        process.stderr.write(
          `${size} ${r + 1}/${o.repeat} ${c}: ${fmtMs(res.ms)} wall, ${fmtMs(res.cpuMs ?? 0)} cpu, ${fmtMB((res.rssKiB ?? 0) * 1024)}\n`,
        );
      }
    }
    const inputs = {
      floor: { objects: meta.snapshotObjects, bytes: meta.snapshotBytes },
      reconcile: { objects: meta.snapshotObjects, bytes: meta.snapshotBytes },
      render: { objects: meta.tenants, bytes: meta.tenantsBytes },
    };
    if (status.diff === 'ok') {
      for (const c of ['diff', 'diff-floor'])
        inputs[c] = {
          objects: countDocs(path.join(dir, 'diff-state.yaml')) + meta.tenants,
          bytes:
            fs.statSync(path.join(dir, 'diff-state.yaml')).size + fs.statSync(path.join(dir, 'diff-tenants.yaml')).size,
        };
    }
    if (status['diff-lines'] === 'ok')
      inputs['diff-lines'] = {
        objects: 2,
        bytes:
          fs.statSync(path.join(dir, 'diff-lines-state.yaml')).size +
          fs.statSync(path.join(dir, 'diff-lines-change.yaml')).size,
      };
    if (status.render === 'ok') {
      const n = countDocs(renderOut);
      inputs['render-floor'] = { objects: n, bytes: fs.statSync(renderOut).size };
    }
    const row = { size, meta, dir, commands: {} };
    for (const c of cmds) {
      const ms = median(runs[c].map((x) => x.ms));
      const cpuMs = median(runs[c].map((x) => x.cpuMs ?? 0));
      const outBytes = fs.statSync(out(c)).size;
      const outObjects = countDocs(out(c));
      // Objects per second counts the larger side: reconcile's input, render's output.
      const objects = Math.max(inputs[c].objects, outObjects);
      row.commands[c] = {
        medianMs: +ms.toFixed(1),
        runsMs: runs[c].map((x) => +x.ms.toFixed(1)),
        medianCpuMs: +cpuMs.toFixed(1),
        runsCpuMs: runs[c].map((x) => +(x.cpuMs ?? 0).toFixed(1)),
        peakRssKiB: Math.max(...runs[c].map((x) => x.rssKiB ?? 0)),
        inputObjects: inputs[c].objects,
        inputBytes: inputs[c].bytes,
        outputObjects: outObjects,
        outputBytes: outBytes,
        objectsPerSecond: Math.round(objects / (ms / 1000)),
        usPerObject: +((ms * 1000) / objects).toFixed(2),
      };
    }
    const C = row.commands;
    const ratio = (c, f) => {
      if (!C[c] || !C[f]) return;
      C[c].ratioToFloor = +(C[c].medianMs / C[f].medianMs).toFixed(2);
      C[c].cpuRatioToFloor = +(C[c].medianCpuMs / C[f].medianCpuMs).toFixed(2);
    };
    ratio('reconcile', 'floor');
    ratio('render', 'render-floor');
    ratio('diff', 'diff-floor');
    for (const c of Object.keys(C))
      C[c].rssOverInput = +((C[c].peakRssKiB * 1024) / Math.max(C[c].inputBytes, C[c].outputBytes)).toFixed(2);
    row.status = status;
    results.push(row);
    if (!o.keep && !o.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
  const scale = o.scale ? scaleRows(base, o) : [];
  if (!o.keep && !o.dir) fs.rmSync(base, { recursive: true, force: true });

  const report = {
    machine: m,
    seed: o.seed,
    repeat: o.repeat,
    baseline,
    results,
    scale,
    checks: [...checks(results, baseline), ...scaleChecks(scale, baseline)],
  };
  process.stdout.write(table(report));
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(report, null, 2) + '\n');
}

/**
 * The scale row: `read` (one file of objects, reconcile -o json: nothing changes) and `plan`
 * (reconcile -o plan of routes with one hostname each), at half and at the full size.
 */
function scaleRows(base, o) {
  const rows = [];
  for (const [label, div] of [
    ['half', 2],
    ['scale', 1],
  ]) {
    const dir = path.join(base, `scale-${label}`);
    const t0 = Date.now();
    const { files, meta } = writeScale(dir, {
      objects: Math.floor(o.scaleObjects / div),
      routes: Math.floor(o.scaleRoutes / div),
    });
    process.stderr.write(
      `${label}: generated ${meta.objects} objects (${fmtMB(meta.objectsBytes)}), ${meta.routes} routes (${fmtMB(meta.routesBytes)}) in ${Date.now() - t0} ms -> ${dir}\n`,
    );
    const rss = path.join(dir, 'rss');
    const cmds = {
      read: {
        argv: [BIN, 'reconcile', '-o', 'json', '--now', NOW, '-f', files.objects],
        objects: meta.objects,
        bytes: meta.objectsBytes,
      },
      plan: {
        argv: [BIN, 'reconcile', '-o', 'plan', '--now', NOW, '-f', files.routes],
        objects: meta.routes,
        bytes: meta.routesBytes,
      },
    };
    const row = { size: label, meta, commands: {} };
    for (const [c, x] of Object.entries(cmds)) {
      const runs = [];
      for (let r = 0; r < o.scaleRepeat; r++) {
        const res = measure(x.argv, path.join(dir, `${c}.out`), rss);
        if (res.code !== 0) {
          process.stderr.write(`${label}: ${c} failed (exit ${res.code}): ${res.stderr.slice(0, 500)}\n`);
          process.exit(1);
        }
        runs.push(res);
        process.stderr.write(
          `${label} ${r + 1}/${o.scaleRepeat} ${c}: ${fmtMs(res.ms)} wall, ${fmtMs(res.cpuMs ?? 0)} cpu, ${fmtMB((res.rssKiB ?? 0) * 1024)}\n`,
        );
      }
      const ms = median(runs.map((y) => y.ms));
      const cpuMs = median(runs.map((y) => y.cpuMs ?? 0));
      const peakRssKiB = Math.max(...runs.map((y) => y.rssKiB ?? 0));
      row.commands[c] = {
        medianMs: +ms.toFixed(1),
        medianCpuMs: +cpuMs.toFixed(1),
        peakRssKiB,
        inputObjects: x.objects,
        inputBytes: x.bytes,
        outputObjects: 0,
        outputBytes: fs.statSync(path.join(dir, `${c}.out`)).size,
        objectsPerSecond: Math.round(x.objects / (ms / 1000)),
        usPerObject: +((ms * 1000) / x.objects).toFixed(2),
        rssOverInput: +((peakRssKiB * 1024) / x.bytes).toFixed(2),
      };
    }
    rows.push(row);
    if (!o.keep && !o.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Linearity of the scale row: CPU and peak RSS (node's own taken out) per object, half to full. */
function scaleChecks(rows, baseline) {
  const half = rows.find((r) => r.size === 'half');
  const full = rows.find((r) => r.size === 'scale');
  if (!half || !full) return [];
  const out = [];
  for (const [c, what] of [
    ['read', 'objects read'],
    ['plan', 'hostnames planned'],
  ]) {
    const h = half.commands[c];
    const f = full.commands[c];
    const cpu = (x) => Math.max(x.medianCpuMs - baseline.cpuMs, 0.001) / x.inputObjects;
    const mem = (x) => Math.max(x.peakRssKiB - baseline.rssKiB, 1) / x.inputObjects;
    const vc = +(cpu(f) / cpu(h)).toFixed(2);
    const vm = +(mem(f) / mem(h)).toFixed(2);
    out.push({
      target: `scale ${c}: cpu per ${what.split(' ')[0].replace(/s$/, '')} half -> full within 1.3x`,
      value: vc,
      ok: vc <= 1.3,
    });
    out.push({
      target: `scale ${c}: peak RSS per ${what.split(' ')[0].replace(/s$/, '')} half -> full within 1.3x`,
      value: vm,
      ok: vm <= 1.3,
    });
  }
  return out;
}

/** The performance targets (README "Performance"), measured (not asserted). */
function checks(results, baseline) {
  const baselineCpu = baseline.cpuMs;
  const out = [];
  const L = results.find((r) => r.size === 'L');
  for (const [c, what, max] of [
    ['reconcile', 'reconcile --all on L within 1.5x the floor', 1.5],
    ['render', 'render on L within 1.5x its render floor', 1.5],
    ['diff', 'diff on L within 2.5x its floor (reading both sides)', 2.5],
  ]) {
    const x = L?.commands[c];
    if (x?.ratioToFloor === undefined) continue;
    out.push({ target: `${what} (wall)`, value: x.ratioToFloor, ok: x.ratioToFloor <= max });
    out.push({ target: `${what} (cpu)`, value: x.cpuRatioToFloor, ok: x.cpuRatioToFloor <= max });
  }
  // The unified diff of one large object (the bar for one large object): at every size, the same two objects.
  for (const r of results) {
    const x = r.commands['diff-lines'];
    if (!x) continue;
    out.push({
      target: `diff-lines (${r.size}): one object of ${DIFF_LINES} changed lines and one reversed, under 2 s wall`,
      value: +(x.medianMs / 1000).toFixed(2),
      ok: x.medianMs < 2000,
    });
    out.push({
      target: `diff-lines (${r.size}): under 300 MB peak RSS`,
      value: +(x.peakRssKiB / 1024).toFixed(1),
      ok: x.peakRssKiB < 300 * 1024,
    });
  }
  // Linearity: CPU time per object with the node startup (baseline) taken out, from the smallest
  // size to the largest, and between the two largest (where startup matters least).
  const perObj = (r, c) => {
    const x = r.commands[c];
    return x ? Math.max(x.medianCpuMs - baselineCpu, 0.001) / Math.max(x.inputObjects, x.outputObjects) : undefined;
  };
  const pairs = [];
  if (results.length >= 2) pairs.push([results[0], results[results.length - 1]]);
  if (results.length >= 3) pairs.push([results[results.length - 2], results[results.length - 1]]);
  for (const [a, b] of pairs) {
    for (const c of ['reconcile', 'render', 'floor']) {
      const pa = perObj(a, c);
      const pb = perObj(b, c);
      if (pa === undefined || pb === undefined) continue;
      const v = +(pb / pa).toFixed(2);
      out.push({
        target: `${c}: cpu per object (startup excluded) ${a.size} -> ${b.size} within 1.3x`,
        value: v,
        ok: v <= 1.3,
      });
    }
  }
  if (L?.commands.reconcile) {
    const v = +((L.commands.reconcile.peakRssKiB * 1024) / L.meta.snapshotBytes).toFixed(2);
    out.push({ target: 'reconcile on L: peak RSS at most 6x the input size', value: v, ok: v <= 6 });
    const w = +(((L.commands.reconcile.peakRssKiB - baseline.rssKiB) * 1024) / L.meta.snapshotBytes).toFixed(2);
    out.push({ target: "reconcile on L: peak RSS above node's own at most 6x the input size", value: w, ok: w <= 6 });
  }
  return out;
}

function pad(s, n, right) {
  s = String(s);
  return right ? s.padStart(n) : s.padEnd(n);
}

function table(report) {
  const lines = [];
  const m = report.machine;
  lines.push(
    `cozy-gw benchmark — ${m.nproc} cpu ${m.cpu}, ${m.memGiB} GiB, node ${m.node}; seed ${report.seed}, median of ${report.repeat}`,
  );
  lines.push(
    `baseline: node startup ${fmtMs(report.baseline.ms)} wall, ${fmtMs(report.baseline.cpuMs)} cpu, ${fmtMB(report.baseline.rssKiB * 1024)} RSS (included in every figure)`,
  );
  lines.push('');
  const head = [
    'size',
    'command',
    'objects',
    'bytes',
    'wall',
    'cpu',
    'x floor',
    'x fl cpu',
    'objects/s',
    'us/object',
    'peak RSS',
    'RSS/bytes',
  ];
  const w = [5, 12, 7, 8, 8, 8, 7, 8, 9, 9, 9, 9];
  lines.push(head.map((h, i) => pad(h, w[i], i > 1)).join('  '));
  lines.push(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of report.results) {
    for (const c of COMMANDS) {
      const x = r.commands[c];
      if (!x) {
        if (r.status?.[c] && r.status[c] !== 'ok')
          lines.push(`${pad(r.size, w[0])}  ${pad(c, w[1])}  (skipped: ${r.status[c]})`);
        continue;
      }
      const objs = Math.max(x.inputObjects, x.outputObjects);
      lines.push(
        [
          r.size,
          c,
          objs,
          fmtMB(Math.max(x.inputBytes, x.outputBytes)),
          fmtMs(x.medianMs),
          fmtMs(x.medianCpuMs),
          x.ratioToFloor ?? '',
          x.cpuRatioToFloor ?? '',
          x.objectsPerSecond,
          x.usPerObject,
          fmtMB(x.peakRssKiB * 1024),
          x.rssOverInput,
        ]
          .map((v, i) => pad(v, w[i], i > 1))
          .join('  '),
      );
    }
  }
  for (const r of report.scale ?? []) {
    for (const [c, x] of Object.entries(r.commands))
      lines.push(
        [
          r.size,
          c,
          x.inputObjects,
          fmtMB(x.inputBytes),
          fmtMs(x.medianMs),
          fmtMs(x.medianCpuMs),
          '',
          '',
          x.objectsPerSecond,
          x.usPerObject,
          fmtMB(x.peakRssKiB * 1024),
          x.rssOverInput,
        ]
          .map((v, i) => pad(v, w[i], i > 1))
          .join('  '),
      );
  }
  lines.push('');
  lines.push(
    "floor = js-yaml reading and writing every document of reconcile's input; render-floor = the same over render's output;",
  );
  lines.push("diff-floor = the same over diff's state and change.");
  if (report.scale?.length)
    lines.push(
      'scale: read = reconcile -o json over one file of that many objects; plan = reconcile -o plan of that many hostnames (half: half the size).',
    );
  lines.push(
    "wall and cpu (user+system, all threads) are medians; x floor = wall / the floor's wall, x fl cpu = the same in cpu time",
  );
  lines.push(
    '(cpu is the steadier figure on a shared machine). objects / bytes = the larger of input and output; us/object from wall.',
  );
  if (report.checks.length) {
    lines.push('');
    lines.push('targets (measured, not asserted):');
    for (const c of report.checks) lines.push(`  ${c.ok ? 'met   ' : 'MISSED'}  ${c.target}: ${c.value}`);
  }
  return lines.join('\n') + '\n';
}

main();
