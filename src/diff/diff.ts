/**
 * `cozy-gw diff`, the use case (docs/commands/diff.md): a change previewed against a
 * cluster state, so that only the change shows.
 *
 * 1. The baseline: one controller pass over the state alone (reconcile.ts; its values channel the
 *    state's own, else the values given), so that what a pass would change on the state by itself
 *    (drift, or a tree written without the controller's objects) is never attributed to the
 *    change; it is counted (`drift`). With the state alone (no change given) the baseline is the
 *    state itself, and the diff shows that drift.
 * 2. The change: the tenant tree rendered (render.ts) — the state's Tenants (a committed tree's
 *    are in its record, with the options it was written with, which the change is rendered with
 *    too), each replaced by a given Tenant of the same namespace and name, plus the given ones; with
 *    `prune` the given Tenants alone — and laid over the baseline with the other given objects as
 *    they will be applied (applyEmulation.ts: server-side apply by Flux over a live object, else
 *    `kubectl apply`). A rendered object wins over a given one.
 * 3. What leaves: what render produced for the state's tree and no longer produces (a tenant's
 *    TenantGateway when it gives up its Gateway; with `prune` a removed tenant's Namespace and
 *    cozystack-values Secret), and with it everything the API server deletes along
 *    (garbageCollection.ts): everything in a removed Namespace, whether the change holds it or not,
 *    and whatever a leaving object owns.
 * 4. One controller pass over the result, and the comparison with the baseline (comparison.ts),
 *    the hostname table of both passes (hostnames.ts), and the objects the change makes
 *    inadmissible on their next write (admissionLookahead.ts).
 *
 * A committed tree holds only what render wrote (its record, `treeHeld`), so: its Tenants are
 * its record's and never compared as objects (a Tenant given again is not "created"); the given
 * objects render does not write and the state does not hold (routes, the cluster's own Namespaces,
 * as `render --with-controller -f` read them) are the cluster the tree was rendered against, in the
 * baseline as in the change; and nothing render did not write there is deleted for being absent.
 * A live cluster Flux applied a tree to holds no Tenants either: there the objects carrying Flux's
 * labels are the tree's (Flux's inventory), and what render no longer produces of them leaves
 * (all of them with `prune`, as Flux prunes; else those in the given Tenants' namespaces).
 * Pure: objects in, result out; the two passes share the objects they do not change.
 */
import { hasErrors, warning, type Finding } from '../k8s/diagnostics';
import { duplicateFindings } from '../k8s/duplicates';
import { isNamespace, deepEqual, keyOf, refOf, type KObject } from '../k8s/model';
import { compareChanges, Store, type Change } from '../k8s/store';
import { masked } from '../k8s/secretMasking';
import { DIGEST_ANNOTATION, isRedacted } from '../k8s/secretRedaction';
import { isWeakDigest } from '../k8s/secretDigest';
import { isControllerOwned, findPlatformPackage, isTenant, isTenantGateway } from '../platform/kinds';
import { TENANT_ROOT, tenantNamespaceOf } from '../platform/tenancy';
import { readByRender, renderKept, renderedKeys, type RenderOptions } from '../pipelines/render';
import { valuesDigest } from '../charts/platformValues';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { reconcile, type ReconcileResult } from '../pipelines/reconcile';
import { hostnameTable, type HostnameRow } from './hostnames';
import { applyOver } from './applyEmulation';
import { withoutRedactionClaims } from './redactionClaims';
import { cascade, type Leaving } from './garbageCollection';
import { compareStates, differenceCount, type ChangedObject } from './comparison';
import { inadmissibleAfter, LOOKAHEAD_BUDGET, type InadmissibleObject, type Lookahead } from './admissionLookahead';
import { platformPolicies } from '../pipelines/admit';
import { isChannelSecret } from '../pipelines/platformChannel';
import { isStatusReason, statusChanges } from './statusChange';
import { pushAll } from '../k8s/arrays';
import type { TreeShape } from '../platform/treeShape';

export type { ChangedObject } from './comparison';

export type { TreeShape } from '../platform/treeShape';

