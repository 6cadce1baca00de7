/**
 * `diff` against a committed tree (docs/decisions.md §C8, §C14): the tree's record
 * holds the options that shaped it and the Tenants it was rendered from; a record of an earlier
 * format is refused with how to rewrite the tree; and every finding about a given object reaches
 * the reviewer — the typo that removes bob's Gateway (`gatway: true`) is named on stderr, in the
 * plan and in the JSON, beside the removal.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scratchCli, ROOT } from '../helpers/cli';

const NOW = '2026-01-01T00:00:00Z';
const { scratch, make, cli } = scratchCli('cozy-gw-diff-tree-');

const INPUTS = ['--values', 'values.yaml', '-f', 'tenants'];

beforeAll(async () => {
  const dir = make();
  fs.cpSync(path.join(ROOT, 'examples', 'platform', 'tenants'), path.join(dir, 'tenants'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'examples', 'platform', 'values.yaml'), path.join(dir, 'values.yaml'));
  fs.cpSync(path.join(dir, 'tenants'), path.join(dir, 'typo'), { recursive: true });
  const bob = path.join(dir, 'typo', 'bob.yaml');
  const text = fs.readFileSync(bob, 'utf8');
  expect(text).toMatch(/^ {2}gateway: true/m);
  fs.writeFileSync(bob, text.replace(/^ {2}gateway: true/m, '  gatway: true'));
  const r = await cli(['render', ...INPUTS, '--include-hooks', '--output-dir', 'deploy']);
  expect(r.code).toBe(0);
}, 60_000);

describe('a tree remembers how it was written', () => {
  it('the record holds the shaping options and the input Tenants', () => {
    const lines = fs.readFileSync(path.join(scratch.dir, 'deploy', '.cozy-gw-files'), 'utf8').split('\n');
    expect(JSON.parse(lines[1])).toMatchObject({ format: 4, files: 'yaml' });
    expect(JSON.parse(lines[2])).toEqual({ shape: { includeHooks: true, cozystackVersion: 'main' } });
    // The Tenants a thousand a line (src/io/treeRecord.ts).
    const tenants = lines
      .filter((l) => l.startsWith('{"tenants"'))
      .flatMap((l) => (JSON.parse(l) as { tenants: { metadata: { namespace: string; name: string } }[] }).tenants)
      .map((t) => `${t.metadata.namespace}/${t.metadata.name}`);
    expect(tenants.sort()).toEqual([
      'tenant-alice-dev/ci',
      'tenant-alice/dev',
      'tenant-bob/shop',
      'tenant-root/alice',
      'tenant-root/bob',
      'tenant-root/carol',
      'tenant-root/root',
    ]);
  });

  it('diff renders the change as the tree was written: the hooks are no deletion', async () => {
    const r = await cli(['diff', '--state', 'deploy', ...INPUTS, '--now', NOW]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '' });
  });

  it('a record of an earlier format is refused, saying how to rewrite the tree', async () => {
    const dir = path.join(scratch.dir, 'old');
    fs.cpSync(path.join(scratch.dir, 'deploy'), dir, { recursive: true });
    const rec = path.join(dir, '.cozy-gw-files');
    const lines = fs.readFileSync(rec, 'utf8').split('\n');
    // The format-2 record of the same tree: its header, and the file lines alone.
    const v2 = [
      '# cozy-gw output tree (record format 2): the files cozy-gw wrote here, which the next run replaces or removes. Do not edit.',
      JSON.stringify({ format: 2, files: 'yaml', id: 'x' }),
      ...lines.slice(2).filter((l) => l.startsWith('[')),
    ];
    fs.writeFileSync(rec, `${v2.join('\n')}\n`);
    const r = await cli(['diff', '--state', 'old', ...INPUTS, '--now', NOW]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      "--state old: the tree's record (.cozy-gw-files, format 2, written by an earlier cozy-gw)",
    );
    expect(r.stderr).toContain('write the tree again with this version');
  });
});

describe('every finding about the given objects reaches the reviewer', () => {
  const TYPO = 'Tenant tenant-root/bob: spec.gatway: unknown key; did you mean spec.gateway?';

  it('on stderr, beside the removal of bob’s Gateway', async () => {
    const r = await cli(['diff', '--state', 'deploy', '--values', 'values.yaml', '-f', 'typo', '--now', NOW]);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('TenantGateway tenant-bob/cozystack');
    expect(r.stderr).toContain(`warning: typo/bob.yaml:10: ${TYPO}`);
    expect(r.stderr).not.toContain('not repeated');
  });

  it('in the plan', async () => {
    const r = await cli([
      'diff',
      '--state',
      'deploy',
      '--values',
      'values.yaml',
      '-f',
      'typo',
      '-o',
      'plan',
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(3);
    // Placed at the given file and line, as on stderr.
    expect(r.stdout).toContain(`  warning: typo/bob.yaml:10: ${TYPO}`);
  });

  it('in the JSON', async () => {
    const r = await cli([
      'diff',
      '--state',
      'deploy',
      '--values',
      'values.yaml',
      '-f',
      'typo',
      '-o',
      'json',
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as {
      findings: { severity: string; message: string; field?: string; object?: { name: string } }[];
    };
    expect(doc.findings.map((f) => `${f.severity}: ${f.object?.name}: ${f.field}: ${f.message}`)).toContain(
      'warning: bob: spec.gatway: unknown key; did you mean spec.gateway?',
    );
  });
});

describe('cozystack-values is configuration: shown whole', () => {
  it('a platform values change shows in every tenant’s values, key by key in the plan, as text in the diff', async () => {
    const set = ['--set', 'networking.clusterDomain=other.local', '--now', NOW];
    const plan = await cli(['diff', '--state', 'deploy', ...INPUTS, ...set, '-o', 'plan']);
    expect(plan.code).toBe(3);
    const lines = plan.stdout.split('\n').filter((l) => l.includes('cluster-domain'));
    expect({ n: lines.length, first: lines[0] }).toEqual({
      n: 7,
      first: '      ~ stringData["values.yaml"]._cluster["cluster-domain"]: "cozy.local" -> "other.local"',
    });
    const unified = await cli(['diff', '--state', 'deploy', ...INPUTS, ...set]);
    expect(unified.stdout).toMatch(/^-\s+cluster-domain: cozy\.local$/m);
    expect(unified.stdout).toMatch(/^\+\s+cluster-domain: other\.local$/m);
  });
});
