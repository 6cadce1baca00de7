import { diffFields, renderPlan } from '../../src/reports/plan';
import { Store } from '../../src/k8s/store';
import type { KObject } from '../../src/k8s/model';
import type { ReconcileResult } from '../../src/pipelines/reconcile';

describe('diffFields', () => {
  it('names map leaves, keyed list entries and plain changes', () => {
    const a = {
      metadata: { labels: { a: '1' } },
      spec: {
        listeners: [
          { name: 'http', port: 80 },
          { name: 'old', port: 443 },
        ],
      },
    };
    const b = {
      metadata: { labels: { a: '2', 'x.io/y': 'z' } },
      spec: {
        listeners: [
          { name: 'http', port: 8080 },
          { name: 'new', port: 443 },
        ],
      },
    };
    expect(diffFields(a, b).map((d) => `${d.op} ${d.path}`)).toEqual([
      'changed .metadata.labels.a',
      'added .metadata.labels["x.io/y"]',
      'changed .spec.listeners[name=http].port',
      'removed .spec.listeners[name=old]',
      'added .spec.listeners[name=new]',
    ]);
  });
  it('an added map is shown by its leaves', () => {
    expect(diffFields({}, { metadata: { annotations: { k: 'v' } } })).toEqual([
      { path: '.metadata.annotations.k', op: 'added', after: 'v' },
    ]);
  });
  it('equal values give nothing', () => {
    expect(diffFields({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
  });
});

function result(before: KObject[], mutate: (s: Store) => void): ReconcileResult {
  const store = new Store(before);
  mutate(store);
  return { store, changes: store.changes(), findings: [], races: [] };
}

describe('renderPlan', () => {
  const secret: KObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'tenant-a', labels: { 'cozystack.io/wildcard-secret-copy': 'true' } },
    type: 'kubernetes.io/tls',
    data: { 'tls.key': 'c2VjcmV0' },
  };

  it('never prints Secret data, even in a field diff', () => {
    const r = result([secret], (s) => s.put({ ...secret, data: { 'tls.key': 'bmV3c2VjcmV0' } }, 'refresh'));
    const out = renderPlan(r, { before: [secret], now: 'T' });
    expect(out).toContain('~ change Secret tenant-a/s');
    expect(out).toContain('why: refresh');
    expect(out).toContain('~ data["tls.key"] (value hidden)');
    expect(out).not.toMatch(/c2VjcmV0|bmV3c2VjcmV0/);
  });

  it('groups by namespace, names the TenantGateway there, and counts', () => {
    const tgw: KObject = {
      apiVersion: 'gateway.cozystack.io/v1alpha1',
      kind: 'TenantGateway',
      metadata: { name: 'cozystack', namespace: 'tenant-a' },
      spec: { certMode: 'dns01' },
    };
    const r = result([secret, tgw], (s) =>
      s.delete({ apiVersion: 'v1', kind: 'Secret', namespace: 'tenant-a', name: 's' }, 'pruned'),
    );
    const out = renderPlan(r, {
      before: [secret, tgw],
      now: 'T',
      ciliumVersion: '1.20.2',
      channelOrigin: 'platform values (v.yaml)',
    });
    expect(out).toContain('Namespace tenant-a — TenantGateway cozystack (certMode dns01)');
    expect(out).toContain('  - delete Secret tenant-a/s\n      why: pruned');
    expect(out).toContain('0 objects to create, 0 to change, 1 to delete');
    expect(out).toContain('Wildcard-Secret channel: platform values (v.yaml)');
  });

  it('says when there is nothing to do', () => {
    expect(
      renderPlan(
        result([secret], () => undefined),
        { before: [secret], now: 'T' },
      ),
    ).toMatch(/Nothing to do/);
  });

  it('lists warnings and Cilium notes in their own sections', () => {
    const r = result([], () => undefined);
    r.findings = [
      { severity: 'warning', message: 'w1', rule: 'wildcard.replica-skipped' },
      { severity: 'info', message: 'c1', rule: 'cilium.needs-per-port-listeners' },
    ];
    const out = renderPlan(r, { before: [], now: 'T', ciliumVersion: '1.20.2' });
    expect(out).toMatch(/Warnings:\n  warning: w1/);
    expect(out).toMatch(
      /Cilium 1\.20\.2 \(what the Gateway implementation does with these Gateways\):\n  info: c1 \[cilium\.needs-per-port-listeners\]/,
    );
  });
});
