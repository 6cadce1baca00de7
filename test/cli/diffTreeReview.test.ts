/**
 * A pull request reviewed against a committed tree (`diff --state DIR` of a `render --output-dir`
 * tree), as the CI example runs it (docs/commands/diff.md "What it does"):
 * - the author's Tenant edit shows first, as against a state that holds Tenants
 *   (`~ change Tenant tenant-root/alice`, `+ spec.gateway: true`), with the same counts;
 * - the tree's expected controller drift is no alarm in the comment or on the page;
 * - the tree's record keeps a digest of the platform values it was rendered with, and diff says
 *   when the change's values differ from them, or are missing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXAMPLE_DIFF, MIN_VALUES, ROOT, ROOT_TENANT, runCli, STACK_FRAME } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';
import { parseRecord, recordBytes, type TreeMaking } from '../../src/io/treeRecord';

let dir = '';
beforeAll(() => {
  dir = tmpDir('diff-tree-review');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cli = async (args: string[], cwd = dir) => {
  // As the CI example runs it: no Cozystack version chosen, so the default, the example's (not the suite's main).
  const r = await runCli(args, { cwd, env: { COZY_GW_COZYSTACK_VERSION: '' } });
  expect(r.stderr).not.toMatch(STACK_FRAME);
  return r;
};
const VALUES = path.join(ROOT, 'examples/platform/values.yaml');
const TENANTS = path.join(ROOT, 'examples/platform/tenants');

describe("the author's edit against a committed tree", () => {
  beforeAll(async () => {
    // The tree is rendered from an alice who does not set gateway (the example's says false), then she sets it.
    fs.cpSync(TENANTS, path.join(dir, 'tenants'), { recursive: true });
    const alice = path.join(dir, 'tenants', 'alice.yaml');
    const unset = fs.readFileSync(alice, 'utf8').replace(/^ {2}gateway: false.*\n/m, '');
    expect(unset).not.toMatch(/^ {2}gateway:/m);
    fs.writeFileSync(alice, unset);
    const w = await cli(['render', '--values', VALUES, '-f', 'tenants', '--output-dir', 'deploy']);
    expect(w.code).toBe(0);
    fs.cpSync(path.join(dir, 'tenants'), path.join(dir, 'tenants-as-rendered'), { recursive: true });
    fs.writeFileSync(alice, unset.replace(/^ {2}etcd: true$/m, '  gateway: true\n  etcd: true'));
  });
  const change = ['diff', '--state', 'deploy', '--values', VALUES, '-f', 'tenants'];

  it('the plan opens with the Tenant change as given, and counts what a state holding the Tenants counts', async () => {
    const tree = await cli([...change, '-o', 'plan']);
    expect(tree.code).toBe(3);
    const lines = tree.stdout.split('\n');
    const at = lines.indexOf('The change as given:');
    expect(lines.slice(at, at + 3)).toEqual([
      'The change as given:',
      '  ~ change Tenant tenant-root/alice',
      '      + spec.gateway: true',
    ]);
    expect(at).toBeLessThan(lines.findIndex((l) => l.startsWith('Hostnames:')));
    // The same change against the example's reconcile state counts the same objects.
    const state = await cli([...EXAMPLE_DIFF, '-o', 'plan'], ROOT);
    const counts = (text: string) => text.split('\n').find((l) => / objects to create, /.test(l));
    expect(counts(tree.stdout)).toBe(counts(state.stdout));
    expect(counts(tree.stdout)).toBe('4 objects to create, 9 to change, 2 to delete; 1 warning, 1 Cilium note.');
    // The Tenant is listed once: first, not again in its namespace's group.
    expect(lines.filter((l) => l.includes('Tenant tenant-root/alice'))).toHaveLength(1);
  });

  it('the unified diff and the JSON hold the Tenant change too', async () => {
    const unified = await cli(change);
    expect(unified.stdout).toContain('--- Tenant tenant-root/alice (state)');
    expect(unified.stdout).toContain('+  gateway: true');
    const json = JSON.parse((await cli([...change, '-o', 'json'])).stdout) as {
      changed: { after: { kind: string } }[];
    };
    expect(json.changed.filter((c) => c.after.kind === 'Tenant')).toHaveLength(1);
  });

  it("the comment and the page show the edit first and no drift alarm for the tree's missing controller objects", async () => {
    const md = await cli([...change, '-o', 'markdown']);
    const head = md.stdout.split('**The tenant tree**')[0];
    expect(head).toContain('**The change as given:**');
    expect(head).toContain(
      '<code>&#126; change Tenant tenant-root/alice</code>: <code>+ spec&#46;gateway&#58; true</code>',
    );
    expect(md.stdout).not.toMatch(/controller pass/);
    // stderr still counts it, as expected of a tree.
    expect(md.stderr).toMatch(
      /^note: the state is a tree render wrote; one controller pass over it alone changes \d+ objects/m,
    );
    const page = (await cli([...change, '-o', 'html'])).stdout;
    expect(page).toContain('<section id="given"><h2>The change as given</h2>');
    expect(page.indexOf('id="given"')).toBeLessThan(page.indexOf('id="tree"'));
    expect(page).not.toMatch(/controller pass/);
  });

  it('the tree re-rendered from the same Tenants is still no difference', async () => {
    const same = await cli(['diff', '--state', 'deploy', '--values', VALUES, '-f', 'tenants-as-rendered']);
    expect({ code: same.code, stdout: same.stdout }).toEqual({ code: 0, stdout: '' });
  });
});

describe("the tree's platform values", () => {
  const sub = path.join('values-case');
  beforeAll(async () => {
    fs.mkdirSync(path.join(dir, sub));
    fs.writeFileSync(path.join(dir, sub, 'values.yaml'), MIN_VALUES.replace('example.org', 'acme.io'));
    fs.writeFileSync(path.join(dir, sub, 'root.yaml'), ROOT_TENANT);
    const w = await cli(
      ['render', '--values', 'values.yaml', '-f', 'root.yaml', '--output-dir', 'deploy'],
      path.join(dir, sub),
    );
    expect(w.code).toBe(0);
  });
  const at = () => path.join(dir, sub);

  it('the record keeps their digest, and the same values are no difference and no note', async () => {
    const record = parseRecord(fs.readFileSync(path.join(at(), 'deploy', '.cozy-gw-files')))!;
    expect(record.making?.values).toMatch(/^[0-9a-f]{64}$/);
    const r = await cli(['diff', '--state', 'deploy', '--values', 'values.yaml', '-f', 'root.yaml'], at());
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '' });
    expect(r.stderr).not.toMatch(/values/);
  });

  it('diff without --values: a note says the tree was rendered with values and none are given', async () => {
    const r = await cli(['diff', '--state', 'deploy', '-f', 'root.yaml', '-o', 'plan'], at());
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toBe(
      "note: no --values given, but --state deploy was rendered with platform values (its record keeps their digest): the change is rendered on the charts' defaults, so what differs includes the values left out; give --values as the tree was rendered",
    );
    // And the plan opens with it, under the change as given.
    expect(r.stdout).toMatch(
      /\nThe change as given:\n {2}No --values given, but --state deploy was rendered with platform values/,
    );
  });

  it('other values: a note says they differ from those the tree was rendered with', async () => {
    const r = await cli(
      ['diff', '--state', 'deploy', '--values', 'values.yaml', '--set', 'publishing.host=other.io', '-f', 'root.yaml'],
      at(),
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      'note: the platform values differ from those --state deploy was rendered with (its record keeps their digest): what differs includes the values change',
    );
  });

  it('the digest line is additive: a record without it is read, and says nothing of values', () => {
    const record = (making: TreeMaking) =>
      parseRecord(recordBytes({ format: 'yaml', making, releases: [], kustomization: 'k'.repeat(64) }))!;
    const withValues = record({ shape: {}, tenants: [], values: 'a'.repeat(64) });
    expect(withValues.making).toEqual({ shape: {}, tenants: [], values: 'a'.repeat(64) });
    const without = record({ shape: {}, tenants: [] });
    expect(without.making).toEqual({ shape: {}, tenants: [] });
    expect(without.format).toBe(4);
  });
});
