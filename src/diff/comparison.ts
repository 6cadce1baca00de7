/**
 * Two cluster states compared object by object (docs/commands/diff.md): the objects
 * created, changed (before and after) and deleted, by group, kind, namespace and name, in
 * render's output order (Namespaces, namespaced objects by namespace, cluster-scoped ones).
 * Secrets are compared as the API server stores them and shown masked (k8s/secretMasking.ts):
 * key material never leaves this module; where a side's data was left out, by its digest, and a
 * Secret whose data cannot be compared is listed (`uncomparable`). An object the same in both (the same reference, as a
 * pass leaves what it does not touch, or equal) costs one comparison. Pure.
 */
import { deepEqual, keyOf, type KObject } from '../k8s/model';
import { isSecret } from '../k8s/secretRedaction';
import { secretSides } from '../k8s/secretMasking';
import { orderOutput } from '../pipelines/render';

export interface ChangedObject {
  before: KObject;
  after: KObject;
}

export interface Comparison {
  created: KObject[];
  changed: ChangedObject[];
  deleted: KObject[];
  /**
   * Secrets among `changed` whose data one side left out without a digest: nothing tells whether
   * the data changes (docs/decisions.md §C8: "where it cannot compare, it
   * says so on stderr and never exits 0").
   */
  uncomparable?: KObject[];
}

/** `before` and `after` as two states; an object both hold (the same reference) costs no comparison. */
export function compareStates(before: readonly KObject[], after: readonly KObject[]): Comparison {
  // Each key's position in `before` (the last, as a Map keeps it), and which keys `after` has:
  // marked by that position, so the walks hash each key once.
  const at = new Map<string, number>();
  const beforeKeys = new Array<string>(before.length);
  for (let i = 0; i < before.length; i++) at.set((beforeKeys[i] = keyOf(before[i])), i);
  const seen = new Uint8Array(before.length);
  const created: KObject[] = [];
  const changed: ChangedObject[] = [];
  const deleted: KObject[] = [];
  const uncomparable: KObject[] = [];
  for (const a of after) {
    const i = at.get(keyOf(a));
    const b = i === undefined ? undefined : before[i];
    if (i !== undefined) seen[i] = 1;
    if (b === a) continue;
    if (isSecret(a) || (b && isSecret(b))) {
      const s = secretSides(b, a);
      if (!b) created.push(s.after!);
      else if (!s.same) changed.push({ before: s.before!, after: s.after! });
      if (s.hidden === 'unknown') uncomparable.push(s.after!);
      continue;
    }
    if (!b) created.push(a);
    else if (!deepEqual(b, a)) changed.push({ before: b, after: a });
  }
  const unique = at.size === before.length;
  for (let i = 0; i < before.length; i++) {
    const b = before[i];
    if (!seen[unique ? i : at.get(beforeKeys[i])!]) deleted.push(isSecret(b) ? secretSides(b, undefined).before! : b);
  }
  const position = new Map(orderOutput(changed.map((c) => c.after)).map((o, i) => [keyOf(o), i]));
  changed.sort((x, y) => position.get(keyOf(x.after))! - position.get(keyOf(y.after))!);
  return { created: orderOutput(created), changed, deleted: orderOutput(deleted), uncomparable };
}

/** How many objects differ between two states. */
export function differenceCount(c: Comparison): number {
  return c.created.length + c.changed.length + c.deleted.length;
}

/** Every difference as (before, after), in render's output order: created, changed and deleted interleaved. */
export function differences(c: Comparison): { before?: KObject; after?: KObject }[] {
  const items = new Map<string, { before?: KObject; after?: KObject }>();
  for (const o of c.created) items.set(keyOf(o), { after: o });
  for (const x of c.changed) items.set(keyOf(x.after), x);
  for (const o of c.deleted) items.set(keyOf(o), { before: o });
  return orderOutput([...items.values()].map((i) => (i.after ?? i.before)!)).map((o) => items.get(keyOf(o))!);
}
