/**
 * The first hour of a user who installed the package (docs/install.md, docs/commands/init.md), run
 * as they run it: the package packed and installed into an empty prefix, nothing else of cozy-gw on
 * PATH, an empty directory. `cozy-gw init` writes the starting repository; the commands its README
 * shows run as written; then its CI workflows' steps run as GitHub Actions runs them, in a git
 * repository holding the package file the workflows install (`COZY_GW_PACKAGE`): the render
 * workflow installs cozy-gw into a prefix of its own and commits `deploy/platform`, and on a change
 * the diff workflow previews it (status 3, the comment in parts, the page, the findings), posts the
 * comment (its actions/github-script, against a recording GitHub client) and passes the gate.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { readmeShCommands } from '../helpers/readme';
import { runProcess, tmpDir, which } from '../helpers/kpt';
import { installPacked, type Installed } from '../helpers/installed';
import { needs, skippedTitle } from '../helpers/skip';

const SH = which('sh');
const GIT = which('git');

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  id?: string;
  if?: string;
  'working-directory'?: string;
  env?: Record<string, string>;
  with?: { script?: string };
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

if (!SH || !GIT) {
  describe('the installed package, from an empty directory', () => {
    it.skip(skippedTitle('init, the README commands and the CI workflows', needs('sh', 'git')!), () => undefined);
  });
} else {
  describe('the installed package, from an empty directory', () => {
    let dir = '';
    let installed: Installed;
    /** PATH with the installed package first and nothing else of cozy-gw. */
    let userPath = '';
    let repo = '';
    beforeAll(() => {
      dir = tmpDir('starter');
      installed = installPacked(path.join(dir, 'package'));
      userPath = [
        installed.bin,
        ...(process.env.PATH ?? '').split(path.delimiter).filter((p) => !p.includes('node_modules')),
      ].join(path.delimiter);
      repo = path.join(dir, 'work', 'my-platform');
      fs.mkdirSync(path.dirname(repo), { recursive: true });
    }, 180_000);
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    const sh = (script: string, cwd: string, env: Record<string, string> = {}) =>
      runProcess(SH!, ['-c', script], { cwd, env: { PATH: userPath, HOME: dir, ...env } });
    const git = (...args: string[]) =>
      runProcess(GIT!, ['-c', 'user.email=t@example.org', '-c', 'user.name=t', ...args], { cwd: repo });
    const workflow = (name: string) =>
      jsyaml.load(fs.readFileSync(path.join(repo, '.github', 'workflows', name), 'utf8')) as Workflow;
    const steps = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps);

    it('cozy-gw is the installed package, and init writes the starting repository', () => {
      expect(sh('command -v cozy-gw', dir).stdout.trim()).toBe(path.join(installed.bin, 'cozy-gw'));
      const r = sh('cozy-gw init my-platform', path.dirname(repo));
      expect({ code: r.code, stderr: r.stderr.split('\n')[0] }).toEqual({
        code: 0,
        stderr: expect.stringMatching(/^wrote 14 files to my-platform:/),
      });
    });

    it("the commands its README shows run as written: render, diff (no differences), the controller's plan", () => {
      const commands = readmeShCommands(fs.readFileSync(path.join(repo, 'README.md'), 'utf8'));
      expect(commands.map((c) => c.split(' ').slice(0, 2).join(' '))).toEqual([
        'cozy-gw render',
        'cozy-gw diff',
        'cozy-gw render',
        'cozy-gw reconcile',
      ]);
      for (const c of commands) {
        const r = sh(c, repo);
        expect({ command: c, code: r.code, stack: /\n\s+at /.test(r.stderr) }).toEqual({
          command: c,
          code: 0,
          stack: false,
        });
      }
      expect(fs.existsSync(path.join(repo, 'deploy', 'platform', '.cozy-gw-files'))).toBe(true);
      // What the README's commands wrote is not the repository's: start CI from the files init wrote.
      fs.rmSync(path.join(repo, 'deploy'), { recursive: true });
      fs.rmSync(path.join(repo, 'rendered.yaml'));
    });

    it('the render workflow, on main: installs the committed package file, renders deploy/platform and commits it', () => {
      const render = workflow('cozy-gw-render.yml');
      const pkgFile = render.env?.COZY_GW_PACKAGE ?? '';
      expect(pkgFile).toBe(`./tools/${path.basename(installed.tarball)}`);
      fs.mkdirSync(path.join(repo, 'tools'));
      fs.copyFileSync(installed.tarball, path.join(repo, pkgFile));
      expect(git('init', '-q', '-b', 'main').code).toBe(0);
      git('add', '-A');
      expect(git('commit', '-qm', 'cozy-gw init').code).toBe(0);
      runSteps(
        render,
        steps(render).filter((s) => s.run && s.run !== 'git push'),
        path.join(dir, 'runner-main'),
      );
      expect(git('log', '-1', '--format=%an: %s').stdout.trim()).toBe(
        'github-actions[bot]: cozy-gw: render deploy/platform',
      );
      expect(git('status', '--porcelain').stdout).toBe('');
      expect(fs.existsSync(path.join(repo, 'deploy', 'platform', 'tenant-root', 'tenantgateway-cozystack.yaml'))).toBe(
        true,
      );
    }, 180_000);

    it('the diff workflow, on a pull request: the preview (status 3, the comment, the page, the findings), the comment posted, the gate passed', async () => {
      const alice = path.join(repo, 'platform', 'tenants', 'alice.yaml');
      fs.writeFileSync(alice, fs.readFileSync(alice, 'utf8').replace('gateway: false', 'gateway: true'));
      const base = git('rev-parse', 'HEAD').stdout.trim();
      git('checkout', '-q', '-b', 'pr');
      git('commit', '-qam', 'alice gets a Gateway');
      const diff = workflow('cozy-gw-diff.yml');
      const runner = path.join(dir, 'runner-pr');
      const outputs = runSteps(
        diff,
        steps(diff).filter((s) => s.run),
        runner,
        { 'github.event.pull_request.base.sha': base },
      );
      expect(outputs.status).toBe('3');
      // What the run writes is under RUNNER_TEMP, not in the checkout (examples/ci/cozy-gw-diff.yml).
      const out = path.join(runner, 'temp', 'cozy-gw-out');
      const parts = fs.readdirSync(path.join(out, 'comments')).sort();
      expect(parts).toEqual(['comment-01.md']);
      const comment = fs.readFileSync(path.join(out, 'comments', 'comment-01.md'), 'utf8');
      expect(comment).toContain('**The change as given:**');
      expect(comment).toContain(
        '<code>&#126; change Tenant tenant-root/alice</code>: <code>&#126; spec&#46;gateway&#58; false -&#62; true</code>',
      );
      expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
      expect(fs.existsSync(path.join(out, 'findings.txt'))).toBe(true);

      // The comment step, its actions/github-script, against a client that records what it is asked.
      const post = steps(diff).find((s) => s.uses?.startsWith('actions/github-script'))!;
      const calls: string[] = [];
      const github = {
        paginate: async () => [
          { id: 1, user: { type: 'Bot' }, body: '<!-- cozy-gw diff comment 1/1 -->\nearlier' },
          { id: 2, user: { type: 'User' }, body: 'a person' },
        ],
        rest: {
          issues: {
            listComments: () => undefined,
            deleteComment: async (a: { comment_id: number }) => void calls.push(`delete ${a.comment_id}`),
            createComment: async (a: { body: string }) => void calls.push(`create ${a.body.split('\n')[0]}`),
          },
        },
      };
      const context = { repo: { owner: 'o', repo: 'r' }, payload: { pull_request: { number: 7 } } };
      const cwd = process.cwd();
      const temp = process.env.RUNNER_TEMP;
      process.chdir(repo);
      process.env.RUNNER_TEMP = path.join(runner, 'temp');
      try {
        const script = new Function('require', 'github', 'context', `return (async () => {${post.with!.script!}})();`);
        await script(require, github, context);
      } finally {
        process.chdir(cwd);
        if (temp === undefined) delete process.env.RUNNER_TEMP;
        else process.env.RUNNER_TEMP = temp;
      }
      expect(calls).toEqual(['delete 1', 'create <!-- cozy-gw diff comment 1/1 -->']);
    }, 180_000);

    /**
     * The `run` steps of a workflow as GitHub Actions runs them, in order, on a runner whose npm
     * prefix is its own (`runner`, RUNNER_TEMP its `temp/`): the workflow's and the step's env,
     * GITHUB_OUTPUT a file, the `${{ steps.<id>.outputs.<name> }}` expressions read from it,
     * `${{ runner.temp }}` and the event's `${{ github... }}` values given, a step's
     * working-directory. Each must exit 0; returns the outputs.
     */
    function runSteps(
      w: Workflow,
      run: Step[],
      runner: string,
      github: Record<string, string> = {},
    ): Record<string, string> {
      const temp = path.join(runner, 'temp');
      fs.mkdirSync(temp, { recursive: true });
      const output = path.join(runner, 'github-output');
      fs.writeFileSync(output, '');
      const outputs: Record<string, string> = {};
      const expand = (text: string) =>
        text.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (all, e: string) => {
          const m = /^steps\.\w+\.outputs\.(\w+)$/.exec(e);
          if (m) return outputs[m[1]] ?? '';
          if (e === 'runner.temp') return temp;
          if (e in github) return github[e];
          throw new Error(`the test does not know the expression ${all}`);
        });
      for (const s of run) {
        const script = expand(s.run!);
        const stepEnv = Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, expand(v)]));
        const env = {
          ...w.env,
          ...stepEnv,
          RUNNER_TEMP: temp,
          GITHUB_OUTPUT: output,
          npm_config_prefix: runner,
          npm_config_cache: path.join(runner, 'npm-cache'),
        };
        const r = runProcess(SH!, ['-e', '-c', script], {
          cwd: s['working-directory'] ? expand(s['working-directory']) : repo,
          env: {
            PATH: [path.join(runner, 'bin'), ...userPath.split(path.delimiter).slice(1)].join(path.delimiter),
            HOME: dir,
            ...env,
          },
        });
        if (r.code !== 0) throw new Error(`step ${s.name ?? s.run}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
        for (const line of fs.readFileSync(output, 'utf8').split('\n')) {
          const m = /^(\w+)=(.*)$/.exec(line);
          if (m) outputs[m[1]] = m[2];
        }
      }
      return outputs;
    }
  });
}
