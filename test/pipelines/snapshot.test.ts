/**
 * `cozy-gw snapshot`, against a fake kubectl on PATH (testdata/fake-kubectl answers
 * `get <resource> -o json` from fixture files per context and fails as kubectl does), run
 * in-process through the injectable runner (CliIO.exec); the real runner (execa) is tested once
 * on the fake executable and once on a missing one.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { readInputs } from '../../src/io/inputs';
import type { KObject } from '../../src/k8s/model';
import { REDACTED_ANNOTATION } from '../../src/k8s/secretRedaction';
import {
  assembleSnapshot,
  classifyKubectlError,
  selectSecret,
  SNAPSHOT_RESOURCES,
  tidy,
  wildcardSecretNames,
} from '../../src/pipelines/snapshot';
import { runCli, TESTDATA, type RunOptions } from '../helpers/cli';
import { inProcessKubectl } from '../helpers/fakeKubectl';
import { execProcess, type Exec } from '../../src/io/exec';

const FAKE = path.join(TESTDATA, 'fake-kubectl');
const NODE_DIR = path.dirname(process.execPath);
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-snapshot-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${FAKE}${path.delimiter}${NODE_DIR}`, HOME: tmp, ...extra };
}

function snapshot(args: string[], opts: RunOptions = {}) {
  return runCli(['snapshot', ...args], { cwd: tmp, env: env(), exec: inProcessKubectl, ...opts });
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const KEY_MATERIAL = [
  'FAKE-KEY-MATERIAL',
  b64('-----BEGIN PRIVATE KEY-----\nFAKE-KEY-MATERIAL\n-----END PRIVATE KEY-----\n'),
  b64('ACME-ACCOUNT-KEY'),
  b64('SA-TOKEN'),
  b64('CLOUDFLARE-TOKEN'),
];

function docs(text: string): KObject[] {
  return (jsyaml.loadAll(text) as KObject[]).filter(Boolean);
}

const ids = (objs: KObject[]) =>
  objs.map((o) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);

describe('snapshot of a cluster (context kind-cozy)', () => {
  let out: Awaited<ReturnType<typeof snapshot>>;
  let objs: KObject[];
  beforeAll(async () => {
    out = await snapshot([]);
    objs = docs(out.stdout);
  });

  test('succeeds with every kind cozy-gw reads, in the stable order', () => {
    expect(out.code).toBe(0);
    expect(ids(objs)).toEqual([
      'Tenant tenant-root/alpha',
      'Deployment cozy-system/cozystack-api',
      'Deployment cozy-system/cozystack-controller',
      'Deployment cozy-system/cozystack-operator',
      'Certificate tenant-alpha/gateway-gateway-tls',
      'Issuer tenant-alpha/gateway-gateway',
      'CozystackVersion cozy-system/cluster',
      'Package cozystack.cozystack-platform',
      'TenantGateway tenant-root/gateway',
      'Gateway tenant-root/gateway',
      'GatewayClass cilium',
      'HTTPRoute tenant-alpha/app',
      'OCIRepository cozy-system/cozystack-platform',
      'ConfigMap cozy-system/cozystack-version',
      'Namespace cozy-system',
      'Namespace kube-system',
      'Namespace tenant-alpha',
      'Namespace tenant-beta',
      'Namespace tenant-root',
      'Secret cozy-system/cozystack-values',
      'Secret tenant-alpha/wildcard-tls',
      'Secret tenant-beta/wildcard-tls',
      'Secret tenant-root/cozystack-values',
      'Secret tenant-root/gateway-acme-account',
      'Secret tenant-root/wildcard-tls',
    ]);
  });

  test('keeps only the Secrets cozy-gw reads, and says how many of how many', () => {
    const secrets = objs.filter((o) => o.kind === 'Secret').map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(secrets).not.toContain('kube-system/builder-token');
    expect(secrets).not.toContain('tenant-root/cloudflare-api-token-secret');
    expect(secrets).not.toContain('tenant-root/sh.helm.release.v1.tenant-root.v1');
    expect(out.stderr).toContain('note: 6 of 9 Secrets kept');
  });

  test('leaves Secret data out, annotated, except the cozystack-values channel; no key material anywhere', () => {
    for (const k of KEY_MATERIAL) expect(out.stdout).not.toContain(k);
    const wildcard = objs.find(
      (o) => o.kind === 'Secret' && o.metadata.namespace === 'tenant-root' && o.metadata.name === 'wildcard-tls',
    )!;
    expect(wildcard.data).toEqual({});
    expect(wildcard.type).toBe('kubernetes.io/tls');
    expect(wildcard.metadata.annotations).toEqual({
      team: 'platform',
      [REDACTED_ANNOTATION]: 'tls.crt,tls.key',
      // the digest of the data left out, so diff can tell changed data from unchanged
      'cozy-gw.cozystack.io/secret-data-digest': expect.stringMatching(/^scrypt:4096:8:1:[0-9a-f]{32}:[0-9a-f]{64}$/),
    });
    const channel = objs.find((o) => o.kind === 'Secret' && o.metadata.namespace === 'cozy-system')!;
    expect(Buffer.from((channel.data as Record<string, string>)['values.yaml'], 'base64').toString()).toContain(
      'wildcard-secret-name: "wildcard-tls"',
    );
    expect(out.stderr).toMatch(/note: data of 4 Secrets left out of the output/);
  });

  test("keeps managedFields as field trees without timestamps, drops the last-applied annotation (which repeats a Secret's data)", () => {
    expect(out.stdout).not.toMatch(/^\s+time: /m);
    expect(out.stdout).not.toContain('last-applied-configuration');
    expect(objs.find((o) => o.kind === 'Namespace')!.metadata.uid).toMatch(/^uid-ns-/);
  });

  test('skips the kinds whose CRD is absent, with a note each, and prints progress on stderr', () => {
    expect(out.stderr).toContain(
      'note: tlsroutes.gateway.networking.k8s.io is not served by this cluster (its CRD is absent): no TLSRoute objects in the snapshot',
    );
    expect(out.stderr).toContain('note: grpcroutes.gateway.networking.k8s.io is not served');
    expect(out.stderr).toMatch(/^snapshot: namespaces: 5$/m);
    expect(out.stderr).toMatch(/^snapshot: secrets: 9$/m);
  });

  test('is deterministic, and reads back as cozy-gw input (`reconcile -f snapshot.yaml`)', async () => {
    expect((await snapshot([])).stdout).toBe(out.stdout);
    const file = path.join(tmp, 'read-back.yaml');
    fs.writeFileSync(file, out.stdout);
    expect(ids(readInputs([file]).objects)).toEqual(ids(objs));
  });

  test('--quiet leaves progress out but keeps the notes', async () => {
    const q = await snapshot(['-q']);
    expect(q.stdout).toBe(out.stdout);
    expect(q.stderr).not.toMatch(/^snapshot:/m);
    expect(q.stderr).toMatch(/^note: tlsroutes/m);
  });
});

describe('snapshot options', () => {
  test('--include-secret-data keeps key material', async () => {
    const r = await snapshot(['--include-secret-data', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(b64('ACME-ACCOUNT-KEY'));
    expect(r.stdout).not.toContain(REDACTED_ANNOTATION);
    expect(r.stdout).not.toContain(b64('SA-TOKEN')); // still only the Secrets cozy-gw reads
  });

  test('--format json writes a v1 List', async () => {
    const r = await snapshot(['--format', 'json', '-q']);
    const list = JSON.parse(r.stdout);
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items).toHaveLength(25);
  });

  test('-o FILE writes the file and nothing on stdout', async () => {
    const r = await snapshot(['-o', 'cluster.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('snapshot: wrote 25 objects to cluster.yaml');
    expect(docs(fs.readFileSync(path.join(tmp, 'cluster.yaml'), 'utf8'))).toHaveLength(25);
    expect(fs.readdirSync(tmp).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('--context and --kubeconfig go to kubectl on every call', async () => {
    const log = path.join(tmp, 'calls.log');
    const r = await snapshot(['--context', 'kind-cozy', '--kubeconfig', path.join(FAKE, 'kubeconfig.yaml'), '-q'], {
      env: env({ FAKE_KUBECTL_LOG: log }),
    });
    expect(r.code).toBe(0);
    const calls = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string[]);
    expect(calls).toHaveLength(SNAPSHOT_RESOURCES.length);
    for (const c of calls)
      expect(c.slice(0, 4)).toEqual(['--kubeconfig', path.join(FAKE, 'kubeconfig.yaml'), '--context', 'kind-cozy']);
    expect(calls.map((c) => c[5]).sort()).toEqual(SNAPSHOT_RESOURCES.map((x) => x.resource).sort());
    expect(calls.find((c) => c[5] === 'secrets')).toEqual(expect.arrayContaining(['--all-namespaces', '-o', 'json']));
    expect(r.stdout.startsWith('# cozy-gw snapshot of context kind-cozy: 25 objects.')).toBe(true);
    // The version's evidence is read in cozy-system only.
    for (const resource of ['deployments.apps', 'ocirepositories.source.toolkit.fluxcd.io', 'configmaps'])
      expect({ resource, call: calls.find((c) => c[5] === resource)?.slice(6) }).toEqual({
        resource,
        call: ['-n', 'cozy-system', '-o', 'json'],
      });
  });

  test('--help carries examples', async () => {
    expect((await runCli(['snapshot', '--help'])).stdout).toMatch(
      /Examples:\n {2}\$ cozy-gw snapshot -o cluster\.yaml/,
    );
  });
});

describe('snapshot errors: exit 1, nothing on stdout, no file', () => {
  const noOutput = (r: { code: number; stdout: string }) => {
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.join(tmp, 'never.yaml'))).toBe(false);
  };

  test('kubectl missing (the real runner, and the injected one alike)', async () => {
    const empty = fs.mkdtempSync(path.join(tmp, 'empty-'));
    for (const exec of [execProcess, inProcessKubectl]) {
      const r = await snapshot(['-o', 'never.yaml'], { env: { PATH: empty }, exec });
      noOutput(r);
      expect(r.stderr).toBe(
        'error: kubectl not found: cannot run kubectl (install kubectl and put it on PATH, or name it with --kubectl PATH (or $KUBECTL))\n',
      );
    }
  });

  test('the real runner runs the executable with the given environment and directory, standard input closed', async () => {
    const r = await execProcess(
      path.join(FAKE, 'kubectl'),
      ['--context', 'kind-cozy', 'get', 'namespaces', '-o', 'json'],
      { env: { PATH: NODE_DIR }, cwd: tmp },
    );
    expect(r).toMatchObject({ exitCode: 0, missing: false, stderr: '' });
    expect(JSON.parse(r.stdout).items.length).toBeGreaterThan(0);
    const bad = await execProcess(
      path.join(FAKE, 'kubectl'),
      ['--context', 'nope', 'get', 'namespaces', '-o', 'json'],
      { env: { PATH: NODE_DIR }, cwd: tmp },
    );
    expect(bad).toEqual({
      exitCode: 1,
      missing: false,
      stdout: '',
      stderr: 'Error in configuration: context was not found for specified context: nope\n',
    });
  });

  test('--kubectl names another executable', async () => {
    const r = await snapshot(['-q', '--kubectl', path.join(FAKE, 'kubectl')], { env: { PATH: NODE_DIR } });
    expect(r.code).toBe(0);
  });

  test.each([
    [
      'an unknown context: one error, not one per kind',
      'nope',
      'error: kubectl cannot use the context: Error in configuration: context was not found for specified context: nope (list contexts with `kubectl config get-contexts`; pass one with --context (and --kubeconfig FILE if it lives elsewhere))\n',
    ],
    [
      "an unreachable API server: kubectl's message without its log noise",
      'unreachable',
      'error: kubectl get namespaces failed (exit 1): The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?\n',
    ],
    [
      'a server that is not a Kubernetes API server (404 to everything): an error naming it, no empty snapshot',
      'not-kubernetes',
      "error: kubectl get namespaces: the server does not serve namespaces, which every Kubernetes API server serves: the context's server is not one (Error from server (NotFound): the server could not find the requested resource) (check the server the context names (`kubectl config view --minify`), and --context or --kubeconfig)\n",
    ],
  ])('%s', async (_title, context, stderr) => {
    const r = await snapshot(['--context', context, '-o', 'never.yaml']);
    noOutput(r);
    expect(r.stderr).toBe(stderr);
  });

  test('a kubeconfig that does not exist', async () => {
    const r = await snapshot(['--kubeconfig', 'missing.yaml', '-o', 'never.yaml']);
    noOutput(r);
    expect(r.stderr).toMatch(
      /^error: kubectl get namespaces failed \(exit 1\): error: stat missing.yaml: no such file or directory/,
    );
  });

  test('RBAC forbidden: every forbidden kind is named', async () => {
    const r = await snapshot(['--context', 'restricted', '-o', 'never.yaml']);
    noOutput(r);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /^error: listing secrets is forbidden: Error from server \(Forbidden\): secrets is forbidden: User "jane" cannot list resource "secrets"/,
    );
    expect(errors[1]).toMatch(
      /^error: listing tenantgateways.gateway.cozystack.io is forbidden: .*\(the snapshot needs list on tenantgateways.gateway.cozystack.io in every namespace/,
    );
  });

  test("progress in the resources' order, however the listings finish: the same standard error every run", async () => {
    // Each listing answers later the earlier its resource comes, so they finish in reverse order.
    const order = SNAPSHOT_RESOURCES.map((r) => r.resource);
    const slowFirst: Exec = async (bin, args, o) => {
      const i = order.indexOf(args.find((a) => order.includes(a)) ?? '');
      await new Promise((done) => setTimeout(done, (order.length - i) * 2));
      return inProcessKubectl(bin, args, o);
    };
    const r = await snapshot(['-o', 'out.yaml'], { exec: slowFirst });
    expect(r.code).toBe(0);
    const listed = r.stderr
      .split('\n')
      .map((l) => /^snapshot: ([a-z.-]+): \d+$/.exec(l)?.[1])
      .filter((x): x is string => x !== undefined);
    expect(listed.length).toBeGreaterThan(10);
    expect(listed).toEqual(order.filter((x) => listed.includes(x)));
  });

  test('an unwritable output file', async () => {
    const r = await snapshot(['-q', '-o', path.join(tmp, 'no-such-dir', 'x.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*x\.yaml: cannot write .*x\.yaml: ENOENT/);
  });
});

describe('snapshot rules (pure)', () => {
  const secret = (name: string, extra: Partial<KObject> & { labels?: Record<string, string> } = {}): KObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    data: { k: 'dg==' },
    ...extra,
    metadata: {
      name,
      namespace: 'tenant-x',
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...(extra.metadata ?? {}),
    },
  });

  test('selectSecret keeps what the controllers read and nothing else', () => {
    const names = new Set(['wild']);
    expect(selectSecret(secret('cozystack-values'), names)).toBe(true);
    expect(selectSecret(secret('any', { type: 'kubernetes.io/tls' }), names)).toBe(true);
    expect(selectSecret(secret('copy', { labels: { 'cozystack.io/wildcard-secret-copy': 'true' } }), names)).toBe(true);
    expect(selectSecret(secret('wild'), names)).toBe(true);
    expect(
      selectSecret(secret('owned', { labels: { 'cozystack.io/managed-by': 'cozystack-controller' } }), names),
    ).toBe(true);
    expect(
      selectSecret(
        secret('owned-ref', {
          metadata: {
            name: 'owned-ref',
            ownerReferences: [{ apiVersion: 'gateway.cozystack.io/v1alpha1', kind: 'TenantGateway', name: 'gateway' }],
          },
        }),
        names,
      ),
    ).toBe(true);
    expect(selectSecret(secret('token', { type: 'kubernetes.io/service-account-token' }), names)).toBe(false);
    expect(selectSecret(secret('dns-token'), names)).toBe(false);
  });

  test('wildcardSecretNames reads the Package and the live channel', () => {
    const pkg: KObject = {
      apiVersion: 'cozystack.io/v1alpha1',
      kind: 'Package',
      metadata: { name: 'p' },
      spec: {
        components: { platform: { values: { publishing: { certificates: { wildcardSecretName: 'from-package' } } } } },
      },
    };
    const channel = secret('cozystack-values', {
      metadata: { name: 'cozystack-values', namespace: 'cozy-system' },
      data: { 'values.yaml': b64('_cluster:\n  wildcard-secret-name: "from-channel"\n') },
    });
    const tenantValues = secret('cozystack-values', {
      data: { 'values.yaml': b64('_cluster:\n  wildcard-secret-name: "not-the-channel"\n') },
    });
    const broken = secret('cozystack-values', {
      metadata: { name: 'cozystack-values', namespace: 'cozy-system' },
      data: { 'values.yaml': b64(': : [') },
    });
    expect([...wildcardSecretNames([pkg], [channel, tenantValues])].sort()).toEqual(['from-channel', 'from-package']);
    expect([...wildcardSecretNames([], [broken])]).toEqual([]);
  });

  test('tidy keeps managedFields without their timestamps, drops last-applied, keeping every other annotation', () => {
    const entry = { manager: 'kustomize-controller', operation: 'Apply', fieldsV1: { 'f:metadata': {} } };
    const o: KObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'n',
        managedFields: [{ ...entry, time: '2026-01-01T00:00:00Z' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', a: 'b' },
      },
    };
    expect(tidy(o).metadata).toEqual({ name: 'n', managedFields: [entry], annotations: { a: 'b' } });
    expect(
      tidy({ ...o, metadata: { name: 'n', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } })
        .metadata,
    ).toEqual({ name: 'n' });
  });

  test('assembleSnapshot redacts every selected Secret but cozystack-values, unless asked', () => {
    const secrets = SNAPSHOT_RESOURCES.find((r) => r.kind === 'Secret')!;
    const listing = [
      {
        resource: secrets,
        items: [
          secret('x', { type: 'kubernetes.io/tls' }),
          secret('cozystack-values', { data: { 'values.yaml': 'dg==' } }),
        ],
      },
    ];
    const redacted = assembleSnapshot(listing, { includeSecretData: false });
    expect(redacted.redacted).toBe(1);
    expect(redacted.objects.map((o) => o.data)).toEqual([{ 'values.yaml': 'dg==' }, {}]);
    expect(assembleSnapshot(listing, { includeSecretData: true }).objects.map((o) => o.data)).toEqual([
      { 'values.yaml': 'dg==' },
      { k: 'dg==' },
    ]);
  });

  test('kubectl failures are told apart from their stderr', () => {
    expect(
      classifyKubectlError('error: the server doesn\'t have a resource type "tlsroutes.gateway.networking.k8s.io"\n'),
    ).toEqual({
      kind: 'absent',
      message: 'error: the server doesn\'t have a resource type "tlsroutes.gateway.networking.k8s.io"',
    });
    expect(
      classifyKubectlError(
        'Error from server (Forbidden): secrets is forbidden: User "u" cannot list resource "secrets"\n',
      ).kind,
    ).toBe('forbidden');
    expect(classifyKubectlError('Error in configuration: context was not found for specified context: x\n').kind).toBe(
      'context',
    );
    expect(classifyKubectlError('error: context "x" does not exist\n').kind).toBe('context');
    expect(
      classifyKubectlError(
        'E1130 01:02:03.456789 1 memcache.go:265] noise\nThe connection to the server h:6443 was refused\n',
      ),
    ).toEqual({ kind: 'other', message: 'The connection to the server h:6443 was refused' });
  });
});
