/**
 * The flags bin/ sets for V8's optimising compiler (src/cli/compilerFlags.ts): when they are set,
 * that both executables set them (V8's cache version tag, which hashes the flags, read at exit),
 * and that the output does not depend on them.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { COMPILER_FLAGS, wantsCompilerFlags } from '../../src/cli/compilerFlags';
import { EXAMPLE_INPUTS, ROOT } from '../helpers/cli';

const NODE = { node: '20.20.2', v8: '11.3.244.8-node.38' } as unknown as NodeJS.ProcessVersions;

describe('when the flags are set', () => {
  it("on V8, with nothing about inlining among node's own options", () => {
    expect(wantsCompilerFlags([], NODE)).toBe(true);
    expect(wantsCompilerFlags(['--max-old-space-size=4096', '--enable-source-maps'], NODE)).toBe(true);
  });

  it.each([
    ['--turbo-inlining'],
    ['--no-turbo-inlining'],
    ['--turbo_inlining'],
    ['--noturbo-inlining'],
    ['--max-inlined-bytecode-size=100'],
    ['--max-inlined-bytecode-size-cumulative=200'],
  ])('not when node was given %s: that choice is kept', (flag) => {
    expect(wantsCompilerFlags(['--enable-source-maps', flag], NODE)).toBe(false);
  });

  it('not under Bun, nor on a runtime without V8', () => {
    expect(wantsCompilerFlags([], { ...NODE, bun: '1.1.0' } as NodeJS.ProcessVersions)).toBe(false);
    expect(wantsCompilerFlags([], { node: '20.0.0' } as unknown as NodeJS.ProcessVersions)).toBe(false);
  });

  it('the flags are ones this V8 knows (an unknown flag would be ignored without a word)', () => {
    const r = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    for (const flag of COMPILER_FLAGS.split(' ')) {
      const name = flag.replace(/^--(no-)?/, '').replace(/=.*/, '');
      expect({ flag, known: r.stdout.includes(`--${name} `) }).toEqual({ flag, known: true });
    }
  });
});

describe('the built executables (child processes)', () => {
  let dir: string;
  let tagHook: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-flags-'));
    tagHook = path.join(dir, 'tag.js');
    // V8's cache version tag: the V8 version, the CPU's features and a hash of the flags set.
    fs.writeFileSync(
      tagHook,
      "process.on('exit', () => process.stderr.write('\\nTAG ' + require('v8').cachedDataVersionTag() + '\\n'));\n",
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const tagOf = (nodeArgs: string[], script: string[], input = '') => {
    const r = spawnSync(process.execPath, [...nodeArgs, '-r', tagHook, ...script], {
      encoding: 'utf8',
      input,
      cwd: ROOT,
    });
    const m = /TAG (\d+)/.exec(r.stderr);
    if (!m) throw new Error(`no tag from ${script.join(' ')} (status ${r.status}): ${r.stderr}`);
    return { tag: m[1], stdout: r.stdout, status: r.status };
  };
  const plain = (nodeArgs: string[] = []) => tagOf(nodeArgs, ['-e', '0']).tag;
  const flagged = () => tagOf([], ['-e', `require('v8').setFlagsFromString(${JSON.stringify(COMPILER_FLAGS)})`]).tag;

  it('the flags change the tag: a run with them is told apart from one without', () => {
    expect(flagged()).not.toBe(plain());
  });

  it('bin/cozy-gw.js and bin/cozy-gw-fn both run with the flags', () => {
    expect(tagOf([], [path.join(ROOT, 'bin/cozy-gw.js'), '--version']).tag).toBe(flagged());
    const list = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n';
    expect(tagOf([], [path.join(ROOT, 'bin/cozy-gw-fn')], list).tag).toBe(flagged());
  });

  it('a flag about inlining given to node is kept, not overridden', () => {
    const args = ['--max-inlined-bytecode-size=100'];
    expect(tagOf(args, [path.join(ROOT, 'bin/cozy-gw.js'), '--version']).tag).toBe(plain(args));
  });

  it('reconcile prints the same bytes with and without them', () => {
    const args = [
      path.join(ROOT, 'bin/cozy-gw.js'),
      'reconcile',
      '--all',
      ...EXAMPLE_INPUTS,
      '--now',
      '2026-01-01T00:00:00Z',
    ];
    const withFlags = tagOf([], args);
    const without = tagOf(['--turbo-inlining'], args);
    expect(withFlags.tag).not.toBe(without.tag);
    expect(withFlags.status).toBe(without.status);
    expect(withFlags.stdout.length).toBeGreaterThan(1000);
    expect(withFlags.stdout).toBe(without.stdout);
  });
});
