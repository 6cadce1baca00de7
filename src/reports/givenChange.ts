/**
 * The change as the author gave it, shown first in the plan, the comment and the page
 * (docs/commands/diff.md "What it does"): each Tenant the change creates, changes or deletes, with
 * the fields that change (`~ change Tenant tenant-root/alice`, `+ spec.gateway: true`), and the
 * platform values against those a committed tree was rendered with. Against a tree as against a
 * state that holds Tenants: the reviewer reads the edit before its consequences. Pure.
 */
import { describe, type KObject } from '../k8s/model';
import type { DiffResult } from '../diff/diff';
import { isTenant } from '../platform/kinds';
import { diffFields, formatDiff } from './plan';

export interface GivenEdit {
  op: 'create' | 'change' | 'delete';
  object: KObject;
  /** The fields that change (`+ spec.gateway: true`), for a change. */
  fields: string[];
}

/** The kinds the change as given lists (and the plan leaves out of its namespace groups). */
export const GIVEN_KINDS: ReadonlySet<string> = new Set(['Tenant']);

/** Most field lines shown for one Tenant. */
const MAX_FIELDS = 20;

/** Most edits the comment and the page list before the tree (bounded, so the comment's first part still holds the tree). */
export const MAX_LISTED = 20;

/** The line after the listed edits when there are more: every one is in the diffs below. */
export function moreEdits(edits: readonly GivenEdit[], max = MAX_LISTED): string | undefined {
  const more = edits.length - max;
  return more > 0 ? `... and ${more} more Tenant${more === 1 ? '' : 's'} (every one is in the diffs below)` : undefined;
}

/** The Tenants the change creates, changes and deletes, in the result's order. */
export function givenEdits(d: DiffResult): GivenEdit[] {
  const out: GivenEdit[] = [];
  for (const o of d.created) if (isTenant(o)) out.push({ op: 'create', object: o, fields: [] });
  for (const c of d.changed) {
    if (!isTenant(c.after)) continue;
    const fields = diffFields(c.before, c.after)
      .filter((f) => !/^\.metadata\.(resourceVersion|managedFields|generation|uid|creationTimestamp)/.test(f.path))
      .map((f) => formatDiff(f));
    out.push({
      op: 'change',
      object: c.after,
      fields:
        fields.length > MAX_FIELDS
          ? [...fields.slice(0, MAX_FIELDS), `... and ${fields.length - MAX_FIELDS} more`]
          : fields,
    });
  }
  for (const o of d.deleted) if (isTenant(o)) out.push({ op: 'delete', object: o, fields: [] });
  return out;
}

const SYMBOL = { create: '+', change: '~', delete: '-' } as const;

/** `~ change Tenant tenant-root/alice`. */
export function editTitle(e: GivenEdit): string {
  return `${SYMBOL[e.op]} ${e.op} ${describe(e.object)}`;
}

/** The plan's opening section: the edits, each with its fields, then the values line; none when there is neither. */
export function givenChangeLines(edits: readonly GivenEdit[], values: string | undefined): string[] {
  if (!edits.length && !values) return [];
  const lines = ['The change as given:'];
  for (const e of edits) {
    lines.push(`  ${editTitle(e)}`);
    for (const f of e.fields) lines.push(`      ${f}`);
  }
  if (values) lines.push(`  ${values}`);
  return lines;
}
