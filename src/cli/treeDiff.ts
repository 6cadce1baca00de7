/**
 * `diff --state DIR` against a committed tree, changed-only (docs/performance.md "Changed-only";
 * the plan is src/diff/changedOnly.ts): the record's head is read, the change planned against it,
 * and only the files the plan names are read (every file of the releases it renders, the
 * controller's objects of the other namespaces its passes run over, the admission policies; for
 * `-o markdown` and `-o html`, whose tenant tree draws the whole platform, every Namespace and
 * TenantGateway). The whole tree is diffed instead (`full`, with why) wherever the plan says so or DIR holds
 * more than the tree (an entry of its own the record does not know), the record is unfinished or
 * changes under the reader, a file cannot be read, or the diff finds an error (whose every
 * instance a whole diff names).
 *
 * What it trusts: that the tree's files hold what the record says render wrote (`diff --full` reads
 * them all, and sees a file edited or removed by hand).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hasErrors } from '../k8s/diagnostics';
import { keyOf, type KObject } from '../k8s/model';
import { FindingsError } from '../k8s/diagnostics';
import { readInputs } from '../io/inputs';
import { readTreeBlocks, readTreeHead, segment, type TreeFile, type TreeHead } from '../io/outputDir';
import { isTreeBookkeeping } from '../io/treeFiles';
import type { SourceMap } from '../io/sourceMap';
import { diff, shapedBy, type DiffOptions, type DiffResult } from '../diff/diff';
import { planChangedOnly, type ChangedOnlyPlan } from '../diff/changedOnly';
import { isControllerView, readFacts, type TreeFacts } from '../diff/treeSummary';
import { buildIdentity } from './version';
import { TENANT_ROOT } from '../platform/tenancy';
import { isTenant } from '../platform/kinds';
import { tenantChecks } from '../charts/tenantChart';

export interface TreeDiffRequest {
  /** `--state`, as given (one path: a committed tree). */
  state: string;
  cwd: string;
  sources: SourceMap;
  objects: KObject[];
  valuesFiles: { file: string; values: Record<string, unknown> }[];
  prune?: boolean;
  /** Whether the report draws the whole tenant tree (`-o markdown`, `-o html`). */
  wholeTree: boolean;
}

/** Whether DIR holds the tree alone: every entry of its own a release's folder, a folder the record names, or bookkeeping. */
export function treeAlone(dir: string, head: TreeHead, facts: TreeFacts): boolean {
  const folders = new Set(head.folders);
  for (const ns of facts.releases.keys()) folders.add(segment(ns));
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (isTreeBookkeeping(e.name)) continue;
    if (!e.isDirectory() || !folders.has(e.name)) return false;
  }
  return true;
}

/** The files the plan reads, by release: all of those it renders and of the policies', the controller's of the others. */
function planFiles(plan: ChangedOnlyPlan, facts: TreeFacts): { whole: string[]; view: string[] } {
  const whole = [...plan.render].filter((ns) => facts.releases.has(ns));
  whole.push('');
  const view = [...plan.touched].filter((ns) => facts.releases.has(ns) && !plan.render.has(ns));
  return { whole, view };
}

/** The Namespace and TenantGateway files of the releases the plan does not touch, for the report's tenant tree. */
function treeViewPaths(plan: ChangedOnlyPlan, facts: TreeFacts, ext: string): string[] {
  const out: string[] = [];
  for (const [ns, r] of facts.releases) {
    if (plan.touched.has(ns)) continue;
    out.push(`_cluster/namespace-${segment(ns)}.${ext}`);
    if (r.owns) out.push(`${segment(ns)}/tenantgateway-cozystack.${ext}`);
  }
  return out;
}

/**
 * The Namespaces the releases the plan does not render make: each its own, and tenant-root's
 * release the platform's too (cozystack-basics), as its block lists them.
 */
function unrenderedNamespaces(plan: ChangedOnlyPlan, facts: TreeFacts, rootBlock: TreeFile[]): Set<string> {
  const out = new Set<string>();
  for (const ns of facts.releases.keys()) if (!plan.render.has(ns)) out.add(ns);
  if (!plan.render.has(TENANT_ROOT))
    for (const f of rootBlock)
      if (f.object?.kind === 'Namespace' && f.object.apiVersion === 'v1') out.add(f.object.name);
  return out;
}

