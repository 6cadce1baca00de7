/**
 * The npm package: `npm pack --dry-run --json` holds what `npx cozy-gw` needs and nothing else.
 * Needs `npm run build` first (dist/ is what ships).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtinModules } from 'node:module';
import { ROOT } from '../helpers/cli';

interface PackResult {
  files: { path: string; size: number }[];
}

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
let files: string[] = [];

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cozy-gw.js')))
    throw new Error('dist/ is missing: run `npm run build` before this test');
  // --ignore-scripts: the pack list only, without `prepack` rebuilding dist/ under the test.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = JSON.parse(out) as PackResult[];
  files = result[0].files.map((f) => f.path).sort();
}, 60_000);

/** Everything the package may contain. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^CHANGELOG\.md$/,
  /^bin\/cozy-gw\.js$/,
  /^bin\/cozy-gw-fn$/, // `cozy-gw fn` as one executable: what a Kptfile's exec: and kustomize's exec path name
  /^dist\/cozy-gw\.js$/, // the CLI and the libraries it uses, bundled (scripts/bundle.js)
  /^dist\/cli\/bundleLoader\.js$/, // what loads the bundle with V8's code cache (src/cli/bundleLoader.ts)
  /^dist\/io\/makeDirectories\.js$/, // the loader's one module of its own (its cache's directory)
  /^dist\/THIRD-PARTY-LICENSES\.txt$/, // the licences of the libraries bundled
  /^dist\/validation\/upstreamValidators\.[A-Za-z]+\.generated\.js$/, // --validate's vendored schemas, one family a file
  /^schemas\/[^/]+\.(schema\.json|crd\.yaml)$/, // JSON Schemas for editors (yaml-language-server) and the TenantGateway CRD; the CLI reads embedded copies
  /^plugin\.yaml$/, // the Helm 4 postrenderer/v1 plugin: `helm plugin install $(npm root -g)/cozy-gw`
];

describe('npm pack', () => {
  test('holds the metadata files, the bin script and the compiled CLI', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
        'bin/cozy-gw.js',
        'bin/cozy-gw-fn',
        'dist/cozy-gw.js',
        'dist/THIRD-PARTY-LICENSES.txt',
        'plugin.yaml',
      ]),
    );
  });

  test('the Helm plugin it ships runs the shipped bin script, at the package version', () => {
    const plugin = fs.readFileSync(path.join(ROOT, 'plugin.yaml'), 'utf8');
    expect(plugin).toMatch(new RegExp(`^version: ${pkg.version.replace(/\./g, '\\.')}$`, 'm'));
    expect(plugin).toContain('${HELM_PLUGIN_DIR}/bin/cozy-gw.js');
  });

  test('holds nothing else: no sources, tests, fixtures, scripts or raw chart assets', () => {
    expect(files.filter((f) => !ALLOWED.some((re) => re.test(f)))).toEqual([]);
    for (const dir of [
      'src/',
      'test/',
      'testdata/',
      'scripts/',
      'examples/',
      'charts/',
      'templates/',
      'bench/',
      '.ci/',
      'node_modules/',
    ]) {
      expect(files.filter((f) => f.startsWith(dir))).toEqual([]);
    }
  });

  test('every module bin/cozy-gw.js loads, transitively through relative requires, is in the package', () => {
    const missing: string[] = [];
    const seen = new Set<string>();
    const visit = (rel: string) => {
      if (seen.has(rel)) return;
      seen.add(rel);
      if (!files.includes(rel)) missing.push(rel);
      const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
      for (const m of text.matchAll(/require\(["'](\.{1,2}\/[^"']+)["']\)/g)) {
        let target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]));
        if (!target.endsWith('.js') && !target.endsWith('.json'))
          target = fs.existsSync(path.join(ROOT, `${target}.js`)) ? `${target}.js` : `${target}/index.js`;
        visit(target);
      }
    };
    visit(pkg.bin['cozy-gw']);
    expect(missing).toEqual([]);
    expect(seen.size).toBeGreaterThan(3);
  });

  test('it needs no package installed beside it: the libraries are bundled, so package.json lists no dependency', () => {
    expect({ dependencies: pkg.dependencies ?? {}, optionalDependencies: pkg.optionalDependencies ?? {} }).toEqual({
      dependencies: {},
      optionalDependencies: {},
    });
    // The bundle requires Node.js built-ins and its own files only (test/release/install.test.ts runs
    // it installed with nothing beside it).
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const text = fs.readFileSync(path.join(ROOT, 'dist/cozy-gw.js'), 'utf8');
    const required = new Set<string>();
    // esbuild writes a package's module as require_NAME(); what stays `require("...")` in code is a built-in or a file.
    for (const m of text.matchAll(/(?<![\w."'])require\("([^"]+)"\)/g)) if (!builtins.has(m[1])) required.add(m[1]);
    expect([...required].filter((r) => !r.startsWith('./validation/upstreamValidators.'))).toEqual([]);
  });

  test('package.json points npx at the bin script and declares engines, license and a main that ships, and no install script', () => {
    expect(pkg.bin).toEqual({ 'cozy-gw': 'bin/cozy-gw.js', 'cozy-gw-fn': 'bin/cozy-gw-fn' });
    for (const bin of Object.values(pkg.bin) as string[]) {
      expect(fs.readFileSync(path.join(ROOT, bin), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
      expect(fs.statSync(path.join(ROOT, bin)).mode & 0o111).not.toBe(0); // executable in a clone too (kpt runs it by path)
    }
    expect(pkg.engines.node).toMatch(/^>=20\.19/);
    expect(pkg.license).toBe('Apache-2.0');
    expect(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\//);
    expect(pkg.keywords).toEqual(expect.arrayContaining(['cozystack', 'gateway-api']));
    // npm 11 warns about any package that runs a script as it installs (prepare included).
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect({ script, defined: script in (pkg.scripts ?? {}) }).toEqual({ script, defined: false });
    for (const field of ['main', 'types'] as const) {
      if (pkg[field])
        expect({ field, path: pkg[field], shipped: files.includes(pkg[field]) }).toEqual({
          field,
          path: pkg[field],
          shipped: true,
        });
    }
  });
});
