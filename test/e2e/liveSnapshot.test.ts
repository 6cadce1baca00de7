/**
 * `diff` against a live cluster (docs/decisions.md §C8: "A live snapshot is
 * compared as it will be applied"): the example platform rendered, applied by Flux (server-side
 * apply, field manager kustomize-controller), the controller run on it, and the cluster served by a
 * stand-in kubectl as the API server returns objects (test/helpers/apiServer.ts). `snapshot` reads
 * it; `diff` with the same inputs is no difference; one quota changed is that quota and nothing
 * else; a tenant removed under --prune is its objects deleted and nothing else.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { scratchCli } from '../helpers/cli';
import { kubectlServing } from '../helpers/apiServer';
import { liveExample } from '../helpers/liveExample';
import type { KObject } from '../../src/k8s/model';

const NOW = '2026-01-01T00:00:00Z';
/** One scratch directory for the whole file: the cluster is built once; kubectl only as served. */
const { scratch, make, cli: run, must: runMust } = scratchCli('cozy-gw-live-', { env: { PATH: '/nonexistent' } });
const cli = (args: string[], exec?: ReturnType<typeof kubectlServing>) => run(args, { exec });
const must = (args: string[], exec?: ReturnType<typeof kubectlServing>) => runMust(args, { exec });

