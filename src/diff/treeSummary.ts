/**
 * What one controller pass makes of a tree alone, release by release (docs/performance.md
 * "Changed-only"). A diff against a tree starts from that pass (diff.ts, its baseline); a
 * changed-only diff runs it over the part of the tree its change touches, and takes the rest of the
 * platform from here: how many objects the pass creates, changes or deletes in each release's
 * namespace (the drift the diff counts) and how many warnings it gives about them (the warnings it
 * counts and does not repeat). Render makes the summary as it writes the tree, with the values it
 * renders with, the reproducible clock (the diff's default; the clock only dates conditions) and
 * the Cilium version given (by default the shipped one, the diff's default). There is none (a diff
 * then runs the pass over the whole tree) where a release's part of the pass is not its own: an
 * error, a change or a warning outside every release's namespace, a Gateway that shares an LB key
 * (the Cilium hazard that reads Gateways together), a tenant Namespace whose gateway label the pass
 * rewrites. Pure.
 */
import type { CozystackVersion } from '../platform/cozystackVersions';
import { hasErrors, type Finding } from '../k8s/diagnostics';
import { groupOf, isNamespace, keyOf, type KObject } from '../k8s/model';
import { GROUPS } from '../k8s/store';
import { EPOCH } from '../k8s/time';
import { NS_LABEL_GATEWAY } from '../platform/names';
import { reconcile } from '../pipelines/reconcile';
import { compareStates } from './comparison';
import type { RenderedTree } from '../pipelines/render';

/** The groups of the kinds the controller pass reads or writes (docs/behaviour.md §5, §6, §8); of the core group, Namespaces and Secrets. */
const VIEW_GROUPS = new Set<string>([GROUPS.gateway, GROUPS.certManager, GROUPS.cozyGateway, GROUPS.cozy]);

/** An object the controller pass reads or writes: what a pass over a part of the tree must hold of it. */
export function isControllerView(o: KObject): boolean {
  const g = groupOf(o.apiVersion);
  return g === '' ? o.kind === 'Namespace' || o.kind === 'Secret' : VIEW_GROUPS.has(g);
}

export interface TreeSummary {
  ciliumVersion: string;
  upstreamCilium: boolean;
  /**
   * By release namespace: the objects the pass creates, changes or deletes there, the warnings
   * about them, and whether it labels the release's own Namespace as its Gateway's (the namespace
   * of a TenantGateway is held by it, docs/behaviour.md §5.6); releases with none of these left out.
   */
  releases: Map<string, { drift: number; warnings: number; relabel?: boolean }>;
}

/** A finding's identity: what it says, of what. */
function findingKey(f: Finding): string {
  return JSON.stringify([f.severity, f.rule, f.message, f.object, f.field]);
}

/** The namespace an object counts in: its own, or a Namespace's name. */
function namespaceOf(o: { metadata?: { namespace?: string; name?: string }; kind?: string }): string {
  return o.metadata?.namespace || (o.kind === 'Namespace' ? (o.metadata?.name ?? '') : '');
}

/** The Gateways whose LB sharing key ties them to others (ciliumHazards.ts, cilium.sharing-key-port-collision). */
function sharesKey(o: KObject): boolean {
  if (o.kind !== 'Gateway' || groupOf(o.apiVersion) !== GROUPS.gateway) return false;
  const spec = (o.spec ?? {}) as { infrastructure?: { annotations?: Record<string, unknown> } };
  return Boolean(
    spec.infrastructure?.annotations?.['lbipam.cilium.io/sharing-key'] ??
    o.metadata.annotations?.['lbipam.cilium.io/sharing-key'],
  );
}

/**
 * The summary of one pass over `objects` (a tree's), whose release namespaces are `releases`;
 * undefined where the pass is not the releases' own (see the module comment).
 */
export function summarizePass(
  objects: readonly KObject[],
  releases: ReadonlySet<string>,
  valuesFiles: { file: string; values: Record<string, unknown> }[],
  opts: { ciliumVersion?: string; upstreamCilium?: boolean; cozystack?: CozystackVersion } = {},
): TreeSummary | undefined {
  const view = objects.filter(isControllerView);
  const passOver = (objs: KObject[]) =>
    reconcile(
      { objects: objs, valuesFiles: valuesFiles.length ? valuesFiles : undefined },
      { now: EPOCH, ciliumVersion: opts.ciliumVersion, upstreamCilium: opts.upstreamCilium, cozystack: opts.cozystack },
    );
  const pass = passOver(view);
  // What a pass gives over nothing (the values channel's own warnings: its source Secret missing)
  // every pass over a part of the tree gives too: not a release's.
  const anyPass = new Set(passOver([]).findings.map(findingKey));
  if (hasErrors(pass.findings)) return undefined;
  const after = pass.store.all();
  const c = compareStates(view, after);
  const out = new Map<string, { drift: number; warnings: number; relabel?: boolean }>();
  const at = (ns: string) => {
    let e = out.get(ns);
    if (!e) out.set(ns, (e = { drift: 0, warnings: 0 }));
    return e;
  };
  for (const o of [...c.created, ...c.deleted, ...c.changed.map((x) => x.after)]) {
    const ns = namespaceOf(o);
    if (!releases.has(ns)) return undefined;
    at(ns).drift++;
  }
  // A Namespace labelled anew as its own Gateway's is that Gateway's as the record says; labelled
  // as another one's, the record's publishers would not be the pass's.
  for (const x of c.changed) {
    if (!isNamespace(x.after)) continue;
    const label = x.after.metadata.labels?.[NS_LABEL_GATEWAY];
    if (x.before.metadata.labels?.[NS_LABEL_GATEWAY] === label) continue;
    if (label !== x.after.metadata.name) return undefined;
    at(label).relabel = true;
  }
  for (const f of pass.findings) {
    if (f.severity !== 'warning' || !f.object || anyPass.has(findingKey(f))) continue;
    const ns = namespaceOf({ kind: f.object.kind, metadata: f.object });
    if (!releases.has(ns)) return undefined;
    at(ns).warnings++;
  }
  if (after.some(sharesKey)) return undefined;
  const cilium = pass.ciliumVersion ?? '';
  return { ciliumVersion: cilium, upstreamCilium: Boolean(opts.upstreamCilium), releases: out };
}

