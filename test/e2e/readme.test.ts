/**
 * The README and every page of docs/ (and ARCHITECTURE.md) are a promise (docs/commands/README.md
 * "Testing the pages"): every command they show runs here, from a fresh clone's point of view,
 * and its output is compared with what the page shows (`...` cuts allowed). Blocks run in page
 * order, the README's tour first, then the other pages in path order, in one scratch directory
 * holding the clone's files, so a file one step writes (rendered.yaml) is there for the next, as
 * for a reader who followed the tour. The format is described in test/helpers/readme.ts. Needs
 * `npm run build` (the commands run bin/cozy-gw.js).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers/cli';
import { ensureBuilt } from '../helpers/kpt';
import { matchOutput, parseReadme, type ReadmeBlock } from '../helpers/readme';
import { needs, skippedTitle } from '../helpers/skip';

/** The pages whose blocks run: the README first, then ARCHITECTURE.md and docs/ in path order. */
function pages(): string[] {
  const out = ['README.md', 'ARCHITECTURE.md'];
  const walk = (dir: string) => {
    const entries = fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out.filter((p) => fs.existsSync(path.join(ROOT, p)));
}

const PAGES = pages().map((page) => ({ page, blocks: parseReadme(fs.readFileSync(path.join(ROOT, page), 'utf8')) }));
const blocks = PAGES[0].blocks;

/** A scratch copy of a fresh clone after the two set-up commands: the tracked files and the build. */
function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-readme-'));
  const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .stdout.split('\0')
    .filter(Boolean);
  for (const f of tracked) {
    if (f.startsWith('test/') || f.startsWith('testdata/')) continue;
    const src = path.join(ROOT, f);
    if (!fs.existsSync(src)) continue;
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(src, path.join(dir, f));
    fs.chmodSync(path.join(dir, f), fs.statSync(src).mode);
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  fs.cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
  return dir;
}

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    CI: 'true',
    // INTERIM (docs/versions.md): the pages still show main's output; they move to the default version next.
    COZY_GW_COZYSTACK_VERSION: process.env.COZY_GW_COZYSTACK_VERSION,
  };
  return e;
}

let dir = '';
beforeAll(() => {
  ensureBuilt();
  dir = workspace();
}, 300000);
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('README and docs pages', () => {
  it('has commands to check', () => {
    expect(blocks.filter((b) => b.commands.length > 0).length).toBeGreaterThan(5);
    // Every command page shows commands that run.
    const without = PAGES.filter((p) => p.page.startsWith('docs/commands/'))
      .filter((p) => !p.blocks.some((b) => b.commands.length > 0 && !b.skip))
      .map((p) => p.page);
    expect(without).toEqual([]);
  });

  // 400 lines for the tour, set-up and testing, and a few more for the Performance section's table of
  // the installed package's ratios (test/bench/figures.test.ts holds it to docs/performance.md).
  it('keeps the README a tour: at most 415 lines, the reference in docs/', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(415);
  });

  it('states no count of skipped tests, which differs from machine to machine (npm test lists them)', () => {
    const stated = PAGES.flatMap(({ page }) =>
      fs
        .readFileSync(path.join(ROOT, page), 'utf8')
        .split('\n')
        .map((l, i) => [`${page}:${i + 1}`, l] as const)
        .filter(([, l]) => /\b\d+ (tests? )?(skip|skipped)\b/i.test(l))
        .map(([at, l]) => `${at}: ${l.trim()}`),
    );
    expect(stated).toEqual([]);
  });

  it('opens with the two set-up commands', () => {
    const setup = blocks.find((b) => /set-up/i.test(b.section));
    expect(setup?.commands.map((c) => c.command.replace(/\s+#.*$/, '').trim())).toEqual([
      'npm install && npm run example',
      'npm test',
    ]);
  });

  let lastExit = 0;
  for (const { page, blocks: pageBlocks } of PAGES)
    for (const b of pageBlocks) {
      if (b.commands.length === 0) continue;
      const name = `${b.section}: block at ${page}:${b.line}`;
      const missing = b.needs.length ? needs(...b.needs) : undefined;
      if (b.skip) {
        it.skip(skippedTitle(name, b.skip), () => {});
        continue;
      }
      if (missing) {
        it.skip(skippedTitle(name, missing), () => {});
        continue;
      }
      it(name, () => runBlock(b, page), 300000);
    }

  // After the tour, `git status` in a fresh clone is clean: whatever the tour wrote is git-ignored.
  it('leaves nothing for git status: every file the tour writes is git-ignored', () => {
    const tracked = new Set(
      spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\0').filter(Boolean),
    );
    const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    expect(git('init', '-q').status).toBe(0);
    const unignored = git('ls-files', '-z', '--others', '--exclude-standard')
      .stdout.split('\0')
      .filter(Boolean)
      // The scratch copy links node_modules (a directory in a clone, ignored there).
      .filter((f) => !tracked.has(f) && f !== 'node_modules');
    expect(unignored).toEqual([]);
  });

  function runBlock(b: ReadmeBlock, page: string): void {
    for (const c of b.commands) {
      const cmd = c.command.replace(/\s+#[^'"\n]*$/, '');
      // The set-up commands are what this suite is part of: `npm install` ran before it, and
      // `npm test` is this run.
      if (/^npm (install|ci|test)\b/.test(cmd.trim())) {
        if (/npm run example/.test(cmd)) runOne({ ...c, command: 'npm run --silent example >/dev/null' }, b, page);
        continue;
      }
      runOne({ ...c, command: cmd }, b, page);
    }
  }

  function runOne(c: { command: string; expected?: string[]; line: number }, b: ReadmeBlock, page: string): void {
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', `(exit ${lastExit}); ${c.command}`], {
      cwd: dir,
      env: env(),
      encoding: 'utf8',
      timeout: 120000,
      maxBuffer: 256 * 1024 * 1024,
    });
    // stdout and stderr as a terminal shows them: the commands write one after the other.
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    lastExit = r.status ?? 1;
    if (b.kind === 'sh' || c.expected === undefined) {
      if (r.status !== 0)
        throw new Error(`${page}:${c.line}: \`${c.command}\` exited ${r.status}:\n${output.slice(0, 2000)}`);
      return;
    }
    // A command whose shown output ends in `echo $?` is expected to fail; elsewhere it must pass.
    const problem = matchOutput(c.expected, output.split('\n'));
    if (problem)
      throw new Error(
        `${page}:${c.line}: \`${c.command}\`: ${problem}\n--- it printed (exit ${r.status}):\n${output.slice(0, 3000)}`,
      );
  }
});
