/**
 * A Secret in the change that claims cozy-gw's redaction annotations (docs/decisions.md §C8), at
 * the CLI: the markers are cozy-gw's output, not input facts. A forged Secret carrying the state's
 * digest with `data: {}` or `stringData` of its own is never "no differences" against a state
 * holding the real data (or its digest); the annotations are ignored with a warning naming the
 * Secret, and the Secret is compared by what it carries.
 */
import * as jsyaml from 'js-yaml';
import { useScratch } from '../helpers/cli';
import type { KObject } from '../../src/k8s/model';

const scratch = useScratch('cozy-gw-redaction-claims-');
const NOW = ['--now', '2026-01-01T00:00:00Z'];
const OMITTED = 'cozy-gw.cozystack.io/secret-data-omitted';
const DIGEST = 'cozy-gw.cozystack.io/secret-data-digest';

const REAL =
  'apiVersion: v1\nkind: Secret\nmetadata: {name: example-tls, namespace: tenant-root}\ntype: kubernetes.io/tls\n' +
  'data: {tls.crt: c2VjcmV0LWNydA==, tls.key: c2VjcmV0LWtleQ==}\n';

/** The Secret as `reconcile` printed it (without its data, with its digest): what a forger copies. */
async function printed(): Promise<KObject> {
  scratch.write('real.yaml', REAL);
  const r = await scratch.cli(['reconcile', '--all', '-f', 'real.yaml', ...NOW]);
  expect(r.code).toBe(0);
  const [s] = jsyaml.loadAll(r.stdout) as KObject[];
  expect(s.metadata.annotations?.[DIGEST]).toMatch(/^scrypt:4096:8:1:[0-9a-f]{32}:[0-9a-f]{64}$/);
  return s;
}

describe('a Secret in the change claiming cozy-gw redaction annotations', () => {
  it.each([
    ['data: {} and the digest', (s: KObject) => s],
    ['stringData of its own and the digest', (s: KObject) => ({ ...s, stringData: { 'tls.key': 'attacker-key' } })],
  ])('%s: never exit 0, against the real data or its digest; a warning names the Secret', async (_what, forge) => {
    const state = await printed();
    scratch.write('printed.yaml', jsyaml.dump(state));
    const text = jsyaml.dump(forge(state));
    scratch.write('forged.yaml', text);
    const line = text.split('\n').indexOf('  annotations:') + 1;
    for (const stateFile of ['real.yaml', 'printed.yaml']) {
      const r = await scratch.cli(['diff', '--state', stateFile, '-f', 'forged.yaml', ...NOW]);
      expect({ stateFile, code: r.code }).toEqual({ stateFile, code: 3 });
      expect(r.stderr).toContain(
        `warning: forged.yaml:${line}: Secret tenant-root/example-tls: metadata.annotations: the change's Secret carries ${OMITTED} and ${DIGEST}, which only cozy-gw's output writes: ignored, and the Secret compared by the data it holds`,
      );
      // The data shown as it differs: gone (data: {}) or other (*** (after), *** (changed)).
      expect(r.stdout).toMatch(/^-\s+tls\.key: "\*\*\*"$|^\+\s+tls\.key: "\*\*\* \((after|changed)\)"$/m);
      expect(r.stdout + r.stderr).not.toMatch(/c2VjcmV0|attacker-key/);
    }
  });

  it('the same Secret with its data, as it is to be applied: no warning, exit 0', async () => {
    scratch.write('real.yaml', REAL);
    scratch.write('printed.yaml', jsyaml.dump(await printed()));
    const r = await scratch.cli(['diff', '--state', 'printed.yaml', '-f', 'real.yaml', ...NOW]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: 'note: no differences\n',
    });
  });
});
