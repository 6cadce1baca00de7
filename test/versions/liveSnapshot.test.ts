/**
 * The versions' acceptance case, end to end (docs/versions.md §11 and "Choosing a version"): a live
 * snapshot of a v1.6.2 cluster diffs clean with no flag; the same snapshot diffed with
 * `--cozystack-version main` says on stderr and in the report header that the versions differ.
 *
 * The cluster is built at test time with the CLI, as test/e2e/liveSnapshot.test.ts builds main's:
 * the example platform rendered with `--cozystack-version v1.6.2`, applied by Flux, one controller
 * pass of v1.6.2 over it, served by a stand-in kubectl as the API server returns objects
 * (test/helpers/apiServer.ts), beside what a v1.6.2 installation shows of its version: the
 * cozystack-operator Deployment with `COZYSTACK_VERSION`, the controller's and the API's images,
 * the platform OCIRepository and the `cozystack-version` ConfigMap, as the tag's installer and
 * platform chart write them. Nothing is frozen: whatever v1.6.2 renders is what the cluster holds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { scratchCli } from '../helpers/cli';
import { kubectlServing } from '../helpers/apiServer';
import { liveExample } from '../helpers/liveExample';
import type { KObject } from '../../src/k8s/model';

const NOW = '2026-01-01T00:00:00Z';
/** A user's shell: no kubectl on PATH but the stand-in, no COZY_GW_COZYSTACK_VERSION (the suite pins main through it). */
const {
  scratch,
  make,
  cli: run,
  must: runMust,
} = scratchCli('cozy-gw-live-v1.6.2-', {
  env: { PATH: '/nonexistent', COZY_GW_COZYSTACK_VERSION: undefined },
});
type Served = ReturnType<typeof kubectlServing>;
const cli = (args: string[], exec?: Served) => run(args, { exec });
const must = (args: string[], exec?: Served) => runMust(args, { exec });
const load = (text: string) => (jsyaml.loadAll(text) as KObject[]).filter((o) => o && o.kind);
const V = ['--cozystack-version', 'v1.6.2'];

/** What a v1.6.2 installation shows of its version (the installer's operator, the platform's Deployments, source and migration level). */
function versionObjects(): KObject[] {
  const image = (name: string, digest: string) => `ghcr.io/cozystack/cozystack/${name}:v1.6.2@sha256:${digest}`;
  const deployment = (name: string, container: Record<string, unknown>): KObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'cozy-system', labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { serviceAccountName: 'cozystack', containers: [container] },
      },
    },
  });
  return [
    deployment('cozystack-operator', {
      name: 'cozystack-operator',
      image: image('cozystack-operator', 'a'.repeat(64)),
      args: ['--leader-elect=true', '--install-flux=true', '--platform-source-name=cozystack-platform'],
      env: [
        { name: 'COZYSTACK_VERSION', value: 'v1.6.2' },
        { name: 'KUBERNETES_SERVICE_HOST', value: 'localhost' },
        { name: 'KUBERNETES_SERVICE_PORT', value: '7445' },
      ],
    }),
    deployment('cozystack-controller', {
      name: 'cozystack-controller',
      image: image('cozystack-controller', 'fd0cc8e4'.repeat(8)),
    }),
    deployment('cozystack-api', { name: 'cozystack-api', image: image('cozystack-api', '8f412e63'.repeat(8)) }),
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'OCIRepository',
      metadata: { name: 'cozystack-platform', namespace: 'cozy-system' },
      spec: {
        interval: '5m0s',
        url: 'oci://ghcr.io/cozystack/cozystack/cozystack-packages',
        ref: { digest: `sha256:${'251626e8'.repeat(8)}` },
      },
      status: {
        artifact: {
          revision: `sha256:${'251626e8'.repeat(8)}`,
          metadata: { 'org.opencontainers.image.revision': `v1.6.2:bfde94fd2${'0'.repeat(31)}` },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cozystack-version',
        namespace: 'cozy-system',
        labels: { 'platform.cozystack.io/no-delete': 'true' },
      },
      data: { version: '54' },
    },
  ];
}

