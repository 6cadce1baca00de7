/**
 * `diff -o markdown` (docs/commands/diff.md): the comment a CI job posts on a pull request, as
 * argocd-diff-preview and Atlantis post theirs. The counts; the hostname table as a table, those
 * that stop being served first, then those that start, then those that move; the objects the
 * change makes inadmissible; one collapsible `<details>` section per namespace holding its unified
 * diff (Secret material already masked by the comparison); and a size bound: a GitHub comment holds
 * 65,536 characters, so sections that do not fit are left out with a note saying which and how to
 * see them.
 *
 * Nothing from input can forge the comment: every name, hostname and message is printed inside a
 * code span (no emphasis, link, HTML or mention is read there) with its control characters
 * escaped (k8s/printable.ts), `|` escaped in table cells, a fence longer than any backtick run it
 * holds around each diff, and HTML-escaped text in `<summary>`. Pure.
 */
import { escapeControl } from '../k8s/printable';
import { isNamespace, describe, type KObject } from '../k8s/model';
import { unifiedDiff } from './unifiedDiff';
import { newMemo } from '../k8s/yaml';
import { CHANGE_ORDER, describeState, type HostnameRow } from './hostnames';
import type { DiffResult } from './diff';
import { differences } from './comparison';
import { pushAll } from '../k8s/arrays';

/** The most characters a GitHub comment holds. */
export const COMMENT_LIMIT = 65_536;

export interface MarkdownOptions {
  /** The command that shows everything (the note on what was left out names it). */
  rerun: string;
  /** At most this many characters (default COMMENT_LIMIT). */
  limit?: number;
}

