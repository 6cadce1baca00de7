/**
 * `cozy-gw diff` over each kind of state a user has (README "cozy-gw diff"), built with the CLI
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
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli, STACK_FRAME, TESTDATA } from '../helpers/cli';
import { golden as compare } from '../helpers/golden';

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
const scratch = { dir: '' };
afterAll(() => scratch.dir && fs.rmSync(scratch.dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await runCli(args, { cwd: scratch.dir });
  expect(r.stderr).not.toMatch(STACK_FRAME);
  return r;
}

async function must(args: string[]): Promise<string> {
  const r = await cli(args);
  if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  const dir = (scratch.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-diff-states-')));
  fs.cpSync(path.join(INPUTS, 'tenants'), path.join(dir, 'tenants'), { recursive: true });
  fs.cpSync(path.join(INPUTS, 'tenants'), path.join(dir, 'tenants-without-carol'), { recursive: true });
  fs.rmSync(path.join(dir, 'tenants-without-carol', 'carol.yaml'));
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
    await must([
      'reconcile',
      '--all',
      '--values',
      'values.yaml',
      '-f',
      'rendered.yaml',
      '-f',
      'tenants',
      '-f',
      'cluster-state.yaml',
      '--now',
      NOW,
    ]),
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
