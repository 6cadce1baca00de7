/**
 * Minimal counterexamples the self-check properties (test/properties/selfcheck.property.test.ts) found: the
 * controller composed a Gateway whose listener hostnames leave the Gateway's own apex (an
 * inheriting child with a custom apex; a cozy-* route naming a host outside the apex), which
 * layer 2 (cozystack-gateway-hostname-policy) refuses, freezing every listener on it. The pass now
 * asks the platform's policies before each write (src/controller/writeAdmission.ts), as the
 * apiserver would: the refused write does not happen and the TenantGateway says why.
 */
import { admit } from '../../src/admission/admit';
import { denials, type UserInfo } from '../../src/admission/decision';
import { clone, type KObject } from '../../src/k8s/model';
import { reconcile } from '../../src/pipelines/reconcile';
import { render } from '../../src/pipelines/render';

const NOW = '2026-01-01T00:00:00Z';
const CONTROLLER: UserInfo = {
  username: 'system:serviceaccount:cozy-system:cozystack-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-system', 'system:authenticated'],
};

const tenant = (name: string, namespace: string, spec: Record<string, unknown>): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace },
  spec,
});
const ns = (name: string): KObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
});
const httpRoute = (namespace: string, hostname: string): KObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'app', namespace },
  spec: {
    parentRefs: [{ name: 'cozystack', namespace: 'tenant-root' }],
    hostnames: [hostname],
    rules: [{ backendRefs: [{ name: 'app', port: 8080 }] }],
  },
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
    .map((o) =>
      o.kind === 'Namespace'
        ? {
            ...o,
            metadata: {
              ...o.metadata,
              labels: { ...o.metadata.labels, 'kubernetes.io/metadata.name': o.metadata.name },
            },
          }
        : o,
    );
  state.push(...extra);
  // The state is one an enforcing cluster can hold: the policies admit every object in it.
  expect(denials(admit(state, policies, CONTROLLER))).toEqual([]);
  const res = reconcile({ objects: clone(state) }, { now: NOW });
  const gateways = res.store.list('gateway.networking.k8s.io', 'Gateway');
  return denials(admit([...gateways, ...res.store.list('', 'Namespace')], policies, CONTROLLER)).map(
    (d) => `${d.object.namespace}/${d.object.name}: ${d.messages.join('; ')}`,
  );
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

/** The TenantGateway's Ready condition after the pass over the same state. */
function readyAfter(
  values: Record<string, unknown>,
  tenants: KObject[],
  extra: KObject[] = [],
): { reason: string; message: string } {
  const r = render({ objects: tenants, valuesFiles: [{ file: 'values.yaml', values }] });
  const state = r.objects
    .filter((o) => !o.kind.startsWith('ValidatingAdmissionPolicy'))
    .map((o) =>
      o.kind === 'Namespace'
        ? {
            ...o,
            metadata: {
              ...o.metadata,
              labels: { ...o.metadata.labels, 'kubernetes.io/metadata.name': o.metadata.name },
            },
          }
        : o,
    );
  const res = reconcile({ objects: clone([...state, ...extra]) }, { now: NOW });
  const tgw = res.store.get('gateway.cozystack.io', 'TenantGateway', 'tenant-root', 'cozystack')!;
  return (tgw.status as { conditions: { reason: string; message: string }[] }).conditions[0];
}

const valuesA = { publishing: { host: 'example.org', certificates: { solver: 'dns01' } }, gateway: { enabled: true } };
const tenantsA = [
  tenant('root', 'tenant-root', { gateway: true }),
  tenant('alice', 'tenant-root', { host: 'alice.customer.io' }),
];

/*
 * The controller would write a Gateway whose listener hostnames leave the namespace's apex; the
 * platform's layer 2 refuses that write. The pass asks the policies before writing
 * (src/controller/writeAdmission.ts): the write does not happen, and the TenantGateway says why.
 */
describe('self-check counterexamples: Gateway listeners outside the apex', () => {
  it('A: dns01 with an inheriting custom-host child: no refused Gateway is written', () => {
    expect(bugA()).toEqual([]);
  });
  it('A: the TenantGateway reads Ready=False naming layer 2 and the child apex', () => {
    const c = readyAfter(valuesA, tenantsA);
    expect(c.reason).toBe('ReconcileError');
    expect(c.message).toMatch(/cozystack-gateway-hostname-policy.*\*\.alice\.customer\.io/);
  });

  it('B1: an http01 cozy-* route named outside the apex: no refused Gateway is written', () => {
    expect(bugB1()).toEqual([]);
  });
  it('B1: the TenantGateway reads Ready=False naming the hostname', () => {
    const c = readyAfter(
      { publishing: { host: 'example.org' }, gateway: { enabled: true, attachedNamespaces: ['cozy-harbor'] } },
      [tenant('root', 'tenant-root', { gateway: true })],
      [ns('cozy-harbor'), httpRoute('cozy-harbor', 'registry.elsewhere.net')],
    );
    expect(c.reason).toBe('ReconcileError');
    expect(c.message).toMatch(/registry\.elsewhere\.net/);
  });

  it('B2: an inheriting custom-host child route under http01: no refused Gateway is written', () => {
    expect(bugB2()).toEqual([]);
  });
});
