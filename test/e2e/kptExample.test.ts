/**
 * The example kpt package (examples/fn: a Kptfile whose pipeline runs `exec: cozy-gw-fn`, the
 * shipped bin/cozy-gw-fn) under the real kpt, as the README shows it:
 * - `kpt fn render --allow-exec` three times in a git checkout of the package leaves `git diff`
 *   empty: the user's files (comments, flow style, quoting, blank lines, the function's own
 *   config) pass through byte for byte, and the generated files under cozy-gw/ are the ones
 *   committed, run after run;
 * - on a package kpt has not written yet, the user's files come out exactly as `exec: cat`
 *   leaves them (kpt reflows some whitespace itself; the function adds nothing to that).
 * Skipped, visibly, where kpt or git is not on PATH.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureBuilt, readFiles, ROOT, runProcess, tmpDir, which, writeFiles } from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';

const KPT = which('kpt');
const GIT = which('git');
const EXAMPLE = path.join(ROOT, 'examples', 'fn');
/**
 * bin/ first on PATH, as the README's set-up for a clone says; no Cozystack version chosen, as a user
 * runs kpt: the committed output is the default version's (not the suite's main).
 */
const ENV = {
  PATH: `${path.join(ROOT, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  COZY_GW_COZYSTACK_VERSION: '',
};
const REGENERATE = 'regenerate the committed output: PATH="$PWD/bin:$PATH" kpt fn render examples/fn --allow-exec';

function git(dir: string, args: string[]): string {
  const r = runProcess(GIT!, ['-c', 'user.email=test@example.org', '-c', 'user.name=test', ...args], { cwd: dir });
  if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function render(dir: string): void {
  const r = runProcess(KPT!, ['fn', 'render', dir, '--allow-exec'], { env: ENV });
  if (r.code !== 0) throw new Error(`kpt fn render exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
}

const userFiles = (files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).filter(([k]) => !k.startsWith('cozy-gw/') && !k.startsWith('.git/')));

if (!KPT || !GIT) {
  describe('the example kpt package (real kpt)', () => {
    it.skip(skippedTitle('kpt fn render, three runs', needs('kpt', 'git')!), () => undefined);
  });
} else {
  describe('the example kpt package (real kpt)', () => {
    beforeAll(() => ensureBuilt(), 240_000);

    it('kpt fn render --allow-exec three times leaves git diff empty', () => {
      const dir = path.join(tmpDir('kpt-example'), 'fn');
      fs.mkdirSync(dir);
      writeFiles(dir, readFiles(EXAMPLE));
      git(dir, ['init', '-q']);
      git(dir, ['add', '-A']);
      git(dir, ['commit', '-qm', 'example']);
      for (let run = 1; run <= 3; run++) {
        render(dir);
        git(dir, ['add', '-A']);
        const diff = git(dir, ['diff', '--cached', '--stat']);
        if (diff !== '')
          throw new Error(
            `run ${run} changed the package (${REGENERATE}):\n${diff}\n${git(dir, ['diff', '--cached']).slice(0, 4000)}`,
          );
      }
    }, 180_000);

    it('on files kpt has not written yet, the user files come out as exec: cat leaves them', () => {
      // The example's sources before kpt normalised them: the platform Tenants, the config with its aligned comments.
      const src: Record<string, string> = {};
      for (const f of ['root', 'alice', 'bob', 'carol'])
        src[`tenant-${f}.yaml`] = fs.readFileSync(
          path.join(ROOT, 'examples', 'platform', 'tenants', `${f}.yaml`),
          'utf8',
        );
      src['cozygateway.yaml'] =
        `${fs.readFileSync(path.join(EXAMPLE, 'cozygateway.yaml'), 'utf8').replace(/^( *[^#\n]*?[^ #\n]) # /gm, '$1      # ')}\n# a trailing comment\n`;
      src['widget.yaml'] =
        'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w   # spaced\n\nspec: {list: [a,  b], "quoted": \'x\', n: 0x1F, big: 1e3}\n';
      const kptfile = fs.readFileSync(path.join(EXAMPLE, 'Kptfile'), 'utf8');
      const withFn = path.join(tmpDir('kpt-fn'), 'pkg');
      const withCat = path.join(tmpDir('kpt-cat'), 'pkg');
      writeFiles(withFn, { ...src, Kptfile: kptfile });
      writeFiles(withCat, { ...src, Kptfile: kptfile.replace('exec: cozy-gw-fn', 'exec: cat') });
      render(withFn);
      render(withCat);
      const fnFiles = userFiles(readFiles(withFn));
      const catFiles = userFiles(readFiles(withCat));
      catFiles.Kptfile = catFiles.Kptfile.replace('exec: cat', 'exec: cozy-gw-fn');
      expect(fnFiles).toEqual(catFiles);
      expect(Object.keys(readFiles(withFn)).filter((k) => k.startsWith('cozy-gw/')).length).toBeGreaterThan(10);
      // A second run changes nothing at all.
      const before = readFiles(withFn);
      render(withFn);
      expect(readFiles(withFn)).toEqual(before);
    }, 180_000);
  });
}