export interface DiffInput {
  /** The cluster state now (`--state`). */
  state: KObject[];
  /** Keys (keyOf) of the state objects a committed render tree holds as render's own (its record). */
  treeHeld?: ReadonlySet<string>;
  /**
   * How a committed tree was written, the Tenants it was rendered from and the digest of its
   * platform values (its record).
   */
  tree?: { shape: TreeShape; tenants: KObject[]; values?: string };
  /** The given objects (`-f`): Tenants, and anything else the user means to apply. */
  objects: KObject[];
  /** Platform values files (`--values`), in order. */
  valuesFiles: { file: string; values: Record<string, unknown> }[];
  /** The given Tenants are the whole tree. */
  prune?: boolean;
  /**
   * A changed-only diff against a tree (changedOnly.ts, docs/performance.md "Changed-only"): the
   * state is the part of the tree the change touches; only these releases are rendered.
   */
  only?: ChangedOnlyScope;
}

/** What a changed-only diff is given beside its part of the tree. */
export interface ChangedOnlyScope {
  /** The releases (tenant namespaces) rendered. */
  render: ReadonlySet<string>;
  /** Keys of the state's objects of the releases rendered (their files were read whole): what render owned of them. */
  held: ReadonlySet<string>;
  /** What one pass over the rest of the tree adds: objects it changes (drift) and warnings about them. */
  outside: { drift: number; warnings: number };
  /** The Namespaces the releases not rendered make (as they made them for the tree). */
  namespaces: ReadonlySet<string>;
  /** The rest of the tree's Namespaces and TenantGateways, for the report's tenant tree (not passed over). */
  view?: KObject[];
}

export interface DiffOptions extends RenderOptions {
  now: string;
  ciliumVersion?: string;
  upstreamCilium?: boolean;
}

export interface DiffResult {
  findings: Finding[];
  /** In output order (render's: Namespaces, namespaced objects by namespace, cluster-scoped). Secrets masked. */
  created: KObject[];
  changed: ChangedObject[];
  deleted: KObject[];
  /** Secrets among `changed` whose data cannot be compared (a side left it out without a digest). */
  uncomparable: KObject[];
  /** Secrets of the state printed with the unsalted digest an earlier version wrote (guessable: src/k8s/secretDigest.ts). */
  weakDigests: number;
  hostnames: HostnameRow[];
  /** Why each object differs, by keyOf: what the change did to it, then what the pass did. */
  reasons: Map<string, string[]>;
  /** Tenant namespaces that leave with everything in them. */
  removedNamespaces: string[];
  /**
   * Keys (keyOf) of the given objects (`-f`): every finding about one of them reaches the reviewer,
   * whether or not its rendered output changed (a typo that removes a Gateway is named beside the removal).
   */
  given: ReadonlySet<string>;
  /** Whether render ran (the change touched the tenant tree or the platform values). */
  rendered: boolean;
  /** What the comparison starts from: one pass over the state (a change was given), or the state itself. */
  baseline: 'pass' | 'state';
  /** Objects one pass over the state alone creates, changes or deletes: not the change's (0 without a baseline pass). */
  drift: number;
  /** Objects the change leaves in place that the platform's policies would refuse on their next write. */
  inadmissible: InadmissibleObject[];
  /** The baseline's objects, Secrets masked (key material never leaves this use case). */
  before: KObject[];
  /** The pass after the change (for the plan's header: channel, Cilium version, findings). */
  pass?: ReconcileResult;
  /** Warnings about objects of the tree a changed-only diff did not pass over (counted, never repeated). */
  outsideWarnings?: number;
  /** The state is a committed render tree (its record names what render wrote there). */
  fromTree: boolean;
  /**
   * The platform values against those the tree was rendered with (its record's digest): `differ`
   * when the change's are others, `missing` when none are given and the tree's are not the
   * charts' defaults; undefined when they are the same or the record keeps no digest.
   */
  values?: 'differ' | 'missing';
}

