/** `render --with-controller` (src/pipelines/preview.ts): render, then one controller pass over the rendered state. */
import { preview } from '../../src/pipelines/preview';
import { render } from '../../src/pipelines/render';
import type { KObject } from '../../src/k8s/model';

const values = { file: 'values.yaml', values: { publishing: { host: 'example.org' }, gateway: { enabled: true } } };
const tenants: KObject[] = [
  {
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: 'root', namespace: 'tenant-root' },
    spec: { gateway: true },
  },
  {
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: 'alice', namespace: 'tenant-root' },
    spec: {},
  },
];
const route = (name: string, ns: string, hostnames: string[]): KObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name, namespace: ns },
  spec: {
    parentRefs: [{ name: 'cozystack', namespace: 'tenant-root' }],
    hostnames,
    rules: [{ backendRefs: [{ name, port: 80 }] }],
  },
});
const NOW = '2026-01-01T00:00:00Z';

function find(objs: KObject[], kind: string, ns: string | undefined, name: string): KObject | undefined {
  return objs.find((o) => o.kind === kind && o.metadata.name === name && (o.metadata.namespace ?? undefined) === ns);
}

describe('render --with-controller', () => {
  const input = {
    objects: [
      ...tenants,
      route('app', 'tenant-alice', ['app.alice.example.org']),
      route('bad', 'tenant-alice', ['*.alice.example.org']),
    ],
    valuesFiles: [values],
  };
  const out = preview(input, { now: NOW });

  it('renders what render renders, as the controller leaves it', () => {
    const plain = render(input).objects;
    for (const o of plain) expect(find(out.objects, o.kind, o.metadata.namespace, o.metadata.name)).toBeDefined();
    const tgw = find(out.objects, 'TenantGateway', 'tenant-root', 'cozystack')!;
    expect((tgw.status as { conditions: { type: string; reason: string }[] }).conditions[0]).toMatchObject({
      type: 'Ready',
      reason: 'GatewayNotAccepted',
    });
  });

  it('adds the controller objects: the Gateway with a per-app listener, its Certificate, the Issuer and the redirect', () => {
    const gw = find(out.objects, 'Gateway', 'tenant-root', 'cozystack')!;
    const names = (gw.spec as { listeners: { name: string; hostname?: string }[] }).listeners.map((l) => l.hostname);
    expect(names).toContain('app.alice.example.org');
    expect(find(out.objects, 'Issuer', 'tenant-root', 'cozystack-gateway')).toBeDefined();
    expect(find(out.objects, 'HTTPRoute', 'tenant-root', 'cozystack-http-redirect')).toBeDefined();
    expect(out.objects.filter((o) => o.kind === 'Certificate')).toHaveLength(1);
  });

  it('shows why a route was refused, on the route', () => {
    const bad = find(out.objects, 'HTTPRoute', 'tenant-alice', 'bad')!;
    const cond = (bad.status as { parents: { conditions: { reason: string; message: string }[] }[] }).parents[0]
      .conditions[0];
    expect(cond.reason).toBe('NoMatchingListenerHostname');
    expect(cond.message).toContain('*.alice.example.org');
  });

  it('is deterministic and leaves a render failure a failure', () => {
    expect(JSON.stringify(preview(input, { now: NOW }).objects)).toBe(JSON.stringify(out.objects));
    const failing = preview(
      {
        objects: tenants,
        valuesFiles: [{ file: 'v.yaml', values: { publishing: { certificates: { solver: 'nope' } } } }],
      },
      { now: NOW },
    );
    expect(failing.objects).toEqual([]);
    expect(failing.findings.some((f) => f.severity === 'error' && /solver/.test(f.message))).toBe(true);
  });
});
