/**
 * The example platform as a live cluster holds it (docs/decisions.md §4, §C8), for the tests that
 * snapshot one (test/e2e/liveSnapshot.test.ts: main's; test/versions/liveSnapshot.test.ts: v1.6.2's).
 * The repository's tenants directory with the cluster's own objects apart (`cluster/`), rendered
 * as CI renders it (offline, nothing to look up: no parent ownerReference), applied by Flux, the
 * cluster's own objects applied by hand (kubectl), and one controller pass over the cluster, each
 * object as the API server returns it (test/helpers/apiServer.ts liveCluster).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import type { KObject } from '../../src/k8s/model';
import { liveCluster } from './apiServer';
import { ROOT } from './cli';

const EXAMPLE = path.join(ROOT, 'examples', 'platform');

/** The objects of a YAML stream, a List's items among them. */
export const loadObjects = (text: string): KObject[] =>
  (jsyaml.loadAll(text) as KObject[])
    .filter((o) => o && o.kind)
    .flatMap((o) => (o.kind === 'List' ? (o as unknown as { items: KObject[] }).items : [o]));

export interface LiveExample {
  /** What render wrote (also in `rendered.yaml`). */
  rendered: KObject[];
  /** The cluster's own objects, applied by hand. */
  own: KObject[];
  /** The cluster after the controller's pass, as the API server returns it. */
  live: KObject[];
}

/**
 * Build the live example in dir: `values.yaml`, `tenants/`, `cluster/` (cluster-state.yaml and what
 * `ownFiles` writes there), `rendered.yaml` and `applied.yaml`. `flags`: the version's, given to
 * render and reconcile alike; `extra`: objects the cluster holds besides (a release's own
 * Deployments and ConfigMaps).
 */
export async function liveExample(
  dir: string,
  must: (args: string[]) => Promise<string>,
  o: { now: string; flags?: string[]; ownFiles?: Record<string, string>; extra?: KObject[] },
): Promise<LiveExample> {
  const flags = o.flags ?? [];
  fs.cpSync(path.join(EXAMPLE, 'tenants'), path.join(dir, 'tenants'), { recursive: true });
  fs.copyFileSync(path.join(EXAMPLE, 'values.yaml'), path.join(dir, 'values.yaml'));
  fs.mkdirSync(path.join(dir, 'cluster'));
  fs.renameSync(path.join(dir, 'tenants', 'cluster-state.yaml'), path.join(dir, 'cluster', 'cluster-state.yaml'));
  for (const [name, text] of Object.entries(o.ownFiles ?? {})) fs.writeFileSync(path.join(dir, 'cluster', name), text);
  const text = await must(['render', ...flags, '--values', 'values.yaml', '-f', 'tenants', '-f', 'cluster']);
  fs.writeFileSync(path.join(dir, 'rendered.yaml'), text);
  const rendered = loadObjects(text);
  const own = fs
    .readdirSync(path.join(dir, 'cluster'))
    .sort()
    .flatMap((f) => loadObjects(fs.readFileSync(path.join(dir, 'cluster', f), 'utf8')));
  fs.writeFileSync(
    path.join(dir, 'applied.yaml'),
    jsyaml.dump({ apiVersion: 'v1', kind: 'List', items: liveCluster([...rendered, ...own], rendered, own) }),
  );
  const after = await must([
    'reconcile',
    ...flags,
    '--all',
    '--include-secret-data',
    '--values',
    'values.yaml',
    '-f',
    'applied.yaml',
    '--now',
    o.now,
  ]);
  return { rendered, own, live: liveCluster([...loadObjects(after), ...(o.extra ?? [])], rendered, own) };
}
