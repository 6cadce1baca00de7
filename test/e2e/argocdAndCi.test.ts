/**
 * Runs without exec permission in kpt: the Argo CD Config Management Plugin
 * (examples/argocd) run the way Argo CD's cmp-server runs `generate` (working directory the
 * Application's path, ARGOCD_APP_* and the Application's plugin env as ARGOCD_ENV_*). The CI
 * examples (examples/ci) run as GitHub Actions runs them in test/e2e/ciWorkflows.test.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { BIN, ensureBuilt, readFiles, ROOT, runProcess, tmpDir, which, writeFiles, writeWrapper } from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';

const SH = which('sh');
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
