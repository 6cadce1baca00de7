/**
 * The conventions of docs/commands/README.md "Values, warnings and trees", through the CLI:
 * unknown keys and --strict, --set/--set-string, every input error at once, the -f values hint.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXAMPLE_INPUTS, ROOT, runCli } from '../helpers/cli';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-conventions-'));
  fs.writeFileSync(
    path.join(dir, 'typo.yaml'),
    'publishing:\n  hots: acme.com\n  certificates:\n    solvr: dns01\npublshing: {}\nnetworking: {clusterDomain: x}\n',
  );
  fs.writeFileSync(
    path.join(dir, 'values.yaml'),
    'publishing:\n  host: acme.com\ngateway:\n  attachedNamespaces: [cozy-system, default]\n',
  );
  fs.writeFileSync(
    path.join(dir, 'tenant.yaml'),
    'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: alice\n  namespace: tenant-root\nspec:\n  gatway: true\n  zzzzzzzzzz: 1\n',
  );
  fs.writeFileSync(
    path.join(dir, 'pkg.yaml'),
    'apiVersion: cozystack.io/v1alpha1\nkind: Package\nmetadata:\n  name: cozystack.cozystack-platform\nspec:\n  components:\n    platform:\n      values:\n        gateway:\n          enabld: true\n',
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[], stdin?: string) => runCli(args, { cwd: dir, stdin });

describe('unknown keys', () => {
  it('render warns about each unknown key with the nearest known key, naming file and line', async () => {
    const r = await cli(['render', '--values', 'typo.yaml', '-f', 'tenant.yaml', '-f', 'pkg.yaml']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: typo.yaml:2: publishing.hots: unknown key; did you mean publishing.host?\n');
    expect(r.stderr).toContain(
      'warning: typo.yaml:4: publishing.certificates.solvr: unknown key; did you mean publishing.certificates.solver?\n',
    );
    expect(r.stderr).toContain('warning: typo.yaml:5: publshing: unknown key; did you mean publishing?\n');
    expect(r.stderr).toContain(
      'warning: tenant.yaml:7: Tenant tenant-root/alice: spec.gatway: unknown key; did you mean spec.gateway?\n',
    );
    expect(r.stderr).toMatch(
      /warning: tenant\.yaml:8: Tenant tenant-root\/alice: spec\.zzzzzzzzzz: unknown key \(known keys here: host, etcd, monitoring, ingress, gateway, /,
    );
    expect(r.stderr).toContain(
      'warning: pkg.yaml:10: Package cozystack.cozystack-platform: spec.components.platform.values.gateway.enabld: unknown key; did you mean gateway.enabled?\n',
    );
    // Other top-level platform values are the platform chart's, not typos.
    expect(r.stderr).not.toContain('networking');
    expect(r.stdout).toContain('kind: Namespace');
  });

  it('reconcile and admit warn too', async () => {
    for (const cmd of [['reconcile', '--now', '2026-01-01T00:00:00Z'], ['admit']]) {
      const r = await cli([...cmd, '--values', 'typo.yaml', '-f', 'tenant.yaml']);
      expect(r.stderr).toContain('warning: typo.yaml:2: publishing.hots: unknown key; did you mean publishing.host?\n');
      expect(r.stderr).toContain('spec.gatway: unknown key; did you mean spec.gateway?\n');
    }
  });

  it('--strict turns every warning into an error: exit 1, nothing on stdout', async () => {
    for (const cmd of [['render'], ['reconcile', '--now', '2026-01-01T00:00:00Z'], ['admit']]) {
      const r = await cli([...cmd, '--strict', '--values', 'typo.yaml', '-f', 'tenant.yaml']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('error: typo.yaml:2: publishing.hots: unknown key; did you mean publishing.host?\n');
      expect(r.stderr).not.toMatch(/^warning/m);
    }
  });

  it('post-render warns, and fails with --strict', async () => {
    const warn = await cli(
      ['post-render', '--values', 'typo.yaml'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
    );
    expect(warn.code).toBe(0);
    expect(warn.stderr).toContain(
      'warning: typo.yaml:2: publishing.hots: unknown key; did you mean publishing.host?\n',
    );
    const strict = await cli(
      ['post-render', '--strict', '--values', 'typo.yaml'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
    );
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe('');
  });
});

describe('--set and --set-string', () => {
  it('sets platform values after every --values', async () => {
    const r = await cli(['render', '--values', 'values.yaml', '--set', 'publishing.host=set.example', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"namespace.cozystack.io/host": "set.example"');
    expect(r.stdout).not.toContain('acme.com');
  });

  it('an index addresses the list --values gave; --set-string keeps strings', async () => {
    const r = await cli(['render', '--values', 'values.yaml', '--set', 'gateway.attachedNamespaces[1]=cozy-dashboard']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('gateway-attached-namespaces: cozy-system,cozy-dashboard\n');
    const list = await cli([
      'render',
      '--values',
      'values.yaml',
      '--set',
      'gateway.attachedNamespaces={cozy-a,cozy-b}',
    ]);
    expect(list.stdout).toContain('gateway-attached-namespaces: cozy-a,cozy-b\n');
    const typed = await cli(['render', '--set', 'gateway.enabled=yes', '-o', 'json']);
    expect(typed.stderr).toContain('error: --set: gateway.enabled: must be a boolean, got "yes"');
    const str = await cli(['render', '--set-string', 'gateway.enabled=true']);
    expect(str.code).toBe(1);
    expect(str.stderr).toContain('error: --set-string: gateway.enabled: must be a boolean, got "true"');
  });

  it('unknown keys given with --set are warned about, naming the flag', async () => {
    const r = await cli(['render', '--set', 'publishing.hots=x']);
    expect(r.stderr).toContain('warning: --set: publishing.hots: unknown key; did you mean publishing.host?\n');
  });

  it('a syntax error is a usage error naming the flag and the bad token', async () => {
    const r = await cli(['render', '--set', 'gateway.attachedNamespaces[x]=a']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option '--set <path=value>' argument 'gateway.attachedNamespaces[x]=a' is invalid");
    expect(r.stderr).toContain('index "[x]" is not a non-negative integer');
    const s = await cli(['reconcile', '--set-string', 'publishing.host']);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain("option '--set-string <path=value>' argument 'publishing.host' is invalid");
  });
});

describe('saying what was not given', () => {
  it('render with no -f, no --values and no --set renders the defaults and says so on stderr', async () => {
    const r = await cli(['render']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kind: Namespace');
    expect(r.stderr.split('\n').filter((l) => l.includes('given'))).toEqual([
      'info: no -f and no --values given: this is what the charts render from their defaults, for tenant-root alone',
    ]);
    for (const given of [
      ['--values', 'values.yaml'],
      ['-f', 'tenant.yaml'],
      ['--set', 'publishing.host=a.org'],
    ]) {
      const g = await cli(['render', ...given]);
      expect({ given, note: g.stderr.includes('defaults alone') }).toEqual({ given, note: false });
    }
  });

  it('bare cozy-gw prints the help on stdout, exit 0, as kubectl and helm do', async () => {
    const r = await cli([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: cozy-gw \[options\] \[command\]\n/);
    const unknown = await cli(['nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain("error: unknown command 'nope'");
  });
});

describe('input errors', () => {
  it('every input error is reported at once: --values and -f', async () => {
    const r = await cli(['render', '--values', 'nope.yaml', '-f', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: x: no such file or directory (check the -f path)\n');
    expect(r.stderr).toContain('error: nope.yaml: no such file or directory (check the --values path)\n');
  });

  it('a wrong path names the option it was given with: --state is not -f', async () => {
    fs.mkdirSync(path.join(dir, 'empty'), { recursive: true });
    const r = await cli(['diff', '--state', 'nope.yaml', '--state', 'empty']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: nope.yaml: no such file or directory (check the --state path)\n' +
        'error: empty: a directory with no *.yaml, *.yml or *.json file in it or below it (check the --state path)\n',
    );
    const f = await cli(['render', '-f', 'empty']);
    expect(f.stderr).toBe(
      'error: empty: a directory with no *.yaml, *.yml or *.json file in it or below it (check the -f path)\n',
    );
  });

  it('a values file given to -f gets a hint to use --values', async () => {
    const r = await cli(['render', '-f', 'values.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: values.yaml:1: apiVersion: object lacks apiVersion, kind, metadata.name (this looks like platform values (top-level publishing/gateway): pass it with --values values.yaml)',
    );
  });

  it('standard input is read once: two - sources are a usage error', async () => {
    const r = await cli(['render', '-f', '-', '--values', '-'], 'publishing: {}\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: standard input can be read only once, but -f - and --values - both read it');
  });
});

describe('reproducible by default', () => {
  const times = (s: string) => [...new Set([...s.matchAll(/lastTransitionTime: "?([^"\n]+)"?/g)].map((m) => m[1]))];

  it('render --with-controller: the fixed epoch without --now, SOURCE_DATE_EPOCH when set, --now over both', async () => {
    const a = await runCli(['render', ...EXAMPLE_INPUTS, '--with-controller'], { cwd: ROOT, env: {} });
    expect(a.code).toBe(0);
    expect(times(a.stdout)).toEqual(['1970-01-01T00:00:00Z']);
    const sde = await runCli(['render', ...EXAMPLE_INPUTS, '--with-controller'], {
      cwd: ROOT,
      env: { SOURCE_DATE_EPOCH: '1767225600' },
    });
    expect(times(sde.stdout)).toEqual(['2026-01-01T00:00:00Z']);
    const now = await runCli(['render', ...EXAMPLE_INPUTS, '--with-controller', '--now', '2027-02-03T04:05:06Z'], {
      cwd: ROOT,
      env: { SOURCE_DATE_EPOCH: '1767225600' },
    });
    expect(times(now.stdout)).toEqual(['2027-02-03T04:05:06Z']);
  });

  it('a SOURCE_DATE_EPOCH that is not whole seconds is an error, not ignored', async () => {
    const r = await runCli(['render', ...EXAMPLE_INPUTS, '--with-controller'], {
      cwd: ROOT,
      env: { SOURCE_DATE_EPOCH: 'yesterday' },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'error: SOURCE_DATE_EPOCH="yesterday" is not a whole number of seconds since 1970-01-01',
    );
  });

  it('reconcile keeps the current time (SOURCE_DATE_EPOCH is not its clock)', async () => {
    const rendered = (await runCli(['render', ...EXAMPLE_INPUTS], { cwd: ROOT })).stdout;
    const rec = await runCli(['reconcile', '--values', 'examples/platform/values.yaml', '-f', '-'], {
      cwd: ROOT,
      stdin: rendered,
      env: { SOURCE_DATE_EPOCH: '1767225600' },
    });
    expect(rec.code).toBe(0);
    const t = times(rec.stdout);
    expect(t.length).toBeGreaterThan(0);
    for (const x of t) expect(Math.abs(Date.parse(x) - Date.now())).toBeLessThan(10 * 60 * 1000);
  });
});

describe('render --with-controller --output-dir', () => {
  it('writes what the platform owns, without status; the preview keeps everything', async () => {
    const out = path.join(dir, 'tree');
    const args = [
      'render',
      '--values',
      'examples/platform/values.yaml',
      '-f',
      'examples/platform/tenants',
      '--with-controller',
    ];
    const preview = await runCli(args, { cwd: ROOT });
    expect(preview.stdout).toMatch(/kind: HTTPRoute\nmetadata:\n  name: status\n  namespace: tenant-root\n/);
    expect(preview.stdout).toContain('\nstatus:\n');
    const r = await runCli([...args, '--output-dir', out], { cwd: ROOT });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /info: \d+ input objects the controller changed \(route status, namespace labels\) are not written to the tree: the platform does not own them/,
    );
    const files = fs
      .readdirSync(out, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.yaml'));
    const all = files.map((f) => fs.readFileSync(path.join(out, f), 'utf8'));
    for (const text of all) expect(text).not.toMatch(/^status:/m);
    // The app route and the cluster's own namespaces (cozy-*) are not the platform's; what
    // cozystack-basics renders in cozy-public and cozy-monitoring is (docs/decisions.md §Q7).
    expect(files).not.toContain('tenant-root/httproute-status.yaml');
    expect(files.filter((f) => f.startsWith('cozy-') && !/^cozy-(public|monitoring)\//.test(f))).toEqual([]);
    expect(files.filter((f) => /^_cluster\/namespace-/.test(f) && !/namespace-(tenant-|cozy-public)/.test(f))).toEqual(
      [],
    );
    // The controller's own objects are there.
    expect(files).toEqual(
      expect.arrayContaining(['tenant-root/gateway-cozystack.yaml', 'tenant-root/tenantgateway-cozystack.yaml']),
    );
    expect(all.join('')).toContain('kind: Issuer');
  });
});

describe('option combinations that cannot be honoured', () => {
  it('-o json --output-dir writes JSON files, listed in kustomization.yaml', async () => {
    const out = path.join(dir, 'json-tree');
    const r = await runCli(['render', ...EXAMPLE_INPUTS, '-o', 'json', '--output-dir', out], { cwd: ROOT });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^wrote (\d+) files \(\d+ objects as JSON and kustomization\.yaml\) to /m);
    const files = fs
      .readdirSync(out, { recursive: true })
      .map(String)
      .filter((f) => /\.(json|yaml)$/.test(f))
      .sort();
    expect(files.filter((f) => f.endsWith('.yaml'))).toEqual(['kustomization.yaml']);
    const tgw = JSON.parse(fs.readFileSync(path.join(out, 'tenant-root/tenantgateway-cozystack.json'), 'utf8'));
    expect(tgw.kind).toBe('TenantGateway');
    const k = fs.readFileSync(path.join(out, 'kustomization.yaml'), 'utf8');
    expect(k).toContain('  - tenant-root/tenantgateway-cozystack.json\n');
    expect(k.match(/\.json\n/g)!.length).toBe(files.length - 1);
  });

  it.each([
    [['render', '--now', '2026-01-01T00:00:00Z'], '--now applies only with --with-controller'],
    [['render', '--include-secret-data'], '--include-secret-data applies only with --with-controller'],
    [['reconcile', '-o', 'plan', '--all'], '-o plan cannot be combined with --all'],
    [['reconcile', '-o', 'plan', '--include-secret-data'], '-o plan cannot be combined with --include-secret-data'],
  ])('%j is a usage error', async (args, msg) => {
    const r = await runCli([...args, ...EXAMPLE_INPUTS], { cwd: ROOT });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: ${msg}`);
  });

  it('fn with both CONFIG and --kustomize-plugin is a usage error', async () => {
    const r = await runCli(['fn', 'a.yaml', '--kustomize-plugin', 'b.yaml'], { cwd: dir, stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'error: give the plugin config once: either CONFIG (a.yaml) or --kustomize-plugin (b.yaml)',
    );
  });

  it('post-render --values - is a usage error (stdin carries the manifests)', async () => {
    const r = await runCli(['post-render', '--values', '-'], {
      cwd: dir,
      stdin: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --values - cannot be honoured: standard input carries the manifests');
  });
});

describe('--validate', () => {
  it('render and render --with-controller: the example passes', async () => {
    for (const extra of [[], ['--with-controller']]) {
      const r = await runCli(['render', ...EXAMPLE_INPUTS, ...extra, '--validate'], { cwd: ROOT });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/^error/m);
    }
  });
  it('an invalid emitted object: exit 1, nothing on stdout, the object and field named', async () => {
    fs.writeFileSync(
      path.join(dir, 'bad-route.yaml'),
      'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: app\n  namespace: tenant-root\nspec:\n  hostnames: ["a.example.org"]\n  rules:\n    - backendRefs:\n        - name: app\n          port: 99999\n',
    );
    const r = await runCli(
      ['reconcile', '--all', '--validate', '-f', 'bad-route.yaml', '--now', '2026-01-01T00:00:00Z'],
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /error: bad-route\.yaml:\d+: HTTPRoute tenant-root\/app: spec\.rules\[0\]\.backendRefs\[0\]\.port: must be <= 65535/,
    );
    const without = await runCli(['reconcile', '--all', '-f', 'bad-route.yaml', '--now', '2026-01-01T00:00:00Z'], {
      cwd: dir,
    });
    expect(without.code).toBe(0);
  });
});

describe('diff --validate', () => {
  it('checks what the change creates or changes: an invalid route is an error (exit 1)', async () => {
    fs.writeFileSync(path.join(dir, 'state.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-root\n');
    fs.writeFileSync(
      path.join(dir, 'bad-route2.yaml'),
      'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: app\n  namespace: tenant-root\nspec:\n  hostnames: ["a.example.org"]\n  rules:\n    - backendRefs:\n        - name: app\n          port: 99999\n',
    );
    const ok = await runCli(
      ['diff', '--state', 'state.yaml', '-f', 'bad-route2.yaml', '--now', '2026-01-01T00:00:00Z'],
      { cwd: dir },
    );
    expect(ok.stderr).not.toMatch(/^error/m);
    expect(ok.stdout).toContain('HTTPRoute tenant-root/app');
    const r = await runCli(
      ['diff', '--state', 'state.yaml', '-f', 'bad-route2.yaml', '--now', '2026-01-01T00:00:00Z', '--validate'],
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/HTTPRoute tenant-root\/app: spec\.rules\[0\]\.backendRefs\[0\]\.port: must be <= 65535/);
  });
});
