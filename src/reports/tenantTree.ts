/**
 * The tenant tree a diff touches, before and after, for the reviewer's report
 * (docs/commands/diff.md): every tenant (its
 * Namespace, docs/behaviour.md §2.4: `tenant.cozystack.io/<ancestor>` labels name its ancestors,
 * `namespace.cozystack.io/gateway` the tenant whose Gateway it publishes through,
 * `namespace.cozystack.io/host` its host), which tenants own a Gateway (a TenantGateway in their
 * namespace, with its certMode and class, docs/behaviour.md §4), and what the change adds,
 * removes, changes or moves. The HTML page draws it (htmlTree.ts), the comment's first part as a
 * Mermaid graph (mermaidTree.ts). Pure: the diff's objects in, the tree out; only Namespaces and
 * TenantGateways are read (never a Secret).
 */
import { isNamespace, keyOf, type KObject } from '../k8s/model';
import { isTenantGateway } from '../platform/kinds';
import { NS_LABEL_GATEWAY, NS_LABEL_HOST } from '../platform/names';
import { TENANT_ROOT } from '../platform/tenancy';
import { viewOf } from '../controller/tenantGatewaySpec';
import type { DiffResult } from '../diff/diff';
import { differences } from '../diff/comparison';

const TENANT_LABEL = 'tenant.cozystack.io/';

/** A tenant as one side (before or after the change) has it. */
export interface TenantSide {
  host: string;
  /** The tenant namespace whose Gateway it publishes through ('' when none is named). */
  publisher: string;
  /** Its own Gateway, when it owns one. */
  gateway?: { certMode: string; className: string };
}

export type TenantChange = 'added' | 'removed' | 'changed' | 'none';

export interface TenantNode {
  ns: string;
  parent?: string;
  children: string[];
  before?: TenantSide;
  after?: TenantSide;
  change: TenantChange;
  /** What the change does to the tenant itself, in words (`certMode http01 → dns01`). */
  what: string[];
  /** Whether it publishes through another tenant after the change than before. */
  moves: boolean;
  /** Objects in its namespace that the change creates, changes or deletes. */
  objects: number;
  /** Whether the change touches it: changes it, or any object in its namespace. */
  touched: boolean;
}

export interface TenantTree {
  nodes: Map<string, TenantNode>;
  /** Tenants with no parent in the tree (tenant-root, or orphans), sorted. */
  roots: string[];
  /** How many tenants the change touches. */
  touched: number;
}

function labels(o: KObject): Record<string, string> {
  const l = o.metadata.labels;
  return l && typeof l === 'object' ? (l as Record<string, string>) : {};
}

function isTenantNamespace(o: KObject): boolean {
  return (
    isNamespace(o) && (o.metadata.name === TENANT_ROOT || labels(o)[`${TENANT_LABEL}${o.metadata.name}`] !== undefined)
  );
}

/** The parent: the deepest ancestor the labels name (the longest namespace this one's extends), else tenant-root. */
function parentOf(ns: KObject): string | undefined {
  const self = ns.metadata.name;
  if (self === TENANT_ROOT) return undefined;
  let best: string | undefined;
  for (const k of Object.keys(labels(ns))) {
    if (!k.startsWith(TENANT_LABEL)) continue;
    const a = k.slice(TENANT_LABEL.length);
    // tenant-root is every tenant's ancestor and the fallback; the others nest by name.
    if (a === self || a === TENANT_ROOT || !self.startsWith(`${a}-`)) continue;
    if (!best || a.length > best.length) best = a;
  }
  return best ?? TENANT_ROOT;
}

function sides(objects: Iterable<KObject>): {
  sides: Map<string, TenantSide>;
  parents: Map<string, string | undefined>;
} {
  const out = new Map<string, TenantSide>();
  const parents = new Map<string, string | undefined>();
  const gateways = new Map<string, { certMode: string; className: string }>();
  for (const o of objects) {
    if (isTenantNamespace(o)) {
      const l = labels(o);
      out.set(o.metadata.name, { host: String(l[NS_LABEL_HOST] ?? ''), publisher: String(l[NS_LABEL_GATEWAY] ?? '') });
      parents.set(o.metadata.name, parentOf(o));
    } else if (isTenantGateway(o) && o.metadata.namespace) {
      const v = viewOf(o);
      gateways.set(o.metadata.namespace, { certMode: v.certModeRaw || v.certMode, className: v.gatewayClassName });
    }
  }
  for (const [ns, g] of gateways) {
    const s = out.get(ns);
    if (s) s.gateway = g;
  }
  return { sides: out, parents };
}

function gatewayWords(g: TenantSide['gateway']): string {
  return g ? `Gateway ${g.certMode}, class ${g.className}` : 'no Gateway';
}

