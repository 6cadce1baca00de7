/**
 * `diff`'s second controller pass costs one pass, not a second read of the state
 * (docs/commands/diff.md, docs/performance.md): the CLI reads each `--state` file once, the baseline pass and the
 * change pass share the parsed objects, and nothing copies the whole state. Counted in-process,
 * without timing:
 *   - every successful open of a state file (fs.openSync and fs.readFileSync, the readers' entry
 *     points): one per file, for a state file and for each object file of a committed tree;
 *   - the objects the change leaves alone are, in the baseline pass and in the change pass, the
 *     very objects the reader parsed (identity: no re-parse, no deep clone of the state);
 *   - serialisations (characters JSON.stringify writes, structuredClone calls) over a state with
 *     50 and with 200 such objects: a copy of the whole state grows with them, the passes do not.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { keyOf } from '../../src/k8s/model';
import { readInputs } from '../../src/io/inputs';
import { diff } from '../../src/diff/diff';
import { runCli, stateArgs } from '../helpers/cli';

const NOW = '2026-01-01T00:00:00Z';
const TENANTS = `apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: root, namespace: tenant-root}
spec: {gateway: true}
---
apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: alice, namespace: tenant-root}
spec: {gateway: true}
`;
const CHANGE = `apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: bob, namespace: tenant-root}
spec: {gateway: true}
`;
const VALUES =
  'publishing:\n  host: example.org\n  certificates: {solver: http01, issuerName: letsencrypt-prod}\ngateway:\n  enabled: true\n';

/** `n` ConfigMaps in alice's namespace: objects of the state that nothing in the change touches. */
function bystanders(n: number): string {
  return Array.from(
    { length: n },
    (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-${i}, namespace: tenant-alice}\ndata: {k: v${i}}\n`,
  ).join('---\n');
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-diff-one-read-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function must(args: string[]): Promise<string> {
  const r = await runCli(args, { cwd: dir });
  if (r.code !== 0 && r.code !== 3) throw new Error(`${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  fs.writeFileSync(path.join(dir, 'values.yaml'), VALUES);
  fs.writeFileSync(path.join(dir, 'tenants.yaml'), TENANTS);
  fs.writeFileSync(path.join(dir, 'bob.yaml'), CHANGE);
  const rendered = await must(['render', '--values', 'values.yaml', '-f', 'tenants.yaml']);
  fs.writeFileSync(path.join(dir, 'rendered.yaml'), rendered);
  for (const n of [50, 200]) {
    fs.writeFileSync(path.join(dir, `cms-${n}.yaml`), bystanders(n));
    const state = await must(stateArgs(['rendered.yaml', 'tenants.yaml', `cms-${n}.yaml`], NOW));
    fs.writeFileSync(path.join(dir, `state-${n}.yaml`), state);
  }
  await must(['render', '--values', 'values.yaml', '-f', 'tenants.yaml', '--output-dir', 'tree']);
}, 60_000);

/**
 * Every file the code under test opens or reads whole, by absolute path (null: not counting).
 * The sources import fs as a copy of its members (SWC's interop), so the module is wrapped where
 * it is resolved, for every importer of this test file's module registry.
 */
const mockOpened: { files: Map<string, number> | null } = { files: null };
function mockFs(): unknown {
  const actual = jest.requireActual<typeof import('node:fs')>('node:fs');
  // Counted when it succeeds: a probe that fails (readTree opening a file as a directory) reads nothing.
  const counted =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    (...a: A): R => {
      const r = f(...a);
      const files = mockOpened.files;
      if (files && typeof a[0] === 'string') files.set(path.resolve(a[0]), (files.get(path.resolve(a[0])) ?? 0) + 1);
      return r;
    };
  return { ...actual, openSync: counted(actual.openSync), readFileSync: counted(actual.readFileSync) };
}
jest.mock('node:fs', () => mockFs());
jest.mock('fs', () => mockFs());

/** Count the opens from now on, by path relative to `dir`. */
function countOpens(): (file: string) => number {
  const files = new Map<string, number>();
  mockOpened.files = files;
  return (file) => files.get(path.join(dir, file)) ?? 0;
}
afterEach(() => (mockOpened.files = null));

const diffArgs = (state: string) => [
  'diff',
  '--state',
  state,
  '--values',
  'values.yaml',
  '-f',
  'bob.yaml',
  '--now',
  NOW,
];

describe('diff reads the state once', () => {
  it('a state file: opened once for two controller passes', async () => {
    const opens = countOpens();
    const r = await runCli(diffArgs('state-50.yaml'), { cwd: dir });
    expect(r.code).toBe(3);
    expect({ file: 'state-50.yaml', opens: opens('state-50.yaml') }).toEqual({ file: 'state-50.yaml', opens: 1 });
  });

  it('a committed tree, --full: every object file opened once', async () => {
    const opens = countOpens();
    const r = await runCli([...diffArgs('tree'), '--full'], { cwd: dir });
    expect(r.code).toBe(3);
    const files = (fs.readdirSync(path.join(dir, 'tree'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
      .map((f) => path.join('tree', f));
    expect(files.length).toBeGreaterThan(5);
    // Named, each object file not read exactly once.
    const notOnce = files.map((f) => ({ file: f, opens: opens(f) })).filter((o) => o.opens !== 1);
    expect(notOnce).toEqual([]);
  });

  it('a committed tree, changed-only (docs/performance.md "Changed-only"): no object file opened twice', async () => {
    const opens = countOpens();
    const r = await runCli(diffArgs('tree'), { cwd: dir });
    expect(r.code).toBe(3);
    const files = (fs.readdirSync(path.join(dir, 'tree'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
      .map((f) => path.join('tree', f));
    const twice = files.map((f) => ({ file: f, opens: opens(f) })).filter((o) => o.opens > 1);
    expect(twice).toEqual([]);
  });
});

describe('the change pass reuses the parsed state: no copy of the whole state', () => {
  /** The state as the CLI reads it, and the change, through the pipeline itself. */
  function run(state: string) {
    const read = readInputs([path.join(dir, state)], { cwd: dir, flag: '--state' });
    const change = readInputs([path.join(dir, 'bob.yaml')], { cwd: dir });
    // Characters serialised, and objects handed to structuredClone: a copy of the state shows in both.
    const copies = { 'JSON.stringify characters': 0, 'structuredClone calls': 0 };
    const stringify = JSON.stringify;
    jest.spyOn(JSON, 'stringify').mockImplementation((...a: Parameters<typeof JSON.stringify>) => {
      const out = stringify(...a);
      copies['JSON.stringify characters'] += out?.length ?? 0;
      return out;
    });
    const structured = globalThis.structuredClone;
    jest
      .spyOn(globalThis, 'structuredClone')
      .mockImplementation(<T>(v: T, o?: Parameters<typeof structuredClone>[1]): T => {
        copies['structuredClone calls']++;
        return structured(v, o);
      });
    const result = diff(
      {
        state: read.objects,
        objects: change.objects,
        valuesFiles: [{ file: 'values.yaml', values: jsyaml.load(VALUES) as Record<string, unknown> }],
      },
      { now: NOW },
    );
    jest.restoreAllMocks();
    return { state: read.objects, result, copies };
  }

  it('both passes hold the very objects read from the state (those the change leaves alone)', () => {
    const { state, result } = run('state-50.yaml');
    expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(result.created.length).toBeGreaterThan(0);
    const alone = state.filter((o) => o.kind === 'ConfigMap');
    expect(alone.length).toBe(50);
    const baseline = new Map(result.before.map((o) => [keyOf(o), o]));
    const changePass = result.pass!.store;
    // Named, each object that is a copy in either pass (a re-read, a re-parse or a deep clone).
    const copied = alone
      .filter(
        (o) =>
          baseline.get(keyOf(o)) !== o || changePass.get('', 'ConfigMap', o.metadata.namespace, o.metadata.name) !== o,
      )
      .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(copied).toEqual([]);
  });

  it('no serialisation grows with the objects the change leaves alone (50 and 200 of them)', () => {
    const small = run('state-50.yaml').copies;
    const big = run('state-200.yaml').copies;
    expect(big).toEqual(small);
  });
});
