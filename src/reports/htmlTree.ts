/**
 * The tenant tree as a picture, for `diff -o html` (docs/commands/diff.md): an inline SVG the tool draws itself, an indented tree (one row
 * per tenant, the layout a file browser uses, which stays readable at any width of the tree and
 * needs no layout library). Each tenant is a dot, a Gateway owner a square with its certMode and
 * class beside it; lines join a tenant to its parent; dashed arcs in the left margin join a tenant
 * to the tenant whose Gateway it publishes through (blue where the change moves it). Added tenants
 * are green, removed red, changed amber, tenants with changed objects blue; rows of untouched
 * subtrees are folded past 150 tenants (tenantTree.ts treeRows).
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

const ROW = 22;
const INDENT = 18;
const GUTTER = 48;
const TOP = 16;
/** A generous width per character of the system sans-serif at 12px (the SVG is as wide as its longest row). */
const CHAR = 7;

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

/** The SVG of the tree, and how many tenants it folded away. */
export function treeSvg(t: TenantTree): { svg: string; folded: number } {
  const rows: TreeRow[] = treeRows(t);
  const y = (i: number) => TOP + i * ROW;
  const x = (depth: number) => GUTTER + depth * INDENT;
  const at = new Map<string, number>();
  rows.forEach((r, i) => r.kind === 'tenant' && at.set(r.node.ns, i));
  const edges: string[] = [];
  const arcs: string[] = [];
  const marks: string[] = [];
  const texts: string[] = [];
  let width = 320;
  let folded = 0;
  rows.forEach((r, i) => {
    const cy = y(i);
    const cx = x(r.depth);
    const parent = r.kind === 'tenant' ? r.node.parent : r.parent;
    const pi = parent !== undefined ? at.get(parent) : undefined;
    if (pi !== undefined) edges.push(`M${x(r.depth - 1)} ${y(pi) + 6}V${cy}H${cx - 6}`);
    if (r.kind === 'folded') {
      folded += r.tenants;
      const words = `+ ${r.tenants.toLocaleString('en-US')} untouched tenant${r.tenants === 1 ? '' : 's'} (${r.subtrees} subtree${r.subtrees === 1 ? '' : 's'}, folded)`;
      texts.push(`<text x="${cx}" y="${cy + 4}" class="folded">${htmlText(words)}</text>`);
      width = Math.max(width, cx + words.length * CHAR + 20);
      return;
    }
    const n = r.node;
    const cls = statusClass(n);
    const s = n.after ?? n.before!;
    if (s.gateway) marks.push(`<rect x="${cx - 5}" y="${cy - 5}" width="10" height="10" class="n ${cls}"/>`);
    else marks.push(`<circle cx="${cx}" cy="${cy}" r="5" class="n ${cls}"/>`);
    const { main, side } = rowText(n);
    const sideText = side.join(' · ');
    texts.push(
      `<text x="${cx + 10}" y="${cy + 4}" class="t ${cls}"><tspan class="ns">${htmlText(main)}</tspan>${sideText ? `<tspan class="side" dx="10">${htmlText(sideText)}</tspan>` : ''}</text>`,
    );
    width = Math.max(width, cx + 20 + (main.length + sideText.length + 2) * CHAR);
    const pub = s.gateway ? undefined : s.publisher;
    const pj = pub !== undefined && pub !== n.ns ? at.get(pub) : undefined;
    if (pj !== undefined) {
      const y1 = cy;
      const y2 = y(pj);
      const bulge = Math.min(GUTTER - 8, 10 + Math.abs(y2 - y1) / 12);
      arcs.push(
        `<path d="M${GUTTER - 10} ${y1}C${GUTTER - 10 - bulge} ${y1} ${GUTTER - 10 - bulge} ${y2} ${GUTTER - 10} ${y2}" class="pub${n.moves ? ' moved' : ''}"/>`,
      );
    }
  });
  const height = TOP + rows.length * ROW;
  const svg =
    `<svg class="tree" width="${Math.ceil(width)}" height="${height}" viewBox="0 0 ${Math.ceil(width)} ${height}" role="img" aria-label="The tenant tree">` +
    `<path class="edge" d="${edges.join('')}"/>` +
    arcs.join('') +
    marks.join('') +
    texts.join('') +
    '</svg>';
  return { svg, folded };
}
