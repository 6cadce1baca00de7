/**
 * Citations in comments resolve (ARCHITECTURE.md "Citing the documents"): every `docs/<doc>.md §<id>`,
 * docs/ page heading and ARCHITECTURE.md heading exists, every path into the repository exists,
 * and nothing cites a document the repository does not hold, an issue number, a README heading
 * (the README is a tour) or, in src/, a benchmark round. scripts/check-citations.js does the
 * work; `npm run check-citations` prints the same report, `-- --list` every citation.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Problem {
  line: number;
  message: string;
}
interface Checked {
  problems: Problem[];
  citations: { line: number; cite: string; resolved: boolean }[];
}
const checker = require('../scripts/check-citations.js') as {
  checkText(file: string, text: string, ctx: unknown): Checked;
  fixText(file: string, text: string): string;
  checkRepository(root?: string, dirs?: string[]): ({ file: string } & Checked)[];
  contextFor(root?: string): unknown;
};

const ROOT = path.resolve(__dirname, '..');
const ctx = checker.contextFor(ROOT);
const problems = (text: string, file = 'src/example.ts') =>
  checker.checkText(file, text, ctx).problems.map((p) => `${p.line}: ${p.message}`);

test('every citation in src/, test/, scripts/ and bench/ resolves', () => {
  const found = checker
    .checkRepository(ROOT)
    .flatMap((f) => f.problems.map((p) => `${f.file}:${p.line}: ${p.message}`));
  expect(found).toEqual([]);
});

describe('what resolves', () => {
  test('a section, several sections, a range, a heading, a docs/ page heading, an ARCHITECTURE.md heading', () => {
    const text = [
      '/** docs/behaviour.md §5.8, §5.9 and docs/tenant.md §2.0.6. */',
      '// docs/decisions.md §Q1–§Q16, docs/decisions.md §C1; docs/decisions.md "The platform values channel"',
      '// docs/commands/diff.md "What it does" and docs/commands/README.md "Values, warnings and trees"',
      '// ARCHITECTURE.md "Rules of the house", docs/performance.md',
    ].join('\n');
    expect(problems(text)).toEqual([]);
    expect(checker.checkText('src/example.ts', text, ctx).citations.map((c) => c.cite)).toEqual([
      'docs/behaviour.md §5.8',
      'docs/behaviour.md §5.9',
      'docs/tenant.md §2.0.6',
      'docs/decisions.md §Q1',
      'docs/decisions.md §Q16',
      'docs/decisions.md §C1',
      'docs/decisions.md "The platform values channel"',
      'docs/commands/diff.md "What it does"',
      'docs/commands/README.md "Values, warnings and trees"',
      'docs/performance.md',
      'ARCHITECTURE.md "Rules of the house"',
    ]);
  });

  test('a bare § is read in the document cited last above it', () => {
    expect(problems('// docs/tenant.md §2.2\nconst a = 1;\n// §2.0.4, then §3')).toEqual([]);
    expect(problems('// docs/tenant.md §2.2\n// §5.8')).toEqual([
      '2: §5.8 (in docs/tenant.md, cited last above) does not exist',
    ]);
    expect(problems('// §5.8 alone')).toEqual(['1: §5.8 names no document (write docs/<doc>.md §5.8)']);
  });

  test('paths: files, folders, a left-out extension, a glob', () => {
    expect(problems('// src/k8s/model.ts, src/charts/, test/e2e/golden, test/k8s/yaml*.test.ts')).toEqual([]);
    expect(problems('// the pass is src/reconcile.ts')).toEqual(['1: path src/reconcile.ts does not exist']);
  });
});

