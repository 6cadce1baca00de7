/**
 * Runs without exec permission in kpt: the Argo CD Config Management Plugin
 * (examples/argocd) run the way Argo CD's cmp-server runs `generate` (working directory the
 * Application's path, ARGOCD_APP_* and the Application's plugin env as ARGOCD_ENV_*), and the CI
 * example (examples/ci: a GitHub Actions workflow and the script it calls) run in a git
 * repository.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { BIN, ensureBuilt, readFiles, ROOT, runProcess, tmpDir, which, writeFiles, writeWrapper } from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';

const SH = which('sh');
const GIT = which('git');
const ARGO = path.join(ROOT, 'examples', 'argocd');
const PLATFORM = path.join(ROOT, 'examples', 'platform');

interface Cmp {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { version: string; generate: { command: string[]; args: string[] }; discover?: unknown };
}
const plugin = jsyaml.load(fs.readFileSync(path.join(ARGO, 'plugin.yaml'), 'utf8')) as Cmp;
const application = jsyaml.load(fs.readFileSync(path.join(ARGO, 'application.yaml'), 'utf8')) as {
  spec: { source: { path: string; plugin: { name: string; env: { name: string; value: string }[] } } };
};
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** A copy of the example platform, as Argo CD checks the repository out. */
function appDir(): string {
  const dir = path.join(tmpDir('argocd'), 'repo', application.spec.source.path);
  fs.mkdirSync(dir, { recursive: true });
  writeFiles(dir, readFiles(PLATFORM));
  return dir;
}

/** The plugin's generate command, as argocd-cmp-server runs it, with `cozy-gw` on PATH (the image's npm package: node bin/cozy-gw.js). */
function generate(dir: string, env: Record<string, string>) {
  const bin = path.join(tmpDir('argocd-bin'));
  writeWrapper(path.join(bin, 'cozy-gw'), []);
  const [cmd, ...cmdArgs] = plugin.spec.generate.command;
  const shell = cmd === '/bin/sh' ? SH! : cmd; // the image's sh; any POSIX sh here
  return runProcess(shell, [...cmdArgs, ...plugin.spec.generate.args], {
    cwd: dir,
    env: {
      PATH: `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`,
      ARGOCD_APP_NAME: 'cozystack-platform',
      ARGOCD_APP_NAMESPACE: 'argocd',
      ARGOCD_APP_REVISION: '0123456789abcdef0123456789abcdef01234567',
      ARGOCD_APP_SOURCE_PATH: application.spec.source.path,
      ARGOCD_APP_SOURCE_REPO_URL: 'https://github.com/cozystack/cozy-gw.git',
      ARGOCD_APP_SOURCE_TARGET_REVISION: 'main',
      KUBE_VERSION: '1.32.4',
      KUBE_API_VERSIONS: 'v1,apps/v1,gateway.networking.k8s.io/v1',
      ...env,
    },
  });
}

const envOf = (e: { name: string; value: string }[]) =>
  Object.fromEntries(e.map((x) => [`ARGOCD_ENV_${x.name}`, x.value]));

describe('Argo CD Config Management Plugin (examples/argocd)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('plugin.yaml is a ConfigManagementPlugin that the Application names as <name>-<version>', () => {
    expect(plugin).toMatchObject({ apiVersion: 'argoproj.io/v1alpha1', kind: 'ConfigManagementPlugin' });
    expect(application.spec.source.plugin.name).toBe(`${plugin.metadata.name}-${plugin.spec.version}`);
  });

  it('the sidecar runs argocd-cmp-server in the release image, with plugin.yaml where the cmp-server reads it', () => {
    const patch = jsyaml.load(fs.readFileSync(path.join(ARGO, 'repo-server-sidecar.yaml'), 'utf8')) as {
      spec: { template: { spec: { containers: Record<string, unknown>[]; volumes: Record<string, unknown>[] } } };
    };
    const c = patch.spec.template.spec.containers[0] as {
      image: string;
      command: string[];
      securityContext: { runAsUser: number };
      volumeMounts: { name: string; mountPath: string; subPath?: string }[];
    };

    const goreleaser = require('../../scripts/release-check.js').readConfig();
    expect(c.image).toBe(`${goreleaser.dockers_v2[0].images[0]}:${pkg.version}`);
    expect(c.command).toEqual(['/var/run/argocd/argocd-cmp-server']);
    expect(c.securityContext.runAsUser).toBe(999);
    expect(c.volumeMounts).toEqual(
      expect.arrayContaining([
        { name: 'var-files', mountPath: '/var/run/argocd' },
        { name: 'plugins', mountPath: '/home/argocd/cmp-server/plugins' },
        { name: 'cozy-gw-cmp-plugin', mountPath: '/home/argocd/cmp-server/config/plugin.yaml', subPath: 'plugin.yaml' },
      ]),
    );
    // The plugin's shell is in the image.
    expect(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^FROM node:24-bookworm-slim$/m);
    expect(plugin.spec.generate.command[0]).toBe('/bin/sh');
  });

  if (!SH) {
    it.skip(skippedTitle('the generate command runs', needs('sh')!), () => undefined);
    return;
  }

  it("generate, run as Argo CD runs it with the Application's env, prints what cozy-gw render prints", () => {
    const dir = appDir();
    const r = generate(dir, envOf(application.spec.source.plugin.env));
    // Only render's note on the Helm hooks it left out (docs/decisions.md §Q5).
    expect(r.stderr).toMatch(/^info: Helm hooks left out[^\n]*\n$/);
    expect(r.code).toBe(0);
    const direct = runProcess(process.execPath, [BIN, 'render', '--values', 'values.yaml', '-f', 'tenants'], {
      cwd: dir,
    });
    expect(r.stdout).toBe(direct.stdout);
    const kinds = new Set((jsyaml.loadAll(r.stdout) as { kind: string }[]).map((o) => o.kind));
    expect([...kinds]).toEqual(
      expect.arrayContaining(['Namespace', 'Secret', 'TenantGateway', 'ValidatingAdmissionPolicy']),
    );
  });

  it('ARGOCD_ENV_VALUES layers values files left to right (the DNS-01 overlay)', () => {
    const dir = appDir();
    const r = generate(dir, { ARGOCD_ENV_VALUES: 'values.yaml values-dns01.yaml' });
    expect(r.code).toBe(0);
    const tgw = (
      jsyaml.loadAll(r.stdout) as { kind: string; metadata: { namespace?: string }; spec: { certMode?: string } }[]
    ).find((o) => o.kind === 'TenantGateway' && o.metadata.namespace === 'tenant-root')!;
    expect(tgw.spec.certMode).toBe('dns01');
  });

  it('a render failure exits non-zero with the error on stderr and nothing on stdout (Argo CD shows it)', () => {
    const dir = appDir();
    const r = generate(dir, { ARGOCD_ENV_VALUES: 'nope.yaml' });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/nope\.yaml/);
  });
});

