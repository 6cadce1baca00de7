/**
 * Server-side apply's field ownership (docs/decisions.md §C8; docs/commands/diff.md "A live
 * snapshot is compared as it will be applied"). A live object's `metadata.managedFields` lists,
 * per field manager, the fields it set, as a FieldsV1 tree: `f:<name>` for a map key, `k:<json>`
 * for a list element known by its key fields, `v:<json>` for a set element known by its value,
 * `i:<n>` for an element known by its position, `.` for the element itself; a node with nothing
 * under it is the whole field. This module reads who owns what: the applier (Flux's
 * kustomize-controller, with the kubectl managers whose fields Flux takes over on every apply) and
 * everyone else. `snapshot` keeps the trees and drops the timestamps (managedTrees). Pure.
 */
import { isObject, type KObject } from './model';

/** Flux's kustomize-controller, the applier of a committed tree (its server-side apply field manager). */
export const FLUX_MANAGER = 'kustomize-controller';

/** One FieldsV1 tree, or a node of one. */
export type FieldSet = Record<string, unknown>;

/** Whether the object carries managedFields: a live object read back from the API server. */
export function hasManagedFields(o: KObject): boolean {
  const mf = o.metadata.managedFields;
  return Array.isArray(mf) && mf.length > 0;
}

/**
 * Whether Flux counts a manager's fields as its own when it applies: its own (applied, or written
 * by its client-side apply of old), `before-first-apply`, and every `kubectl` manager
 * (`kubectl`, `kubectl-edit`, `kubectl-patch`, `kubectl-label`, `kubectl-annotate`,
 * `kubectl-client-side-apply`, ...): what they wrote is drift the apply takes back.
 */
export function takenOverByFlux(manager: unknown): boolean {
  return (
    typeof manager === 'string' &&
    (manager === FLUX_MANAGER || manager === 'before-first-apply' || manager.startsWith('kubectl'))
  );
}

/** Who owns the fields of a live object, as Flux's apply sees it. */
export interface Ownership {
  /** The applier's field sets: Flux's own and those it takes over, on the object itself (not a subresource). */
  applier: FieldSet[];
  /** Every other manager's field sets (controllers, other appliers, `flux-client-side-apply`, status writers). */
  others: FieldSet[];
}

export function ownershipOf(o: KObject): Ownership {
  const mf = o.metadata.managedFields;
  const out: Ownership = { applier: [], others: [] };
  if (!Array.isArray(mf)) return out;
  for (const e of mf) {
    if (!isObject(e) || !isObject(e.fieldsV1)) continue;
    if (takenOverByFlux(e.manager) && !e.subresource) out.applier.push(e.fieldsV1);
    else out.others.push(e.fieldsV1);
  }
  return out;
}

/** The sets of a map member `key` under `sets`. */
export function memberSets(sets: readonly FieldSet[], key: string): FieldSet[] {
  const out: FieldSet[] = [];
  for (const s of sets) {
    const c = s[`f:${key}`];
    if (isObject(c)) out.push(c);
  }
  return out;
}

/** Whether one of the sets owns the node itself, whole: a leaf, or an element's `.`. */
export function ownsWhole(sets: readonly FieldSet[]): boolean {
  for (const s of sets) {
    let leaf = true;
    for (const k in s) {
      if (k === '.') return true;
      leaf = false;
    }
    if (leaf) return true;
  }
  return false;
}

/** Each set's elements by their canonical identity (keyIdentity, valueIdentity), read once per set. */
const elementIndex = new WeakMap<FieldSet, Map<string, FieldSet>>();

function indexOf(s: FieldSet): Map<string, FieldSet> {
  let m = elementIndex.get(s);
  if (!m) {
    m = new Map();
    for (const [k, c] of Object.entries(s)) {
      if (!isObject(c) || (!k.startsWith('k:') && !k.startsWith('v:'))) continue;
      try {
        const v: unknown = JSON.parse(k.slice(2));
        m.set(k.startsWith('k:') ? `k:${keyIdentity(v)}` : `v:${valueIdentity(v)}`, c);
      } catch {
        // a malformed entry names no element
      }
    }
    elementIndex.set(s, m);
  }
  return m;
}

/** A `map` list element's identity: its key fields, by name. */
export function keyIdentity(keys: unknown): string {
  if (!isObject(keys)) return '';
  return JSON.stringify(
    Object.keys(keys)
      .sort()
      .map((k) => [k, keys[k]]),
  );
}

/** A `set` element's identity: its value. */
export function valueIdentity(v: unknown): string {
  return JSON.stringify(v) ?? '';
}

/** The sets of the list element of identity `id` (`k:...` of keyIdentity, or `v:...` of valueIdentity). */
export function elementSets(sets: readonly FieldSet[], id: string): FieldSet[] {
  const out: FieldSet[] = [];
  for (const s of sets) {
    const c = indexOf(s).get(id);
    if (c) out.push(c);
  }
  return out;
}

/**
 * The managedFields as a snapshot keeps them: manager, operation, subresource and the field tree;
 * the timestamps (which change on every write and say nothing about ownership) dropped.
 */
export function managedTrees(mf: unknown): unknown {
  if (!Array.isArray(mf)) return mf;
  return mf.map((e) => {
    if (!isObject(e)) return e;
    const { time: _time, ...rest } = e;
    return rest;
  });
}