/** Paths in the order a directory is read in (src/io/inputs.ts: each folder's names sorted, folders walked in place). */
function byFolderOrder(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length - y.length;
}

/** Read files of the tree (relative paths) as the state, in the order a read of DIR gives them; undefined when one cannot be read. */
function readTreeFiles(req: TreeDiffRequest, rels: string[]): KObject[] | undefined {
  if (!rels.length) return [];
  try {
    return readInputs(
      [...rels].sort(byFolderOrder).map((r) => path.join(req.state, r)),
      { cwd: req.cwd, flag: '--state', sources: req.sources },
    ).objects;
  } catch (e) {
    if (e instanceof FindingsError) return undefined;
    throw e;
  }
}

/** The changed-only diff (see the module comment), or why the whole tree is to be diffed. */
export function changedOnlyDiff(
  req: TreeDiffRequest,
  optionsFor: (recordedVersion: string | undefined) => DiffOptions,
): { result: DiffResult } | { full: string } {
  const dir = path.resolve(req.cwd, req.state);
  const head = readTreeHead(dir);
  if (!head) return { full: 'no record of format 4' };
  if (head.unfinished) return { full: 'a run left its work in the tree' };
  const facts = readFacts(head.making.platform, head.releases);
  if (!facts) return { full: 'a record without the facts of its releases' };
  if (!treeAlone(dir, head, facts)) return { full: 'the directory holds more than the tree' };
  const chosen = optionsFor(head.making.shape.cozystackVersion);
  // The plan and the diff render the same Tenants: each one's own checks made once, here.
  const checks = tenantChecks(
    [...head.making.tenants, ...req.objects.filter(isTenant)],
    chosen.cozystack?.behaviour,
    head.making.checked ? head.making.tenants : [],
  );
  const opts = { ...chosen, tenantChecks: checks };
  const planned = planChangedOnly(
    { tenants: head.making.tenants, facts },
    { objects: req.objects, valuesFiles: req.valuesFiles, prune: req.prune },
    { ...shapedBy(opts, head.making.shape), build: buildIdentity(), wholeTree: req.wholeTree },
  );
  if ('full' in planned) return planned;
  const plan = planned.plan;
  const { whole, view } = planFiles(plan, facts);
  const blocks = readTreeBlocks(dir, head, [...whole, ...view, TENANT_ROOT]);
  if (!blocks) return { full: 'the record changed while it was read' };
  const isView = (f: TreeFile) =>
    f.object !== undefined && isControllerView({ apiVersion: f.object.apiVersion, kind: f.object.kind } as KObject);
  const wholeFiles = whole.flatMap((ns) => blocks.get(ns) ?? []).map((f) => f.path);
  const viewFiles = view.flatMap((ns) => (blocks.get(ns) ?? []).filter(isView)).map((f) => f.path);
  const wholeObjects = readTreeFiles(req, wholeFiles);
  const viewObjects = readTreeFiles(req, viewFiles);
  const ext = head.fileFormat === 'json' ? 'json' : 'yaml';
  const outside = req.wholeTree ? readTreeFiles(req, treeViewPaths(plan, facts, ext)) : [];
  if (!wholeObjects || !viewObjects || !outside) return { full: 'a file of the tree cannot be read' };
  const state = [...wholeObjects, ...viewObjects];
  const result = diff(
    {
      state,
      treeHeld: new Set(state.map(keyOf)),
      tree: {
        shape: head.making.shape,
        tenants: head.making.tenants,
        ...(head.making.values !== undefined ? { values: head.making.values } : {}),
      },
      objects: req.objects,
      valuesFiles: req.valuesFiles,
      prune: req.prune,
      only: {
        render: plan.render,
        held: new Set(wholeObjects.map(keyOf)),
        outside: plan.outside,
        namespaces: unrenderedNamespaces(plan, facts, blocks.get(TENANT_ROOT) ?? []),
        view: outside,
      },
    },
    opts,
  );
  return hasErrors(result.findings) ? { full: 'the diff finds an error' } : { result };
}