describe('what is refused', () => {
  test('a section or heading that does not exist', () => {
    expect(
      problems(
        '// docs/behaviour.md §99 and docs/nope.md §1 and docs/commands/diff.md "No such" and ARCHITECTURE.md "Nor"',
      ),
    ).toEqual([
      '1: docs/behaviour.md has no section §99',
      '1: docs/nope.md does not exist',
      '1: docs/commands/diff.md has no heading "No such"',
      '1: ARCHITECTURE.md has no heading "Nor"',
    ]);
  });

  test('a README heading, even one that exists, also wrapped onto the next line: the README is a tour, the reference is in docs/', () => {
    expect(problems('// README "Set-up: two commands"')).toEqual([
      '1: comment cites a README heading ("Set-up: two commands"): the README is a tour; cite docs/ (docs/commands/<command>.md, docs/performance.md, ARCHITECTURE.md, ...)',
    ]);
    expect(
      problems('/**\n * the options (README\n * "Values, warnings and\n * trees") of it\n */').map(
        (p) => p.split(': the')[0],
      ),
    ).toEqual(['2: comment cites a README heading ("Values, warnings and trees")']);
  });

  test('a benchmark round, in a comment of src/; a round trip is no round', () => {
    const text = [
      '// 22 MB less (bench/RESULTS.md round 39)',
      '// as measured two rounds before, and this round',
      '// the round trip, a round-trip, that round trip',
    ].join('\n');
    expect(problems(text).map((p) => p.replace(/: say what .*$/, ''))).toEqual([
      '1: comment cites a benchmark round ("round 39")',
      '2: comment cites a benchmark round ("two rounds before")',
      '2: comment cites a benchmark round ("this round")',
    ]);
    expect(problems(text, 'test/example.test.ts')).toEqual([]);
  });

  test("the specification's files and issue numbers, in comments and test titles", () => {
    const spec = [
      'reference-facts §5.8',
      'cli-contract "Inputs"',
      'tenant-gateway.md',
      'tenant-chart.md §2.2',
      'decisions.md §12',
      'decisions 7',
    ];
    for (const cite of spec)
      expect({ cite, found: problems(`// ${cite}`).filter((m) => m.includes('does not hold')).length }).toEqual({
        cite,
        found: 1,
      });
    expect(problems('// the layout (issue 9)')).toEqual([
      '1: comment cites an issue number (say what the thing is instead): "issue 9"',
    ]);
    expect(problems("describe('merge (decisions §3)', () => {});", 'test/example.test.ts')).toEqual([
      '1: test title cites a document the repository does not hold (docs/decisions.md): "decisions"',
    ]);
  });

  test("the text the package ships or the build embeds is read whole: a schema's description, a chart's comment", () => {
    expect(
      problems('{ "description": "A Tenant (cli-contract \'Inputs\', reference-facts §2)" }', 'schemas/x.schema.json'),
    ).toEqual([
      '1: comment cites a document the repository does not hold: "reference-facts"',
      '1: comment cites a document the repository does not hold (cite a README heading): "cli-contract"',
      '1: §2 names no document (write docs/<doc>.md §2)',
    ]);
    expect(problems('# Defaults (docs/behaviour.md §1)\nkey: 1\n', 'charts/x/values.yaml')).toEqual([]);
    expect(problems('# see ../shared/conformance/run.py', 'charts/x/values.yaml')).toEqual([
      '1: comment cites a folder beside the repository that a clone does not have: "../shared/c"',
    ]);
  });

  test('strings, template literals and regular expressions are not comments', () => {
    const text = [
      "const a = 'issue 5 // reference-facts §5.8';",
      'const b = `/* decisions 7 */ ${a} // §9`;',
      'const c = /\\/\\/ cli-contract/;',
    ].join('\n');
    expect(problems(text)).toEqual([]);
  });
});

describe('--fix', () => {
  test("maps the specification's numbered sections to docs/, in comments and test titles only", () => {
    const text = [
      '// reference-facts §5.8, tenant-chart.md §2.2, tenant-chart.md §5 Q5; decisions.md 12; RF §7 layer 4',
      "it('guard (reference-facts §3 guard 1)', () => {});",
      'const s = "reference-facts §1";',
      '// cli-contract "cozy-gw diff", cli-contract "Reading values and writing trees"',
      '// README "Performance", README "`cozy-gw snapshot`, completion, version"; README "Design"',
    ].join('\n');
    expect(checker.fixText('test/example.test.ts', text).split('\n')).toEqual([
      '// docs/behaviour.md §5.8, docs/tenant.md §2.2, docs/decisions.md §Q5; docs/decisions.md §12; docs/behaviour.md §7.4',
      "it('guard (docs/behaviour.md §3.1 guard 1)', () => {});",
      'const s = "reference-facts §1";',
      '// docs/commands/diff.md, docs/commands/README.md "Values, warnings and trees"',
      '// docs/performance.md, docs/commands/snapshot.md; ARCHITECTURE.md "Rules of the house"',
    ]);
  });

  test('what it writes resolves', () => {
    const fixed = checker.fixText(
      'src/example.ts',
      '// reference-facts §5.9 cause 4; tenant-chart §2.0.6; decisions §Q3; README "cozy-gw diff"; README "Memory at scale"',
    );
    expect(problems(fixed)).toEqual([]);
  });
});

describe('the pages a clone holds', () => {
  /** README.md, ARCHITECTURE.md, and every page of docs/ and examples/. */
  const pages = (): string[] => {
    const out = ['README.md', 'ARCHITECTURE.md'];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (e.name.endsWith('.md')) out.push(rel);
      }
    };
    walk('docs');
    walk('examples');
    return out;
  };

  test('point at no folder beside the repository (a clone has no ../shared/)', () => {
    const found = pages().flatMap((page) =>
      fs
        .readFileSync(path.join(ROOT, page), 'utf8')
        .split('\n')
        .flatMap((l, i) => (/\.\.\/shared\//.test(l) ? [`${page}:${i + 1}: ${l.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  test("docs/README.md states the decisions' section ranges docs/decisions.md has", () => {
    const decisions = fs.readFileSync(path.join(ROOT, 'docs', 'decisions.md'), 'utf8');
    const ids = [...decisions.matchAll(/^#{2,4} §([A-Z]?)(\d+)\b/gm)];
    const range = (prefix: string) => {
      const n = ids.filter((m) => m[1] === prefix).map((m) => Number(m[2]));
      return `§${prefix}${Math.min(...n)}–§${prefix}${Math.max(...n)}`;
    };
    const index = fs.readFileSync(path.join(ROOT, 'docs', 'README.md'), 'utf8');
    const row = index.split('\n').find((l) => l.startsWith('| [decisions.md]'));
    const stated = [...(row ?? '').matchAll(/§[A-Z]?\d+–§[A-Z]?\d+/g)].map((m) => m[0]);
    expect(stated).toEqual([range(''), range('Q'), range('C')]);
  });

  test('docs/README.md is the index for readers: the rules for contributors are in ARCHITECTURE.md', () => {
    const index = fs.readFileSync(path.join(ROOT, 'docs', 'README.md'), 'utf8');
    expect(index).not.toMatch(/^## Citing/m);
    expect(index).not.toMatch(/check-citations|UPDATE_DOCS/);
    expect(fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8')).toMatch(/^## Citing the documents$/m);
  });
});