/** The tree before and after the change. */
export function tenantTree(d: DiffResult): TenantTree {
  const relevant = (o: KObject) => isNamespace(o) || isTenantGateway(o);
  const before = d.before.filter(relevant);
  const after = new Map(before.map((o) => [keyOf(o), o]));
  for (const o of d.deleted) if (relevant(o)) after.delete(keyOf(o));
  for (const o of d.created) if (relevant(o)) after.set(keyOf(o), o);
  for (const c of d.changed) if (relevant(c.after)) after.set(keyOf(c.after), c.after);
  const b = sides(before);
  const a = sides(after.values());
  const objects = new Map<string, number>();
  for (const it of differences(d)) {
    const o = (it.after ?? it.before)!;
    const ns = o.metadata.namespace ?? (isNamespace(o) ? o.metadata.name : '');
    if (ns) objects.set(ns, (objects.get(ns) ?? 0) + 1);
  }
  const nodes = new Map<string, TenantNode>();
  for (const ns of [...new Set([...b.sides.keys(), ...a.sides.keys()])].sort()) {
    const bs = b.sides.get(ns);
    const as = a.sides.get(ns);
    const what: string[] = [];
    let moves = false;
    if (bs && as) {
      if (gatewayWords(bs.gateway) !== gatewayWords(as.gateway)) {
        if (bs.gateway && as.gateway && bs.gateway.className === as.gateway.className)
          what.push(`certMode ${bs.gateway.certMode} → ${as.gateway.certMode}`);
        else if (bs.gateway && as.gateway && bs.gateway.certMode === as.gateway.certMode)
          what.push(`class ${bs.gateway.className} → ${as.gateway.className}`);
        else if (!bs.gateway)
          what.push(`gets its own Gateway (${as.gateway!.certMode}, class ${as.gateway!.className})`);
        else if (!as.gateway)
          what.push(`gives up its own Gateway (${bs.gateway.certMode}, class ${bs.gateway.className})`);
        else what.push(`${gatewayWords(bs.gateway)} → ${gatewayWords(as.gateway)}`);
      }
      if (bs.publisher !== as.publisher) {
        moves = true;
        // A tenant that gets its own Gateway publishes through it: the Gateway's words say so.
        if (!(as.gateway && as.publisher === ns))
          what.push(`publishes through ${as.publisher || 'no Gateway'} (was ${bs.publisher || 'none'})`);
      }
      if (bs.host !== as.host) what.push(`host ${bs.host || '(none)'} → ${as.host || '(none)'}`);
    }
    const change: TenantChange = !bs ? 'added' : !as ? 'removed' : what.length ? 'changed' : 'none';
    const n = objects.get(ns) ?? 0;
    nodes.set(ns, {
      ns,
      parent: a.parents.has(ns) ? a.parents.get(ns) : b.parents.get(ns),
      children: [],
      before: bs,
      after: as,
      change,
      what,
      moves,
      objects: n,
      touched: change !== 'none' || n > 0,
    });
  }
  const roots: string[] = [];
  for (const node of nodes.values()) {
    const p = node.parent !== undefined ? nodes.get(node.parent) : undefined;
    if (p) p.children.push(node.ns);
    else roots.push(node.ns);
  }
  let touched = 0;
  for (const node of nodes.values()) if (node.touched) touched++;
  return { nodes, roots, touched };
}

/** A row of the drawn tree: a tenant, or a run of untouched subtrees folded into one line. */
export type TreeRow =
  | { kind: 'tenant'; node: TenantNode; depth: number }
  | { kind: 'folded'; parent: string; depth: number; tenants: number; subtrees: number };

/** The tenants of a subtree, its root included. */
function subtreeSize(t: TenantTree, ns: string, memo: Map<string, number>): number {
  const known = memo.get(ns);
  if (known !== undefined) return known;
  let n = 1;
  for (const c of t.nodes.get(ns)!.children) n += subtreeSize(t, c, memo);
  memo.set(ns, n);
  return n;
}

/**
 * The rows to draw, depth first: every tenant while the tree has at most `whole` of them; past
 * that, the tenants the change touches, their ancestors and each shown tenant's untouched children
 * folded into one row per parent (`+ 9 untouched tenants`), so that 2,000 tenants stay readable.
 */
export function treeRows(t: TenantTree, whole = 150): TreeRow[] {
  const sizes = new Map<string, number>();
  const hasTouched = new Map<string, boolean>();
  const anyTouched = (ns: string): boolean => {
    const known = hasTouched.get(ns);
    if (known !== undefined) return known;
    const node = t.nodes.get(ns)!;
    let v = node.touched;
    for (const c of node.children) if (anyTouched(c)) v = true;
    hasTouched.set(ns, v);
    return v;
  };
  const all = t.nodes.size <= whole;
  const rows: TreeRow[] = [];
  const visit = (ns: string, depth: number) => {
    const node = t.nodes.get(ns)!;
    rows.push({ kind: 'tenant', node, depth });
    let folded = 0;
    let subtrees = 0;
    for (const c of node.children) {
      if (all || anyTouched(c)) visit(c, depth + 1);
      else {
        folded += subtreeSize(t, c, sizes);
        subtrees++;
      }
    }
    if (folded) rows.push({ kind: 'folded', parent: ns, depth: depth + 1, tenants: folded, subtrees });
  };
  // Iterative depth would be safer for pathological depths; a tenant tree is as deep as its namespace names allow (63 characters).
  for (const r of t.roots) visit(r, 0);
  return rows;
}
