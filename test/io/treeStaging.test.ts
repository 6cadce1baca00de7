/**
 * Staging a tree's files (src/io/treeCommit.ts stageFile): the files come in output order, which
 * goes back and forth between folders (a tenant's namespace and `_cluster`); they are created in the
 * work area a folder at a time (docs/performance.md "Writing a tree"), and the tree is the same.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { KObject } from '../../src/k8s/model';
import { writeOutputDir } from '../../src/io/outputDir';
import { snapshot } from '../helpers/tree';
import { SafeDir } from '../../src/io/safeDir';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string): KObject =>
  ({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, data: { n: name } }) as KObject;

/** Ten tenants, each with namespaced objects and cluster-scoped ones of its own. */
const OBJECTS: KObject[] = Array.from({ length: 10 }, (_, i) => [
  obj('v1', 'Namespace', `tenant-${i}`),
  obj('v1', 'ConfigMap', `values-${i}`, `tenant-${i}`),
  obj('rbac.authorization.k8s.io/v1', 'Role', `role-${i}`, `tenant-${i}`),
  obj('rbac.authorization.k8s.io/v1', 'ClusterRole', `tenant-${i}-view`),
  obj('cilium.io/v2', 'CiliumClusterwideNetworkPolicy', `tenant-${i}-egress`),
]).flat();

const folderOf = (rel: string) => rel.slice(0, rel.lastIndexOf('/'));

/** The runs of one folder in a list of paths: [folder, count] each time the folder changes. */
function runs(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) if (out[out.length - 1] !== folderOf(p)) out.push(folderOf(p));
  return out;
}

test('files are staged a folder at a time, whatever the output order, and the tree is the same', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-staging-'));
  try {
    const labels: string[] = [];
    await writeOutputDir('deploy', tmp, OBJECTS, { step: (_n, l) => void labels.push(l) });
    const staged = labels.filter((l) => l.startsWith('stage ') && l !== 'stage record').map((l) => l.slice(6));
    const made = Object.keys(snapshot(path.join(tmp, 'deploy'))).filter((f) => f.endsWith('.yaml'));
    expect(staged.sort()).toEqual([...made].sort());
    // The order of output (kustomization.yaml's) goes back and forth between folders...
    const kustomization = fs.readFileSync(path.join(tmp, 'deploy', 'kustomization.yaml'), 'utf8');
    const order = [...kustomization.matchAll(/^ {2}- (.+)$/gm)].map((m) => m[1]);
    const folders = new Set(order.map(folderOf));
    expect(runs(order).length).toBeGreaterThan(folders.size);
    // ...where staging visits each folder once.
    const again: string[] = [];
    fs.rmSync(path.join(tmp, 'deploy'), { recursive: true });
    await writeOutputDir('deploy', tmp, OBJECTS, { step: (_n, l) => void again.push(l) });
    const stagedInOrder = again.filter((l) => l.startsWith('stage ') && l !== 'stage record').map((l) => l.slice(6));
    const visits = runs(stagedInOrder);
    for (const f of folders)
      expect({ folder: f, visits: visits.filter((v) => v === f).length }).toEqual({ folder: f, visits: 1 });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('a first write knows the folders DIR lacks from one listing of DIR, with no open that fails per folder', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-staging-'));
  const dir = jest.spyOn(SafeDir.prototype, 'dir');
  try {
    await writeOutputDir('deploy', tmp, OBJECTS);
    const folders = new Set(fs.readdirSync(path.join(tmp, 'deploy')));
    const looked = dir.mock.calls.map(([rel]) => rel).filter((rel) => folders.has(rel.split('/')[0]));
    // The folders moved in whole are reached only by the commit's renames, never looked up one by one.
    expect(looked).toEqual([]);
    expect(snapshot(path.join(tmp, 'deploy'))['tenant-3/configmap-values-3.yaml']).toContain('values-3');
  } finally {
    dir.mockRestore();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
