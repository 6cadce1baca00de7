/**
 * Each Tenant's own checks made once (src/charts/tenantChart.ts tenantChecks), and a tree's record
 * saying they found nothing (src/io/treeRecord.ts `checked`): a changed-only run checks only the
 * Tenants whose text differs from the tree's (docs/performance.md "Changed-only").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tenantChecks } from '../../src/charts/tenantChart';
import { parseRecordHead, recordBytes } from '../../src/io/treeRecord';
import type { KObject } from '../../src/k8s/model';
import { ROOT, runCli, STACK_FRAME } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';

const tenant = (name: string, namespace: string, spec: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name, namespace }, spec }) as KObject;

describe('tenantChecks', () => {
  const odd = tenant('bob', 'tenant-root', { colour: 'blue' });
  it('a Tenant with an unknown key has a finding; its copy of the same text shares it', () => {
    const copy = JSON.parse(JSON.stringify(odd)) as KObject;
    const checks = tenantChecks([odd, copy]);
    expect(checks.get(odd)?.map((f) => f.message)).toEqual(['unknown key']);
    expect(checks.get(copy)).toBe(checks.get(odd));
  });
  it('Tenants known clean are not checked again, nor any of the same text; another text is', () => {
    const known = tenant('alice', 'tenant-root', { colour: 'red' });
    const same = JSON.parse(JSON.stringify(known)) as KObject;
    const checks = tenantChecks([known, same, odd], undefined, [known]);
    // Taken as the record says (the checks are not run for them).
    expect([checks.get(known), checks.get(same)]).toEqual([[], []]);
    expect(checks.get(odd)?.length).toBe(1);
  });
});

describe("the record's checked line", () => {
  const making = { shape: {}, tenants: [tenant('root', 'tenant-root')] };
  const releases = [{ namespace: 'tenant-root', files: [] }];
  it('written when every Tenant was clean, read back; absent otherwise', () => {
    const withIt = parseRecordHead(
      recordBytes({ format: 'yaml', making: { ...making, checked: true }, releases, kustomization: 'k' }),
    );
    const without = parseRecordHead(recordBytes({ format: 'yaml', making, releases, kustomization: 'k' }));
    expect([withIt?.making.checked, without?.making.checked]).toEqual([true, undefined]);
  });

  it('render --output-dir says so for clean Tenants only, and a changed-only render or diff still gives the warnings of a Tenant that has them', async () => {
    const cwd = tmpDir('tenant-checks');
    fs.cpSync(path.join(ROOT, 'examples/platform/tenants'), path.join(cwd, 'tenants'), { recursive: true });
    const values = path.join(ROOT, 'examples/platform/values.yaml');
    const render = (out: string) =>
      runCli(['render', '--values', values, '-f', 'tenants', '--output-dir', out], { cwd });
    const record = (out: string) => fs.readFileSync(path.join(cwd, out, '.cozy-gw-files'), 'utf8');
    expect((await render('clean')).code).toBe(0);
    expect(record('clean')).toContain('\n{"checked":true}\n');
    // A warning in one Tenant: the record does not say clean, and the tree's runs give it again.
    const bob = path.join(cwd, 'tenants', 'bob.yaml');
    fs.writeFileSync(bob, fs.readFileSync(bob, 'utf8').replace(/^spec:/m, 'spec:\n  colour: blue'));
    const odd = await render('odd');
    expect(odd.stderr).toContain('spec.colour: unknown key');
    expect(record('odd')).not.toContain('"checked"');
    const again = await render('odd');
    expect([again.code, again.stderr.includes('spec.colour: unknown key')]).toEqual([0, true]);
    const diff = await runCli(['diff', '-o', 'plan', '--state', 'odd', '--values', values, '-f', 'tenants'], { cwd });
    expect(diff.stderr).not.toMatch(STACK_FRAME);
    expect([diff.code, diff.stderr.includes('spec.colour: unknown key')]).toEqual([0, true]);
    // The clean tree, diffed against the changed Tenants: the warning of the Tenant whose text changed.
    const against = await runCli(['diff', '-o', 'plan', '--state', 'clean', '--values', values, '-f', 'tenants'], {
      cwd,
    });
    expect([against.code, against.stderr.includes('spec.colour: unknown key')]).toEqual([3, true]);
  });
});