describe('CI example (examples/ci: GitHub Actions workflow and render-and-commit.sh)', () => {
  const workflow = jsyaml.load(fs.readFileSync(path.join(ROOT, 'examples', 'ci', 'cozy-gw-render.yml'), 'utf8')) as {
    env: Record<string, string>;
    jobs: Record<string, { steps: { name?: string; run?: string; env?: Record<string, string> }[] }>;
  };
  const step = Object.values(workflow.jobs)
    .flatMap((j) => j.steps)
    .find((s) => s.run?.includes('render-and-commit.sh'))!;
  const SCRIPT = path.join(ROOT, 'examples', 'ci', 'render-and-commit.sh');

  it('the workflow calls the script with the settings it documents, and pushes', () => {
    expect(step.run).toBe('sh ci/render-and-commit.sh');
    expect(Object.keys(step.env!).sort()).toEqual([
      'COZY_GW',
      'GIT_USER_EMAIL',
      'GIT_USER_NAME',
      'INPUTS',
      'OUTPUT_DIR',
      'VALUES',
    ]);
    // The installed package's cozy-gw, from the package file committed beside the workflow (0.1.0 is
    // not on the npm registry: docs/install.md).
    expect(step.env!.COZY_GW).toBe('cozy-gw');
    expect(workflow.env.COZY_GW_PACKAGE).toBe(`./tools/cozy-gw-${pkg.version}.tgz`);
    expect(
      Object.values(workflow.jobs)
        .flatMap((j) => j.steps)
        .find((s) => s.name === 'Install cozy-gw')?.run,
    ).toBe('npm install -g --no-audit --no-fund "$COZY_GW_PACKAGE"');
    expect(
      Object.values(workflow.jobs)
        .flatMap((j) => j.steps)
        .some((s) => s.run === 'git push'),
    ).toBe(true);
  });

  if (!SH || !GIT) {
    it.skip(skippedTitle('render-and-commit.sh runs', needs('sh', 'git')!), () => undefined);
    return;
  }

  it('renders and commits, commits nothing when nothing changed, and commits a change', () => {
    ensureBuilt();
    const repo = path.join(tmpDir('ci'), 'repo');
    writeFiles(path.join(repo, 'platform'), {
      'values.yaml': fs.readFileSync(path.join(PLATFORM, 'values.yaml'), 'utf8'),
    });
    for (const f of ['root', 'alice', 'bob', 'carol'])
      writeFiles(path.join(repo, 'platform', 'tenants'), {
        [`${f}.yaml`]: fs.readFileSync(path.join(PLATFORM, 'tenants', `${f}.yaml`), 'utf8'),
      });
    writeFiles(path.join(repo, 'ci'), { 'render-and-commit.sh': fs.readFileSync(SCRIPT, 'utf8') });
    const git = (...args: string[]) =>
      runProcess(GIT!, ['-c', 'user.email=t@example.org', '-c', 'user.name=t', ...args], { cwd: repo });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'platform');
    const env = { ...step.env!, COZY_GW: `${process.execPath} ${BIN}` };
    const run = () => runProcess(SH!, (step.run as string).split(' ').slice(1), { cwd: repo, env });
    const count = () => Number(git('rev-list', '--count', 'HEAD').stdout.trim());

    const first = run();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('cozy-gw: committed deploy/platform');
    expect(count()).toBe(2);
    expect(git('log', '-1', '--format=%an %s').stdout.trim()).toBe(
      'github-actions[bot] cozy-gw: render deploy/platform',
    );
    expect(fs.existsSync(path.join(repo, 'deploy', 'platform', 'tenant-root', 'tenantgateway-cozystack.yaml'))).toBe(
      true,
    );
    expect(git('status', '--porcelain').stdout).toBe('');

    const second = run();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('cozy-gw: deploy/platform is up to date');
    expect(count()).toBe(2);

    fs.writeFileSync(
      path.join(repo, 'platform', 'tenants', 'dave.yaml'),
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: dave\n  namespace: tenant-root\n',
    );
    const third = run();
    expect(third.code).toBe(0);
    expect(count()).toBe(3);
    expect(git('show', '--name-only', '--format=', 'HEAD').stdout).toMatch(
      /deploy\/platform\/_cluster\/namespace-tenant-dave\.yaml/,
    );
  }, 120_000);
});

