/**
 * The tenant tree of the reviewer's report (src/reports/tenantTree.ts, htmlTree.ts,
 * mermaidTree.ts): who is whose parent, who owns a Gateway, what the change does to each tenant;
 * at 2,000 tenants the drawing keeps the touched tenants and their ancestors and folds the rest,
 * every tenant counted once; a Mermaid graph no name can break out of.
 */
import type { DiffResult } from '../../src/diff/diff';
import { tenantTree, treeRows } from '../../src/reports/tenantTree';
import { treeSvg } from '../../src/reports/htmlTree';
import { mermaidText, mermaidTree } from '../../src/reports/mermaidTree';
import type { KObject } from '../../src/k8s/model';

function ns(name: string, gateway: string, host = `${name}.example.org`): KObject {
  const labels: Record<string, string> = { 'tenant.cozystack.io/tenant-root': '' };
  const parts = name.split('-');
  for (let i = 2; i <= parts.length; i++) labels[`tenant.cozystack.io/${parts.slice(0, i).join('-')}`] = '';
  labels['namespace.cozystack.io/gateway'] = gateway;
  labels['namespace.cozystack.io/host'] = host;
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

function tgw(namespace: string, certMode: string): KObject {
  return {
    apiVersion: 'gateway.cozystack.io/v1alpha1',
    kind: 'TenantGateway',
    metadata: { name: 'cozystack', namespace },
    spec: { certMode, apex: `${namespace}.example.org` },
  };
}

/** A diff result holding only what the tree reads. */
function result(
  before: KObject[],
  changed: { before: KObject; after: KObject }[],
  created: KObject[] = [],
): DiffResult {
  return { before, changed, created, deleted: [] } as unknown as DiffResult;
}

/** tenant-root, `tops` top-level tenants each owning a Gateway, each with `children` inheriting it. */
function platform(tops: number, children: number): KObject[] {
  const out = [ns('tenant-root', 'tenant-root'), tgw('tenant-root', 'http01')];
  for (let t = 0; t < tops; t++) {
    const top = `tenant-t${t}`;
    out.push(ns(top, top), tgw(top, 'http01'));
    for (let c = 0; c < children; c++) out.push(ns(`${top}-c${c}`, top));
  }
  return out;
}

describe('tenantTree', () => {
  it('parents, Gateway owners and what the change does: certMode, a new Gateway and the subtree that moves to it', () => {
    const before = platform(2, 2);
    const after0 = tgw('tenant-t0', 'dns01');
    const movedChild = ns('tenant-t1-c0', 'tenant-t1-c0');
    const t = tenantTree(
      result(
        before,
        [
          {
            before: before.find((o) => o.kind === 'TenantGateway' && o.metadata.namespace === 'tenant-t0')!,
            after: after0,
          },
          { before: before.find((o) => o.metadata.name === 'tenant-t1-c0')!, after: movedChild },
        ],
        [tgw('tenant-t1-c0', 'http01')],
      ),
    );
    expect(t.nodes.get('tenant-t0-c1')!.parent).toBe('tenant-t0');
    expect(t.nodes.get('tenant-t0')!.parent).toBe('tenant-root');
    expect(t.roots).toEqual(['tenant-root']);
    expect(t.nodes.get('tenant-t0')!.what).toEqual(['certMode http01 → dns01']);
    expect(t.nodes.get('tenant-t1-c0')!.what).toEqual(['gets its own Gateway (http01, class cilium)']);
    expect(t.nodes.get('tenant-t1-c0')!.moves).toBe(true);
    expect([...t.nodes.values()].filter((n) => n.touched).map((n) => n.ns)).toEqual(['tenant-t0', 'tenant-t1-c0']);
  });

  it('2,000 tenants: the drawing shows the touched tenants and their ancestors, folds the rest, and counts every tenant once', () => {
    const before = platform(200, 9);
    const touchedNs = ['tenant-t7-c3', 'tenant-t150'];
    const changed = touchedNs.map((name) => {
      const b = before.find((o) => o.kind === 'Namespace' && o.metadata.name === name)!;
      return { before: b, after: ns(name, b.metadata.labels!['namespace.cozystack.io/gateway'], 'moved.example.net') };
    });
    const t = tenantTree(result(before, changed));
    expect(t.nodes.size).toBe(2001);
    const rows = treeRows(t);
    const shown = rows.flatMap((r) => (r.kind === 'tenant' ? [r.node.ns] : []));
    const folded = rows.reduce((n, r) => n + (r.kind === 'folded' ? r.tenants : 0), 0);
    expect(shown.length + folded).toBe(2001);
    expect(shown).toEqual(['tenant-root', 'tenant-t150', 'tenant-t7', 'tenant-t7-c3']);
    expect(rows.length).toBeLessThan(10);
    const { svg, folded: svgFolded } = treeSvg(t);
    expect(svgFolded).toBe(folded);
    expect(svg).toContain('host tenant-t7-c3.example.org → moved.example.net');
    // The whole tree when it is small.
    expect(treeRows(tenantTree(result(platform(3, 2), [])))).toHaveLength(10);
  });

  it('Mermaid: the touched tenants and their ancestors, bounded, and no name reaches its syntax', () => {
    const before = platform(100, 1);
    const changed = before
      .filter((o) => o.kind === 'TenantGateway' && o.metadata.namespace !== 'tenant-root')
      .map((b) => ({ before: b, after: tgw(b.metadata.namespace!, 'dns01') }));
    const lines = mermaidTree(tenantTree(result(before, changed)), 20);
    expect(lines[0]).toBe('graph TD');
    expect(lines.filter((l) => /^ {2}t\d+\[/.test(l))).toHaveLength(20);
    expect(lines[lines.length - 1]).toMatch(/^ {2}more\["#43; 81 more touched tenants/);
    const hostile = 'a"]\n  click t0 call alert(1)\n%%{init}%%<br/>`x`';
    const text = mermaidText(hostile);
    expect(text).toMatch(/^[A-Za-z0-9 #;]*$/);
  });
});
