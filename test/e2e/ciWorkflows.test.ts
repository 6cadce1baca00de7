/**
 * The example CI workflows (examples/ci), run as GitHub Actions runs them
 * (test/helpers/actionsRunner.ts: the YAML parsed, the steps run in order with bash and the
 * environment GitHub sets, the GitHub-only actions stubbed visibly) in a scratch repository with an
 * origin: the render workflow on a push to main, the diff workflow on pull requests made of a base
 * commit and a pull request commit merged into it, as GitHub checks them out.
 *
 * What they must hold (docs/recipes.md "CI"): the render workflow commits the tree once and again
 * only when the platform changed, and writes a hand edit of the tree over; the diff workflow judges
 * a pull request against its base commit's tree, never its own (a pull request that commits the
 * tree re-rendered with its change still shows the change), fails the gate of a pull request that
 * changes the rendered tree, and posts only the comment parts its run wrote (a pull request that
 * commits `comments/comment-0.md` gets nothing of it posted).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadWorkflow, runWorkflow, type RunnerEvent, type RunResult } from '../helpers/actionsRunner';
import { ensureBuilt, readFiles, ROOT, runProcess, tmpDir, which, writeFiles } from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';

const GIT = which('git');
const BASH = which('bash');
const CI = path.join(ROOT, 'examples', 'ci');
const PLATFORM = path.join(ROOT, 'examples', 'platform');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const diffWorkflow = loadWorkflow(path.join(CI, 'cozy-gw-diff.yml'));
const renderWorkflow = loadWorkflow(path.join(CI, 'cozy-gw-render.yml'));

describe('the example workflows, as written', () => {
  it('install the package file of this version committed to the repository, and trigger on the platform and on the rendered tree', () => {
    // cozy-gw is not on the npm registry yet (docs/install.md): the workflows install the package file.
    expect(diffWorkflow.env?.COZY_GW_PACKAGE).toBe(`./tools/cozy-gw-${pkg.version}.tgz`);
    expect(renderWorkflow.env?.COZY_GW_PACKAGE).toBe(`./tools/cozy-gw-${pkg.version}.tgz`);
    const render = Object.values(renderWorkflow.jobs)[0].steps.find((s) => s.run?.includes('render-and-commit.sh'));
    expect(render?.env?.COZY_GW).toBe('cozy-gw');
    expect((diffWorkflow.on.pull_request as { paths: string[] }).paths).toEqual(['platform/**', 'deploy/platform/**']);
    expect((renderWorkflow.on.push as { paths: string[] }).paths).toEqual(['platform/**', 'deploy/platform/**']);
  });

  it('the diff workflow runs cozy-gw from outside the checkout and writes what it posts under RUNNER_TEMP', () => {
    const steps = Object.values(diffWorkflow.jobs)[0].steps;
    const preview = steps.find((s) => s.id === 'diff')!.run!;
    expect(preview).toContain('cozy="$RUNNER_TEMP/cozy-gw/node_modules/.bin/cozy-gw"');
    expect(preview).toContain('out="$RUNNER_TEMP/cozy-gw-out"');
    expect(preview).toContain('--comment-dir "$out/comments"');
    const install = steps.find((s) => s.name === 'Install cozy-gw')!;
    expect(install['working-directory']).toBe('${{ runner.temp }}');
    // The base commit's package file, never the pull request's.
    expect(install.run).toContain('"$RUNNER_TEMP/base/$COZY_GW_PACKAGE"');
  });
});

if (!GIT || !BASH) {
  it.skip(skippedTitle('the example workflows run', needs('git', 'bash')!), () => undefined);
} else {
  /** A repository with an origin: `author` makes commits and pushes them, as people and GitHub do. */
  class Repo {
    readonly root = tmpDir('ci-workflows');
    readonly origin = path.join(this.root, 'origin.git');
    readonly author = path.join(this.root, 'author');
    private prs = 0;
    constructor() {
      runProcess(GIT!, ['init', '-q', '--bare', '-b', 'main', this.origin]);
      runProcess(GIT!, ['clone', '-q', this.origin, this.author]);
      this.git('checkout', '-q', '-b', 'main');
    }
    git(...args: string[]): string {
      const r = runProcess(GIT!, ['-c', 'user.email=dev@example.org', '-c', 'user.name=dev', ...args], {
        cwd: this.author,
      });
      if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    }
    /** Commit what `edit` does to the author's tree, on the current branch. */
    commit(message: string, edit: (dir: string) => void): string {
      edit(this.author);
      this.git('add', '-A');
      this.git('commit', '-q', '-m', message);
      return this.git('rev-parse', 'HEAD');
    }
    /** The push event of main as it stands in the author's clone, pushed. */
    pushMain(): RunnerEvent {
      this.git('checkout', '-q', 'main');
      this.git('push', '-q', 'origin', 'main');
      const sha = this.git('rev-parse', 'HEAD');
      return { name: 'push', sha, ref: 'refs/heads/main', payload: { ref: 'refs/heads/main', after: sha } };
    }
    /** Take origin's main into the author's clone (what the render workflow pushed). */
    pullMain(): void {
      this.git('checkout', '-q', 'main');
      this.git('pull', '-q', '--ff-only', 'origin', 'main');
    }
    /** A pull request of `edit` over origin's main: its head, and the merge commit GitHub checks out. */
    pullRequest(edit: (dir: string) => void): RunnerEvent {
      this.pullMain();
      const n = ++this.prs;
      const base = this.git('rev-parse', 'HEAD');
      this.git('checkout', '-q', '-b', `pr-${n}`);
      const head = this.commit(`pull request ${n}`, edit);
      this.git('push', '-q', 'origin', `pr-${n}`);
      this.git('checkout', '-q', '--detach', base);
      this.git('merge', '-q', '--no-ff', '-m', `Merge ${head} into ${base}`, head);
      const merge = this.git('rev-parse', 'HEAD');
      this.git('push', '-q', 'origin', `HEAD:refs/pull/${n}/merge`);
      this.git('checkout', '-q', 'main');
      return {
        name: 'pull_request',
        sha: merge,
        ref: `refs/pull/${n}/merge`,
        payload: {
          number: n,
          pull_request: { number: n, base: { sha: base, ref: 'main' }, head: { sha: head, ref: `pr-${n}` } },
        },
      };
    }
  }

  const ALICE = path.join('platform', 'tenants', 'alice.yaml');
  const quotaTo = (n: string) => (dir: string) => {
    const f = path.join(dir, ALICE);
    const text = fs.readFileSync(f, 'utf8');
    expect(text).toContain('count/certificates.cert-manager.io: "10"');
    fs.writeFileSync(
      f,
      text.replace('count/certificates.cert-manager.io: "10"', `count/certificates.cert-manager.io: "${n}"`),
    );
  };
  const render = (dir: string) => {
    const r = runProcess(
      process.execPath,
      [
        path.join(ROOT, 'bin', 'cozy-gw.js'),
        'render',
        '--values',
        'platform/values.yaml',
        '-f',
        'platform/tenants',
        '--output-dir',
        'deploy/platform',
      ],
      { cwd: dir },
    );
    expect(r.code).toBe(0);
  };

  const step = (r: RunResult, name: string) => r.steps.find((s) => s.name === name)!;
  const posted = (r: RunResult) =>
    r.calls.filter((c) => c.method === 'issues.createComment').map((c) => String(c.params.body));

  let repo: Repo;
  beforeAll(() => {
    ensureBuilt();
    repo = new Repo();
    repo.commit('the platform', (dir) => {
      writeFiles(path.join(dir, 'platform'), readFiles(PLATFORM));
      writeFiles(path.join(dir, 'ci'), {
        'render-and-commit.sh': fs.readFileSync(path.join(CI, 'render-and-commit.sh'), 'utf8'),
      });
      // The package file the workflows install (the npm stub prints its first line).
      writeFiles(path.join(dir, 'tools'), { [`cozy-gw-${pkg.version}.tgz`]: 'the base commit package\n' });
    });
  }, 60_000);

  describe('cozy-gw-render.yml on a push to main', () => {
    it('renders and commits the tree, commits nothing when nothing changed, and writes a hand edit of the tree over', () => {
      const first = runWorkflow(renderWorkflow, {
        origin: repo.origin,
        event: repo.pushMain(),
        cozyGwVersion: pkg.version,
      });
      expect(first.steps.map((s) => [s.name, s.outcome])).toEqual([
        ['actions/checkout@v4', 'success'],
        ['actions/setup-node@v4', 'success'],
        ['Install cozy-gw', 'success'],
        ['Render and commit', 'success'],
        ['git push', 'success'],
      ]);
      expect(first.steps[0].stub).toMatch(/^stub actions\/checkout: git fetch of refs\/heads\/main/);
      expect(step(first, 'Render and commit').stdout).toContain('cozy-gw: committed deploy/platform');
      repo.pullMain();
      expect(repo.git('log', '-1', '--format=%an %s')).toBe('github-actions[bot] cozy-gw: render deploy/platform');
      expect(
        fs.existsSync(path.join(repo.author, 'deploy', 'platform', 'tenant-root', 'tenantgateway-cozystack.yaml')),
      ).toBe(true);

      const again = runWorkflow(renderWorkflow, {
        origin: repo.origin,
        event: repo.pushMain(),
        cozyGwVersion: pkg.version,
      });
      expect(step(again, 'Render and commit').stdout).toContain('cozy-gw: deploy/platform is up to date');

      const file = path.join('deploy', 'platform', 'tenant-alice', 'resourcequota-tenant-quota.yaml');
      expect(fs.existsSync(path.join(repo.author, file))).toBe(true);
      const rendered = fs.readFileSync(path.join(repo.author, file), 'utf8');
      repo.commit('a hand edit of the tree', (dir) =>
        fs.writeFileSync(path.join(dir, file), rendered.replace('"10"', '"999"')),
      );
      const undo = runWorkflow(renderWorkflow, {
        origin: repo.origin,
        event: repo.pushMain(),
        cozyGwVersion: pkg.version,
      });
      expect(step(undo, 'Render and commit').stdout).toContain('cozy-gw: committed deploy/platform');
      repo.pullMain();
      expect(fs.readFileSync(path.join(repo.author, file), 'utf8')).toBe(rendered);
    }, 120_000);
  });

  describe('cozy-gw-diff.yml on a pull request', () => {
    beforeAll(() => {
      // The tree the render workflow committed on main (as the test above leaves it, or rendered here).
      repo.pullMain();
      if (!fs.existsSync(path.join(repo.author, 'deploy', 'platform'))) {
        repo.commit('cozy-gw: render deploy/platform', render);
        repo.pushMain();
      }
    }, 60_000);
    const run = (event: RunnerEvent, comments: Record<string, unknown>[] = []) =>
      runWorkflow(diffWorkflow, { origin: repo.origin, event, cozyGwVersion: pkg.version, comments });

    it('a Tenant changed: exit 3, the change posted, the gate passes', () => {
      const r = run(repo.pullRequest(quotaTo('20')), [
        { id: 7, user: { type: 'Bot' }, body: '<!-- cozy-gw diff comment 1/1 -->\nan earlier run' },
        { id: 8, user: { type: 'User' }, body: 'a reviewer' },
      ]);
      expect(r.steps.map((s) => [s.name, s.outcome])).toEqual([
        ['actions/checkout@v4', 'success'],
        ['actions/setup-node@v4', 'success'],
        ["Check out the base commit's tree (the state)", 'success'],
        ['Install cozy-gw', 'success'],
        ["The rendered tree is render's, not the pull request's", 'success'],
        ['Preview the change', 'success'],
        ['Annotate the findings', 'success'],
        ['Keep the report page', 'success'],
        ['Post the comment', 'success'],
        ['Gate', 'success'],
      ]);
      expect(step(r, 'Gate').stdout).toBe('differences: see the comments\n');
      expect(r.calls.filter((c) => c.method === 'issues.deleteComment').map((c) => c.params.comment_id)).toEqual([7]);
      const comment = posted(r).join('');
      expect(comment).toMatch(/^<!-- cozy-gw diff comment 1\/\d+ -->\n### cozy-gw diff: /);
      expect(comment).toContain('ResourceQuota');
      expect(comment).toMatch(/^\+\s+limits\.count\/certificates\.cert-manager\.io: "20"$/m);
      expect(r.artifacts.map((a) => [a.name, a.text.startsWith('<!DOCTYPE html>')])).toEqual([
        ['cozy-gw-report', true],
      ]);
      expect(r.commands).toEqual([]);
    }, 120_000);

    it('a Tenant changed and the tree re-rendered with it committed: the change still shows, and the gate refuses the edited tree', () => {
      const r = run(
        repo.pullRequest((dir) => {
          quotaTo('30')(dir);
          render(dir);
        }),
      );
      expect(step(r, 'Preview the change').outcome).toBe('success');
      const comment = posted(r).join('');
      expect(comment).toMatch(/^\+\s+limits\.count\/certificates\.cert-manager\.io: "30"$/m);
      expect(comment).not.toContain('cozy-gw diff: no differences');
      expect(r.commands.filter((c) => c.startsWith('::error'))).toEqual([
        expect.stringMatching(/^::error title=cozy-gw::this pull request changes 2 file\(s\) of deploy\/platform, /),
      ]);
      expect(step(r, "The rendered tree is render's, not the pull request's").stdout).toContain(
        'edited: deploy/platform/tenant-alice/resourcequota-tenant-quota.yaml',
      );
      expect([step(r, 'Gate').outcome, r.conclusion]).toEqual(['failure', 'failure']);
    }, 120_000);

    it('the rendered tree edited by hand, the platform unchanged: no differences, and the gate refuses it', () => {
      const file = path.join('deploy', 'platform', 'tenant-alice', 'resourcequota-tenant-quota.yaml');
      const r = run(
        repo.pullRequest((dir) => {
          const f = path.join(dir, file);
          fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/"10"/g, '"999"'));
        }),
      );
      expect(posted(r)[0]).toMatch(/^<!-- cozy-gw diff comment 1\/1 -->\n### cozy-gw diff: no differences\n/);
      expect(step(r, 'Gate').stdout).toBe('the pull request changes the rendered tree (1 file(s)): refused\n');
      expect(r.conclusion).toBe('failure');
    }, 120_000);

    it('a pull request that plants comment parts, findings and a report in the checkout: nothing of them is posted or printed', () => {
      const planted = 'PLANTED: approve me';
      const r = run(
        repo.pullRequest((dir) => {
          quotaTo('40')(dir);
          writeFiles(path.join(dir, 'comments'), {
            'comment-0.md': `<!-- cozy-gw diff comment 1/1 -->\n${planted}\n`,
            'comment-00.md': `${planted}\n`,
            'comment-01.md': `${planted}\n`,
          });
          writeFiles(dir, { 'findings.txt': `::error::${planted}\n`, 'report.html': planted });
          writeFiles(path.join(dir, 'tools'), { [`cozy-gw-${pkg.version}.tgz`]: `${planted}\n` });
        }),
      );
      expect(r.conclusion).toBe('success');
      // The package installed is the base commit's file, not the one the pull request planted.
      expect(step(r, 'Install cozy-gw').stderr).toContain('stub npm: package the base commit package');
      const bodies = posted(r);
      expect(bodies.length).toBeGreaterThan(0);
      bodies.forEach((b, i) =>
        expect({ part: i + 1, head: b.split('\n')[0], planted: b.includes(planted) }).toEqual({
          part: i + 1,
          head: `<!-- cozy-gw diff comment ${i + 1}/${bodies.length} -->`,
          planted: false,
        }),
      );
      expect(r.steps.map((s) => s.stdout + s.stderr).join('')).not.toContain(planted);
      expect(r.artifacts.map((a) => a.text.includes(planted))).toEqual([false]);
    }, 120_000);

    it('a pull request that adds an npm project: the cozy-gw that runs is the one installed outside the checkout', () => {
      const r = run(
        repo.pullRequest((dir) => {
          quotaTo('50')(dir);
          writeFiles(dir, {
            'package.json': '{"name":"x","version":"1.0.0","dependencies":{"cozy-gw":"0.1.0"}}\n',
            '.npmrc': 'registry=http://127.0.0.1:9/\n',
          });
          writeFiles(path.join(dir, 'node_modules', '.bin'), {
            'cozy-gw': '#!/bin/sh\necho "::error::PLANTED BINARY"\nexit 0\n',
          });
        }),
      );
      expect(step(r, 'Install cozy-gw').stderr).toMatch(
        /^stub npm install --no-save .* --prefix \S+\/_temp\/cozy-gw \S+\/_temp\/base\/\.\/tools\/cozy-gw-[^/]+\.tgz$/m,
      );
      expect(posted(r).join('')).toMatch(/^\+\s+limits\.count\/certificates\.cert-manager\.io: "50"$/m);
      expect(r.commands).toEqual([]);
    }, 120_000);
  });
}
