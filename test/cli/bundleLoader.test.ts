/**
 * src/cli/bundleLoader.ts: what reaches V8 as a code cache is checked first; where the cache
 * lives, and when it is off.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import {
  BUILD_MARK,
  BUNDLE_HEAD,
  buildOf,
  cacheDirectory,
  cacheFile,
  cacheKey,
  checksum,
  KEEP_PER_COMMAND,
  markUsed,
  ownDirectory,
  pruneCaches,
  readCache,
  writeCache,
  type BundleIdentity,
} from '../../src/cli/bundleLoader';
import { tmpDir } from '../helpers/kpt';

const bundle: BundleIdentity = { build: 'a'.repeat(64), size: 1000, mtimeMs: 1.5, ino: 7 };
const SOURCE = cacheKey(bundle, 'render');
const OTHER = cacheKey({ ...bundle, build: 'b'.repeat(64) }, 'render');
const fileOf = cacheFile;

describe('the code cache file', () => {
  const dir = tmpDir('bundle-loader');
  const data = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));

  test('what is written is read back, for its source only', () => {
    const file = fileOf(dir, SOURCE, 'render');
    writeCache(file, SOURCE, data);
    expect(readCache(file, SOURCE)?.equals(data)).toBe(true);
    expect(readCache(file, OTHER)).toBeUndefined();
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('one byte changed anywhere, or the file cut at any length, is never handed on', () => {
    const file = fileOf(dir, SOURCE, 'diff');
    writeCache(file, SOURCE, data);
    const good = fs.readFileSync(file);
    for (let i = 0; i < good.length; i += 37) {
      const bad = Buffer.from(good);
      bad[i] ^= 0x01;
      fs.writeFileSync(file, bad);
      expect({ flipped: i, read: readCache(file, SOURCE) }).toEqual({ flipped: i, read: undefined });
    }
    for (const n of [0, 10, 100, 150, good.length - 1]) {
      fs.writeFileSync(file, good.subarray(0, n));
      expect({ cut: n, read: readCache(file, SOURCE) }).toEqual({ cut: n, read: undefined });
    }
  });

  test('a link in place of the file is not followed', () => {
    const target = fileOf(dir, SOURCE, 'admit');
    writeCache(target, SOURCE, data);
    const link = path.join(dir, 'link.bin');
    fs.symlinkSync(target, link);
    expect(readCache(link, SOURCE)).toBeUndefined();
  });

  test('the key names every part of the bundle, the Node.js and the command', () => {
    const keys = [
      SOURCE,
      OTHER,
      cacheKey({ ...bundle, size: 1001 }, 'render'),
      cacheKey({ ...bundle, mtimeMs: 2 }, 'render'),
      cacheKey({ ...bundle, ino: 8 }, 'render'),
      cacheKey(bundle, 'diff'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(SOURCE).toContain(`node=${process.version}`);
    expect(SOURCE).not.toMatch(/[\r\n]/);
    // What is written under one key is not read under another.
    const file = fileOf(dir, SOURCE, 'render');
    writeCache(file, SOURCE, data);
    for (const k of keys.slice(1)) expect({ key: k, read: readCache(file, k) }).toEqual({ key: k, read: undefined });
  });

  test('each command, Node.js and source has a file of its own', () => {
    expect(fileOf(dir, SOURCE, 'render')).not.toBe(fileOf(dir, SOURCE, 'diff'));
    expect(fileOf(dir, SOURCE, 'render')).not.toBe(fileOf(dir, OTHER, 'render'));
    expect(path.basename(fileOf(dir, SOURCE, '../x'))).toMatch(/^x-[0-9a-f]{32}\.bin$/);
  });
});

describe('old cache files', () => {
  test(`a write leaves the ${KEEP_PER_COMMAND} newest files of its command, itself among them, and no other command's loses one`, () => {
    const dir = tmpDir('bundle-loader-prune');
    const made: string[] = [];
    for (let i = 0; i < KEEP_PER_COMMAND + 3; i++) {
      const f = fileOf(dir, cacheKey({ ...bundle, ino: i }, 'render'), 'render');
      fs.writeFileSync(f, 'x');
      fs.utimesSync(f, 1000 + i, 1000 + i);
      made.push(path.basename(f));
    }
    const others = [`diff-${'0'.repeat(32)}.bin`, `post-render-${'0'.repeat(32)}.bin`, 'notes.txt'];
    for (const f of others) fs.writeFileSync(path.join(dir, f), 'x');
    // The oldest is the one written now: it stays, with the newest beside it.
    const kept = fileOf(dir, cacheKey({ ...bundle, ino: 0 }, 'render'), 'render');
    writeCache(kept, cacheKey({ ...bundle, ino: 0 }, 'render'), Buffer.from('data'));
    expect(fs.readdirSync(dir).sort()).toEqual([...others, made[0], ...made.slice(4)].sort());
  });

  test('a cache in use is kept however many other keys of its command write after it', () => {
    const dir = tmpDir('bundle-loader-in-use');
    const key = (i: number) => cacheKey({ ...bundle, ino: 100 + i }, 'reconcile');
    const inUse = fileOf(dir, key(0), 'reconcile');
    writeCache(inUse, key(0), Buffer.from('data'));
    fs.utimesSync(inUse, 1000, 1000);
    // Twice as many other keys write in turn; the one in use is taken (and marked) between each.
    for (let i = 1; i <= 2 * KEEP_PER_COMMAND; i++) {
      const f = fileOf(dir, key(i), 'reconcile');
      writeCache(f, key(i), Buffer.from('other'));
      fs.utimesSync(f, 1000 + i, 1000 + i);
      expect({ after: i, read: readCache(inUse, key(0))?.toString() }).toEqual({ after: i, read: 'data' });
      markUsed(inUse);
    }
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('reconcile-')).length).toBe(KEEP_PER_COMMAND);
  });

  test('marking a file that is gone throws nothing', () => {
    expect(() => markUsed(path.join(tmpDir('bundle-loader-mark'), 'missing.bin'))).not.toThrow();
  });

  test('pruning a directory that is gone changes nothing and throws nothing', () => {
    expect(() =>
      pruneCaches(path.join(tmpDir('bundle-loader-gone'), 'missing'), `render-${'0'.repeat(32)}.bin`),
    ).not.toThrow();
  });
});

describe("the build's hash", () => {
  test("read from the bundle's second line; a bundle without one has none", () => {
    const hash = 'c'.repeat(64);
    expect(buildOf(`${BUNDLE_HEAD}\n${BUILD_MARK}${hash}\n"use strict";`)).toBe(hash);
    expect(buildOf(`${BUNDLE_HEAD}\n"use strict";`)).toBeUndefined();
    expect(buildOf(`${BUNDLE_HEAD}\n${BUILD_MARK}${'C'.repeat(64)}\n`)).toBeUndefined();
    expect(buildOf(`${BUNDLE_HEAD}\n${BUILD_MARK}${'c'.repeat(63)}`)).toBeUndefined();
  });

  test('the built bundle carries the SHA-256 of itself with 64 zeros in its place (scripts/bundle.js)', () => {
    const text = fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'cozy-gw.js'), 'utf8');
    const hash = buildOf(text);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const unstamped = text.replace(`${BUILD_MARK}${hash}`, `${BUILD_MARK}${'0'.repeat(64)}`);
    expect(createHash('sha256').update(unstamped).digest('hex')).toBe(hash);
  });
});

describe('the bundle is ASCII (scripts/bundle.js asciiOnly)', () => {
  const { asciiOnly } = require('../../scripts/bundle.js') as { asciiOnly: (text: string) => string };

  test('the built bundle holds no character past ASCII: V8 keeps its source one byte a character', () => {
    const text = fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'cozy-gw.js'), 'utf8');
    const at = text.search(/[^\x00-\x7f]/);
    expect(at < 0 ? 'none' : `U+${text.charCodeAt(at).toString(16)} at ${at}: ${text.slice(at - 40, at + 10)}`).toBe(
      'none',
    );
  });

  test.each([
    ['a regular expression', '/(ns|µs)/', ['5µs', '5us', '5xs']],
    ['a character class with the u flag', '/^[µ😀]$/u', ['µ', '😀', 'x']],
    ['an astral character without the u flag', '/^😀$/', ['😀', 'x']],
    ['a string', '"µ😀"', []],
    ['an escaped backslash before it', String.raw`"\\µ"`, []],
  ])('%s means what it meant, written in ASCII', (_, source, inputs) => {
    const escaped = asciiOnly(source);
    expect(escaped).toMatch(/^[\x00-\x7f]*$/);
    const was = eval(source) as unknown;
    const now = eval(escaped) as unknown;
    if (was instanceof RegExp) {
      expect((now as RegExp).flags).toBe(was.flags);
      for (const s of inputs) expect([s, (now as RegExp).test(s)]).toEqual([s, was.test(s)]);
    } else expect(now).toBe(was);
  });

  test('a character escaped by a backslash stops the build: its escape would read otherwise', () => {
    expect(() => asciiOnly(String.raw`/\µ/`)).toThrow(/escaped character past ASCII \(U\+b5\)/);
  });
});

describe('the checksum', () => {
  test('SHA-256: the FIPS 180-4 example, and one flipped bit anywhere changes it', () => {
    expect(checksum(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));
    const good = checksum(data);
    const missed: number[] = [];
    for (let i = 0; i < data.length * 8; i += 13) {
      const bad = Buffer.from(data);
      bad[i >> 3] ^= 1 << (i & 7);
      if (checksum(bad) === good) missed.push(i);
    }
    expect(missed).toEqual([]);
  });
});

describe('the cache directory', () => {
  test('COZY_GW_CODE_CACHE=off and NODE_DISABLE_COMPILE_CACHE turn it off; COZY_GW_CODE_CACHE_DIR names it', () => {
    expect(cacheDirectory({ COZY_GW_CODE_CACHE: 'off' })).toBeUndefined();
    expect(cacheDirectory({ NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
    expect(cacheDirectory({ COZY_GW_CODE_CACHE_DIR: '/x/y' })).toBe('/x/y');
    expect(cacheDirectory({})).toMatch(/cozy-gw-code-cache-/);
  });

  test('made private when missing; refused when others may write to it or it is a link', () => {
    const base = tmpDir('bundle-loader-dir');
    const made = path.join(base, 'new');
    expect(ownDirectory(made)).toBe(true);
    expect(fs.statSync(made).mode & 0o777).toBe(0o700);
    fs.chmodSync(made, 0o775);
    expect(ownDirectory(made)).toBe(false);
    const link = path.join(base, 'link');
    fs.symlinkSync(made, link);
    expect(ownDirectory(link)).toBe(false);
  });

  test('parents: false makes the directory alone, never a parent that is missing', () => {
    const base = tmpDir('bundle-loader-parents');
    expect(ownDirectory(path.join(base, 'gone', 'cache'), { parents: false })).toBe(false);
    expect(fs.readdirSync(base)).toEqual([]);
    expect(ownDirectory(path.join(base, 'cache'), { parents: false })).toBe(true);
    expect(ownDirectory(path.join(base, 'named', 'cache'))).toBe(true);
    expect(fs.readdirSync(base).sort()).toEqual(['cache', 'named']);
  });
});
