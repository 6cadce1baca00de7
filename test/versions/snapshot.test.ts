/**
 * `snapshot` records the cluster's Cozystack version (docs/versions.md §11, docs/commands/snapshot.md):
 * the evidence objects trimmed to what tells the version, a CozystackVersion record of what they
 * tell, the version on standard error, a warning when the sources disagree, a note when nothing
 * tells it; and `reconcile` and `diff` over the snapshot (and over `reconcile --all` of it) use
 * that version unless told otherwise.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import type { Exec } from '../../src/io/exec';
import type { KObject } from '../../src/k8s/model';
import { runCli, TESTDATA, type RunOptions } from '../helpers/cli';
import { inProcessKubectl } from '../helpers/fakeKubectl';
import { kubectlServing } from '../helpers/apiServer';

const FAKE = path.join(TESTDATA, 'fake-kubectl');
const NOW = '2026-01-01T00:00:00Z';
let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-snapshot-version-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The suite pins main through the variable (test/setupVersion.ts): these runs clear it, as a user's shell has it. */
const USER_ENV = { COZY_GW_COZYSTACK_VERSION: undefined };
const run = (args: string[], opts: RunOptions = {}) =>
  runCli(args, {
    cwd: tmp,
    exec: inProcessKubectl,
    ...opts,
    env: { PATH: `${FAKE}${path.delimiter}${path.dirname(process.execPath)}`, HOME: tmp, ...USER_ENV, ...opts.env },
  });
const docs = (text: string) => (jsyaml.loadAll(text) as KObject[]).filter(Boolean);
const ids = (objs: KObject[]) => objs.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);

const deployment = (name: string, tag: string, env?: string): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'cozy-system' },
  spec: {
    template: {
      spec: {
        containers: [
          {
            name,
            image: `ghcr.io/cozystack/cozystack/${name}:${tag}`,
            ...(env ? { env: [{ name: 'COZYSTACK_VERSION', value: env }] } : {}),
          },
        ],
      },
    },
  },
});
const namespace: KObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-root' } };

