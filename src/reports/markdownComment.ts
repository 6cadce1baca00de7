/**
 * `diff -o markdown` (docs/commands/diff.md):
 * the comment a CI job posts on a pull request, as argocd-diff-preview and Atlantis post theirs.
 * The counts; the touched part of the tenant tree as a Mermaid graph (mermaidTree.ts); the
 * findings about what the change gives (every one diffOutput.ts's relevantFindings keeps: a typo
 * that removes a Gateway is named beside the removal); the hostname table as a table, those that
 * stop being served first, then those that start, then those that move; the objects the change
 * makes inadmissible; one collapsible `<details>` section per namespace holding its
 * unified diff (Secret material already masked by the comparison).
 *
 * Two shapes. One comment (markdownComment): at most `limit` characters (a GitHub comment holds
 * 65,536), sections that do not fit left out with a note saying which and how to see them
 * (`--comment-dir`). Parts (markdownParts, `--comment-dir`): the same text split into comments of
 * at most `limit` characters each, nothing dropped: a table continues in the next part under its
 * header, and one namespace's diff longer than a part continues in the next with a marker.
 *
 * Nothing from input can forge the comment: every name, hostname and message goes through the one
 * escaping rule (markdownText.ts), diffs in fences nothing in them closes. Pure.
 */
import type { Finding } from '../k8s/diagnostics';
import { formatFinding } from '../k8s/diagnostics';
import { describe } from '../k8s/model';
import { unifiedDiff } from './unifiedDiff';
import { compareGroups, countChange, countsPhrase, namespaceGroup } from './namespaceGroups';
import { newMemo } from '../k8s/yaml';
import {
  describeState,
  groupRoutes,
  hostnameGroups,
  reportChange,
  reportCounts,
  type HostnameRow,
} from '../diff/hostnames';
import type { DiffResult } from '../diff/diff';
import { differences } from '../diff/comparison';
import { code, entities, fenceFor } from './markdownText';
import { pushAll } from '../k8s/arrays';
import { tenantTree } from './tenantTree';
import { mermaidTree } from './mermaidTree';
import { versionMarkdown, type VersionHeader } from './versionHeader';
import { editTitle, givenEdits, MAX_LISTED, moreEdits, type GivenEdit } from './givenChange';

export { code, html } from './markdownText';

import { COMMENT_LIMIT } from './commentParts';

export { COMMENT_LIMIT, MIN_COMMENT_LIMIT } from './commentParts';
export { partFileName } from './commentParts';

export interface MarkdownOptions {
  /** The command that shows everything (the note on what was left out names it). */
  rerun: string;
  /** At most this many characters per comment (default COMMENT_LIMIT). */
  limit?: number;
  /** The findings worth repeating (diffOutput.ts relevantFindings), placed at file and line. */
  findings?: readonly Finding[];
  /** The Cozystack version reproduced, and the state's (the line under the heading). */
  cozystack?: VersionHeader;
  /** The platform values against the tree's (diffOutput.ts valuesLine), shown with the change as given. */
  values?: string;
}

/**
 * A piece of the comment: `open` and `close` around its items (table rows, diff lines). Packed
 * into parts, a block whose items do not fit continues in the next part: `open(true)` says it
 * continues, `close(true)` that it goes on.
 */
interface Block {
  open: (continued: boolean) => string;
  items: string[];
  close: (more: boolean) => string;
  /** For a namespace's section: its group and how many objects it holds (the cut comment's note). */
  group?: string;
  objects?: number;
}

