/**
 * `cozy-gw fn` under kustomize, both forms:
 * - the legacy exec plugin (`kubectl kustomize --enable-alpha-plugins`, the only form kubectl's
 *   built-in kustomize runs): an executable at
 *   $XDG_CONFIG_HOME/kustomize/plugin/fn.cozystack.io/v1alpha1/cozygateway/CozyGateway that runs
 *   `cozy-gw fn --kustomize-plugin CONFIG`, manifests on stdin and stdout;
 * - the exec KRM function (standalone `kustomize build --enable-alpha-plugins --enable-exec`):
 *   the transformer config carries `config.kubernetes.io/function: {exec: {path: ...}}` and
 *   kustomize speaks the ResourceList protocol.
 * Each is skipped, visibly, where its client is not on PATH.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import type { KObject } from '../../src/k8s/model';
import { ensureBuilt, readFiles, runProcess, TESTDATA, tmpDir, which, writeFiles, writeWrapper } from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';

const KUBECTL = which('kubectl');
const KUSTOMIZE = which('kustomize');
const PKG = path.join(TESTDATA, 'krm', 'pkg');
const CONFIG = fs.readFileSync(path.join(TESTDATA, 'krm', 'cozygateway.yaml'), 'utf8');
const BAD_CONFIG = fs.readFileSync(path.join(TESTDATA, 'krm', 'cozygateway-bad.yaml'), 'utf8');

/** A kustomization over the test package with the CozyGateway as a transformer. */
function kustomization(config: string): string {
  const dir = path.join(tmpDir('kustomize'), 'k');
  fs.mkdirSync(dir);
  const files = readFiles(PKG);
  delete files['notes.yaml']; // kustomize has no local-config files to skip: keep the test package plain
  writeFiles(dir, files);
  writeFiles(dir, {
    'cozygateway.yaml': config,
    'kustomization.yaml': `resources:\n${Object.keys(files)
      .map((f) => `- ${f}`)
      .join('\n')}\ntransformers:\n- cozygateway.yaml\n`,
  });
  return dir;
}

const objects = (s: string) => (jsyaml.loadAll(s) as KObject[]).filter(Boolean);
const has = (objs: KObject[], kind: string, name: string, ns?: string) =>
  objs.some((o) => o.kind === kind && o.metadata.name === name && (ns === undefined || o.metadata.namespace === ns));

if (!KUBECTL) {
  describe('kubectl kustomize (legacy exec plugin)', () => {
    it.skip(skippedTitle('kubectl kustomize --enable-alpha-plugins', needs('kubectl')!), () => undefined);
  });
} else {
  describe('kubectl kustomize --enable-alpha-plugins (legacy exec plugin)', () => {
    let home: string;
    beforeAll(() => {
      ensureBuilt();
      home = tmpDir('xdg');
      writeWrapper(
        path.join(home, 'kustomize', 'plugin', 'fn.cozystack.io', 'v1alpha1', 'cozygateway', 'CozyGateway'),
        ['fn', '--kustomize-plugin'],
      );
    }, 240_000);

    it('adds the rendered (and reconciled) objects to the build, the resources unchanged', () => {
      const dir = kustomization(CONFIG);
      const r = runProcess(KUBECTL!, ['kustomize', '--enable-alpha-plugins', dir], { env: { XDG_CONFIG_HOME: home } });
      if (r.code !== 0) throw new Error(`kubectl kustomize exited ${r.code}:\n${r.stderr}`);
      const objs = objects(r.stdout);
      expect(has(objs, 'Tenant', 'root', 'tenant-root')).toBe(true);
      expect(has(objs, 'Widget', 'w1', 'tenant-alice')).toBe(true);
      expect(objs.find((o) => o.kind === 'Widget')!.spec).toEqual({ size: 3, mode: 'on', tags: ['a', 'b'] });
      expect(has(objs, 'TenantGateway', 'cozystack', 'tenant-root')).toBe(true);
      expect(has(objs, 'Namespace', 'tenant-alice')).toBe(true);
      expect(has(objs, 'Gateway', 'cozystack', 'tenant-root')).toBe(true); // reconcile: true in the config
      expect(r.stdout).not.toMatch(/config\.kubernetes\.io\/path/);
    }, 120_000);

    it("a render failure fails the build and kustomize shows the plugin's error", () => {
      const dir = kustomization(BAD_CONFIG);
      const r = runProcess(KUBECTL!, ['kustomize', '--enable-alpha-plugins', dir], { env: { XDG_CONFIG_HOME: home } });
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/unsupported solver "tls-alpn-01"/);
    }, 120_000);
  });
}

if (!KUSTOMIZE) {
  describe('kustomize build --enable-exec (exec KRM function)', () => {
    // kubectl kustomize has no --enable-exec: these need the standalone kustomize.
    it.skip(skippedTitle('kustomize build --enable-exec', needs('kustomize')!), () => undefined);
  });
} else {
  describe('kustomize build --enable-alpha-plugins --enable-exec (exec KRM function)', () => {
    beforeAll(() => ensureBuilt(), 240_000);

    it('runs cozy-gw fn over a ResourceList and adds the rendered objects', () => {
      const dir = kustomization(CONFIG);
      const wrapper = writeWrapper(path.join(dir, 'cozy-gw-fn'), ['fn']);
      const cfg = jsyaml.load(CONFIG) as KObject;
      cfg.metadata.annotations = {
        ...(cfg.metadata.annotations ?? {}),
        'config.kubernetes.io/function': `exec:\n  path: ${wrapper}\n`,
      };
      fs.writeFileSync(path.join(dir, 'cozygateway.yaml'), jsyaml.dump(cfg));
      const r = runProcess(KUSTOMIZE!, ['build', '--enable-alpha-plugins', '--enable-exec', dir]);
      if (r.code !== 0) throw new Error(`kustomize exited ${r.code}:\n${r.stderr}`);
      const objs = objects(r.stdout);
      expect(has(objs, 'Tenant', 'root', 'tenant-root')).toBe(true);
      expect(has(objs, 'TenantGateway', 'cozystack', 'tenant-root')).toBe(true);
    }, 120_000);
  });
}
