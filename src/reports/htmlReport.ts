/**
 * `diff -o html` (docs/commands/diff.md): one
 * self-contained HTML page for a CI artifact or a local preview. The counts; the findings about
 * what the change gives; the tenant tree as a picture (htmlTree.ts); the hostname table, those
 * that stop being served first, then those that start, then those that move; the objects the
 * change makes inadmissible (the admission look-ahead); one section per namespace with each
 * object's unified diff, filterable by namespace, kind and change.
 *
 * Safe to open whatever the input held:
 * - nothing external: no URL in any `src` or `href` (the only links are to the page's own
 *   fragments), no font, no image; a Content-Security-Policy (`default-src 'none'`) allows the
 *   page's one stylesheet and one script by their SHA-256 and nothing else;
 * - every string from input escaped (htmlText: control and bidirectional characters first, then
 *   `& < > " '`), in text and attributes alike; the script reads `data-` attributes and writes
 *   only `hidden` and a count, never HTML;
 * - Secret material never present: the diffs are of the comparison's masked objects, and the tree
 *   reads Namespaces and TenantGateways only;
 * - readable with scripts off: every section is open and the filter (hidden until the script
 *   shows it) is the script's only work.
 * Pure: the result in, the page out.
 */
import { createHash } from 'node:crypto';
import type { Finding } from '../k8s/diagnostics';
import { pushAll } from '../k8s/arrays';
import { formatFinding } from '../k8s/diagnostics';
import { describe, type KObject } from '../k8s/model';
import { newMemo } from '../k8s/yaml';
import type { DiffResult } from '../diff/diff';
import { differences } from '../diff/comparison';
import { unifiedDiff } from './unifiedDiff';
import {
  CHANGE_ORDER,
  describeState,
  groupRoutes,
  hostnameGroups,
  reportChange,
  reportCounts,
  type HostnameRow,
} from '../diff/hostnames';
import { tenantTree, type TenantTree } from './tenantTree';
import { editTitle, givenEdits, MAX_LISTED, moreEdits } from './givenChange';
import { EPOCH } from '../k8s/time';
import { compareGroups, countChange, countsPhrase, namespaceGroup } from './namespaceGroups';
import { htmlText, treeSvg } from './htmlTree';
import { versionHtml, type VersionHeader } from './versionHeader';

export interface HtmlOptions {
  /** The findings worth repeating (diffOutput.ts relevantFindings), placed at file and line. */
  findings: readonly Finding[];
  /** The command line without `-o` (the page names it). */
  rerun: string;
  /** The Cozystack version reproduced, and the state's (under the counts). */
  cozystack?: VersionHeader;
  /** The platform values against the tree's (diffOutput.ts valuesLine), shown with the change as given. */
  values?: string;
  /** The clock the conditions were written with (`--now`, SOURCE_DATE_EPOCH or the epoch): the page says which. */
  now?: string;
}

/** The group value of cluster-scoped objects (no namespace holds parentheses). */
const CLUSTER = '(cluster-scoped)';

