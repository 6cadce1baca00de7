/**
 * `cozy-gw diff` over each kind of state a user has (docs/commands/diff.md), built with the CLI
 * itself as a user builds it, so the goldens regenerate with the tool:
 *   reconcile        render, then `reconcile --all` over it, the Tenants and the cluster state (a snapshot's stand-in)
 *   tree             `render --output-dir` (what render owns, nothing else)
 *   tree-controller  `render --with-controller --output-dir` with the cluster state
 * times the changes a pull request makes:
 *   no-change        the same Tenants again: exit 0, nothing printed
 *   own-gateway      alice given her own Gateway
 *   prune            carol's Tenant removed, with --prune
 *   dns01            the platform moved from http01 to dns01
 * Goldens: testdata/golden/diff-states/<state>/<change>/{expected,stderr,exit}; every case runs
 * twice (byte-identical); `UPDATE_GOLDEN=1 npx jest test/e2e/diffStates` rewrites them.
 *
 * The pipe case, over the same states in real processes: `diff | head -c1` under pipefail.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scratchCli, stateArgs, STACK_FRAME, TESTDATA } from '../helpers/cli';
import { golden as compare } from '../helpers/golden';
import { BIN, ensureBuilt } from '../helpers/kpt';

const UPDATE = Boolean(process.env.UPDATE_GOLDEN);
const NOW = '2026-01-01T00:00:00Z';
const INPUTS = path.join(TESTDATA, 'golden', 'diff', '_inputs');
const GOLDEN = path.join(TESTDATA, 'golden', 'diff-states');

const STATES = ['reconcile', 'tree', 'tree-controller'] as const;
type StateKind = (typeof STATES)[number];

const CHANGES: Record<string, { args: string[]; exit: number }> = {
  'no-change': { args: ['--values', 'values.yaml', '-f', 'tenants'], exit: 0 },
  'own-gateway': { args: ['--values', 'values.yaml', '-f', 'alice-gateway.yaml', '-o', 'plan'], exit: 3 },
  prune: { args: ['--values', 'values.yaml', '-f', 'tenants-without-carol', '--prune', '-o', 'plan'], exit: 3 },
  dns01: {
    args: ['--values', 'values.yaml', '--values', 'values-dns01.yaml', '-f', 'tenants', '-o', 'plan'],
    exit: 3,
  },
};

/** One scratch directory for the whole file: the states are built once. */
const { scratch, make, cli, must } = scratchCli('cozy-gw-diff-states-');

beforeAll(async () => {
  const dir = make();
  fs.cpSync(path.join(INPUTS, 'tenants'), path.join(dir, 'tenants'), { recursive: true });
  fs.cpSync(path.join(INPUTS, 'tenants'), path.join(dir, 'tenants-without-carol'), { recursive: true });
  fs.rmSync(path.join(dir, 'tenants-without-carol', 'carol.yaml'));
  // The pipe case's change: 40 child tenants of alice, each with its own Gateway (output far
  // beyond a pipe buffer, 64 KiB, in the unified diff and the plan).
  fs.writeFileSync(
    path.join(dir, 'many-tenants.yaml'),
    Array.from(
      { length: 40 },
      (_, i) =>
        `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: c${i}, namespace: tenant-alice}\nspec: {gateway: true}\n`,
    ).join('---\n'),
  );
  for (const f of ['values.yaml', 'values-dns01.yaml', 'cluster-state.yaml'])
    fs.copyFileSync(path.join(INPUTS, f), path.join(dir, f));
  fs.copyFileSync(
    path.join(TESTDATA, 'golden', 'diff', 'own-gateway', 'alice.yaml'),
    path.join(dir, 'alice-gateway.yaml'),
  );
  // The states, as a user makes them.
  fs.writeFileSync(path.join(dir, 'rendered.yaml'), await must(['render', '--values', 'values.yaml', '-f', 'tenants']));
  fs.writeFileSync(
    path.join(dir, 'reconcile.yaml'),
    await must(stateArgs(['rendered.yaml', 'tenants', 'cluster-state.yaml'], NOW)),
  );
  await must(['render', '--values', 'values.yaml', '-f', 'tenants', '--output-dir', 'tree']);
  await must([
    'render',
    '--values',
    'values.yaml',
    '-f',
    'tenants',
    '-f',
    'cluster-state.yaml',
    '--with-controller',
    '--now',
    NOW,
    '--output-dir',
    'tree-controller',
  ]);
}, 120_000);

