/**
 * docs/decisions.md §14: output that gets applied (post-render to Helm, fn items into a
 * package, an --output-dir tree to Flux or Argo CD) never carries a Secret the API server would
 * refuse. A wildcard-Secret replica is written there only with --include-secret-data
 * (includeSecretData in fn); otherwise it is left out and a note names it. Output for reading
 * (render/reconcile on stdout) keeps the redacted form.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import fc from 'fast-check';
import { runCli } from '../helpers/cli';
import { readFiles, tmpDir } from '../helpers/kpt';
import { apiServerSecretErrors } from '../helpers/apiServerSecret';
import { arbPlatformCase, clusterStateOf, renderInputOf } from '../helpers/platformArbitrary';
import { clone, keyOf, type KObject } from '../../src/k8s/model';
import { REDACTED_ANNOTATION, redactSecret } from '../../src/k8s/secretRedaction';
import { secretTypeProblem } from '../../src/k8s/secretTypes';
import { render } from '../../src/pipelines/render';
import { preview } from '../../src/pipelines/preview';
import { postRender } from '../../src/protocols/postRender';
import { processResourceList, type ResourceList } from '../../src/protocols/krm';
import { toYamlStream } from '../../src/k8s/yaml';

const NOW = '2026-01-01T00:00:00Z';
const VALUES = {
  publishing: { host: 'example.org', certificates: { wildcardSecretName: 'wild' } },
  gateway: { enabled: true },
};
const SOURCE: KObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'wild', namespace: 'tenant-root' },
  type: 'kubernetes.io/tls',
  data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' },
};
const tenant = (name: string): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace: 'tenant-root' },
  spec: { gateway: true },
});
const TENANTS = [tenant('root'), tenant('bob')];
/** The note that names the replica (stderr, and the fn result's message). */
const NOTE =
  /Secret tenant-bob\/wild: wildcard-Secret replica of tenant-root\/wild left out of the output, for the in-cluster controller to write \(pass --include-secret-data to write it with its key material/;

function secrets(objs: unknown[]): KObject[] {
  return (objs.filter((o) => o && typeof o === 'object') as KObject[]).filter((o) => o.kind === 'Secret');
}

/** A TLS Secret the API server refuses: one without tls.crt or tls.key. */
function tlsWithoutKeys(objs: unknown[]): string[] {
  return secrets(objs)
    .filter((s) => s.type === 'kubernetes.io/tls')
    .filter((s) => {
      const keys = new Set([...Object.keys((s.data as object) ?? {}), ...Object.keys((s.stringData as object) ?? {})]);
      return !keys.has('tls.crt') || !keys.has('tls.key');
    })
    .map((s) => `${s.metadata.namespace}/${s.metadata.name}`);
}

const replicaIn = (objs: unknown[]) =>
  secrets(objs).find((s) => s.metadata.namespace === 'tenant-bob' && s.metadata.name === 'wild');

function work(): string {
  const dir = tmpDir('applied');
  fs.writeFileSync(path.join(dir, 'values.yaml'), jsyaml.dump(VALUES));
  fs.writeFileSync(path.join(dir, 'in.yaml'), toYamlStream([...TENANTS, SOURCE]));
  return dir;
}

describe('post-render (Helm applies it)', () => {
  async function helmStream(dir: string): Promise<string> {
    const r = await runCli(['render', '--values', 'values.yaml', '-f', 'in.yaml'], { cwd: dir });
    expect(r.code).toBe(0);
    return `${r.stdout}---\n${toYamlStream([SOURCE])}`;
  }

  it('without --include-secret-data the replica is left out and stderr names it', async () => {
    const dir = work();
    const r = await runCli(['post-render', '--values', 'values.yaml', '--now', NOW], {
      cwd: dir,
      stdin: await helmStream(dir),
    });
    expect(r.code).toBe(0);
    const out = jsyaml.loadAll(r.stdout);
    expect(tlsWithoutKeys(out)).toEqual([]);
    expect(replicaIn(out)).toBeUndefined();
    expect(out.some((o) => (o as KObject)?.kind === 'Gateway')).toBe(true); // the rest of the pass is there
    expect(r.stderr).toMatch(new RegExp(`^info: ${NOTE.source}`, 'm'));
  });

  it('with --include-secret-data the replica is written with its key material, and no note', async () => {
    const dir = work();
    const r = await runCli(['post-render', '--values', 'values.yaml', '--now', NOW, '--include-secret-data'], {
      cwd: dir,
      stdin: await helmStream(dir),
    });
    expect(r.code).toBe(0);
    const out = jsyaml.loadAll(r.stdout);
    expect(tlsWithoutKeys(out)).toEqual([]);
    expect(replicaIn(out)!.data).toEqual(SOURCE.data);
    expect(r.stderr).not.toMatch(/left out/);
  });
});

describe('fn (kpt applies the package)', () => {
  const rl = (includeSecretData: boolean) =>
    jsyaml.dump({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [...TENANTS, SOURCE].map((o, i) => ({
        ...o,
        metadata: {
          ...o.metadata,
          annotations: {
            'internal.config.kubernetes.io/path': 'in.yaml',
            'internal.config.kubernetes.io/index': String(i),
          },
        },
      })),
      functionConfig: {
        apiVersion: 'fn.cozystack.io/v1alpha1',
        kind: 'CozyGateway',
        metadata: { name: 'cfg' },
        spec: { values: VALUES, reconcile: true, includeSecretData },
      },
    });

  it('without includeSecretData the replica is left out; stderr and an info result name it and say how to include it', async () => {
    const r = await runCli(['fn'], { stdin: rl(false) });
    expect(r.code).toBe(0);
    const out = jsyaml.load(r.stdout) as ResourceList;
    expect(tlsWithoutKeys(out.items)).toEqual([]);
    expect(replicaIn(out.items)).toBeUndefined();
    const info = out.results!.filter((x) => x.severity === 'info');
    expect(info).toHaveLength(1);
    expect(info[0].resourceRef).toEqual({ apiVersion: 'v1', kind: 'Secret', namespace: 'tenant-bob', name: 'wild' });
    expect(info[0].message).toMatch(
      /replica of tenant-root\/wild left out .*includeSecretData: true in the CozyGateway spec/,
    );
    expect(r.stderr).toMatch(
      /^info: Secret tenant-bob\/wild: wildcard-Secret replica of tenant-root\/wild left out .*includeSecretData/m,
    );
  });

  it('with includeSecretData the replica is an item with its key material, and no note', async () => {
    const r = await runCli(['fn'], { stdin: rl(true) });
    expect(r.code).toBe(0);
    const out = jsyaml.load(r.stdout) as ResourceList;
    expect(tlsWithoutKeys(out.items)).toEqual([]);
    expect(replicaIn(out.items)!.data).toEqual(SOURCE.data);
    expect(out.results).toBeUndefined();
    // Only the note on the Helm hooks left out (docs/decisions.md §Q5), on stderr and not in the results.
    expect(r.stderr).toMatch(/^info: Helm hooks left out[^\n]*\n$/);
  });
});

describe('render --with-controller --output-dir (Flux or Argo CD applies the tree)', () => {
  const args = [
    'render',
    '--values',
    'values.yaml',
    '-f',
    'in.yaml',
    '--with-controller',
    '--now',
    NOW,
    '--output-dir',
    'out',
  ];
  const tree = (dir: string) =>
    Object.entries(readFiles(path.join(dir, 'out')))
      .filter(([f]) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
      .map(([, t]) => jsyaml.load(t));

  it('without --include-secret-data no file holds the replica, stderr names it; the cozystack-values Secrets are written whole', async () => {
    const dir = work();
    const r = await runCli(args, { cwd: dir });
    expect(r.code).toBe(0);
    const objs = tree(dir);
    expect(tlsWithoutKeys(objs)).toEqual([]);
    expect(replicaIn(objs)).toBeUndefined();
    expect(r.stderr).toMatch(new RegExp(`^info: ${NOTE.source}`, 'm'));
    const values = secrets(objs).filter((s) => s.metadata.name === 'cozystack-values');
    expect(values.map((s) => s.metadata.namespace).sort()).toEqual(['tenant-bob', 'tenant-root']);
    for (const s of values) expect(Object.keys(s.stringData as object)).toEqual(['values.yaml']);
  });

  it('with --include-secret-data the replica has its file, with its key material', async () => {
    const dir = work();
    const r = await runCli([...args, '--include-secret-data'], { cwd: dir });
    expect(r.code).toBe(0);
    const objs = tree(dir);
    expect(tlsWithoutKeys(objs)).toEqual([]);
    expect(replicaIn(objs)!.data).toEqual(SOURCE.data);
    expect(r.stderr).not.toMatch(/left out of the output, for/);
  });

  it('on stdout (output for reading) the replica keeps the redacted form and its annotation', async () => {
    const dir = work();
    const r = await runCli(args.slice(0, -2), { cwd: dir });
    expect(r.code).toBe(0);
    const replica = replicaIn(jsyaml.loadAll(r.stdout))!;
    expect(replica.data).toEqual({});
    expect(replica.metadata.annotations![REDACTED_ANNOTATION]).toBe('tls.crt,tls.key');
  });
});

describe('the API server Secret type rule (src/k8s/secretTypes.ts) agrees with the oracle', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  it.each([
    [{ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c') } }, false],
    [{ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } }, true],
    [{ type: 'kubernetes.io/tls', data: {}, stringData: { 'tls.crt': 'c', 'tls.key': 'k' } }, true],
    [{ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{') } }, false],
    [{ type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"auths":{}}' } }, true],
    [{ type: 'kubernetes.io/basic-auth', data: {} }, false],
    [{ type: 'kubernetes.io/basic-auth', stringData: { password: 'p' } }, true],
    [{ type: 'kubernetes.io/ssh-auth', data: { 'ssh-publickey': b64('x') } }, false],
    [{ type: 'Opaque', data: { 'a b': b64('x') } }, false],
    [{ type: 'Opaque', data: { a: 'not base64!' } }, false],
    [{ data: {} }, true],
  ])('%j accepted: %s', (s, ok) => {
    const o = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n' }, ...s } as KObject;
    expect(apiServerSecretErrors(o).length === 0).toBe(ok);
    expect(secretTypeProblem(o) === undefined).toBe(ok);
  });
});

describe('property: every Secret in every applied output passes the API server validation (generated platforms)', () => {
  /** Fixed by default (no flaky runs); FC_SEED replays or explores another seed. */
  const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : 14;
  const runs = Number(process.env.SELFCHECK_RUNS ?? 30);

  /** The API server's refusals for the Secrets of an output, except the ones given as input (docs/decisions.md §9: the user's own, passed through as they are). */
  function refused(objs: unknown[], given: KObject[] = []): string[] {
    const mine = new Set(given.map(keyOf));
    return secrets(objs)
      .filter((s) => !mine.has(keyOf(s)))
      .flatMap((s) => apiServerSecretErrors(s).map((e) => `Secret ${s.metadata.namespace}/${s.metadata.name}: ${e}`));
  }

  it('post-render, fn and --output-dir, with and without key material, with the source Secret given whole or redacted', () => {
    let replicasWritten = 0;
    fc.assert(
      fc.property(arbPlatformCase, fc.boolean(), fc.boolean(), (c, includeSecretData, sourceRedacted) => {
        const input = renderInputOf(c);
        const r = render(clone(input));
        if (r.objects.length === 0) return; // a platform render refuses: no output at all
        const renderedKeys = new Set(r.objects.map(keyOf));
        const state = clusterStateOf(c, r.objects).map((o) =>
          sourceRedacted && o.kind === 'Secret' && o.type === 'kubernetes.io/tls' ? redactSecret(o) : o,
        );
        const extra = state.filter((o) => !renderedKeys.has(keyOf(o)));
        const values = input.valuesFiles.map((v) => v.values);

        // fn: the Tenants (and Package) and the cluster's other objects as items.
        const fn = processResourceList(
          {
            apiVersion: 'config.kubernetes.io/v1',
            kind: 'ResourceList',
            items: clone([...input.objects, ...extra]),
            functionConfig: {
              apiVersion: 'fn.cozystack.io/v1alpha1',
              kind: 'CozyGateway',
              metadata: { name: 'cfg' },
              spec: { values: values[0] ?? {}, reconcile: true, includeSecretData },
            },
          },
          { defaultNow: NOW },
        );
        if (fn.exitCode === 0) expect(refused(fn.output.items, extra)).toEqual([]);

        // post-render: the rendered state as Helm would hand it over.
        const pkg = input.objects.filter((o) => o.kind === 'Package');
        const pr = postRender(toYamlStream([...pkg, ...state]), {
          values: input.valuesFiles,
          now: NOW,
          includeSecretData,
        });
        if (pr.exitCode === 0) expect(refused(jsyaml.loadAll(pr.stdout), state)).toEqual([]);

        // --output-dir: what render --with-controller writes into the tree.
        const pv = preview(
          { objects: clone([...input.objects, ...extra]), valuesFiles: input.valuesFiles },
          { now: NOW, includeSecretData, applied: true },
        );
        expect(refused(pv.objects)).toEqual([]);
        if (!includeSecretData)
          expect(
            secrets(pv.objects)
              .filter((s) => s.metadata.name !== 'cozystack-values')
              .map(keyOf),
          ).toEqual([]);
        replicasWritten += secrets(pv.objects).filter(
          (s) => s.metadata.labels?.['cozystack.io/wildcard-secret-copy'] === 'true',
        ).length;
      }),
      { numRuns: runs, seed },
    );
    expect(replicasWritten).toBeGreaterThan(0); // the generated platforms do reach the rule
  });
});