/** Reasons by key, each once, in the order given. */
class Reasons {
  readonly map = new Map<string, string[]>();
  add(k: string, r: string): void {
    const rs = this.map.get(k);
    if (!rs) this.map.set(k, [r]);
    else if (!rs.includes(r)) rs.push(r);
  }
}

interface Overlay {
  /** The objects laid over the baseline. */
  objects: KObject[];
  /** Those of them that are live objects already: rendered objects found equal to the live one as they were made. */
  unchanged?: ReadonlySet<KObject>;
  /** The objects leaving the baseline, with why. */
  leaving: Leaving;
  /** The tenant namespaces that leave. */
  removedNamespaces: string[];
  /** Keys of the objects render produced. */
  rendered: Set<string>;
  findings: Finding[];
}

/**
 * Render the tree the change leaves and work out what it lays over the baseline and what leaves
 * it. `stateTenants` are the state's Tenants (objects, or read back from a tree).
 */
function renderChange(
  input: DiffInput,
  opts: DiffOptions,
  before: readonly KObject[],
  live: ReadonlyMap<string, KObject>,
  stateTenants: KObject[],
  givenTenants: KObject[],
  givenOthers: KObject[],
  tenantsAreObjects: boolean,
): Overlay {
  const givenKeys = new Set(givenTenants.map(keyOf));
  const tree = input.prune ? givenTenants : [...stateTenants.filter((t) => !givenKeys.has(keyOf(t))), ...givenTenants];
  const treeKeys = new Set(tree.map(keyOf));
  const leaving: Leaving = new Map();
  // The baseline's keys of the Tenants' kinds (a key names its kind): all the check below asks.
  const tenantKinds = new Set(stateTenants.map((t) => t.kind));
  const beforeKeys = new Set(before.filter((o) => tenantKinds.has(o.kind)).map(keyOf));
  if (tenantsAreObjects)
    for (const t of stateTenants)
      if (!treeKeys.has(keyOf(t)) && beforeKeys.has(keyOf(t)))
        leaving.set(keyOf(t), 'the Tenant left the tree (--prune: not among the given Tenants)');

  // Render sees the tree, the platform Package and the Namespaces of baseline and change, as the
  // pipeline that applies the change renders it: offline, the state's uids no lookups of its own.
  const others = before.filter((o) => !isTenant(o) && readByRender(o)).map(withoutUid);
  // Unordered: what diff prints it orders itself (compareStates), and the overlay is laid by identity.
  const made = new RenderedAsMade(live);
  const r = renderKept(
    { objects: [...others, ...givenOthers, ...tree], valuesFiles: input.valuesFiles },
    { ...opts, unordered: true },
    made.keep,
  );
  const { keys: rendered, unchanged } = made;
  // A changed-only diff's releases not rendered make their Namespaces as before.
  const renderedNamespaces = input.only ? new Set([...made.namespaces, ...input.only.namespaces]) : made.namespaces;
  if (hasErrors(r.findings))
    return { objects: [], leaving, removedNamespaces: [], rendered: new Set(), findings: r.findings };

  // What render produced for the state's tree: rendered again from its Tenants (a tree's record
  // says the same for what it holds), so what it no longer produces goes, whatever its kind.
  // Only its keys are kept: its objects would be a second copy of the whole tree's. A changed-only
  // diff has the files of the releases it renders: what render produced of them.
  const previous =
    input.only?.held ??
    renderedKeys(
      {
        objects: [...others, ...givenOthers.filter((o) => !isTenant(o)), ...stateTenants],
        valuesFiles: input.valuesFiles,
      },
      opts,
    );
  const gone = goneKeys(input, before, rendered, previous, givenTenants);
  const removedNamespaces: string[] = [];
  for (const o of before) {
    const k = keyOf(o);
    if (!gone.has(k) || isControllerOwned(o) || isTenant(o)) continue;
    const ns = o.metadata.namespace ?? '';
    if (isNamespace(o)) {
      removedNamespaces.push(o.metadata.name);
      leaving.set(k, `its tenant left the tree: render no longer produces Namespace ${o.metadata.name}`);
    } else if (isTenantGateway(o) && renderedNamespaces.has(ns))
      leaving.set(
        k,
        `the tenant of namespace ${ns} owns no Gateway any more: render no longer produces its TenantGateway`,
      );
    else if (ns && !renderedNamespaces.has(ns))
      leaving.set(k, 'its tenant left the tree: render no longer produces it');
    else leaving.set(k, 'render no longer produces it');
  }
  removedNamespaces.sort();
  const objects = [
    ...(tenantsAreObjects ? givenTenants : []),
    ...givenOthers.filter((o) => !rendered.has(keyOf(o))),
    ...r.objects,
  ];
  return { objects, unchanged, leaving, removedNamespaces, rendered, findings: r.findings };
}

