/**
 * The unified diff of a changed object (docs/commands/diff.md "What it does") at the CLI: the lines
 * that changed, never a member the change left alone moved (a live object's uid, resourceVersion
 * and creationTimestamp after the labels the change gave), whether the state is a `reconcile
 * --all` output (kubectl apply) or a snapshot (server-side apply).
 */
import * as jsyaml from 'js-yaml';
import { useScratch } from '../helpers/cli';
import { liveCluster } from '../helpers/apiServer';
import type { KObject } from '../../src/k8s/model';

const scratch = useScratch('cozy-gw-field-order-');
const dump = (objs: KObject[]) => objs.map((o) => jsyaml.dump(o)).join('---\n');

async function diffOf(state: KObject[], change: KObject) {
  scratch.write('state.yaml', dump(state));
  scratch.write('change.yaml', dump([change]));
  return scratch.cli(['diff', '--state', 'state.yaml', '-f', 'change.yaml', '--now', '2026-01-01T00:00:00Z']);
}

describe('the unified diff of a changed object shows what changed, not the order of its fields', () => {
  it('a ConfigMap with labels, its uid, resourceVersion and creationTimestamp kept: only the data lines', async () => {
    const state: KObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        namespace: 'tenant-a',
        uid: '0b8e0a5c-0000-4000-8000-000000000001',
        resourceVersion: '5',
        creationTimestamp: '2026-01-01T00:00:00Z',
        labels: { a: '1' },
      },
      data: { x: '1' },
    };
    const change: KObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'tenant-a', labels: { a: '1' } },
      data: { x: '2' },
    };
    const applied: KObject = { ...change, data: { x: '1' } };
    for (const [what, st] of [
      ['a reconcile output (kubectl apply)', state],
      ['a snapshot (server-side apply)', liveCluster([applied], [applied])[0]],
    ] as const) {
      const r = await diffOf([st], change);
      const lines = r.stdout.split('\n').filter((l) => /^[-+] /.test(l));
      expect({ what, code: r.code, lines }).toEqual({ what, code: 3, lines: ['-  x: "1"', '+  x: "2"'] });
    }
  });
});
