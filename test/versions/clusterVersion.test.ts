/**
 * Which Cozystack a cluster state is of (docs/versions.md §11, src/platform/clusterVersion.ts):
 * the evidence a live cluster shows, what each source allows, the version they tell together,
 * the sources that disagree, the record a snapshot writes and the evidence objects it keeps.
 */
import type { KObject } from '../../src/k8s/model';
import {
  clusterVersionOf,
  versionEvidence,
  versionEvidenceObject,
  versionRecord,
  VERSION_RECORD,
} from '../../src/platform/clusterVersion';
import { COZYSTACK_VERSIONS } from '../../src/platform/cozystackVersions';

const REPO = 'ghcr.io/cozystack/cozystack';
const DIGEST = '@sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

function deployment(name: string, tag: string, env?: string, namespace = 'cozy-system'): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, uid: `uid-${name}`, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        spec: {
          containers: [
            {
              name,
              image: `${REPO}/${name}:${tag}${DIGEST}`,
              args: ['--leader-elect=true'],
              env: [
                ...(env !== undefined ? [{ name: 'COZYSTACK_VERSION', value: env }] : []),
                { name: 'API_TOKEN', value: 'FAKE-TOKEN' },
                { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
              ],
            },
            {
              name: 'sidecar',
              image: 'docker.io/library/busybox:1.36',
              env: [{ name: 'COZYSTACK_VERSION', value: 'v0.1.0' }],
            },
          ],
        },
      },
    },
    status: { readyReplicas: 1 },
  };
}

const migration = (level: string): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cozystack-version',
    namespace: 'cozy-system',
    labels: { 'platform.cozystack.io/no-delete': 'true' },
  },
  data: { version: level, other: 'FAKE-TOKEN' },
});

