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
import { readTree, RECORD, type TreeMaking } from './outputDir';
import { error, FindingsError, type Finding } from '../k8s/diagnostics';

export interface StateInput {
  /** Every object of the state, in reading order. */
  state: KObject[];
  sources: SourceMap;
  /** Keys (keyOf) of the state objects a committed render tree holds as render's own. */
  treeHeld: Set<string>;
  /**
   * How the committed trees among the paths were written and the Tenants they were rendered from
   * (their records, format 3); undefined when no path is a tree.
   */
  tree?: TreeMaking;
}

/** A kustomize Kustomization: how a tree is applied, not an object of the cluster. */
function isKustomization(o: KObject): boolean {
  return o.kind === 'Kustomization' && o.apiVersion.startsWith('kustomize.config.k8s.io/');
}

/**
 * The files the records of the given trees name (absolute paths; none for a path that is no tree),
 * and how the trees were written. A record of an earlier format holds neither the options nor the
 * Tenants: refused, with how to rewrite the tree (docs/decisions.md §C14).
 */
function recordedFiles(paths: string[], cwd: string): { recorded: Set<string>; tree?: TreeMaking } {
  const recorded = new Set<string>();
  const findings: Finding[] = [];
  let tree: TreeMaking | undefined;
  for (const p of paths) {
    if (p === '-') continue;
    const dir = path.resolve(cwd, p);
    const record = readTree(dir);
    if (!record) continue;
    for (const f of record.files) recorded.add(path.join(dir, f.path));
    if (!record.making) {
      findings.push(
        error(
          `--state ${p}: the tree's record (${RECORD}, format ${record.format}, written by an earlier cozy-gw) holds neither the options that shaped the tree nor the Tenants it was rendered from, so a change cannot be rendered the same way`,
          {
            rule: 'diff.tree-record-format',
            file: p,
            hint: `write the tree again with this version (cozy-gw render with the same inputs and options --output-dir ${p}), commit it, and diff against it`,
          },
        ),
      );
      continue;
    }
    tree = tree
      ? { shape: tree.shape, tenants: [...tree.tenants, ...record.making.tenants], values: tree.values }
      : {
          shape: record.making.shape,
          tenants: [...record.making.tenants],
          ...(record.making.values !== undefined ? { values: record.making.values } : {}),
        };
  }
  if (findings.length) throw new FindingsError(findings);
  return { recorded, tree };
}

/** Read `--state`. Throws FindingsError with every problem of every source at once. */
export function readState(paths: string[], io: { readStdin: () => string; cwd: string }, into?: SourceMap): StateInput {
  const { objects, sources } = readInputs(paths, {
    readStdin: io.readStdin,
    cwd: io.cwd,
    flag: '--state',
    sources: into,
  });
  const { recorded, tree } = recordedFiles(paths, io.cwd);
  const state = objects.filter((o) => !isKustomization(o));
  const treeHeld = new Set<string>();
  if (recorded.size)
    for (const o of state) {
      const file = sources.originOf(o)?.file;
      if (file && recorded.has(path.resolve(io.cwd, file))) treeHeld.add(keyOf(o));
    }
  return { state, sources, treeHeld, ...(tree ? { tree } : {}) };
}