const STYLE = `
:root{color-scheme:light dark;--fg:#1d2330;--bg:#fff;--muted:#667085;--line:#d0d5dd;--add:#1a7f37;--del:#cf222e;--chg:#9a6700;--tch:#3b5b9a;--addbg:#e6ffec;--delbg:#ffebe9;--hunk:#ddf4ff}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#30363d;--addbg:#12361f;--delbg:#3c1618;--hunk:#0c2d6b}}
[hidden]{display:none!important}
body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1400px;padding:0 16px 48px}
h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line)}h3{font-size:15px;margin:16px 0 6px}
nav a{margin-right:14px}.muted,.folded{color:var(--muted)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
table{border-collapse:collapse;width:100%}th,td{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere}tr.stops td:first-child{color:var(--del)}tr.starts td:first-child{color:var(--add)}tr.moves td:first-child{color:var(--chg)}
.figure{overflow:auto;border:1px solid var(--line);max-height:80vh}
svg.tree{font:12px system-ui,sans-serif;display:block}svg.tree.narrow{display:none;max-width:100%;height:auto}
svg .edge{fill:none;stroke:var(--line);stroke-width:1.2}
svg .pub{fill:none;stroke:var(--muted);stroke-width:1.3;stroke-dasharray:4 3}svg .pub.moved{stroke:#0969da;stroke-width:2}svg .pub.head{fill:var(--muted);stroke:none}svg .pub.moved.head{fill:#0969da}
svg .n{stroke-width:1.5;fill:var(--bg);stroke:var(--muted)}
svg .n.added{fill:var(--add);stroke:var(--add)}svg .n.removed{fill:var(--del);stroke:var(--del)}svg .n.changed{fill:#d4a72c;stroke:var(--chg)}svg .n.touched{fill:#54aeff;stroke:var(--tch)}
svg text{fill:var(--fg)}svg text.removed .ns{text-decoration:line-through}svg .side{fill:var(--muted)}
svg text.added .side,svg text.changed .side,svg text.removed .side{font-weight:600}svg text.added .side{fill:var(--add)}svg text.removed .side{fill:var(--del)}svg text.changed .side{fill:var(--chg)}
svg text.folded{fill:var(--muted);font-style:italic}
.legend span{margin-right:14px;display:inline-block;white-space:nowrap}.sw{display:inline-block;width:10px;height:10px;border:1.5px solid var(--muted);border-radius:50%;margin-right:4px;vertical-align:-1px}
.sw.added{background:var(--add)}.sw.removed{background:var(--del)}.sw.changed{background:#d4a72c}.sw.touched{background:#54aeff}.sw.gw{border-radius:0}
form#filter{position:sticky;top:0;background:var(--bg);padding:8px 0;border-bottom:1px solid var(--line);z-index:1}form#filter label{margin-right:12px}
details.obj{margin:6px 0 10px;border:1px solid var(--line);border-radius:4px}details.obj>summary{padding:4px 8px;cursor:pointer;font-family:ui-monospace,monospace;font-size:12px}
.badge{display:inline-block;border-radius:8px;padding:0 6px;font-size:11px;margin-left:6px;color:#fff}.badge.create{background:var(--add)}.badge.delete{background:var(--del)}.badge.change{background:var(--chg)}
pre.diff{margin:0;padding:6px 8px;overflow:auto;border-top:1px solid var(--line)}pre.diff span{display:block;white-space:pre}
pre.diff .a{background:var(--addbg)}pre.diff .d{background:var(--delbg)}pre.diff .h{background:var(--hunk);color:var(--muted)}
ul.findings li.error{color:var(--del)}
ul.given code{font-size:13px}p.clock{font-size:12px}
@media (max-width:640px){body{padding:0 8px 32px}nav a{display:inline-block;margin:0 10px 4px 0}
svg.tree.wide{display:none}svg.tree.narrow{display:block}.figure{max-height:none}
#hostnames table,#hostnames tbody,#hostnames tr,#hostnames td{display:block;width:auto}#hostnames thead{display:none}
#hostnames tr{border:1px solid var(--line);margin:0 0 8px}#hostnames td{border:0;border-top:1px solid var(--line)}#hostnames td:first-child{border-top:0}
#hostnames td::before{content:attr(data-label) ": ";color:var(--muted);font-family:system-ui,sans-serif}
form#filter label{display:inline-block;margin-bottom:4px}.legend span{white-space:normal}}
`;

const SCRIPT = `
(function () {
  var form = document.getElementById('filter');
  if (!form) return;
  var ns = document.getElementById('f-ns'), kind = document.getElementById('f-kind'), change = document.getElementById('f-change');
  var count = document.getElementById('f-count');
  var sections = document.querySelectorAll('section.ns');
  function apply() {
    var shown = 0, objects = 0;
    for (var i = 0; i < sections.length; i++) {
      var s = sections[i], any = false;
      var items = s.querySelectorAll('details.obj');
      for (var j = 0; j < items.length; j++) {
        var d = items[j];
        var ok = (!ns.value || s.getAttribute('data-ns') === ns.value) &&
          (!kind.value || d.getAttribute('data-kind') === kind.value) &&
          (!change.value || d.getAttribute('data-change') === change.value);
        d.hidden = !ok;
        if (ok) { any = true; objects++; }
      }
      s.hidden = !any;
      if (any) shown++;
    }
    count.textContent = shown + ' of ' + sections.length + ' sections, ' + objects + ' objects shown';
  }
  form.addEventListener('change', apply);
  form.addEventListener('reset', function () { setTimeout(apply, 0); });
  form.hidden = false;
  apply();
})();
`;

