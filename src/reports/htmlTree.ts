/**
 * The tenant tree as a picture, for `diff -o html` (docs/commands/diff.md): an inline SVG the tool draws itself, an indented tree (one row
 * per tenant, the layout a file browser uses, which stays readable at any width of the tree and
 * needs no layout library). Each tenant is a dot, a Gateway owner a square with its certMode and
 * class beside it; lines join a tenant to its parent; dashed arcs in the left margin join a tenant
 * to the tenant whose Gateway it publishes through, an arrowhead at the publisher (blue where the
 * change moves it): nested arcs bulge further, so two arcs never draw one line, and even an arc
 * between neighbouring rows stands out of the margin. Added tenants are green, removed red, changed
 * amber, tenants with changed objects blue; rows of untouched subtrees are folded past 150 tenants
 * (tenantTree.ts treeRows). Two layouts of the same tree: wide (a row per tenant, what it is
 * beside its name) and narrow (what it is on lines under its name, for a phone's width); the
 * page's stylesheet shows one.
 *
 * Only presentation attributes and classes, never a `style` attribute (the page's
 * Content-Security-Policy allows its one stylesheet only). Every text is escaped (htmlText). Pure.
 */
import { escapeControl } from '../k8s/printable';
import { pushAll } from '../k8s/arrays';
import { treeRows, type TenantNode, type TenantTree, type TreeRow } from './tenantTree';

/** Text from input for HTML or SVG text and attributes: control characters escaped, then `& < > " '` as entities. */
export function htmlText(s: string): string {
  return escapeControl(s).replace(HTML_SPECIAL, (c) => HTML_ENTITY[c]);
}

