/**
 * V8's code cache of the built CLI (src/cli/codeCache.ts, written by scripts/code-cache.js at
 * `npm run build`): the file format, the command a run reads, and, in child processes (the
 * cache hooks Node.js's loader, which this test process must keep), that a module is taken from
 * the cache only while its source is the one the cache was made from, and that the built CLI
 * prints the same with and without it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { cacheDir, commandOf, decodeCache, encodeCache, sourceHash, type CacheEntry } from '../../src/cli/codeCache';
import { FC_SEED } from '../helpers/tenantTreeArbitrary';
import { ROOT } from '../helpers/cli';

const BUILT = path.join(ROOT, 'dist/cli/codeCache.js');

const entryArb = fc.record({
  file: fc.string({ minLength: 1, maxLength: 40 }),
  sha1: fc.base64String({ maxLength: 28 }),
  data: fc.uint8Array({ maxLength: 64 }),
  requires: fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 }), { maxKeys: 4 }),
});
const entriesArb = fc.uniqueArray(entryArb, { selector: (e) => e.file, maxLength: 8 });

describe('the cache file', () => {
  it('decodes to what was encoded, whatever the paths and bytes', () => {
    fc.assert(
      fc.property(entriesArb, (entries: CacheEntry[]) => {
        const back = decodeCache(encodeCache(entries));
        expect(back).toBeDefined();
        expect([...back!.keys()].sort()).toEqual(entries.map((e) => e.file).sort());
        for (const e of entries) {
          const got = back!.get(e.file)!;
          expect({
            file: e.file,
            sha1: got.sha1,
            data: [...got.data],
            requires: Object.fromEntries(got.requires),
          }).toEqual({
            file: e.file,
            sha1: e.sha1,
            data: [...e.data],
            requires: { ...e.requires },
          });
        }
      }),
      { seed: FC_SEED },
    );
  });

  it('is the same bytes whatever the order of the entries', () => {
    fc.assert(
      fc.property(entriesArb, (entries: CacheEntry[]) => {
        expect(encodeCache([...entries].reverse()).equals(encodeCache(entries))).toBe(true);
      }),
      { seed: FC_SEED },
    );
  });

  it('cut or altered bytes decode to a cache whose entries lie inside the file, or to none; never a throw', () => {
    fc.assert(
      fc.property(
        entriesArb,
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        (entries: CacheEntry[], cut: number, edits: [number, number][]) => {
          const bytes = Buffer.from(encodeCache(entries));
          for (const [at, b] of edits) bytes[at % bytes.length] = b;
          const short = bytes.subarray(0, cut % (bytes.length + 1));
          const back = decodeCache(short);
          for (const [file, e] of back ?? []) {
            expect({ file, inside: e.data.buffer === short.buffer || e.data.length === 0 }).toEqual({
              file,
              inside: true,
            });
          }
        },
      ),
      { seed: FC_SEED },
    );
  });

  it('is refused when it is not one: no magic line, a cut index, an index of the wrong shape', () => {
    const good = encodeCache([
      { file: 'dist/a.js', sha1: 'x', data: new Uint8Array([1, 2, 3]), requires: { './b': 'dist/b.js' } },
    ]);
    expect(decodeCache(good)?.get('dist/a.js')?.requires).toEqual(new Map([['./b', 'dist/b.js']]));
    expect(decodeCache(good)?.size).toBe(1);
    expect(decodeCache(Buffer.from('not a cache'))).toBeUndefined();
    expect(decodeCache(good.subarray(0, 30))).toBeUndefined();
    expect(decodeCache(good.subarray(0, good.length - 1))).toBeUndefined();
    const magic = good.subarray(0, good.indexOf('\n') + 1);
    const withIndex = (index: string) => {
      const head = Buffer.from(index);
      const len = Buffer.alloc(4);
      len.writeUInt32LE(head.length, 0);
      return Buffer.concat([magic, len, head]);
    };
    expect(decodeCache(withIndex('{"a":1}'))).toBeUndefined();
    expect(decodeCache(withIndex('[["dist/a.js","x",0,{}]]'))).toBeUndefined();
    expect(decodeCache(withIndex('[["dist/a.js","x",-1,0,{}]]'))).toBeUndefined();
    expect(decodeCache(withIndex('[["dist/a.js","x",0,1.5,{}]]'))).toBeUndefined();
    expect(decodeCache(withIndex('[[1,"x",0,0,{}]]'))).toBeUndefined();
    // The first format's rows (no requests) and requests that are not an object of file names.
    expect(decodeCache(withIndex('[["dist/a.js","x",0,0]]'))).toBeUndefined();
    expect(decodeCache(withIndex('[["dist/a.js","x",0,0,[]]]'))).toBeUndefined();
    expect(decodeCache(withIndex('[["dist/a.js","x",0,0,{"./b":1}]]'))).toBeUndefined();
    expect(decodeCache(withIndex('[["dist/a.js","x",0,0,null]]'))).toBeUndefined();
    const empty = decodeCache(withIndex('[["dist/a.js","x",0,0,{}]]'))?.get('dist/a.js');
    expect({ data: empty?.data.length, requires: empty?.requires.size }).toEqual({ data: 0, requires: 0 });
    // A request named like an Object.prototype member is a request like any other.
    expect(
      decodeCache(withIndex('[["dist/a.js","x",0,0,{"__proto__":"dist/p.js"}]]'))?.get('dist/a.js')?.requires,
    ).toEqual(new Map([['__proto__', 'dist/p.js']]));
  });
});

describe('which file a run reads', () => {
  it.each([
    [['reconcile', '--all', '-f', 'x'], 'reconcile'],
    [['--verbose', 'render'], 'render'],
    [['fn'], 'fn'],
    [['--help'], undefined],
    [[], undefined],
    [['../../etc/passwd'], undefined],
    [['Reconcile'], undefined],
  ])('%j reads %s', (args, command) => {
    expect(commandOf(args)).toBe(command);
  });

  it("one folder per Node.js build, named only with the file name's safe characters", () => {
    expect(path.relative('/r', cacheDir('/r', { node: 'v20.20.2', v8: '11.3.244.8-node.38', arch: 'x64' }))).toBe(
      'dist/code-cache/node-v20.20.2-v8-11.3.244.8-node.38-x64',
    );
    expect(path.basename(cacheDir('/r', { node: 'v1/../x', v8: 'a b', arch: 'c:d' }))).toBe('node-v1_.._x-v8-a_b-c_d');
  });

  it('the hash is of the text: one character changes it', () => {
    expect(sourceHash('return 111;')).not.toBe(sourceHash('return 222;'));
    expect(sourceHash('return 111;')).toBe(sourceHash('return 111;'));
  });
});

/** Run `script` (CommonJS) in a fresh node; its stdout parsed as JSON. */
function child(script: string, env: Record<string, string> = {}): unknown {
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`child exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('a package with a cache (child processes, the built module)', () => {
  let root: string;
  const A = "module.exports = function () { return 'made from A'; };\n";
  const B = "module.exports = function () { return 'made from B'; };\n"; // the same length as A

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-cc-'));
    fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dist/m.js'), A);
    // Record the module as the build's training runs do.
    child(`
      const fs = require('fs'), path = require('path');
      const cc = require(${JSON.stringify(BUILT)});
      const scripts = [];
      cc.installCodeCache({ env: {}, root: ${JSON.stringify(root)}, recorder: { record: (file, sha1, script) => scripts.push({ file, sha1, script }) } });
      require(${JSON.stringify(path.join(root, 'dist/m.js'))})();
      const dir = cc.cacheDir(${JSON.stringify(root)});
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'x.bin'), cc.encodeCache(scripts.map((s) => ({ file: s.file, sha1: s.sha1, data: s.script.createCachedData() }))));
      console.log(JSON.stringify(scripts.map((s) => s.file)));
    `);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Install for command `x` (or `command`), load dist/m.js, report what happened. */
  const load = (env: Record<string, string> = {}, command = 'x') =>
    child(
      `
      const cc = require(${JSON.stringify(BUILT)});
      const seen = [];
      const installed = cc.installCodeCache({ command: ${JSON.stringify(command)}, root: ${JSON.stringify(root)}, observer: (file, fromCache) => seen.push([file, fromCache]) });
      const result = require(${JSON.stringify(path.join(root, 'dist/m.js'))})();
      console.log(JSON.stringify({ installed, seen, result }));
    `,
      env,
    );

  it('the module the cache was made from is compiled from it', () => {
    fs.writeFileSync(path.join(root, 'dist/m.js'), A);
    expect(load()).toEqual({ installed: true, seen: [['dist/m.js', true]], result: 'made from A' });
  });

  it('a module whose text changed is compiled from its text: V8 alone would run the old bytecode', () => {
    fs.writeFileSync(path.join(root, 'dist/m.js'), B);
    expect(A.length).toBe(B.length);
    expect(load()).toEqual({ installed: true, seen: [], result: 'made from B' });
  });

  it('COZY_GW_CODE_CACHE=off, a command without a file, or a malformed file: the loader is left alone', () => {
    fs.writeFileSync(path.join(root, 'dist/m.js'), A);
    expect(load({ COZY_GW_CODE_CACHE: 'off' })).toEqual({ installed: false, seen: [], result: 'made from A' });
    expect(load({}, 'other')).toEqual({ installed: false, seen: [], result: 'made from A' });
    const bad = path.join(cacheDir(root), 'bad.bin');
    fs.writeFileSync(bad, 'cozy-gw code cache 2\n\xff\xff\xff\xff');
    expect(load({}, 'bad')).toEqual({ installed: false, seen: [], result: 'made from A' });
    // A file of the first format (rows without the requests) is no cache either.
    const old = fs
      .readFileSync(path.join(cacheDir(root), 'x.bin'))
      .toString('latin1')
      .replace('cache 2', 'cache 1');
    fs.writeFileSync(path.join(cacheDir(root), 'old.bin'), Buffer.from(old, 'latin1'));
    expect(load({}, 'old')).toEqual({ installed: false, seen: [], result: 'made from A' });
  });
});

describe('relative requests resolved as the build resolved them (child processes, the built module)', () => {
  let root: string;
  const MAIN = "module.exports = () => [require('./n'), require('p')].join(' ');\n";
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-cc-'));
    write('dist/main.js', MAIN);
    write('dist/n.js', "module.exports = 'n';\n");
    write('node_modules/p/package.json', '{"main": "a.js"}\n');
    write('node_modules/p/a.js', "module.exports = require('./b');\n");
    write('node_modules/p/b.js', "module.exports = 'b';\n");
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /**
   * Load dist/main.js with the cache installed, Node.js's own resolver wrapped first: the relative
   * requests that reached it, and what main returned. `recording`: as a training run, writing the
   * cache file and reporting the requests each module made.
   */
  const run = (recording = false) =>
    child(`
      const fs = require('fs'), path = require('path'), Module = require('module');
      const byNode = [];
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, parent) {
        if (request.startsWith('.')) byNode.push(path.relative(${JSON.stringify(root)}, parent.filename) + ' ' + request);
        return resolve.apply(this, arguments);
      };
      const cc = require(${JSON.stringify(BUILT)});
      const scripts = [], requires = {};
      const recorder = {
        record: (file, sha1, script) => scripts.push({ file, sha1, script }),
        resolved: (file, request, target) => ((requires[file] ??= {})[request] = target),
      };
      cc.installCodeCache({ command: 'x', env: {}, root: ${JSON.stringify(root)}, ...(${recording} ? { recorder } : {}) });
      const result = require(${JSON.stringify(path.join(root, 'dist/main.js'))})();
      if (${recording}) {
        const dir = cc.cacheDir(${JSON.stringify(root)});
        fs.mkdirSync(dir, { recursive: true });
        const entries = scripts.map((s) => ({ file: s.file, sha1: s.sha1, data: s.script.createCachedData(), requires: requires[s.file] }));
        fs.writeFileSync(path.join(dir, 'x.bin'), cc.encodeCache(entries));
      }
      console.log(JSON.stringify({ result, byNode: byNode.sort(), requires }));
    `) as { result: string; byNode: string[]; requires: Record<string, Record<string, string>> };

  it('a training run records each relative request of a package module with the file it resolved to', () => {
    const r = run(true);
    expect(r.result).toBe('n b');
    // A package name ('p') is not recorded: where it leads is the installed package's to say.
    expect(r.requires).toEqual({
      'dist/main.js': { './n': 'dist/n.js' },
      'node_modules/p/a.js': { './b': 'node_modules/p/b.js' },
    });
    const entries = decodeCache(fs.readFileSync(path.join(cacheDir(root), 'x.bin')))!;
    expect(Object.fromEntries([...entries].map(([f, e]) => [f, Object.fromEntries(e.requires)]))).toEqual({
      'dist/main.js': { './n': 'dist/n.js' },
      'dist/n.js': {},
      'node_modules/p/a.js': { './b': 'node_modules/p/b.js' },
      'node_modules/p/b.js': {},
    });
  });

  it("a run with the cache asks Node.js's resolver for none of them, and loads the same modules", () => {
    expect(run()).toEqual({ result: 'n b', byNode: [], requires: {} });
  });

  it('a file a reinstalled package moved is found where it now is', () => {
    fs.rmSync(path.join(root, 'node_modules/p/b.js'));
    write('node_modules/p/b/index.js', "module.exports = 'b moved';\n");
    try {
      expect(run()).toEqual({ result: 'n b moved', byNode: ['node_modules/p/a.js ./b'], requires: {} });
    } finally {
      fs.rmSync(path.join(root, 'node_modules/p/b'), { recursive: true });
      write('node_modules/p/b.js', "module.exports = 'b';\n");
    }
  });

  it('a module whose text changed has its requests resolved by Node.js: its requests may be others', () => {
    write('dist/main.js', MAIN.replace("require('p')", "require('p') + '!'"));
    try {
      expect(run()).toEqual({ result: 'n b!', byNode: ['dist/main.js ./n'], requires: {} });
    } finally {
      write('dist/main.js', MAIN);
    }
  });
});

describe('the built CLI', () => {
  const dir = cacheDir(ROOT);
  const routes = path.join(ROOT, 'testdata/golden/reconcile/_inputs/routes.yaml');

  it('npm run build wrote a file for each command CI runs', () => {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
    expect(files).toEqual(['admit.bin', 'diff.bin', 'fn.bin', 'reconcile.bin', 'render.bin']);
    for (const f of files) {
      const entries = decodeCache(fs.readFileSync(path.join(dir, f)));
      expect({ f, modules: (entries?.size ?? 0) > 50 }).toEqual({ f, modules: true });
    }
  });

  /**
   * Run a bin script twice, with its own install of the cache observed (a preload wraps the
   * module's export, which the bin script looks up when it calls it, and Node.js's resolver,
   * counting the relative requests of the package's modules that reach it) and with the cache off.
   */
  const both = (bin: string, args: string[], input = '') => {
    const preload = `
      const Module = require('module');
      const path = require('path');
      const resolve = Module._resolveFilename;
      let byNode = 0;
      Module._resolveFilename = function (request, parent) {
        const from = parent && parent.filename ? path.relative(${JSON.stringify(ROOT)}, parent.filename) : '';
        if (request.startsWith('.') && (from.startsWith('dist') || from.startsWith('node_modules'))) byNode++;
        return resolve.apply(this, arguments);
      };
      const cc = require(${JSON.stringify(BUILT)});
      const install = cc.installCodeCache;
      let hit = 0, miss = 0;
      cc.installCodeCache = (o = {}) => install({ ...o, observer: (f, fromCache) => (fromCache ? hit++ : miss++) });
      process.on('exit', () => process.stderr.write('\\nCACHE ' + JSON.stringify({ hit, miss, byNode }) + '\\n'));
    `;
    const pre = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-cc-')), 'observe.js');
    fs.writeFileSync(pre, preload);
    try {
      const withCache = spawnSync(process.execPath, ['-r', pre, path.join(ROOT, bin), ...args], {
        encoding: 'utf8',
        input,
      });
      const without = spawnSync(process.execPath, [path.join(ROOT, bin), ...args], {
        encoding: 'utf8',
        input,
        env: { ...process.env, COZY_GW_CODE_CACHE: 'off' },
      });
      const m = /CACHE (.*)/.exec(withCache.stderr);
      if (!m) throw new Error(`no cache counts from ${bin}: ${withCache.stderr}`);
      return { counts: JSON.parse(m[1]) as { hit: number; miss: number; byNode: number }, withCache, without };
    } finally {
      fs.rmSync(path.dirname(pre), { recursive: true, force: true });
    }
  };

  it('cozy-gw reconcile takes its modules from the cache and prints what it prints without it', () => {
    const r = both('bin/cozy-gw.js', [
      'reconcile',
      '--all',
      '-o',
      'yaml',
      '-f',
      routes,
      '--now',
      '2026-01-01T00:00:00Z',
    ]);
    expect(r.counts.hit).toBeGreaterThan(50);
    expect(r.counts.miss).toBe(0);
    // Every relative request of its modules resolved as the build resolved it.
    expect(r.counts.byNode).toBe(0);
    expect(r.withCache.status).toBe(r.without.status);
    expect(r.withCache.stdout).toBe(r.without.stdout);
    expect(r.withCache.stdout.length).toBeGreaterThan(0);
  });

  it("cozy-gw-fn (kpt's exec path, no command in its arguments) reads fn's file", () => {
    const list = fs.readFileSync(path.join(ROOT, 'examples/fn/cozygateway.yaml'), 'utf8');
    const input = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n${list
      .split('\n')
      .map((l) => (l ? `  ${l}` : l))
      .join('\n')}`;
    const r = both('bin/cozy-gw-fn', [], input);
    expect(r.counts.hit).toBeGreaterThan(50);
    expect(r.withCache.status).toBe(r.without.status);
    expect(r.withCache.stdout).toBe(r.without.stdout);
  });
});
