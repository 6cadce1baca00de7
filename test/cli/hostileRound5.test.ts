/**
 * Hostile input, round 5: one test per defect, at the CLI. The admission
 * look-ahead never prints key material, whatever path a change's policy takes to it; CEL is
 * cancelled as the API server cancels it (per call, per policy evaluation) and a breach follows the
 * policy's failurePolicy; matchPolicy Equivalent judges the versions the cluster serves.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import type { KObject } from '../../src/k8s/model';
import { MIN_VALUES, ROOT_TENANT, runCli, stateArgs, TESTDATA, useScratch } from '../helpers/cli';
import { inProcessKubectl } from '../helpers/fakeKubectl';

const NOW = ['--now', '2026-01-01T00:00:00Z'];
const KEY = 'SUPERSECRETKEYMATERIAL';
const KEY_B64 = Buffer.from(KEY).toString('base64');

const s = useScratch('cozy-gw-round5-', { 'values.yaml': MIN_VALUES, 'tenants.yaml': ROOT_TENANT });

/** A ValidatingAdmissionPolicy with its binding, as YAML: `spec` merged over a Fail policy matching `rules`. */
function policy(name: string, spec: Record<string, unknown>, rules?: Record<string, unknown>[]): string {
  const vap = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: rules ?? [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['secrets'] },
        ],
      },
      ...spec,
    },
  };
  const binding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: name, validationActions: ['Deny'] },
  };
  return `${jsyaml.dump(vap)}---\n${jsyaml.dump(binding)}`;
}

/** The state: what render writes for tenant-root, and beside it `extra` (YAML documents). */
async function stateWith(extra: string): Promise<void> {
  const r = await s.cli(['render', '--values', 'values.yaml', '-f', 'tenants.yaml']);
  expect(r.code).toBe(0);
  s.write('state.yaml', `${r.stdout}---\n${extra}`);
}

const WILD = `apiVersion: v1
kind: Secret
metadata:
  name: wild
  namespace: tenant-root
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"data":{"tls.key":"${KEY_B64}"}}'
    note: "copy ${KEY}"
type: kubernetes.io/tls
data:
  tls.crt: Q0VSVA==
  tls.key: ${KEY_B64}
`;