describe('CI example (examples/ci/cozy-gw-diff.yml: the pull-request comment and the gate)', () => {
  const workflow = jsyaml.load(fs.readFileSync(path.join(ROOT, 'examples', 'ci', 'cozy-gw-diff.yml'), 'utf8')) as {
    jobs: Record<string, { steps: { name?: string; run?: string; if?: string }[] }>;
  };
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const preview = steps.find((s) => s.name === 'Preview the change')!;

  it("posts every part of the markdown comment on 0 and 3, replacing the earlier run's, annotates the findings, and fails the job on any other status", () => {
    expect(preview.run).toContain('-o markdown --comment-dir comments');
    expect(preview.run).toContain('--findings-file findings.txt --findings-format github');
    const post = steps.find((s) => s.name === 'Post the comment') as { with?: { script?: string } };
    expect(post.with?.script).toContain("readdirSync('comments')");
    expect(post.with?.script).toContain('<!-- cozy-gw diff comment ');
    expect(post.with?.script).toContain('deleteComment');
    expect(steps.find((s) => s.name === 'Annotate the findings')!.run).toContain('cat findings.txt');
    expect(steps.find((s) => s.name === 'Post the comment')!.if).toBe(
      "steps.diff.outputs.status == '0' || steps.diff.outputs.status == '3'",
    );
    expect(steps.find((s) => s.name === 'Gate')!.run).toMatch(/\*\) .*exit 1 ;;/);
  });

  if (!SH) {
    it.skip('sh not on PATH: the preview step is not run', () => undefined);
    return;
  }

  it('the preview step, run in a repository the render workflow filled: 0 with nothing changed, 3 with a change, and the comment', () => {
    ensureBuilt();
    const repo = path.join(tmpDir('ci-diff'), 'repo');
    writeFiles(path.join(repo, 'platform'), readFiles(PLATFORM));
    const cozy = `node ${BIN}`;
    const rendered = runProcess(
      'sh',
      ['-c', `${cozy} render --values platform/values.yaml -f platform/tenants --output-dir deploy/platform`],
      { cwd: repo },
    );
    expect(rendered.code).toBe(0);
    // The step's script, with the installed package's cozy-gw replaced by this build; GITHUB_OUTPUT a file.
    const script = preview.run!.replace(/^( *)cozy-gw /gm, `$1${cozy} `);
    expect(script).not.toMatch(/^\s*cozy-gw /m);
    const run = () => {
      const out = path.join(repo, 'github-output');
      fs.writeFileSync(out, '');
      const r = runProcess('sh', ['-c', script], { cwd: repo, env: { GITHUB_OUTPUT: out } });
      expect(r.code).toBe(0);
      const dir = path.join(repo, 'comments');
      const parts = fs
        .readdirSync(dir)
        .filter((f) => /^comment-\d+\.md$/.test(f))
        .sort();
      expect(parts[0]).toBe('comment-01.md');
      expect(fs.readFileSync(path.join(repo, 'report.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
      expect(fs.existsSync(path.join(repo, 'findings.txt'))).toBe(true);
      return {
        status: fs.readFileSync(out, 'utf8').trim(),
        comment: parts.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join(''),
      };
    };
    const same = run();
    expect(same.status).toBe('status=0');
    expect(same.comment).toMatch(/^<!-- cozy-gw diff comment 1\/1 -->\n### cozy-gw diff: no differences\n/);
    fs.writeFileSync(
      path.join(repo, 'platform', 'tenants', 'dave.yaml'),
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: dave\n  namespace: tenant-root\n',
    );
    const changed = run();
    expect(changed.status).toBe('status=3');
    // The whole tenant is created in its namespace (its count is the tenant chart's, docs/tenant.md §1.1-§1.3).
    expect(changed.comment).toMatch(
      /<details><summary>Namespace <code>tenant-dave<\/code>: \d+ to create(<\/summary>| \(continued)/,
    );
    expect(changed.comment).toContain('+++ Namespace tenant-dave (after)');
    expect(changed.comment).toContain('+++ Secret tenant-dave/cozystack-values (after)');
  }, 120_000);
});
