/**
 * Every report's header names the Cozystack version reproduced, and says when the state is of
 * another (docs/versions.md "Choosing a version"; docs/commands/diff.md, reconcile.md): `diff -o
 * plan|json|markdown|html` and `reconcile -o plan`. A tree's record keeps the version it was
 * rendered for, and `diff` against the tree renders that version unless told otherwise.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, scratchCli } from '../helpers/cli';
import { versionHtml, versionJson, versionLine, versionMarkdown } from '../../src/reports/versionHeader';
import type { KObject } from '../../src/k8s/model';

const EXAMPLE = path.join(ROOT, 'examples', 'platform');
/** A user's shell: no COZY_GW_COZYSTACK_VERSION (the suite pins main through it, test/setupVersion.ts). */
const {
  scratch,
  make,
  cli: run,
} = scratchCli('cozy-gw-version-headers-', {
  env: { COZY_GW_COZYSTACK_VERSION: undefined },
});
const cli = (args: string[]) => run(args);
const INPUTS = ['--values', 'values.yaml', '-f', 'tenants'];

beforeAll(async () => {
  const dir = make();
  fs.cpSync(path.join(EXAMPLE, 'tenants'), path.join(dir, 'tenants'), { recursive: true });
  fs.copyFileSync(path.join(EXAMPLE, 'values.yaml'), path.join(dir, 'values.yaml'));
  const r = await cli(['render', ...INPUTS, '--cozystack-version', 'v1.5.4', '--output-dir', 'tree']);
  expect(r.code).toBe(0);
}, 60_000);

describe('a tree rendered for v1.5.4', () => {
  test('its record keeps the version', () => {
    const record = fs.readFileSync(path.join(scratch.dir, 'tree', '.cozy-gw-files'), 'utf8').split('\n');
    expect(record[2]).toBe('{"shape":{"cozystackVersion":"v1.5.4"}}');
  });

  test('diff against it with no flag renders v1.5.4: clean, and every header names v1.5.4 as the state’s', async () => {
    const plain = await cli(['diff', '--state', 'tree', ...INPUTS]);
    expect({ code: plain.code, stdout: plain.stdout }).toEqual({ code: 0, stdout: '' });
    expect(plain.stderr).not.toMatch(/version|warning/);
    const plan = await cli(['diff', '--state', 'tree', ...INPUTS, '-o', 'plan']);
    expect(plan.stdout.split('\n').slice(0, 2)).toEqual([
      'Diff plan for Cilium 1.20.2',
      "Cozystack version: v1.5.4, the state's (the tree's record)",
    ]);
    const json = JSON.parse((await cli(['diff', '--state', 'tree', ...INPUTS, '-o', 'json'])).stdout);
    expect(json.cozystack).toEqual({
      version: 'v1.5.4',
      state: { version: 'v1.5.4', versions: ['v1.5.4'], from: "the tree's record", differs: false },
    });
  });

  test('with --cozystack-version main: the render differs (main’s grafana-dashboards egress, docs/versions.md §T5), and stderr and every header say the versions differ', async () => {
    const r = await cli(['diff', '--state', 'tree', ...INPUTS, '--cozystack-version', 'main', '-o', 'json']);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as { created: KObject[]; cozystack: unknown };
    expect(doc.created.map((o) => o.metadata.name)).toContain('allow-to-grafana-dashboards');
    expect(doc.cozystack).toEqual({
      version: 'main',
      state: { version: 'v1.5.4', versions: ['v1.5.4'], from: "the tree's record", differs: true },
    });
    expect(r.stderr).toContain(
      "warning: the state is of Cozystack v1.5.4 (the tree's record) and cozy-gw reproduces main\n",
    );
  });

  test.each([
    [
      'plan',
      (out: string) => out.split('\n')[1],
      "Cozystack version: v1.6.2; the state is of Cozystack v1.5.4 (the tree's record)",
    ],
    [
      'markdown',
      (out: string) => out.split('\n')[2],
      '**Cozystack version:** <code>v1&#46;6&#46;2</code>; **the state is of Cozystack <code>v1&#46;5&#46;4</code>** (<code>the tree&#39;s record</code>)',
    ],
    [
      'html',
      (out: string) => /<p id="cozystack">.*?<\/p>/.exec(out)?.[0],
      '<p id="cozystack">Cozystack version: <code>v1.6.2</code>; <strong>the state is of Cozystack <code>v1.5.4</code></strong> (the tree&#39;s record)</p>',
    ],
    [
      'json',
      (out: string) => JSON.stringify(JSON.parse(out).cozystack),
      JSON.stringify({
        version: 'v1.6.2',
        state: { version: 'v1.5.4', versions: ['v1.5.4'], from: "the tree's record", differs: true },
      }),
    ],
  ])(
    'with --cozystack-version v1.6.2, -o %s: the header and stderr say the versions differ',
    async (format, header, want) => {
      const r = await cli(['diff', '--state', 'tree', ...INPUTS, '--cozystack-version', 'v1.6.2', '-o', format]);
      expect({ format, header: header(r.stdout) }).toEqual({ format, header: want });
      expect(r.stderr).toContain(
        "warning: the state is of Cozystack v1.5.4 (the tree's record) and cozy-gw reproduces v1.6.2\n",
      );
    },
  );
});