function text(s: string): Block {
  return { open: () => '', items: [s], close: () => '' };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A table row: `first` (the change, cozy-gw's own word) and `cells` (text from input, escaped
 * here), as rows of at most `max` characters: a cell too long for one row continues in the rows
 * below it, whose first cell is LINE_CONTINUES (a row is never cut across, so a part holds one).
 */
function tableRows(first: string, cells: string[], max: number): string[] {
  const row = (head: string, xs: string[]) => `| ${head} | ${xs.join(' | ')} |\n`;
  const whole = row(first, cells.map(code));
  if (whole.length <= max) return [whole];
  // Each cell's share of the row, past its own markup and the row's.
  const share = Math.floor((max - first.length - 6 - 3 * cells.length) / cells.length) - '<code></code>'.length;
  const pieces = cells.map((c) => codePieces(c, Math.max(16, share)));
  const n = pieces.reduce((m, p) => Math.max(m, p.length), 0);
  return Array.from({ length: n }, (_, i) =>
    row(
      i ? LINE_CONTINUES : first,
      pieces.map((p) => (i < p.length ? code(p[i]) : '')),
    ),
  );
}

/** Text as pieces whose escaped form (markdownText.ts) is at most `max` characters each, whole code points. */
function codePieces(s: string, max: number): string[] {
  const out: string[] = [];
  let cur = '';
  let size = 0;
  for (const ch of s) {
    const w = entities(ch).length;
    if (size + w > max && cur) {
      out.push(cur);
      cur = '';
      size = 0;
    }
    cur += ch;
    size += w;
  }
  return out.length && !cur ? out : [...out, cur];
}

/**
 * The hostname table: counts, then the changed rows, a shared hostname's rows once (hostnameGroups:
 * its routes named up to ten, counted past them), each row at most `maxRow` characters.
 */
function hostnameBlocks(rows: readonly HostnameRow[], maxRow: number): Block[] {
  if (!rows.length) return [];
  const changed = rows.filter((r) => r.change !== 'none');
  const counts = reportCounts(rows);
  const out = [text(`**Hostnames:** ${counts.join(', ')}.\n\n`)];
  if (!changed.length) return out;
  const header = '| change | hostname | route | before | after |\n| --- | --- | --- | --- | --- |\n';
  out.push({
    open: (continued) => `${continued ? '*The hostname table, continued:*\n\n' : ''}${header}`,
    items: hostnameGroups(changed).flatMap((g) => {
      const r = g.rows[0];
      return tableRows(
        reportChange(r),
        [r.hostname, groupRoutes(g), describeState(r.before), describeState(r.after)],
        maxRow,
      );
    }),
    close: (more) => (more ? '\n*The hostname table continues in the next part.*\n\n' : '\n'),
  });
  return out;
}

/** A finding as a list item: its severity, then where and what, as inline text from input. */
function findingItem(f: Finding): string {
  const line = formatFinding(f);
  const rest = line.slice(line.indexOf(': ') + 2);
  return `- **${f.severity}**: ${code(rest)}\n`;
}

/** The group an object is shown in: its namespace, a Namespace under its own name, else cluster-scoped. */
/** What opens each further piece of a diff line split by splitLong. */
export const LINE_CONTINUES = '↪';

/**
 * A diff line as items of at most `max` characters: a longer line is split, each further piece
 * opened by LINE_CONTINUES (nothing dropped).
 */
function splitLong(line: string, max: number): string[] {
  if (line.length <= max) return [line];
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    let j = Math.min(line.length, i + max - 1);
    // Never between the halves of a surrogate pair.
    if (j < line.length && /[\ud800-\udbff]/.test(line[j - 1])) j--;
    out.push(`${i ? LINE_CONTINUES : ''}${line.slice(i, j)}`);
    i = j;
  }
  return out;
}

function sectionBlocks(d: DiffResult, maxLine: number): Block[] {
  const memo = newMemo();
  const byGroup = new Map<string, { created: number; changed: number; deleted: number; diffs: string[] }>();
  for (const it of differences(d)) {
    const o = (it.after ?? it.before)!;
    const g = namespaceGroup(o);
    let s = byGroup.get(g);
    if (!s) byGroup.set(g, (s = { created: 0, changed: 0, deleted: 0, diffs: [] }));
    countChange(s, it.before, it.after);
    s.diffs.push(unifiedDiff(it.before, it.after, 3, memo));
  }
  const out: Block[] = [];
  for (const g of [...byGroup.keys()].sort(compareGroups)) {
    const s = byGroup.get(g)!;
    const what = countsPhrase(s);
    const title = g ? `Namespace ${code(g)}` : 'Cluster-scoped';
    const body = s.diffs.join('');
    const fence = fenceFor(body);
    const lines = (body.endsWith('\n') ? body.slice(0, -1) : body).split('\n');
    out.push({
      open: (continued) =>
        `<details><summary>${title}: ${what}${continued ? ' (continued from the previous part)' : ''}</summary>\n\n${fence}diff\n`,
      items: lines.flatMap((l) => splitLong(l, maxLine)).map((l) => `${l}\n`),
      close: (more) =>
        `${fence}\n\n</details>\n\n${more ? `> ↪ The diff of ${g ? `namespace ${code(g)}` : 'the cluster-scoped objects'} continues in the next part.\n\n` : ''}`,
      group: g,
      objects: s.created + s.changed + s.deleted,
    });
  }
  return out;
}

function whole(b: Block): string {
  return b.open(false) + b.items.join('') + b.close(false);
}

/** The change as given (givenChange.ts): each Tenant's edit with its fields, and the values line. */
function givenBlocks(edits: readonly GivenEdit[], values: string | undefined): Block[] {
  if (!edits.length && !values) return [];
  const out = [text('**The change as given:**\n\n')];
  for (const e of edits.slice(0, MAX_LISTED))
    out.push(text(`- ${code(editTitle(e))}${e.fields.length ? `: ${e.fields.map(code).join(', ')}` : ''}\n`));
  const more = moreEdits(edits);
  if (more) out.push(text(`- ${more}\n`));
  if (values) out.push(text(`- ${code(values)}\n`));
  out.push(text('\n'));
  return out;
}

