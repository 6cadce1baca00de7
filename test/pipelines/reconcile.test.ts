import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { runCli, TESTDATA } from '../helpers/cli';
import { reconcile, reconcileRequest } from '../../src/pipelines/reconcile';
import type { KObject } from '../../src/k8s/model';

const INPUTS = path.join(TESTDATA, 'golden', 'reconcile', '_inputs');
const ROUTES = path.join(INPUTS, 'routes.yaml');
const WILDCARD = path.join(INPUTS, 'wildcard.yaml');
const WILDCARD_VALUES = path.join(INPUTS, 'wildcard-values.yaml');
const PASSTHROUGH = path.join(INPUTS, 'passthrough.yaml');
const NOW = '2026-01-01T00:00:00Z';
const KEY_MATERIAL = 'LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t'; // base64 of "-----BEGIN PRIVATE KEY-----"

const load = (f: string) => (jsyaml.loadAll(fs.readFileSync(f, 'utf8')) as KObject[]).filter(Boolean);
const parse = (s: string) => (jsyaml.loadAll(s) as KObject[]).filter(Boolean);
const id = (o: { kind: string; metadata?: { namespace?: string; name: string }; namespace?: string; name?: string }) =>
  `${o.kind} ${o.metadata?.namespace ?? o.namespace ?? ''}/${o.metadata?.name ?? o.name}`;

function tmpFile(name: string, text: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cgw-rec-'));
  const f = path.join(d, name);
  fs.writeFileSync(f, text);
  return f;
}

describe('reconcile(): orchestration', () => {
  it('runs the TenantGateway controller, then replication (which reads the certMode), then the hazards', () => {
    const r = reconcile(
      {
        objects: load(WILDCARD),
        valuesFiles: [
          { file: 'v', values: jsyaml.load(fs.readFileSync(WILDCARD_VALUES, 'utf8')) as Record<string, unknown> },
        ],
      },
      { now: NOW },
    );
    const ops = r.changes.map((c) => `${c.op} ${c.ref.kind} ${c.ref.namespace ?? ''}/${c.ref.name}`);
    expect(ops).toContain('create Gateway tenant-alice/cozystack'); // the controller ran
    expect(ops).toContain('delete Secret tenant-dave/wildcard-tls'); // the edge exception
    expect(ops).not.toContain('delete Secret tenant-alice/wildcard-tls');
    expect(r.findings.map((f) => f.rule)).toContain('wildcard.replica-skipped');
    expect(r.ciliumVersion).toBe('1.20.2');
    expect(r.channelOrigin).toMatch(/platform values/);
  });

  it('without platform values the channel is absent: replicas are neither created nor pruned', () => {
    const r = reconcile({ objects: load(WILDCARD) }, { now: NOW });
    expect(r.changes.filter((c) => c.ref.kind === 'Secret')).toEqual([]);
  });

  it('an invalid --now and duplicate objects are errors, and nothing runs', () => {
    const objs = load(ROUTES);
    const r = reconcile({ objects: [...objs, objs[0]] }, { now: 'tomorrow' });
    expect(r.findings.map((f) => f.rule).sort()).toEqual(['input.duplicate', 'input.duplicate', 'input.now']);
    expect(r.changes).toEqual([]);
  });

  it("the command's pass (reconcileRequest): the unknown keys of the values first, then the pass's findings", () => {
    const input = {
      objects: load(WILDCARD),
      valuesFiles: [
        {
          file: 'v',
          values: {
            ...(jsyaml.load(fs.readFileSync(WILDCARD_VALUES, 'utf8')) as Record<string, unknown>),
            publshing: {},
          },
        },
      ],
    };
    const pass = reconcile(input, { now: NOW });
    const r = reconcileRequest(input, { now: NOW });
    expect(pass.findings.length).toBeGreaterThan(0);
    expect(pass.findings.map((f) => f.rule)).not.toContain('input.unknown-key');
    expect(r.findings.map((f) => f.rule)).toEqual(['input.unknown-key', ...pass.findings.map((f) => f.rule)]);
  });

  it('the Cilium version picks the hazards', () => {
    const rules = (v: string) =>
      reconcile({ objects: load(PASSTHROUGH) }, { now: NOW, ciliumVersion: v }).findings.map((f) => f.rule);
    expect(rules('1.19.5')).toContain('cilium.sni-chains-share-one-envoy-listener');
    expect(rules('1.20.2')).not.toContain('cilium.sni-chains-share-one-envoy-listener');
  });
});