const HTML_SPECIAL = /[&<>"']/g;
const HTML_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The row pitch of the wide layout, and of a line in the narrow one. */
const ROW = 22;
const LINE = 15;
const INDENT = 18;
const GUTTER = 56;
const TOP = 16;
/** A generous width per character of the system sans-serif at 12px (the SVG is as wide as its longest row). */
const CHAR = 7;
/** The narrow layout's longest line under a tenant's name, in characters. */
const NARROW_LINE = 36;

function statusClass(n: TenantNode): string {
  if (n.change !== 'none') return n.change;
  return n.touched ? 'touched' : 'same';
}

function rowText(n: TenantNode): { main: string; side: string[] } {
  const side: string[] = [];
  const s = n.after ?? n.before!;
  if (s.gateway && !n.what.some((w) => /Gateway|certMode|class /.test(w)))
    side.push(`Gateway ${s.gateway.certMode} · ${s.gateway.className}`);
  else if (s.publisher && !n.moves) side.push(`publishes through ${s.publisher}`);
  if (n.change === 'added' || n.change === 'removed') side.push(n.change);
  pushAll(side, n.what);
  if (n.objects) side.push(`${n.objects} object${n.objects === 1 ? '' : 's'} change`);
  return { main: n.ns, side };
}

/** Phrases as lines of at most `max` characters: a phrase a line where it fits, longer ones broken at spaces. */
export function wrapPhrases(phrases: readonly string[], max: number): string[] {
  const out: string[] = [];
  for (const p of phrases) {
    let line = '';
    for (const word of p.split(' ')) {
      if (line && line.length + 1 + word.length > max) {
        out.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line) out.push(line);
  }
  return out;
}

/** The length of the longest line. */
function longest(lines: readonly string[]): number {
  return lines.reduce((m, l) => Math.max(m, l.length), 0);
}

/** A row laid out: the y of its mark, its texts, the width it needs. */
interface Placed {
  row: TreeRow;
  y: number;
  texts: string[];
  width: number;
}

/** Each row's place and texts, in the wide or the narrow layout; and the height of the whole. */
function layOut(rows: readonly TreeRow[], narrow: boolean): { placed: Placed[]; height: number } {
  const placed: Placed[] = [];
  let y = TOP;
  for (const r of rows) {
    const cx = GUTTER + r.depth * INDENT;
    const x = cx + 10;
    if (r.kind === 'folded') {
      const words = `+ ${r.tenants.toLocaleString('en-US')} untouched tenant${r.tenants === 1 ? '' : 's'} (${r.subtrees} subtree${r.subtrees === 1 ? '' : 's'}, folded)`;
      const lines = narrow ? wrapPhrases([words], NARROW_LINE) : [words];
      const texts = lines.map((l, i) => `<text x="${cx}" y="${y + 4 + i * LINE}" class="folded">${htmlText(l)}</text>`);
      placed.push({ row: r, y, texts, width: cx + longest(lines) * CHAR + 20 });
      y += narrow ? 6 + lines.length * LINE : ROW;
      continue;
    }
    const cls = statusClass(r.node);
    const { main, side } = rowText(r.node);
    const name = `<tspan class="ns">${htmlText(main)}</tspan>`;
    if (!narrow) {
      const sideText = side.join(' · ');
      const tail = sideText ? `<tspan class="side" dx="10">${htmlText(sideText)}</tspan>` : '';
      placed.push({
        row: r,
        y,
        texts: [`<text x="${x}" y="${y + 4}" class="t ${cls}">${name}${tail}</text>`],
        width: cx + 20 + (main.length + sideText.length + 2) * CHAR,
      });
      y += ROW;
      continue;
    }
    const lines = wrapPhrases(side, NARROW_LINE);
    const texts = [`<text x="${x}" y="${y + 4}" class="t ${cls}">${name}</text>`];
    lines.forEach((l, i) =>
      texts.push(
        `<text x="${x}" y="${y + 4 + (i + 1) * LINE}" class="t ${cls}"><tspan class="side">${htmlText(l)}</tspan></text>`,
      ),
    );
    placed.push({ row: r, y, texts, width: x + Math.max(main.length, longest(lines)) * CHAR + 10 });
    y += ROW + lines.length * LINE;
  }
  return { placed, height: y - ROW + TOP + 6 };
}

/**
 * The "publishes through" arcs in the left margin, from a tenant's mark to its publisher's, with
 * an arrowhead at the publisher. An arc bulges by its lane: one nested inside another's span gets
 * a lane of its own, so no two arcs draw one line; even an arc between neighbouring rows stands
 * 14 pixels out of the margin.
 */
function arcPaths(placed: readonly Placed[]): string[] {
  const at = new Map<string, number>();
  for (const p of placed) if (p.row.kind === 'tenant') at.set(p.row.node.ns, p.y);
  const arcs: { y1: number; y2: number; moved: boolean }[] = [];
  for (const p of placed) {
    if (p.row.kind !== 'tenant') continue;
    const n = p.row.node;
    const s = n.after ?? n.before!;
    const pub = s.gateway ? undefined : s.publisher;
    const y2 = pub !== undefined && pub !== n.ns ? at.get(pub) : undefined;
    if (y2 !== undefined) arcs.push({ y1: p.y, y2, moved: n.moves });
  }
  const span = (a: { y1: number; y2: number }) => Math.abs(a.y1 - a.y2);
  const lanes: { lo: number; hi: number; lane: number }[] = [];
  const out: string[] = [];
  for (const a of [...arcs].sort((x, y) => span(x) - span(y) || x.y1 - y.y1)) {
    const lo = Math.min(a.y1, a.y2);
    const hi = Math.max(a.y1, a.y2);
    const inside = lanes.filter((l) => l.lo >= lo && l.hi <= hi);
    const lane = inside.reduce((m, l) => Math.max(m, l.lane + 1), 0);
    lanes.push({ lo, hi, lane });
    const x = GUTTER - 12;
    const bulge = Math.min(x - 4, 14 + lane * 8);
    const cls = `pub${a.moved ? ' moved' : ''}`;
    out.push(
      `<path d="M${x} ${a.y1}C${x - bulge} ${a.y1} ${x - bulge} ${a.y2} ${x} ${a.y2}" class="${cls}"/>`,
      `<path d="M${x} ${a.y2}l-6 -3.5v7z" class="${cls} head"/>`,
    );
  }
  return out;
}

/** The SVG of the tree in one layout (`narrow`: what a tenant is, on lines under its name), and how many tenants it folded away. */
export function treeSvg(t: TenantTree, narrow = false): { svg: string; folded: number } {
  const rows: TreeRow[] = treeRows(t);
  const { placed, height } = layOut(rows, narrow);
  const at = new Map<string, number>();
  for (const p of placed) if (p.row.kind === 'tenant') at.set(p.row.node.ns, p.y);
  const x = (depth: number) => GUTTER + depth * INDENT;
  const edges: string[] = [];
  const marks: string[] = [];
  const texts: string[] = [];
  let width = narrow ? 240 : 320;
  let folded = 0;
  for (const p of placed) {
    const r = p.row;
    const cx = x(r.depth);
    const parent = r.kind === 'tenant' ? r.node.parent : r.parent;
    const py = parent !== undefined ? at.get(parent) : undefined;
    if (py !== undefined) edges.push(`M${x(r.depth - 1)} ${py + 6}V${p.y}H${cx - 6}`);
    pushAll(texts, p.texts);
    width = Math.max(width, p.width);
    if (r.kind === 'folded') {
      folded += r.tenants;
      continue;
    }
    const cls = statusClass(r.node);
    const s = r.node.after ?? r.node.before!;
    if (s.gateway) marks.push(`<rect x="${cx - 5}" y="${p.y - 5}" width="10" height="10" class="n ${cls}"/>`);
    else marks.push(`<circle cx="${cx}" cy="${p.y}" r="5" class="n ${cls}"/>`);
  }
  const w = Math.ceil(width);
  const svg =
    `<svg class="tree ${narrow ? 'narrow' : 'wide'}" width="${w}" height="${height}" viewBox="0 0 ${w} ${height}" role="img" aria-label="The tenant tree">` +
    `<path class="edge" d="${edges.join('')}"/>` +
    arcPaths(placed).join('') +
    marks.join('') +
    texts.join('') +
    '</svg>';
  return { svg, folded };
}