describe('the admission look-ahead never prints key material', () => {
  const leaks: [string, Record<string, unknown>][] = [
    [
      'messageExpression',
      { validations: [{ expression: 'false', messageExpression: "'k=' + object.data['tls.key']" }] },
    ],
    [
      'substring and string()',
      { validations: [{ expression: 'false', messageExpression: "string(object.data['tls.key']).substring(0, 12)" }] },
    ],
    [
      'a variable read by a message',
      {
        variables: [{ name: 'k', expression: "object.data['tls.key']" }],
        validations: [{ expression: 'false', messageExpression: "'k=' + variables.k" }],
      },
    ],
    [
      "an error's text (a conversion of the data)",
      { validations: [{ expression: "int(object.data['tls.key']) > 0" }] },
    ],
    [
      'a matchCondition that fails',
      { matchConditions: [{ name: 'm', expression: "int(object.data['tls.key']) > 0" }] },
    ],
    [
      'a copy in an annotation',
      {
        validations: [
          {
            expression: 'false',
            messageExpression:
              "object.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] + object.metadata.annotations['note']",
          },
        ],
      },
    ],
  ];
  it.each(leaks)('%s: the Secret is judged, its data in no output', async (_, spec) => {
    await stateWith(WILD);
    s.write('leak.yaml', policy('leak', { validations: [{ expression: 'true' }], ...spec }));
    const base = ['diff', '--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'leak.yaml'];
    for (const o of ['plan', 'json', 'markdown', 'html', 'diff']) {
      const r = await s.cli([...base, '-o', o, ...NOW]);
      expect([o, r.code]).toEqual([o, 3]);
      for (const secret of [KEY, KEY_B64, KEY_B64.slice(0, 12)])
        expect([o, secret, r.stdout.includes(secret) || r.stderr.includes(secret)]).toEqual([o, secret, false]);
      // Still judged: the Secret is refused on its next write, by the words the masked data gives.
      if (o === 'json') {
        const refused = (JSON.parse(r.stdout).inadmissible as { object: { name: string } }[]).map((x) => x.object.name);
        expect(refused).toContain('wild');
      }
    }
  });
});

/** Eight `.all()` over a twelve-element list: 12^8 iterations, a few hundred bytes. */
const NESTED = (() => {
  const list = `[${Array.from({ length: 12 }, (_, i) => i).join(',')}]`;
  let e = 'true';
  for (const v of 'abcdefgh') e = `${list}.all(${v}, ${e})`;
  return e;
})();

describe('CEL cost as the API server bounds it', () => {
  const SECRET = WILD.replace(/ {2}annotations:\n.*\n.*\n/, '');
  /** The rule of a policy for the Secret `wild` alone (resourceNames), or a ConfigMap `big`. */
  const only = (name: string, resource = 'secrets') => [
    {
      apiGroups: [''],
      apiVersions: ['v1'],
      operations: ['CREATE', 'UPDATE'],
      resources: [resource],
      resourceNames: [name],
    },
  ];
  it('a nested .all() is cancelled at the per-call limit: Fail refuses with the API server words, at once', async () => {
    await stateWith(SECRET);
    s.write('slow.yaml', policy('slow', { validations: [{ expression: NESTED }] }, only('wild')));
    const t0 = Date.now();
    const r = await s.cli([
      'diff',
      ...['--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'slow.yaml'],
      ...['-o', 'json', ...NOW],
    ]);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.code).toBe(3);
    const refused = JSON.parse(r.stdout).inadmissible as { object: { name: string }; message: string }[];
    expect(refused.map((x) => [x.object.name, x.message])).toEqual([
      ['wild', `expression '${NESTED}' resulted in error: operation cancelled: actual cost limit exceeded`],
    ]);
  });
  it('failurePolicy Ignore admits what runs out of cost', async () => {
    await stateWith(SECRET);
    s.write(
      'slow.yaml',
      policy('slow', { failurePolicy: 'Ignore', validations: [{ expression: NESTED }] }, only('wild')),
    );
    const r = await s.cli([
      'diff',
      ...['--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'slow.yaml'],
      ...['-o', 'json', ...NOW],
    ]);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).inadmissible).toEqual([]);
  });
  it("the expressions of a policy share one budget: past it, the API server's words", async () => {
    // A ConfigMap of 9,000 characters: `contains` over it costs 900 * 900 units (cel-go's product).
    const big = 'x'.repeat(9000);
    await stateWith(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: tenant-root}\ndata: {x: ${big}}\n`,
    );
    const each = { expression: 'object.data.x.contains(object.data.x)', message: 'no' };
    const write = (n: number) =>
      s.write('budget.yaml', policy('budget', { validations: Array(n).fill(each) }, only('big', 'configmaps')));
    const refused = async () => {
      const r = await s.cli([
        'diff',
        ...['--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'budget.yaml'],
        ...['-o', 'json', ...NOW],
      ]);
      expect(r.code).toBe(3);
      return (JSON.parse(r.stdout).inadmissible as { object: { name: string }; message: string }[]).map((x) => [
        x.object.name,
        x.message,
      ]);
    };
    // Twelve spend some 9,720,000 units: under the budget, each true.
    write(12);
    expect(await refused()).toEqual([]);
    // The thirteenth runs past 10,000,000.
    write(13);
    expect(await refused()).toEqual([
      ['big', 'validation failed due to running out of cost budget, no further validation rules will be run'],
    ]);
  });
  it('one expression past the per-call limit is cancelled, whatever its few nodes', async () => {
    const big = 'x'.repeat(10001);
    await stateWith(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: tenant-root}\ndata: {x: ${big}}\n`,
    );
    s.write(
      'p.yaml',
      policy(
        'p',
        { validations: [{ expression: 'object.data.x.contains(object.data.x)' }] },
        only('big', 'configmaps'),
      ),
    );
    const r = await s.cli([
      'diff',
      ...['--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'p.yaml'],
      ...['-o', 'json', ...NOW],
    ]);
    expect(JSON.parse(r.stdout).inadmissible.map((x: { message: string }) => x.message)).toEqual([
      "expression 'object.data.x.contains(object.data.x)' resulted in error: operation cancelled: actual cost limit exceeded",
    ]);
  });
  it('the look-ahead stops at its bound, and says how far it judged', async () => {
    const big = 'x'.repeat(10001);
    const maps = Array.from(
      { length: 60 },
      (_, i) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big-${i}, namespace: tenant-root}\ndata: {x: ${big}}\n`,
    );
    await stateWith(maps.join('---\n'));
    const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }];
    s.write('p.yaml', policy('p', { validations: [{ expression: 'object.data.x.contains(object.data.x)' }] }, rules));
    const r = await s.cli([
      'diff',
      ...['--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'p.yaml'],
      ...['-o', 'json', ...NOW],
    ]);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    // Each ConfigMap costs just over the per-call limit: fifty of them reach the bound.
    expect(out.inadmissible.length).toBe(50);
    const warned = (out.findings as { rule?: string; message: string }[]).filter(
      (f) => f.rule === 'diff.lookahead-bound',
    );
    expect(warned.length).toBe(1);
    const [, judged, of] =
      /^the admission look-ahead judged (\d+) of the (\d+) objects it had to judge: the admission policies' CEL spent \d+ cost units, past its bound of 50000000 \(the other objects are not judged\)$/.exec(
        warned[0].message,
      ) ?? [warned[0].message];
    expect(Number(judged)).toBeLessThan(Number(of));
  });
});

describe('matchPolicy Equivalent: a policy judges the versions the cluster serves of its resource', () => {
  const TLSROUTE_V1 = `apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata:
  name: shop
  namespace: tenant-root
spec:
  hostnames: [shop.example.org]
`;
  const v1alpha2Only = [
    {
      apiGroups: ['gateway.networking.k8s.io'],
      apiVersions: ['v1alpha2'],
      operations: ['CREATE', 'UPDATE'],
      resources: ['tlsroutes'],
    },
  ];
  const refusedBy = async (spec: Record<string, unknown>): Promise<string[]> => {
    await stateWith(TLSROUTE_V1);
    s.write(
      'p.yaml',
      policy('v1alpha2-only', { validations: [{ expression: 'false', message: 'no' }], ...spec }, v1alpha2Only),
    );
    const r = await s.cli([
      'diff',
      ...['--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'p.yaml'],
      ...['-o', 'json', ...NOW],
    ]);
    expect(r.code).toBe(3);
    return (JSON.parse(r.stdout).inadmissible as { object: { kind: string; name: string } }[]).map(
      (x) => `${x.object.kind} ${x.object.name}`,
    );
  };
  it('a policy naming TLSRoute v1alpha2 judges a v1 TLSRoute (the default, Equivalent)', async () => {
    expect(await refusedBy({})).toEqual(['TLSRoute shop']);
  });
  it('matchPolicy Exact keeps to the version named', async () => {
    expect(await refusedBy({ matchConstraints: { matchPolicy: 'Exact', resourceRules: v1alpha2Only } })).toEqual([]);
  });
});

describe('Secret digests cannot be looked up', () => {
  const PASSWORD = 'hunter2';
  const basicAuth = (name: string, password: string) =>
    `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}, namespace: tenant-root}\ntype: Opaque\nstringData: {password: ${password}}\n`;
  /** The unsalted digest an earlier version wrote: sha256 over the sorted [key, base64] pairs. */
  const oldDigest = (data: Record<string, string>) =>
    `sha256:${createHash('sha256')
      .update(JSON.stringify(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])))
      .digest('hex')}`;
  const digestsOf = (yamlText: string) =>
    jsyaml
      .loadAll(yamlText)
      .filter((o): o is KObject => (o as KObject)?.kind === 'Secret')
      .map((o) => [o.metadata.name, o.metadata.annotations?.['cozy-gw.cozystack.io/secret-data-digest']]);

  it('reconcile --all writes a salted scrypt digest per Secret: no dictionary of digests finds the password', async () => {
    s.write('secrets.yaml', `${basicAuth('a', PASSWORD)}---\n${basicAuth('b', PASSWORD)}`);
    s.write('rendered.yaml', (await s.cli(['render', '--values', 'values.yaml', '-f', 'tenants.yaml'])).stdout);
    const r = await s.cli(stateArgs(['rendered.yaml', 'tenants.yaml', 'secrets.yaml']));
    expect(r.code).toBe(0);
    const digests = digestsOf(r.stdout).filter(([n]) => n === 'a' || n === 'b');
    expect(digests.map(([n, d]) => [n, /^scrypt:4096:8:1:[0-9a-f]{32}:[0-9a-f]{64}$/.test(String(d))])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    // Not the unsalted digest of the password, and one password gives each Secret its own digest.
    expect(r.stdout).not.toContain(oldDigest({ password: PASSWORD }).slice(7));
    expect(digests[0][1]).not.toBe(digests[1][1]);
    // diff still tells unchanged data from changed against that state.
    s.write('state.yaml', r.stdout);
    const base = ['diff', '--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', ...NOW];
    s.write('same.yaml', basicAuth('a', PASSWORD));
    expect((await s.cli([...base, '-f', 'same.yaml'])).code).toBe(0);
    s.write('other.yaml', basicAuth('a', 'hunter3'));
    const other = await s.cli([...base, '-f', 'other.yaml']);
    expect([other.code, other.stdout.includes('password: "*** (changed)"')]).toEqual([3, true]);
  });

  it('a state written with the old digest is still compared, and the note says it is guessable and how to write it again', async () => {
    s.write('rendered.yaml', (await s.cli(['render', '--values', 'values.yaml', '-f', 'tenants.yaml'])).stdout);
    const r = await s.cli(stateArgs(['rendered.yaml', 'tenants.yaml']));
    const old = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n  namespace: tenant-root\n  annotations:\n    cozy-gw.cozystack.io/secret-data-omitted: password\n    cozy-gw.cozystack.io/secret-data-digest: ${oldDigest({ password: PASSWORD })}\ntype: Opaque\ndata: {}\n`;
    s.write('state.yaml', `${r.stdout}---\n${old}`);
    s.write('same.yaml', basicAuth('a', PASSWORD));
    const same = await s.cli([
      ...['diff', '--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'same.yaml'],
      ...NOW,
    ]);
    expect(same.code).toBe(0);
    s.write('other.yaml', basicAuth('a', 'hunter3'));
    const other = await s.cli([
      ...['diff', '--state', 'state.yaml', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'other.yaml'],
      ...NOW,
    ]);
    expect([other.code, other.stdout.includes('password: "*** (changed)"')]).toEqual([3, true]);
    expect(same.stderr).toContain(
      'note: the state holds the unsalted sha256 digest an earlier cozy-gw wrote of the data of 1 Secret: anyone who has the state can test guesses of that data against it; write the state again with this version (cozy-gw snapshot, or reconcile --all)',
    );
  });
});

