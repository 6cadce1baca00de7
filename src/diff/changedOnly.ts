/**
 * A diff against a committed tree that renders and compares only what the change touches
 * (docs/performance.md "Changed-only"). The tree's record (format 4) keeps, per release, the
 * digest of its inputs (pipelines/treeInputs.ts), the tenant whose Gateway it publishes through,
 * whether it owns one, whether its templates gave findings, and what one controller pass makes of
 * its part of the tree (treeSummary.ts). From the change the plan works out, without reading the
 * tree's files:
 *
 * - the releases to render: those whose inputs' digest differs (changed, added, or, gone from the
 *   tree, removed), with the releases below them whose inherited values the change reaches (their
 *   digests differ too), the releases whose templates gave findings (rendered again, so that they
 *   give them as a whole render does), and the releases whose namespaces hold a given object
 *   (render's objects win over given ones); the digests made only along the part of the tenant
 *   tree the change reaches (walkedTenants), the others' taken from the record;
 * - the namespaces the controller passes run over: those releases', the Gateways they publish
 *   through before and after the change, every namespace publishing through those Gateways, and
 *   the Gateways the given routes name (the controller's view of a Gateway is its namespaces and
 *   their routes, docs/behaviour.md §5.8); what the pass over the rest of the tree adds (drift,
 *   warnings) is the record's summary;
 * - the files to read: every file of the releases rendered, and of the other namespaces the passes
 *   run over the objects the controller reads or writes (treeSummary.ts isControllerView), and the
 *   admission policies.
 *
 * The whole platform is diffed instead (a `full` reason) where a part cannot stand for it: the
 * platform digest differs (the platform values, the options the tree was written with, the build of
 * cozy-gw, the served APIs, the controller's values channel), the record holds no summary or one
 * made for another Cilium version, or a given object is not in a tenant's namespace (a cluster-scoped
 * object, a platform namespace's). Pure.
 */
import type { KObject } from '../k8s/model';
import { deepEqual, keyOf, isNamespace } from '../k8s/model';
import { TENANT_ROOT, tenantNamespaceOf } from '../platform/tenancy';
import { hasErrors, type Finding } from '../k8s/diagnostics';
import { isTenant } from '../platform/kinds';
import { renderGroups, type RenderOptions } from '../pipelines/render';
import { routeParentRefs, parentRefNamespace, type ParentRef } from '../k8s/gatewayApi';
import type { TreeFacts } from './treeSummary';

/** What the changed-only diff is given of the tree: its record's head. */
export interface TreeIndex {
  /** The Tenants the tree was rendered from. */
  tenants: KObject[];
  facts: TreeFacts;
}

/** The change, as the diff is given it. */
export interface ChangeInput {
  objects: KObject[];
  valuesFiles: { file: string; values: Record<string, unknown> }[];
  prune?: boolean;
}

export interface ChangedOnlyPlan {
  /** The releases rendered (by tenant namespace), in the tree before or after the change. */
  render: Set<string>;
  /** The namespaces the controller passes run over (render's among them). */
  touched: Set<string>;
  /** What the pass over the rest of the tree adds (the record's summary). */
  outside: { drift: number; warnings: number };
}

export type ChangedOnly = { plan: ChangedOnlyPlan } | { full: string };

/**
 * The Tenants whose releases the plan walks: those whose object differs from the tree's (changed or
 * added), every Tenant below one of them, below a Tenant gone from the tree or below a namespace
 * the change names otherwise (a Namespace given carries the uid its children's owner references
 * take), and every Tenant above those (whose values they inherit). Every other Tenant's release is
 * the record's: the same object under the same parents and platform has the same digest
 * (pipelines/treeInputs.ts releaseDigest), Gateway and ownership. Undefined where every Tenant is
 * walked (tenant-root's own Tenant changed). The walk itself finds any error the whole tree would
 * (a name two Tenants share, a quota over its parent's): the diff and the render that follow walk
 * the whole tree and fall back to the whole platform on an error.
 */
