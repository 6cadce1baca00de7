/**
 * Input-sized arrays never go through the call stack (src/k8s/arrays.ts, the lint rule in
 * eslint.config.mjs): one file of 150,000 objects is read, a plan of 50,000 hostnames printed and
 * a diff of 150,000 objects compared, where a spread into a call (`push(...big)`) threw "Maximum
 * call stack size exceeded". Sizes just past where V8 overflows, not timings: the bench's scale
 * row (bench/run.js) measures 500,000 objects read and 200,000 hostnames planned.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { readInputs } from '../../src/io/inputs';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { renderPlan } from '../../src/reports/plan';
import type { HostnameRow } from '../../src/diff/hostnames';
import { diff } from '../../src/diff/diff';
import { ROOT } from '../helpers/cli';

const N = 150_000;
const configMap = (i: number): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `c${i}`, namespace: 'default' },
});

it(`reads one file of ${N} objects`, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-scale-'));
  try {
    const parts: string[] = [];
    for (let i = 0; i < N; i++) parts.push(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c${i}}}\n`);
    fs.writeFileSync(path.join(dir, 'big.yaml'), parts.join('---\n'));
    const { objects } = readInputs(['big.yaml'], { cwd: dir });
    expect(objects.length).toBe(N);
    expect(objects[N - 1].metadata.name).toBe(`c${N - 1}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('prints a plan of 50,000 hostnames (150,000 table lines)', () => {
  const rows: HostnameRow[] = [];
  for (let i = 0; i < 50_000; i++)
    rows.push({
      hostname: `h${i}.example.org`,
      route: `HTTPRoute tenant-root/r${i}`,
      namespace: 'tenant-root',
      before: { state: 'absent' },
      after: { state: 'served', gateway: 'tenant-root/cozystack', listener: 'https', certificate: 'Certificate x/y' },
      change: 'starts',
    });
  const store = new Store([]);
  const text = renderPlan({ store, changes: [], findings: [], races: [] }, { before: [], now: 'now', hostnames: rows });
  expect(text.split('\n').filter((l) => l.startsWith('    h')).length).toBe(50_000);
});

it(`diffs ${N} given objects against an empty state`, () => {
  const objects: KObject[] = [];
  for (let i = 0; i < N; i++) objects.push(configMap(i));
  const d = diff({ state: [], objects, valuesFiles: [] }, { now: '2026-01-01T00:00:00Z' });
  expect(d.findings.filter((f) => f.severity === 'error')).toEqual([]);
  expect(d.created.length).toBe(N);
});

it('the lint rule finds a spread into a call in src/', () => {
  const r = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/eslint/bin/eslint.js'),
      '--stdin',
      '--stdin-filename',
      'src/k8s/example.ts',
      '-f',
      'json',
    ],
    {
      cwd: ROOT,
      input: 'export function f(a: number[], b: number[]) {\n  a.push(...b);\n  return Math.max(...a);\n}\n',
      encoding: 'utf8',
    },
  );
  const [report] = JSON.parse(r.stdout) as { messages: { ruleId: string; line: number }[] }[];
  expect(report.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.line)).toEqual([2, 3]);
});
