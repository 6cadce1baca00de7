/**
 * `--validate` covers what the API server refuses beyond the published schemas
 * (src/validation/apiServerChecks.ts): names over their kind's limit (hook Job names included) and
 * negative, overflowing or fractional-count quantities in what is emitted.
 */
import { apiServerFindings } from '../../src/validation/apiServerChecks';
import type { KObject } from '../../src/k8s/model';
import { MIN_VALUES, ROOT_TENANT, useScratch } from '../helpers/cli';

const tenant = (name: string, ns: string, spec: string) =>
  `---\napiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: ${name}, namespace: ${ns}}\nspec: ${spec}\n`;

describe('--validate: what the API server would refuse in rendered objects', () => {
  // A tenant namespace of 63 characters (the most a Namespace takes): its hook Job, <T>-cleanup, has 71.
  const parent = 'p'.repeat(9);
  const child = 'c'.repeat(46);
  const s = useScratch('cozy-gw-apiserver-', {
    'values.yaml': MIN_VALUES,
    'long.yaml':
      ROOT_TENANT + tenant(parent, 'tenant-root', '{}') + tenant(child, `tenant-${parent}`, '{host: c.example.org}'),
    'quota.yaml':
      ROOT_TENANT + tenant('a', 'tenant-root', "{resourceQuotas: {cpu: '-1', memory: '1e30', pods: '1.5'}}"),
  });

  it('a hook Job name over 63 characters is refused with --validate --include-hooks, and renders without', async () => {
    const args = ['render', '--values', 'values.yaml', '-f', 'long.yaml', '--include-hooks'];
    expect((await s.cli(args)).code).toBe(0);
    const r = await s.cli([...args, '--validate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Job cozy-system/tenant-${parent}-${child}-cleanup: metadata.name: would be refused by the API server: the name is 71 characters long, at most 63`,
    );
  });

  it('negative, overflowing and fractional-count quota values are refused with --validate', async () => {
    const args = ['render', '--values', 'values.yaml', '-f', 'quota.yaml'];
    expect((await s.cli(args)).code).toBe(0);
    const r = await s.cli([...args, '--validate']);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.includes('validate') || l.includes('refused by the API server'));
    const want = [
      /spec\.hard\.limits\.cpu: would be refused by the API server: "-1" must be greater than or equal to 0/,
      /spec\.hard\.requests\.cpu: .*"-0\.1" must be greater than or equal to 0/,
      /spec\.hard\.limits\.memory: .*"1e30" overflows/,
      // The request is trunc(1e30), which Go's int of a float gives as the smallest int64.
      /spec\.hard\.requests\.memory: .*"-9223372036854775808" must be greater than or equal to 0/,
      /spec\.hard\.pods: .*"1\.5" must be an integer/,
    ];
    for (const w of want) expect([w.source, lines.some((l) => w.test(l))]).toEqual([w.source, true]);
  });
});

describe('apiServerFindings at the boundaries', () => {
  const obj = (apiVersion: string, kind: string, name: string, spec?: unknown): KObject =>
    ({ apiVersion, kind, metadata: { name, namespace: 'x' }, spec }) as KObject;
  it('names: 63 and 64 for Namespace, Service and Job; 52 and 53 for CronJob', () => {
    const cases: [string, string, number][] = [
      ['v1', 'Namespace', 63],
      ['v1', 'Service', 63],
      ['batch/v1', 'Job', 63],
      ['batch/v1', 'CronJob', 52],
    ];
    for (const [v, k, n] of cases) {
      expect([k, apiServerFindings([obj(v, k, 'a'.repeat(n))])]).toEqual([k, []]);
      expect([k, apiServerFindings([obj(v, k, 'a'.repeat(n + 1))]).map((f) => f.rule)]).toEqual([
        k,
        ['validate.name-length'],
      ]);
    }
    // A ConfigMap's name may be a DNS subdomain.
    expect(apiServerFindings([obj('v1', 'ConfigMap', 'a'.repeat(200))])).toEqual([]);
  });
  it('quantities: 0 and the largest int64 pass; -1n and one past it are refused; container resources too', () => {
    const rq = (hard: Record<string, unknown>) => obj('v1', 'ResourceQuota', 'q', { hard });
    expect(apiServerFindings([rq({ cpu: '0', memory: '9223372036854775807', pods: 3 })])).toEqual([]);
    expect(
      apiServerFindings([rq({ cpu: '-1n', memory: '9223372036854775808', x: '1e1.5' })]).map((f) => f.field),
    ).toEqual(['spec.hard.cpu', 'spec.hard.memory', 'spec.hard.x']);
    const job = obj('batch/v1', 'Job', 'j', {
      template: { spec: { containers: [{ name: 'c', resources: { limits: { cpu: '-100m' } } }] } },
    });
    expect(apiServerFindings([job]).map((f) => f.field)).toEqual([
      'spec.template.spec.containers[0].resources.limits.cpu',
    ]);
  });
});