describe("every output bounded by the change's meaning, not by how many routes repeat a hostname", () => {
  const routes = (n: number) =>
    Array.from(
      { length: n },
      (_, i) =>
        `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r${i}, namespace: tenant-root}\nspec:\n  parentRefs: [{name: cozystack, namespace: tenant-root}]\n  hostnames: [shop.example.org]\n  rules: [{backendRefs: [{name: shop, port: 80}]}]\n`,
    ).join('---\n');
  const diffArgs = [
    'diff',
    '--state',
    'state.yaml',
    '--values',
    'values.yaml',
    '-f',
    'tenants.yaml',
    '-f',
    'routes.yaml',
  ];

  it('800 routes sharing one hostname: linear JSON and HTML, the routes named once in the plan, the comment and the page', async () => {
    await stateWith('');
    s.write('routes.yaml', routes(800));
    const json = await s.cli([...diffArgs, '-o', 'json', ...NOW]);
    expect(json.code).toBe(3);
    // 800 created routes and 800 rows: some 400 KB; a list of the 799 others per row made 22 MB.
    expect(json.stdout.length).toBeLessThan(2_000_000);
    const rows = JSON.parse(json.stdout).hostnames as { route: string; after: Record<string, unknown> }[];
    expect(rows.length).toBe(800);
    expect(rows[0].after).toMatchObject({ state: 'served', shared: 800 });
    expect(JSON.stringify(rows[0])).not.toContain('HTTPRoute tenant-root/r1"');
    const named = '800 routes: HTTPRoute tenant-root/r0, HTTPRoute tenant-root/r1, ';
    const plan = await s.cli([...diffArgs, '-o', 'plan', ...NOW]);
    expect(plan.stdout).toContain(`shop.example.org  (${named}`);
    expect(plan.stdout.split('\n').filter((l) => l.includes('shop.example.org  (')).length).toBe(1);
    expect(plan.stdout).toContain('and 790 more)');
    const html = await s.cli([...diffArgs, '-o', 'html', ...NOW]);
    expect(html.stdout.length).toBeLessThan(2_000_000);
    expect(html.stdout.split('and 790 more').length - 1).toBe(1);
    const md = await s.cli([...diffArgs, '-o', 'markdown', '--comment-dir', 'cm', ...NOW]);
    expect(md.code).toBe(3);
    expect(fs.readdirSync(path.join(s.dir, 'cm')).length).toBeLessThan(15);
  });

  it('150 such routes with --comment-limit 4096: every part fits, a row too long for one continues below it', async () => {
    await stateWith('');
    s.write('routes.yaml', routes(150));
    const r = await s.cli([...diffArgs, '-o', 'markdown', '--comment-dir', 'cm', '--comment-limit', '4096', ...NOW]);
    expect([r.code, r.stderr.includes('cannot hold')]).toEqual([3, false]);
    for (const f of fs.readdirSync(path.join(s.dir, 'cm')))
      expect([f, fs.readFileSync(path.join(s.dir, 'cm', f), 'utf8').length <= 4096]).toEqual([f, true]);
  });
});

