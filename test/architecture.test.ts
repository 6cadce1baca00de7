/**
 * The layout's rules, read from the sources (ARCHITECTURE.md "Layers"): no import cycle among src/ modules; the
 * core (every folder but cli/ and io/) imports nothing from cli/ or io/; ARCHITECTURE.md's map
 * names every folder of src/. Static imports and `export ... from` count; a `require` inside a
 * function (the command table's loaders) is not an import at load time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'src');

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
    );
}

function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(c)) return c;
  return undefined;
}

/** Each module's load-time imports (type-only imports excluded: they vanish at build). */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files(SRC)) {
    const text = fs.readFileSync(f, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
      const to = resolve(f, m[1] ?? m[2]);
      if (to) deps.push(to);
    }
    g.set(f, deps);
  }
  return g;
}

const rel = (f: string) => path.relative(ROOT, f);
const G = graph();

test('the graph is read', () => {
  expect(G.size).toBeGreaterThan(50);
  expect(G.get(path.join(SRC, 'cli/index.ts'))!.map(rel)).toContain('src/cli/context.ts');
});

/** Every module's imports of any kind (type-only, `export ... from`, require, import()): a cycle of types is still a cycle. */
const FULL = new Map([...G.keys()].map((f) => [f, allImports(f)]));

test('no import cycle of any kind, type-only imports included', () => {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, stack: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...stack.slice(stack.indexOf(f)), f].map(rel).join(' → '));
      return;
    }
    state.set(f, 'open');
    for (const d of FULL.get(f) ?? []) visit(d, [...stack, f]);
    state.set(f, 'done');
  };
  for (const f of FULL.keys()) visit(f, []);
  expect(cycles).toEqual([]);
});

/**
 * The layers, lowest first: each folder of src/ and the folders it may import from (type-only
 * imports count too: a type names what a module knows about). Anything else is an upward or a
 * sideways import, and fails.
 */
const ALLOWED: Record<string, string[]> = {
  k8s: [],
  assets: ['k8s'],
  cel: ['k8s'],
  platform: ['k8s'],
  validation: ['k8s', 'assets', 'cel', 'platform'],
  charts: ['k8s', 'assets', 'platform', 'validation'],
  admission: ['k8s', 'cel', 'platform'],
  controller: ['k8s', 'platform', 'admission'],
  pipelines: ['k8s', 'assets', 'cel', 'platform', 'validation', 'charts', 'admission', 'controller'],
  diff: ['k8s', 'assets', 'cel', 'platform', 'validation', 'charts', 'admission', 'controller', 'pipelines'],
  reports: ['k8s', 'platform', 'admission', 'controller', 'pipelines', 'diff'],
  protocols: ['k8s', 'assets', 'platform', 'validation', 'charts', 'admission', 'controller', 'pipelines'],
  io: ['k8s', 'platform'],
  cli: [
    'k8s',
    'assets',
    'cel',
    'platform',
    'validation',
    'charts',
    'admission',
    'controller',
    'pipelines',
    'diff',
    'reports',
    'protocols',
    'io',
  ],
};