function source(revision: string, opts: { tag?: string; fluxRevision?: string } = {}): KObject {
  return {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'OCIRepository',
    metadata: { name: 'cozystack-platform', namespace: 'cozy-system' },
    spec: {
      url: 'oci://ghcr.io/cozystack/cozystack/cozystack-packages',
      ref: opts.tag ? { tag: opts.tag } : { digest: 'sha256:2516' },
      secretRef: { name: 'registry' },
    },
    status: {
      artifact: {
        revision: opts.fluxRevision ?? 'sha256:2516',
        digest: 'sha256:abcd',
        metadata: { 'org.opencontainers.image.revision': revision, 'org.opencontainers.image.created': 'x' },
      },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/** The three Deployments of a cluster whose tree pins `images`, the operator reporting `env` (v1.6 on). */
const deployments = (images: string, env?: string, operator = images) => [
  deployment('cozystack-operator', operator, env),
  deployment('cozystack-controller', images),
  deployment('cozystack-api', images),
];

/** What a cluster of each version shows, as its installer and platform tree leave it (docs/versions.md §11). */
function clusterOf(name: string): KObject[] {
  const v = COZYSTACK_VERSIONS.find((x) => x.name === name)!;
  // v1.5 installers set no COZYSTACK_VERSION; a cluster built from main reports what its build was given.
  const env = v.line === 'v1.5' ? undefined : name;
  return [
    ...deployments(v.images, env),
    source(`${name === 'main' ? 'v1.6.0-212-g3c780acd4' : name}:${v.commit}00000000000000000000000000000`),
    migration(String(v.migration)),
  ];
}

describe('a cluster of every version tells that version, and nothing disagrees', () => {
  test.each(COZYSTACK_VERSIONS.map((v) => v.name))('%s', (name) => {
    const v = clusterOf(name);
    const told = clusterVersionOf(v);
    expect({ version: told.version, disagreements: told.disagreements }).toEqual({ version: name, disagreements: [] });
    // The trimmed evidence a snapshot keeps tells the same, and so does its record alone.
    const kept = v.map(versionEvidenceObject).filter((o): o is KObject => o !== undefined);
    expect({ name, trimmed: clusterVersionOf(kept).version }).toEqual({ name, trimmed: name });
    expect({ name, record: clusterVersionOf([versionRecord(told)]).version }).toEqual({ name, record: name });
  });
});

describe('what each source allows', () => {
  test('the operator first: its COZYSTACK_VERSION, then its image tag, then the images of the controller and the API', () => {
    const told = clusterVersionOf(deployments('v1.6.2', 'v1.6.2'));
    expect(told).toEqual({
      version: 'v1.6.2',
      from: 'Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION',
      versions: ['v1.6.2'],
      evidence: [
        {
          source: 'Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION',
          value: 'v1.6.2',
          versions: ['v1.6.2'],
        },
        { source: 'Deployment cozy-system/cozystack-operator, image tag', value: 'v1.6.2', versions: ['v1.6.2'] },
        { source: 'Deployment cozy-system/cozystack-controller, image tag', value: 'v1.6.2', versions: ['v1.6.2'] },
        { source: 'Deployment cozy-system/cozystack-api, image tag', value: 'v1.6.2', versions: ['v1.6.2'] },
      ],
      disagreements: [],
    });
  });

  test.each([
    // [images, the versions whose tree pins them]
    ['v1.5.2', ['v1.5.2', 'v1.5.3']],
    ['v1.6.0', ['v1.6.0', 'main']],
    ['v1.5.4', ['v1.5.4']],
    ['1.6.1', ['v1.6.1']],
    ['v1.6.3', ['v1.6.3']],
    ['latest', []],
  ])('images tagged %s allow %j (v1.5.3 pins v1.5.2, main v1.6.0)', (tag, versions) => {
    expect(versionEvidence([deployment('cozystack-controller', tag)])).toEqual(
      tag === 'latest'
        ? [{ source: 'Deployment cozy-system/cozystack-controller, image tag', value: 'latest', versions: [] }]
        : [{ source: 'Deployment cozy-system/cozystack-controller, image tag', value: tag, versions }],
    );
  });

  test.each([
    ['45', ['v1.5.0', 'v1.5.1', 'v1.5.2', 'v1.5.3'], 'v1.5.3'],
    ['46', ['v1.5.4'], 'v1.5.4'],
    ['54', ['v1.6.0', 'v1.6.1', 'v1.6.2'], 'v1.6.2'],
    ['56', ['main'], 'main'],
  ])('migration level %s allows %j: alone, it tells the newest of them (%s)', (level, versions, version) => {
    const told = clusterVersionOf([migration(level)]);
    expect(told).toMatchObject({
      version,
      versions,
      from: 'ConfigMap cozy-system/cozystack-version, migration level',
      disagreements: [],
    });
  });

  test('a migration level the table lacks allows nothing, and tells nothing', () => {
    expect(clusterVersionOf([migration('57')])).toEqual({
      versions: [],
      evidence: [{ source: 'ConfigMap cozy-system/cozystack-version, migration level', value: '57', versions: [] }],
      disagreements: [],
    });
  });

  test.each([
    ['v1.6.2:bfde94fd2aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', ['v1.6.2']],
    // main's commit, whatever git describe says
    ['v1.6.0-212-g3c780acd4:3c780acd4bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', ['main']],
    // a build past a tag, at a commit the table does not name
    ['v1.6.2-3-g0123456:0123456789abcdef0123456789abcdef01234567', []],
    ['v1.5.3:0123456789abcdef0123456789abcdef01234567', ['v1.5.3']],
  ])('the platform source revision %s allows %j', (revision, versions) => {
    expect(versionEvidence([source(revision)])).toEqual([
      {
        source: 'OCIRepository cozy-system/cozystack-platform, artifact org.opencontainers.image.revision',
        value: revision,
        versions,
      },
    ]);
  });

  test("the platform source's Flux revision and tag, where they name a version (a digest names none)", () => {
    expect(versionEvidence([source('', { tag: 'v1.6.1', fluxRevision: 'v1.6.1@sha256:2516' })])).toEqual([
      {
        source: 'OCIRepository cozy-system/cozystack-platform, artifact revision',
        value: 'v1.6.1',
        versions: ['v1.6.1'],
      },
      { source: 'OCIRepository cozy-system/cozystack-platform, spec.ref.tag', value: 'v1.6.1', versions: ['v1.6.1'] },
    ]);
    expect(versionEvidence([source('')])).toEqual([]);
  });

  test('objects outside cozy-system, of other names or kinds, and other containers tell nothing', () => {
    const others: KObject[] = [
      deployment('cozystack-operator', 'v1.5.0', 'v1.5.0', 'kube-system'),
      deployment('dashboard', 'v1.5.0'),
      { ...migration('45'), metadata: { name: 'other', namespace: 'cozy-system' } },
      { ...source('v1.5.0:82b8c460c'), metadata: { name: 'other', namespace: 'cozy-system' } },
      { ...migration('45'), apiVersion: 'example.com/v1' },
    ];
    expect(versionEvidence(others)).toEqual([]);
    expect(clusterVersionOf(others)).toEqual({ versions: [], evidence: [], disagreements: [] });
  });
});

describe('sources together', () => {
  test('a v1.5.3 cluster: its images say v1.5.2, its migration level the line, its platform source v1.5.3', () => {
    const told = clusterVersionOf([...deployments('v1.5.2'), source('v1.5.3:37cd6a797cccc'), migration('45')]);
    expect(told).toMatchObject({
      version: 'v1.5.3',
      versions: ['v1.5.3'],
      from: 'Deployment cozy-system/cozystack-operator, image tag, narrowed by OCIRepository cozy-system/cozystack-platform, artifact org.opencontainers.image.revision (v1.5.3:37cd6a797cccc)',
      disagreements: [],
    });
    // Without the platform source it is v1.5.2, which behaves alike (docs/versions.md §0, class 2).
    expect(clusterVersionOf([...deployments('v1.5.2'), migration('45')]).version).toBe('v1.5.2');
  });

  test('a cluster built from main without a reported version: its v1.6.0 images and migration level 56 tell main', () => {
    const told = clusterVersionOf([...deployments('v1.6.0'), migration('56')]);
    expect(told).toMatchObject({ version: 'main', versions: ['main'], disagreements: [] });
    expect(clusterVersionOf(deployments('v1.6.0')).version).toBe('v1.6.0');
  });

  test('an upgrade under way: the operator says v1.6.2, the controller still runs v1.6.1: a disagreement', () => {
    const told = clusterVersionOf([
      deployment('cozystack-operator', 'v1.6.2', 'v1.6.2'),
      deployment('cozystack-controller', 'v1.6.1'),
      deployment('cozystack-api', 'v1.6.2'),
      migration('46'),
    ]);
    expect({ version: told.version, disagreements: told.disagreements }).toEqual({
      version: 'v1.6.2',
      disagreements: [
        'Deployment cozy-system/cozystack-controller, image tag: v1.6.1',
        'ConfigMap cozy-system/cozystack-version, migration level: 46 (v1.5.4)',
      ],
    });
  });

  test('a reported version the table lacks (a candidate, a newer patch) is kept as reported; only its own kind of source is held against it', () => {
    const rc = clusterVersionOf([...deployments('v1.6.2-rc.1', 'v1.6.2-rc.1'), migration('54')]);
    expect({ version: rc.version, disagreements: rc.disagreements }).toEqual({
      version: 'v1.6.2-rc.1',
      disagreements: [],
    });
    const newer = clusterVersionOf([
      deployment('cozystack-operator', 'v1.6.3', 'v1.6.3'),
      deployment('cozystack-api', 'v1.6.2'),
    ]);
    expect({ version: newer.version, disagreements: newer.disagreements }).toEqual({
      version: 'v1.6.3',
      disagreements: [],
    });
    const other = clusterVersionOf([
      deployment('cozystack-operator', 'v1.6.3', 'v1.6.3'),
      deployment('cozystack-api', 'v1.6.4'),
    ]);
    expect(other.disagreements).toEqual(['Deployment cozy-system/cozystack-api, image tag: v1.6.4']);
  });
});

describe("a snapshot's record", () => {
  test('says what the evidence told, and is read back as it says', () => {
    const told = clusterVersionOf(clusterOf('v1.6.2'));
    const record = versionRecord(told);
    expect(record).toMatchObject({
      apiVersion: VERSION_RECORD.apiVersion,
      kind: 'CozystackVersion',
      metadata: { name: 'cluster', namespace: 'cozy-system' },
      version: 'v1.6.2',
      from: 'Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION',
      versions: ['v1.6.2'],
    });
    expect(record).not.toHaveProperty('disagreements');
    expect(clusterVersionOf([record])).toEqual(told);
  });

  test('a record wins over the evidence beside it, which is held against it', () => {
    const record = { ...versionRecord(clusterVersionOf(clusterOf('v1.5.4'))), from: 'edited by hand' };
    const told = clusterVersionOf([record, ...clusterOf('v1.6.2')]);
    expect(told.version).toBe('v1.5.4');
    expect(told.from).toBe('edited by hand');
    expect(told.disagreements).toContain('Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION: v1.6.2');
  });

  test('a record of a cluster that showed no version tells none', () => {
    const record = versionRecord(clusterVersionOf([]));
    expect(record).toEqual({
      apiVersion: VERSION_RECORD.apiVersion,
      kind: 'CozystackVersion',
      metadata: { name: 'cluster', namespace: 'cozy-system' },
      evidence: [],
    });
    expect(clusterVersionOf([record]).version).toBeUndefined();
  });
});

describe('the evidence objects a snapshot keeps', () => {
  test('a Deployment: its name, its container of that name with its image and COZYSTACK_VERSION, nothing else', () => {
    expect(versionEvidenceObject(deployment('cozystack-operator', 'v1.6.2', 'v1.6.2'))).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'cozystack-operator', namespace: 'cozy-system' },
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'cozystack-operator',
                image: `${REPO}/cozystack-operator:v1.6.2${DIGEST}`,
                env: [{ name: 'COZYSTACK_VERSION', value: 'v1.6.2' }],
              },
            ],
          },
        },
      },
    });
    const api = versionEvidenceObject(deployment('cozystack-api', 'v1.6.2', 'v9.9.9'))!;
    expect(JSON.stringify(api)).not.toMatch(/FAKE-TOKEN|COZYSTACK_VERSION|sidecar|uid-|leader/);
  });

  test('the OCIRepository: its ref and the revisions of its artifact; the ConfigMap: its version', () => {
    expect(versionEvidenceObject(source('v1.6.2:bfde94fd2'))).toEqual({
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'OCIRepository',
      metadata: { name: 'cozystack-platform', namespace: 'cozy-system' },
      spec: { ref: { digest: 'sha256:2516' } },
      status: {
        artifact: { revision: 'sha256:2516', metadata: { 'org.opencontainers.image.revision': 'v1.6.2:bfde94fd2' } },
      },
    });
    expect(versionEvidenceObject(migration('54'))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cozystack-version', namespace: 'cozy-system' },
      data: { version: '54' },
    });
  });

  test('any other object is not kept', () => {
    for (const o of [
      deployment('dashboard', 'v1.6.2'),
      deployment('cozystack-operator', 'v1.6.2', 'v1.6.2', 'default'),
      { ...migration('54'), metadata: { name: 'cozystack-settings', namespace: 'cozy-system' } },
    ])
      expect({ object: `${o.metadata.namespace}/${o.metadata.name}`, kept: versionEvidenceObject(o) }).toEqual({
        object: `${o.metadata.namespace}/${o.metadata.name}`,
        kept: undefined,
      });
  });
});