/**
 * The comment's head: counts, notes, the change as given, findings, hostnames, inadmissible
 * objects, the tenant tree; a table row at most `maxRow` characters.
 */
function headBlocks(d: DiffResult, o: MarkdownOptions, maxRow = Infinity): Block[] {
  const out: Block[] = [];
  const n = d.created.length + d.changed.length + d.deleted.length;
  out.push(
    text(
      n
        ? `### cozy-gw diff: ${plural(d.created.length, 'object')} to create, ${d.changed.length} to change, ${d.deleted.length} to delete\n\n`
        : '### cozy-gw diff: no differences\n\n',
    ),
  );
  if (o.cozystack) out.push(text(versionMarkdown(o.cozystack)));
  const notes: string[] = [];
  for (const ns of d.removedNamespaces) {
    const k = d.deleted.filter((x) => x.metadata.namespace === ns).length;
    notes.push(
      `- Namespace ${code(ns)} is deleted with everything in it (${plural(k, 'object')} besides the Namespace): its tenant left the tree.\n`,
    );
  }
  // Over a tree that is no alarm: a tree never holds the controller's objects (stderr still counts them).
  if (d.drift && !d.fromTree)
    notes.push(
      `- One controller pass over the state alone would change ${plural(d.drift, 'object')} (drift, or a state written without the controller's objects): not the change's, not shown.\n`,
    );
  if (notes.length) {
    pushAll(out, notes.map(text));
    out.push(text('\n'));
  }
  pushAll(out, givenBlocks(givenEdits(d), o.values));
  // The tree before the long lists, so that the first part always holds it (bounded: mermaidTree.ts).
  const graph = mermaidTree(tenantTree(d));
  if (graph.length)
    out.push(
      text(
        `**The tenant tree** (the tenants the change touches and their ancestors):\n\n\`\`\`mermaid\n${graph.join('\n')}\n\`\`\`\n\n`,
      ),
    );
  const findings = o.findings ?? [];
  if (findings.length) {
    const errors = findings.filter((f) => f.severity === 'error').length;
    out.push(
      text(
        `**Findings** (${plural(errors, 'error')}, ${plural(findings.length - errors, 'warning')} about what the change gives):\n\n`,
      ),
    );
    for (const f of findings) out.push(text(findingItem(f)));
    out.push(text('\n'));
  }
  pushAll(out, hostnameBlocks(d.hostnames, maxRow));
  if (d.inadmissible.length) {
    out.push(
      text(
        `**Inadmissible on their next write** (${plural(d.inadmissible.length, 'object')} the change leaves in place):\n\n`,
      ),
    );
    for (const x of d.inadmissible)
      out.push(
        text(
          `- ${code(describe(x.object))}: refused by ValidatingAdmissionPolicy ${code(x.policy)}: ${code(x.message)} (because ${code(x.because)})\n`,
        ),
      );
    out.push(text('\n'));
  }
  return out;
}

/** The comment for a diff result: one comment, at most `limit` characters, what does not fit left out with a note. */
export function markdownComment(d: DiffResult, o: MarkdownOptions): string {
  const limit = o.limit ?? COMMENT_LIMIT;
  let out = headBlocks(d, o).map(whole).join('');
  out = `${out.trimEnd()}\n\n`;
  const limitWords = `${limit.toLocaleString('en-US')} characters`;
  const rerun = `Run ${code(o.rerun)} to see every diff (add \`-o plan\` for the account), or add \`-o markdown --comment-dir DIR\` to write the comment in parts that leave nothing out.`;
  const note = (left: Block[]) => {
    const objects = left.reduce((a, s) => a + (s.objects ?? 0), 0);
    const names = left.slice(0, 20).map((s) => (s.group ? code(s.group) : 'cluster-scoped objects'));
    const more = left.length > names.length ? `, and ${left.length - names.length} more` : '';
    return `\n> **Cut to fit a pull-request comment (${limitWords}):** the diffs of ${plural(left.length, 'namespace')} (${plural(objects, 'object')}) are left out: ${names.join(', ')}${more}. ${rerun}\n`;
  };
  // The head alone too long (a huge hostname table): cut at a line, and say so.
  const headCut = () => {
    const cut = `\n> **Cut to fit a pull-request comment (${limitWords}):** what follows this line and every diff are left out. ${rerun}\n`;
    const keep = out.slice(0, Math.max(0, limit - cut.length));
    return `${keep.slice(0, keep.lastIndexOf('\n') + 1)}${cut}`;
  };
  if (out.length > limit) return headCut();
  const all = sectionBlocks(d, limit);
  for (let i = 0; i < all.length; i++) {
    const t = whole(all[i]);
    const reserve = i + 1 < all.length ? note(all.slice(i + 1)).length : 0;
    if (out.length + t.length + reserve <= limit) {
      out += t;
      continue;
    }
    const cut = `${out}${note(all.slice(i))}`;
    return cut.length <= limit ? cut : headCut();
  }
  return `${out.trimEnd()}\n`;
}