export function walkedTenants(
  after: readonly KObject[],
  recorded: readonly KObject[],
  named: ReadonlySet<string>,
): { walk: KObject[]; kept: KObject[] } | undefined {
  const nsOf = (t: KObject) => tenantNamespaceOf(t);
  const was = new Map(recorded.map((t) => [nsOf(t), t]));
  const changed = new Set(named);
  const present = new Set<string>();
  for (const t of after) {
    const ns = nsOf(t);
    present.add(ns);
    const twin = was.get(ns);
    if (!twin || !deepEqual(twin, t)) changed.add(ns);
  }
  for (const ns of was.keys()) if (!present.has(ns)) changed.add(ns);
  if (changed.has(TENANT_ROOT)) return undefined;
  // A tenant's namespace is its parent's and its name (tenantNamespace): below `c` is `c-...`.
  const below = (ns: string) => {
    for (let at = ns.indexOf('-'); at >= 0; at = ns.indexOf('-', at + 1)) if (changed.has(ns.slice(0, at))) return true;
    return changed.has(ns);
  };
  const byNs = new Map(after.map((t) => [nsOf(t), t]));
  const walk = new Set<KObject>();
  for (const t of after) {
    if (!below(nsOf(t))) continue;
    // It and the Tenants above it, up to tenant-root.
    for (let u: KObject | undefined = t; u && !walk.has(u); u = byNs.get(u.metadata.namespace ?? '')) walk.add(u);
  }
  for (const t of after) if (nsOf(t) === TENANT_ROOT) walk.add(t);
  return { walk: [...walk], kept: after.filter((t) => !walk.has(t)) };
}

/** The releases of a tree of Tenants: each one's digest, Gateway and whether it owns one; and the platform digest. */
function releasesOf(
  tenants: KObject[],
  change: ChangeInput,
  opts: RenderOptions & { build: string },
  tree?: { recorded: readonly KObject[]; facts: TreeFacts; named: ReadonlySet<string> },
): { platform: string; releases: Map<string, { inputs: string; gateway: string; owns: boolean }> } | undefined {
  const findings: Finding[] = [];
  const releases = new Map<string, { inputs: string; gateway: string; owns: boolean }>();
  let platform = '';
  const part = tree && walkedTenants(tenants, tree.recorded, tree.named);
  const objects = [...change.objects.filter((o) => !isTenant(o)), ...(part?.walk ?? tenants)];
  const none = { render: () => false, claims: () => false };
  for (const g of renderGroups(
    { objects, valuesFiles: change.valuesFiles },
    { ...opts, digests: { build: opts.build }, only: none, noteOmittedHooks: false, progress: undefined },
    findings,
  )) {
    if (!g.release) platform = g.platform ?? '';
    else
      releases.set(g.release.namespace, {
        inputs: g.inputs ?? '',
        gateway: g.release.values._namespace.gateway ?? '',
        owns: g.release.ownsGateway,
      });
  }
  if (hasErrors(findings)) return undefined;
  // The Tenants not walked: their releases as the record has them (none for one that failed there).
  for (const t of part?.kept ?? []) {
    const r = tree!.facts.releases.get(tenantNamespaceOf(t));
    if (r) releases.set(tenantNamespaceOf(t), { inputs: r.inputs, gateway: r.gateway, owns: r.owns });
  }
  return { platform, releases };
}

/** The Tenants of the tree the change leaves (diff.ts renderChange: the state's, each replaced by a given one; with prune, the given ones). */
export function changedTenants(stateTenants: KObject[], given: KObject[], prune?: boolean): KObject[] {
  if (prune) return given;
  const keys = new Set(given.map(keyOf));
  return [...stateTenants.filter((t) => !keys.has(keyOf(t))), ...given];
}

/** The namespaces the given objects are in (a Namespace: its own name); undefined when one is cluster-scoped otherwise. */
function givenNamespaces(objects: KObject[]): Set<string> | undefined {
  const out = new Set<string>();
  for (const o of objects) {
    if (isTenant(o)) continue;
    const ns = o.metadata.namespace || (isNamespace(o) ? o.metadata.name : '');
    if (!ns) return undefined;
    out.add(ns);
  }
  return out;
}

/** The namespaces of the Gateways a route names (spec.parentRefs) or carries status from (status.parents). */
function routeGateways(o: KObject): string[] {
  const ns = o.metadata.namespace ?? '';
  const refs = [...routeParentRefs(o)];
  const status = (o.status ?? {}) as { parents?: { parentRef?: unknown }[] };
  if (Array.isArray(status.parents)) for (const p of status.parents) refs.push(p?.parentRef);
  return refs
    .filter((r): r is ParentRef => r !== null && typeof r === 'object')
    .map((r) => parentRefNamespace(r, ns))
    .filter((x) => typeof x === 'string' && x !== '');
}

/**
 * The namespaces the controller's passes must run over for the seeds to be passed over as a whole
 * pass would: each seed's Gateways (before and after), every namespace publishing through a
 * Gateway taken, until nothing more comes in.
 */
