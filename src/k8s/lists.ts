/**
 * `kind: List` and any `*List` kind (docs/commands/render.md: "`kind: List` and any `*List` kind
 * are flattened into their `items`"). The one definition of the rule; pure.
 */
import { isObject } from './model';

/** A `v1 List` or any `*List` kind with an items array. */
export function isList(o: unknown): o is Record<string, unknown> & { kind: string; items: unknown[] } {
  return isObject(o) && typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items);
}

/** The objects of a List, nested Lists flattened too. */
export function flattenList(o: { items: unknown[] }): unknown[] {
  return o.items.flatMap((it) => (isList(it) ? flattenList(it) : [it]));
}
