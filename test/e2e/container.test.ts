/**
 * The container image's entrypoint (Dockerfile, built by GoReleaser's dockers_v2: the npm package
 * installed on Node.js 24), run as kpt (`kpt fn eval --image`) and kustomize (`container:`
 * functions) run it, as far as that goes without docker: the Dockerfile's ENTRYPOINT argv, with
 * the image's `cozy-gw` (what `npm install -g` links) replaced by `node bin/cozy-gw.js` (the
 * installed package prints the checkout's bytes: test/release/install.test.ts), in an empty
 * working directory with an empty environment, a ResourceList on stdin. It must answer with a
 * ResourceList on stdout and write nothing beside it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { BIN, ensureBuilt, ROOT, tmpDir } from '../helpers/kpt';
import { spawnSync } from 'node:child_process';
import type { KObject } from '../../src/k8s/model';

const rc = require('../../scripts/release-check.js');
const ENTRYPOINT: string[] = rc.dockerEntrypoint(path.join(ROOT, 'Dockerfile'));

function runImage(stdin: string): { code: number; stdout: string; stderr: string; dir: string } {
  const dir = tmpDir('container');
  const [, ...args] = ENTRYPOINT;
  // The image has no HOME, no PATH to speak of, and a read-only-ish /tmp working directory.
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: dir,
    input: stdin,
    encoding: 'utf8',
    env: {},
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, dir };
}

const tenant = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: {
    name,
    namespace: 'tenant-root',
    annotations: { 'config.kubernetes.io/path': `${name}.yaml`, 'config.kubernetes.io/index': '0' },
  },
  spec,
});

describe('container entrypoint (Dockerfile ENTRYPOINT)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('is the KRM function: cozy-gw fn', () => {
    expect(ENTRYPOINT).toEqual(['/usr/local/bin/cozy-gw', 'fn']);
  });

  it('kpt fn eval --image -- key=value: a ConfigMap functionConfig, a ResourceList out, nothing written in its directory', () => {
    const rl = {
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [tenant('root', { gateway: true }), tenant('alice')],
      functionConfig: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'function-input' },
        // main's behaviour, which the suite pins (test/setupVersion.ts); the image's empty environment names none.
        data: {
          'publishing.host': 'example.org',
          'gateway.enabled': 'true',
          reconcile: 'true',
          cozystackVersion: 'main',
        },
      },
    };
    const r = runImage(jsyaml.dump(rl));
    // Only the note on the Helm hooks the render left out (docs/decisions.md §Q5).
    expect(r.stderr).toMatch(/^info: Helm hooks left out[^\n]*\n$/);
    expect(r.code).toBe(0);
    const out = jsyaml.load(r.stdout) as { kind: string; items: KObject[] };
    expect(out.kind).toBe('ResourceList');
    expect(out.items.slice(0, 2)).toEqual(rl.items);
    expect(out.items.some((o) => o.kind === 'TenantGateway' && o.metadata.namespace === 'tenant-root')).toBe(true);
    expect(out.items.some((o) => o.kind === 'Gateway')).toBe(true);
    expect(fs.readdirSync(r.dir)).toEqual([]);
  });

  it('kustomize container: function: the CozyGateway config; a render failure is an error result and exit 1', () => {
    const rl = {
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [tenant('carol', { gateway: true, gatewayClass: 'nope' })],
      functionConfig: {
        apiVersion: 'fn.cozystack.io/v1alpha1',
        kind: 'CozyGateway',
        metadata: { name: 'platform' },
        // A tenant's gatewayClass is main's (docs/versions.md §X1): the image's default version ignores it.
        spec: {
          values: { publishing: { host: 'example.org' }, gateway: { enabled: true } },
          cozystackVersion: 'main',
        },
      },
    };
    const r = runImage(jsyaml.dump(rl));
    expect(r.code).toBe(1);
    const out = jsyaml.load(r.stdout) as { items: unknown[]; results: { severity: string; message: string }[] };
    expect(out.items).toEqual(rl.items);
    expect(out.results.some((x) => x.severity === 'error' && /gatewayClass "nope"/.test(x.message))).toBe(true);
    expect(r.stderr).toMatch(/^error: carol\.yaml: Tenant tenant-root\/carol: spec\.gatewayClass: /m);
    expect(fs.readdirSync(r.dir)).toEqual([]);
  });
});
