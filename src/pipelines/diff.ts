/**
 * `cozy-gw diff`, the pure core (README "cozy-gw diff"): a change previewed against a
 * cluster state. Render the resulting tenant tree (render.ts), lay the rendered objects and the
 * other given objects over the state, remove what render produced for tenants that left the tree,
 * run one controller pass (reconcile.ts), and compare the outcome with the state: the objects
 * created, changed and deleted, and the hostname table (hostnames.ts).
 *
 * - The tree: the state's Tenants, each replaced by a given Tenant of the same namespace and name,
 *   plus the given ones; with `prune` the given Tenants alone (the tenants directory is the whole
 *   tree, as Flux with prune applies it).
 * - Render runs when the change can alter what it renders: a Tenant, a platform-values file or a
 *   Package among the given inputs, or `prune`. A change of routes or Secrets alone, or the state
 *   alone, lays them over the state and runs the pass (render with the chart defaults over a state
 *   rendered with other values would show differences nobody asked for).
 * - Laying over: an object with the same group, kind, namespace and name replaces the state's, as
 *   `kubectl apply` writes it: the state's `status` and the fields the API server sets
 *   (metadata.uid, resourceVersion, generation, creationTimestamp, managedFields; a Namespace's
 *   spec and its kubernetes.io/metadata.name label) stay when the given object has none. A rendered object wins over a given one.
 * - What leaves: a TenantGateway that render no longer produces in a namespace it still renders
 *   (the tenant gave up its Gateway); with `prune`, every tenant Namespace the state holds (a
 *   Namespace carrying its own `tenant.cozystack.io/<name>` label, or the namespace of one of the
 *   state's Tenants) that render no longer produces, its cozystack-values Secret and TenantGateway,
 *   and everything else in that Namespace with it (the API server deletes a Namespace's contents);
 *   and whatever a leaving object controls (ownerReferences: a TenantGateway's Gateway, Issuer,
 *   Certificates and redirect route), as the garbage collector deletes it.
 * - Secrets: compared as the API server stores them (stringData folded into data); when either
 *   side's data is unknown (a Secret cozy-gw printed without its data) only the redacted forms are
 *   compared. Key material never leaves this module: every Secret in the result has its data
 *   values, and its annotations that carry key material (secretRedaction.ts), replaced by `***`,
 *   as kubectl diff masks them (`*** (before)` / `*** (after)` where they differ).
 */
import { error, hasErrors, type Finding } from '../k8s/diagnostics';
import { deepEqual, describe, isObject, keyOf, refOf, type KObject } from '../k8s/model';
import { compareChanges, Store, type Change } from '../k8s/store';
import { isRedacted, isSecret, keyMaterialAnnotations, redactSecret } from '../k8s/secretRedaction';
import { isTenant, isTenantGateway } from '../platform/kinds';
import { TENANT_ROOT, tenantNamespaceOf, VALUES_SECRET } from '../platform/tenancy';
import { findPlatformPackage } from '../platform/kinds';
import { LABEL_MANAGED_BY, LABEL_TENANTGATEWAY, MANAGED_BY_VALUE, TGW_KIND, TGW_NAME } from '../platform/names';
import { orderOutput, render, type RenderOptions } from './render';
import { reconcile, type ReconcileResult } from './reconcile';
import { hostnameTable, type HostnameRow } from './hostnames';
import { pushAll } from '../k8s/arrays';

export interface DiffInput {
  /** The cluster state now (`--state`). */
  state: KObject[];
  /** The given objects (`-f`): Tenants, and anything else the user means to apply. */
  objects: KObject[];
  /** Platform values files (`--values`), in order. */
  valuesFiles: { file: string; values: Record<string, unknown> }[];
  /** The given Tenants are the whole tree. */
  prune?: boolean;
}

export interface DiffOptions extends RenderOptions {
  now: string;
  ciliumVersion?: string;
  upstreamCilium?: boolean;
}

export interface ChangedObject {
  before: KObject;
  after: KObject;
}

