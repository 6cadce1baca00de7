/**
 * One race everywhere (docs/behaviour.md §5.8): the statuses `reconcile` writes, the verdicts its result
 * carries, the `-o plan` text and `render --with-controller` all come from the one decision.
 */
import { preview } from '../../src/pipelines/preview';
import { renderPlan } from '../../src/reports/plan';
import { reconcile } from '../../src/pipelines/reconcile';
import type { KObject } from '../../src/k8s/model';

const NOW = '2026-01-01T00:00:00Z';
const CTRL = 'gateway.cozystack.io/tenantgateway-controller';
const ns = (name: string, gateway = 'tenant-root', host?: string): KObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    name,
    labels: {
      'kubernetes.io/metadata.name': name,
      'namespace.cozystack.io/gateway': gateway,
      ...(host ? { 'namespace.cozystack.io/host': host } : {}),
    },
  },
});
const ref = (extra: Record<string, unknown> = {}) => ({
  group: 'gateway.networking.k8s.io',
  kind: 'Gateway',
  name: 'cozystack',
  namespace: 'tenant-root',
  ...extra,
});
const route = (
  kind: 'HTTPRoute' | 'TLSRoute',
  namespace: string,
  name: string,
  hostnames: string[],
  parentRef = ref(),
): KObject => ({
  apiVersion: kind === 'HTTPRoute' ? 'gateway.networking.k8s.io/v1' : 'gateway.networking.k8s.io/v1alpha2',
  kind,
  metadata: { name, namespace },
  spec: { parentRefs: [parentRef], hostnames },
});
// The shape where the copies once disagreed: a platform HTTPRoute on api.<apex>, the kube-apiserver TLSRoute, a shadow.
const ROUTES = [
  route('HTTPRoute', 'cozy-dashboard', 'web', ['api.example.org']),
  route('TLSRoute', 'default', 'kubernetes-api', ['api.example.org'], ref({ sectionName: 'tls-api' })),
  route('TLSRoute', 'tenant-alice', 'shadow', ['api.example.org'], ref({ sectionName: 'tls-api' })),
];
const TGW: KObject = {
  apiVersion: 'gateway.cozystack.io/v1alpha1',
  kind: 'TenantGateway',
  metadata: { name: 'cozystack', namespace: 'tenant-root', uid: 'u', generation: 1 },
  spec: {
    apex: 'example.org',
    certMode: 'http01',
    attachedNamespaces: ['cozy-dashboard', 'default'],
    tlsPassthroughServices: ['api'],
  },
};
const WANT = {
  'HTTPRoute cozy-dashboard/web': [
    'NoMatchingListenerHostname',
    'On TenantGateway tenant-root/cozystack: answered only by a TLS-passthrough listener, which an HTTPRoute does not attach to, and no terminate listener is rendered beside it: api.example.org (answered by api.example.org)',
  ],
  'TLSRoute default/kubernetes-api': ['Accepted', 'Route attached to TenantGateway tenant-root/cozystack'],
  'TLSRoute tenant-alice/shadow': [
    'HostnameConflict',
    'On TenantGateway tenant-root/cozystack: hostname held by a route in another namespace: api.example.org (held by TLSRoute default/kubernetes-api)',
  ],
};

function statuses(objs: KObject[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const o of objs) {
    if (o.kind !== 'HTTPRoute' && o.kind !== 'TLSRoute') continue;
    const p = ((o.status as { parents?: Record<string, unknown>[] })?.parents ?? []).find(
      (e) => e.controllerName === CTRL,
    );
    const c = ((p?.conditions ?? []) as Record<string, string>[]).find((x) => x.type === 'Accepted');
    if (c) out[`${o.kind} ${o.metadata.namespace}/${o.metadata.name}`] = [c.reason, c.message];
  }
  return out;
}

describe('one race for route status, the reconcile result, the plan and render --with-controller', () => {
  const objects = [
    TGW,
    ns('tenant-root', 'tenant-root', 'example.org'),
    ns('cozy-dashboard'),
    ns('default'),
    ns('tenant-alice'),
    ...ROUTES,
  ];
  const r = reconcile({ objects }, { now: NOW });

  test('route status is written from the race the result carries', () => {
    expect(statuses(r.store.all())).toEqual(WANT);
    expect(r.races).toHaveLength(1);
    const fromRace = Object.fromEntries(
      r.races[0].verdicts.map((vd) => [
        `${vd.claimant.kind} ${vd.claimant.namespace}/${vd.claimant.name}`,
        [vd.reason, vd.message],
      ]),
    );
    expect(fromRace).toEqual(WANT);
    const api = r.races[0].hostnames.find((o) => o.hostname === 'api.example.org')!;
    expect(api.holders.map((c) => `${c.namespace}/${c.name}`)).toEqual(['default/kubernetes-api']);
    expect(api.withdrawn.map((w) => [`${w.claimant.namespace}/${w.claimant.name}`, w.cause])).toEqual([
      ['cozy-dashboard/web', 'reserved'],
    ]);
  });

  test('a pass that stops after writing route status still reports the race it wrote them from', () => {
    // tenant-root without its host label: the redirect write is refused (step 9), after step 8.
    const failing = reconcile(
      { objects: [TGW, ns('tenant-root'), ns('cozy-dashboard'), ns('default'), ns('tenant-alice'), ...ROUTES] },
      { now: NOW },
    );
    expect(failing.findings.map((f) => f.rule)).toContain('tenantgateway.reconcile-error');
    expect(statuses(failing.store.all())).toEqual(WANT);
    expect(failing.races.map((x) => x.tenantGateway)).toEqual(['tenant-root/cozystack']);
  });

  test('the plan prints those verdicts', () => {
    const plan = renderPlan(r, { before: objects, now: NOW });
    for (const [id, [reason, message]] of Object.entries(WANT)) {
      expect(plan).toContain(`change ${id}`);
      expect(plan).toContain(`${reason === 'Accepted' ? 'Accepted=True' : 'Accepted=False'} ${reason}: ${message}`);
    }
  });

  test('render --with-controller writes the same verdicts', () => {
    const values = {
      file: 'values.yaml',
      values: {
        publishing: { host: 'example.org' },
        gateway: { enabled: true, attachedNamespaces: ['cozy-dashboard', 'default'] },
      },
    };
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
    const out = preview(
      { objects: [...tenants, ns('cozy-dashboard', ''), ns('default', ''), ...ROUTES], valuesFiles: [values] },
      { now: NOW },
    );
    expect(out.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(statuses(out.objects)).toEqual(WANT);
  });
});