/**
 * What render owned (the state's tree, the tree's record) and no longer produces: usually few of
 * its keys. A live cluster's objects Flux applied (its labels: the Kustomization's inventory) and
 * render no longer produces count too: with --prune all of them, as Flux's prune deletes them;
 * without, those in the namespaces of the given Tenants (the state's other tenants stay as they are).
 */
function goneKeys(
  input: DiffInput,
  before: readonly KObject[],
  rendered: ReadonlySet<string>,
  previous: Iterable<string>,
  givenTenants: readonly KObject[],
): Set<string> {
  const gone = new Set<string>();
  for (const k of previous) if (!rendered.has(k)) gone.add(k);
  for (const k of input.only?.held ?? input.treeHeld ?? []) if (!rendered.has(k)) gone.add(k);
  if (input.treeHeld?.size) return gone;
  const givenNamespaces = new Set(givenTenants.map(tenantNamespaceOf));
  for (const o of before) {
    const k = keyOf(o);
    if (rendered.has(k) || !appliedByFlux(o)) continue;
    if (input.prune || givenNamespaces.has(o.metadata.namespace ?? '')) gone.add(k);
  }
  return gone;
}

/**
 * What diff notes of each object render makes, as it is made: its key, the tenant namespaces, and
 * whether applying it over the live object leaves that as it is; then the live object is held in
 * its place and the rendered copy let go (of a tree of thousands of tenants, most of what render
 * makes), so that a second copy of the whole tree is never held.
 */
class RenderedAsMade {
  readonly keys = new Set<string>();
  readonly namespaces = new Set<string>([TENANT_ROOT]);
  /** The live objects held in place of rendered ones. */
  readonly unchanged = new Set<KObject>();
  constructor(private readonly live: ReadonlyMap<string, KObject>) {}

  readonly keep = (o: KObject): KObject => {
    const k = keyOf(o);
    this.keys.add(k);
    if (isNamespace(o)) this.namespaces.add(o.metadata.name);
    const was = this.live.get(k);
    if (!was || appliedOver(o, was) !== was) return o;
    this.unchanged.add(was);
    return was;
  };
}

/** An object applied over the live one (`kubectl apply`): the live object itself when that leaves it as it is. */
function appliedOver(o: KObject, was: KObject | undefined): KObject {
  const next = applyOver(o, was);
  return was && (next === was || deepEqual(next, was)) ? was : next;
}

/**
 * A state object as render reads it for the change: without the uid the API server gave it. The
 * live objects are the state compared against, not lookups for the change's templates: a tree CI
 * renders offline gives a tenant Namespace no ownerReference to its parent (docs/decisions.md §4),
 * and neither does the change (docs/decisions.md §C8).
 */
function withoutUid(o: KObject): KObject {
  if (o.metadata.uid === undefined) return o;
  const metadata = { ...o.metadata };
  delete metadata.uid;
  return { ...o, metadata };
}

/** An object Flux's kustomize-controller applied: it carries Flux's labels. */
function appliedByFlux(o: KObject): boolean {
  const labels = o.metadata.labels;
  return labels !== undefined && Object.keys(labels).some((l) => l.startsWith('kustomize.toolkit.fluxcd.io/'));
}

/** The live objects by key (keyOf). */
function liveIndex(before: readonly KObject[]): Map<string, KObject> {
  const live = new Map<string, KObject>();
  for (const o of before) live.set(keyOf(o), o);
  return live;
}

