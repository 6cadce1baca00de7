/**
 * The Tenants a changed-only plan walks (src/diff/changedOnly.ts walkedTenants): those whose object
 * differs from the tree's, those below them, below a Tenant gone or a namespace the change names, and
 * those above all of these; the others keep the record's releases. And a tree rendered with Namespace
 * uids (which the Tenants do not show, and the releases' digests hold) is planned by walking every
 * Tenant: a changed-only diff without those Namespaces prints what the whole diff prints.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { KObject } from '../../src/k8s/model';
import { walkedTenants } from '../../src/diff/changedOnly';
import { ROOT, runCli, STACK_FRAME } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';
import { COZYSTACK_VERSIONS } from '../../src/platform/cozystackVersions';
import * as treeDiff from '../../src/cli/treeDiff';

// The CLI's changed-only diff, watched: whether it ran or fell back to the whole platform.
jest.mock('../../src/cli/treeDiff', () => {
  const actual = jest.requireActual('../../src/cli/treeDiff');
  return { ...actual, changedOnlyDiff: jest.fn(actual.changedOnlyDiff) };
});

const tenant = (name: string, namespace: string, spec: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name, namespace }, spec }) as KObject;

// root; a and b under tenant-root; a's child x and x's child y; b's child z.
const TREE = [
  tenant('root', 'tenant-root'),
  tenant('a', 'tenant-root'),
  tenant('b', 'tenant-root'),
  tenant('x', 'tenant-a'),
  tenant('y', 'tenant-a-x'),
  tenant('z', 'tenant-b'),
];
const copy = () => TREE.map((t) => JSON.parse(JSON.stringify(t)) as KObject);
const names = (ts: KObject[] | undefined) => (ts ?? []).map((t) => `${t.metadata.namespace}/${t.metadata.name}`).sort();

describe('walkedTenants', () => {
  it('nothing changed: tenant-root alone is walked, every other Tenant keeps its release', () => {
    const r = walkedTenants(copy(), TREE, new Set());
    expect(names(r?.walk)).toEqual(['tenant-root/root']);
    expect(names(r?.kept)).toEqual(names(TREE.slice(1)));
  });

  it('a Tenant changed: it, the Tenants below it and those above it', () => {
    const after = copy();
    after[3].spec = { resourceQuotas: { cpu: '4' } }; // x
    expect(names(walkedTenants(after, TREE, new Set())?.walk)).toEqual([
      'tenant-a-x/y',
      'tenant-a/x',
      'tenant-root/a',
      'tenant-root/root',
    ]);
  });

  it('a Tenant added or gone: the Tenants below a gone one are walked (they have lost their parent)', () => {
    const added = [...copy(), tenant('w', 'tenant-b-z')];
    expect(names(walkedTenants(added, TREE, new Set())?.walk)).toEqual([
      'tenant-b-z/w',
      'tenant-b/z',
      'tenant-root/b',
      'tenant-root/root',
    ]);
    const gone = copy().filter((t) => t.metadata.name !== 'x');
    expect(names(walkedTenants(gone, TREE, new Set())?.walk)).toEqual(['tenant-a-x/y', 'tenant-root/root']);
  });

  it('a namespace the change names otherwise: the Tenants below it and above it', () => {
    expect(names(walkedTenants(copy(), TREE, new Set(['tenant-b']))?.walk)).toEqual([
      'tenant-b/z',
      'tenant-root/b',
      'tenant-root/root',
    ]);
  });

  it("tenant-root's own Tenant changed: every Tenant (undefined)", () => {
    const after = copy();
    after[0].spec = { gateway: true };
    expect(walkedTenants(after, TREE, new Set())).toBeUndefined();
  });
});

describe('a tree rendered with Namespace uids', () => {
  let dir = '';
  beforeAll(() => {
    dir = tmpDir('walked-tenants');
    fs.cpSync(path.join(ROOT, 'examples/platform/tenants'), path.join(dir, 'tenants'), { recursive: true });
    fs.rmSync(path.join(dir, 'tenants/cluster-state.yaml'), { force: true });
    fs.writeFileSync(
      path.join(dir, 'namespaces.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-bob\n  uid: 6f1c9a3e-2b7d-4e58-9c0a-1d2e3f405162\n',
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a diff without those Namespaces shows what the whole diff shows: the owner references that lose their uid', async () => {
    const values = path.join(ROOT, 'examples/platform/values.yaml');
    const write = await runCli(
      ['render', '--values', values, '-f', 'tenants', '-f', 'namespaces.yaml', '--output-dir', 'tree', '-q'],
      { cwd: dir },
    );
    expect([write.code, write.stderr]).toEqual([0, expect.not.stringMatching(STACK_FRAME)]);
    expect(fs.readFileSync(path.join(dir, 'tree/.cozy-gw-files'), 'utf8')).toContain('"uids":true');
    const diff = (extra: string[]) =>
      runCli(['diff', '-o', 'plan', '--state', 'tree', '--values', values, '-f', 'tenants', ...extra], { cwd: dir });
    const [part, whole] = [await diff([]), await diff(['--full'])];
    expect(whole.stdout).toContain('tenant-bob-shop');
    expect([part.code, part.stdout, part.stderr]).toEqual([whole.code, whole.stdout, whole.stderr]);
  });
});

// The plan walks the part of the tenant tree a change reaches under every version cozy-gw reproduces:
// a quota added below bob (shop), and bob's own Tenant changed (shop below it), each diffed
// changed-only and whole, the same bytes; and the changed-only diff ran, not falling back.
describe.each(COZYSTACK_VERSIONS.map((v) => v.name))('a change below a tenant, Cozystack %s', (version) => {
  let dir = '';
  const values = path.join(ROOT, 'examples/platform/values.yaml');
  beforeAll(async () => {
    dir = tmpDir('walked-tenants-version');
    fs.cpSync(path.join(ROOT, 'examples/platform/tenants'), path.join(dir, 'tenants'), { recursive: true });
    fs.rmSync(path.join(dir, 'tenants/cluster-state.yaml'), { force: true });
    const r = await runCli(
      ['render', '--cozystack-version', version, '--values', values, '-f', 'tenants', '--output-dir', 'tree', '-q'],
      { cwd: dir },
    );
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringMatching(STACK_FRAME)]);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each([
    [
      'a quota added to shop',
      (t: string) => t.replace(/name: shop\n(.*\n)spec: \{\}/, 'name: shop\n$1spec:\n  resourceQuotas:\n    cpu: "4"'),
    ],
    ['bob made Gateway-less', (t: string) => t.replace('  gateway: true', '  gateway: false')],
  ])('%s: the changed-only diff prints what the whole diff prints', async (_name, edit) => {
    const bob = path.join(dir, 'tenants/bob.yaml');
    const was = fs.readFileSync(bob, 'utf8');
    const changed = edit(was);
    expect(changed).not.toBe(was);
    fs.writeFileSync(bob, changed);
    try {
      const diff = (extra: string[]) =>
        runCli(
          [
            'diff',
            '--cozystack-version',
            version,
            '-o',
            'plan',
            '--state',
            'tree',
            '--values',
            values,
            '-f',
            'tenants',
            ...extra,
          ],
          { cwd: dir },
        );
      const planned = treeDiff.changedOnlyDiff as jest.MockedFunction<typeof treeDiff.changedOnlyDiff>;
      planned.mockClear();
      const part = await diff([]);
      const ran = planned.mock.results.map((r) => ('result' in r.value ? 'changed-only' : r.value.full));
      const whole = await diff(['--full']);
      expect(whole.stdout).toContain('tenant-bob-shop');
      expect([part.code, part.stdout]).toEqual([whole.code, whole.stdout]);
      // And it ran changed-only, not falling back to the whole platform.
      expect(ran).toEqual(['changed-only']);
    } finally {
      fs.writeFileSync(bob, was);
    }
  });
});
