/**
 * `cozy-gw render` with the whole tenant, through the CLI: a tree written twice is the same tree,
 * the new flags (`--gateway-only`, `--include-hooks`, `--api-versions`) and their help, and the
 * one note on the hooks left out (docs/decisions.md §Q5). Needs `npm run build`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { EXAMPLE_INPUTS, runCli, ROOT } from '../helpers/cli';
import type { KObject } from '../../src/k8s/model';

/** Every file under dir (the record included), by relative path, with its bytes. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of fs.readdirSync(dir, { recursive: true }).map(String).sort()) {
    const p = path.join(dir, f);
    if (fs.statSync(p).isFile()) out.set(f, fs.readFileSync(p, 'utf8'));
  }
  return out;
}

describe('render --output-dir with the whole tenant', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-whole-tenant-'));
  });
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('twice gives an identical tree, into a fresh directory or over the first', async () => {
    const a = path.join(scratch, 'a');
    const b = path.join(scratch, 'b');
    const first = await runCli(['render', ...EXAMPLE_INPUTS, '--output-dir', a], { cwd: ROOT });
    expect(first.code).toBe(0);
    const once = tree(a);
    expect((await runCli(['render', ...EXAMPLE_INPUTS, '--output-dir', b], { cwd: ROOT })).code).toBe(0);
    expect(tree(b)).toEqual(once);
    const again = await runCli(['render', ...EXAMPLE_INPUTS, '--output-dir', a], { cwd: ROOT });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/removed/);
    expect(tree(a)).toEqual(once);
    // The whole tenant is in it: the cluster-scoped objects too.
    const files = [...once.keys()];
    for (const f of [
      'tenant-alice/rolebinding-cozy_3a_tenant.yaml',
      'tenant-alice/helmrelease-etcd.yaml',
      'tenant-alice/resourcequota-tenant-quota.yaml',
      '_cluster/clusterrole-cozy_3a_tenant.yaml',
      '_cluster/ciliumclusterwidenetworkpolicy-tenant-alice-egress.yaml',
      'cozy-public/role-cozy_3a_tenant_3a_dashboard.yaml',
    ])
      expect([f, files.includes(f)]).toEqual([f, true]);
  });

  it('--include-hooks writes the hook objects in their namespaces; without it the tree has none', async () => {
    const dir = path.join(scratch, 'hooks');
    const r = await runCli(['render', ...EXAMPLE_INPUTS, '--include-hooks', '--output-dir', dir], { cwd: ROOT });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/Helm hooks left out/);
    const files = [...tree(dir).keys()];
    for (const f of [
      'cozy-system/job-tenant-alice-cleanup.yaml',
      'cozy-system/serviceaccount-tenant-alice-cleanup.yaml',
      'tenant-alice/role-tenant-alice-cleanup.yaml',
      'tenant-alice/rolebinding-tenant-alice-cleanup.yaml',
      'tenant-bob/job-gateway-cleanup.yaml',
    ])
      expect([f, files.includes(f)]).toEqual([f, true]);
    const plain = path.join(scratch, 'plain');
    const p = await runCli(['render', ...EXAMPLE_INPUTS, '--output-dir', plain], { cwd: ROOT });
    expect(p.stderr).toMatch(/^info: Helm hooks left out: the pre-delete cleanup of 7 tenants/);
    expect([...tree(plain).keys()].filter((f) => /cleanup/.test(f))).toEqual([]);
  });
});

describe('render flags', () => {
  it('--api-versions is repeatable and comma-separated, as helm', async () => {
    const r = await runCli(
      [
        'render',
        ...EXAMPLE_INPUTS,
        '--api-versions',
        'apps/v1,v1',
        '--api-versions',
        'v1.edp.epam.com/v1',
        '-o',
        'json',
      ],
      { cwd: ROOT },
    );
    expect(r.code).toBe(0);
    // The example has OIDC off: the Keycloak groups need oidc-enabled "true" as well (docs/tenant.md §2.4).
    const groups = (JSON.parse(r.stdout) as { items: KObject[] }).items.filter((o) => o.kind === 'KeycloakRealmGroup');
    expect(groups.map((o) => o.metadata.name)).toEqual([]);
  });

  it('--api-versions cozystack.io/v1alpha1 turns on the computeplane Package check', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-whole-tenant-'));
    try {
      fs.writeFileSync(
        path.join(dir, 't.yaml'),
        'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: a, namespace: tenant-root}\nspec: {computeplane: true}\n',
      );
      const unchecked = await runCli(['render', '-f', 't.yaml'], { cwd: dir });
      expect(unchecked.code).toBe(0);
      expect(unchecked.stderr).toMatch(
        /warning: t\.yaml:4: Tenant tenant-root\/a: spec\.computeplane: .*was not checked/,
      );
      const checked = await runCli(['render', '-f', 't.yaml', '--api-versions', 'cozystack.io/v1alpha1'], { cwd: dir });
      expect(checked.code).toBe(1);
      expect(checked.stdout).toBe('');
      expect(checked.stderr).toMatch(/error: t\.yaml:4: .*cozystack\.computeplane-application is not installed/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--gateway-only prints the gateway slice', async () => {
    const r = await runCli(['render', ...EXAMPLE_INPUTS, '--gateway-only'], { cwd: ROOT });
    expect(r.code).toBe(0);
    const kinds = [...new Set((jsyaml.loadAll(r.stdout) as KObject[]).map((o) => o.kind))].sort();
    expect(kinds).toEqual([
      'Namespace',
      'Secret',
      'TenantGateway',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    // Only the gateway chart's hooks belong to the slice.
    expect(r.stderr).toMatch(/^info: Helm hooks left out: the post-delete ACME cleanup of 3 Gateway owners/);
  });

  it('the help says --include-hooks is for Argo CD and not for Flux kustomize-controller', async () => {
    const r = await runCli(['render', '--help'], { cwd: ROOT });
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toMatch(
      /--include-hooks .*for Argo CD.*never with Flux kustomize-controller, which would run both Jobs at apply time/,
    );
    expect(help).toMatch(/--gateway-only/);
    expect(help).toMatch(/--api-versions <group\/version>/);
  });
});