const stateArg = (s: StateKind) => (s === 'reconcile' ? 'reconcile.yaml' : s);

describe('diff over each kind of state', () => {
  for (const state of STATES) {
    for (const [change, c] of Object.entries(CHANGES)) {
      it(`${state} × ${change}`, async () => {
        const args = ['diff', '--state', stateArg(state), ...c.args, '--now', NOW];
        const first = await cli(args);
        const second = await cli(args);
        expect(second).toEqual(first);
        if (first.code !== c.exit) throw new Error(`exit ${first.code}, want ${c.exit}\n${first.stderr}`);
        if (change === 'no-change') expect(first.stdout).toBe('');
        const dir = path.join(GOLDEN, state, change);
        if (UPDATE) fs.mkdirSync(dir, { recursive: true });
        const print = (t: string) => process.stdout.write(t);
        compare(path.join(dir, 'expected'), first.stdout, {
          update: UPDATE,
          print,
          name: `${state}/${change}/expected`,
        });
        compare(path.join(dir, 'stderr'), first.stderr, { update: UPDATE, print, name: `${state}/${change}/stderr` });
      });
    }
  }

  it('a plain tree: a change that keeps tenant-root’s Gateway never deletes the platform TenantGateway', async () => {
    for (const s of STATES) {
      const r = await cli(['diff', '--state', stateArg(s), ...CHANGES['own-gateway'].args.slice(0, 4), '-o', 'json']);
      const out = JSON.parse(r.stdout) as { deleted: { kind: string; metadata: { namespace?: string } }[] };
      const platform = out.deleted.filter((o) => o.kind === 'TenantGateway' && o.metadata.namespace === 'tenant-root');
      expect({ state: s, deleted: platform }).toEqual({ state: s, deleted: [] });
    }
  });

  it('--prune is whole: everything in the removed Namespace goes, whether the change holds it or not', async () => {
    for (const s of STATES) {
      // The change holds carol's route too (the cluster state file is given with the tenants).
      const r = await cli([
        'diff',
        '--state',
        stateArg(s),
        '--values',
        'values.yaml',
        '-f',
        'tenants-without-carol',
        '-f',
        'cluster-state.yaml',
        '--prune',
        '-o',
        'json',
      ]);
      const out = JSON.parse(r.stdout) as {
        created: { kind: string; metadata: { name: string; namespace?: string } }[];
        changed: { after: { kind: string; metadata: { name: string; namespace?: string } } }[];
        deleted: { kind: string; metadata: { name: string; namespace?: string } }[];
      };
      const inCarol = (o: { metadata: { name: string; namespace?: string } }) =>
        o.metadata.namespace === 'tenant-carol' || o.metadata.name === 'tenant-carol';
      const survivors = [...out.created, ...out.changed.map((c) => c.after)].filter(inCarol).map((o) => o.kind);
      expect({ state: s, survivors }).toEqual({ state: s, survivors: [] });
      const deleted = out.deleted.filter(inCarol).map((o) => `${o.kind} ${o.metadata.name}`);
      expect({ state: s, deleted }).toEqual({ state: s, deleted: expect.arrayContaining(['Namespace tenant-carol']) });
      if (s !== 'tree') expect(deleted).toContain('HTTPRoute blog');
    }
  });
});

/**
 * The exit status survives the pipe (docs/commands/diff.md): a gate that pipes the output under
 * `set -o pipefail` sees 3 for differences, 0 for none, whatever the reader does. For each state kind × output format, in real processes through bash:
 *   head -c1   the reader leaves after one byte; the unified diff and the plan (over 100 KiB here)
 *              meet the closed pipe mid-write
 *   head -c0   the reader is gone before the first byte, so every format, the markdown comment
 *              too (at most 65,536 characters, it fits a pipe buffer), writes into a closed pipe
 * and the change that changes nothing (the same Tenants), piped into cat, exits 0 and prints
 * nothing as a unified diff (the plan and the comment say "no differences").
 */