beforeAll(async () => {
  const dir = make();
  // The example platform as a v1.6.2 cluster holds it, as test/e2e/liveSnapshot.test.ts builds
  // main's (docs/decisions.md §4, §C8), beside what the installation shows of its version.
  const { live } = await liveExample(dir, must, { now: NOW, flags: V, extra: versionObjects() });
  const r = await cli(
    ['snapshot', '-o', 'snapshot.yaml'],
    kubectlServing(live, new Set(['keycloakrealmgroups.v1.edp.epam.com'])),
  );
  expect(r.code).toBe(0);
  fs.writeFileSync(path.join(dir, 'snapshot.stderr'), r.stderr);
}, 180_000);

const DIFF = ['diff', '--state', 'snapshot.yaml', '--values', 'values.yaml', '-f', 'tenants', '-f', 'cluster'];
const TOLD = 'Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION';

describe('a live snapshot of a v1.6.2 cluster', () => {
  test('the snapshot says the cluster runs v1.6.2, and records it', () => {
    const stderr = fs.readFileSync(path.join(scratch.dir, 'snapshot.stderr'), 'utf8');
    expect(stderr).toContain(`snapshot: Cozystack v1.6.2 (${TOLD})\n`);
    expect(stderr).not.toMatch(/disagree|shows no Cozystack version/);
    const record = load(fs.readFileSync(path.join(scratch.dir, 'snapshot.yaml'), 'utf8')).find(
      (o) => o.kind === 'CozystackVersion',
    );
    expect(record).toMatchObject({ version: 'v1.6.2', from: TOLD, versions: ['v1.6.2'] });
  });

  /**
   * No difference; the one other line counts v1.6.2's own findings about the example, which the
   * change leaves as they are (docs/versions.md §X3: bob's and carol's TenantGateways list the
   * attached namespaces too; §X7: the Kubernetes API's TLSRoute earns a terminate listener beside
   * its passthrough one).
   */
  const CLEAN =
    'note: 3 warnings about objects the change leaves as they are not repeated (cozy-gw reconcile over the state lists them)\n' +
    'note: no differences\n';

  test('diffs clean with no flag: v1.6.2 reproduced, exit 0, nothing printed', async () => {
    const r = await cli(DIFF);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: '', stderr: CLEAN });
    const plan = await cli([...DIFF, '-o', 'plan']);
    expect(plan.stdout.split('\n')[1]).toBe(`Cozystack version: v1.6.2, the state's (${TOLD})`);
    // The Tenants alone as the whole tree: the version's evidence and record are none of render's, never pruned.
    const pruned = await cli([
      'diff',
      '--state',
      'snapshot.yaml',
      '--values',
      'values.yaml',
      '-f',
      'tenants',
      '--prune',
    ]);
    expect({ code: pruned.code, stdout: pruned.stdout, stderr: pruned.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: CLEAN,
    });
  });

  test('with --cozystack-version main: stderr and the report header say the versions differ', async () => {
    const warning = `warning: the state is of Cozystack v1.6.2 (${TOLD}) and cozy-gw reproduces main\n`;
    const plan = await cli([...DIFF, '--cozystack-version', 'main', '-o', 'plan']);
    expect(plan.stderr).toContain(warning);
    expect(plan.stdout.split('\n')[1]).toBe(`Cozystack version: main; the state is of Cozystack v1.6.2 (${TOLD})`);
    const json = await cli([...DIFF, '--cozystack-version', 'main', '-o', 'json']);
    expect(json.stderr).toContain(warning);
    expect(JSON.parse(json.stdout).cozystack).toEqual({
      version: 'main',
      state: { version: 'v1.6.2', versions: ['v1.6.2'], from: TOLD, differs: true },
    });
    // main renders otherwise than v1.6.2 (docs/versions.md §T5: the grafana-dashboards egress in every tenant).
    expect(json.code).toBe(3);
    const created = (JSON.parse(json.stdout) as { created: KObject[] }).created.map((o) => o.metadata.name);
    expect(created).toContain('allow-to-grafana-dashboards');
  });
});
