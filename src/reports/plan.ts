/**
 * `reconcile -o plan`: a human-readable account of what one pass would create, change and delete,
 * and why (docs/commands/reconcile.md). Grouped by namespace (with the TenantGateway that lives
 * there), each change with the reasons the store recorded, a field-level summary of what changed,
 * the route status outcomes this controller writes (with their reasons and messages, refused
 * routes included even when their status did not change), then warnings and Cilium hazards.
 * Pure: result and inputs in, text out. Never prints Secret data; every line is escaped
 * (k8s/printable.ts), so no name, hostname or message from input can forge a line.
 */
import { formatFinding, type Finding } from '../k8s/diagnostics';
import { textOf } from '../k8s/printable';
import * as jsyaml from 'js-yaml';
import { isValuesChannel, keyMaterialAnnotations } from '../k8s/secretRedaction';
import { LOAD_OPTIONS } from '../k8s/yaml';
import { exceedsLimits } from '../k8s/limits';
import { describe, isObject, keyOf, refOf, type KObject, type ObjRef } from '../k8s/model';
import type { Change } from '../k8s/store';
import type { ReconcileResult } from '../pipelines/reconcile';
import { CONTROLLER_NAME, TGW_KIND } from '../platform/names';
import { ROUTE_KINDS } from '../platform/kinds';
import { formatHostnameTable, type HostnameRow } from '../diff/hostnames';
import { parentRefNamespace } from '../k8s/gatewayApi';
import type { InadmissibleObject } from '../diff/admissionLookahead';
import { pushAll } from '../k8s/arrays';
import { versionLine, type VersionHeader } from './versionHeader';

export interface PlanOptions {
  /** The objects the pass started from. */
  before: KObject[];
  now: string;
  /** Header note on where the wildcard-Secret channel came from. */
  channelOrigin?: string;
  ciliumVersion?: string;
  /** The hazards were judged for the upstream operator image. */
  upstreamCilium?: boolean;
  /** Max field lines per changed object. */
  maxDiffLines?: number;
  /** The first line's words (default `Reconcile plan`). */
  title?: string;
  /**
   * The first line names no time: the clock is the reproducible default (the epoch, no --now or
   * SOURCE_DATE_EPOCH given), which is no moment the plan was made at.
   */
  untimed?: boolean;
  /** The hostname table (hostnames.ts), printed first when it has rows. */
  hostnames?: HostnameRow[];
  /** Lines printed after the counts (e.g. the Namespaces a diff removes). */
  notes?: string[];
  /** The line printed when nothing differs (default: the reconcile wording). */
  nothingLine?: string;
  /** List routes that stay refused without a change (default true). */
  showRefusedUnchanged?: boolean;
  /**
   * Show a changed object's status as the fields that changed, conditions included only where
   * they changed (diff: the baseline is a pass too), instead of the whole route and TenantGateway
   * status the pass wrote (reconcile).
   */
  statusAsFields?: boolean;
  /** Objects the change makes inadmissible on their next write (admissionLookahead.ts). */
  inadmissible?: InadmissibleObject[];
  /** The Cozystack version reproduced, and the state's where it tells one (the line after the title). */
  cozystack?: VersionHeader;
  /**
   * Lines printed before the hostname table (diff: the change as given), and the kinds whose
   * changes they show, left out of the namespace groups below.
   */
  leading?: { lines: string[]; kinds: ReadonlySet<string> };
}

