/**
 * The flags bin/ sets for V8's optimising compiler (src/cli/compilerFlags.ts): when they are set,
 * that both executables set them (V8's cache version tag, which hashes the flags, read at exit),
 * and that the output does not depend on them.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { COMPILER_FLAGS, compilerFlags } from '../../src/cli/compilerFlags';
import { EXAMPLE_INPUTS, ROOT } from '../helpers/cli';

const NODE = { node: '20.20.2', v8: '11.3.244.8-node.38' } as unknown as NodeJS.ProcessVersions;

const ALL = COMPILER_FLAGS.split(' ');

describe('when the flags are set', () => {
  it("on V8, every flag, with nothing about them among node's own options", () => {
    expect(ALL).toEqual(['--no-turbo-inlining', '--interrupt-budget=540672']);
    expect(compilerFlags([], NODE)).toEqual(ALL);
    expect(compilerFlags(['--max-old-space-size=4096', '--enable-source-maps'], NODE)).toEqual(ALL);
    // A flag of another name that begins like one of them is not the same setting.
    expect(compilerFlags(['--interrupt-budget-for-feedback-allocation=100'], NODE)).toEqual(ALL);
  });

  it.each([
    ['--turbo-inlining'],
    ['--no-turbo-inlining'],
    ['--turbo_inlining'],
    ['--noturbo-inlining'],
    ['--max-inlined-bytecode-size=100'],
    ['--max-inlined-bytecode-size-cumulative=200'],
  ])('not inlining when node was given %s: that choice is kept', (flag) => {
    expect(compilerFlags(['--enable-source-maps', flag], NODE)).toEqual(['--interrupt-budget=540672']);
  });

  it.each([['--interrupt-budget=1000'], ['--interrupt_budget=1000'], ['--interrupt-budget']])(
    'not the interrupt budget when node was given %s',
    (flag) => {
      expect(compilerFlags([flag], NODE)).toEqual(['--no-turbo-inlining']);
      expect(compilerFlags([flag, '--turbo-inlining'], NODE)).toEqual([]);
    },
  );

  it('not under Bun, nor on a runtime without V8', () => {
    expect(compilerFlags([], { ...NODE, bun: '1.1.0' } as NodeJS.ProcessVersions)).toEqual([]);
    expect(compilerFlags([], { node: '20.0.0' } as unknown as NodeJS.ProcessVersions)).toEqual([]);
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

  it('a flag given to node is kept, not overridden; the other is still set', () => {
    const args = ['--max-inlined-bytecode-size=100'];
    const budgetOnly = tagOf(args, ['-e', `require('v8').setFlagsFromString('--interrupt-budget=540672')`]).tag;
    expect(tagOf(args, [path.join(ROOT, 'bin/cozy-gw.js'), '--version']).tag).toBe(budgetOnly);
    const both = ['--turbo-inlining', '--interrupt-budget=1000'];
    expect(tagOf(both, [path.join(ROOT, 'bin/cozy-gw.js'), '--version']).tag).toBe(plain(both));
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
    // V8's own defaults, given to node: neither flag is set.
    const without = tagOf(['--turbo-inlining', '--interrupt-budget=67584'], args);
    expect(withFlags.tag).not.toBe(without.tag);
    expect(withFlags.status).toBe(without.status);
    expect(withFlags.stdout.length).toBeGreaterThan(1000);
    expect(withFlags.stdout).toBe(without.stdout);
  });
});