/**
 * The baseline: one controller pass over the state. Its values come from the state's own channel (a
 * Package, the cozy-system Secret) if it holds one; else from the values the change gives, which
 * docs/commands/diff.md asks to be the ones the state was rendered with (a tree holds neither, and its wildcard
 * replicas are the in-cluster controller's to write).
 */
function baselineOf(base: KObject[], input: DiffInput, opts: DiffOptions): ReconcileResult {
  const ownChannel = findPlatformPackage(base) !== undefined || base.some(isChannelSecret);
  return reconcile(
    { objects: base, valuesFiles: ownChannel || !input.valuesFiles.length ? undefined : input.valuesFiles },
    {
      now: opts.now,
      ciliumVersion: opts.ciliumVersion,
      upstreamCilium: opts.upstreamCilium,
      cozystack: opts.cozystack,
    },
  );
}

/**
 * The change laid over the baseline, as the API server would apply it: what leaves goes (with what
 * it owns), everything in a removed Namespace goes whether the change holds it or not, and each given
 * or rendered object is applied over the live one. Records why each object differs in `why`. An
 * applied object found equal to the live one is the live one itself: the comparison after the pass
 * need not compare the two again, and the rendered copy is not held.
 */
function layOver(before: KObject[], live: ReadonlyMap<string, KObject>, overlay: Overlay, why: Reasons): KObject[] {
  cascade(before, overlay.leaving);
  for (const [k, r] of overlay.leaving) why.add(k, r);
  const removed = new Set(overlay.removedNamespaces);
  const laid = new Map<string, KObject>();
  for (const o of overlay.objects) {
    const k = keyOf(o);
    if (removed.has(o.metadata.namespace ?? '') || (isNamespace(o) && removed.has(o.metadata.name))) continue;
    if (overlay.unchanged?.has(o)) {
      laid.set(k, o);
      continue;
    }
    const was = live.get(k);
    const next = appliedOver(o, was);
    laid.set(k, next);
    if (next === was) continue;
    why.add(
      k,
      isTenant(o) ? 'the given Tenant' : overlay.rendered.has(k) ? 'rendered by the charts' : 'a given object',
    );
  }
  const applied: KObject[] = [];
  for (const o of before) {
    const k = keyOf(o);
    if (!overlay.leaving.has(k) && !laid.has(k)) applied.push(o);
  }
  for (const o of laid.values()) applied.push(o);
  return applied;
}

/**
 * The pass's reasons, but for a changed object its status in the words of what changed (a condition
 * the change did not alter is no reason); reasons of objects that do not differ are dropped.
 */
function passReasons(
  why: Reasons,
  pass: ReconcileResult,
  d: { created: KObject[]; changed: ChangedObject[]; deleted: KObject[] },
): void {
  const changedKeys = new Set(d.changed.map((c) => keyOf(c.after)));
  for (const c of pass.changes)
    for (const r of c.reasons) if (!(changedKeys.has(keyOf(c.ref)) && isStatusReason(r))) why.add(keyOf(c.ref), r);
  for (const c of d.changed) for (const r of statusChanges(c.before, c.after)) why.add(keyOf(c.after), r);
  const differing = new Set([...d.created, ...d.deleted, ...d.changed.map((c) => c.after)].map(keyOf));
  for (const k of [...why.map.keys()]) if (!differing.has(k)) why.map.delete(k);
}

/** A diff's result: what is given, over the empty one; `before` masked. */
function resultOf(input: DiffInput, partial: Partial<DiffResult> & { findings: Finding[] }): DiffResult {
  return {
    uncomparable: [],
    hostnames: [],
    reasons: new Map(),
    given: new Set(input.objects.map(keyOf)),
    removedNamespaces: [],
    rendered: false,
    baseline: 'state',
    drift: 0,
    inadmissible: [],
    fromTree: (input.treeHeld?.size ?? 0) > 0,
    weakDigests: input.state.filter((o) => isRedacted(o) && isWeakDigest(o.metadata.annotations?.[DIGEST_ANNOTATION]))
      .length,
    ...partial,
    created: (partial.created ?? []).map(shown),
    changed: (partial.changed ?? []).map((c) => ({ before: shown(c.before), after: shown(c.after) })),
    deleted: (partial.deleted ?? []).map(shown),
    before: [...(partial.before ?? input.state), ...(input.only?.view ?? [])].map(masked),
    ...(input.only ? { outsideWarnings: input.only.outside.warnings } : {}),
  };
}

