/**
 * Node.js's own compile cache, which bin/ turns on (docs/decisions.md §C13): Node.js checks a
 * cache entry before V8 reads it, so a damaged cache (bytes flipped, cut short, or the entries of
 * another build of the CLI) never crashes a run nor changes what it prints.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, ensureBuilt, ROOT, tmpDir } from '../helpers/kpt';
import { EXAMPLE_INPUTS } from '../helpers/cli';
import { skippedTitle } from '../helpers/skip';

const hasCache = typeof (require('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const title = 'a damaged compile cache never crashes a run nor changes its output';
const describeCache = (name: string, fn: () => void) =>
  hasCache
    ? describe(name, fn)
    : describe.skip(
        skippedTitle(name, `needs Node.js 22.1 or later (module.enableCompileCache); this is ${process.version}`),
        fn,
      );

/** Every file under dir. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

function run(bin: string, cache: string, args: readonly string[]) {
  // NODE_DISABLE_COMPILE_CACHE turns the cache off whatever its value: left out.
  const { NODE_DISABLE_COMPILE_CACHE: _off, ...env } = process.env;
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...env, NODE_COMPILE_CACHE: cache },
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describeCache(title, () => {
  beforeAll(() => ensureBuilt());
  const args = ['reconcile', '--all', ...EXAMPLE_INPUTS, '--now', '2026-01-01T00:00:00Z'];

  /** A cache written by one run, damaged by `damage`, then used by a second: the same result as with no cache. */
  function afterDamage(damage: (file: string) => void, bin = BIN) {
    const cache = tmpDir('compile-cache');
    const fresh = run(bin, cache, args);
    const entries = files(cache);
    expect(entries.length).toBeGreaterThan(0);
    for (const f of entries) damage(f);
    return { fresh, again: run(bin, cache, args), entries: entries.length };
  }

  test('bytes flipped in every entry', () => {
    const { fresh, again } = afterDamage((f) => {
      const b = fs.readFileSync(f);
      for (let i = Math.floor(b.length / 3); i < b.length; i += 97) b[i] ^= 0xff;
      fs.writeFileSync(f, b);
    });
    expect(fresh.code).toBe(0);
    expect(again).toEqual(fresh);
  });

  test('every entry cut short', () => {
    const { fresh, again } = afterDamage((f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2)));
    expect(again).toEqual(fresh);
  });

  test("another build's entries in place of this one's", () => {
    // Another build: the same bundle with a different first line, so every entry's source differs.
    const other = tmpDir('other-build');
    fs.mkdirSync(path.join(other, 'bin'));
    fs.mkdirSync(path.join(other, 'dist'));
    fs.copyFileSync(BIN, path.join(other, 'bin', 'cozy-gw.js'));
    const bundle = fs.readFileSync(path.join(ROOT, 'dist', 'cozy-gw.js'), 'utf8');
    fs.writeFileSync(path.join(other, 'dist', 'cozy-gw.js'), `// another build\n${bundle}`);
    const cache = tmpDir('compile-cache-other');
    expect(run(path.join(other, 'bin', 'cozy-gw.js'), cache, args).code).toBe(0);
    const otherEntries = files(cache).map((f) => [path.relative(cache, f), fs.readFileSync(f)] as const);
    expect(otherEntries.length).toBeGreaterThan(0);
    // This build's cache, every entry replaced by one of the other build's (each in turn).
    let i = 0;
    const { fresh, again } = afterDamage((f) => fs.writeFileSync(f, otherEntries[i++ % otherEntries.length][1]));
    expect(again).toEqual(fresh);
  });
});