export interface DiffResult {
  findings: Finding[];
  /** In output order (render's: Namespaces, namespaced objects by namespace, cluster-scoped). Secrets masked. */
  created: KObject[];
  changed: ChangedObject[];
  deleted: KObject[];
  hostnames: HostnameRow[];
  /** Why each object differs, by keyOf: what the change did to it, then what the pass did. */
  reasons: Map<string, string[]>;
  /** Tenant namespaces that leave with everything in them. */
  removedNamespaces: string[];
  /** Whether render ran (the change touched the tenant tree or the platform values). */
  rendered: boolean;
  /** The pass (for the plan's header: channel, Cilium version, findings). */
  pass?: ReconcileResult;
}

const NAME_LABEL = 'kubernetes.io/metadata.name';

/** Fields the API server owns: an applied object without them keeps the state's. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields'];

/** `kubectl apply` of `given` over `live`: the given object, with what the server keeps. */
function applyOver(given: KObject, live: KObject | undefined): KObject {
  if (!live) return given;
  let out: KObject | undefined;
  const edit = () => (out ??= { ...given, metadata: { ...given.metadata } });
  for (const f of SERVER_METADATA)
    if (given.metadata[f] === undefined && live.metadata[f] !== undefined) edit().metadata[f] = live.metadata[f];
  if (given.status === undefined && live.status !== undefined) edit().status = live.status;
  if (given.kind === 'Namespace' && given.apiVersion === 'v1') {
    if (given.spec === undefined && live.spec !== undefined) edit().spec = live.spec;
    // The API server stamps every Namespace with its name label.
    const name = live.metadata.labels?.[NAME_LABEL];
    if (name !== undefined && given.metadata.labels?.[NAME_LABEL] === undefined) {
      const m = edit().metadata;
      m.labels = { ...(m.labels ?? {}), [NAME_LABEL]: name };
    }
  }
  return out ?? given;
}

function duplicates(objs: KObject[], what: string): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const o of objs) {
    const k = keyOf(o);
    if (seen.has(k))
      out.push(
        error(`${describe(o)} is given more than once in the ${what}`, {
          rule: 'input.duplicate',
          object: refOf(o),
          hint: 'keep one copy of each object',
        }),
      );
    else seen.add(k);
  }
  return out;
}

function isNamespace(o: KObject): boolean {
  return o.kind === 'Namespace' && o.apiVersion === 'v1';
}

/** A Namespace the tenant chart rendered: it carries its own `tenant.cozystack.io/<name>` label. */
function isTenantNamespace(o: KObject, stateTenantNamespaces: Set<string>): boolean {
  if (!isNamespace(o) || o.metadata.name === TENANT_ROOT) return false;
  return (
    stateTenantNamespaces.has(o.metadata.name) ||
    o.metadata.labels?.[`tenant.cozystack.io/${o.metadata.name}`] !== undefined
  );
}

// ----- Secrets ---------------------------------------------------------------------------------

/** A Secret as the API server stores it: stringData folded into data (base64). */
function storedSecret(o: KObject): KObject {
  if (!isSecret(o) || !isObject(o.stringData)) return o;
  const data: Record<string, unknown> = { ...(isObject(o.data) ? o.data : {}) };
  for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  const out: KObject = { ...o, data };
  delete out.stringData;
  return out;
}

/**
 * A Secret side as shown: every value of `data` masked (`*** (before)` / `*** (after)` where the
 * sides differ), and so is every annotation that carries key material on either side
 * (keyMaterialAnnotations: a last-applied copy, an annotation repeating a value). Whatever else
 * `data` or `stringData` hold (a malformed Secret of a snapshot: a string, a list) is shown as
 * `***` whole: no input shape gets key material printed.
 */