const load = (text: string) => (jsyaml.loadAll(text) as KObject[]).filter((o) => o && o.kind);
const ref = (o: KObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

const tlsSecret = (crt: string, key: string) =>
  'apiVersion: v1\nkind: Secret\nmetadata: {name: example-tls, namespace: tenant-root}\ntype: kubernetes.io/tls\n' +
  `data: {tls.crt: ${crt}, tls.key: ${key}}\n`;

beforeAll(async () => {
  const dir = make();
  // The cluster's own objects besides cluster-state.yaml: a certificate Secret with its key material.
  const { live } = await liveExample(dir, must, {
    now: NOW,
    ownFiles: { 'tls.yaml': tlsSecret('c2VjcmV0LWNydC0xMjM0', 'c2VjcmV0LWtleS01Njc4') },
  });
  fs.writeFileSync(path.join(dir, 'tls-rotated.yaml'), tlsSecret('cm90YXRlZC1jcnQtOTk5', 'cm90YXRlZC1rZXktODg4'));
  const exec = kubectlServing(live, new Set(['keycloakrealmgroups.v1.edp.epam.com']));
  await must(['snapshot', '-q', '-o', 'snapshot.yaml'], exec);
}, 120_000);

describe('diff against a snapshot of the live cluster running the platform', () => {
  it('snapshot reads every kind render and the controller write, and names the one the cluster does not serve', async () => {
    const snap = load(fs.readFileSync(path.join(scratch.dir, 'snapshot.yaml'), 'utf8'));
    const kinds = new Set(snap.map((o) => o.kind));
    const rendered = load(fs.readFileSync(path.join(scratch.dir, 'rendered.yaml'), 'utf8'));
    const missing = [...new Set(rendered.map((o) => o.kind))].filter((k) => !kinds.has(k));
    expect({ missing }).toEqual({ missing: [] });
    for (const k of ['Gateway', 'Certificate', 'Issuer', 'HTTPRoute'])
      expect({ kind: k, held: kinds.has(k) }).toEqual({ kind: k, held: true });
    // managedFields kept as field trees, without timestamps.
    const ns = snap.find((o) => o.kind === 'Namespace' && o.metadata.name === 'tenant-alice')!;
    const mf = ns.metadata.managedFields as Record<string, unknown>[];
    expect(mf.map((e) => [e.manager, 'time' in e])).toEqual([
      ['kustomize-controller', false],
      ['status-writer', false],
    ]);
    const r = await cli(
      ['snapshot', '-o', 'again.yaml'],
      kubectlServing([], new Set(['keycloakrealmgroups.v1.edp.epam.com'])),
    );
    expect(r.stderr).toContain('note: keycloakrealmgroups.v1.edp.epam.com is not served by this cluster');
  });

  it('the same inputs: exit 0, nothing printed', async () => {
    const r = await cli([
      'diff',
      '--state',
      'snapshot.yaml',
      '--values',
      'values.yaml',
      '-f',
      'tenants',
      '-f',
      'cluster',
    ]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '' });
    expect(r.stderr).toBe('note: no differences\n');
  });

  it('the same inputs, the Tenants alone under --prune: exit 0', async () => {
    const r = await cli(['diff', '--state', 'snapshot.yaml', '--values', 'values.yaml', '-f', 'tenants', '--prune']);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: 'note: no differences\n',
    });
  });

  it('one quota changed: exit 3, that quota and its values, nothing else', async () => {
    const dir = scratch.dir;
    fs.cpSync(path.join(dir, 'tenants'), path.join(dir, 'tenants-quota'), { recursive: true });
    const alice = path.join(dir, 'tenants-quota', 'alice.yaml');
    const text = fs.readFileSync(alice, 'utf8');
    expect(text).toContain('count/certificates.cert-manager.io: "10"');
    fs.writeFileSync(
      alice,
      text.replace('count/certificates.cert-manager.io: "10"', 'count/certificates.cert-manager.io: "20"'),
    );
    const r = await cli([
      'diff',
      '--state',
      'snapshot.yaml',
      '--values',
      'values.yaml',
      '-f',
      'tenants-quota',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout) as {
      created: KObject[];
      changed: { before: KObject; after: KObject }[];
      deleted: KObject[];
    };
    const changed = out.changed.map((c) => ref(c.after));
    expect({ created: out.created.map(ref), changed, deleted: out.deleted.map(ref) }).toEqual({
      created: [],
      changed: expect.arrayContaining(['ResourceQuota tenant-alice/tenant-quota']),
      deleted: [],
    });
    const others = changed.filter(
      (c) => c !== 'ResourceQuota tenant-alice/tenant-quota' && c !== 'Secret tenant-alice/cozystack-values',
    );
    expect({ others }).toEqual({ others: [] });
    const quota = out.changed.find((c) => c.after.kind === 'ResourceQuota')!;
    expect(quota.after.spec).toEqual({
      hard: { 'limits.count/certificates.cert-manager.io': '20', 'requests.count/certificates.cert-manager.io': '20' },
    });
    // What the server and Flux added stays as it is.
    expect(quota.after.metadata.labels).toEqual(quota.before.metadata.labels);
    expect(quota.after.metadata.uid).toBe(quota.before.metadata.uid);
    const d = await cli(['diff', '--state', 'snapshot.yaml', '--values', 'values.yaml', '-f', 'tenants-quota']);
    expect(d.stdout).toMatch(/^-\s+limits\.count\/certificates\.cert-manager\.io: "10"$/m);
    expect(d.stdout).toMatch(/^\+\s+limits\.count\/certificates\.cert-manager\.io: "20"$/m);
    expect(d.stdout).not.toContain('kustomize.toolkit.fluxcd.io');
    expect(d.stdout).not.toContain('managedFields');
  });

  it('a tenant removed under --prune: its objects deleted, nothing else', async () => {
    const dir = scratch.dir;
    fs.cpSync(path.join(dir, 'tenants'), path.join(dir, 'tenants-without-carol'), { recursive: true });
    fs.rmSync(path.join(dir, 'tenants-without-carol', 'carol.yaml'));
    const r = await cli([
      'diff',
      '--state',
      'snapshot.yaml',
      '--values',
      'values.yaml',
      '-f',
      'tenants-without-carol',
      '-f',
      'cluster',
      '--prune',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout) as { created: KObject[]; changed: { after: KObject }[]; deleted: KObject[] };
    expect({ created: out.created.map(ref), changed: out.changed.map((c) => ref(c.after)) }).toEqual({
      created: [],
      changed: [],
    });
    const carols = (o: KObject) => o.metadata.namespace === 'tenant-carol' || o.metadata.name.includes('tenant-carol');
    expect({ notCarols: out.deleted.filter((o) => !carols(o)).map(ref) }).toEqual({ notCarols: [] });
    const deleted = out.deleted.map(ref);
    for (const want of [
      'Namespace tenant-carol',
      'Secret tenant-carol/cozystack-values',
      'HTTPRoute tenant-carol/blog',
    ])
      expect({ want, deleted: deleted.includes(want) }).toEqual({ want, deleted: true });
  });

  it('a Secret the snapshot holds without its data is compared by its digest: the same data is no difference, other data *** (changed)', async () => {
    const snap = fs.readFileSync(path.join(scratch.dir, 'snapshot.yaml'), 'utf8');
    expect(snap).not.toMatch(/c2VjcmV0LWNydC0xMjM0|c2VjcmV0LWtleS01Njc4/);
    expect(snap).toMatch(/cozy-gw.cozystack.io\/secret-data-digest: scrypt:4096:8:1:[0-9a-f]{32}:[0-9a-f]{64}/);
    const same = await cli(['diff', '--state', 'snapshot.yaml', '-f', 'cluster/tls.yaml']);
    expect({ code: same.code, stdout: same.stdout }).toEqual({ code: 0, stdout: '' });
    const rotated = await cli(['diff', '--state', 'snapshot.yaml', '-f', 'tls-rotated.yaml']);
    expect(rotated.code).toBe(3);
    expect(rotated.stdout).toMatch(/^-\s+tls\.crt: "\*\*\*"$/m);
    expect(rotated.stdout).toMatch(/^\+\s+tls\.crt: "\*\*\* \(changed\)"$/m);
    expect(rotated.stdout).not.toMatch(
      /cm90YXRlZC1jcnQtOTk5|cm90YXRlZC1rZXktODg4|c2VjcmV0LWNydC0xMjM0|c2VjcmV0LWtleS01Njc4|sha256:/,
    );
  });

  it('a state that left the data out without a digest: never exit 0, and stderr says why', async () => {
    const snap = fs.readFileSync(path.join(scratch.dir, 'snapshot.yaml'), 'utf8');
    const old = snap.replace(/^\s+cozy-gw\.cozystack\.io\/secret-data-digest: .*\n/gm, '');
    expect(old).not.toContain('secret-data-digest');
    fs.writeFileSync(path.join(scratch.dir, 'snapshot-old.yaml'), old);
    const r = await cli(['diff', '--state', 'snapshot-old.yaml', '-f', 'cluster/tls.yaml']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      'note: cannot tell whether the data of 1 Secret changes (Secret tenant-root/example-tls): the state left it out without a digest',
    );
    expect(r.stdout).toContain('*** (unknown)');
  });
});
