/**
 * formatReconcile (src/reports/reconcileOutput.ts), without the CLI: the JSON shape, the
 * deletion note (with --all, absent from the output), the note of a pass with nothing to do, the
 * findings for standard error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { TESTDATA } from '../helpers/cli';
import { reconcile } from '../../src/pipelines/reconcile';
import { emittedObjects, formatReconcile } from '../../src/reports/reconcileOutput';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';

const INPUTS = path.join(TESTDATA, 'golden', 'reconcile', '_inputs');
const NOW = '2026-01-01T00:00:00Z';
const load = (f: string) =>
  (jsyaml.loadAll(fs.readFileSync(path.join(INPUTS, f), 'utf8')) as KObject[]).filter(Boolean);
const objects = load('wildcard.yaml');
const values = jsyaml.load(fs.readFileSync(path.join(INPUTS, 'wildcard-values.yaml'), 'utf8')) as Record<
  string,
  unknown
>;
const pass = reconcile({ objects, valuesFiles: [{ file: 'v', values }] }, { now: NOW });
const text = (out: { stdout: Iterable<string> }) => [...out.stdout].join('');
const DELETES = 'note: the pass deletes 2 objects: Secret tenant-bob/old-wildcard, Secret tenant-dave/wildcard-tls';

describe('formatReconcile', () => {
  it('-o json: changed, then deleted as apiVersion, kind, namespace, name; the deletions are in the JSON, not a note', () => {
    const out = formatReconcile(pass, objects, { output: 'json', now: NOW });
    const doc = JSON.parse(text(out));
    expect(Object.keys(doc)).toEqual(['changed', 'deleted']);
    expect(doc.deleted).toEqual([
      { apiVersion: 'v1', kind: 'Secret', namespace: 'tenant-bob', name: 'old-wildcard' },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'tenant-dave', name: 'wildcard-tls' },
    ]);
    expect(out.notes.filter((n) => n.includes('deletes'))).toEqual([]);
    const all = JSON.parse(text(formatReconcile(pass, objects, { output: 'json', all: true, now: NOW })));
    expect(Object.keys(all)).toEqual(['changed', 'deleted', 'objects']);
  });

  it('-o yaml: the deletions in a note, with --all said to be absent from the output', () => {
    expect(formatReconcile(pass, objects, { output: 'yaml', now: NOW }).notes).toContain(DELETES);
    expect(formatReconcile(pass, objects, { output: 'yaml', all: true, now: NOW }).notes).toContain(
      `${DELETES} (absent from the output)`,
    );
  });

  it('--all -o yaml builds no change record: the deletions come from the store, the changes are not asked for', () => {
    const fresh = reconcile({ objects, valuesFiles: [{ file: 'v', values }] }, { now: NOW });
    const spy = jest.spyOn(Store.prototype, 'changes');
    try {
      const out = formatReconcile(fresh, objects, { output: 'yaml', all: true, now: NOW });
      expect(text(out)).toContain('kind: Secret');
      expect(out.notes).toContain(`${DELETES} (absent from the output)`);
      expect(spy).not.toHaveBeenCalled();
      // Asked for, the changes are the store's, once.
      expect(fresh.changes.map((c) => c.op)).toContain('delete');
      expect(fresh.changes).toBe(fresh.changes);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('a pass with nothing to do says so, except with --all (the whole state is the output)', () => {
    const idle = reconcile({ objects: [] }, { now: NOW });
    expect(formatReconcile(idle, [], { output: 'yaml', now: NOW }).notes).toEqual([
      'note: nothing to create, change or delete',
    ]);
    expect(formatReconcile(idle, [], { output: 'yaml', all: true, now: NOW }).notes).toEqual([]);
  });

  it('-o plan: one account on stdout, no notes, and of the findings only the warnings for stderr', () => {
    const info = { severity: 'info' as const, message: 'an info finding' };
    const mixed = { ...pass, findings: [info, ...pass.findings] };
    const out = formatReconcile(mixed, objects, { output: 'plan', now: NOW });
    expect([...out.stdout]).toHaveLength(1);
    expect(out.notes).toEqual([]);
    expect(pass.findings.length).toBeGreaterThan(0);
    expect(out.findings).toEqual(pass.findings.filter((f) => f.severity === 'warning'));
    expect(out.findings).not.toContainEqual(info);
    expect(formatReconcile(mixed, objects, { output: 'yaml', now: NOW }).findings).toEqual(mixed.findings);
  });
});

describe('emittedObjects (what --validate checks)', () => {
  it('the whole state after the pass with --all, else only what it creates or changes: the objects the YAML output prints', () => {
    const key = (o: KObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const all = emittedObjects(pass, true);
    const changed = emittedObjects(pass, false);
    expect(all.map(key)).toEqual(pass.store.all().map(key));
    expect(changed.map(key)).toEqual(pass.store.changedObjects().map(key));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(all.length);
    const printed = (o: { output: string; all?: boolean }) =>
      (jsyaml.loadAll(text(formatReconcile(pass, objects, { ...o, now: NOW }))) as KObject[]).filter(Boolean).map(key);
    expect(printed({ output: 'yaml', all: true })).toEqual(all.map(key));
    expect(printed({ output: 'yaml' })).toEqual(changed.map(key));
  });
});