function maskData(o: KObject, other: KObject | undefined, side: 'before' | 'after', copies: string[]): KObject {
  if (!isSecret(o)) return o;
  const out: KObject = { ...o };
  const mask = (mine: Record<string, unknown>, theirs: Record<string, unknown> | undefined, k: string) =>
    theirs && k in theirs && theirs[k] !== mine[k] ? `*** (${side})` : '***';
  if (isObject(o.data)) {
    const theirs = other && isObject(other.data) ? other.data : undefined;
    const data: Record<string, string> = {};
    for (const k of Object.keys(o.data)) data[k] = mask(o.data, theirs, k);
    out.data = data;
  } else if (o.data !== undefined && o.data !== null) out.data = '***';
  if (o.stringData !== undefined && o.stringData !== null) out.stringData = '***';
  const annotations = o.metadata.annotations;
  if (annotations && copies.some((k) => k in annotations)) {
    const theirs = other?.metadata.annotations;
    const masked: Record<string, string> = { ...annotations };
    for (const k of copies) if (k in annotations) masked[k] = mask(annotations, theirs, k);
    out.metadata = { ...o.metadata, annotations: masked };
  }
  return out;
}

/** The two sides of a Secret as compared and shown (either undefined for a create or a delete). */
function secretSides(
  before: KObject | undefined,
  after: KObject | undefined,
): { before?: KObject; after?: KObject; same: boolean } {
  let b = before && storedSecret(before);
  let a = after && storedSecret(after);
  if ((b && isRedacted(b)) || (a && isRedacted(a))) {
    b = b && redactSecret(b);
    a = a && redactSecret(a);
  }
  const same = b !== undefined && a !== undefined && deepEqual(b, a);
  // An annotation that carries key material on one side is masked on both.
  const copies = [...new Set([...(b ? keyMaterialAnnotations(b) : []), ...(a ? keyMaterialAnnotations(a) : [])])];
  return {
    before: b && maskData(b, a, 'before', copies),
    after: a && maskData(a, b, 'after', copies),
    same,
  };
}

// ----- the diff --------------------------------------------------------------------------------