/** Inline text from input: a code span that nothing in it can end early. */
export function code(s: string): string {
  const text = escapeControl(s);
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text === '' ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A table cell: a code span with `|` escaped (GFM splits cells on it even inside code). */
function cell(s: string): string {
  return code(s).replace(/\|/g, '\\|');
}

/** Text for HTML (the `<summary>`): control characters escaped, then `&`, `<`, `>`, `"` as entities. */
export function html(s: string): string {
  return escapeControl(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A fenced block: a fence longer than any run of backticks the text holds. */
function fenced(text: string, info: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text.endsWith('\n') ? text : `${text}\n`}${fence}\n`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const CHANGE_WORD: Record<string, string> = {
  stops: 'stops',
  starts: 'starts',
  moves: 'moves',
  reason: 'other reason',
  none: 'unchanged',
};

function hostnameTable(rows: readonly HostnameRow[]): string[] {
  if (!rows.length) return [];
  const changed = rows.filter((r) => r.change !== 'none');
  const counts = CHANGE_ORDER.map((c) => `${CHANGE_WORD[c]} ${rows.filter((r) => r.change === c).length}`);
  const out = [`**Hostnames:** ${counts.join(', ')}.`];
  if (!changed.length) return out;
  out.push('', '| change | hostname | route | before | after |', '| --- | --- | --- | --- | --- |');
  for (const r of changed) {
    const change = r.tls === 'lost' ? `${CHANGE_WORD[r.change]}, loses TLS` : CHANGE_WORD[r.change];
    out.push(
      `| ${change} | ${cell(r.hostname)} | ${cell(r.route)} | ${cell(describeState(r.before))} | ${cell(describeState(r.after))} |`,
    );
  }
  return out;
}

/** The group an object is shown in: its namespace, a Namespace under its own name, else cluster-scoped. */
function groupOf(o: KObject): string {
  if (o.metadata.namespace) return o.metadata.namespace;
  if (isNamespace(o)) return o.metadata.name;
  return '';
}

interface Section {
  group: string;
  text: string;
  objects: number;
}

function sections(d: DiffResult): Section[] {
  const memo = newMemo();
  const byGroup = new Map<string, { created: number; changed: number; deleted: number; diffs: string[] }>();
  for (const it of differences(d)) {
    const o = (it.after ?? it.before)!;
    const g = groupOf(o);
    let s = byGroup.get(g);
    if (!s) byGroup.set(g, (s = { created: 0, changed: 0, deleted: 0, diffs: [] }));
    if (!it.before) s.created++;
    else if (!it.after) s.deleted++;
    else s.changed++;
    s.diffs.push(unifiedDiff(it.before, it.after, 3, memo));
  }
  const out: Section[] = [];
  for (const g of [...byGroup.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a < b ? -1 : a > b ? 1 : 0))) {
    const s = byGroup.get(g)!;
    const what = [
      s.created && `${s.created} to create`,
      s.changed && `${s.changed} to change`,
      s.deleted && `${s.deleted} to delete`,
    ]
      .filter(Boolean)
      .join(', ');
    const title = g ? `Namespace <code>${html(g)}</code>` : 'Cluster-scoped';
    const text = `<details><summary>${title}: ${what}</summary>\n\n${fenced(s.diffs.join(''), 'diff')}\n</details>\n`;
    out.push({ group: g, text, objects: s.created + s.changed + s.deleted });
  }
  return out;
}

/** The comment for a diff result. */
export function markdownComment(d: DiffResult, o: MarkdownOptions): string {
  const limit = o.limit ?? COMMENT_LIMIT;
  const head: string[] = [];
  const n = d.created.length + d.changed.length + d.deleted.length;
  head.push(
    n
      ? `### cozy-gw diff: ${plural(d.created.length, 'object')} to create, ${d.changed.length} to change, ${d.deleted.length} to delete`
      : '### cozy-gw diff: no differences',
  );
  head.push('');
  for (const ns of d.removedNamespaces) {
    const k = d.deleted.filter((x) => x.metadata.namespace === ns).length;
    head.push(
      `- Namespace ${code(ns)} is deleted with everything in it (${plural(k, 'object')} besides the Namespace): its tenant left the tree.`,
    );
  }
  if (d.drift)
    head.push(
      `- One controller pass over the state alone would change ${plural(d.drift, 'object')} (drift, or a tree written without the controller's objects): not the change's, not shown.`,
    );
  if (head[head.length - 1] !== '') head.push('');
  pushAll(head, hostnameTable(d.hostnames));
  head.push('');
  if (d.inadmissible.length) {
    head.push(
      `**Inadmissible on their next write** (${plural(d.inadmissible.length, 'object')} the change leaves in place):`,
      '',
    );
    for (const x of d.inadmissible)
      head.push(
        `- ${code(describe(x.object))}: refused by ValidatingAdmissionPolicy ${code(x.policy)}: ${code(x.message)} (because ${code(x.because)})`,
      );
    head.push('');
  }
  let text = `${head.join('\n').trimEnd()}\n\n`;
  const limitWords = `${limit.toLocaleString('en-US')} characters`;
  const rerun = `Run ${code(o.rerun)} to see every diff (or add ${code('-o plan')} for the account).`;
  const note = (left: Section[]) => {
    const objects = left.reduce((a, s) => a + s.objects, 0);
    const names = left.slice(0, 20).map((s) => (s.group ? code(s.group) : 'cluster-scoped objects'));
    const more = left.length > names.length ? `, and ${left.length - names.length} more` : '';
    return `\n> **Cut to fit a pull-request comment (${limitWords}):** the diffs of ${plural(left.length, 'namespace')} (${plural(objects, 'object')}) are left out: ${names.join(', ')}${more}. ${rerun}\n`;
  };
  // The head alone too long (a huge hostname table): cut at a line, and say so.
  const headCut = () => {
    const cut = `\n> **Cut to fit a pull-request comment (${limitWords}):** the hostname table is cut here and every diff is left out. ${rerun}\n`;
    const keep = text.slice(0, Math.max(0, limit - cut.length));
    return `${keep.slice(0, keep.lastIndexOf('\n') + 1)}${cut}`;
  };
  if (text.length > limit) return headCut();
  const all = sections(d);
  for (let i = 0; i < all.length; i++) {
    const reserve = i + 1 < all.length ? note(all.slice(i + 1)).length : 0;
    if (text.length + all[i].text.length + 1 + reserve <= limit) {
      text += `${all[i].text}\n`;
      continue;
    }
    const cut = `${text}${note(all.slice(i))}`;
    return cut.length <= limit ? cut : headCut();
  }
  return text;
}
