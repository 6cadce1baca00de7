/**
 * Audit of the CLI's fixed points (docs/commands/README.md) through the CLI, invoked as the
 * black-box conformance runner invokes it (`render --values values.yaml -f inputs.yaml`,
 * `reconcile ... --all -o yaml --now ...`, `admit ... ARGS`, `fn` with a ResourceList on stdin).
 * Unusual but valid inputs: reverse-ordered Tenant trees, v1 Lists, JSON, CRLF, a BOM, empty
 * documents, a Package with --values overriding one key, null deleting a default.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { runCli } from '../helpers/cli';

let dir: string;
const NOW = '2026-01-01T00:00:00Z';
const VALUES = 'publishing:\n  host: example.org\n  ingressName: tenant-root\ngateway:\n  enabled: true\n';
const TENANTS = [
  {
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: 'bob', namespace: 'tenant-alice' },
    spec: { gateway: true },
  },
  {
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: 'alice', namespace: 'tenant-root' },
    spec: {},
  },
  {
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: 'root', namespace: 'tenant-root' },
    spec: { gateway: true },
  },
];
const stream = (objs: unknown[]) => objs.map((o) => jsyaml.dump(o)).join('---\n');

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  items?: Obj[];
  [k: string]: unknown;
};

function write(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return name;
}

async function cli(args: string[], stdin?: string) {
  const r = await runCli(args, { cwd: dir, stdin });
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?/); // never a stack trace
  return r;
}

const docs = (s: string) => (jsyaml.loadAll(s) as Obj[]).filter(Boolean);
const find = (objs: Obj[], kind: string, ns: string | undefined, name: string) =>
  objs.find((o) => o.kind === kind && o.metadata.name === name && (o.metadata.namespace ?? '') === (ns ?? ''));

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-contract-'));
  write('values.yaml', VALUES);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('inputs: every spelling of the same objects renders the same bytes', () => {
  let reference: string;
  beforeEach(async () => {
    write('inputs.yaml', stream(TENANTS));
    const r = await cli(['render', '--values', 'values.yaml', '-f', 'inputs.yaml']);
    expect(r.code).toBe(0);
    reference = r.stdout;
  });

  it('the reverse-ordered Tenant tree (child before parent) gives every namespace and TenantGateway', () => {
    const objs = docs(reference);
    expect(
      find(objs, 'Namespace', undefined, 'tenant-alice-bob')?.metadata.labels?.['namespace.cozystack.io/host'],
    ).toBe('bob.alice.example.org');
    expect(find(objs, 'TenantGateway', 'tenant-alice-bob', 'cozystack')?.spec?.apex).toBe('bob.alice.example.org');
    expect(find(objs, 'TenantGateway', 'tenant-root', 'cozystack')).toBeDefined();
  });

  it.each([
    ['forward order', () => write('in.yaml', stream([...TENANTS].reverse()))],
    ['a JSON v1 List', () => write('in.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: TENANTS }))],
    [
      'a YAML *List kind',
      () =>
        write(
          'in.yaml',
          jsyaml.dump({ apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'TenantList', metadata: {}, items: TENANTS }),
        ),
    ],
    ['CRLF line endings and a UTF-8 BOM', () => write('in.yaml', '\ufeff' + stream(TENANTS).replace(/\n/g, '\r\n'))],
    [
      'empty documents and a comment-only document',
      () => write('in.yaml', '---\n---\n' + stream(TENANTS) + '---\n# nothing\n---\n'),
    ],
    [
      'a directory read recursively (.yml and .json), other files ignored',
      () => {
        write('d/a/one.yml', jsyaml.dump(TENANTS[0]));
        write('d/b/two.json', JSON.stringify(TENANTS[1]));
        write('d/three.yaml', jsyaml.dump(TENANTS[2]));
        write('d/README.md', 'not: [an object');
        return 'd';
      },
    ],
  ])('%s', async (_what, make) => {
    const r = await cli(['render', '--values', 'values.yaml', '-f', make()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(reference);
  });

  it('-f - reads standard input', async () => {
    const r = await cli(['render', '--values', 'values.yaml', '-f', '-'], stream(TENANTS));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(reference);
  });

  it('a values file with a BOM and CRLF, or in JSON, is the same values', async () => {
    write('v1.yaml', '\ufeff' + VALUES.replace(/\n/g, '\r\n'));
    write('v2.json', JSON.stringify(jsyaml.load(VALUES)));
    for (const v of ['v1.yaml', 'v2.json']) {
      const r = await cli(['render', '--values', v, '-f', 'inputs.yaml']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(reference);
    }
  });
});

describe('platform values: Package, --values, merge order, null', () => {
  const pkg = {
    apiVersion: 'cozystack.io/v1alpha1',
    kind: 'Package',
    metadata: { name: 'cozystack.cozystack-platform' },
    spec: {
      variant: 'isp-full',
      components: {
        platform: {
          values: {
            publishing: { host: 'pkg.example.com', ingressName: 'tenant-root' },
            gateway: { enabled: true, className: 'pkgclass', attachedNamespaces: ['cozy-system'] },
          },
        },
      },
    },
  };
  const tgw = (out: string) => find(docs(out), 'TenantGateway', 'tenant-root', 'cozystack')!.spec!;

  it("a Package carries the values; --values wins on the one key it sets, the rest stays the Package's", async () => {
    write('in.yaml', stream([pkg, TENANTS[2]]));
    write('over.yaml', 'gateway:\n  className: override\n');
    const r = await cli(['render', '--values', 'over.yaml', '-f', 'in.yaml']);
    expect(r.code).toBe(0);
    expect(tgw(r.stdout)).toMatchObject({
      apex: 'pkg.example.com',
      gatewayClassName: 'override',
      attachedNamespaces: ['cozy-system'],
    });
  });

  it('--values files merge left to right (the later wins)', async () => {
    write('in.yaml', stream(TENANTS));
    write('a.yaml', 'gateway:\n  className: first\n  attachedNamespaces: [cozy-system]\n');
    write('b.yaml', 'gateway:\n  className: second\n');
    const r = await cli([
      'render',
      '--values',
      'values.yaml',
      '--values',
      'a.yaml',
      '--values',
      'b.yaml',
      '-f',
      'in.yaml',
    ]);
    expect(r.code).toBe(0);
    expect(tgw(r.stdout)).toMatchObject({ gatewayClassName: 'second', attachedNamespaces: ['cozy-system'] });
  });

  it('null deletes a default (helm): no attachedNamespaces at all', async () => {
    write('in.yaml', stream(TENANTS));
    write('null.yaml', 'gateway:\n  attachedNamespaces: null\n');
    const with0 = await cli(['render', '--values', 'values.yaml', '-f', 'in.yaml']);
    expect(tgw(with0.stdout).attachedNamespaces).toContain('cozy-system');
    const r = await cli(['render', '--values', 'values.yaml', '--values', 'null.yaml', '-f', 'in.yaml']);
    expect(r.code).toBe(0);
    expect(tgw(r.stdout).attachedNamespaces).toBeUndefined();
  });
});

describe('render failures, exit codes, errors', () => {
  it('every failure at once, each naming its file and object; nothing on stdout; exit 1', async () => {
    write(
      'v.yaml',
      'publishing:\n  host: ""\n  certificates: {solver: tls-alpn-01}\ngateway:\n  enabled: true\n  attachedNamespaces: [tenant-foo]\n',
    );
    write(
      'in.yaml',
      stream([
        {
          apiVersion: 'apps.cozystack.io/v1alpha1',
          kind: 'Tenant',
          metadata: { name: 'alice', namespace: 'tenant-root' },
          spec: { gateway: true, gatewayClass: 'nope' },
        },
        {
          apiVersion: 'apps.cozystack.io/v1alpha1',
          kind: 'Tenant',
          metadata: { name: 'Bad_Name', namespace: 'tenant-root' },
          spec: {},
        },
      ]),
    );
    const r = await cli(['render', '--values', 'v.yaml', '-f', 'in.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/v\.yaml:\d+: .*tenant-foo/);
    expect(r.stderr).toMatch(/in\.yaml:\d+: Tenant tenant-root\/Bad_Name/);
    expect(r.stderr).toMatch(/in\.yaml:\d+: Tenant tenant-root\/alice: .*gatewayClass "nope"/);
    expect(r.stderr).toMatch(/Tenant tenant-root\/alice: .*unsupported solver "tls-alpn-01"/);
    expect(r.stderr).toMatch(/Tenant tenant-root\/alice: spec\.host: .*no host/);
  });

  it.each([
    [['render', '--bogus']],
    [['nosuch']],
    [['reconcile', '-o', 'xml', '-f', 'values.yaml']],
    [['reconcile', '--now', 'yesterday', '-f', 'values.yaml']],
  ])('usage error %j exits 2', async (args) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('a missing file and an object without apiVersion exit 1 naming the file', async () => {
    let r = await cli(['render', '-f', 'nope.yaml']);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/nope\.yaml/);
    write('bad.yaml', 'kind: Foo\nmetadata: {name: x}\n');
    r = await cli(['render', '-f', 'bad.yaml']);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/bad\.yaml:1: .*apiVersion/);
  });
});

describe('reconcile as the runner calls it', () => {
  const state = [
    {
      apiVersion: 'gateway.cozystack.io/v1alpha1',
      kind: 'TenantGateway',
      metadata: { name: 'cozystack', namespace: 'tenant-root' },
      spec: {
        apex: 'example.org',
        gatewayClassName: 'cilium',
        certMode: 'http01',
        issuerName: 'letsencrypt-prod',
        attachedNamespaces: ['default'],
      },
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tok', namespace: 'default' },
      type: 'Opaque',
      data: { token: 'c2VjcmV0' },
    },
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
      spec: { port: '80', n: 80, on: 'yes', y: true, f: 1.5, nul: null },
    },
  ];
  const args = ['reconcile', '--values', 'values.yaml', '-f', 'inputs.yaml', '--all', '-o', 'yaml', '--now', NOW];

  it('--all: unknown kinds pass through with their types; key material left out; byte-identical across runs', async () => {
    write('inputs.yaml', stream(state));
    const a = await cli(args);
    const b = await cli(args);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const objs = docs(a.stdout);
    expect(find(objs, 'Widget', 'default', 'w')).toEqual(state[3]);
    expect(find(objs, 'Gateway', 'tenant-root', 'cozystack')).toBeDefined();
    expect(find(objs, 'Namespace', undefined, 'default')?.metadata.labels).toMatchObject({
      'namespace.cozystack.io/gateway': 'tenant-root',
    });
    expect(a.stdout).not.toContain('c2VjcmV0');
    expect(a.stderr).toMatch(/include-secret-data/);
    const withData = await cli([...args, '--include-secret-data']);
    expect(withData.stdout).toContain('c2VjcmV0');
  });

  it('-o json has changed and deleted', async () => {
    write('inputs.yaml', stream(state));
    const r = await cli(['reconcile', '--values', 'values.yaml', '-f', 'inputs.yaml', '-o', 'json', '--now', NOW]);
    const out = JSON.parse(r.stdout) as { changed: Obj[]; deleted: unknown[] };
    expect(out.deleted).toEqual([]);
    expect(out.changed.map((o) => o.kind).sort()).toEqual([
      'Gateway',
      'HTTPRoute',
      'Issuer',
      'Namespace',
      'TenantGateway',
    ]);
  });
});

describe('admit as the runner calls it', () => {
  it('one line per denial: policy, Kind namespace/name, message; exit 1', async () => {
    write(
      'in.yaml',
      stream([
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'tenant-alice', labels: { 'namespace.cozystack.io/host': 'evil.com' } },
        },
        {
          apiVersion: 'apps.cozystack.io/v1alpha1',
          kind: 'Tenant',
          metadata: { name: 'alice', namespace: 'tenant-root' },
          spec: { host: 'other.net' },
        },
      ]),
    );
    const r = await cli([
      'admit',
      '--values',
      'values.yaml',
      '-f',
      'in.yaml',
      '--as',
      'bob',
      '--as-group',
      'system:authenticated',
    ]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Namespace tenant-alice: .*cozystack-namespace-host-label-policy.*immutable/);
    expect(lines[1]).toMatch(/^Tenant tenant-root\/alice: .*cozystack-tenant-host-policy.*spec\.host/);
  });

  it('all admitted: exit 0, no denial lines', async () => {
    write('in.yaml', stream(TENANTS));
    const r = await cli(['admit', '--values', 'values.yaml', '-f', 'in.yaml', '--as', 'bob']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });
});

describe('fn: the KRM function', () => {
  const config = {
    apiVersion: 'fn.cozystack.io/v1alpha1',
    kind: 'CozyGateway',
    metadata: { name: 'cfg' },
    spec: { values: { publishing: { host: 'example.org', ingressName: 'tenant-root' }, gateway: { enabled: true } } },
  };
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg' },
    data: { 'publishing.host': 'example.org', 'gateway.enabled': 'true' },
  };
  const widget = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w1', namespace: 'tenant-alice' },
    spec: {
      port: 80,
      portStr: '80',
      enabled: true,
      enabledStr: 'true',
      yes: 'yes',
      ver: '1.0',
      f: 1.5,
      n: null,
      empty: {},
      list: [],
      multi: 'a\nb\n',
      date: '2026-01-01',
    },
  };
  const root = TENANTS[2];
  const rl = (apiVersion: string, functionConfig: unknown, items: unknown[]) => ({
    apiVersion,
    kind: 'ResourceList',
    functionConfig,
    items,
  });
  const itemsOf = (out: string) => {
    const d = jsyaml.load(out) as {
      apiVersion: string;
      kind: string;
      items: Obj[];
      results?: { severity: string; message: string }[];
    };
    return d;
  };

  it.each([
    ['v1', 'CozyGateway', 'yaml'],
    ['v1', 'CozyGateway', 'json'],
    ['v1', 'ConfigMap', 'yaml'],
    ['v1', 'ConfigMap', 'json'],
    ['v1beta1', 'CozyGateway', 'yaml'],
    ['v1beta1', 'ConfigMap', 'json'],
  ])(
    'config.kubernetes.io/%s, functionConfig %s, %s on stdin: items untouched, TenantGateway added',
    async (v, fc, fmt) => {
      const input = rl(`config.kubernetes.io/${v}`, fc === 'ConfigMap' ? cm : config, [widget, root]);
      const r = await cli(['fn'], fmt === 'json' ? JSON.stringify(input) : jsyaml.dump(input));
      expect(r.code).toBe(0);
      const out = itemsOf(r.stdout);
      expect(out.kind).toBe('ResourceList');
      expect(out.apiVersion).toBe(`config.kubernetes.io/${v}`);
      expect(out.items[0]).toEqual(widget);
      expect(out.items[1]).toEqual(root);
      expect(find(out.items, 'TenantGateway', 'tenant-root', 'cozystack')?.spec?.apex).toBe('example.org');
    },
  );

  it('a v1 List among the items passes through as a List and its objects are read', async () => {
    const list = { apiVersion: 'v1', kind: 'List', metadata: {}, items: [widget, root] };
    const r = await cli(['fn'], jsyaml.dump(rl('config.kubernetes.io/v1', config, [list])));
    expect(r.code).toBe(0);
    const out = itemsOf(r.stdout);
    expect(out.items[0]).toEqual(list);
    expect(find(out.items, 'TenantGateway', 'tenant-root', 'cozystack')).toBeDefined();
  });

  it('numbers pass through as written: a YAML 1.1 reader loads the same values', async () => {
    const text = [
      'apiVersion: config.kubernetes.io/v1',
      'kind: ResourceList',
      'items:',
      '- apiVersion: example.com/v1',
      '  kind: Widget',
      '  metadata: {name: w, namespace: default}',
      '  spec:',
      '    exp: 1e3',
      '    hex: 0x1F',
      '    oct: 012',
      '    big: 12345678901234567890',
      '    port: 80',
      '    s: "80"',
      '    f: 1.50',
      '',
    ].join('\n');
    const r = await cli(['fn'], text);
    expect(r.code).toBe(0);
    for (const line of [
      '    exp: 1e3',
      '    hex: 0x1F',
      '    oct: 012',
      '    big: 12345678901234567890',
      '    port: 80',
      '    s: "80"',
      '    f: 1.50',
    ]) {
      expect(r.stdout).toContain(`\n${line}\n`);
    }
  });

  it('a render failure: exit 1, the ResourceList still written with an error result, the items as they came, stderr too', async () => {
    const bad = {
      ...config,
      spec: {
        values: { ...config.spec.values, publishing: { host: 'example.org', certificates: { solver: 'tls-alpn-01' } } },
      },
    };
    const r = await cli(['fn'], jsyaml.dump(rl('config.kubernetes.io/v1', bad, [widget, root])));
    expect(r.code).toBe(1);
    const out = itemsOf(r.stdout);
    expect(out.kind).toBe('ResourceList');
    expect(out.items).toEqual([widget, root]);
    expect(out.results?.some((x) => x.severity === 'error' && /solver/.test(x.message))).toBe(true);
    expect(r.stderr).toMatch(/solver/);
  });
});