export function diff(input: DiffInput, opts: DiffOptions): DiffResult {
  const empty = (findings: Finding[], rendered = false): DiffResult => ({
    findings,
    created: [],
    changed: [],
    deleted: [],
    hostnames: [],
    reasons: new Map(),
    removedNamespaces: [],
    rendered,
  });
  const findings: Finding[] = [
    ...duplicates(input.state, 'state (--state)'),
    ...duplicates(
      input.objects.filter((o) => !isTenant(o)),
      'change (-f)',
    ),
  ];
  if (hasErrors(findings)) return empty(findings);

  const reasons = new Map<string, string[]>();
  const why = (k: string, r: string) => {
    const rs = reasons.get(k);
    if (!rs) reasons.set(k, [r]);
    else if (!rs.includes(r)) rs.push(r);
  };

  const givenTenants = input.objects.filter(isTenant);
  const givenOthers = input.objects.filter((o) => !isTenant(o));
  const givenKeys = new Set(givenTenants.map(keyOf));
  const stateTenants = input.state.filter(isTenant);
  const runRender =
    givenTenants.length > 0 ||
    input.valuesFiles.length > 0 ||
    input.prune === true ||
    findPlatformPackage(givenOthers) !== undefined;

  // The objects leaving the state, and the ones laid over it.
  const leaving = new Set<string>();
  const overlay: KObject[] = [];
  const renderedBy = new Set<string>();
  const removedNamespaces: string[] = [];
  if (runRender) {
    const tree = input.prune
      ? givenTenants
      : [...stateTenants.filter((t) => !givenKeys.has(keyOf(t))), ...givenTenants];
    const treeKeys = new Set(tree.map(keyOf));
    for (const t of stateTenants) {
      if (!treeKeys.has(keyOf(t))) {
        leaving.add(keyOf(t));
        why(keyOf(t), 'Tenant left the tree (--prune: not among the given Tenants)');
      }
    }
    // Render sees the tree, the platform Package and the Namespaces (their uids) of state and change.
    const renderObjects = [...input.state.filter((o) => !isTenant(o)), ...givenOthers, ...tree];
    const r = render({ objects: renderObjects, valuesFiles: input.valuesFiles }, opts);
    pushAll(findings, r.findings);
    if (hasErrors(r.findings)) return empty(findings, true);
    const renderedKeys = new Set(r.objects.map(keyOf));
    for (const k of renderedKeys) renderedBy.add(k);
    const renderedNamespaces = new Set(r.objects.filter(isNamespace).map((o) => o.metadata.name));
    renderedNamespaces.add(TENANT_ROOT);

    // A TenantGateway render no longer produces where it still renders the tenant.
    for (const o of input.state) {
      const ns = o.metadata.namespace ?? '';
      if (
        isTenantGateway(o) &&
        o.metadata.name === TGW_NAME &&
        renderedNamespaces.has(ns) &&
        !renderedKeys.has(keyOf(o))
      ) {
        leaving.add(keyOf(o));
        why(
          keyOf(o),
          `the tenant of namespace ${ns} owns no Gateway any more: render no longer produces its TenantGateway`,
        );
      }
    }
    if (input.prune) {
      const stateTenantNamespaces = new Set(stateTenants.map(tenantNamespaceOf));
      for (const o of input.state)
        if (isTenantNamespace(o, stateTenantNamespaces) && !renderedNamespaces.has(o.metadata.name))
          removedNamespaces.push(o.metadata.name);
      removedNamespaces.sort();
      const gone = new Set(removedNamespaces);
      for (const o of input.state) {
        const k = keyOf(o);
        if (isNamespace(o) && gone.has(o.metadata.name)) {
          leaving.add(k);
          why(k, `its tenant left the tree: render no longer produces Namespace ${o.metadata.name}`);
        } else if (o.metadata.namespace && gone.has(o.metadata.namespace)) {
          leaving.add(k);
          if (isSecret(o) && o.metadata.name === VALUES_SECRET)
            why(k, `its tenant left the tree: render no longer produces it`);
          else if (isTenantGateway(o)) why(k, `its tenant left the tree: render no longer produces it`);
          else
            why(
              k,
              `goes with Namespace ${o.metadata.namespace} (everything in a deleted Namespace is deleted with it)`,
            );
        }
      }
    }
    // What the API server's garbage collector takes with them: objects a leaving object controls
    // (the Gateway, Issuer, Certificates and redirect route of a TenantGateway), transitively.
    // In rounds, as the collector works: each round, the dependents of what left in the round
    // before (found through an index of owner slots, never a scan of the state per round).
    const slot = (ns: string, kind: string, name: string) => `${ns}|${kind}|${name}`;
    const labelOwner = (o: KObject) =>
      o.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY_VALUE
        ? (o.metadata.labels?.[LABEL_TENANTGATEWAY] ?? TGW_NAME)
        : undefined;
    const dependents = new Map<string, number[]>();
    input.state.forEach((o, i) => {
      const ns = o.metadata.namespace ?? '';
      const slots = new Set((o.metadata.ownerReferences ?? []).map((r) => slot(ns, r.kind, r.name)));
      const byLabel = labelOwner(o);
      if (byLabel !== undefined) slots.add(slot(ns, TGW_KIND, byLabel));
      for (const sl of slots) {
        const ds = dependents.get(sl);
        if (ds) ds.push(i);
        else dependents.set(sl, [i]);
      }
    });
    const owners = new Set<string>();
    let frontier = input.state.filter((o) => leaving.has(keyOf(o)));
    while (frontier.length) {
      for (const o of frontier) owners.add(slot(o.metadata.namespace ?? '', o.kind, o.metadata.name));
      const candidates = new Set<number>();
      for (const o of frontier)
        for (const i of dependents.get(slot(o.metadata.namespace ?? '', o.kind, o.metadata.name)) ?? [])
          candidates.add(i);
      const next: KObject[] = [];
      for (const i of [...candidates].sort((a, b) => a - b)) {
        const o = input.state[i];
        const k = keyOf(o);
        if (leaving.has(k)) continue;
        const ns = o.metadata.namespace ?? '';
        let owner: { kind: string; name: string } | undefined = (o.metadata.ownerReferences ?? []).find((r) =>
          owners.has(slot(ns, r.kind, r.name)),
        );
        // Without a uid the controller writes no ownerReference; its label says the same.
        const byLabel = labelOwner(o);
        if (!owner && byLabel !== undefined && owners.has(slot(ns, TGW_KIND, byLabel)))
          owner = { kind: TGW_KIND, name: byLabel };
        if (!owner) continue;
        leaving.add(k);
        next.push(o);
        why(k, `garbage-collected with its owner ${owner.kind} ${ns ? `${ns}/` : ''}${owner.name}`);
      }
      frontier = next;
    }
    pushAll(overlay, givenTenants);
    pushAll(
      overlay,
      givenOthers.filter((o) => !renderedKeys.has(keyOf(o))),
    );
    pushAll(overlay, r.objects);
  } else {
    pushAll(overlay, givenOthers);
  }

  // The state with the change applied.
  const stateByKey = new Map(input.state.map((o) => [keyOf(o), o]));
  const overlayKeys = new Set(overlay.map(keyOf));
  const applied: KObject[] = [];
  for (const o of input.state) if (!leaving.has(keyOf(o)) && !overlayKeys.has(keyOf(o))) applied.push(o);
  for (const o of overlay) {
    const k = keyOf(o);
    const live = stateByKey.get(k);
    const next = applyOver(o, live);
    applied.push(next);
    if (!live || !deepEqual(live, next))
      why(k, isTenant(o) ? 'the given Tenant' : renderedBy.has(k) ? 'rendered by the charts' : 'a given object');
  }

  const pass = reconcile(
    { objects: applied, valuesFiles: input.valuesFiles.length ? input.valuesFiles : undefined },
    { now: opts.now, ciliumVersion: opts.ciliumVersion, upstreamCilium: opts.upstreamCilium },
  );
  pushAll(findings, pass.findings);
  if (hasErrors(pass.findings)) return empty(findings, runRender);
  for (const c of pass.changes) for (const r of c.reasons) why(keyOf(c.ref), r);
  const after = pass.store.all();

  // The comparison.
  const afterKeys = new Set<string>();
  const created: KObject[] = [];
  const changed: ChangedObject[] = [];
  const deleted: KObject[] = [];
  for (const a of after) {
    const k = keyOf(a);
    afterKeys.add(k);
    const b = stateByKey.get(k);
    if (b === a) continue;
    if (isSecret(a)) {
      const s = secretSides(b, a);
      if (!b) created.push(s.after!);
      else if (!s.same) changed.push({ before: s.before!, after: s.after! });
      continue;
    }
    if (!b) created.push(a);
    else if (!deepEqual(b, a)) changed.push({ before: b, after: a });
  }
  for (const b of input.state)
    if (!afterKeys.has(keyOf(b))) deleted.push(isSecret(b) ? secretSides(b, undefined).before! : b);

  const order = (objs: KObject[]) => orderOutput(objs);
  const changedOrder = new Map(order(changed.map((c) => c.after)).map((o, i) => [keyOf(o), i]));
  changed.sort((x, y) => changedOrder.get(keyOf(x.after))! - changedOrder.get(keyOf(y.after))!);

  const differing = new Set([...created, ...deleted, ...changed.map((c) => c.after)].map(keyOf));
  for (const k of [...reasons.keys()]) if (!differing.has(k)) reasons.delete(k);

  return {
    findings,
    created: order(created),
    changed,
    deleted: order(deleted),
    hostnames: hostnameTable(input.state, after),
    reasons,
    removedNamespaces,
    rendered: runRender,
    pass,
  };
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

/** A Store holding the state after the change (masked), for the plan's grouping. */
export function afterStore(d: DiffResult, state: KObject[]): Store {
  const gone = new Set(d.deleted.map(keyOf));
  const replaced = new Map<string, KObject>([...d.created, ...d.changed.map((c) => c.after)].map((o) => [keyOf(o), o]));
  const objs: KObject[] = [];
  for (const o of state) {
    const k = keyOf(o);
    if (gone.has(k)) continue;
    const r = replaced.get(k);
    objs.push(r ?? (isSecret(o) ? secretSides(o, o).before! : o));
    replaced.delete(k);
  }
  pushAll(objs, replaced.values());
  return new Store(objs);
}