/**
 * An object as diff shows it: without managedFields, the server's bookkeeping of who set which
 * field (read to apply, never a difference: both sides carry the live object's), as `kubectl diff`
 * leaves them out.
 */
function shown(o: KObject): KObject {
  if (o.metadata.managedFields === undefined) return o;
  const metadata = { ...o.metadata };
  delete metadata.managedFields;
  return { ...o, metadata };
}

/** The change as given (-f, --values, --prune), sorted by what it does. */
interface GivenChange {
  tenants: KObject[];
  /** Every given object but the Tenants. */
  all: KObject[];
  /** The given objects but the Tenants and the context. */
  others: KObject[];
  /** Given objects a tree lacks: the cluster the tree was rendered against. */
  context: KObject[];
  fromTree: boolean;
  /** Anything given at all: else the baseline is the state itself. */
  changeGiven: boolean;
  /** Whether the charts render the change. */
  runRender: boolean;
}

function givenChange(input: DiffInput): GivenChange {
  const tenants = input.objects.filter(isTenant);
  const all = input.objects.filter((o) => !isTenant(o));
  // A tree holds only what render wrote: a given object it lacks is the cluster the tree was rendered against.
  const fromTree = (input.treeHeld?.size ?? 0) > 0;
  const stateKeys = fromTree ? new Set(input.state.map(keyOf)) : new Set<string>();
  return {
    tenants,
    all,
    fromTree,
    context: fromTree ? all.filter((o) => !stateKeys.has(keyOf(o))) : [],
    others: fromTree ? all.filter((o) => stateKeys.has(keyOf(o))) : all,
    changeGiven: input.objects.length > 0 || input.valuesFiles.length > 0 || input.prune === true,
    runRender:
      tenants.length > 0 ||
      input.valuesFiles.length > 0 ||
      input.prune === true ||
      findPlatformPackage(all) !== undefined,
  };
}

/** What the change lays over the baseline: the given objects, and what the charts render from it (with what leaves). */
function overlayOf(
  input: DiffInput,
  opts: DiffOptions,
  before: KObject[],
  live: ReadonlyMap<string, KObject>,
  given: GivenChange,
): Overlay {
  if (!given.runRender)
    return { objects: given.others, leaving: new Map(), removedNamespaces: [], rendered: new Set(), findings: [] };
  const stateTenantObjects = input.state.filter(isTenant);
  // A state from a tree, or a live cluster Flux applied a tree to, holds no Tenants: there the given
  // Tenants are what render reads, never objects to create.
  const tenantsAreObjects = stateTenantObjects.length > 0 || (!given.fromTree && !input.state.some(appliedByFlux));
  // A tree's Tenants are in its record, beside the objects rendered from them (as helm keeps a release's values).
  const known = new Set(stateTenantObjects.map(keyOf));
  const stateTenants = [...stateTenantObjects, ...(input.tree?.tenants ?? []).filter((t) => !known.has(keyOf(t)))];
  return renderChange(input, opts, before, live, stateTenants, given.tenants, given.others, tenantsAreObjects);
}

/**
 * A changed-only diff renders its releases only; a release it does not render claims its
 * cluster-wide names where they could meet a rendered one's (a name is its namespace and a suffix,
 * docs/tenant.md §2.12: only a release's ancestors and descendants can share one).
 */
function scopedBy(opts: DiffOptions, only: ChangedOnlyScope | undefined): DiffOptions {
  if (!only) return opts;
  const rendered = [...only.render];
  const related = (ns: string) => rendered.some((r) => r.startsWith(`${ns}-`) || ns.startsWith(`${r}-`));
  return { ...opts, only: { render: (ns) => only.render.has(ns), claims: related } };
}