function closure(
  seeds: Iterable<string>,
  gateways: Iterable<string>,
  sides: { gateway: (ns: string) => string[]; publishers: (gw: string) => string[] },
): Set<string> {
  const touched = new Set<string>();
  const taken = new Set<string>();
  const queue = [...seeds];
  const take = (gw: string) => {
    if (!gw || taken.has(gw)) return;
    taken.add(gw);
    queue.push(gw);
    for (const n of sides.publishers(gw)) queue.push(n);
  };
  for (const g of gateways) take(g);
  while (queue.length) {
    const ns = queue.pop()!;
    if (touched.has(ns)) continue;
    touched.add(ns);
    for (const g of sides.gateway(ns)) take(g);
  }
  return touched;
}

/**
 * The plan of a changed-only diff of `change` against the tree `index` (see the module comment),
 * or why the whole platform is diffed instead.
 */
export function planChangedOnly(
  index: TreeIndex,
  change: ChangeInput,
  opts: RenderOptions & { build: string; ciliumVersion?: string; upstreamCilium?: boolean; wholeTree?: boolean },
): ChangedOnly {
  const facts = index.facts;
  if (!facts.pass) return { full: "the tree's record holds no summary of the controller's pass" };
  if (facts.pass.cilium !== (opts.ciliumVersion ?? facts.pass.cilium).replace(/^v/, ''))
    return { full: 'another Cilium version than the one the record was summarized for' };
  if (facts.pass.upstream !== Boolean(opts.upstreamCilium)) return { full: 'another Cilium operator image' };
  const nss = givenNamespaces(change.objects);
  if (!nss) return { full: 'a given cluster-scoped object' };
  const given = change.objects.filter(isTenant);
  // A tree rendered with Namespace uids: every Tenant walked (walkedTenants).
  const after = releasesOf(
    changedTenants(index.tenants, given, change.prune),
    change,
    opts,
    facts.uids ? undefined : { recorded: index.tenants, facts, named: nss },
  );
  if (!after) return { full: 'the change does not render' };
  if (after.platform !== facts.platform) return { full: 'the platform digest differs' };
  const render = new Set<string>();
  for (const [ns, r] of after.releases) {
    const was = facts.releases.get(ns);
    if (!was || was.inputs !== r.inputs || was.findings) render.add(ns);
  }
  for (const [ns, r] of facts.releases) if (!after.releases.has(ns) || r.findings) render.add(ns);
  for (const ns of nss) {
    if (!facts.releases.has(ns) && !after.releases.has(ns)) return { full: `a given object in namespace ${ns}` };
    render.add(ns);
  }
  const routeGws = change.objects.flatMap((o) => (isTenant(o) ? [] : routeGateways(o)));
  // A report that draws the whole tenant tree reads every Namespace: one the pass labels anew is
  // passed over, so that the tree shows its label as the pass leaves it.
  const relabelled = opts.wholeTree ? [...facts.releases].filter(([, r]) => r.relabel).map(([ns]) => ns) : [];
  const touched = closure([...render, ...relabelled], routeGws, sidesOf(facts, after.releases));
  let drift = 0;
  let warnings = 0;
  for (const [ns, r] of facts.releases)
    if (!touched.has(ns)) {
      drift += r.drift;
      warnings += r.warnings;
    }
  return { plan: { render, touched, outside: { drift, warnings } } };
}

/** Each namespace's Gateways (the one it publishes through, its own), before and after; each Gateway's publishers. */
function sidesOf(
  facts: TreeFacts,
  after: ReadonlyMap<string, { gateway: string; owns: boolean }>,
): { gateway: (ns: string) => string[]; publishers: (gw: string) => string[] } {
  const publishers = new Map<string, string[]>();
  const add = (gw: string, ns: string) => {
    if (!gw) return;
    const l = publishers.get(gw);
    if (l) l.push(ns);
    else publishers.set(gw, [ns]);
  };
  for (const [ns, r] of facts.releases) add(r.gateway, ns);
  for (const [ns, r] of after) add(r.gateway, ns);
  const gateway = (ns: string) => {
    const out: string[] = [];
    for (const r of [facts.releases.get(ns), after.get(ns)]) {
      if (!r) continue;
      if (r.gateway) out.push(r.gateway);
      if (r.owns) out.push(ns);
    }
    return out;
  };
  return { gateway, publishers: (gw) => publishers.get(gw) ?? [] };
}
