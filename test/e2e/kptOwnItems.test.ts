/**
 * `cozy-gw fn` under the real `kpt fn render` (docs/commands/fn.md): the function recognises its
 * own items by their path under `cozy-gw/`, so a user's customised copy of a generated file, kept
 * in `overrides/` with the generated mark, survives; and a TenantGateway in namespace `..` fails
 * the pipeline naming it, with nothing written outside `cozy-gw/` (kpt writes every item where its
 * path annotation says). Skipped, visibly, where kpt is not on PATH.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureBuilt, kptfile, readFiles, runProcess, tmpDir, which, writeFiles, writeWrapper } from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';

const KPT = which('kpt');

const CONFIG = `apiVersion: fn.cozystack.io/v1alpha1
kind: CozyGateway
metadata:
  name: platform
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  reconcile: true
  now: "2026-01-01T00:00:00Z"
  values:
    publishing: {host: example.org}
    gateway: {enabled: true}
`;
const ROOT_TENANT = `apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata:
  name: root
  namespace: tenant-root
spec:
  gateway: true
`;
/** A user's customised copy of a generated object, the mark kept, in the user's own folder. */
const OVERRIDE = `# my customised copy: keep it
apiVersion: v1
kind: ConfigMap
metadata:
  name: custom
  namespace: tenant-root
  annotations:
    cozy-gw.cozystack.io/generated: "true"
data:
  mine: "yes"
`;
const EVIL = `apiVersion: gateway.cozystack.io/v1alpha1
kind: TenantGateway
metadata:
  name: cozystack
  namespace: ..
spec:
  apex: example.org
  gatewayClassName: cilium
`;

function pkg(extra: Record<string, string>): { base: string; dir: string } {
  const base = tmpDir('kpt-own');
  const dir = path.join(base, 'pkg');
  const wrapper = writeWrapper(path.join(base, 'bin', 'cozy-gw-fn'), ['fn']);
  writeFiles(dir, {
    Kptfile: kptfile(wrapper, 'cozygateway.yaml'),
    'cozygateway.yaml': CONFIG,
    'tenant-root.yaml': ROOT_TENANT,
    ...extra,
  });
  return { base, dir };
}

if (!KPT) {
  describe('kpt fn render: the function keeps to its own folder', () => {
    it.skip(
      skippedTitle('a customised copy in overrides/ survives; namespace ".." fails', needs('kpt')!),
      () => undefined,
    );
  });
} else {
  describe('kpt fn render: the function keeps to its own folder', () => {
    beforeAll(() => ensureBuilt(), 240_000);

    it('a customised copy marked generated in overrides/ survives two renders byte for byte', () => {
      const { dir } = pkg({ 'overrides/custom.yaml': OVERRIDE });
      for (let run = 1; run <= 2; run++) {
        const r = runProcess(KPT, ['fn', 'render', dir, '--allow-exec']);
        expect([run, r.code, r.code === 0 ? '' : r.stdout + r.stderr]).toEqual([run, 0, '']);
        expect(fs.readFileSync(path.join(dir, 'overrides/custom.yaml'), 'utf8')).toBe(OVERRIDE);
      }
      expect(Object.keys(readFiles(dir))).toContain('cozy-gw/tenant-root/gateway-cozystack.yaml');
    }, 120_000);

    it('a TenantGateway in namespace "..": the pipeline fails naming it, nothing is written outside cozy-gw/', () => {
      const { base, dir } = pkg({ 'evil.yaml': EVIL });
      const before = readFiles(base);
      const r = runProcess(KPT, ['fn', 'render', dir, '--allow-exec']);
      expect(r.code).not.toBe(0);
      const out = r.stdout + r.stderr;
      expect(out).toContain('TenantGateway/../cozystack metadata.namespace: ".." is not a namespace name');
      expect(out).toContain('error: evil.yaml: TenantGateway ../cozystack: metadata.namespace:');
      expect(readFiles(base)).toEqual(before);
    }, 120_000);
  });
}
