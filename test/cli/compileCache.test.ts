/**
 * The caches a run starts from (docs/decisions.md §C13): V8's code cache of the bundle, which
 * src/cli/bundleLoader.ts checks before V8 reads it, and Node.js's own compile cache, which the
 * loader turns on for the files loaded as modules after the bundle (here NODE_COMPILE_CACHE puts it
 * in a directory of the test's). A damaged cache (bytes flipped, cut short, or the
 * cache of another build put in its place) never crashes a run nor changes what it prints; a good
 * one is used, and one in a directory another user may write to is not.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, ensureBuilt, ROOT, tmpDir } from '../helpers/kpt';
import { EXAMPLE_INPUTS } from '../helpers/cli';

/** Every file under dir. */
function files(dir: string): string[] {
  const out: string[] = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(path.join(e.parentPath, e.name));
  return out.sort();
}

const args = ['reconcile', '--all', ...EXAMPLE_INPUTS, '--now', '2026-01-01T00:00:00Z'];

/** A run with both caches in the given directories. */
function run(bin: string, caches: { code: string; compile: string }) {
  // NODE_DISABLE_COMPILE_CACHE turns both caches off whatever its value: left out.
  const { NODE_DISABLE_COMPILE_CACHE: _off, COZY_GW_CODE_CACHE: _on, ...env } = process.env;
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...env, COZY_GW_CODE_CACHE_DIR: caches.code, NODE_COMPILE_CACHE: caches.compile },
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** A second build of the CLI whose bundle has one character changed (the same length). */
function otherBuild(): string {
  const other = tmpDir('other-build');
  for (const d of ['bin', 'dist', 'dist/cli', 'dist/io']) fs.mkdirSync(path.join(other, d), { recursive: true });
  fs.copyFileSync(BIN, path.join(other, 'bin', 'cozy-gw.js'));
  for (const f of ['dist/cli/bundleLoader.js', 'dist/io/makeDirectories.js'])
    fs.copyFileSync(path.join(ROOT, f), path.join(other, f));
  const bundle = fs.readFileSync(path.join(ROOT, 'dist', 'cozy-gw.js'), 'utf8');
  const at = bundle.indexOf('"use strict"');
  fs.writeFileSync(
    path.join(other, 'dist', 'cozy-gw.js'),
    `${bundle.slice(0, at)}'use strict'${bundle.slice(at + 12)}`,
  );
  return path.join(other, 'bin', 'cozy-gw.js');
}

describe('the caches a run starts from', () => {
  beforeAll(() => ensureBuilt());
  const fresh = () => ({ code: tmpDir('code-cache'), compile: tmpDir('compile-cache') });
  let plain: ReturnType<typeof run>;
  beforeAll(() => {
    const { NODE_DISABLE_COMPILE_CACHE: _off, ...env } = process.env;
    const r = spawnSync(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...env, COZY_GW_CODE_CACHE: 'off', NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    plain = { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
    expect(plain.code).toBe(0);
  });

  test('a run writes the code cache of its command, the next run takes it and prints the same', () => {
    const caches = fresh();
    expect(run(BIN, caches)).toEqual(plain);
    const written = files(caches.code);
    expect(written.map((f) => path.basename(f).replace(/-[0-9a-f]{32}\.bin$/, ''))).toEqual(['reconcile']);
    const before = fs.statSync(written[0]);
    expect(run(BIN, caches)).toEqual(plain);
    // Taken, not written again (a write renames a new file into place), and marked used.
    const after = fs.statSync(written[0]);
    expect({ ino: after.ino, used: after.mtimeMs >= before.mtimeMs }).toEqual({ ino: before.ino, used: true });
  });

  const damages: [string, (file: string) => void][] = [
    [
      'bytes flipped',
      (f) => {
        const b = fs.readFileSync(f);
        for (let i = Math.floor(b.length / 3); i < b.length; i += 97) b[i] ^= 0xff;
        fs.writeFileSync(f, b);
      },
    ],
    ['cut short', (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2))],
  ];
  test.each(damages)(
    'every cache file with its %s: the same output, and a good cache written again',
    (_name, damage) => {
      const caches = fresh();
      run(BIN, caches);
      const all = [...files(caches.code), ...files(caches.compile)];
      expect(all.length).toBeGreaterThan(0);
      for (const f of all) damage(f);
      expect(run(BIN, caches)).toEqual(plain);
      expect(run(BIN, caches)).toEqual(plain);
    },
  );

  test("another build's code cache in this build's place: not used, the same output", () => {
    const other = otherBuild();
    const theirs = fresh();
    expect(run(other, theirs).code).toBe(0);
    const [theirFile] = files(theirs.code);
    const ours = fresh();
    run(BIN, ours);
    const [ourFile] = files(ours.code);
    expect(path.basename(theirFile)).not.toBe(path.basename(ourFile));
    fs.copyFileSync(theirFile, ourFile);
    expect(run(BIN, ours)).toEqual(plain);
  });

  test('a code cache directory others may write to is neither read nor written', () => {
    const caches = fresh();
    fs.chmodSync(caches.code, 0o777);
    expect(run(BIN, caches)).toEqual(plain);
    expect(files(caches.code)).toEqual([]);
  });
});