/** What a format-4 record keeps of the render as a whole (its platform line) and of each release (its release line). */
export interface TreeFacts {
  /** The platform digest (treeInputs.ts). */
  platform: string;
  /** A Namespace among the render's inputs carried a uid (treeInputs.ts uidsGiven): the releases' digests hold what the Tenants do not show. */
  uids?: boolean;
  /** The summary's Cilium version and image, when the record holds a summary. */
  pass?: { cilium: string; upstream: boolean };
  releases: Map<string, ReleaseFact>;
}

export interface ReleaseFact {
  inputs: string;
  /** The tenant namespace whose Gateway it publishes through ('' for none). */
  gateway: string;
  owns: boolean;
  /** Its templates gave findings when the tree was rendered. */
  findings: boolean;
  /** The summary's count of objects the pass changes in its namespace, and of warnings about them. */
  drift: number;
  warnings: number;
  /** The pass labels its Namespace as its own Gateway's (the file does not). */
  relabel: boolean;
}

/** The facts of a render and of its pass over the tree, as the record's lines hold them. */
export function treeFacts(tree: RenderedTree, summary: TreeSummary | undefined): TreeFacts {
  const releases = new Map<string, ReleaseFact>();
  for (const r of tree.releases) {
    const s = summary?.releases.get(r.namespace);
    releases.set(r.namespace, {
      inputs: r.inputs,
      gateway: r.gateway,
      owns: r.owns,
      findings: r.findings,
      drift: s?.drift ?? 0,
      warnings: s?.warnings ?? 0,
      relabel: s?.relabel ?? false,
    });
  }
  return {
    platform: tree.platform,
    ...(tree.uids ? { uids: true } : {}),
    ...(summary ? { pass: { cilium: summary.ciliumVersion, upstream: summary.upstreamCilium } } : {}),
    releases,
  };
}

/** The record's platform line and release lines (only what is set, so that a record stays small). */
export function factLines(f: TreeFacts): {
  platform: Record<string, unknown>;
  releases: Map<string, Record<string, unknown>>;
} {
  const releases = new Map<string, Record<string, unknown>>();
  for (const [ns, r] of f.releases)
    releases.set(ns, {
      inputs: r.inputs,
      ...(r.gateway ? { gateway: r.gateway } : {}),
      ...(r.owns ? { owns: true } : {}),
      ...(r.findings ? { findings: true } : {}),
      ...(r.drift ? { drift: r.drift } : {}),
      ...(r.warnings ? { warnings: r.warnings } : {}),
      ...(r.relabel ? { relabel: true } : {}),
    });
  return {
    platform: { inputs: f.platform, ...(f.uids ? { uids: true } : {}), ...(f.pass ? { pass: f.pass } : {}) },
    releases,
  };
}

/** The facts a format-4 record's lines hold; undefined when they are not whole (a record of another writer). */
export function readFacts(
  platform: Record<string, unknown> | undefined,
  releases: readonly { namespace: string; info: Record<string, unknown> }[],
): TreeFacts | undefined {
  if (typeof platform?.inputs !== 'string') return undefined;
  const pass = platform.pass as { cilium?: unknown; upstream?: unknown } | undefined;
  const out: TreeFacts = {
    platform: platform.inputs,
    ...(platform.uids === true ? { uids: true } : {}),
    ...(pass && typeof pass.cilium === 'string'
      ? { pass: { cilium: pass.cilium, upstream: pass.upstream === true } }
      : {}),
    releases: new Map(),
  };
  const count = (x: unknown) => (Number.isSafeInteger(x) && (x as number) > 0 ? (x as number) : 0);
  for (const { namespace, info } of releases) {
    if (namespace === '') continue;
    if (typeof info.inputs !== 'string') return undefined;
    out.releases.set(namespace, {
      inputs: info.inputs,
      gateway: typeof info.gateway === 'string' ? info.gateway : '',
      owns: info.owns === true,
      findings: info.findings === true,
      drift: count(info.drift),
      warnings: count(info.warnings),
      relabel: info.relabel === true,
    });
  }
  return out;
}

/** The release each object of a tree belongs to: the one that rendered it, else the release whose namespace it is in (the controller's objects), else none (''). */
export function releaseOfObject(tree: RenderedTree): (o: KObject) => string {
  const namespaces = new Set(tree.releases.map((r) => r.namespace));
  return (o) => {
    const r = tree.releaseOf.get(keyOf(o));
    if (r !== undefined) return r;
    const ns = namespaceOf(o);
    return namespaces.has(ns) ? ns : '';
  };
}