/** The render options a tree was written with, over those given: the change is rendered the same way. */
export function shapedBy(opts: DiffOptions, shape: TreeShape | undefined): DiffOptions {
  if (!shape) return opts;
  return {
    ...opts,
    includeHooks: shape.includeHooks ?? opts.includeHooks,
    gatewayOnly: shape.gatewayOnly ?? opts.gatewayOnly,
    apiVersions: shape.apiVersions ?? opts.apiVersions,
    gatewayApiVersion: shape.gatewayApiVersion ?? opts.gatewayApiVersion,
  };
}

/**
 * The warning of a look-ahead that stopped at its bound (admissionLookahead.ts), on the first
 * ValidatingAdmissionPolicy the change creates or alters (the one that costs, most likely).
 */
function lookaheadStopped(s: NonNullable<Lookahead['stopped']>, touched: KObject[]): Finding {
  const policy = touched.find((o) => o.kind === 'ValidatingAdmissionPolicy');
  return warning(
    `the admission look-ahead judged ${s.judged} of the ${s.of} objects it had to judge: the admission policies' CEL spent ${s.spent} cost units, past its bound of ${LOOKAHEAD_BUDGET} (the other objects are not judged)`,
    {
      rule: 'diff.lookahead-bound',
      ...(policy ? { object: refOf(policy) } : {}),
      hint: "a policy whose expressions run past the API server's cost limits fails as its failurePolicy says on every write it matches; make its expressions cheaper",
    },
  );
}

/**
 * A committed tree holds no Tenants (Flux applies what render wrote); its record keeps those it was
 * rendered from. They join the state as its Tenants, so a given Tenant is compared with the
 * recorded one as against a state that holds Tenants: the author's edit shows
 * (`~ change Tenant tenant-root/alice`, `+ spec.gateway: true`), and with `prune` a Tenant left out
 * leaves as one.
 */
function withRecordedTenants(input: DiffInput): DiffInput {
  const recorded = input.tree?.tenants ?? [];
  if (!recorded.length || !input.treeHeld?.size || input.state.some(isTenant)) return input;
  return { ...input, state: [...input.state, ...recorded] };
}

/** The change's platform values against the tree's record (DiffResult.values). */
function valuesAgainstTree(input: DiffInput, behaviour: Behaviour): DiffResult['values'] {
  const recorded = input.tree?.values;
  if (recorded === undefined) return undefined;
  if (valuesDigest({ files: input.valuesFiles, objects: input.objects }, behaviour) === recorded) return undefined;
  return input.valuesFiles.length || findPlatformPackage(input.objects) ? 'differ' : 'missing';
}

/** One controller pass over the state with the change laid over it. */
function passOver(applied: KObject[], input: DiffInput, opts: DiffOptions): ReconcileResult {
  return reconcile(
    { objects: applied, valuesFiles: input.valuesFiles.length ? input.valuesFiles : undefined },
    {
      now: opts.now,
      ciliumVersion: opts.ciliumVersion,
      upstreamCilium: opts.upstreamCilium,
      cozystack: opts.cozystack,
    },
  );
}

