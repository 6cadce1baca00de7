/**
 * `--findings-file FILE --findings-format github|gitlab|sarif` on render, diff and admit
 * (src/cli/findingsFile.ts, src/reports/findingsReport.ts): every finding at its input file and
 * line, a values-file typo at the values file's line in all three formats; SARIF valid against
 * the SARIF 2.1.0 schema (schemas/sarif-2.1.0.schema.json, OASIS's, from the sarif-spec
 * repository), a GitLab report valid against GitLab's Code Quality issue schema
 * (schemas/gitlab-codequality-issue.schema.json, GitLab's app/validators/json_schemas/codeclimate.json)
 * with a stable fingerprint per finding; GitHub's 10 annotations per level per step, the rest
 * summed up.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv04 from 'ajv-draft-04';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { runCli, ROOT } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';
import { findingsReport, GITHUB_PER_LEVEL } from '../../src/reports/findingsReport';
import type { Finding } from '../../src/k8s/diagnostics';

const sarifSchema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', 'sarif-2.1.0.schema.json'), 'utf8'));
const gitlabSchema = JSON.parse(
  fs.readFileSync(path.join(ROOT, 'schemas', 'gitlab-codequality-issue.schema.json'), 'utf8'),
);
const ajv04 = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv04 as unknown as Ajv);
const validSarif = ajv04.compile(sarifSchema);
const ajv = new Ajv({ allErrors: true, strict: false });
const validIssue = ajv.compile(gitlabSchema);

function checkSarif(text: string): void {
  const doc = JSON.parse(text);
  const ok = validSarif(doc);
  expect({ ok, errors: validSarif.errors ?? null }).toEqual({ ok: true, errors: null });
}

function checkGitlab(text: string): void {
  const doc = JSON.parse(text) as unknown[];
  expect(Array.isArray(doc)).toBe(true);
  for (const [i, issue] of doc.entries()) {
    const ok = validIssue(issue);
    expect({ issue: i, ok, errors: validIssue.errors ?? null }).toEqual({ issue: i, ok: true, errors: null });
  }
}

/** The example platform's values with a typo (`publishing.hots`) right under `publishing:`. */
const EXAMPLE_VALUES = fs.readFileSync(path.join(ROOT, 'examples', 'platform', 'values.yaml'), 'utf8').split('\n');
const TYPO_LINE = EXAMPLE_VALUES.indexOf('publishing:') + 2;
const VALUES = [
  ...EXAMPLE_VALUES.slice(0, TYPO_LINE - 1),
  '  hots: typo.example.org',
  ...EXAMPLE_VALUES.slice(TYPO_LINE - 1),
].join('\n');

const TENANT =
  'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: alice\n  namespace: tenant-root\nspec:\n  gateway: true\n';

