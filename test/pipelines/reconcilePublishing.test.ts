/** docs/decisions.md §3: the publishing tenant (publishing.ingressName) wins a namespace two TenantGateways attach. */
import { reconcile } from '../../src/pipelines/reconcile';
import type { KObject } from '../../src/k8s/model';

const tgw = (ns: string, uid: string): KObject => ({
  apiVersion: 'gateway.cozystack.io/v1alpha1',
  kind: 'TenantGateway',
  metadata: { name: 'cozystack', namespace: ns, uid, generation: 1 },
  spec: {
    apex: `${ns.replace('tenant-', '')}.example.org`,
    certMode: 'http01',
    attachedNamespaces: ['cozy-dashboard'],
  },
});
const ns = (name: string, labels: Record<string, string> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } },
});
const host = (h: string) => ({ 'namespace.cozystack.io/host': h });
const objects = [
  tgw('tenant-root', 'u1'),
  tgw('tenant-bob', 'u2'),
  ns('tenant-root', host('root.example.org')),
  ns('tenant-bob', host('bob.example.org')),
  ns('cozy-dashboard'),
];
const NOW = '2026-01-01T00:00:00Z';

function gatewayLabelOf(objs: KObject[], name: string): string | undefined {
  return objs.find((o) => o.kind === 'Namespace' && o.metadata.name === name)?.metadata.labels?.[
    'namespace.cozystack.io/gateway'
  ];
}

describe('attachedNamespaces contest follows publishing.ingressName', () => {
  it('tenant-root wins by default (no values)', () => {
    const r = reconcile({ objects }, { now: NOW });
    expect(gatewayLabelOf(r.store.all(), 'cozy-dashboard')).toBe('tenant-root');
  });

  it('the tenant publishing.ingressName names wins when the values say so', () => {
    const r = reconcile(
      { objects, valuesFiles: [{ file: 'v.yaml', values: { publishing: { ingressName: 'tenant-bob' } } }] },
      { now: NOW },
    );
    expect(gatewayLabelOf(r.store.all(), 'cozy-dashboard')).toBe('tenant-bob');
    const root = r.store.get('gateway.cozystack.io', 'TenantGateway', 'tenant-root', 'cozystack')!;
    expect(JSON.stringify(root.status)).toContain('cozy-dashboard');
  });
});

describe('the publishing namespace is read once, as given (no trim), and refused when it names no namespace', () => {
  const replicated = (r: ReturnType<typeof reconcile>) =>
    r.store
      .all()
      .filter((o) => o.kind === 'Secret' && o.metadata.labels?.['cozystack.io/wildcard-secret-copy'] === 'true')
      .map((o) => o.metadata.namespace);
  const wildcardWorld = [
    ...objects,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'wildcard-tls', namespace: 'tenant-root' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' },
    },
  ];
  const values = (ingressName: string) => ({
    publishing: { ingressName, certificates: { wildcardSecretName: 'wildcard-tls' } },
  });

  it('an ingressName with a trailing space is an input error naming the key and the file; nothing is replicated', () => {
    const r = reconcile(
      { objects: wildcardWorld, valuesFiles: [{ file: 'values.yaml', values: values('tenant-root ') }] },
      { now: NOW },
    );
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([
      expect.objectContaining({ rule: 'platform.ingress-name', file: 'values.yaml', field: 'publishing.ingressName' }),
    ]);
    expect(replicated(r)).toEqual([]);
  });

  it('the same value spelled right replicates into the termination points', () => {
    const r = reconcile(
      { objects: wildcardWorld, valuesFiles: [{ file: 'values.yaml', values: values('tenant-root') }] },
      { now: NOW },
    );
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(replicated(r)).toEqual(['tenant-bob']);
  });

  it('a live channel Secret whose _cluster.expose-ingress is no namespace name is unreadable, naming the key', () => {
    const channel: KObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cozystack-values', namespace: 'cozy-system' },
      stringData: {
        'values.yaml': '_cluster:\n  wildcard-secret-name: wildcard-tls\n  expose-ingress: "tenant-root "\n',
      },
    };
    const r = reconcile({ objects: [...wildcardWorld, channel] }, { now: NOW });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([
      expect.objectContaining({
        rule: 'wildcard.channel-unparsable',
        message: expect.stringContaining('_cluster.expose-ingress "tenant-root " is not a namespace name'),
      }),
    ]);
    expect(replicated(r)).toEqual([]);
  });
});