describe('the pipe case: diff | head under pipefail keeps the verdict', () => {
  const FORMATS = { diff: [], plan: ['-o', 'plan'], markdown: ['-o', 'markdown'] } as const;
  type Format = keyof typeof FORMATS;
  interface PipeCase {
    name: string;
    state: StateKind;
    format: Format;
    change: 'differences' | 'no-change';
    reader: string;
    exit: number;
  }
  /**
   * What no change prints: nothing as a unified diff (as kubectl diff); the plan and the comment
   * say so in words (the CI example's comment replaces an earlier one with it).
   */
  const NOTHING: Record<Format, unknown> = {
    diff: '',
    plan: expect.stringContaining('\nNo differences: the change leaves the state as it is.\n'),
    markdown: expect.stringMatching(/^### cozy-gw diff: no differences\n/),
  };
  const cases: PipeCase[] = [];
  for (const state of STATES)
    for (const format of Object.keys(FORMATS) as Format[]) {
      for (const reader of ['head -c1', 'head -c0'])
        cases.push({ name: `${state} × ${format} × ${reader}`, state, format, change: 'differences', reader, exit: 3 });
      cases.push({
        name: `${state} × ${format} × no change`,
        state,
        format,
        change: 'no-change',
        reader: 'cat',
        exit: 0,
      });
    }

  interface Outcome {
    writer: string;
    pipeline: string;
    stdout: string;
    stderr: string;
  }
  const outcomes = new Map<string, Outcome>();

  function script(c: PipeCase): string {
    const change = c.change === 'differences' ? ['-f', 'tenants', '-f', 'many-tenants.yaml'] : ['-f', 'tenants'];
    const args = [
      'diff',
      '--state',
      stateArg(c.state),
      '--values',
      'values.yaml',
      ...change,
      ...FORMATS[c.format],
      '--now',
      NOW,
    ];
    // The writer's status and the pipeline's, as a gate under pipefail sees it; head's output is the case's stdout.
    return `node ${BIN} ${args.join(' ')} 2>stderr-${cases.indexOf(c)} | ${c.reader}; echo "<writer=\${PIPESTATUS[0]} pipeline=$?>"`;
  }

  function runCase(c: PipeCase): Promise<void> {
    return new Promise((resolve, reject) => {
      // The suite's version (test/setupVersion.ts): a child gets the worker's own environment unless
      // given this test's, and the states were built as main.
      const p = spawn('bash', ['-o', 'pipefail', '-c', script(c)], { cwd: scratch.dir, env: { ...process.env } });
      let out = '';
      p.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      p.on('error', reject);
      p.on('close', () => {
        const m = /<writer=(\d+) pipeline=(\d+)>\n$/.exec(out);
        const stderr = fs.readFileSync(path.join(scratch.dir, `stderr-${cases.indexOf(c)}`), 'utf8');
        outcomes.set(c.name, {
          writer: m?.[1] ?? '?',
          pipeline: m?.[2] ?? '?',
          stdout: m ? out.slice(0, m.index) : out,
          stderr,
        });
        resolve();
      });
    });
  }

  beforeAll(async () => {
    ensureBuilt();
    // Two at a time (the machine's cores), every case in its own process.
    const queue = [...cases];
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift()) await runCase(c);
    };
    await Promise.all([worker(), worker()]);
  }, 180_000);

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const o = outcomes.get(c.name)!;
    // The case's name in every comparison: a failure says which state, format and reader.
    expect({ case: c.name, writer: o.writer, pipeline: o.pipeline }).toEqual({
      case: c.name,
      writer: String(c.exit),
      pipeline: String(c.exit),
    });
    expect({ case: c.name, stackOrEpipe: STACK_FRAME.test(o.stderr) || /EPIPE/.test(o.stderr) }).toEqual({
      case: c.name,
      stackOrEpipe: false,
    });
    const printed =
      c.change === 'no-change' ? NOTHING[c.format] : c.reader === 'head -c0' ? '' : expect.stringMatching(/^[^]$/); // the one byte head passed on
    expect({ case: c.name, stdout: o.stdout }).toEqual({ case: c.name, stdout: printed });
  });
});