describe('--findings-file', () => {
  const dir = tmpDir('findings');
  fs.writeFileSync(path.join(dir, 'values.yaml'), VALUES);
  fs.writeFileSync(path.join(dir, 'alice.yaml'), TENANT);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const commands: Record<string, string[]> = {
    render: ['render', '--values', 'values.yaml', '-f', 'alice.yaml'],
    diff: [
      'diff',
      '--state',
      path.join(ROOT, 'examples', 'diff', 'state.yaml'),
      '--values',
      'values.yaml',
      '-f',
      'alice.yaml',
    ],
  };

  for (const [name, args] of Object.entries(commands))
    for (const format of ['github', 'gitlab', 'sarif'] as const)
      it(`${name}: a values-file typo's finding points at values.yaml:${TYPO_LINE} (${format})`, async () => {
        const out = `${name}-${format}.out`;
        const r = await runCli([...args, '--findings-file', out, '--findings-format', format], { cwd: dir });
        expect(r.stderr).toContain(`values.yaml:${TYPO_LINE}: publishing.hots: unknown key`);
        const text = fs.readFileSync(path.join(dir, out), 'utf8');
        if (format === 'github') {
          expect(text).toMatch(
            new RegExp(`^::warning file=values.yaml,line=${TYPO_LINE},title=[^:]*::publishing.hots: unknown key`, 'm'),
          );
        } else if (format === 'gitlab') {
          checkGitlab(text);
          const issues = JSON.parse(text) as {
            description: string;
            location: { path: string; lines: { begin: number } };
          }[];
          const typo = issues.find((i) => i.description.includes('publishing.hots'));
          expect(typo?.location).toEqual({ path: 'values.yaml', lines: { begin: TYPO_LINE } });
        } else {
          checkSarif(text);
          const results = JSON.parse(text).runs[0].results as {
            message: { text: string };
            locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
          }[];
          const typo = results.find((x) => x.message.text.includes('publishing.hots'));
          expect(typo?.locations[0].physicalLocation).toEqual({
            artifactLocation: { uri: 'values.yaml', uriBaseId: '%SRCROOT%' },
            region: { startLine: TYPO_LINE },
          });
        }
      });

  it('diff: the comment names the typo at its file and line too (every finding about what the change gives)', async () => {
    const r = await runCli([...commands.diff, '-o', 'markdown'], { cwd: dir });
    expect(r.stdout).toContain(`<code>values&#46;yaml&#58;${TYPO_LINE}&#58; publishing&#46;hots&#58; unknown key`);
  });

  it('admit: each denial at the object it refuses, in SARIF; an error that stops a run is written too', async () => {
    const route = fs.readFileSync(path.join(ROOT, 'examples', 'admission', 'route-outside-apex.yaml'), 'utf8');
    fs.writeFileSync(path.join(dir, 'route.yaml'), route);
    const r = await runCli(
      [
        'admit',
        '--values',
        path.join(ROOT, 'examples', 'platform', 'values.yaml'),
        '-f',
        'route.yaml',
        '--findings-file',
        'admit.sarif',
        '--findings-format',
        'sarif',
      ],
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    const text = fs.readFileSync(path.join(dir, 'admit.sarif'), 'utf8');
    checkSarif(text);
    const results = JSON.parse(text).runs[0].results as {
      level: string;
      locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
    }[];
    expect(results.length).toBeGreaterThan(0);
    for (const x of results)
      expect({ level: x.level, uri: x.locations[0].physicalLocation.artifactLocation.uri }).toEqual({
        level: 'error',
        uri: 'route.yaml',
      });

    fs.writeFileSync(path.join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: [\n');
    const broken = await runCli(
      ['render', '-f', 'broken.yaml', '--findings-file', 'broken.json', '--findings-format', 'gitlab'],
      { cwd: dir },
    );
    expect(broken.code).toBe(1);
    const issues = JSON.parse(fs.readFileSync(path.join(dir, 'broken.json'), 'utf8')) as {
      severity: string;
      location: { path: string };
    }[];
    checkGitlab(JSON.stringify(issues));
    expect(issues.map((i) => [i.severity, i.location.path])).toContainEqual(['major', 'broken.yaml']);
  });

  it('an empty --findings-file is a usage error', async () => {
    const r = await runCli([...commands.render, '--findings-file', ''], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--findings-file is empty');
  });
});

describe('findingsReport', () => {
  const many = (severity: Finding['severity'], n: number): Finding[] =>
    Array.from({ length: n }, (_, i) => ({ severity, message: `${severity} ${i}`, file: `f${i}.yaml`, line: i + 1 }));

  it(`github: at most ${GITHUB_PER_LEVEL} annotations per level, the rest summed up and kept in the log`, () => {
    const text = findingsReport([...many('warning', 25), ...many('error', 3), ...many('info', 10)], 'github', {
      version: '0',
    });
    const lines = text.split('\n').filter(Boolean);
    const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
    expect(count(/^::warning /)).toBe(GITHUB_PER_LEVEL);
    expect(count(/^::error /)).toBe(3);
    expect(count(/^::notice /)).toBe(10);
    expect(lines).toContain(
      "::warning title=cozy-gw::16 more warnings not annotated (GitHub shows 10 per level per step); every one is in this step's log",
    );
    for (let i = 9; i < 25; i++) expect(lines).toContain(`warning: f${i}.yaml:${i + 1}: warning ${i}`);
  });

  it('github: a message or file name cannot forge another command (newlines, %, :: and , encoded)', () => {
    const text = findingsReport(
      [{ severity: 'warning', message: 'x\n::error::forged %0A', file: 'a,b:c.yaml', line: 2 }],
      'github',
      { version: '0' },
    );
    expect(text.split('\n').filter(Boolean)).toEqual([
      '::warning file=a%2Cb%3Ac.yaml,line=2,title=cozy-gw::x\\n::error::forged %250A',
    ]);
  });

  it('gitlab: fingerprints stable across runs and line moves, different for different findings, unique for repeats', () => {
    const f: Finding = { severity: 'warning', message: 'm', file: 'v.yaml', line: 3, field: 'publishing.hots' };
    const fp = (fs: Finding[]) =>
      (JSON.parse(findingsReport(fs, 'gitlab', { version: '0' })) as { fingerprint: string }[]).map(
        (i) => i.fingerprint,
      );
    expect(fp([f])).toEqual(fp([f]));
    expect(fp([{ ...f, line: 9 }])).toEqual(fp([f]));
    expect(fp([{ ...f, message: 'n' }])).not.toEqual(fp([f]));
    const twice = fp([f, f]);
    expect(new Set(twice).size).toBe(2);
    expect(twice[0]).toBe(fp([f])[0]);
  });

  it('sarif: a finding with no file has no location, and the log still validates', () => {
    checkSarif(
      findingsReport([{ severity: 'error', message: 'no file' }, ...many('info', 2)], 'sarif', { version: '1.2.3' }),
    );
    checkSarif(findingsReport([], 'sarif', { version: '1.2.3' }));
  });
});