describe('a state that tells no version', () => {
  test('every header names the version reproduced (the default v1.6.2, or the flag’s), and nothing about the state', async () => {
    fs.writeFileSync(path.join(scratch.dir, 'rendered.yaml'), (await cli(['render', ...INPUTS])).stdout);
    for (const [args, version] of [
      [[], 'v1.6.2'],
      [['--cozystack-version', 'v1.5'], 'v1.5.4'],
    ] as const) {
      const plan = await cli([
        'reconcile',
        '-f',
        'rendered.yaml',
        ...INPUTS,
        '-o',
        'plan',
        '--now',
        '2026-01-01T00:00:00Z',
        ...args,
      ]);
      expect({ args, line: plan.stdout.split('\n')[1] }).toEqual({ args, line: `Cozystack version: ${version}` });
      const md = await cli(['diff', '--state', 'rendered.yaml', ...INPUTS, '-o', 'markdown', ...args]);
      expect({ args, line: md.stdout.split('\n')[2] }).toEqual({
        args,
        line: `**Cozystack version:** <code>${version.replace(/\./g, '&#46;')}</code>`,
      });
      const html = await cli(['diff', '--state', 'rendered.yaml', ...INPUTS, '-o', 'html', ...args]);
      expect({
        args,
        html: html.stdout.includes(`<p id="cozystack">Cozystack version: <code>${version}</code></p>`),
      }).toEqual({
        args,
        html: true,
      });
    }
  });
});

describe('the header’s words (src/reports/versionHeader.ts)', () => {
  const hostile = {
    version: 'v1.6.2',
    state: {
      version: 'v1.5.0',
      versions: ['v1.5.0'],
      from: 'Deployment x</code><script>alert(1)</script> | **bold**\n# heading',
      differs: true,
    },
  };

  test('what the state tells is escaped in each format: no tag, no Markdown, no line of its own', () => {
    const md = versionMarkdown(hostile);
    expect(md).not.toMatch(/<script>|\*\*bold|\n#|\|/);
    expect(md.trimEnd().split('\n')).toHaveLength(1);
    const page = versionHtml(hostile);
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;');
    expect(page.split('\n')).toHaveLength(1);
    expect(versionJson(hostile)).toEqual({ version: 'v1.6.2', state: hostile.state });
  });

  test('a state that tells only a line names the versions it allows', () => {
    const line = {
      version: 'v1.6.2',
      versions: ['v1.5.0', 'v1.5.1', 'v1.5.2', 'v1.5.3'],
      from: 'ConfigMap',
      differs: true,
    };
    expect(versionLine({ version: 'v1.6.2', state: line })).toBe(
      'Cozystack version: v1.6.2; the state is of Cozystack v1.5.0, v1.5.1, v1.5.2 or v1.5.3 (ConfigMap)',
    );
  });
});