function sha256(s: string): string {
  return `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
}

/** The page's Content-Security-Policy: nothing but its own stylesheet and script. */
export const CSP = `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'`;

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** An object's group (namespaceGroups.ts), the cluster-scoped one named, as the filter needs a value. */
function groupOf(o: KObject): string {
  return namespaceGroup(o) || CLUSTER;
}

function hostnameSection(rows: readonly HostnameRow[]): string {
  const changed = rows
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => r.change !== 'none')
    .sort((a, b) => CHANGE_ORDER.indexOf(a.r.change) - CHANGE_ORDER.indexOf(b.r.change) || a.i - b.i)
    .map(({ r }) => r);
  const counts = reportCounts(rows).join(', ');
  let out = `<section id="hostnames"><h2>Hostnames</h2><p>${htmlText(counts)}.</p>`;
  if (changed.length) {
    out +=
      '<table><thead><tr><th>change</th><th>hostname</th><th>route</th><th>before</th><th>after</th></tr></thead><tbody>';
    // A shared hostname's routes once (hostnameGroups): named up to ten, counted past them.
    for (const g of hostnameGroups(changed)) {
      const r = g.rows[0];
      const change = reportChange(r);
      out += `<tr class="${r.change}"><td data-label="change">${change}</td><td class="mono" data-label="hostname">${htmlText(r.hostname)}</td><td class="mono" data-label="route">${htmlText(groupRoutes(g))}</td><td data-label="before">${htmlText(describeState(r.before))}</td><td data-label="after">${htmlText(describeState(r.after))}</td></tr>`;
    }
    out += '</tbody></table>';
  }
  return `${out}</section>`;
}

/**
 * A unified diff as HTML: each run of lines of one kind (added, removed, hunk header, the rest) one
 * block, coloured by the kind (a block per run, not per line: the page of a platform-wide change
 * stays a few bytes a line).
 */
function diffHtml(text: string): string {
  let out = '';
  let run = '';
  let runClass = '';
  const flush = () => {
    if (run) out += runClass ? `<span class="${runClass}">${run}</span>` : `<span>${run}</span>`;
    run = '';
  };
  let start = 0;
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  while (start <= end) {
    let stop = text.indexOf('\n', start);
    if (stop < 0 || stop > end) stop = end;
    const line = text.slice(start, stop);
    const c = line.charCodeAt(0);
    const cls = line.startsWith('@@')
      ? 'h'
      : c === 43 && !line.startsWith('+++')
        ? 'a'
        : c === 45 && !line.startsWith('---')
          ? 'd'
          : '';
    if (cls !== runClass) {
      flush();
      runClass = cls;
    }
    // Each line escaped on its own (a newline from input stays one line, escaped), runs joined by newlines.
    run += run ? `\n${htmlText(line)}` : htmlText(line) || ' ';
    start = stop + 1;
  }
  flush();
  return out;
}

interface NsSection {
  created: number;
  changed: number;
  deleted: number;
  html: string[];
}

/** The page for a diff result. */
/** The findings about what the change gives, and the admission look-ahead. */
function findingsSection(d: DiffResult, findings: readonly Finding[]): string[] {
  const parts: string[] = [];
  parts.push('<section id="findings"><h2>Findings and the admission look-ahead</h2>');
  if (findings.length)
    parts.push(
      `<ul class="findings">${findings.map((f) => `<li class="${f.severity}">${htmlText(formatFinding(f))}</li>`).join('')}</ul>`,
    );
  else parts.push('<p class="muted">No finding about what the change gives.</p>');
  if (d.inadmissible.length)
    parts.push(
      `<h3>Inadmissible on their next write (${plural(d.inadmissible.length, 'object')} the change leaves in place)</h3><ul>${d.inadmissible
        .map(
          (x) =>
            `<li><code>${htmlText(describe(x.object))}</code>: refused by ValidatingAdmissionPolicy <code>${htmlText(x.policy)}</code>: ${htmlText(x.message)} (because ${htmlText(x.because)})</li>`,
        )
        .join('')}</ul>`,
    );
  else parts.push('<p class="muted">No object the change leaves in place becomes inadmissible.</p>');
  parts.push('</section>');
  return parts;
}

