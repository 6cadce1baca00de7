/**
 * The layout's rules, read from the sources (README "Design"): no import cycle among src/ modules; the
 * core (every folder but cli/ and io/) imports nothing from cli/ or io/; the README's Design map
 * names every folder of src/. Static imports and `export ... from` count; a `require` inside a
 * function (the command table's loaders) is not an import at load time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

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

test('no import cycle', () => {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, stack: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...stack.slice(stack.indexOf(f)), f].map(rel).join(' → '));
      return;
    }
    state.set(f, 'open');
    for (const d of G.get(f) ?? []) visit(d, [...stack, f]);
    state.set(f, 'done');
  };
  for (const f of G.keys()) visit(f, []);
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
    'protocols',
    'io',
  ],
};

/** Every import of a module, type-only ones included, resolved to files under src/. */
function allImports(f: string): string[] {
  const text = fs.readFileSync(f, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(
    /^(?:import|export)\s[^'";]*?from\s+'([^']+)'|^import\s+'([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/gm,
  )) {
    const to = resolve(f, m[1] ?? m[2] ?? m[3] ?? m[4]);
    if (to) out.push(to);
  }
  return out;
}

const folderOf = (f: string) => path.relative(SRC, f).split(path.sep)[0];

test('every folder of src/ has a row in the layer table', () => {
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect(Object.keys(ALLOWED).sort()).toEqual(folders);
});

test('folders import only from the layers below them', () => {
  const bad: string[] = [];
  for (const f of G.keys()) {
    const from = folderOf(f);
    for (const d of allImports(f)) {
      const to = folderOf(d);
      if (to !== from && !(ALLOWED[from] ?? []).includes(to))
        bad.push(`${rel(f)} → ${rel(d)} (${from} may not import ${to})`);
    }
  }
  expect(bad).toEqual([]);
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

test("the README's Design map names every folder of src/, and only those", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const design = readme.slice(readme.indexOf('## Design'));
  const mapped = [...design.matchAll(/^\| `src\/([a-z0-9]+)\/` \|/gm)].map((m) => m[1]).sort();
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect(mapped).toEqual(folders);
});
