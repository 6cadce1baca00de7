/**
 * The README and every page of docs/ (and ARCHITECTURE.md) are a promise (docs/commands/README.md
 * "Testing the pages"): every command they show runs here, and its output is compared with what
 * the page shows (`...` cuts allowed). Blocks run in page order, the README's tour first, then the
 * other pages in path order, in one scratch directory holding the clone's files, so a file one
 * step writes is there for the next, as for a reader who followed the page. `cozy-gw` is the
 * package packed and installed into an empty prefix (test/helpers/installed.ts), first on PATH:
 * the tour runs as a user who installed it runs it; `node bin/cozy-gw.js` is the clone's. Each
 * page starts in the scratch directory's root, and a `cd` carries to the page's next commands.
 * The format is described in test/helpers/readme.ts. Needs `npm run build`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers/cli';
import { ensureBuilt } from '../helpers/kpt';
import { matchOutput, parseReadme, type ReadmeBlock } from '../helpers/readme';
import { needs, skippedTitle } from '../helpers/skip';
import { installPacked } from '../helpers/installed';

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
    PATH: `${installedBin}${path.delimiter}${process.env.PATH ?? ''}`,
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
let installDir = '';
let installedBin = '';
/** Where the page's next command runs: the scratch directory's root at a page's start, then where a `cd` left it. */
let cwd = '';
let cwdPage = '';
beforeAll(() => {
  ensureBuilt();
  dir = workspace();
  installDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-readme-installed-'));
  installedBin = installPacked(installDir).bin;
}, 300000);
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  if (installDir) fs.rmSync(installDir, { recursive: true, force: true });
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

  it('keeps the README a tour: at most 400 lines, the reference in docs/', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(400);
  });

  it("the README's tour runs as written from the installed package: `cozy-gw`, never the clone's bin/ or examples/", () => {
    const tour =
      fs
        .readFileSync(path.join(ROOT, 'README.md'), 'utf8')
        .split('<!-- WALKTHROUGH:BEGIN -->')[1]
        ?.split('<!-- WALKTHROUGH:END -->')[0] ?? '';
    const commands = parseReadme(tour).flatMap((b) => (b.skip ? [] : b.commands.map((c) => c.command)));
    expect(commands.length).toBeGreaterThan(5);
    expect(commands.filter((c) => /bin\/cozy-gw|examples\/|npm run/.test(c))).toEqual([]);
    expect(commands[0]).toMatch(/^cozy-gw init /);
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
      it(
        name,
        () => {
          if (cwdPage !== page) {
            cwdPage = page;
            cwd = dir;
          }
          runBlock(b, page);
        },
        300000,
      );
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
    // As in a shell: the command runs where the last `cd` left the page, and a `cd` in it carries on.
    const where = path.join(installDir, 'cwd');
    const script = `(exit ${lastExit}); ${c.command}\n__status=$?\npwd > '${where}'\nexit $__status`;
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', script], {
      cwd: cwd || dir,
      env: env(),
      encoding: 'utf8',
      timeout: 120000,
      maxBuffer: 256 * 1024 * 1024,
    });
    // stdout and stderr as a terminal shows them: the commands write one after the other.
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    lastExit = r.status ?? 1;
    if (fs.existsSync(where)) cwd = fs.readFileSync(where, 'utf8').trim();
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
