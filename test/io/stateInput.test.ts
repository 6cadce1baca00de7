/**
 * diff's `--state` reader (src/io/stateInput.ts): a committed render tree's objects are render's own
 * (its record names their files), its bookkeeping is no object, and a kustomization given by name
 * or in a stream is no cluster state.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { keyOf, type KObject } from '../../src/k8s/model';
import { readState } from '../../src/io/stateInput';
import { writeOutputDir } from '../../src/io/outputDir';
import { FindingsError } from '../../src/k8s/diagnostics';

const obj = (kind: string, name: string, namespace?: string): KObject =>
  ({ apiVersion: 'v1', kind, metadata: { name, ...(namespace !== undefined ? { namespace } : {}) } }) as KObject;

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-state-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const io = () => ({ readStdin: () => '', cwd: tmp });

describe('readState', () => {
  it("holds a committed tree's objects as render's own, and reads no bookkeeping as an object", async () => {
    const rendered = [obj('Namespace', 'tenant-alice'), obj('ConfigMap', 'c', 'tenant-alice')];
    await writeOutputDir('deploy', tmp, rendered);
    // A file the user added to the tree: state, but not render's.
    fs.writeFileSync(
      path.join(tmp, 'deploy', 'extra.yaml'),
      'apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: x}\n',
    );
    const { state, treeHeld } = readState(['deploy'], io());
    expect(state.map(keyOf).sort()).toEqual([...rendered.map(keyOf), keyOf(obj('Secret', 's', 'x'))].sort());
    expect([...treeHeld].sort()).toEqual(rendered.map(keyOf).sort());
  });

  it('reads no Kustomization as cluster state, given by name or in a stream', () => {
    fs.writeFileSync(
      path.join(tmp, 'state.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata: {name: k}\nresources: [a.yaml]',
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}',
      ].join('\n---\n'),
    );
    fs.writeFileSync(
      path.join(tmp, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata: {name: k}\nresources: []\n',
    );
    const { state, treeHeld } = readState(['state.yaml', 'kustomization.yaml'], io());
    expect(state.map(keyOf)).toEqual([keyOf(obj('ConfigMap', 'c', 'n'))]);
    expect(treeHeld.size).toBe(0);
  });

  it('names --state in the error for a path that is not there', () => {
    let err: unknown;
    try {
      readState(['missing.yaml'], io());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FindingsError);
    expect((err as FindingsError).findings.map((f) => [f.file, f.message, /--state/.test(f.hint ?? '')])).toEqual([
      ['missing.yaml', 'no such file or directory', true],
    ]);
  });
});