/** The specifiers a module's text imports, type-only ones included: static, `export ... from`, require(), import(). */
function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(
    /^(?:import|export)\s[^'";]*?from\s+'([^']+)'|^import\s+'([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/gm,
  ))
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
  return out;
}

/** Every import of a module, type-only ones included, resolved to files under src/. */
function allImports(f: string, text = fs.readFileSync(f, 'utf8')): string[] {
  return importSpecifiers(text)
    .map((spec) => resolve(f, spec))
    .filter((to): to is string => to !== undefined);
}

const folderOf = (f: string) => path.relative(SRC, f).split(path.sep)[0];

/** The imports of `f` (its text given, or read) that the layer table forbids, each with the rule it breaks. */
function layerViolations(f: string, text?: string): string[] {
  const from = folderOf(f);
  return allImports(f, text)
    .filter((d) => folderOf(d) !== from && !(ALLOWED[from] ?? []).includes(folderOf(d)))
    .map((d) => `${rel(f)} → ${rel(d)} (${from} may not import ${folderOf(d)})`);
}

test('every folder of src/ has a row in the layer table', () => {
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect(Object.keys(ALLOWED).sort()).toEqual(folders);
});

test('folders import only from the layers below them', () => {
  expect([...G.keys()].flatMap((f) => layerViolations(f))).toEqual([]);
});

describe('the layer check fails an upward or sideways import (a synthetic module, not on disk)', () => {
  const fake = (folder: string) => path.join(SRC, folder, 'synthetic.ts');
  test.each([
    [
      'k8s',
      "import { renderGateway } from '../charts/gatewayChart';",
      'src/charts/gatewayChart.ts (k8s may not import charts)',
    ],
    ['charts', "import type { CliContext } from '../cli/context';", 'src/cli/context.ts (charts may not import cli)'],
    [
      'controller',
      "export { render } from '../pipelines/render';",
      'src/pipelines/render.ts (controller may not import pipelines)',
    ],
    [
      'admission',
      "const late = () => require('../charts/policies');",
      'src/charts/policies.ts (admission may not import charts)',
    ],
    [
      'validation',
      "const m = import('../admission/admit');",
      'src/admission/admit.ts (validation may not import admission)',
    ],
    ['io', "import { render } from '../pipelines/render';", 'src/pipelines/render.ts (io may not import pipelines)'],
  ])('%s: %s', (folder, text, expected) => {
    expect(layerViolations(fake(folder), text)).toEqual([`src/${folder}/synthetic.ts → ${expected}`]);
  });
  test('imports the table allows pass', () => {
    expect(layerViolations(fake('charts'), "import { refOf } from '../k8s/model';\nimport './tenantChart';")).toEqual(
      [],
    );
  });
});

test('the layer table itself has no cycle', () => {
  const below = (a: string, seen = new Set<string>()): Set<string> => {
    for (const b of ALLOWED[a] ?? [])
      if (!seen.has(b)) {
        seen.add(b);
        below(b, seen);
      }
    return seen;
  };
  const cyclic = Object.keys(ALLOWED).filter((a) => below(a).has(a));
  expect(cyclic).toEqual([]);
});

test('the core imports nothing from cli/ or io/', () => {
  const edge = (f: string) => /^src\/(cli|io)\//.test(rel(f));
  const bad = [...G]
    .filter(([f]) => !edge(f))
    .flatMap(([f, deps]) => deps.filter(edge).map((d) => `${rel(f)} → ${rel(d)}`));
  expect(bad).toEqual([]);
});

/** The folders ARCHITECTURE.md's map of the layers names, in its order (highest layer first). */
function designMap(): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const design = text.slice(text.indexOf('## Layers'));
  return [...design.matchAll(/^\| `src\/([a-z0-9]+)\/` \|/gm)].map((m) => m[1]);
}

test("ARCHITECTURE.md's map of the layers names every folder of src/, and only those", () => {
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect([...designMap()].sort()).toEqual(folders);
});

test("ARCHITECTURE.md's map of the layers is in layer order: every folder a row may import is a row below it", () => {
  const rows = designMap();
  const above = rows.flatMap((folder, i) =>
    (ALLOWED[folder] ?? [])
      .filter((dep) => rows.indexOf(dep) < i)
      .map((dep) => `${folder} may import ${dep}, which the map lists above it`),
  );
  expect(above).toEqual([]);
});