describe('cozy-gw reconcile: output modes', () => {
  it('-o yaml (default): only what the pass creates or changes, status included', async () => {
    const r = await runCli(['reconcile', '-f', ROUTES, '--now', NOW]);
    expect(r.code).toBe(0);
    const objs = parse(r.stdout);
    const ids = objs.map(id);
    expect(ids).toContain('Gateway tenant-root/cozystack');
    expect(ids).toContain('HTTPRoute tenant-root/mixed');
    expect(ids).not.toContain('Namespace /tenant-eve'); // unchanged
    const mixed = objs.find((o) => o.metadata.name === 'mixed')!;
    expect(JSON.stringify(mixed.status)).toContain('NoMatchingListenerHostname');
  });

  it('--all: every input object and every created one; deleted ones absent', async () => {
    const r = await runCli(['reconcile', '--values', WILDCARD_VALUES, '-f', WILDCARD, '--now', NOW, '--all']);
    expect(r.code).toBe(0);
    const ids = parse(r.stdout).map(id);
    for (const o of load(WILDCARD))
      if (id(o) !== 'Secret tenant-dave/wildcard-tls' && id(o) !== 'Secret tenant-bob/old-wildcard')
        expect(ids).toContain(id(o));
    expect(ids).toContain('Gateway tenant-alice/cozystack');
    expect(ids).not.toContain('Secret tenant-dave/wildcard-tls');
    expect(ids).not.toContain('Secret tenant-bob/old-wildcard');
    expect(r.stderr).toMatch(
      /deletes 2 objects: Secret tenant-bob\/old-wildcard, Secret tenant-dave\/wildcard-tls \(absent from the output\)/,
    );
  });

  it('-o json: {"changed": [...], "deleted": [{apiVersion, kind, namespace, name}]}', async () => {
    const r = await runCli(['reconcile', '--values', WILDCARD_VALUES, '-f', WILDCARD, '--now', NOW, '-o', 'json']);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['changed', 'deleted']);
    expect(doc.deleted).toEqual([
      { apiVersion: 'v1', kind: 'Secret', namespace: 'tenant-bob', name: 'old-wildcard' },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'tenant-dave', name: 'wildcard-tls' },
    ]);
    expect(doc.changed.map(id)).toContain('Gateway tenant-alice/cozystack');
  });

  it('-o json --all adds the whole state as "objects"', async () => {
    const r = await runCli(['reconcile', '-f', ROUTES, '--now', NOW, '-o', 'json', '--all']);
    const doc = JSON.parse(r.stdout);
    expect(doc.objects.map(id)).toContain('Namespace /tenant-eve');
  });

  it('-o plan: what, why, the field changes, route outcomes with reasons, and warnings', async () => {
    const r = await runCli(['reconcile', '-f', ROUTES, '--now', NOW, '-o', 'plan']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Reconcile plan at 2026-01-01T00:00:00Z for Cilium 1\.20\.2/);
    expect(r.stdout).toMatch(/\+ create Gateway tenant-root\/cozystack\n\s+why: /);
    expect(r.stdout).toMatch(
      /~ change HTTPRoute tenant-alice\/harbor-copy[\s\S]*?status from Gateway tenant-root\/cozystack: Accepted=False HostnameConflict: .*harbor\.example\.org/,
    );
    expect(r.stdout).toMatch(/\+ metadata\.annotations\["cozystack\.io\/gateway-attached-by"\]: "tenant-root"/);
  });

  it('-o plan shows a refused route even when its status does not change', async () => {
    const first = await runCli(['reconcile', '-f', ROUTES, '--now', NOW, '--all']);
    const f = tmpFile('state.yaml', first.stdout);
    const r = await runCli(['reconcile', '-f', f, '--now', NOW, '-o', 'plan']);
    expect(r.stdout).toMatch(
      /= unchanged HTTPRoute tenant-root\/mixed \(refused\)\n\s+status from .*NoMatchingListenerHostname/,
    );
    expect(r.stdout).toMatch(/0 objects to create, 0 to change, 0 to delete/);
  });

  it('an unknown -o is a usage error (exit 2)', async () => {
    const r = await runCli(['reconcile', '-f', ROUTES, '-o', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('Secrets (docs/decisions.md §9)', () => {
  it('without --include-secret-data no key material is printed, in any mode, and stderr says so', async () => {
    for (const mode of [['--all'], ['-o', 'json', '--all'], ['-o', 'plan'], []]) {
      const r = await runCli(['reconcile', '--values', WILDCARD_VALUES, '-f', WILDCARD, '--now', NOW, ...mode]);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain(KEY_MATERIAL);
    }
    const r = await runCli(['reconcile', '--values', WILDCARD_VALUES, '-f', WILDCARD, '--now', NOW, '--all']);
    expect(r.stderr).toMatch(/data of 4 Secrets left out of the output .*--include-secret-data/);
    const s = parse(r.stdout).find((o) => id(o) === 'Secret tenant-root/wildcard-tls')!;
    expect(s.type).toBe('kubernetes.io/tls');
    expect(s.data).toEqual({});
    expect(s.metadata.annotations).toEqual({
      'cozy-gw.cozystack.io/secret-data-omitted': 'tls.crt,tls.key',
      // a digest of the data left out (docs/decisions.md §C8), never the data
      'cozy-gw.cozystack.io/secret-data-digest': expect.stringMatching(/^scrypt:4096:8:1:[0-9a-f]{32}:[0-9a-f]{64}$/),
    });
  });

  it('a created replica is redacted in the default output too', async () => {
    const objs = load(WILDCARD).filter((o) => id(o) !== 'Secret tenant-alice/wildcard-tls');
    const f = tmpFile('in.yaml', objs.map((o) => jsyaml.dump(o)).join('---\n'));
    const r = await runCli(['reconcile', '--values', WILDCARD_VALUES, '-f', f, '--now', NOW]);
    const rep = parse(r.stdout).find((o) => id(o) === 'Secret tenant-alice/wildcard-tls')!;
    expect(rep.data).toEqual({});
    expect(rep.metadata.labels).toEqual({ 'cozystack.io/wildcard-secret-copy': 'true' });
    expect(r.stderr).toMatch(/data of 1 Secret left out/);
  });

  it('--include-secret-data prints the data as it is', async () => {
    const r = await runCli([
      'reconcile',
      '--values',
      WILDCARD_VALUES,
      '-f',
      WILDCARD,
      '--now',
      NOW,
      '--all',
      '--include-secret-data',
    ]);
    expect(r.stdout).toContain(KEY_MATERIAL);
    expect(r.stderr).not.toMatch(/left out/);
  });
});

describe('--now, determinism, a second pass', () => {
  it('--now is the clock of condition timestamps; the default is the current time', async () => {
    const r = await runCli(['reconcile', '-f', ROUTES, '--now', '2030-05-06T07:08:09Z']);
    expect(r.stdout).toContain('lastTransitionTime: "2030-05-06T07:08:09Z"');
    const d = await runCli(['reconcile', '-f', ROUTES]);
    const m = /lastTransitionTime: "([^"]+)"/.exec(d.stdout)!;
    expect(Math.abs(Date.parse(m[1]) - Date.now())).toBeLessThan(60_000);
  });

  it('an invalid --now or --cilium-version is a usage error: exit 2, nothing on stdout', async () => {
    for (const bad of [
      ['--now', '2026-13-01'],
      ['--cilium-version', 'newest'],
    ]) {
      const r = await runCli(['reconcile', '-f', ROUTES, ...bad]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    }
  });

  it('invalid input exits 1, lists the problem and prints nothing', async () => {
    const f = tmpFile('bad.yaml', 'apiVersion: v1\nkind: Secret\nmetadata: {name: x\n');
    const r = await runCli(['reconcile', '-f', f, '--now', NOW]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bad\.yaml/);
  });

  it('an unparsable channel Secret exits 1, naming it', async () => {
    const ch = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cozystack-values', namespace: 'cozy-system' },
      stringData: { 'values.yaml': '_cluster: [' },
    };
    const f = tmpFile('in.yaml', [...load(WILDCARD), ch].map((o) => jsyaml.dump(o)).join('---\n'));
    const r = await runCli(['reconcile', '-f', f, '--now', NOW]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /Secret cozy-system\/cozystack-values: values\.yaml: the wildcard-secret channel cannot be read/,
    );
  });

  it.each([
    ['routes', ['-f', ROUTES]],
    ['wildcard', ['--values', WILDCARD_VALUES, '-f', WILDCARD]],
    ['passthrough', ['-f', PASSTHROUGH]],
  ])('%s: same input, byte-identical output', async (_n, args) => {
    for (const mode of [[], ['--all'], ['-o', 'json'], ['-o', 'plan']]) {
      const a = await runCli(['reconcile', ...args, '--now', NOW, ...mode]);
      const b = await runCli(['reconcile', ...args, '--now', NOW, ...mode]);
      expect(b.stdout).toBe(a.stdout);
      expect(b.stderr).toBe(a.stderr);
    }
  });

  it.each([
    ['routes', [], ROUTES],
    ['wildcard', ['--values', WILDCARD_VALUES], WILDCARD],
    ['passthrough', [], PASSTHROUGH],
  ])('%s: a second pass over the first pass’s --all output changes nothing, even later', async (_n, extra, input) => {
    for (const secretFlag of [['--include-secret-data'], []]) {
      const first = await runCli(['reconcile', ...extra, '-f', input, '--now', NOW, '--all', ...secretFlag]);
      expect(first.code).toBe(0);
      const f = tmpFile('state.yaml', first.stdout);
      const second = await runCli(['reconcile', ...extra, '-f', f, '--now', '2026-02-01T00:00:00Z', '-o', 'json']);
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout)).toEqual({ changed: [], deleted: [] });
    }
  });
});

describe('a stored TenantGateway the current CRD would refuse (ratcheting)', () => {
  it('is reconciled as it stands, with a warning that its next write would be refused', () => {
    const { reconcile: run } =
      require('../../src/pipelines/reconcile') as typeof import('../../src/pipelines/reconcile');
    const tgw = {
      apiVersion: 'gateway.cozystack.io/v1alpha1',
      kind: 'TenantGateway',
      metadata: { name: 'cozystack', namespace: 'tenant-root' },
      spec: { apex: 'example.org', certMode: 'http03' },
    };
    const r = run({ objects: [tgw] }, { now: '2026-01-01T00:00:00Z' });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(
      r.findings.some(
        (f) =>
          f.severity === 'warning' && f.field === 'spec.certMode' && /CRD would refuse the next write/.test(f.message),
      ),
    ).toBe(true);
    const after = r.store.get('gateway.cozystack.io', 'TenantGateway', 'tenant-root', 'cozystack')!;
    expect(JSON.stringify(after.status)).toMatch(/ReconcileError.*unsupported certMode/);
  });
});