/** One section per namespace with its objects' diffs, and the filter over them. */
function changesSection(groups: Map<string, NsSection>, kinds: Set<string>, order: string[]): string[] {
  const parts: string[] = [];
  parts.push('<section id="changes"><h2>Changes by namespace</h2>');
  if (order.length) {
    const opt = (v: string, label = v) => `<option value="${htmlText(v)}">${htmlText(label)}</option>`;
    parts.push(
      '<form id="filter" hidden><label>Namespace <select id="f-ns"><option value="">every namespace</option>',
      order.map((g) => opt(g)).join(''),
      '</select></label><label>Kind <select id="f-kind"><option value="">every kind</option>',
      [...kinds]
        .sort()
        .map((k) => opt(k))
        .join(''),
      '</select></label><label>Change <select id="f-change"><option value="">every change</option>',
      opt('create', 'created'),
      opt('change', 'changed'),
      opt('delete', 'deleted'),
      '</select></label><button type="reset">Show all</button> <span id="f-count" class="muted"></span></form>',
    );
  } else parts.push('<p class="muted">No differences.</p>');
  for (const g of order) {
    const s = groups.get(g)!;
    const what = countsPhrase(s);
    parts.push(
      `<section class="ns" data-ns="${htmlText(g)}"><h3>${g === CLUSTER ? 'Cluster-scoped' : `Namespace <code>${htmlText(g)}</code>`}: ${what}</h3>`,
    );
    pushAll(parts, s.html);
    parts.push('</section>');
  }
  return parts;
}

/** Each object's diff as HTML, grouped by namespace; the kinds seen (the filter's choices). */
function objectSections(d: DiffResult): { groups: Map<string, NsSection>; kinds: Set<string>; order: string[] } {
  const memo = newMemo();
  const groups = new Map<string, NsSection>();
  const kinds = new Set<string>();
  for (const it of differences(d)) {
    const obj = (it.after ?? it.before)!;
    const g = groupOf(obj);
    let s = groups.get(g);
    if (!s) groups.set(g, (s = { created: 0, changed: 0, deleted: 0, html: [] }));
    const change = countChange(s, it.before, it.after);
    kinds.add(obj.kind);
    s.html.push(
      `<details class="obj" open data-kind="${htmlText(obj.kind)}" data-change="${change}"><summary>${htmlText(describe(obj))}<span class="badge ${change}">${change}</span></summary><pre class="diff">${diffHtml(unifiedDiff(it.before, it.after, 3, memo))}</pre></details>`,
    );
  }
  const key = (g: string) => (g === CLUSTER ? '' : g);
  const order = [...groups.keys()].sort((a, b) => compareGroups(key(a), key(b)));
  return { groups, kinds, order };
}

/**
 * The clock the page's conditions were written with. The reproducible default (the epoch) is said
 * to be one, or a reviewer reads `lastTransitionTime: "1970-01-01T00:00:00Z"` as a bug.
 */
function clockLine(now: string | undefined): string {
  if (now === undefined) return '';
  if (now === EPOCH)
    return `<p class="clock muted">Clock: ${EPOCH}, the reproducible default (neither --now nor SOURCE_DATE_EPOCH was given): every <code>lastTransitionTime</code> below is this clock, not the time the change is applied; give --now for another.</p>`;
  return `<p class="clock muted">Clock: ${htmlText(now)} (--now or SOURCE_DATE_EPOCH): the time every <code>lastTransitionTime</code> below is written with.</p>`;
}

/** The notes under the counts: Namespaces that leave whole, and drift over a cluster's state (over a tree it is expected: no alarm). */
function notesSection(d: DiffResult): string[] {
  const notes: string[] = [];
  for (const ns of d.removedNamespaces) {
    const k = d.deleted.filter((x) => x.metadata.namespace === ns).length;
    notes.push(
      `Namespace <code>${htmlText(ns)}</code> is deleted with everything in it (${plural(k, 'object')} besides the Namespace): its tenant left the tree.`,
    );
  }
  if (d.drift && !d.fromTree)
    notes.push(
      `One controller pass over the state alone would change ${plural(d.drift, 'object')} (drift, or a state written without the controller's objects): not the change's, not shown.`,
    );
  return notes.length ? [`<ul class="notes">${notes.map((x) => `<li>${x}</li>`).join('')}</ul>`] : [];
}

