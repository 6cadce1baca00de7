/**
 * Server-side apply's field ownership (docs/decisions.md §C8: "A field the
 * manifests stop setting shows as removed where the state says the applier owned it (its
 * managedFields), as server-side apply removes it"). A live object's `metadata.managedFields` lists,
 * per field manager, the fields it set, as a FieldsV1 tree: `f:<name>` for a map key, `k:<json>`
 * for a list element known by its key fields, `v:<json>` for a set element known by its value,
 * `i:<n>` for an element known by its position, `.` for the element itself. This module answers
 * one question over it: does a manager own a field path. `snapshot` keeps the trees and drops the
 * timestamps (managedTrees). Pure.
 */
import { deepEqual, isObject, type KObject } from './model';

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
 * The field sets `manager` owns on the object itself (not a subresource such as `status`): none
 * when it never applied it.
 */
export function ownedBy(o: KObject, manager: string): FieldSet[] {
  const mf = o.metadata.managedFields;
  if (!Array.isArray(mf)) return [];
  const out: FieldSet[] = [];
  for (const e of mf)
    if (isObject(e) && e.manager === manager && !e.subresource && isObject(e.fieldsV1)) out.push(e.fieldsV1);
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

/** Whether a list element matches a `k:{...}` key: every key field equal. */
function keyMatches(json: string, element: unknown): boolean {
  let k: unknown;
  try {
    k = JSON.parse(json);
  } catch {
    return false;
  }
  return isObject(k) && isObject(element) && Object.entries(k).every(([f, v]) => deepEqual(element[f], v));
}

/** The sets of list element `element` (at `index`) under `sets`. */
export function elementSets(sets: readonly FieldSet[], element: unknown, index: number): FieldSet[] {
  const out: FieldSet[] = [];
  for (const s of sets)
    for (const [k, c] of Object.entries(s)) {
      if (!isObject(c)) continue;
      if (k === `i:${index}`) out.push(c);
      else if (k.startsWith('k:') && keyMatches(k.slice(2), element)) out.push(c);
      else if (k.startsWith('v:')) {
        try {
          if (deepEqual(JSON.parse(k.slice(2)), element)) out.push(c);
        } catch {
          // a malformed entry names no element
        }
      }
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
