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