describe('snapshot -o FILE in a shared directory', () => {
  const FAKE = path.join(TESTDATA, 'fake-kubectl');
  const snapshot = (args: string[]) =>
    runCli(['snapshot', ...args], {
      cwd: s.dir,
      env: { PATH: `${FAKE}${path.delimiter}${path.dirname(process.execPath)}`, HOME: s.dir },
      exec: inProcessKubectl,
    });
  it('never writes through a temporary file another user planted: not a file at the name it used, nor a link there', async () => {
    s.write('victim.txt', 'precious\n');
    // The name the temporary file used to take, planted twice over: a link to a victim, and a file writable by all.
    const planted = path.join(s.dir, `.cluster.yaml.${process.pid}.tmp`);
    fs.symlinkSync(path.join(s.dir, 'victim.txt'), planted);
    const shared = path.join(s.dir, `.cluster.json.${process.pid}.tmp`);
    fs.writeFileSync(shared, 'theirs\n', { mode: 0o666 });
    fs.chmodSync(shared, 0o666);
    const r = await snapshot(['-q', '-o', 'cluster.yaml']);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(s.dir, 'victim.txt'), 'utf8')).toBe('precious\n');
    expect(fs.lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(fs.lstatSync(path.join(s.dir, 'cluster.yaml')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(s.dir, 'cluster.yaml'), 'utf8')).toMatch(/^# cozy-gw snapshot/);
    const j = await snapshot(['-q', '--format', 'json', '--include-secret-data', '-o', 'cluster.json']);
    expect(j.code).toBe(0);
    expect(fs.readFileSync(shared, 'utf8')).toBe('theirs\n');
    // Key material in it: readable by its owner only.
    expect((fs.statSync(path.join(s.dir, 'cluster.json')).mode & 0o777).toString(8)).toBe('600');
    // Nothing of the run's own is left.
    expect(
      fs
        .readdirSync(s.dir)
        .filter((f) => f.endsWith('.tmp'))
        .sort(),
    ).toEqual([path.basename(shared), path.basename(planted)].sort());
  });
});

