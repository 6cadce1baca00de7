/**
 * The Tenants a tree was rendered from, read back from what render wrote (src/pipelines/renderedTenants.ts):
 * rendering them again gives the very objects, for every spec field that leaves a trace.
 */
import { render } from '../../src/pipelines/render';
import { renderedTenants, tenantOfNamespace } from '../../src/pipelines/renderedTenants';
import { keyOf, type KObject } from '../../src/k8s/model';

const VALUES = [
  {
    file: 'values.yaml',
    values: {
      publishing: { host: 'example.org' },
      gateway: { enabled: true, className: 'cilium', tenantSelectableClasses: ['envoy'] },
    },
  },
];

const tenant = (name: string, namespace: string, spec: Record<string, unknown>): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace },
  spec,
});

const TENANTS = [
  tenant('root', 'tenant-root', { gateway: true }),
  tenant('alice', 'tenant-root', {
    etcd: true,
    monitoring: true,
    resourceQuotas: {
      cpu: '4',
      memory: '8Gi',
      storage: '100Gi',
      pods: '50',
      'count/certificates.cert-manager.io': '10',
    },
  }),
  tenant('dev', 'tenant-alice', {
    ingress: true,
    seaweedfs: true,
    gateway: true,
    gatewayClass: 'envoy',
    schedulingClass: 'batch',
  }),
  tenant('ci', 'tenant-alice-dev', {}),
  tenant('bob', 'tenant-root', { host: 'customer1.io', gateway: true }),
];

describe('renderedTenants', () => {
  it('names a tenant namespace’s parent and name; tenant-root and other namespaces are none', () => {
    expect(tenantOfNamespace('tenant-alice')).toEqual({ parent: 'tenant-root', name: 'alice' });
    expect(tenantOfNamespace('tenant-alice-dev')).toEqual({ parent: 'tenant-alice', name: 'dev' });
    expect(tenantOfNamespace('tenant-root')).toBeUndefined();
    expect(tenantOfNamespace('cozy-system')).toBeUndefined();
  });

  it('rendering the Tenants read back gives the objects the tree holds, each of them', () => {
    const first = render({ objects: TENANTS, valuesFiles: VALUES });
    expect(first.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const back = renderedTenants(first.objects);
    const again = render({ objects: back, valuesFiles: VALUES });
    const was = new Map(first.objects.map((o) => [keyOf(o), o]));
    const now = new Map(again.objects.map((o) => [keyOf(o), o]));
    expect([...now.keys()].sort()).toEqual([...was.keys()].sort());
    for (const [k, o] of was) expect({ object: k, now: now.get(k) }).toEqual({ object: k, now: o });
  });

  it('reads back only the spec values that leave a trace, and skips namespaces whose Tenant is known', () => {
    const first = render({ objects: TENANTS, valuesFiles: VALUES });
    const back = renderedTenants(first.objects, new Set(['tenant-alice-dev']));
    const spec = (ns: string, name: string) =>
      back.find((t) => t.metadata.namespace === ns && t.metadata.name === name)?.spec;
    expect(spec('tenant-alice', 'dev')).toBeUndefined();
    expect(spec('tenant-alice-dev', 'ci')).toEqual({});
    expect(spec('tenant-root', 'bob')).toEqual({ gateway: true, host: 'customer1.io' });
    expect(spec('tenant-root', 'alice')).toMatchObject({
      etcd: true,
      monitoring: true,
      resourceQuotas: expect.any(Object),
    });
  });
});
