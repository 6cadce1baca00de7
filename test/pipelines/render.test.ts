import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import fc from 'fast-check';
import { orderOutput, outputInfoFindings, render, renderKept, treeNotes } from '../../src/pipelines/render';
import { outputFileOf, MARKER, outputTree } from '../../src/io/outputDir';
import type { KObject } from '../../src/k8s/model';
import { REDACTED_ANNOTATION } from '../../src/k8s/secretRedaction';
import { runCli, ROOT } from '../helpers/cli';

const tenant = (name: string, namespace: string, spec: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace },
  spec,
});
const enabled = { file: 'v.yaml', values: { gateway: { enabled: true } } };
const ids = (objs: KObject[]) =>
  objs.map((o) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);

describe('render (core)', () => {
  it('renderKept hands each object over in the unordered order as it is made, and holds what it is given back', () => {
    const input = {
      objects: [tenant('root', 'tenant-root', { gateway: true }), tenant('alice', 'tenant-root', { gateway: true })],
      valuesFiles: [enabled],
    };
    const whole = render(input, { unordered: true });
    expect(whole.objects.length).toBeGreaterThan(20);
    const seen: KObject[] = [];
    const stand = (o: KObject): KObject => ({
      apiVersion: 'v1',
      kind: 'Stand-in',
      metadata: { name: `${seen.push(o)}` },
    });
    const kept = renderKept(input, {}, stand);
    expect(ids(seen)).toEqual(ids(whole.objects));
    expect(kept.objects.map((o) => o.metadata.name)).toEqual(seen.map((_, i) => `${i + 1}`));
    expect(kept.findings).toEqual(whole.findings);
    // render itself is renderKept keeping each object, in the stable order.
    expect(ids(render(input).objects)).toEqual(ids(orderOutput(whole.objects)));
    // An error: nothing is held, whatever was handed over.
    const bad = renderKept(
      { ...input, valuesFiles: [{ file: 'v.yaml', values: { gateway: { enabled: 'no' } } }] },
      {},
      stand,
    );
    expect(bad.objects).toEqual([]);
    expect(bad.findings.some((f) => f.severity === 'error')).toBe(true);
  });

  it("the output's info findings: nothing given at all, and the Secrets printed without their data", () => {
    const secret = (name: string): KObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, annotations: { [REDACTED_ANNOTATION]: 'data' } },
    });
    const plain: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    expect(outputInfoFindings([plain], true)).toEqual([]);
    expect(outputInfoFindings([secret('a'), plain, secret('b')], false).map((f) => [f.severity, f.message])).toEqual([
      [
        'info',
        'no -f and no --values given: this is what the charts render from their defaults, for tenant-root alone',
      ],
      [
        'info',
        `data of 2 Secrets left out of the output (annotation ${REDACTED_ANNOTATION}); pass --include-secret-data to print key material`,
      ],
    ]);
  });

  it('publishing.ingressName with a trailing space is an error at the file that sets it; nothing renders', () => {
    const r = render({
      objects: [tenant('root', 'tenant-root', { gateway: true })],
      valuesFiles: [enabled, { file: 'publishing.yaml', values: { publishing: { ingressName: 'tenant-root ' } } }],
    });
    expect(r.objects).toEqual([]);
    expect(r.findings).toEqual([
      expect.objectContaining({
        severity: 'error',
        rule: 'platform.ingress-name',
        file: 'publishing.yaml',
        field: 'publishing.ingressName',
      }),
    ]);
  });
  it('renders tenant-root, every Tenant, the TenantGateways and the policies', () => {
    const r = render({
      objects: [tenant('root', 'tenant-root', { gateway: true }), tenant('alice', 'tenant-root')],
      valuesFiles: [enabled],
    });
    expect(r.findings).toEqual([]);
    const got = ids(r.objects);
    // Namespaces first (cozystack-basics' cozy-public among them), then by namespace.
    expect(got.filter((x) => x.startsWith('Namespace '))).toEqual([
      'Namespace cozy-public',
      'Namespace tenant-alice',
      'Namespace tenant-root',
    ]);
    expect(got.slice(0, 3).filter((x) => !x.startsWith('Namespace '))).toEqual([]);
    for (const id of [
      'Secret tenant-alice/cozystack-values',
      'TenantGateway tenant-root/cozystack',
      'Secret tenant-root/cozystack-values',
    ])
      expect(got).toContain(id);
    const policies = got.filter((x) => x.startsWith('ValidatingAdmissionPolicy'));
    expect(got.slice(-policies.length)).toEqual(policies);
    expect(got).toContain('ValidatingAdmissionPolicy cozystack-tenant-host-policy');
  });

  it('emits no gateway HelmRelease: the TenantGateway is materialised', () => {
    const r = render({ objects: [tenant('root', 'tenant-root', { gateway: true })], valuesFiles: [enabled] });
    expect(r.objects.filter((o) => o.kind === 'HelmRelease').map((o) => o.metadata.name)).toEqual(['info']);
    expect(r.objects.some((o) => o.kind === 'TenantGateway')).toBe(true);
  });

  it('passes cluster state over: only rendered objects come out', () => {
    const route: KObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'r', namespace: 'tenant-root' },
    };
    expect(ids(render({ objects: [route], valuesFiles: [] }).objects)).not.toContain('HTTPRoute tenant-root/r');
  });

  it('warns when gateway.enabled and the publishing tenant owns no Gateway (docs/decisions.md §1)', () => {
    const r = render({ objects: [tenant('alice', 'tenant-root', { gateway: true })], valuesFiles: [enabled] });
    expect(r.objects.length).toBeGreaterThan(0);
    expect(r.findings).toEqual([
      expect.objectContaining({ severity: 'warning', rule: 'render.no-publishing-gateway' }),
    ]);
    expect(r.findings[0].hint).toMatch(/Tenant named root/);
    expect(render({ objects: [], valuesFiles: [] }).findings).toEqual([]);
  });

  it('a publishing tenant other than tenant-root', () => {
    const v = { file: 'v', values: { gateway: { enabled: true }, publishing: { ingressName: 'tenant-pub' } } };
    const r = render({ objects: [tenant('pub', 'tenant-root', { gateway: true })], valuesFiles: [v] });
    expect(r.findings).toEqual([]);
    const tgw = r.objects.find((o) => o.kind === 'TenantGateway') as KObject;
    expect(tgw.spec).toHaveProperty('tlsPassthroughServices');
    expect(tgw.spec).toHaveProperty('attachedNamespaces');
  });

  it('every failure at once and no objects: chart guards, tree rules and layer 6', () => {
    const v = {
      file: 'v',
      values: {
        gateway: { enabled: true, attachedNamespaces: ['cozy-system', 'tenant-x'] },
        publishing: { certificates: { solver: 'nope' } },
      },
    };
    const r = render({
      objects: [
        tenant('root', 'tenant-root', { gateway: true }),
        tenant('a-b', 'tenant-root'),
        tenant('c', 'tenant-root', { gateway: true }),
      ],
      valuesFiles: [v],
    });
    expect(r.objects).toEqual([]);
    expect(
      r.findings
        .filter((f) => f.severity === 'error')
        .map((f) => f.rule)
        .sort(),
    ).toEqual([
      'basics.attached-namespaces',
      'gateway.unsupported-solver',
      'gateway.unsupported-solver',
      'tenant.release-name',
    ]);
  });

  it('the layer-6 finding points at the offending list entry of the values file', () => {
    const v = { file: 'v', values: { gateway: { attachedNamespaces: ['cozy-system', 'tenant-x'] } } };
    const f = render({ objects: [], valuesFiles: [v] }).findings[0];
    expect(f).toMatchObject({ file: 'v', field: 'gateway.attachedNamespaces[1]' });
  });

  it('a bad --gateway-api-version is a finding, not a crash', () => {
    const r = render({ objects: [], valuesFiles: [] }, { gatewayApiVersion: '0.5.0' });
    expect(r.objects).toEqual([]);
    expect(r.findings[0].severity).toBe('error');
  });

  it('the rendered TenantGateway is checked against the CRD (an apex over 253 characters)', () => {
    const host = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(20)}`;
    const r = render({
      objects: [tenant('root', 'tenant-root', { gateway: true })],
      valuesFiles: [{ file: 'v', values: { publishing: { host } } }],
    });
    expect(r.objects).toEqual([]);
    expect(
      r.findings.some((f) => /would be refused by the API server/.test(f.message) && f.object?.kind === 'Tenant'),
    ).toBe(true);
  });

  it('is deterministic whatever the input order', () => {
    const objs = [
      tenant('root', 'tenant-root', { gateway: true }),
      tenant('a', 'tenant-root', { gateway: true }),
      tenant('b', 'tenant-a'),
      tenant('c', 'tenant-a-b', { host: 'c.io', gateway: true }),
    ];
    const base = jsyaml.dump(render({ objects: objs, valuesFiles: [enabled] }).objects);
    fc.assert(
      fc.property(fc.shuffledSubarray(objs, { minLength: objs.length, maxLength: objs.length }), (shuffled) => {
        expect(jsyaml.dump(render({ objects: shuffled, valuesFiles: [enabled] }).objects)).toBe(base);
      }),
      { numRuns: 20 },
    );
  });

  it('orderOutput: Namespaces, namespaced objects by namespace, other cluster-scoped objects sorted, the admission policies as given', () => {
    const o = (kind: string, name: string, namespace?: string, apiVersion = 'v1'): KObject => ({
      apiVersion,
      kind,
      metadata: namespace ? { name, namespace } : { name },
    });
    const vap = 'admissionregistration.k8s.io/v1';
    expect(
      ids(
        orderOutput([
          o('ValidatingAdmissionPolicyBinding', 'p', undefined, vap),
          o('Z', 'z'),
          o('Secret', 's', 'b'),
          o('Namespace', 'b'),
          o('ValidatingAdmissionPolicy', 'p', undefined, vap),
          o('A', 'a'),
          o('Secret', 's', 'a'),
          o('Namespace', 'a'),
        ]),
      ),
    ).toEqual([
      'Namespace a',
      'Namespace b',
      'Secret a/s',
      'Secret b/s',
      'A a',
      'Z z',
      'ValidatingAdmissionPolicyBinding p',
      'ValidatingAdmissionPolicy p',
    ]);
  });
});

describe('output tree (--output-dir)', () => {
  it('one file per object by namespace, and a kustomization listing them all', () => {
    const r = render({ objects: [tenant('root', 'tenant-root', { gateway: true })], valuesFiles: [enabled] });
    const tree = outputTree(r.objects);
    expect(tree.has('tenant-root/tenantgateway-cozystack.yaml')).toBe(true);
    expect(tree.has('_cluster/namespace-tenant-root.yaml')).toBe(true);
    const k = tree.get('kustomization.yaml') as string;
    expect(k.startsWith(MARKER)).toBe(true);
    const parsed = jsyaml.load(k) as { kind: string; resources: string[] };
    expect(parsed.kind).toBe('Kustomization');
    expect(parsed.resources).toEqual(r.objects.map((o) => outputFileOf(o)));
  });
});

describe('cozy-gw render (CLI)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-render-'));
    fs.writeFileSync(path.join(dir, 'values.yaml'), 'gateway:\n  enabled: true\n');
    fs.writeFileSync(
      path.join(dir, 'root.yaml'),
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: root, namespace: tenant-root}\nspec: {gateway: true}\n',
    );
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads stdin and a List, prints YAML', async () => {
    const list = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'apps.cozystack.io/v1alpha1',
          kind: 'Tenant',
          metadata: { name: 'a', namespace: 'tenant-root' },
          spec: { gateway: true },
        },
      ],
    });
    const r = await runCli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '-f', '-'], {
      cwd: dir,
      stdin: list,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/namespace: tenant-a\nspec:\n  apex: a\.example\.org/);
    // The one note: the Helm hooks left out (docs/decisions.md §Q5).
    expect(r.stderr).toMatch(
      /^info: Helm hooks left out: the pre-delete cleanup of 2 tenants .* and the post-delete ACME cleanup of 2 Gateway owners .*--include-hooks/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('-o json prints a List', async () => {
    const r = await runCli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '-o', 'json'], { cwd: dir });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list.kind).toBe('List');
    expect(list.items.some((o: KObject) => o.kind === 'TenantGateway')).toBe(true);
  });

  it('a failure: exit 1, nothing on stdout, every failure on stderr', async () => {
    fs.writeFileSync(
      path.join(dir, 'bad.yaml'),
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: a-b, namespace: tenant-root}\n---\napiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: c, namespace: default}\n',
    );
    const r = await runCli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '-f', 'bad.yaml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bad\.yaml:3: Tenant tenant-root\/a-b: metadata\.name: release name "tenant-a-b"/);
    expect(r.stderr).toMatch(/bad\.yaml:7: Tenant default\/c: metadata\.namespace: release namespace "default"/);
  });

  it('a bad --gateway-api-version or -o is a usage error (exit 2)', async () => {
    expect((await runCli(['render', '--gateway-api-version', 'latest'], { cwd: dir })).code).toBe(2);
    expect((await runCli(['render', '-o', 'xml'], { cwd: dir })).code).toBe(2);
  });

  it('--output-dir writes the tree, replaces an earlier one whole, and refuses a foreign directory', async () => {
    const out = path.join(dir, 'deploy');
    const r = await runCli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '--output-dir', 'deploy'], {
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.join(out, 'tenant-root', 'tenantgateway-cozystack.yaml'))).toBe(true);
    const k = jsyaml.load(fs.readFileSync(path.join(out, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    for (const f of k.resources) expect(fs.existsSync(path.join(out, f))).toBe(true);

    // A re-render without the root Tenant: the stale TenantGateway file goes.
    const again = await runCli(['render', '--values', 'values.yaml', '--output-dir', 'deploy'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(fs.existsSync(path.join(out, 'tenant-root', 'tenantgateway-cozystack.yaml'))).toBe(false);
    expect(again.stderr).toMatch(/owns no Gateway/);

    fs.mkdirSync(path.join(dir, 'mine'));
    fs.writeFileSync(path.join(dir, 'mine', 'notes.txt'), 'keep me');
    const refused = await runCli(['render', '--values', 'values.yaml', '--output-dir', 'mine'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(fs.readFileSync(path.join(dir, 'mine', 'notes.txt'), 'utf8')).toBe('keep me');
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-') || f.includes('.old-'))).toEqual([]);
  });

  it('--output-dir writes nothing on a render failure', async () => {
    fs.writeFileSync(
      path.join(dir, 'bad.yaml'),
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: x\n  namespace: tenant-root\nspec:\n  gateway: true\n  gatewayClass: nope\n',
    );
    const r = await runCli(
      ['render', '--values', 'values.yaml', '-f', 'root.yaml', '-f', 'bad.yaml', '--output-dir', 'deploy'],
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    expect(fs.existsSync(path.join(dir, 'deploy'))).toBe(false);
  });

  /** The certMode of each TenantGateway a render printed, by namespace. */
  const certModes = (stdout: string) =>
    Object.fromEntries(
      (jsyaml.loadAll(stdout) as KObject[])
        .filter((o) => o.kind === 'TenantGateway')
        .map((o) => [o.metadata.namespace, (o.spec as Record<string, unknown>).certMode]),
    );

  // The example is written for the default version (examples/README.md), and holds nothing only main has.
  for (const [version, env] of [
    ['the default version', { COZY_GW_COZYSTACK_VERSION: '' }],
    ['main', {}],
  ] as const)
    it(`the bundled example renders cleanly under ${version}`, async () => {
      const r = await runCli(
        ['render', '--values', 'examples/platform/values.yaml', '-f', 'examples/platform/tenants'],
        {
          cwd: ROOT,
          env,
        },
      );
      // Nothing but the note on the Helm hooks left out (docs/decisions.md §Q5).
      expect(r.stderr).toMatch(/^info: Helm hooks left out: the pre-delete cleanup of 7 tenants .*3 Gateway owners/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.code).toBe(0);
      expect(certModes(r.stdout)).toEqual({
        'tenant-bob': 'http01',
        'tenant-carol': 'http01',
        'tenant-root': 'http01',
      });
      const objs = jsyaml.loadAll(r.stdout) as KObject[];
      expect(objs.some((o) => o.kind === 'Namespace' && o.metadata.name === 'tenant-alice-dev-ci')).toBe(true);
    });

  it('examples/main-classes under main: carol picks the edge-terminated class (docs/versions.md §X1), cleanly', async () => {
    const r = await runCli(
      [
        'render',
        '--cozystack-version',
        'main',
        '--values',
        'examples/platform/values.yaml',
        '--values',
        'examples/main-classes/values.yaml',
        '-f',
        'examples/platform/tenants/root.yaml',
        '-f',
        'examples/main-classes/carol.yaml',
      ],
      { cwd: ROOT },
    );
    expect(r.stderr).toMatch(/^info: Helm hooks left out: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.code).toBe(0);
    expect(certModes(r.stdout)).toEqual({ 'tenant-carol': 'edge', 'tenant-root': 'http01' });
    const carol = (jsyaml.loadAll(r.stdout) as KObject[]).find(
      (o) => o.kind === 'TenantGateway' && o.metadata.namespace === 'tenant-carol',
    );
    expect((carol?.spec as Record<string, unknown>).gatewayClassName).toBe('cloudflare-tunnel');
  });
});

describe('treeNotes: what render --output-dir says of the tree', () => {
  it('the files written, then what it removed and what it left, each at most ten names and how many more', () => {
    const names = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    expect(treeNotes('out', 3, 'yaml', { written: 4, changed: 4, removed: [], left: [] })).toEqual([
      'wrote 4 files (3 objects and kustomization.yaml) to out',
    ]);
    expect(treeNotes('out', 2, 'json', { written: 3, changed: 3, removed: ['a.json'], left: ['x'] })).toEqual([
      'wrote 3 files (2 objects as JSON and kustomization.yaml) to out',
      'note: removed 1 file an earlier run wrote: a.json',
      'note: left 1 entry cozy-gw did not write: x',
    ]);
    expect(
      treeNotes('out', 0, 'yaml', { written: 1, changed: 1, removed: names(12, 'r'), left: names(2, 'l') }).slice(1),
    ).toEqual([
      'note: removed 12 files an earlier run wrote: r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, ... (2 more)',
      'note: left 2 entries cozy-gw did not write: l0, l1',
    ]);
  });

  it('says how many files it left unchanged: a run that changed nothing wrote 0 files', () => {
    expect(treeNotes('deploy', 192, 'yaml', { written: 193, changed: 0, removed: [], left: [] })).toEqual([
      'wrote 0 files to deploy, 193 unchanged (193 in all: 192 objects and kustomization.yaml)',
    ]);
    expect(treeNotes('deploy', 192, 'json', { written: 193, changed: 1, removed: [], left: [] })).toEqual([
      'wrote 1 file to deploy, 192 unchanged (193 in all: 192 objects as JSON and kustomization.yaml)',
    ]);
  });
});