describe("GitHub's legacy workflow commands (##[...]) pass through no line", () => {
  it('neither stderr nor the findings file carries one, however many findings; a leading :: neither', async () => {
    // Twelve unknown keys that read as legacy commands: past GitHub's ten annotations, plain lines.
    const keys = Array.from({ length: 12 }, (_, i) => `"##[error]forged ${i}": 1`).join('\n  ');
    s.write('values.yaml', MIN_VALUES.replace('publishing:\n', `publishing:\n  ${keys}\n`));
    s.write('::warning::forged.yaml', ROOT_TENANT.replace('gateway: true', 'gateway: true\n  "##[add-mask]x": 1'));
    const r = await s.cli([
      ...['render', '--values', 'values.yaml', '-f', '::warning::forged.yaml'],
      ...['--findings-file', 'findings.txt'],
    ]);
    expect(r.stderr).toContain('forged 11');
    const findings = fs.readFileSync(path.join(s.dir, 'findings.txt'), 'utf8');
    for (const [where, text] of [
      ['stderr', r.stderr],
      ['findings file', findings],
    ] as const) {
      expect([where, text.includes('##[')]).toEqual([where, false]);
      expect([where, text.split('\n').filter((l) => /^\s*::(?!(warning|error|notice) )/.test(l))]).toEqual([where, []]);
    }
  });
});

