/**
 * The KRM function protocol (src/protocols/krm/, src/cli/commands/fn.ts): functionConfig forms, pass-through,
 * generated items, results, exit codes, comment keeping, idempotence, the kustomize plugin form.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import {
  GENERATED_ANNOTATION,
  INDEX_ANNOTATION,
  LEGACY_INDEX_ANNOTATION,
  LEGACY_PATH_ANNOTATION,
  PATH_ANNOTATION,
  configFromConfigMap,
  generatedPath,
  parseFunctionConfig,
  processKustomizeStream,
  processResourceList,
  processResourceListText,
  type ResourceList,
} from '../../src/protocols/krm';
import type { KObject } from '../../src/k8s/model';
import * as fnCommand from '../../src/cli/commands/fn';
import { rebindConsole } from '../../src/cli/context';
import { defaultNow } from '../../src/cli/clock';
import { runCommand, TESTDATA, tmpDir } from '../helpers/kpt';

// main's behaviour, as the suite pins it (test/setupVersion.ts): the function's own default is the newest release.
const OPTS = { defaultNow: '2026-01-01T00:00:00Z', defaultCozystackVersion: 'main' };
const VALUES = { publishing: { host: 'example.org' }, gateway: { enabled: true } };

function cozyGateway(spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'fn.cozystack.io/v1alpha1', kind: 'CozyGateway', metadata: { name: 'cfg', ...extra }, spec };
}

function tenant(name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KObject {
  return {
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name, namespace: 'tenant-root', ...(annotations ? { annotations } : {}) },
    spec,
  };
}

function withPath(o: KObject, file: string, index = 0): KObject {
  return {
    ...o,
    metadata: {
      ...o.metadata,
      annotations: {
        ...(o.metadata.annotations ?? {}),
        [PATH_ANNOTATION]: file,
        [INDEX_ANNOTATION]: String(index),
        [LEGACY_PATH_ANNOTATION]: file,
        [LEGACY_INDEX_ANNOTATION]: String(index),
      },
    },
  };
}

function rl(items: unknown[], functionConfig?: unknown, apiVersion = 'config.kubernetes.io/v1'): ResourceList {
  return { apiVersion, kind: 'ResourceList', items, ...(functionConfig ? { functionConfig } : {}) };
}

const find = (items: unknown[], kind: string, name: string, namespace?: string) =>
  (items as KObject[]).find(
    (o) =>
      o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace),
  );

describe('functionConfig', () => {
  it('a ConfigMap as `kpt fn eval -- key=value` makes it: dotted keys are platform values read as YAML, over `values`', () => {
    const { config, findings } = configFromConfigMap({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'function-input' },
      data: {
        values: 'publishing:\n  host: base.org\n  ingressName: tenant-root\ngateway:\n  enabled: false\n',
        'publishing.host': 'example.org',
        'gateway.enabled': 'true',
        'gateway.attachedNamespaces': '[cozy-system, default]',
        'publishing.certificates.issuerName': '"letsencrypt-stage"',
        reconcile: 'true',
        now: '2026-02-03T04:05:06Z',
        includeSecretData: 'false',
      },
    });
    expect(findings).toEqual([]);
    expect(config.values).toEqual([
      { publishing: { host: 'base.org', ingressName: 'tenant-root' }, gateway: { enabled: false } },
      {
        publishing: { host: 'example.org', certificates: { issuerName: 'letsencrypt-stage' } },
        gateway: { enabled: true, attachedNamespaces: ['cozy-system', 'default'] },
      },
    ]);
    expect(config).toMatchObject({ reconcile: true, now: '2026-02-03T04:05:06Z', includeSecretData: false });
  });

  it('a ConfigMap key that is neither an option nor a dotted value path is an error naming data.<key>', () => {
    const { findings } = configFromConfigMap({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'function-input' },
      data: { host: 'x', reconcile: 'maybe', now: 'yesterday' },
    });
    expect(findings.map((f) => [f.field, f.severity])).toEqual([
      ['data.host', 'error'],
      ['data.reconcile', 'error'],
      ['data.now', 'error'],
    ]);
    expect(findings[0].object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', name: 'function-input' });
  });

  it('a CozyGateway is checked against schemas/cozygateway.schema.json, every problem at once', () => {
    const { findings } = parseFunctionConfig(cozyGateway({ reconcle: true, includeSecretData: 'yes', values: [] }));
    expect(findings.map((f) => f.field).sort()).toEqual(['spec.includeSecretData', 'spec.reconcle', 'spec.values']);
    expect(findings.find((f) => f.field === 'spec.reconcle')!.message).toMatch(/unknown field reconcle/);
    expect(findings.filter((f) => f.object?.kind !== 'CozyGateway' || f.rule !== 'fn.config.schema')).toEqual([]);
  });

  it('a CozyGateway carries the values and the options', () => {
    const { config, findings } = parseFunctionConfig(
      cozyGateway({
        values: VALUES,
        reconcile: true,
        now: '2026-01-02T00:00:00Z',
        gatewayApiVersion: 'v1.3.0',
        ciliumVersion: '1.18.0',
        includeSecretData: true,
      }),
    );
    expect(findings).toEqual([]);
    expect(config).toEqual({
      values: [VALUES],
      reconcile: true,
      now: '2026-01-02T00:00:00Z',
      gatewayApiVersion: 'v1.3.0',
      ciliumVersion: '1.18.0',
      includeSecretData: true,
    });
  });

  it('no functionConfig means the chart defaults; another kind is refused', () => {
    expect(parseFunctionConfig(undefined)).toEqual({
      config: { values: [], reconcile: false, includeSecretData: false },
      findings: [],
    });
    expect(
      parseFunctionConfig({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }).findings[0].message,
    ).toMatch(/CozyGateway or a v1 ConfigMap/);
  });
});

describe('processResourceList', () => {
  const widget: KObject = withPath(
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'tenant-alice', annotations: { 'config.k8s.io/id': '7' } },
      spec: { size: 3 },
    },
    'widget.yaml',
  );
  const root = withPath(tenant('root', { gateway: true }), 'tenants.yaml', 0);
  const alice = withPath(tenant('alice'), 'tenants.yaml', 1);

  it('items pass through unchanged, annotations included, in their order, before the new items', () => {
    const input = rl([widget, root, alice], cozyGateway({ values: VALUES }));
    const snapshot = JSON.parse(JSON.stringify(input));
    const { output, exitCode } = processResourceList(input, OPTS);
    expect(exitCode).toBe(0);
    expect(output.items.slice(0, 3)).toEqual(snapshot.items);
    expect(input).toEqual(snapshot); // the input is not mutated
    expect(output.items.length).toBeGreaterThan(3);
    expect(output.functionConfig).toEqual(snapshot.functionConfig);
    expect(output.results).toBeUndefined();
  });

  it('new items carry the generated marker and a path annotation in both the internal and the legacy form', () => {
    const { output } = processResourceList(rl([root, alice], cozyGateway({ values: VALUES })), OPTS);
    const tgw = find(output.items, 'TenantGateway', 'cozystack', 'tenant-root')!;
    expect(tgw.metadata.annotations).toMatchObject({
      [GENERATED_ANNOTATION]: 'true',
      [PATH_ANNOTATION]: 'cozy-gw/tenant-root/tenantgateway-cozystack.yaml',
      [LEGACY_PATH_ANNOTATION]: 'cozy-gw/tenant-root/tenantgateway-cozystack.yaml',
      [INDEX_ANNOTATION]: '0',
      [LEGACY_INDEX_ANNOTATION]: '0',
    });
    const ns = find(output.items, 'Namespace', 'tenant-alice')!;
    expect(ns.metadata.annotations![PATH_ANNOTATION]).toBe('cozy-gw/_cluster/namespace-tenant-alice.yaml');
    const generated = (output.items as KObject[]).filter(
      (o) => o.metadata.annotations?.[GENERATED_ANNOTATION] === 'true',
    );
    const paths = generated.map(
      (o) => `${o.metadata.annotations![PATH_ANNOTATION]}#${o.metadata.annotations![INDEX_ANNOTATION]}`,
    );
    expect(new Set(paths).size).toBe(paths.length); // no two items claim one place
  });

  it('a second run replaces what the first generated instead of adding copies (idempotent pipelines)', () => {
    const first = processResourceList(
      rl([widget, root, alice], cozyGateway({ values: VALUES, reconcile: true })),
      OPTS,
    ).output;
    const second = processResourceList(first, OPTS).output;
    expect(second.items).toEqual(first.items);
  });

  it('the Kptfile, local-config objects and the config object pass through and are never read as inputs', () => {
    const kptfile = withPath({ apiVersion: 'kpt.dev/v1', kind: 'Kptfile', metadata: { name: 'pkg' } }, 'Kptfile');
    const draft = withPath(tenant('draft', {}, { 'config.kubernetes.io/local-config': 'true' }), 'notes.yaml');
    const cfgItem = withPath(
      cozyGateway({ values: { publishing: { host: 'other.org' } } }) as KObject,
      'cozygateway.yaml',
    );
    const { output, exitCode } = processResourceList(
      rl([kptfile, draft, cfgItem, root], cozyGateway({ values: VALUES })),
      OPTS,
    );
    expect(exitCode).toBe(0);
    expect(output.items.slice(0, 4)).toEqual([kptfile, draft, cfgItem, root]);
    expect(find(output.items, 'Namespace', 'tenant-draft')).toBeUndefined();
    expect(find(output.items, 'TenantGateway', 'cozystack')!.spec).toMatchObject({ apex: 'example.org' });
  });

  it("an object the render also produces stays the user's item and is not generated a second time", () => {
    const ns = withPath(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-root', labels: { mine: 'yes' } } },
      'ns.yaml',
    );
    const { output } = processResourceList(rl([ns, root], cozyGateway({ values: VALUES })), OPTS);
    const all = (output.items as KObject[]).filter((o) => o.kind === 'Namespace' && o.metadata.name === 'tenant-root');
    expect(all).toEqual([ns]);
  });

  it('a render failure: exit 1, a results entry with severity, resourceRef, field and file, the items as they came in', () => {
    const bad = cozyGateway({
      values: { ...VALUES, publishing: { host: 'example.org', certificates: { solver: 'tls-alpn-01' } } },
    });
    const prev = withPath(
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'old', annotations: { [GENERATED_ANNOTATION]: 'true' } },
      },
      'cozy-gw/_cluster/namespace-old.yaml',
    );
    const input = rl([widget, root, prev], bad);
    const { output, exitCode, findings } = processResourceList(input, OPTS);
    expect(exitCode).toBe(1);
    expect(output.items).toEqual(input.items); // nothing dropped, nothing added on failure
    const res = output.results!.find((r) => /tls-alpn-01/.test(r.message))!;
    expect(res).toMatchObject({
      severity: 'error',
      resourceRef: { apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', name: 'root', namespace: 'tenant-root' },
      file: { path: 'tenants.yaml', index: 0 },
    });
    // (the render names no field for this failure; where a finding has one, the result carries it: see below)
    expect(findings.find((f) => /tls-alpn-01/.test(f.message))!.file).toBe('tenants.yaml'); // stderr names the same file
  });

  it('a finding about the platform values names the functionConfig and the field inside it', () => {
    // gateway.className is a platform value of main only (docs/versions.md §X1, §P3).
    const { output, exitCode } = processResourceList(
      rl([root], cozyGateway({ values: { gateway: { className: '   ' } } })),
      { ...OPTS, defaultCozystackVersion: 'main' },
    );
    expect(exitCode).toBe(1);
    const r = output.results!.find((x) => /whitespace|className/.test(x.message))!;
    expect(r.resourceRef).toMatchObject({ kind: 'CozyGateway', name: 'cfg' });
    expect(r.field?.path).toBe('spec.values.gateway.className');
  });

  it('a warning is a results entry of severity warning with exit 0', () => {
    const { output, exitCode } = processResourceList(rl([alice], cozyGateway({ values: VALUES })), OPTS);
    expect(exitCode).toBe(0);
    expect(output.results!.some((r) => r.severity === 'warning')).toBe(true);
  });

  it('v1beta1 is accepted and answered in kind; another version or kind is refused with exit 1', () => {
    const { output, exitCode } = processResourceList(
      rl([root], cozyGateway({ values: VALUES }), 'config.kubernetes.io/v1beta1'),
      OPTS,
    );
    expect(exitCode).toBe(0);
    expect(output.apiVersion).toBe('config.kubernetes.io/v1beta1');
    const bad = processResourceList(rl([root], undefined, 'config.kubernetes.io/v9'), OPTS);
    expect(bad.exitCode).toBe(1);
    expect(bad.output.items).toEqual([root]);
    expect(bad.output.results![0]).toMatchObject({ severity: 'error', field: { path: 'apiVersion' } });
    expect(processResourceList({ apiVersion: 'v1', kind: 'List', items: [] }, OPTS).exitCode).toBe(1);
  });

  it('an item that is not a Kubernetes object is an error result, the others still render', () => {
    const { exitCode, output } = processResourceList(
      rl([{ kind: 'Nothing' }, root], cozyGateway({ values: VALUES })),
      OPTS,
    );
    expect(exitCode).toBe(1);
    expect(output.results!.map((r) => r.field?.path)).toContain('items[0]');
  });

  it('a Secret the controller pass creates is an item only with includeSecretData (docs/decisions.md §14), else an info result names it', () => {
    const source: KObject = withPath(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'wild', namespace: 'tenant-root' },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' },
      },
      'wild.yaml',
    );
    const bob = withPath(tenant('bob', { gateway: true }), 'tenants.yaml', 2);
    const values = {
      publishing: { host: 'example.org', certificates: { wildcardSecretName: 'wild' } },
      gateway: { enabled: true },
    };
    const run = (includeSecretData: boolean) =>
      processResourceList(rl([source, root, bob], cozyGateway({ values, reconcile: true, includeSecretData })), OPTS);
    const without = run(false);
    expect(without.exitCode).toBe(0);
    expect(find(without.output.items, 'Secret', 'wild', 'tenant-root')).toEqual(source); // the input is the user's own
    expect(find(without.output.items, 'Secret', 'wild', 'tenant-bob')).toBeUndefined();
    expect(without.output.results).toEqual([
      expect.objectContaining({
        severity: 'info',
        resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'wild', namespace: 'tenant-bob' },
        tags: { rule: 'output.secret-left-out' },
      }),
    ]);
    const withData = run(true);
    expect(find(withData.output.items, 'Secret', 'wild', 'tenant-bob')!.data).toEqual(source.data);
    expect(withData.output.results).toBeUndefined();
  });

  it('property: items of kinds the tool does not know pass through exactly, whatever they hold', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), spec: value }), {
          minLength: 1,
          maxLength: 4,
        }),
        (ws) => {
          const items = ws.map((w, i) =>
            withPath(
              { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `${w.name}-${i}` }, spec: w.spec },
              'w.yaml',
              i,
            ),
          );
          const input = JSON.parse(JSON.stringify(rl(items, cozyGateway({ values: VALUES }))));
          const { output } = processResourceList(input, OPTS);
          expect(output.items.slice(0, items.length)).toEqual(items);
          const text = processResourceListText(JSON.stringify(input), OPTS).stdout;
          expect((jsyaml.load(text) as ResourceList).items.slice(0, items.length)).toEqual(items);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('processResourceListText (comments and quoting kept)', () => {
  const text = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- # the publishing tenant
  apiVersion: apps.cozystack.io/v1alpha1
  kind: Tenant
  metadata:
    name: root # keep this name
    namespace: tenant-root
    annotations:
      config.kubernetes.io/path: 'tenants.yaml'
      internal.config.kubernetes.io/path: 'tenants.yaml'
  spec:
    gateway: true
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: y
  data:
    mode: "on"
    perms: '0777'
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
  data: {publishing.host: example.org, gateway.enabled: "true"}
`;

  it('pass-through items keep their comments, in the place kpt reads them, and their quoting', () => {
    const { stdout, exitCode } = processResourceListText(text, OPTS);
    expect(exitCode).toBe(0);
    expect(stdout).toContain('- # the publishing tenant\n  apiVersion: apps.cozystack.io/v1alpha1');
    expect(stdout).toContain('name: root # keep this name');
    expect(stdout).toContain("config.kubernetes.io/path: 'tenants.yaml'");
    expect(stdout).toContain('mode: "on"');
    expect(stdout).toContain("perms: '0777'");
    // Read back as kubectl would (YAML 1.1: "on" unquoted would be a boolean): strings stay strings.
    const back = jsyaml.load(stdout) as ResourceList;
    expect(find(back.items, 'ConfigMap', 'y')!.data).toEqual({ mode: 'on', perms: '0777' });
  });

  it('new items are written YAML-1.1-safe and read back equal to what the function produced', () => {
    const { stdout } = processResourceListText(text, OPTS);
    const back = jsyaml.load(stdout) as ResourceList;
    const ns = find(back.items, 'Namespace', 'tenant-root')!;
    expect(ns.metadata.annotations![GENERATED_ANNOTATION]).toBe('true');
    expect(stdout).toMatch(/cozy-gw\.cozystack\.io\/generated: "true"/);
  });

  it('on failure the list is still written: the items as they came in, and the results', () => {
    const bad = text.replace(
      'gateway.enabled: "true"',
      'gateway.enabled: "true", publishing.certificates.solver: tls-alpn-01',
    );
    const { stdout, exitCode } = processResourceListText(bad, OPTS);
    expect(exitCode).toBe(1);
    const back = jsyaml.load(stdout) as ResourceList;
    expect(back.kind).toBe('ResourceList');
    expect(back.items).toHaveLength(2);
    expect(back.results![0]).toMatchObject({
      severity: 'error',
      file: { path: 'tenants.yaml' },
      resourceRef: { kind: 'Tenant', name: 'root' },
    });
    expect(stdout).toContain('- # the publishing tenant');
  });

  it('input that is not YAML: exit 1, a ResourceList with the error result', () => {
    const { stdout, exitCode, findings } = processResourceListText('items: [\n', OPTS);
    expect(exitCode).toBe(1);
    expect(findings[0].message).toMatch(/not valid YAML/);
    expect((jsyaml.load(stdout) as ResourceList).results![0].severity).toBe('error');
  });

  it('generated paths: namespaced under the namespace, cluster-scoped under _cluster', () => {
    expect(generatedPath({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', namespace: 'ns' } })).toBe(
      'cozy-gw/ns/secret-a.yaml',
    );
    expect(generatedPath({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } })).toBe(
      'cozy-gw/_cluster/namespace-ns.yaml',
    );
  });
});

describe('kustomize legacy exec plugin form', () => {
  const cfg =
    'apiVersion: fn.cozystack.io/v1alpha1\nkind: CozyGateway\nmetadata:\n  name: cozy-gw\nspec:\n  values:\n    publishing: {host: example.org}\n    gateway: {enabled: true}\n';
  const stream = `# root tenant
apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata:
  name: root
  namespace: tenant-root
  annotations:
    kustomize.config.k8s.io/id: |
      kind: Tenant
spec:
  gateway: true
`;

  it('manifests in, the same manifests and the rendered objects out, without kpt path annotations', () => {
    const { stdout, exitCode } = processKustomizeStream(stream, cfg, OPTS);
    expect(exitCode).toBe(0);
    expect(stdout.startsWith(stream)).toBe(true);
    const docs = jsyaml.loadAll(stdout) as KObject[];
    expect(find(docs, 'TenantGateway', 'cozystack')!.metadata.annotations).toEqual({ [GENERATED_ANNOTATION]: 'true' });
    expect(stdout).not.toMatch(/config\.kubernetes\.io\/path/);
  });

  it('documents that pass through are the very bytes they came as (flow style, quoting, comments between documents)', () => {
    const widget =
      "# a widget\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w,   namespace: tenant-root}   # spaced\nspec: {list: [a,  b], n: 0x1F, s: 'x'}\n";
    const { stdout, exitCode } = processKustomizeStream(`${stream}---\n${widget}`, cfg, OPTS);
    expect(exitCode).toBe(0);
    expect(stdout.startsWith(`${stream}---\n${widget}---\n`)).toBe(true);
  });

  // docs/decisions.md §13 on the kustomize channel too: an alias bomb in the stream or in the
  // plugin config is an input error at its line, in bounded time, never a library exception.
  const bomb = (indent: string) => {
    const lines = [`a0: &a0 [${Array(9).fill('"xxxxxxxxxx"').join(',')}]`];
    for (let i = 1; i < 9; i++)
      lines.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(',')}]`,
      );
    return lines.map((l) => indent + l).join('\n');
  };
  it('refuses an object of the stream that expands past the bound, at its line, writing nothing', () => {
    const t0 = Date.now();
    const widget = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n${bomb('  ')}\n`;
    const { stdout, exitCode, findings } = processKustomizeStream(`${stream}---\n${widget}`, cfg, OPTS);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(exitCode).toBe(1);
    expect(stdout).toBe('');
    // Line 12 is the document's `---`, where every channel places a document (src/k8s/limits.ts documentSpans).
    expect(findings).toEqual([
      expect.objectContaining({
        severity: 'error',
        file: '<stdin>',
        line: 12,
        rule: 'input.limit',
        message: expect.stringMatching(/^standard input: the YAML document expands to more than 3 MiB/),
      }),
    ]);
  });
  it('a finding about the plugin config names the file it was read from; other findings keep theirs', () => {
    const broken = processKustomizeStream(`${stream}---\n: [`, 'kind: [', { ...OPTS, configFile: 'cozy.yaml' });
    expect(broken.findings.map((f) => [f.rule, f.file])).toEqual([
      ['fn.config', 'cozy.yaml'],
      ['fn.input', '<stdin>'],
    ]);
    expect(processKustomizeStream(stream, 'kind: [', OPTS).findings.map((f) => [f.rule, f.file])).toEqual([
      ['fn.config', undefined],
    ]);
  });
  it('refuses a plugin config that expands past the bound, and one too large to read', () => {
    const big = `${cfg}    junk:\n${bomb('      ')}\n`;
    const { exitCode, findings } = processKustomizeStream(stream, big, OPTS);
    expect(exitCode).toBe(1);
    expect(findings).toEqual([
      expect.objectContaining({
        rule: 'fn.config.limit',
        line: 1,
        message: expect.stringMatching(/^plugin config: the YAML document expands to more than 3 MiB/),
      }),
    ]);
    const huge = processKustomizeStream(stream, `${cfg}    junk: "${'x'.repeat(33 * 1024 * 1024)}"\n`, OPTS);
    expect(huge.exitCode).toBe(1);
    expect(huge.findings[0]).toEqual(
      expect.objectContaining({
        rule: 'fn.config.limit',
        message: expect.stringMatching(
          /^plugin config: a YAML document of \d+ characters is larger than the limit of 32 MiB/,
        ),
      }),
    );
  });
  it('refuses a ConfigMap functionConfig value that expands past the bound, naming the field', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: {
        'publishing.host': 'example.org',
        values: `{${bomb('').split('\n').join(', ')}}`,
        'gateway.junk': `{${bomb('').split('\n').join(', ')}}`,
      },
    };
    const { findings } = parseFunctionConfig(cm);
    expect(findings.map((f) => [f.field, f.rule, f.message.replace(/ \(aliases.*$/, '')])).toEqual([
      ['data.gateway.junk', 'fn.config.limit', 'the value expands to more than 3 MiB'],
      ['data.values', 'fn.config.limit', 'the value expands to more than 3 MiB'],
    ]);
  });

  it('a failure writes nothing on stdout (kustomize fails the build) and reports every finding', () => {
    const { stdout, exitCode, findings } = processKustomizeStream(
      stream,
      cfg.replace('host: example.org', 'host: example.org, certificates: {solver: nope}'),
      OPTS,
    );
    expect(exitCode).toBe(1);
    expect(stdout).toBe('');
    expect(findings.some((f) => /unsupported solver "nope"/.test(f.message))).toBe(true);
  });
});

describe('cozy-gw fn (command)', () => {
  it('writes only the ResourceList on stdout, the findings on stderr, and exits 1 on error results', async () => {
    const input = jsyaml.dump(
      rl(
        [tenant('root', { gateway: true })],
        cozyGateway({
          values: { ...VALUES, publishing: { host: 'example.org', certificates: { solver: 'tls-alpn-01' } } },
        }),
      ),
    );
    const r = await runCommand(fnCommand, ['fn'], { stdin: input });
    expect(r.code).toBe(1);
    expect((jsyaml.load(r.stdout) as ResourceList).kind).toBe('ResourceList');
    expect(r.stderr).toMatch(/error: Tenant tenant-root\/root: .*unsupported solver "tls-alpn-01"/);
  });

  it('a CONFIG argument (or --kustomize-plugin CONFIG) selects the kustomize exec plugin protocol', async () => {
    const dir = tmpDir('fn');
    fs.writeFileSync(path.join(dir, 'cfg.yaml'), fs.readFileSync(path.join(TESTDATA, 'krm', 'cozygateway.yaml')));
    const stdin = fs.readFileSync(path.join(TESTDATA, 'krm', 'pkg', 'tenants.yaml'), 'utf8');
    for (const args of [
      ['fn', 'cfg.yaml'],
      ['fn', '--kustomize-plugin', 'cfg.yaml'],
    ]) {
      const r = await runCommand(fnCommand, args, { stdin, cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stdout.startsWith(stdin)).toBe(true);
      expect(r.stdout).toMatch(/kind: TenantGateway/);
    }
    const missing = await runCommand(fnCommand, ['fn', 'nope.yaml'], { stdin, cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read plugin config nope\.yaml/);
  });

  it('console output goes to stderr while a protocol owns stdout', () => {
    const seen: string[] = [];
    const savedError = console.error;
    console.error = (...a: unknown[]) => void seen.push(a.join(' '));
    const restore = rebindConsole();
    try {
      console.log('stray');
    } finally {
      restore();
      console.error = savedError;
    }
    expect(seen).toEqual(['stray']);
  });

  it('the default clock is SOURCE_DATE_EPOCH, else a fixed time, so pipelines are reproducible', () => {
    expect(defaultNow({ SOURCE_DATE_EPOCH: '1767225600' })).toBe('2026-01-01T00:00:00Z');
    expect(defaultNow({})).toBe('1970-01-01T00:00:00Z');
  });
});

describe('processResourceListText: pass-through items byte for byte', () => {
  const items = `- # a head comment
  apiVersion: example.com/v1
  kind: Widget
  metadata:
    name: w   # spaced comment
    annotations: {internal.config.kubernetes.io/path: 'w.yaml', "config.kubernetes.io/path": w.yaml}

  spec: {list: [a,  b], n: 0x1F, big: 1e3, s: 'single', d: "double", y: yes}
# between items
- apiVersion: apps.cozystack.io/v1alpha1
  kind: Tenant
  metadata: {name: root, namespace: tenant-root, annotations: {internal.config.kubernetes.io/path: 'tenants.yaml'}}
  spec:
    gateway: true      # publishes
`;
  const fnConfig = `functionConfig:
  apiVersion: fn.cozystack.io/v1alpha1
  kind: CozyGateway
  metadata: {name: cfg}   # keep
  spec: {values: {publishing: {host: example.org}, gateway: {enabled: true}}}
`;
  const text = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}${fnConfig}`;

  it('the items that pass through and the functionConfig are the input bytes; new items follow; a rerun over the output gives the output', () => {
    const { stdout, exitCode } = processResourceListText(text, OPTS);
    expect(exitCode).toBe(0);
    expect(
      stdout.startsWith(`apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}- apiVersion: `),
    ).toBe(true);
    expect(stdout.endsWith(fnConfig)).toBe(true);
    expect(processResourceListText(stdout, OPTS).stdout).toBe(stdout); // generated items replaced, not added
  });

  it('a streamed run makes its pieces once: the pieces join to stdout, stdout read twice is one text, and a second stream refuses', () => {
    const streamed = processResourceListText(text, OPTS);
    const pieces = [...streamed.chunks!()];
    expect(pieces.length).toBeGreaterThan(0);
    expect(() => [...streamed.chunks!()]).toThrow(/already written/);
    const read = processResourceListText(text, OPTS);
    expect(read.stdout).toBe(pieces.join(''));
    expect(read.stdout).toBe(read.stdout);
    expect([...read.chunks!()]).toEqual([read.stdout]);
  });

  it('on failure the input comes back as it was, with the results appended', () => {
    const bad = text.replace('host: example.org', 'host: ""');
    const { stdout, exitCode } = processResourceListText(bad, OPTS);
    expect(exitCode).toBe(1);
    expect(stdout.startsWith(bad)).toBe(true);
    expect(stdout.slice(bad.length)).toMatch(/^results:\n- message: /);
  });
});