/**
 * An item of Markdown as pieces of at most `max` characters, each a line: cut between lines, and a
 * line too long cut where no character reference or tag is (a `<code>` span closed before the cut
 * and opened again after it), each further piece of a line opened by LINE_CONTINUES. Nothing is
 * dropped.
 */
function splitItem(item: string, max: number): string[] {
  const out: string[] = [];
  const room = Math.max(32, max) - 1;
  for (const line of item.split(/(?<=\n)/)) {
    const body = line.endsWith('\n') ? line.slice(0, -1) : line;
    if (body.length <= room) {
      out.push(`${body}\n`);
      continue;
    }
    let cur = '';
    let inCode = false;
    for (const tok of body.match(/<\/?code>|&#\d+;|[\ud800-\udbff][\udc00-\udfff]|[^]/g) ?? []) {
      if (cur.length + tok.length + (inCode ? 7 : 0) > room) {
        out.push(`${cur}${inCode ? '</code>' : ''}\n`);
        cur = `${LINE_CONTINUES}${inCode ? '<code>' : ''}`;
      }
      cur += tok;
      if (tok === '<code>') inCode = true;
      else if (tok === '</code>') inCode = false;
    }
    out.push(`${cur}\n`);
  }
  return out;
}

/** What a part's own lines (its marker, heading and "continued" line) may take. */
const PART_RESERVE = 240;

/** The hidden marker every part starts with (the CI example finds the previous run's comments by it). */
export const PART_MARKER = '<!-- cozy-gw diff comment';

/** Blocks packed into parts of at most `room` characters each, in order; a block that does not fit continues. */
function pack(blocks: Block[], room: number): string[] {
  const parts: string[] = [];
  let cur = '';
  const flush = () => {
    if (cur) parts.push(cur);
    cur = '';
  };
  for (const b of blocks) {
    const all = whole(b);
    if (cur.length + all.length <= room) {
      cur += all;
      continue;
    }
    if (all.length <= room) {
      flush();
      cur = all;
      continue;
    }
    let n = b.items.length;
    let i = 0;
    let continued = false;
    while (i < n) {
      const open = b.open(continued);
      let size = cur.length + open.length;
      let j = i;
      while (j < n) {
        const next = size + b.items[j].length;
        if (next + b.close(j + 1 < n).length > room) break;
        size = next;
        j++;
      }
      if (j === i) {
        // Not one more item fits here: a new part; an item that outgrows an empty part is cut into
        // pieces that fit (a table row or a diff line never does: tableRows, splitLong).
        if (cur) flush();
        else {
          const pieces = splitItem(b.items[i], room - open.length - b.close(true).length);
          if (pieces.length === 1) throw new Error(`a comment part of ${room} characters cannot hold a line`);
          b.items = [...b.items.slice(0, i), ...pieces, ...b.items.slice(i + 1)];
          n = b.items.length;
        }
        continue;
      }
      cur += open + b.items.slice(i, j).join('') + b.close(j < n);
      i = j;
      continued = true;
      if (i < n) flush();
    }
  }
  flush();
  return parts;
}

/**
 * The comment in parts (`--comment-dir`): each at most `limit` characters, nothing dropped. The
 * first holds the counts, the findings, the hostname table and the tenant tree; the namespaces'
 * diffs follow, in order, a diff longer than a part continuing in the next with a marker. Each
 * part opens with a hidden marker naming it (`<!-- cozy-gw diff comment 1/3 -->`).
 */
export function markdownParts(d: DiffResult, o: MarkdownOptions): string[] {
  const limit = o.limit ?? COMMENT_LIMIT;
  const room = limit - PART_RESERVE;
  const blocks = [...headBlocks(d, o, Math.floor(room / 2)), ...sectionBlocks(d, Math.floor(room / 2))];
  const bodies = pack(blocks, room);
  const n = bodies.length;
  return bodies.map((body, i) => {
    const head = `${PART_MARKER} ${i + 1}/${n} -->\n${i ? `### cozy-gw diff, part ${i + 1} of ${n}\n\n` : ''}`;
    const tail = i + 1 < n ? `\n*Continued in part ${i + 2} of ${n}.*\n` : '';
    return `${head}${body.trimEnd()}\n${tail}`;
  });
}
