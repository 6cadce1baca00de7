/** The platform's policies judge the controller's own writes (src/controller/writeAdmission.ts). */
import { admitWrite as admitWith } from '../../src/controller/writeAdmission';
import { renderPolicies } from '../../src/charts/policies';
import { ReconcileError } from '../../src/controller/errors';
import { Store } from '../../src/k8s/store';
import type { KObject } from '../../src/k8s/model';

const POLICIES = renderPolicies({});
const admitWrite = (store: Store, obj: KObject) => admitWith(store, obj, POLICIES);

const gateway = (hostnames: string[]): KObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name: 'cozystack', namespace: 'tenant-root' },
  spec: {
    gatewayClassName: 'cilium',
    listeners: hostnames.map((h, i) => ({ name: `l${i}`, port: 443, protocol: 'HTTPS', hostname: h })),
  },
});
const tenantRoot: KObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'tenant-root', labels: { 'namespace.cozystack.io/host': 'example.org' } },
};

describe('admission of controller writes', () => {
  it('admits a Gateway whose listener hostnames stay in the namespace apex', () => {
    expect(() =>
      admitWrite(new Store([tenantRoot]), gateway(['example.org', '*.example.org', 'a.b.example.org'])),
    ).not.toThrow();
  });

  it('refuses, as layer 2 does, a listener hostname outside the apex, naming the policy and the hostname', () => {
    const run = () => admitWrite(new Store([tenantRoot]), gateway(['*.example.org', '*.alice.customer.io']));
    expect(run).toThrow(ReconcileError);
    expect(run).toThrow(
      /refuses the write of Gateway tenant-root\/cozystack: ValidatingAdmissionPolicy 'cozystack-gateway-hostname-policy'.*alice\.customer\.io/,
    );
  });

  it('does not judge a write into a namespace the inputs do not hold (its labels are unknown)', () => {
    expect(() => admitWrite(new Store([]), gateway(['elsewhere.net']))).not.toThrow();
  });

  it('judges the redirect route by layer 7: fail-closed when the namespace has no host label', () => {
    const route: KObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'cozystack-http-redirect', namespace: 'tenant-x' },
      spec: { hostnames: ['x.example.org'] },
    };
    const bare: KObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-x' } };
    expect(() => admitWrite(new Store([bare]), route)).toThrow(/cozystack-route-hostname-policy/);
  });
});