describe('a snapshot of a v1.6.2 cluster (context kind-cozy)', () => {
  let out: Awaited<ReturnType<typeof run>>;
  let objs: KObject[];
  beforeAll(async () => {
    out = await run(['snapshot']);
    objs = docs(out.stdout);
  });

  test('keeps the evidence objects, trimmed, and a record of the version they tell', () => {
    expect(out.code).toBe(0);
    const evidence = objs.filter((o) =>
      ['Deployment', 'ConfigMap', 'OCIRepository', 'CozystackVersion'].includes(o.kind),
    );
    expect(ids(evidence)).toEqual([
      'Deployment cozy-system/cozystack-api',
      'Deployment cozy-system/cozystack-controller',
      'Deployment cozy-system/cozystack-operator',
      'CozystackVersion cozy-system/cluster',
      'OCIRepository cozy-system/cozystack-platform',
      'ConfigMap cozy-system/cozystack-version',
    ]);
    const record = objs.find((o) => o.kind === 'CozystackVersion')!;
    expect(record).toMatchObject({
      apiVersion: 'cozy-gw.cozystack.io/v1alpha1',
      version: 'v1.6.2',
      from: 'Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION',
      versions: ['v1.6.2'],
    });
    expect((record.evidence as { source: string }[]).map((e) => e.source)).toEqual([
      'Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION',
      'Deployment cozy-system/cozystack-operator, image tag',
      'Deployment cozy-system/cozystack-controller, image tag',
      'Deployment cozy-system/cozystack-api, image tag',
      'OCIRepository cozy-system/cozystack-platform, artifact org.opencontainers.image.revision',
      'ConfigMap cozy-system/cozystack-version, migration level',
    ]);
    expect(record).not.toHaveProperty('disagreements');
  });

  test('nothing else of those kinds: no other Deployment, container, variable, ConfigMap key, status or bookkeeping', () => {
    for (const leak of [
      'FAKE-OPERATOR-TOKEN',
      'FAKE-CONFIGMAP-TOKEN',
      'REGISTRY_PASSWORD',
      'KUBERNETES_SERVICE_HOST',
      'sidecar',
      'coredns',
      'dashboard',
      'cozystack-settings',
      'kube-root-ca',
      'uid-deploy',
      'source-controller',
      'readyReplicas',
    ])
      expect({ leak, found: out.stdout.includes(leak) }).toEqual({ leak, found: false });
  });

  test('says the version on standard error (a progress line), and nothing disagrees', () => {
    expect(out.stderr).toMatch(
      /^snapshot: Cozystack v1\.6\.2 \(Deployment cozy-system\/cozystack-operator, env COZYSTACK_VERSION\)$/m,
    );
    expect(out.stderr).not.toMatch(/disagree|shows no Cozystack version/);
  });

  test('reconcile and diff over it reproduce v1.6.2 with no flag; with another version they say the state is of v1.6.2', async () => {
    fs.writeFileSync(path.join(tmp, 'cluster.yaml'), out.stdout);
    const plan = await run(['reconcile', '-f', 'cluster.yaml', '-o', 'plan', '--now', NOW]);
    expect(plan.stdout.split('\n')[1]).toBe(
      "Cozystack version: v1.6.2, the state's (Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION)",
    );
    expect(plan.stderr).not.toContain('version');
    const other = await run([
      'reconcile',
      '-f',
      'cluster.yaml',
      '-o',
      'plan',
      '--now',
      NOW,
      '--cozystack-version',
      'v1.5.4',
    ]);
    expect(other.stderr).toContain(
      'warning: the state is of Cozystack v1.6.2 (Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION) and cozy-gw reproduces v1.5.4',
    );
    expect(other.stdout.split('\n')[1]).toBe(
      'Cozystack version: v1.5.4; the state is of Cozystack v1.6.2 (Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION)',
    );
  });

  test('the record and the evidence round-trip through reconcile --all, and nothing of them is a change', async () => {
    fs.writeFileSync(path.join(tmp, 'cluster.yaml'), out.stdout);
    const all = await run(['reconcile', '-f', 'cluster.yaml', '--all', '--now', NOW]);
    expect(all.code).toBe(0);
    const kept = docs(all.stdout).filter((o) =>
      ['Deployment', 'ConfigMap', 'OCIRepository', 'CozystackVersion'].includes(o.kind),
    );
    expect(kept).toEqual(
      objs.filter((o) => ['Deployment', 'ConfigMap', 'OCIRepository', 'CozystackVersion'].includes(o.kind)),
    );
    fs.writeFileSync(path.join(tmp, 'next.yaml'), all.stdout);
    const json = await run(['diff', '--state', 'next.yaml', '-o', 'json']);
    const doc = JSON.parse(json.stdout) as { cozystack: unknown; created: KObject[]; changed: { after: KObject }[] };
    expect(doc.cozystack).toEqual({
      version: 'v1.6.2',
      state: {
        version: 'v1.6.2',
        versions: ['v1.6.2'],
        from: 'Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION',
        differs: false,
      },
    });
    const kinds = [...doc.created, ...doc.changed.map((c) => c.after)].map((o) => o.kind);
    for (const k of ['Deployment', 'ConfigMap', 'OCIRepository', 'CozystackVersion'])
      expect({ kind: k, changed: kinds.includes(k) }).toEqual({ kind: k, changed: false });
  });
});

