/**
 * Minimal counterexamples the self-check properties (test/selfcheck.property.test.ts) found: the
 * controller writes a Gateway whose listener hostnames leave the Gateway's own apex, so layer 2
 * (cozystack-gateway-hostname-policy) refuses the whole write and every listener on it freezes.
 *
 * Each case asserts the behaviour the platform needs (the Gateway the pass writes is admitted)
 * and is marked `it.failing` while the bug stands: it turns red the day the controller is fixed,
 * which is the signal to drop `.failing` (and the matching narrowing in the property test).
 * A companion `it` pins what happens today, so the record stays exact.
 */
import { admit, denials, type UserInfo } from '../src/admit';
import { clone, type KObject } from '../src/model';
import { reconcile } from '../src/reconcile';
import { render } from '../src/render';

const NOW = '2026-01-01T00:00:00Z';
const CONTROLLER: UserInfo = {
  username: 'system:serviceaccount:cozy-system:cozystack-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-system', 'system:authenticated'],
};

const tenant = (name: string, namespace: string, spec: Record<string, unknown>): KObject => ({ apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name, namespace }, spec });
const ns = (name: string): KObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } });
const httpRoute = (namespace: string, hostname: string): KObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'app', namespace },
  spec: { parentRefs: [{ name: 'cozystack', namespace: 'tenant-root' }], hostnames: [hostname], rules: [{ backendRefs: [{ name: 'app', port: 8080 }] }] },
});

/**
 * Render the platform, build the cluster state from its output (plus `extra`), check the state is
 * admissible, run one controller pass, and return the denials of the Gateways it wrote.
 */
function gatewayDenials(values: Record<string, unknown>, tenants: KObject[], extra: KObject[] = []): string[] {
  const r = render({ objects: tenants, valuesFiles: [{ file: 'values.yaml', values }] });
  expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
  const policies = r.objects.filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy'));
  const state = r.objects
    .filter((o) => !o.kind.startsWith('ValidatingAdmissionPolicy'))
    .map((o) => (o.kind === 'Namespace' ? { ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, 'kubernetes.io/metadata.name': o.metadata.name } } } : o));
  state.push(...extra);
  // The state is one an enforcing cluster can hold: the policies admit every object in it.
  expect(denials(admit(state, policies, CONTROLLER))).toEqual([]);
  const res = reconcile({ objects: clone(state) }, { now: NOW });
  const gateways = res.store.list('gateway.networking.k8s.io', 'Gateway');
  expect(gateways.length).toBeGreaterThan(0);
  return denials(admit([...gateways, ...res.store.list('', 'Namespace')], policies, CONTROLLER)).map((d) => `${d.object.namespace}/${d.object.name}: ${d.messages.join('; ')}`);
}

// Bug A: an inheriting child with a custom host outside the apex, under dns01.
const bugA = () =>
  gatewayDenials(
    { publishing: { host: 'example.org', certificates: { solver: 'dns01' } }, gateway: { enabled: true } },
    [tenant('root', 'tenant-root', { gateway: true }), tenant('alice', 'tenant-root', { host: 'alice.customer.io' })],
  );

// Bug B1: a cozy-* route (layer 7 covers tenant-* only) naming a hostname outside the apex, under http01.
const bugB1 = () =>
  gatewayDenials(
    { publishing: { host: 'example.org' }, gateway: { enabled: true, attachedNamespaces: ['cozy-harbor'] } },
    [tenant('root', 'tenant-root', { gateway: true })],
    [ns('cozy-harbor'), httpRoute('cozy-harbor', 'registry.elsewhere.net')],
  );

// Bug B2: an inheriting child with a custom host outside the apex, whose own route (within its
// own apex, so layer 7 admits it) claims a listener on the parent's Gateway, under http01.
const bugB2 = () =>
  gatewayDenials(
    { publishing: { host: 'example.org' }, gateway: { enabled: true } },
    [tenant('root', 'tenant-root', { gateway: true }), tenant('alice', 'tenant-root', { host: 'alice.customer.io' })],
    [httpRoute('tenant-alice', 'app.alice.customer.io')],
  );

describe('self-check counterexamples: Gateway listeners outside the apex', () => {
  it.failing('A: a dns01 Gateway with an inheriting custom-host child is admitted', () => {
    expect(bugA()).toEqual([]);
  });
  it('A today: the *.<child apex> listener makes layer 2 refuse the Gateway', () => {
    expect(bugA()).toEqual([expect.stringMatching(/^tenant-root\/cozystack: Gateway listener hostnames \*\.alice\.customer\.io must equal example\.org/)]);
  });

  it.failing('B1: an http01 Gateway serving a cozy-* route named outside the apex is admitted', () => {
    expect(bugB1()).toEqual([]);
  });
  it('B1 today: the per-hostname listener makes layer 2 refuse the Gateway', () => {
    expect(bugB1()).toEqual([expect.stringMatching(/^tenant-root\/cozystack: Gateway listener hostnames registry\.elsewhere\.net must equal example\.org/)]);
  });

  it.failing('B2: an http01 Gateway serving an inheriting custom-host child route is admitted', () => {
    expect(bugB2()).toEqual([]);
  });
  it('B2 today: the per-hostname listener makes layer 2 refuse the Gateway', () => {
    expect(bugB2()).toEqual([expect.stringMatching(/^tenant-root\/cozystack: Gateway listener hostnames app\.alice\.customer\.io must equal example\.org/)]);
  });
});
