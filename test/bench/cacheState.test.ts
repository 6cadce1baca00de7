/**
 * bench/run.js measures cozy-gw in a cache state of its own (docs/performance.md "Running the
 * benchmark"): the steady state in a code cache directory of the bench run, primed by an unmeasured
 * run, and the first call (`reconcile-first`) with an empty directory each run; no child inherits
 * a variable that turns a cache on or off. Which checks are bars and which are figures to report.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';

interface Check {
  target: string;
  value: number | string;
  ok?: boolean;
  figure?: boolean;
}
const bench = require('../../bench/run.js') as {
  childEnv: (env: NodeJS.ProcessEnv, cacheDir?: string, rssFile?: string) => NodeJS.ProcessEnv;
  coldCacheDir: (base: string) => string;
  checks: (results: unknown[], baseline: { cpuMs: number; rssKiB: number }) => Check[];
  CACHE_VARIABLES: string[];
};

const inherited = {
  PATH: process.env.PATH,
  NODE_COMPILE_CACHE: '/somewhere/warm',
  NODE_DISABLE_COMPILE_CACHE: '1',
  COZY_GW_CODE_CACHE: 'off',
  COZY_GW_CODE_CACHE_DIR: '/somewhere/shared',
  KEPT: 'yes',
};

test('a child inherits no cache variable: its code cache is the directory the bench gives, or none', () => {
  const env = bench.childEnv(inherited, '/bench/code-cache', '/bench/rss');
  for (const k of bench.CACHE_VARIABLES.filter((v) => v !== 'COZY_GW_CODE_CACHE_DIR'))
    expect({ k, value: env[k] }).toEqual({ k, value: undefined });
  expect(env).toMatchObject({ COZY_GW_CODE_CACHE_DIR: '/bench/code-cache', BENCH_RSS_FILE: '/bench/rss', KEPT: 'yes' });
  const floor = bench.childEnv(inherited);
  expect({ dir: floor.COZY_GW_CODE_CACHE_DIR, compile: floor.NODE_COMPILE_CACHE }).toEqual({
    dir: undefined,
    compile: undefined,
  });
  expect(inherited.COZY_GW_CODE_CACHE).toBe('off'); // the bench's own environment is left as it is
});

test('a first call gets a new directory each run, under the bench folder, not made yet', () => {
  const base = tmpDir('bench-cold');
  const dirs = [bench.coldCacheDir(base), bench.coldCacheDir(base), bench.coldCacheDir(base)];
  expect(new Set(dirs).size).toBe(3);
  for (const d of dirs)
    expect({ d, under: d.startsWith(base + path.sep), exists: fs.existsSync(d) }).toEqual({
      d,
      under: true,
      exists: false,
    });
});

test('under an inherited COZY_GW_CODE_CACHE=off, a child of the bench still writes its code cache (the steady state is warm)', () => {
  const base = tmpDir('bench-cache-state');
  const dir = bench.coldCacheDir(base);
  const run = () =>
    spawnSync(process.execPath, [path.join(ROOT, 'bin', 'cozy-gw.js'), 'help'], {
      env: bench.childEnv({ ...process.env, ...inherited }, dir),
      encoding: 'utf8',
    });
  expect(run().status).toBe(0);
  const written = fs.readdirSync(dir).filter((f) => /^help-[0-9a-f]{32}\.bin$/.test(f));
  expect(written).toHaveLength(1);
  const before = fs.statSync(path.join(dir, written[0]));
  expect(run().status).toBe(0);
  // The second call read it and wrote nothing: a warm cache, not one made again (a write renames a
  // new file into place; a read only marks the file used, its modification time).
  const after = fs.statSync(path.join(dir, written[0]));
  expect({ ino: after.ino, used: after.mtimeMs >= before.mtimeMs }).toEqual({ ino: before.ino, used: true });
  expect(fs.readdirSync(dir).filter((f) => /^help-[0-9a-f]{32}\.bin$/.test(f))).toEqual(written);
});

/** A result row as bench/run.js makes it, with the ratios checks() reads. */
const row = (size: string, commands: Record<string, [number, number, number]>) => ({
  size,
  commands: Object.fromEntries(
    Object.entries(commands).map(([c, [wall, cpu, rss]]) => [
      c,
      {
        ratioToFloor: wall,
        cpuRatioToFloor: cpu,
        rssRatioToFloor: rss,
        medianCpuMs: 1,
        inputObjects: 1,
        outputObjects: 1,
      },
    ]),
  ),
});

test("the bars are wall time and memory past TS; TS's peak memory, every CPU row and the first call are figures", () => {
  const results = [
    row('TS', { reconcile: [1.2, 1.4, 1.3], 'reconcile-first': [1.6, 1.5, 1.3] }),
    row('TL', { reconcile: [1.05, 1.3, 1.25], diff: [0.9, 1.2, 0.8] }),
  ];
  const got = bench.checks(results, { cpuMs: 0, rssKiB: 0 });
  const kind = (c: Check) => (c.figure ? 'figure' : c.ok ? 'met' : 'MISSED');
  const byTarget = Object.fromEntries(got.map((c) => [c.target, [kind(c), c.value]]));
  expect(byTarget).toEqual({
    'reconcile --all on TS within 1.25x the floor (wall)': ['met', 1.2],
    'reconcile --all on TS within 1.25x the floor (cpu)': ['figure', 1.4],
    'reconcile --all on TS, first call (empty code cache), against the floor (wall)': ['figure', 1.6],
    'reconcile --all on TS, first call (empty code cache), against the floor (cpu)': ['figure', 1.5],
    "reconcile --all on TS within 1.2x the floor's memory (peak RSS)": ['figure', 1.3],
    'reconcile --all on TL within 1.1x the floor (wall)': ['met', 1.05],
    'reconcile --all on TL within 1.1x the floor (cpu)': ['figure', 1.3],
    "reconcile --all on TL within 1.2x the floor's memory (peak RSS)": ['MISSED', 1.25],
    'diff -o plan on TL within 1.0x the floor of its state (wall)': ['met', 0.9],
    'diff -o plan on TL within 1.0x the floor of its state (cpu)': ['figure', 1.2],
  });
  for (const c of got)
    expect({ target: c.target, both: c.figure === true && c.ok !== undefined }).toEqual({
      target: c.target,
      both: false,
    });
});