export function diff(asGiven: DiffInput, options: DiffOptions): DiffResult {
  // Redaction markers in the change are claims, not facts: dropped, with a warning (redactionClaims.ts).
  const claims = withoutRedactionClaims(asGiven.objects);
  const input = withRecordedTenants(claims.findings.length ? { ...asGiven, objects: claims.objects } : asGiven);
  const opts = scopedBy(shapedBy(options, input.tree?.shape), input.only);
  const values = valuesAgainstTree(input, (opts.cozystack ?? MAIN_VERSION).behaviour);
  const given = givenChange(input);
  // The one duplicate rule (k8s/duplicates.ts): a finding at each copy, in the state and in the change.
  const findings: Finding[] = claims.findings.concat(
    duplicateFindings(input.state, 'state (--state)', '--state'),
    duplicateFindings(given.all, 'change (-f)'),
  );
  if (hasErrors(findings)) return resultOf(input, { values, findings });

  // 1. The baseline.
  const base = given.context.length ? [...input.state, ...given.context] : input.state;
  let before: KObject[] = input.state;
  let baselinePass: ReconcileResult | undefined;
  let drift = 0;
  if (given.changeGiven) {
    baselinePass = baselineOf(base, input, opts);
    if (hasErrors(baselinePass.findings))
      return resultOf(input, { values, findings: [...findings, ...baselinePass.findings] });
    before = baselinePass.store.all();
    drift = differenceCount(compareStates(base, before)) + (input.only?.outside.drift ?? 0);
  }

  // 2 and 3. The change laid over the baseline, and what leaves.
  const why = new Reasons();
  let live: Map<string, KObject> | undefined = liveIndex(before);
  const overlay = overlayOf(input, opts, before, live, given);
  pushAll(findings, overlay.findings);
  if (hasErrors(overlay.findings))
    return resultOf(input, { values, findings, rendered: true, baseline: 'pass', drift, before });
  const applied = layOver(before, live, overlay, why);
  // What was laid is in `applied` now: the rendered copies and the index are let go before the pass.
  overlay.objects = [];
  live = undefined;

  // 4. The pass, and the comparison.
  const pass = passOver(applied, input, opts);
  pushAll(findings, pass.findings);
  const common = {
    rendered: given.runRender,
    baseline: given.changeGiven ? ('pass' as const) : ('state' as const),
    drift,
    before,
  };
  if (hasErrors(pass.findings)) return resultOf(input, { values, findings, ...common });
  const after = pass.store.all();
  const { created, changed, deleted, uncomparable = [] } = compareStates(before, after);
  passReasons(why, pass, { created, changed, deleted });
  const lookahead = inadmissibleAfter(
    before,
    after,
    { created, changed, deleted },
    () => platformPolicies({ objects: after, valuesFiles: input.valuesFiles }, opts).policies,
    { gatewayApiVersion: opts.gatewayApiVersion },
  );
  if (lookahead.stopped)
    findings.push(lookaheadStopped(lookahead.stopped, [...created, ...changed.map((x) => x.after)]));

  return resultOf(input, {
    values,
    findings,
    created,
    changed,
    deleted,
    uncomparable,
    hostnames: hostnameTable(
      baselinePass ? { objects: before, races: baselinePass.races } : { objects: before, judgedBy: pass.races },
      { objects: after, races: pass.races },
    ),
    reasons: why.map,
    removedNamespaces: overlay.removedNamespaces,
    inadmissible: lookahead.objects,
    pass,
    ...common,
  });
}

/** The differences as store changes (for the plan): create, update, delete with their reasons, in the store's order. */
export function diffChanges(d: DiffResult): Change[] {
  const out: Change[] = [];
  const push = (op: Change['op'], o: KObject) =>
    out.push({ op, ref: refOf(o), reasons: d.reasons.get(keyOf(o)) ?? [] });
  for (const o of d.created) push('create', o);
  for (const c of d.changed) push('update', c.after);
  for (const o of d.deleted) push('delete', o);
  return out.sort(compareChanges);
}

/** Whether the change makes any difference. */
export function hasDifferences(d: DiffResult): boolean {
  return d.created.length + d.changed.length + d.deleted.length > 0;
}

/**
 * A Store of what the plan reads of the state after the change (masked): the objects created and
 * changed (their lines), and every TenantGateway (the namespace headings). The plan of a diff
 * lists no unchanged object (showRefusedUnchanged off), so the rest of the state, tens of
 * thousands of objects, is not indexed again for it.
 */
export function planStore(d: DiffResult): Store {
  const gone = new Set(d.deleted.map(keyOf));
  const replaced = new Map<string, KObject>([...d.created, ...d.changed.map((c) => c.after)].map((o) => [keyOf(o), o]));
  const objs: KObject[] = [];
  for (const o of d.before) {
    if (!isTenantGateway(o)) continue;
    const k = keyOf(o);
    if (!gone.has(k) && !replaced.has(k)) objs.push(o);
  }
  for (const o of replaced.values()) objs.push(o);
  return new Store(objs);
}
