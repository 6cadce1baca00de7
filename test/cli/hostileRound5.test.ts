/**
 * Hostile input, round 5: one test per defect, at the CLI. The admission
 * look-ahead never prints key material, whatever path a change's policy takes to it; CEL is
 * cancelled as the API server cancels it (per call, per policy evaluation) and a breach follows the
 * policy's failurePolicy; matchPolicy Equivalent judges the versions the cluster serves.
 */
import * as jsyaml from 'js-yaml';
import { MIN_VALUES, ROOT_TENANT, useScratch } from '../helpers/cli';

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
