/**
 * The CEL engine's module (src/cel/engine.ts): the built CLI runs the CommonJS copy the build
 * makes (scripts/cel-commonjs.js), the tests run the package; the two must be one engine.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as pkgEngine from '@marcbachmann/cel-js';
import { loadedBy } from '../helpers/loaded';
import { ROOT } from '../helpers/cli';

const COPY = path.join(ROOT, 'dist/vendor/cel-js');
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

describe('the CommonJS copy the build makes', () => {
  it('holds every file of the installed package, each with its license and version', () => {
    const version = JSON.parse(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8')).version as string;
    const wanted = fs
      .readdirSync(path.join(PKG, 'lib'))
      .filter((f) => f.endsWith('.js'))
      .sort();
    expect(fs.existsSync(COPY) ? fs.readdirSync(COPY).sort() : []).toEqual(wanted);
    for (const f of wanted) {
      const head = fs.readFileSync(path.join(COPY, f), 'utf8').slice(0, 400);
      expect({ f, head: head.includes(`@marcbachmann/cel-js ${version}`) && head.includes('MIT License') }).toEqual({
        f,
        head: true,
      });
    }
  });

  it('exports what the package exports and evaluates every case as the package does', () => {
    const copy = require(path.join(COPY, 'index.js')) as typeof pkgEngine;
    expect(Object.keys(copy).sort()).toEqual(Object.keys(pkgEngine).sort());
    const got = outcomes(copy);
    const want = outcomes(pkgEngine);
    for (let i = 0; i < CASES.length; i++) expect(got[i]).toEqual(want[i]);
    // The cases reach both values and each kind of refusal.
    expect(want.filter((o) => 'error' in (o as object)).length).toBeGreaterThanOrEqual(4);
    expect(want.filter((o) => 'value' in (o as object)).length).toBeGreaterThanOrEqual(12);
  });

  it('is what the built CLI loads: the copy, not the package', () => {
    const mods = loadedBy([
      'reconcile',
      '--all',
      '-o',
      'yaml',
      '-f',
      'testdata/golden/reconcile/_inputs/routes.yaml',
      '--now',
      '2026-01-01T00:00:00Z',
    ]).modules;
    expect(mods.filter((m) => m.includes('dist/vendor/cel-js/')).length).toBeGreaterThan(5);
    expect(mods.filter((m) => m.includes('@marcbachmann'))).toEqual([]);
  }, 30_000);
});

describe('src/cel/engine.ts', () => {
  it('without a copy beside it (the sources), loads the package', () => {
    jest.isolateModules(() => {
      const engine = require('../../src/cel/engine') as typeof import('../../src/cel/engine');
      expect(engine.Environment).toBe((require('@marcbachmann/cel-js') as typeof pkgEngine).Environment);
    });
  });

  it('a copy that fails to load is an error, not a fall back to the package', () => {
    jest.isolateModules(() => {
      jest.doMock(
        '../../src/vendor/cel-js/index.js',
        () => {
          throw new Error('broken copy');
        },
        { virtual: true },
      );
      expect(() => require('../../src/cel/engine')).toThrow('broken copy');
    });
  });
});