describe('what the snapshot says when the evidence is missing or at odds', () => {
  const served = (live: KObject[]) => kubectlServing(live);

  test('sources that disagree: a warning naming each, the most direct source taken, all recorded', async () => {
    const live = [
      namespace,
      deployment('cozystack-operator', 'v1.6.2', 'v1.6.2'),
      deployment('cozystack-controller', 'v1.6.1'),
      deployment('cozystack-api', 'v1.6.2'),
    ];
    const r = await run(['snapshot', '-q'], { exec: served(live) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "warning: the cluster's version sources disagree: it is taken to run Cozystack v1.6.2 (Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION), but Deployment cozy-system/cozystack-controller, image tag: v1.6.1 (an upgrade under way? diff and reconcile over this snapshot take --cozystack-version to choose)\n",
    );
    const record = docs(r.stdout).find((o) => o.kind === 'CozystackVersion')!;
    expect(record).toMatchObject({
      version: 'v1.6.2',
      disagreements: ['Deployment cozy-system/cozystack-controller, image tag: v1.6.1'],
    });
    // diff and reconcile over it say so too.
    fs.writeFileSync(path.join(tmp, 'upgrading.yaml'), r.stdout);
    const d = await run(['diff', '--state', 'upgrading.yaml']);
    expect(d.stderr).toContain(
      "warning: the state's version sources disagree: it is taken to be of Cozystack v1.6.2 (Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION), but Deployment cozy-system/cozystack-controller, image tag: v1.6.1",
    );
  });

  test('a cluster that shows no version: a note saying so, and diff over it reproduces the default', async () => {
    const r = await run(['snapshot', '-q'], { exec: served([namespace]) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'note: the cluster shows no Cozystack version (no cozystack-operator, cozystack-controller or cozystack-api Deployment, platform OCIRepository or cozystack-version ConfigMap in cozy-system that names one): diff and reconcile over this snapshot reproduce --cozystack-version, else $COZY_GW_COZYSTACK_VERSION, else v1.6.2\n',
    );
    const record = docs(r.stdout).find((o) => o.kind === 'CozystackVersion')!;
    expect(record).not.toHaveProperty('version');
    fs.writeFileSync(path.join(tmp, 'unknown.yaml'), r.stdout);
    const d = await run(['diff', '--state', 'unknown.yaml', '-o', 'json']);
    expect(JSON.parse(d.stdout).cozystack).toEqual({ version: 'v1.6.2' });
  });

  test('listing Deployments forbidden: a note, the version read from the other sources', async () => {
    const live = [namespace, { ...deployment('cozystack-operator', 'v1.6.2', 'v1.6.2') }];
    const base = served([
      ...live,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cozystack-version', namespace: 'cozy-system' },
        data: { version: '46' },
      },
    ]);
    const forbidding: Exec = async (bin, args, o) =>
      args.includes('deployments.apps')
        ? {
            exitCode: 1,
            stdout: '',
            stderr:
              'Error from server (Forbidden): deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API group "apps" in the namespace "cozy-system"\n',
            missing: false,
          }
        : base(bin, args, o);
    const r = await run(['snapshot', '-q'], { exec: forbidding });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'note: listing deployments.apps in cozy-system is forbidden (Error from server (Forbidden): deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API group "apps" in the namespace "cozy-system"): the Cozystack version is read from the other sources\n',
    );
    expect(docs(r.stdout).find((o) => o.kind === 'CozystackVersion')).toMatchObject({
      version: 'v1.5.4',
      from: 'ConfigMap cozy-system/cozystack-version, migration level',
    });
    expect(ids(docs(r.stdout).filter((o) => o.kind === 'Deployment'))).toEqual([]);
  });

  test('a kubectl dump of the evidence objects (no snapshot, no record) tells reconcile its version too', async () => {
    const dump = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        deployment('cozystack-operator', 'v1.5.2'),
        deployment('cozystack-controller', 'v1.5.2'),
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'cozystack-version', namespace: 'cozy-system' },
          data: { version: '45' },
        },
      ],
    };
    fs.writeFileSync(path.join(tmp, 'dump.json'), JSON.stringify(dump));
    const r = await run(['reconcile', '-f', 'dump.json', '-o', 'plan', '--now', NOW]);
    expect(r.stdout.split('\n')[1]).toBe(
      "Cozystack version: v1.5.2, the state's (Deployment cozy-system/cozystack-operator, image tag)",
    );
    // The migration level alone names the line: reproducing any of its versions is no mismatch; another is.
    fs.writeFileSync(path.join(tmp, 'level.json'), JSON.stringify({ ...dump, items: [dump.items[2]] }));
    const same = await run([
      'reconcile',
      '-f',
      'level.json',
      '-o',
      'plan',
      '--now',
      NOW,
      '--cozystack-version',
      'v1.5.0',
    ]);
    expect(same.stderr).not.toContain('version.mismatch');
    expect(same.stdout.split('\n')[1]).toBe(
      "Cozystack version: v1.5.0, the state's (ConfigMap cozy-system/cozystack-version, migration level)",
    );
    const other = await run([
      'reconcile',
      '-f',
      'level.json',
      '-o',
      'plan',
      '--now',
      NOW,
      '--cozystack-version',
      'v1.6',
    ]);
    expect(other.stderr).toContain(
      'warning: the state is of Cozystack v1.5.0, v1.5.1, v1.5.2 or v1.5.3 (ConfigMap cozy-system/cozystack-version, migration level) and cozy-gw reproduces v1.6.2',
    );
  });
});
