/**
 * Spec audit, the TenantGateway CRD (docs/behaviour.md §4, §4.4, the native-port listeners of
 * §5.13): behaviours the CRD states that no other test pinned.
 */
import type { KObject } from '../../src/k8s/model';
import { tenantGatewayCrd, validateTenantGateway } from '../../src/validation/tenantGatewayCrd';

function tgw(spec: Record<string, unknown>, status?: Record<string, unknown>): KObject {
  return {
    apiVersion: 'gateway.cozystack.io/v1alpha1',
    kind: 'TenantGateway',
    metadata: { name: 'cozystack', namespace: 'tenant-alice' },
    spec,
    ...(status ? { status } : {}),
  };
}
const msgs = (o: KObject) => validateTenantGateway(o).map((f) => `${f.field}: ${f.message}`);
const listener = (name: string, port: number, hostname: string) => ({ name, port, hostname });

describe('list-type semantics the apiserver enforces (docs/behaviour.md §4)', () => {
  // §4: "tlsPassthroughListeners [P] | list-map keyed by `name`" — two entries with one name are
  // refused at the write (Duplicate value), whatever else differs between them.
  it('tlsPassthroughListeners is a list-map keyed by name: a repeated name is refused', () => {
    const m = msgs(
      tgw({
        apex: 'alice.example.org',
        tlsPassthroughListeners: [
          listener('pg', 5432, 'pg.alice.example.org'),
          listener('pg', 5433, 'pg2.alice.example.org'),
        ],
      }),
    );
    expect(m).toEqual(['spec.tlsPassthroughListeners[1]: Duplicate value: {"name":"pg"}']);
  });
  it('distinct names pass', () => {
    expect(
      msgs(
        tgw({
          apex: 'alice.example.org',
          tlsPassthroughListeners: [
            listener('pg', 5432, 'pg.alice.example.org'),
            listener('redis', 6379, 'redis.alice.example.org'),
          ],
        }),
      ),
    ).toEqual([]);
  });
  // "A repeated tlsPassthroughServices entry is reported by the controller as Ready=False rather
  // than refused at admission ... declaring the list a set would not block writes": not a set.
  it('tlsPassthroughServices is not a set: a repeated entry passes admission', () => {
    expect(msgs(tgw({ apex: 'alice.example.org', tlsPassthroughServices: ['api', 'api'] }))).toEqual([]);
  });
  // §4 Status: conditions a list-map by type, listeners a list-map by name.
  it('status conditions by type and status listeners by name', () => {
    const cond = {
      type: 'Ready',
      status: 'True',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      reason: 'Ready',
      message: '',
    };
    const m = msgs(
      tgw(
        { apex: 'alice.example.org' },
        {
          conditions: [cond, { ...cond, status: 'False' }],
          listeners: [
            { name: 'http', ready: true },
            { name: 'http', ready: false },
          ],
        },
      ),
    );
    expect(m).toEqual([
      'status.conditions[1]: Duplicate value: {"type":"Ready"}',
      'status.listeners[1]: Duplicate value: {"name":"http"}',
    ]);
  });
  it('the CRD declares exactly those list types', () => {
    const found: string[] = [];
    const walk = (s: Record<string, unknown>, p: string) => {
      if (s['x-kubernetes-list-type'])
        found.push(
          `${p}:${String(s['x-kubernetes-list-type'])}:${JSON.stringify(s['x-kubernetes-list-map-keys'] ?? [])}`,
        );
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>))
        walk(v, p ? `${p}.${k}` : k);
      if (s.items) walk(s.items as Record<string, unknown>, `${p}[]`);
    };
    const crd = tenantGatewayCrd() as unknown as {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    };
    walk(crd.spec.versions[0].schema.openAPIV3Schema, '');
    expect(found.sort()).toEqual([
      'spec.tlsPassthroughListeners:map:["name"]',
      'status.conditions:map:["type"]',
      'status.listeners:map:["name"]',
    ]);
  });
});

describe('where each CEL rule sits (docs/behaviour.md §4.2, §4.4)', () => {
  // "The CEL rule that keeps this field out of edge sits on the spec node, and ratcheting
  // suppresses a CEL error only while the node it sits on is unchanged": which node carries a
  // rule decides what a stored value blocks, so the placement itself is pinned.
  const crd = tenantGatewayCrd() as unknown as { spec: { versions: { schema: { openAPIV3Schema: any } }[] } };
  const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
  const rulesOf = (node: { 'x-kubernetes-validations'?: { rule: string }[] }) =>
    (node['x-kubernetes-validations'] ?? []).map((r) => r.rule);
  it('rules 3 (apex containment), 4 (name vs services) and 5 (edge) on the spec node', () => {
    const r = rulesOf(spec);
    expect(r).toHaveLength(3);
    expect(r[0]).toMatch(/self\.apex/);
    expect(r[1]).toMatch(/self\.tlsPassthroughServices/);
    expect(r[2]).toMatch(/self\.certMode != 'edge'/);
  });
  it('rule 2 (distinct ports) on the list, rule 1 (80/443) on each item', () => {
    const list = spec.properties.tlsPassthroughListeners;
    expect(rulesOf(list)).toEqual([expect.stringMatching(/exists_one\(b, b\.port == a\.port\)/)]);
    expect(rulesOf(list.items)).toEqual([expect.stringMatching(/self\.port != 80 && self\.port != 443/)]);
    expect(rulesOf(spec.properties.apex)).toEqual([]);
    expect(rulesOf(spec.properties.certMode)).toEqual([]);
  });
  // "apex gets no format pattern, deliberately": a mixed-case apex is admitted.
  it('apex has no pattern: a mixed-case apex passes the schema', () => {
    expect(spec.properties.apex.pattern).toBeUndefined();
    expect(msgs(tgw({ apex: 'Customer1.IO' }))).toEqual([]);
  });
});
