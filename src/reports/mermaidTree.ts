/**
 * The touched part of the tenant tree as a Mermaid `graph`, for the first part of the pull-request
 * comment (docs/commands/diff.md; GitHub and
 * GitLab draw a `mermaid` fence): the tenants the change touches and their ancestors, at most
 * MERMAID_NODES of them (a line says how many more), tree edges solid, a moved publishing edge
 * dotted, added, removed and changed tenants coloured.
 *
 * Nothing from input reaches Mermaid's syntax: node ids are the tool's own (`t0`, `t1`, ...), and
 * every label character other than a letter, a digit or a space is a Mermaid entity code (`#35;`),
 * control characters escaped first (k8s/printable.ts). Pure.
 */
import { escapeControl } from '../k8s/printable';
import type { TenantNode, TenantTree } from './tenantTree';

/** The most tenants the graph shows. */
export const MERMAID_NODES = 60;

/** A label for Mermaid's `["..."]`: letters, digits and spaces as they are, everything else as an entity code. */
export function mermaidText(s: string): string {
  return escapeControl(s).replace(/[^A-Za-z0-9 ]/g, (c) => `#${c.codePointAt(0)};`);
}

function label(n: TenantNode): string {
  const lines = [n.ns];
  const g = (n.after ?? n.before)?.gateway;
  // The Gateway as it is, unless the change's own words say what happens to it.
  if (g && !n.what.some((w) => /Gateway|certMode|class /.test(w))) lines.push(`Gateway ${g.certMode} · ${g.className}`);
  if (n.change === 'added' || n.change === 'removed') lines.push(n.change);
  for (const w of n.what) lines.push(w);
  if (n.objects) lines.push(`${n.objects} object${n.objects === 1 ? '' : 's'} change`);
  return lines.map(mermaidText).join('<br/>');
}

/** The graph's lines (a `mermaid` fence's content), or none when the change touches no tenant. */
export function mermaidTree(t: TenantTree, max = MERMAID_NODES): string[] {
  if (!t.touched) return [];
  const shown = new Set<string>();
  const touched = [...t.nodes.values()].filter((n) => n.touched);
  let left = 0;
  for (const n of touched) {
    const chain: string[] = [];
    for (let x: TenantNode | undefined = n; x && !shown.has(x.ns); x = x.parent ? t.nodes.get(x.parent) : undefined)
      chain.push(x.ns);
    if (shown.size + chain.length > max) {
      left++;
      continue;
    }
    for (const c of chain) shown.add(c);
  }
  const ids = new Map([...shown].sort().map((ns, i) => [ns, `t${i}`]));
  const out = ['graph TD'];
  for (const [ns, id] of ids) out.push(`  ${id}["${label(t.nodes.get(ns)!)}"]`);
  for (const [ns, id] of ids) {
    const n = t.nodes.get(ns)!;
    if (n.parent && ids.has(n.parent)) out.push(`  ${ids.get(n.parent)} --> ${id}`);
    const pub = n.after?.publisher;
    if (n.moves && pub && pub !== ns && ids.has(pub)) out.push(`  ${id} -.->|publishes through| ${ids.get(pub)}`);
  }
  out.push(
    '  classDef added fill:#d4f7d4,stroke:#2a7a2a',
    '  classDef removed fill:#fbd5d5,stroke:#a12a2a',
    '  classDef changed fill:#fff1c2,stroke:#9a7400',
    '  classDef touched fill:#e4ecfb,stroke:#3b5b9a',
  );
  for (const [ns, id] of ids) {
    const n = t.nodes.get(ns)!;
    const cls = n.change !== 'none' ? n.change : n.touched ? 'touched' : '';
    if (cls) out.push(`  class ${id} ${cls}`);
  }
  if (left) out.push(`  more["#43; ${left} more touched tenant${left === 1 ? '' : 's'} #40;see the HTML report#41;"]`);
  return out;
}
