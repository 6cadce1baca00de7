/**
 * Helpful errors (docs/commands/README.md "When something is wrong"): every failure a user can cause says what is wrong, where (file, line,
 * object, field) and what to do. One test per message family, through the CLI as a user meets it.
 */
import * as path from 'node:path';
import { MIN_VALUES, ROOT_TENANT, runCli, useScratch } from '../helpers/cli';

const scratch = useScratch('cozy-gw-errors-', { 'values.yaml': MIN_VALUES, 'root.yaml': ROOT_TENANT });
const { write, cli } = scratch;

describe('input files', () => {
  it('YAML syntax: file and line, nothing on stdout', async () => {
    write('broken.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: [oops\n');
    const r = await cli(['render', '-f', 'broken.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: broken\.yaml:\d+: not valid YAML or JSON: /m);
  });

  it('a missing file or directory: the path and what to check', async () => {
    const r = await cli(['render', '-f', 'nowhere/']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: nowhere/: no such file or directory (check the -f path)');
    const v = await cli(['render', '--values', 'nope.yaml']);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('error: nope.yaml: no such file or directory (check the --values path)');
  });

  it('messages read as a person would write them: one hint each, about the problem, no nested parentheses', async () => {
    write('cycle.yaml', 'a: &x\n  b: *x\n');
    write(
      'ns-map.yaml',
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: ci\n  namespace: {a: 1}\nspec: {}\n',
    );
    write('label.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  labels: {a: 1}\n');
    write(
      'spec.yaml',
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: bob\n  namespace: tenant-root\nspec: "oops"\n',
    );
    const lines = async (f: string) =>
      (await cli(['render', '--values', 'values.yaml', '-f', f])).stderr.trim().split('\n');
    expect(await lines('cycle.yaml')).toEqual([
      'error: cycle.yaml:1: the YAML document holds an alias that refers to a node containing it, a cycle (point the alias at a node outside the one that holds its anchor, or write the repeated part out)',
    ]);
    expect(await lines('ns-map.yaml')).toContain(
      "error: ns-map.yaml:5: Tenant ci: metadata.namespace: must be a string, got a mapping (write the namespace's name as a string, e.g. namespace: tenant-root)",
    );
    expect(await lines('label.yaml')).toContain(
      'error: label.yaml:5: Namespace x: metadata.labels.a: must be a string, got a number (labels and annotations map string keys to string values: quote a value YAML would read as a number or a boolean, e.g. "1" or "true")',
    );
    expect(await lines('spec.yaml')).toContain(
      'error: spec.yaml:6: Tenant tenant-root/bob: spec: must be a mapping or null, got "oops" (write key: value lines indented under spec, or nothing after "spec:")',
    );
  });

  it('a document that is not an object: every one, each with its line', async () => {
    write('list.yaml', '- a\n- b\n---\n42\n');
    const r = await cli(['render', '-f', 'list.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: list.yaml:1: expected a Kubernetes object (a mapping with apiVersion, kind and metadata)',
    );
    expect(r.stderr).toContain('error: list.yaml:4: expected a Kubernetes object');
  });
});

describe('schemas', () => {
  it('platform values: file:line, field, and how to write the value', async () => {
    write('bad-values.yaml', 'publishing:\n  host: example.org\ngateway:\n  enabled: yes-please\n');
    const r = await cli(['render', '--values', 'bad-values.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: bad-values.yaml:4: gateway.enabled: must be a boolean, got "yes-please" (write true or false, unquoted)',
    );
  });

  it('Tenant: file:line, the Tenant, the field, and the fix', async () => {
    write(
      't.yaml',
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: alice\n  namespace: tenant-root\nspec:\n  gateway: "yes"\n  gatway: true\n',
    );
    const r = await cli(['render', '--values', 'values.yaml', '-f', 't.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: t.yaml:7: Tenant tenant-root/alice: spec.gateway: must be a boolean, got "yes" (write true or false, unquoted)',
    );
    // A typo is a warning naming the nearest known key.
    expect(r.stderr).toContain(
      'warning: t.yaml:8: Tenant tenant-root/alice: spec.gatway: unknown key; did you mean spec.gateway?\n',
    );
  });

  it('TenantGateway CRD: file:line, the object, the field, and the supported values', async () => {
    write(
      'tgw.yaml',
      'apiVersion: gateway.cozystack.io/v1alpha1\nkind: TenantGateway\nmetadata:\n  name: cozystack\n  namespace: tenant-x\nspec:\n  certMode: http03\n',
    );
    const r = await cli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '-f', 'tgw.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: tgw\.yaml:7: TenantGateway tenant-x\/cozystack: spec\.certMode: Unsupported value: supported values: "http01", .*\(set spec\.certMode to one of the supported values\)/,
    );
  });
});

describe('render guards', () => {
  it('an unsupported solver: the Tenant whose chart fails, the fix, and where the value is set', async () => {
    write('solver.yaml', 'publishing:\n  certificates:\n    solver: http02\n');
    const r = await cli(['render', '--values', 'values.yaml', '--values', 'solver.yaml', '-f', 'root.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /error: root\.yaml:1: Tenant tenant-root\/root: gateway chart for tenant namespace tenant-root: unsupported solver "http02" .*\(set publishing\.certificates\.solver to http01 or dns01; publishing\.certificates\.solver is set at solver\.yaml:3\)/,
    );
  });

  it('a class the tenant may not select: spec.gatewayClass at its line, and the two ways out', async () => {
    write(
      'x.yaml',
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: x\n  namespace: tenant-root\nspec:\n  gateway: true\n  gatewayClass: nope\n',
    );
    const r = await cli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '-f', 'x.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: x\.yaml:8: Tenant tenant-root\/x: spec\.gatewayClass: .*gatewayClass "nope" is not one the tenant may select.*\(set spec\.gatewayClass to one of cilium or remove it, or add "nope" to the platform's gateway\.tenantSelectableClasses\)/,
    );
  });

  it('a Tenant given twice, in two files: every copy located, in reading order, one sentence each', async () => {
    const alice =
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: alice\n  namespace: tenant-root\nspec: {}\n';
    write('a.yaml', alice);
    write('more/b.yaml', `${alice}---\n${alice.replace('alice', 'bob')}---\n${alice}`);
    const r = await cli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '-f', 'a.yaml', '-f', 'more']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const hint = '(keep one copy; a directory given with -f is read recursively, so check that no file is given twice)';
    expect(r.stderr.split('\n').filter((l) => l.includes('given 3 times'))).toEqual([
      `error: a.yaml:1: Tenant tenant-root/alice: given 3 times in the inputs; this is copy 1 of 3 ${hint}`,
      `error: more/b.yaml:1: Tenant tenant-root/alice: given 3 times in the inputs; this is copy 2 of 3 ${hint}`,
      `error: more/b.yaml:15: Tenant tenant-root/alice: given 3 times in the inputs; this is copy 3 of 3 ${hint}`,
    ]);
  });

  it('an invalid release name: metadata.name at its line, and a name that works', async () => {
    write(
      'y.yaml',
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: my-team\n  namespace: tenant-root\nspec: {}\n',
    );
    const r = await cli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '-f', 'y.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: y\.yaml:4: Tenant tenant-root\/my-team: metadata\.name: release name "tenant-my-team" is invalid.*\(rename the Tenant without dashes, e\.g\. "myteam"\)/,
    );
  });

  it('a tenant-* entry in attachedNamespaces: file:line of the entry and what to do instead', async () => {
    write('att.yaml', 'gateway:\n  attachedNamespaces: [cozy-dashboard, tenant-x]\n');
    const r = await cli(['render', '--values', 'values.yaml', '--values', 'att.yaml', '-f', 'root.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: att\.yaml:2: gateway\.attachedNamespaces\[1\]: .*"tenant-x".*\(a tenant that needs its own Gateway sets tenant\.spec\.gateway=true/,
    );
  });
});

describe('usage errors exit 2 and point at --help', () => {
  it.each([
    [['render', '--bogus'], /unknown option '--bogus'/],
    [['render', '-o', 'xml'], /argument 'xml' is invalid\. Allowed choices are yaml, json/],
    [['admit', '-o', 'xml'], /argument 'xml' is invalid\. Allowed choices are text, json/],
    [
      ['render', '--with-controller', '--now', 'yesterday'],
      /"yesterday" is not an RFC 3339 time \(e\.g\. 2026-01-01T00:00:00Z\)/,
    ],
    [['render', '--gateway-api-version', 'banana'], /"banana" is not a version \(e\.g\. 1\.6\.1\)/],
  ])('%j', async (args, message) => {
    const r = await cli(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr).toContain('(run with --help for usage)');
  });

  it('reconcile --now and --cilium-version say what a valid value looks like', async () => {
    const now = await cli(['reconcile', '--now', 'yesterday']);
    expect(now.code).not.toBe(0);
    expect(now.code).toBe(2);
    expect(now.stderr).toMatch(/--now <time>.*"yesterday" is not an RFC 3339 time \(e\.g\. 2026-01-01T00:00:00Z\)/);
    expect(now.stderr).toMatch(/run with --help/);
    const cilium = await cli(['reconcile', '--cilium-version', 'banana']);
    expect(cilium.code).not.toBe(0);
    expect(cilium.code).toBe(2);
    expect(cilium.stderr).toMatch(/--cilium-version <semver>.*"banana" is not a version \(want e\.g\. 1\.20\.2/);
  });
});

describe('admit', () => {
  it('a denial: the policy line on stdout, and on stderr the file:line of the object and what to do', async () => {
    write(
      'ns.yaml',
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-alice\n  labels:\n    namespace.cozystack.io/host: alice.example.org\n',
    );
    write(
      'route.yaml',
      'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: copy\n  namespace: tenant-alice\nspec:\n  parentRefs: [{name: cozystack, namespace: tenant-root}]\n  hostnames: [dashboard.example.org]\n',
    );
    const r = await cli([
      'admit',
      '--values',
      'values.yaml',
      '-f',
      'ns.yaml',
      '-f',
      'route.yaml',
      '--as-group',
      'system:masters',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^HTTPRoute tenant-alice\/copy: ValidatingAdmissionPolicy 'cozystack-route-hostname-policy' with binding 'cozystack-route-hostname-policy' denied request: .*dashboard\.example\.org/m,
    );
    expect(r.stderr).toContain(
      "hint: route.yaml:8: HTTPRoute tenant-alice/copy: name hostnames equal to the namespace's namespace.cozystack.io/host label or under it",
    );
  });
});

describe('fn', () => {
  it('a functionConfig typo: the object, the field, and the keys it may hold', async () => {
    const rl =
      'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: fn.cozystack.io/v1alpha1\n  kind: CozyGateway\n  metadata:\n    name: cfg\n  spec:\n    reconcle: true\n';
    const r = await cli(['fn'], rl);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: CozyGateway cfg: spec.reconcle: functionConfig CozyGateway: unknown field reconcle (remove it or check its spelling: a CozyGateway spec holds values, reconcile, ',
    );
  });

  it('kustomize plugin mode names the config file', async () => {
    write(
      'cfg.yaml',
      'apiVersion: fn.cozystack.io/v1alpha1\nkind: CozyGateway\nmetadata:\n  name: cfg\nspec:\n  valuez: {}\n',
    );
    const r = await cli(['fn', 'cfg.yaml'], '');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: cfg\.yaml: CozyGateway cfg: spec\.valuez: .*unknown field valuez \(remove it or check its spelling/,
    );
  });
});

describe('post-render', () => {
  it('empty input: what a post-renderer expects, and no output', async () => {
    const r = await cli(['post-render'], '');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'error: no manifests on standard input (a post-renderer gets the manifests Helm rendered on standard input',
    );
  });
});

describe('snapshot', () => {
  it('kubectl missing: which binary, and how to name another', async () => {
    const r = await cli(['snapshot', '--kubectl', path.join(scratch.dir, 'no-kubectl')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /error: kubectl not found: cannot run .*no-kubectl \(install kubectl and put it on PATH, or name it with --kubectl PATH/,
    );
  });
});

describe('findings about input objects are placed at their file and line', () => {
  it('a reconcile warning about a TenantGateway names the file and line of the field', async () => {
    const fs = require('node:fs') as typeof import('node:fs');
    const os = require('node:os') as typeof import('node:os');
    const path = require('node:path') as typeof import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-locate-'));
    fs.writeFileSync(
      path.join(dir, 'tgw.yaml'),
      'apiVersion: gateway.cozystack.io/v1alpha1\nkind: TenantGateway\nmetadata:\n  name: cozystack\n  namespace: tenant-root\nspec:\n  apex: example.org\n  certMode: http03\n',
    );
    const r = await runCli(['reconcile', '-f', 'tgw.yaml', '--now', '2026-01-01T00:00:00Z'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: tgw\.yaml:8: TenantGateway tenant-root\/cozystack: spec\.certMode:/);
  });
});

describe('input syntax errors say where and what to do', () => {
  it('an error at the end of the stream points at the last line, with a hint', async () => {
    const r = await runCli(['render', '-f', '-'], {
      stdin: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  labels: {a: b\n',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: <stdin>:5: not valid YAML or JSON: .*\(fix the YAML at that line/);
  });
  it('a document that is not an object says how to hold several', async () => {
    const r = await runCli(['render', '-f', '-'], { stdin: '- a\n- b\n' });
    expect(r.stderr).toMatch(/<stdin>:1: expected a Kubernetes object .*kind: List/);
  });
  it('an object without a name says what every object needs', async () => {
    const r = await runCli(['render', '-f', '-'], { stdin: 'apiVersion: v1\nkind: Namespace\nmetadata: {}\n' });
    expect(r.stderr).toMatch(
      /<stdin>:\d+: .*metadata\.name: object lacks metadata\.name \(every object needs apiVersion, kind and metadata\.name/,
    );
  });
});