/** The change as given (givenChange.ts): each Tenant's edit with its fields, and the values line. */
function givenSection(d: DiffResult, values: string | undefined): string[] {
  const edits = givenEdits(d);
  if (!edits.length && !values) return [];
  const items = edits
    .slice(0, MAX_LISTED)
    .map(
      (e) =>
        `<li><code>${htmlText(editTitle(e))}</code>${e.fields.length ? `: ${e.fields.map((f) => `<code>${htmlText(f)}</code>`).join(', ')}` : ''}</li>`,
    );
  const more = moreEdits(edits);
  if (more) items.push(`<li class="muted">${htmlText(more)}</li>`);
  if (values) items.push(`<li>${htmlText(values)}</li>`);
  return [`<section id="given"><h2>The change as given</h2><ul class="given">${items.join('')}</ul></section>`];
}

const LEGEND =
  '<p class="legend"><span><i class="sw added"></i>tenant added</span><span><i class="sw removed"></i>tenant removed</span>' +
  '<span><i class="sw changed"></i>the tenant itself changes (its Gateway, host or publisher)</span>' +
  '<span><i class="sw touched"></i>only objects in its namespace change</span><span><i class="sw"></i>untouched</span>' +
  '<span><i class="sw gw"></i>owns a Gateway</span><span>dashed arc, arrow at the publisher: publishes through (blue: moved by the change)</span></p>';

/** The tenant tree: the legend, and the picture in its wide and its narrow layout (the stylesheet shows one). */
function treeSection(tree: TenantTree): string[] {
  const wide = treeSvg(tree);
  const narrow = treeSvg(tree, true);
  return [
    '<section id="tree"><h2>Tenant tree</h2>',
    LEGEND,
    wide.folded
      ? `<p class="muted">${plural(wide.folded, 'untouched tenant')} folded: the tree shows the tenants the change touches, their ancestors, and one row per folded run of untouched subtrees.</p>`
      : '',
    tree.nodes.size
      ? `<div class="figure">${wide.svg}${narrow.svg}</div>`
      : '<p class="muted">No tenant in the state or the change.</p>',
    '</section>',
  ];
}

/** The page for a diff result. */
export function htmlReport(d: DiffResult, o: HtmlOptions): string {
  const { groups, kinds, order } = objectSections(d);
  const n = d.created.length + d.changed.length + d.deleted.length;
  const title = n
    ? `${plural(d.created.length, 'object')} to create, ${d.changed.length.toLocaleString('en-US')} to change, ${d.deleted.length.toLocaleString('en-US')} to delete`
    : 'no differences';
  const tree = tenantTree(d);
  const given = givenSection(d, o.values);
  const parts: string[] = [];
  parts.push(
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="referrer" content="no-referrer"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>cozy-gw diff: ${htmlText(title)}</title><style>${STYLE}</style></head><body>`,
    `<header><h1>cozy-gw diff</h1><p id="counts"><strong>${htmlText(title)}</strong>; ${plural(tree.touched, 'tenant')} of ${tree.nodes.size.toLocaleString('en-US')} touched.</p>`,
    o.cozystack ? versionHtml(o.cozystack) : '',
    `<p class="muted mono">${htmlText(o.rerun)}</p>`,
    clockLine(o.now),
    `<nav>${given.length ? '<a href="#given">The change</a>' : ''}<a href="#tree">Tenant tree</a><a href="#hostnames">Hostnames</a><a href="#findings">Findings</a><a href="#changes">Changes</a></nav></header>`,
  );
  pushAll(parts, notesSection(d));
  pushAll(parts, given);
  pushAll(parts, treeSection(tree));
  parts.push(hostnameSection(d.hostnames));
  pushAll(parts, findingsSection(d, o.findings));
  pushAll(parts, changesSection(groups, kinds, order));
  parts.push(`</section><script>${SCRIPT}</script></body></html>\n`);
  return parts.join('');
}
