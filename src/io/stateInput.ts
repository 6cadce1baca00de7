/**
 * diff's `--state` (docs/commands/diff.md): the cluster state read from a snapshot, an earlier
 * `reconcile --all` output or a committed `render --output-dir` tree, and which of its objects
 * such a tree holds as render's own (the files its record names), so that diff knows what render
 * owns. A tree's kustomization and cozy-gw's own files are not objects (src/io/outputDir.ts says
 * which), nor is a kustomization given by name or inside a stream.
 */
import * as path from 'node:path';
import { keyOf, type KObject } from '../k8s/model';
import { readInputs, type SourceMap } from './inputs';
import { isTreeBookkeeping, readTree } from './outputDir';

export interface StateInput {
  /** Every object of the state, in reading order. */
  state: KObject[];
  sources: SourceMap;
  /** Keys (keyOf) of the state objects a committed render tree holds as render's own. */
  treeHeld: Set<string>;
}

/** A kustomize Kustomization: how a tree is applied, not an object of the cluster. */
function isKustomization(o: KObject): boolean {
  return o.kind === 'Kustomization' && o.apiVersion.startsWith('kustomize.config.k8s.io/');
}

/** The files the records of the given trees name (absolute paths); none for a path that is no tree. */
function recordedFiles(paths: string[], cwd: string): Set<string> {
  const recorded = new Set<string>();
  for (const p of paths) {
    if (p === '-') continue;
    const dir = path.resolve(cwd, p);
    for (const f of readTree(dir)?.files ?? []) recorded.add(path.join(dir, f.path));
  }
  return recorded;
}

/** Read `--state`. Throws FindingsError with every problem of every source at once. */
export function readState(paths: string[], io: { readStdin: () => string; cwd: string }): StateInput {
  const { objects, sources } = readInputs(paths, {
    readStdin: io.readStdin,
    cwd: io.cwd,
    flag: '--state',
    skip: (f) => paths.every((p) => p !== f) && isTreeBookkeeping(f),
  });
  const recorded = recordedFiles(paths, io.cwd);
  const state = objects.filter((o) => !isKustomization(o));
  const treeHeld = new Set<string>();
  if (recorded.size)
    for (const o of state) {
      const file = sources.originOf(o)?.file;
      if (file && recorded.has(path.resolve(io.cwd, file))) treeHeld.add(keyOf(o));
    }
  return { state, sources, treeHeld };
}