const SECRET_PATHS = /^(data|stringData)(\.|\[|$)/;

// ----- field diff ------------------------------------------------------------------------------

export interface FieldDiff {
  path: string;
  op: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function seg(k: string): string {
  return SIMPLE_KEY.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
}

/** The key lists of named entries are compared by (listeners by name, conditions by type, parents by parentRef). */
function entryKey(x: unknown): string | undefined {
  if (!isObject(x)) return undefined;
  if (typeof x.name === 'string') return `name=${x.name}`;
  if (typeof x.type === 'string') return `type=${x.type}`;
  if (isObject(x.parentRef)) {
    const p = x.parentRef;
    const parts = [p.namespace, p.name].filter((v) => typeof v === 'string').join('/');
    const sec = typeof p.sectionName === 'string' ? `,sectionName=${p.sectionName}` : '';
    const port = p.port !== undefined ? `,port=${String(p.port)}` : '';
    return `parentRef=${parts}${sec}${port}${typeof x.controllerName === 'string' && x.controllerName !== CONTROLLER_NAME ? `,controller=${x.controllerName}` : ''}`;
  }
  return undefined;
}

function keyed(xs: unknown[]): Map<string, unknown> | undefined {
  const m = new Map<string, unknown>();
  for (const x of xs) {
    const k = entryKey(x);
    if (k === undefined || m.has(k)) return undefined;
    m.set(k, x);
  }
  return m;
}

export function diffFields(a: unknown, b: unknown, path = ''): FieldDiff[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  // An added or removed map is shown by its leaves, so a new label reads as one line.
  if (a === undefined && isObject(b) && Object.keys(b).length) return diffFields({}, b, path);
  if (b === undefined && isObject(a) && Object.keys(a).length) return diffFields(a, {}, path);
  if (a === undefined) return [{ path, op: 'added', after: b }];
  if (b === undefined) return [{ path, op: 'removed', before: a }];
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffFields(a[k], b[k], `${path}${seg(k)}`));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const ka = keyed(a);
    const kb = keyed(b);
    if (ka && kb) {
      const out: FieldDiff[] = [];
      for (const k of [...new Set([...ka.keys(), ...kb.keys()])]) {
        const p = `${path}[${k}]`;
        // A whole entry (a listener, a condition) that came or went is one line.
        if (!ka.has(k)) out.push({ path: p, op: 'added', after: kb.get(k) });
        else if (!kb.has(k)) out.push({ path: p, op: 'removed', before: ka.get(k) });
        else pushAll(out, diffFields(ka.get(k), kb.get(k), p));
      }
      return out;
    }
  }
  return [{ path, op: 'changed', before: a, after: b }];
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'null';
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** The field paths of a Secret's annotations that carry key material (secretRedaction.ts), on either side. */
function keyMaterialPaths(...sides: (KObject | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const o of sides) if (o) for (const k of keyMaterialAnnotations(o)) out.add(`metadata.annotations${seg(k)}`);
  return out;
}

export function formatDiff(d: FieldDiff, secret = false, hidden: ReadonlySet<string> = new Set()): string {
  const p = d.path.replace(/^\./, '');
  const hide = secret && (SECRET_PATHS.test(p) || hidden.has(p));
  if (d.op === 'added') return `+ ${p}${hide ? ' (value hidden)' : `: ${short(d.after)}`}`;
  if (d.op === 'removed') return `- ${p}${hide ? '' : ` (was ${short(d.before)})`}`;
  return `~ ${p}${hide ? ' (value hidden)' : `: ${short(d.before)} -> ${short(d.after)}`}`;
}

// ----- route status ----------------------------------------------------------------------------

interface RouteOutcome {
  parent: string;
  conditions: string[];
}

function routeOutcomes(route: KObject): RouteOutcome[] {
  const st = isObject(route.status) ? route.status : {};
  const parents = Array.isArray(st.parents) ? st.parents.filter(isObject) : [];
  return parents
    .filter((p) => p.controllerName === CONTROLLER_NAME)
    .map((p) => {
      const pr = isObject(p.parentRef) ? p.parentRef : {};
      const parent = `${String(pr.kind ?? 'Gateway')} ${parentRefNamespace(pr, route.metadata.namespace ?? '')}/${String(pr.name ?? '')}${pr.sectionName !== undefined ? ` sectionName=${String(pr.sectionName)}` : ''}${pr.port !== undefined ? ` port=${String(pr.port)}` : ''}`;
      const conds = (Array.isArray(p.conditions) ? p.conditions.filter(isObject) : []).map(
        (c) =>
          `${String(c.type)}=${String(c.status)}${c.reason ? ` ${String(c.reason)}` : ''}${c.message ? `: ${String(c.message)}` : ''}`,
      );
      return { parent, conditions: conds };
    });
}

function refused(route: KObject): boolean {
  return routeOutcomes(route).some((o) => o.conditions.some((c) => c.startsWith('Accepted=False')));
}

// ----- the plan --------------------------------------------------------------------------------

function groupOf(ref: ObjRef): string {
  if (ref.namespace) return ref.namespace;
  if (ref.kind === 'Namespace') return ref.name;
  return '';
}

/** Order within a namespace: the TenantGateway and what it renders first, routes and Secrets after. */
const KIND_RANK = [
  'TenantGateway',
  'Namespace',
  'Gateway',
  'Issuer',
  'Certificate',
  'HTTPRoute',
  'TLSRoute',
  'GRPCRoute',
  'Secret',
];
function rank(c: Change): number {
  const i = KIND_RANK.indexOf(c.ref.kind);
  return i < 0 ? KIND_RANK.length : i;
}

const SYMBOL: Record<Change['op'], string> = { create: '+', update: '~', delete: '-' };
const VERB: Record<Change['op'], string> = { create: 'create', update: 'change', delete: 'delete' };

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? '' : 's'}`;
}

export function renderPlan(result: ReconcileResult, opts: PlanOptions): string {
  const cilium = result.findings.filter((f) => f.rule?.startsWith('cilium.'));
  const warnings = result.findings.filter((f) => !f.rule?.startsWith('cilium.') && f.severity !== 'info');
  const lines = planHeader(result, opts, warnings.length, cilium.length);
  const { groups, refusedIn, refusedUnchanged } = planGroups(result, opts);
  // Only the changed objects are looked up (changeLines), so only they are indexed.
  const changedKeys = new Set(result.changes.map((c) => keyOf(c.ref)));
  const byKey = (objs: readonly KObject[]) => {
    const m = new Map<string, KObject>();
    for (const o of objs) {
      const k = keyOf(o);
      if (changedKeys.has(k)) m.set(k, o);
    }
    return m;
  };
  const before = byKey(opts.before);
  const after = byKey(result.store.all());
  for (const g of [...groups.keys()].sort()) {
    lines.push('', groupHeading(result, g));
    for (const c of [...groups.get(g)!].sort(compareInGroup)) pushAll(lines, changeLines(c, before, after, opts));
    for (const r of refusedIn.get(g) ?? []) {
      lines.push(`  = unchanged ${describe(r)} (refused)`);
      for (const o of routeOutcomes(r)) lines.push(`      status from ${o.parent}: ${o.conditions.join('; ')}`);
    }
  }
  if (warnings.length) {
    lines.push('', 'Warnings:');
    for (const f of warnings) lines.push(`  ${formatFinding(f)}`);
  }
  if (cilium.length) {
    lines.push(
      '',
      `Cilium ${opts.ciliumVersion ?? ''} (what the Gateway implementation does with these Gateways):`.replace(
        '  (',
        ' (',
      ),
    );
    for (const f of cilium) lines.push(`  ${formatFinding(f)} [${f.rule}]`);
  }
  if (!result.changes.length && !refusedUnchanged.length)
    lines.push('', opts.nothingLine ?? 'Nothing to do: the state is already what the controllers want.');
  // Every line escaped (printable.ts): a name or message from input cannot forge a line.
  return textOf(lines);
}

/** The plan's opening: title, channel, counts, notes, the hostname table and what is inadmissible. */
function planHeader(result: ReconcileResult, opts: PlanOptions, warnings: number, cilium: number): string[] {
  const lines: string[] = [];
  const counts = { create: 0, update: 0, delete: 0 };
  for (const c of result.changes) counts[c.op]++;
  lines.push(
    `${opts.title ?? 'Reconcile plan'}${opts.untimed ? '' : ` at ${opts.now}`}${opts.ciliumVersion ? ` for Cilium ${opts.ciliumVersion}${opts.upstreamCilium ? ' (upstream operator image)' : ''}` : ''}`,
  );
  if (opts.cozystack) lines.push(versionLine(opts.cozystack));
  if (opts.channelOrigin) lines.push(`Wildcard-Secret channel: ${opts.channelOrigin}`);
  lines.push(
    `${plural(counts.create, 'object')} to create, ${counts.update} to change, ${counts.delete} to delete; ${plural(warnings, 'warning')}, ${plural(cilium, 'Cilium note')}.`,
  );
  for (const n of opts.notes ?? []) lines.push(n);
  if (opts.leading?.lines.length) {
    lines.push('');
    pushAll(lines, opts.leading.lines);
  }
  if (opts.hostnames?.length) {
    lines.push('');
    pushAll(lines, formatHostnameTable(opts.hostnames));
  }
  if (opts.inadmissible?.length) {
    lines.push(
      '',
      `Inadmissible on their next write (${plural(opts.inadmissible.length, 'object')} the change leaves in place):`,
    );
    for (const x of opts.inadmissible) {
      lines.push(`  ${describe(x.object)}: refused by ValidatingAdmissionPolicy '${x.policy}': ${x.message}`);
      lines.push(`      because ${x.because}`);
    }
  }
  return lines;
}

/** Groups: every namespace with a change, and every namespace holding a refused route. */
function planGroups(
  result: ReconcileResult,
  opts: PlanOptions,
): { groups: Map<string, Change[]>; refusedIn: Map<string, KObject[]>; refusedUnchanged: KObject[] } {
  const groups = new Map<string, Change[]>();
  for (const c of result.changes) {
    if (opts.leading?.kinds.has(c.ref.kind)) continue;
    const g = groupOf(c.ref);
    const inG = groups.get(g);
    if (inG) inG.push(c);
    else groups.set(g, [c]);
  }
  const changedKeys = new Set(result.changes.map((c) => keyOf(c.ref)));
  const refusedUnchanged =
    opts.showRefusedUnchanged === false
      ? []
      : result.store.all().filter((o) => ROUTE_KINDS.has(o.kind) && !changedKeys.has(keyOf(o)) && refused(o));
  const refusedIn = new Map<string, KObject[]>();
  for (const r of refusedUnchanged) {
    const g = groupOf(refOf(r));
    if (!groups.has(g)) groups.set(g, []);
    const inG = refusedIn.get(g);
    if (inG) inG.push(r);
    else refusedIn.set(g, [r]);
  }
  return { groups, refusedIn, refusedUnchanged };
}

/** `Namespace <ns> — TenantGateway <name> (certMode ...)`, or `Cluster-scoped`. */
function groupHeading(result: ReconcileResult, g: string): string {
  if (!g) return 'Cluster-scoped';
  const tgwNote = result.store
    .list('gateway.cozystack.io', TGW_KIND, g)
    .map(
      (t) =>
        `TenantGateway ${t.metadata.name}${isObject(t.spec) && t.spec.certMode ? ` (certMode ${String(t.spec.certMode)})` : ''}`,
    )
    .join(', ');
  return `Namespace ${g}${tgwNote ? ` — ${tgwNote}` : ''}`;
}

/** Within a namespace: by KIND_RANK, then kind, then name. */
function compareInGroup(a: Change, b: Change): number {
  return (
    rank(a) - rank(b) ||
    (a.ref.kind < b.ref.kind ? -1 : a.ref.kind > b.ref.kind ? 1 : 0) ||
    (a.ref.name < b.ref.name ? -1 : a.ref.name > b.ref.name ? 1 : 0)
  );
}

/** One change: what and why, the fields it changes, and the route or TenantGateway status after it. */
/** A values document as data, or undefined when it is none (unparsable, or beyond the input bounds, docs/decisions.md §13). */
function valuesOf(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v = jsyaml.load(text, LOAD_OPTIONS);
    return isObject(v) && !exceedsLimits(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A change of a values channel's `values.yaml` as the changes of the values in it (the text itself when it does not parse). */
function valuesDiffs(d: FieldDiff): FieldDiff[] {
  if (!/^\.(stringData|data)\["values\.yaml"\]$/.test(d.path) || d.op !== 'changed') return [d];
  const a = valuesOf(d.before);
  const b = valuesOf(d.after);
  if (!a || !b) return [d];
  return diffFields(a, b).map((x) => ({ ...x, path: `${d.path}${x.path}` }));
}

function changeLines(
  c: Change,
  before: ReadonlyMap<string, KObject>,
  after: ReadonlyMap<string, KObject>,
  opts: PlanOptions,
): string[] {
  const maxDiff = opts.maxDiffLines ?? 40;
  const lines = [`  ${SYMBOL[c.op]} ${VERB[c.op]} ${describe(c.ref)}`];
  for (const r of c.reasons) lines.push(`      why: ${r}`);
  const k = keyOf(c.ref);
  const now = after.get(k);
  if (c.op === 'update') {
    const was = before.get(k);
    // Route and TenantGateway status is shown as outcomes below, not as a field diff.
    const statusShownBelow = !opts.statusAsFields && (ROUTE_KINDS.has(c.ref.kind) || c.ref.kind === TGW_KIND);
    let diffs = diffFields(was, now).filter(
      (d) =>
        !/^\.metadata\.(resourceVersion|managedFields)/.test(d.path) &&
        !(statusShownBelow && /^\.status(\.|\[|$)/.test(d.path)),
    );
    // A values channel is configuration (docs/decisions.md §C8): its values are shown, key by key.
    const channel = was !== undefined && now !== undefined && isValuesChannel(was) && isValuesChannel(now);
    if (channel) diffs = diffs.flatMap(valuesDiffs);
    const secret = c.ref.kind === 'Secret' && !channel;
    const hidden = secret ? keyMaterialPaths(was, now) : new Set<string>();
    for (const d of diffs.slice(0, maxDiff)) lines.push(`      ${formatDiff(d, secret, hidden)}`);
    if (diffs.length > maxDiff) lines.push(`      ... and ${diffs.length - maxDiff} more field changes (see -o yaml)`);
  }
  if (now && ROUTE_KINDS.has(now.kind) && !opts.statusAsFields)
    for (const o of routeOutcomes(now))
      lines.push(`      status from ${o.parent}: ${o.conditions.join('; ') || '(no conditions)'}`);
  if (now && now.kind === TGW_KIND && !opts.statusAsFields) {
    const st = isObject(now.status) ? now.status : {};
    for (const cnd of Array.isArray(st.conditions) ? st.conditions.filter(isObject) : [])
      lines.push(
        `      condition ${String(cnd.type)}=${String(cnd.status)}${cnd.reason ? ` ${String(cnd.reason)}` : ''}${cnd.message ? `: ${String(cnd.message)}` : ''}`,
      );
  }
  return lines;
}

export type { Finding };
