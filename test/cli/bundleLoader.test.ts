/**
 * src/cli/bundleLoader.ts: what reaches V8 as a code cache is checked first; where the cache
 * lives, and when it is off.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheDirectory, cacheFile, ownDirectory, readCache, writeCache } from '../../src/cli/bundleLoader';
import { tmpDir } from '../helpers/kpt';

const SOURCE = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

describe('the code cache file', () => {
  const dir = tmpDir('bundle-loader');
  const data = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));

  test('what is written is read back, for its source only', () => {
    const file = cacheFile(dir, SOURCE, 'render');
    writeCache(file, SOURCE, data);
    expect(readCache(file, SOURCE)?.equals(data)).toBe(true);
    expect(readCache(file, OTHER)).toBeUndefined();
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('one byte changed anywhere, or the file cut at any length, is never handed on', () => {
    const file = cacheFile(dir, SOURCE, 'diff');
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
    const target = cacheFile(dir, SOURCE, 'admit');
    writeCache(target, SOURCE, data);
    const link = path.join(dir, 'link.bin');
    fs.symlinkSync(target, link);
    expect(readCache(link, SOURCE)).toBeUndefined();
  });

  test('each command, Node.js and source has a file of its own', () => {
    expect(cacheFile(dir, SOURCE, 'render')).not.toBe(cacheFile(dir, SOURCE, 'diff'));
    expect(cacheFile(dir, SOURCE, 'render')).not.toBe(cacheFile(dir, OTHER, 'render'));
    expect(path.basename(cacheFile(dir, SOURCE, '../x'))).toMatch(/^x-[0-9a-f]{32}\.bin$/);
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
});
