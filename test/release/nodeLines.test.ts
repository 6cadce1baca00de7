/**
 * Every Node.js line users run (docs/decisions.md §C13) prints the same bytes: `--version` with
 * nothing on stderr, the example's render and `reconcile --all`, stdout and stderr alike, under
 * each node named in COZY_GW_NODE_BINS (paths separated by ':'; .ci/run names the three it tests
 * on) and the node running the tests. Without a second node it skips, and says so.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { BIN, ensureBuilt, ROOT } from '../helpers/kpt';
import { EXAMPLE_DIFF, EXAMPLE_INPUTS } from '../helpers/cli';
import { skippedTitle } from '../helpers/skip';

const others = (process.env.COZY_GW_NODE_BINS ?? '')
  .split(':')
  .filter((p) => p && fs.existsSync(p) && fs.realpathSync(p) !== fs.realpathSync(process.execPath));
const nodes = [process.execPath, ...others];
const title = 'every Node.js line prints the same bytes';

const cases: [string, string[]][] = [
  ['--version', ['--version']],
  ['render', ['render', ...EXAMPLE_INPUTS]],
  ['reconcile --all', ['reconcile', '--all', ...EXAMPLE_INPUTS, '--now', '2026-01-01T00:00:00Z']],
  ['diff -o plan', [...EXAMPLE_DIFF, '-o', 'plan']],
];

function run(node: string, args: string[]) {
  const r = spawnSync(node, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

(others.length
  ? describe
  : (t: string, fn: () => void) =>
      describe.skip(
        skippedTitle(t, 'needs a second Node.js line: COZY_GW_NODE_BINS names none (.ci/run sets it)'),
        fn,
      ))(title, () => {
  beforeAll(() => ensureBuilt());
  test.each(cases)('%s', (_name, args) => {
    const version = (n: string) => spawnSync(n, ['--version'], { encoding: 'utf8' }).stdout.trim();
    const [first, ...rest] = nodes.map((n) => ({ node: version(n), ...run(n, args) }));
    expect(first.code === 0 || first.code === 3).toBe(true);
    if (args[0] === '--version') expect(first.stderr).toBe('');
    for (const r of rest) expect({ ...r, node: first.node }).toEqual(first);
  });
});
