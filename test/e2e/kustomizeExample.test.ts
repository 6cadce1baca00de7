/**
 * The shipped kustomize example (examples/kustomize) under the real `kubectl kustomize`, as the
 * README shows it, and the README's warning: kubectl's kustomize has no --enable-exec, so the
 * exec-function annotation form is silently not run there (exit 0, no rendered objects).
 * Skipped, visibly, where kubectl is not on PATH.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { ensureBuilt, readFiles, ROOT, runProcess, tmpDir, which, writeFiles } from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';

const KUBECTL = which('kubectl');
const EXAMPLE = path.join(ROOT, 'examples', 'kustomize');
const ENV = { PATH: `${path.join(ROOT, 'bin')}${path.delimiter}${process.env.PATH ?? ''}` };
const kinds = (s: string) => (jsyaml.loadAll(s) as { kind: string }[]).filter(Boolean).map((o) => o.kind);

if (!KUBECTL) {
  describe('examples/kustomize (kubectl kustomize)', () => {
    it.skip(skippedTitle('kubectl kustomize examples/kustomize', needs('kubectl')!), () => undefined);
  });
} else {
  describe('examples/kustomize (kubectl kustomize)', () => {
    beforeAll(() => ensureBuilt(), 240_000);

    it('the legacy exec plugin the example ships (plugin/, KUSTOMIZE_PLUGIN_HOME) adds the rendered objects', () => {
      const r = runProcess(KUBECTL, ['kustomize', '--enable-alpha-plugins', EXAMPLE], {
        env: { ...ENV, KUSTOMIZE_PLUGIN_HOME: path.join(EXAMPLE, 'plugin') },
      });
      if (r.code !== 0) throw new Error(`kubectl kustomize exited ${r.code}:\n${r.stderr}`);
      expect(kinds(r.stdout)).toEqual(
        expect.arrayContaining(['Tenant', 'Namespace', 'Secret', 'TenantGateway', 'ValidatingAdmissionPolicy']),
      );
      expect(kinds(r.stdout).filter((k) => k === 'TenantGateway')).toHaveLength(2);
    }, 120_000);

    it('the exec-function annotation form does nothing under kubectl kustomize: exit 0, no rendered objects (the README warns)', () => {
      const dir = path.join(tmpDir('kubectl-exec'), 'k');
      const files = readFiles(EXAMPLE);
      delete files['plugin/fn.cozystack.io/v1alpha1/cozygateway/CozyGateway'];
      writeFiles(dir, files);
      const cfg = jsyaml.load(files['cozygateway.yaml']) as { metadata: { annotations?: Record<string, string> } };
      cfg.metadata.annotations = {
        ...(cfg.metadata.annotations ?? {}),
        'config.kubernetes.io/function': 'exec:\n  path: cozy-gw-fn\n',
      };
      fs.writeFileSync(path.join(dir, 'cozygateway.yaml'), jsyaml.dump(cfg));
      const r = runProcess(KUBECTL, ['kustomize', '--enable-alpha-plugins', dir], { env: ENV });
      expect(r.code).toBe(0);
      expect(kinds(r.stdout)).not.toContain('TenantGateway');
      expect(kinds(r.stdout)).toContain('Tenant');
    }, 120_000);
  });
}