test('every module and folder ARCHITECTURE.md names (layers, data flow, rules of the house) is in src/', () => {
  const text = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const design = text.slice(text.indexOf('## Layers'), text.indexOf('## How it is tested'));
  const all = files(SRC).map((f) => path.relative(SRC, f));
  const stems = new Set(all.map((f) => path.basename(f, '.ts')));
  const folders = new Set(
    all
      .flatMap((f) =>
        path
          .dirname(f)
          .split(path.sep)
          .map((_, i, a) => a.slice(0, i + 1)),
      )
      .map((p) => p.join('/')),
  );
  // Backticked names that read as modules: `tenantChart`, `gatewayChart.ts`, `k8s/goDecimal`, `krm/`.
  const named = [...design.matchAll(/`([A-Za-z][A-Za-z0-9/]*(?:\.ts)?\/?)`/g)].map((m) => m[1]);
  const sources = all.map((f) => fs.readFileSync(path.join(SRC, f), 'utf8')).join('\n');
  const missing = named.filter((n) => {
    if (['yes', 'on'].includes(n)) return false; // YAML words, not modules
    if (fs.existsSync(path.join(ROOT, n))) return false; // docs/, schemas/, src/pipelines/render.ts
    const p = n.replace(/^src\//, '').replace(/\.ts$/, '');
    if (p.endsWith('/')) return ![...folders].some((d) => d === p.slice(0, -1) || d.endsWith(`/${p.slice(0, -1)}`));
    // a module, or a function a module exports (`orderOutput`)
    return !stems.has(path.basename(p)) && !sources.includes(`export function ${p}(`);
  });
  expect(named.length).toBeGreaterThan(40);
  expect(missing).toEqual([]);
});

/** The longest a function may be, in lines from its first to its last (ARCHITECTURE.md "Layers"): what one reading holds. */
const MAX_FUNCTION_LINES = 80;

/** Each function of a module (declarations, methods, arrows, expressions, accessors) over the limit: `file:line name (N lines)`. */
function longFunctions(file: string, text: string, max = MAX_FUNCTION_LINES): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const nameOf = (n: ts.FunctionLikeDeclaration): string => {
    if (n.name) return n.name.getText(sf);
    const p = n.parent;
    if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name)
      return p.name.getText(sf);
    return '(anonymous)';
  };
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const fn = n as ts.FunctionLikeDeclaration;
      const first = lineOf(fn.getStart(sf));
      const lines = lineOf(fn.end) - first + 1;
      if (lines > max) out.push(`${rel(file)}:${first} ${nameOf(fn)} (${lines} lines)`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines (the generated modules aside)`, () => {
  const long = files(SRC)
    .filter((f) => !f.endsWith('.generated.ts'))
    .flatMap((f) => longFunctions(f, fs.readFileSync(f, 'utf8')));
  expect(long).toEqual([]);
});

test('the length check names a function over the limit, nested ones and arrows included, and passes one at it', () => {
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const x${i} = ${i};`).join('\n');
  const text = [
    `export function atLimit(): void {\n${body(80)}\n}`,
    `export function over(): void {\n${body(81)}\n}`,
    `class C {\n  m(): void {\n${body(81)}\n  }\n}`,
    `const arrow = () => {\n${body(81)}\n};`,
  ].join('\n');
  const f = path.join(SRC, 'k8s', 'synthetic.ts');
  expect(longFunctions(f, text)).toEqual([
    'src/k8s/synthetic.ts:81 over (81 lines)',
    'src/k8s/synthetic.ts:163 m (81 lines)',
    'src/k8s/synthetic.ts:245 arrow (81 lines)',
  ]);
});

/**
 * One name, one function: no two modules of src/ export a function of the same name, so that a
 * name says what it is wherever it is read. The command modules' `register` (the command table's
 * one interface, src/cli/index.ts) and the generated modules are the exceptions.
 */
test('no two modules export a function of one name', () => {
  const byName = new Map<string, string[]>();
  for (const f of files(SRC).filter((f) => !f.endsWith('.generated.ts'))) {
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/^export (?:async )?function\*? ?([A-Za-z0-9_$]+)/gm)) {
      if (m[1] === 'register' && rel(f).startsWith('src/cli/commands/')) continue;
      byName.set(m[1], [...(byName.get(m[1]) ?? []), rel(f)]);
    }
  }
  const shared = [...byName].filter(([, fs]) => fs.length > 1).map(([n, fs]) => `${n}: ${fs.join(', ')}`);
  expect(shared).toEqual([]);
});
