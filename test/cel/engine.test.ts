/**
 * The CEL engine's module (src/cel/engine.ts): the built CLI runs the package as esbuild converts
 * it into the bundle (scripts/bundle.js), the tests run it as SWC converts it (jest.config.js);
 * the two must be one engine.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as pkgEngine from '@marcbachmann/cel-js';
import * as os from 'node:os';
import { ROOT } from '../helpers/cli';

const PKG = path.join(ROOT, 'node_modules/@marcbachmann/cel-js');

/** Expressions over every part of the engine the platform reaches: macros, strings, lists, maps, optionals, errors. */
const CASES: [string, Record<string, unknown>][] = [
  ['1 + 2 * 3', {}],
  ['self.all(l, l.hostname.endsWith(".example.org"))', { self: [{ hostname: 'a.example.org' }, { hostname: 'b.x' }] }],
  ['self.exists_one(b, b.port == 443)', { self: [{ port: 443n }, { port: 80n }] }],
  [
    'self.filter(a, a.port > 100).map(a, a.name + "=" + string(a.port)).join(", ")',
    {
      self: [
        { name: 'x', port: 443n },
        { name: 'y', port: 80n },
      ],
    },
  ],
  ['!has(self.tls) || self.tls.mode == "Terminate"', { self: { tls: { mode: 'Passthrough' } } }],
  ['has(self.a.b)', { self: { a: {} } }],
  ['"Hello".lowerAscii() + " " + "x,y".split(",")[1]', {}],
  ['size(self) == 2 && self["k"] == "v"', { self: { k: 'v', j: 'w' } }],
  ['self.?missing.orValue("dflt")', { self: {} }],
  ['int("12") + 1', {}],
  ['double(3) / 2.0', {}],
  ['[1, 2, 3].exists(x, x > 2) ? "yes" : "no"', {}],
  ['"abc".matches("^a.c$")', {}],
  ['self.port + 1', { self: { port: 80 } }],
  ['1 / 0', {}],
  ['undeclaredThing.field', {}],
  ['"a" +', {}],
  ['{"a": 1}.b', {}],
];

/** What an engine makes of each case: its value, or its error's class and message. */
function outcomes(engine: typeof pkgEngine): unknown[] {
  const env = new engine.Environment({
    unlistedVariablesAreDyn: true,
    homogeneousAggregateLiterals: false,
    enableOptionalTypes: true,
  });
  return CASES.map(([expr, ctx]) => {
    try {
      const v = env.evaluate(expr, ctx);
      return { expr, value: typeof v === 'bigint' ? `${v}n` : v };
    } catch (e) {
      return { expr, error: (e as Error).constructor.name, message: (e as Error).message };
    }
  });
}

describe("the engine as the build's bundle converts it", () => {
  it('evaluates every case as the package does under the tests', () => {
    const esbuild = require('esbuild') as typeof import('esbuild');
    const { OPTIONS } = require(path.join(ROOT, 'scripts/bundle.js')) as { OPTIONS: import('esbuild').BuildOptions };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-cel-bundle-'));
    const out = path.join(dir, 'cel.js');
    esbuild.buildSync({ ...OPTIONS, entryPoints: [PKG], outfile: out, logLevel: 'silent' });
    // Run as Node.js runs a CommonJS file, in the tests' realm (jest's transform would rewrite it first).
    const mod = { exports: {} as typeof pkgEngine };
    new Function('exports', 'require', 'module', fs.readFileSync(out, 'utf8'))(mod.exports, require, mod);
    const bundled = mod.exports;
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(pkgEngine).sort());
    const got = outcomes(bundled);
    const want = outcomes(pkgEngine);
    got.forEach((g, i) => expect({ case: CASES[i][0], outcome: g }).toEqual({ case: CASES[i][0], outcome: want[i] }));
    expect(want.filter((o) => 'value' in (o as object)).length).toBeGreaterThanOrEqual(12);
  });
});
