/**
 * Every entry point carries the whole tenant (docs/tenant.md §1.1–§1.3; the README
 * commands render, fn and diff), judged by one oracle (test/helpers/wholeTenant.ts: the
 * RBAC, policies, quotas, module HelmReleases of each tenant and cozystack-basics' objects, read
 * from the Tenants given):
 * - `render` on stdout, and `--output-dir` (twice: the same tree, byte for byte);
 * - `render --with-controller`, on stdout and as a tree;
 * - `fn`: the committed output of the example kpt package (test/e2e/kptExample.test.ts proves
 *   `kpt fn render` writes exactly it, three runs in a row), and `kubectl kustomize` with the
 *   example's exec plugin (skipped, visibly, without kubectl);
 * - `diff`: a change to a tenant's `resourceQuotas`, or `etcd: true`, shows in the unified diff
 *   and in the plan, and re-rendering the inputs over their own tree shows nothing.
 * Behaviour through the CLI only, so the tests hold across rewrites of the commands.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import type { KObject } from '../../src/k8s/model';
import { ROOT, runCli } from '../helpers/cli';
import { ensureBuilt, runProcess, which } from '../helpers/kpt';
import { expectedWholeTenant, flagsOfTenants, wholeTenantOf } from '../helpers/wholeTenant';

const VALUES = path.join(ROOT, 'examples', 'platform', 'values.yaml');
const TENANTS = path.join(ROOT, 'examples', 'platform', 'tenants');
const NOW = '2026-01-01T00:00:00Z';

const docs = (text: string): KObject[] => (jsyaml.loadAll(text) as KObject[]).filter((o) => o && o.kind);
function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}
const treeObjects = (files: Record<string, string>) =>
  Object.entries(files)
    .filter(([f]) => /\.ya?ml$/.test(f) && path.basename(f) !== 'kustomization.yaml')
    .flatMap(([, t]) => docs(t));
const tenantsIn = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .flatMap((f) => docs(fs.readFileSync(path.join(dir, f), 'utf8')))
    .filter((o) => o.kind === 'Tenant');

/** The example platform's whole tenant: OIDC off, root monitoring on (the platform defaults). */
const EXPECTED = expectedWholeTenant(flagsOfTenants(tenantsIn(TENANTS)), { oidc: false });

let scratch = '';
beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'whole-tenant-'));
});
afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

async function cli(args: string[]) {
  const r = await runCli(args, { cwd: scratch });
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
  return r;
}

describe('render carries the whole tenant', () => {
  it('on stdout: every tenant of the example gets its RBAC, policies, quotas and module HelmReleases', async () => {
    const r = await cli(['render', '--values', VALUES, '-f', TENANTS]);
    expect(r.code).toBe(0);
    expect(wholeTenantOf(docs(r.stdout))).toEqual(EXPECTED);
    // Not vacuous: the example enables modules and a quota (docs/tenant.md §1.3, §2.3).
    expect(EXPECTED).toEqual(
      expect.arrayContaining([
        'helm.toolkit.fluxcd.io/v2 HelmRelease tenant-alice/etcd',
        'v1 ResourceQuota tenant-alice/tenant-quota',
        'cilium.io/v2 CiliumClusterwideNetworkPolicy /tenant-alice-dev-ingress-ingress',
      ]),
    );
  });

  it('--output-dir twice gives the same tree, byte for byte, holding every whole-tenant object', async () => {
    const out = path.join(scratch, 'deploy');
    const a = await cli(['render', '--values', VALUES, '-f', TENANTS, '--output-dir', out]);
    expect(a.code).toBe(0);
    const first = readTree(out);
    const b = await cli(['render', '--values', VALUES, '-f', TENANTS, '--output-dir', out]);
    expect(b.code).toBe(0);
    expect(readTree(out)).toEqual(first);
    expect(wholeTenantOf(treeObjects(first))).toEqual(EXPECTED);
    // The kustomization lists every object file the tree holds.
    const listed = (jsyaml.load(first['kustomization.yaml']) as { resources: string[] }).resources.sort();
    const files = Object.keys(first)
      .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
      .sort();
    expect(listed).toEqual(files);
  });

  it('--with-controller: on stdout and as a tree, beside the controller objects', async () => {
    const r = await cli(['render', '--values', VALUES, '-f', TENANTS, '--with-controller', '--now', NOW]);
    expect(r.code).toBe(0);
    const objs = docs(r.stdout);
    expect(wholeTenantOf(objs)).toEqual(EXPECTED);
    expect(objs.filter((o) => o.kind === 'Gateway').length).toBe(3);
    const out = path.join(scratch, 'gitops');
    const t = await cli(['render', '--values', VALUES, '-f', TENANTS, '--with-controller', '--output-dir', out]);
    expect(t.code).toBe(0);
    expect(wholeTenantOf(treeObjects(readTree(out)))).toEqual(EXPECTED);
  });
});