describe('a JSON List past 32 MiB (a large cluster, or render -o json of 2,000 tenants) reads, still bounded', () => {
  /** A `kubectl get -o json` List of ConfigMaps, some 34 MB. */
  const bigList = () => {
    const items = Array.from({ length: 340 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: 'tenant-root' },
      data: { blob: 'x'.repeat(100_000) },
    }));
    return JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 4);
  };
  it('from a file (item by item) and from standard input', async () => {
    const text = bigList();
    expect(text.length).toBeGreaterThan(34_000_000);
    s.write('big.json', text);
    const args = ['reconcile', '--all', '--values', 'values.yaml', '-f', 'tenants.yaml', ...NOW];
    const file = await s.cli([...args, '-f', 'big.json']);
    expect([file.code, file.stderr.includes('larger than')]).toEqual([0, false]);
    expect([file.stdout.includes('cm-0'), file.stdout.includes('cm-339')]).toEqual([true, true]);
    const stdin = await s.cli([...args, '-f', '-'], text);
    expect([stdin.code, stdin.stderr.includes('larger than')]).toEqual([0, false]);
  });
  it('an object past 3 MiB in it is still refused', async () => {
    const list = JSON.parse(bigList());
    list.items[5].data.blob = 'y'.repeat(4 * 1024 * 1024);
    s.write('big.json', JSON.stringify(list));
    const r = await s.cli(['reconcile', '--values', 'values.yaml', '-f', 'tenants.yaml', '-f', 'big.json', ...NOW]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: big\.json:1: .*(3 MiB|larger than)/m);
  });
});
