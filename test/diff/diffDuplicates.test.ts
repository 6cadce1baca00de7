/**
 * diff's inputs given twice: the one duplicate rule (src/k8s/duplicates.ts), as admit, render and
 * reconcile report it: a finding at each copy, in the state (`--state`) and in the change (`-f`).
 */
import { diff } from '../../src/diff/diff';
import type { KObject } from '../../src/k8s/model';

const NOW = '2026-01-01T00:00:00Z';
const cm = (name: string, data = 'x'): KObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'tenant-root' }, data: { a: data } }) as KObject;

describe('diff: an object given twice', () => {
  it('is a finding at each copy in the state, naming --state in its hint', () => {
    const first = cm('c');
    const second = cm('c', 'y');
    const d = diff({ state: [first, second, cm('other')], objects: [], valuesFiles: [] }, { now: NOW });
    expect(d.findings.map((f) => [f.rule, f.message, f.instance === first || f.instance === second, f.hint])).toEqual([
      [
        'input.duplicate',
        'given 2 times in the state (--state); this is copy 1 of 2',
        true,
        expect.stringContaining('--state'),
      ],
      [
        'input.duplicate',
        'given 2 times in the state (--state); this is copy 2 of 2',
        true,
        expect.stringContaining('--state'),
      ],
    ]);
    expect(d.findings.map((f) => f.instance)).toEqual([first, second]);
  });

  it('is a finding at each copy in the change', () => {
    const d = diff({ state: [], objects: [cm('c'), cm('c'), cm('c')], valuesFiles: [] }, { now: NOW });
    expect(d.findings.map((f) => [f.severity, f.message])).toEqual([
      ['error', 'given 3 times in the change (-f); this is copy 1 of 3'],
      ['error', 'given 3 times in the change (-f); this is copy 2 of 3'],
      ['error', 'given 3 times in the change (-f); this is copy 3 of 3'],
    ]);
  });
});