describe('fn carries the whole tenant', () => {
  it('the example kpt package: what `kpt fn render` writes (committed under cozy-gw/) is the whole tenant', () => {
    const pkg = path.join(ROOT, 'examples', 'fn');
    const generated = readTree(path.join(pkg, 'cozy-gw'));
    // Committed as a user's kpt writes it: the default Cozystack version, a release (docs/versions.md §T5).
    const expected = expectedWholeTenant(flagsOfTenants(tenantsIn(pkg)), { oidc: false, release: true });
    expect(wholeTenantOf(treeObjects(generated))).toEqual(expected);
    expect(expected.length).toBeGreaterThan(100);
  });

  const KUBECTL = which('kubectl');
  (KUBECTL ? it : it.skip)(
    `kubectl kustomize with the example's exec plugin${KUBECTL ? '' : ' (kubectl not on PATH: skipped)'}`,
    () => {
      ensureBuilt();
      const example = path.join(ROOT, 'examples', 'kustomize');
      const r = runProcess(KUBECTL!, ['kustomize', '--enable-alpha-plugins', example], {
        env: {
          PATH: `${path.join(ROOT, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
          KUSTOMIZE_PLUGIN_HOME: path.join(example, 'plugin'),
        },
      });
      if (r.code !== 0) throw new Error(`kubectl kustomize exited ${r.code}:\n${r.stderr}`);
      expect(wholeTenantOf(docs(r.stdout))).toEqual(
        expectedWholeTenant(flagsOfTenants(tenantsIn(example)), { oidc: false }),
      );
    },
    180_000,
  );
});

describe('diff carries the whole tenant', () => {
  /**
   * The example's Tenants (its cluster-state.yaml left out: routes and namespaces a tree does not
   * hold) copied to change, and rendered into a tree: the committed state.
   */
  async function stateAndChange(): Promise<{ state: string; tenants: string }> {
    const tenants = path.join(scratch, 'tenants');
    fs.mkdirSync(tenants);
    for (const f of ['root.yaml', 'alice.yaml', 'bob.yaml', 'carol.yaml'])
      fs.copyFileSync(path.join(TENANTS, f), path.join(tenants, f));
    const state = path.join(scratch, 'state');
    expect((await cli(['render', '--values', VALUES, '-f', tenants, '--output-dir', state])).code).toBe(0);
    return { state, tenants };
  }
  const diff = (state: string, tenants: string, extra: string[] = []) =>
    cli(['diff', '--state', state, '--values', VALUES, '-f', tenants, ...extra]);

  // The whole command's "no difference" over a committed tree is the
  // diff rewrite's to pin; this holds the whole tenant's part of it: none of its objects differs.
  it('re-rendering the inputs over their own tree shows no whole-tenant object as different', async () => {
    const { state, tenants } = await stateAndChange();
    const r = await diff(state, tenants);
    expect(r.code === 0 || r.code === 3).toBe(true);
    const kinds =
      /^(?:---|\+\+\+) (ServiceAccount|RoleBinding|Role|ClusterRole|CiliumNetworkPolicy|CiliumClusterwideNetworkPolicy|ResourceQuota|LimitRange|KeycloakRealmGroup|HelmRelease|Service) .*$/gm;
    expect(r.stdout.match(kinds) ?? []).toEqual([]);
  });

  it('a change to resourceQuotas shows in the unified diff and in the plan', async () => {
    const { state, tenants } = await stateAndChange();
    const alice = path.join(tenants, 'alice.yaml');
    fs.writeFileSync(
      alice,
      fs.readFileSync(alice, 'utf8').replace('  resourceQuotas:\n', '  resourceQuotas:\n    cpu: "4"\n'),
    );
    const r = await diff(state, tenants);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^--- ResourceQuota tenant-alice\/tenant-quota/m);
    expect(r.stdout).toMatch(/^\+ {4}limits\.cpu: "4"$/m);
    expect(r.stdout).toMatch(/^\+ {4}requests\.cpu: "0\.4"$/m);
    const plan = await diff(state, tenants, ['-o', 'plan']);
    expect(plan.code).toBe(3);
    expect(plan.stdout).toMatch(/ResourceQuota tenant-alice\/tenant-quota/);
    expect(plan.stdout).toMatch(/limits\.cpu/);
  });

  it('etcd: true shows as the etcd HelmRelease, its policy and the namespace labels, in the unified diff and in the plan', async () => {
    const { state, tenants } = await stateAndChange();
    const bob = path.join(tenants, 'bob.yaml');
    fs.writeFileSync(bob, fs.readFileSync(bob, 'utf8').replace('  gateway: true\n', '  gateway: true\n  etcd: true\n'));
    const r = await diff(state, tenants);
    expect(r.code).toBe(3);
    for (const head of [
      /^\+\+\+ HelmRelease tenant-bob\/etcd/m,
      /^\+\+\+ CiliumClusterwideNetworkPolicy tenant-bob-ingress-etcd/m,
      /^--- Namespace tenant-bob-shop/m,
    ])
      expect(r.stdout).toMatch(head);
    expect(r.stdout).toMatch(/^\+ {4}namespace\.cozystack\.io\/etcd: tenant-bob$/m);
    const plan = await diff(state, tenants, ['-o', 'plan']);
    expect(plan.code).toBe(3);
    expect(plan.stdout).toMatch(/create HelmRelease tenant-bob\/etcd/);
    expect(plan.stdout).toMatch(/create CiliumClusterwideNetworkPolicy tenant-bob-ingress-etcd/);
  });
});
