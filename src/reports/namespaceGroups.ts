/**
 * The reviewer's reports group the objects a change touches by namespace (docs/commands/diff.md,
 * "The reviewer's report"): a namespaced object in its namespace, a Namespace in its own group,
 * anything else cluster-scoped, listed last. One rule for the comment and the page. Pure.
 */
import { isNamespace, type KObject } from '../k8s/model';

/** How many objects of a group the change creates, changes and deletes. */
export interface ChangeCounts {
  created: number;
  changed: number;
  deleted: number;
}

/** The group of an object: its namespace, a Namespace's own name, or '' (cluster-scoped). */
export function namespaceGroup(o: KObject): string {
  if (o.metadata.namespace) return o.metadata.namespace;
  if (isNamespace(o)) return o.metadata.name;
  return '';
}

/** Groups in order: by name, the cluster-scoped one ('') last. */
export function compareGroups(a: string, b: string): number {
  return a === '' ? (b === '' ? 0 : 1) : b === '' ? -1 : a < b ? -1 : a > b ? 1 : 0;
}

/** Counts one object's change: `create` when there is no before, `delete` when there is no after. */
export function countChange(s: ChangeCounts, before: unknown, after: unknown): 'create' | 'change' | 'delete' {
  const change = !before ? 'create' : !after ? 'delete' : 'change';
  if (change === 'create') s.created++;
  else if (change === 'delete') s.deleted++;
  else s.changed++;
  return change;
}

/** `2 to create, 1 to delete`: the counts a group's heading names, those that are not 0. */
export function countsPhrase(s: ChangeCounts): string {
  return [
    s.created && `${s.created} to create`,
    s.changed && `${s.changed} to change`,
    s.deleted && `${s.deleted} to delete`,
  ]
    .filter(Boolean)
    .join(', ');
}
