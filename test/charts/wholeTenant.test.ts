/**
 * The whole tenant (docs/tenant.md): the ancestor chains, the RBAC and network-policy templates,
 * the tree's failures and hazards, the capability rulings and the render options, through the
 * template modules and the render pipeline. The upstream chart tests are
 * test/charts/upstreamUnittests.test.ts; the quota arithmetic test/charts/quota.test.ts.
 */
import { labelChain, levelChain, networkChain, prefixes, serviceAccountChain } from '../../src/charts/ancestorChains';
import { monitoringEnabled } from '../../src/charts/cozystackBasics';
import { omittedHooksNote } from '../../src/charts/hooks';
import { oidcEnabled, OidcFlagError } from '../../src/charts/keycloakGroups';
import { renderNetworkPolicies } from '../../src/charts/networkPolicies';
import { clusterValues, resolvePlatformValues } from '../../src/charts/platformValues';
import { renderTenantTree, tenantInputFindings } from '../../src/charts/tenantChart';
import { tenantNameError } from '../../src/charts/tenantNames';
import { levelsAtOrAbove, renderTenantRbac, subjectsForTenantAndAccessLevel } from '../../src/charts/tenantRbac';
import { tenantSpec } from '../../src/charts/tenantRelease';
import { asset } from '../../src/assets';
import { keyOf, type KObject } from '../../src/k8s/model';
import { render } from '../../src/pipelines/render';
import type { ClusterMap } from '../../src/platform/tenancy';

const tenant = (name: string, namespace: string, spec: unknown = {}): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace },
  spec: spec as Record<string, unknown>,
});
const cluster = (values: Record<string, unknown> = {}): ClusterMap =>
  clusterValues(resolvePlatformValues({ files: [{ file: 'v.yaml', values }], objects: [] }).values).cluster;
const ids = (objs: KObject[]) =>
  objs.map((o) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
const rules = (fs: { rule?: string }[]) => fs.map((f) => f.rule);
const fixed = asset<KObject[]>('templates/tenant/networkpolicy-fixed.yaml');

describe('the four ancestor chains (docs/tenant.md §2.0.4, worked values)', () => {
  const cases: [string, string, string[], string[], string[]][] = [
    ['tenant-root', 'tenant-root', ['tenant-root', 'tenant-root'], ['tenant-root'], []],
    ['tenant-a', 'tenant-root', ['tenant-root', 'tenant-a'], ['tenant-a', 'tenant-root'], ['tenant-root']],
    [
      'tenant-a-b',
      'tenant-a',
      ['tenant-root', 'tenant-a', 'tenant-a-b'],
      ['tenant-a', 'tenant-a-b', 'tenant-root'],
      ['tenant-a'],
    ],
    [
      'tenant-a-b-c',
      'tenant-a-b',
      ['tenant-root', 'tenant-a', 'tenant-a-b', 'tenant-a-b-c'],
      ['tenant-a', 'tenant-a-b', 'tenant-a-b-c', 'tenant-root'],
      ['tenant-a', 'tenant-a-b'],
    ],
  ];
  it.each(cases)('T=%s (P=%s): C-sa, C-level, C-net', (T, P, sa, level, net) => {
    expect(serviceAccountChain(T, P)).toEqual(sa);
    expect(levelChain(T)).toEqual(level);
    expect(networkChain(T, P)).toEqual(net);
  });
  it('C-label is tenant-root then Prefixes(T); C-sa equals it for every T but tenant-root', () => {
    expect(prefixes('tenant-a-b')).toEqual(['tenant-a', 'tenant-a-b']);
    expect(prefixes('tenant-root')).toEqual(['tenant-root']);
    for (const [T, P] of cases.map((c) => [c[0], c[1]])) {
      if (T === 'tenant-root') expect(labelChain(T)).toEqual(['tenant-root', 'tenant-root']);
      else expect([T, labelChain(T)]).toEqual([T, serviceAccountChain(T, P)]);
    }
  });
  it('C-net below depth 1 does not contain tenant-root (docs/decisions.md §Q12)', () => {
    expect(networkChain('tenant-a-b', 'tenant-a')).not.toContain('tenant-root');
  });
});

describe('tenant.yaml and the cozy-lib RBAC helper (docs/tenant.md §2.0.5, §2.1)', () => {
  it('levels at or above L, in byte order of the level name', () => {
    expect(levelsAtOrAbove('view')).toEqual(['admin', 'super-admin', 'use', 'view']);
    expect(levelsAtOrAbove('use')).toEqual(['admin', 'super-admin', 'use']);
    expect(levelsAtOrAbove('admin')).toEqual(['admin', 'super-admin']);
    expect(levelsAtOrAbove('super-admin')).toEqual(['super-admin']);
  });
  it('subject counts for tenant-a-b: view 15, use 12, admin 9, super-admin 6', () => {
    const counts = ['view', 'use', 'admin', 'super-admin'].map(
      (l) => subjectsForTenantAndAccessLevel(l, 'tenant-a-b').length,
    );
    expect(counts).toEqual([15, 12, 9, 6]);
  });
  it('the example of §2.1: tenant-a-b', () => {
    const objs = renderTenantRbac({ namespace: 'tenant-a-b', parentNamespace: 'tenant-a' });
    expect(ids(objs)).toEqual([
      'ServiceAccount tenant-a-b/tenant-a-b',
      'RoleBinding tenant-a-b/cozy:tenant',
      'RoleBinding tenant-a-b/cozy:tenant:view',
      'RoleBinding tenant-a-b/cozy:tenant:use',
      'RoleBinding tenant-a-b/cozy:tenant:admin',
      'RoleBinding tenant-a-b/cozy:tenant:super-admin',
      'RoleBinding cozy-public/cozy:tenant-a-b:dashboard',
    ]);
    expect(objs[0]).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'tenant-a-b', namespace: 'tenant-a-b' },
    });
    const sa = (n: string) => ({ kind: 'ServiceAccount', name: n, namespace: n });
    const g = (n: string) => ({ kind: 'Group', name: n, apiGroup: 'rbac.authorization.k8s.io' });
    expect(objs[1].subjects).toEqual([sa('tenant-root'), sa('tenant-a'), sa('tenant-a-b')]);
    expect(objs[1].roleRef).toEqual({
      kind: 'ClusterRole',
      name: 'cozy:tenant',
      apiGroup: 'rbac.authorization.k8s.io',
    });
    expect(objs[3].subjects).toEqual([
      sa('tenant-a'),
      g('tenant-a-admin'),
      g('tenant-a-super-admin'),
      g('tenant-a-use'),
      sa('tenant-a-b'),
      g('tenant-a-b-admin'),
      g('tenant-a-b-super-admin'),
      g('tenant-a-b-use'),
      sa('tenant-root'),
      g('tenant-root-admin'),
      g('tenant-root-super-admin'),
      g('tenant-root-use'),
    ]);
    expect(objs[3].roleRef).toEqual({
      kind: 'ClusterRole',
      name: 'cozy:tenant:use',
      apiGroup: 'rbac.authorization.k8s.io',
    });
    expect(objs[6].subjects).toEqual([
      g('tenant-a-b-super-admin'),
      g('tenant-a-b-admin'),
      g('tenant-a-b-use'),
      g('tenant-a-b-view'),
      sa('tenant-a-b'),
    ]);
    expect(objs[6].roleRef).toEqual({
      kind: 'Role',
      name: 'cozy:tenant:dashboard',
      apiGroup: 'rbac.authorization.k8s.io',
    });
  });
  it("tenant-root's cozy:tenant binding lists its ServiceAccount twice (docs/decisions.md §Q12)", () => {
    const [, rb] = renderTenantRbac({ namespace: 'tenant-root', parentNamespace: 'tenant-root' });
    expect(rb.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'tenant-root', namespace: 'tenant-root' },
      { kind: 'ServiceAccount', name: 'tenant-root', namespace: 'tenant-root' },
    ]);
  });
});

describe('networkpolicy.yaml (docs/tenant.md §2.2)', () => {
  const policies = (T: string, P: string, spec: Record<string, unknown> = {}) =>
    renderNetworkPolicies({ namespace: T, parentNamespace: P, spec: tenantSpec(tenant('x', P, spec)) }, fixed);
  it('12 always: 10 CNPs in T and the two CCNPs; one more for each of own ingress, etcd, monitoring', () => {
    const base = policies('tenant-a', 'tenant-root');
    expect(base.filter((p) => p.kind === 'CiliumNetworkPolicy').map((p) => p.metadata.namespace)).toEqual(
      Array(10).fill('tenant-a'),
    );
    expect(base.filter((p) => p.kind === 'CiliumClusterwideNetworkPolicy').map((p) => p.metadata.name)).toEqual([
      'tenant-a-egress',
      'tenant-a-ingress',
    ]);
    const all = policies('tenant-a', 'tenant-root', { ingress: true, etcd: true, monitoring: true });
    expect(all).toHaveLength(15);
    expect(all.map((p) => p.metadata.name)).toEqual(
      expect.arrayContaining(['tenant-a-ingress-ingress', 'tenant-a-ingress-etcd', 'tenant-a-egress-virt-handler']),
    );
  });
  it('the ancestor rules follow C-net, and are skipped for tenant-root', () => {
    const egress = (objs: KObject[], T: string) =>
      objs.find((p) => p.metadata.name === `${T}-egress`)!.spec as { egress: unknown[] };
    expect(egress(policies('tenant-root', 'tenant-root'), 'tenant-root').egress).toHaveLength(1);
    const deep = egress(policies('tenant-a-b-c', 'tenant-a-b'), 'tenant-a-b-c').egress;
    expect(deep).toHaveLength(4);
    expect(deep[1]).toEqual({
      toEndpoints: ['tenant-a', 'tenant-a-b'].map((a) => ({
        matchLabels: { 'k8s:app.kubernetes.io/name': 'vminsert', 'k8s:io.kubernetes.pod.namespace': a },
      })),
    });
    const ingress = policies('tenant-a-b', 'tenant-a').find((p) => p.metadata.name === 'tenant-a-b-ingress')!.spec as {
      ingress: unknown[];
    };
    expect(ingress.ingress[3]).toEqual({
      fromEndpoints: [{ matchLabels: { 'k8s:io.kubernetes.pod.namespace': 'tenant-a' } }],
    });
  });
  it("flags read are the tenant's own, not the inherited _namespace", () => {
    // A child of a tenant with etcd: true inherits `_namespace.etcd`, but renders no etcd policy.
    const t = renderTenantTree(cluster(), [tenant('a', 'tenant-root', { etcd: true }), tenant('b', 'tenant-a')]);
    expect(ids(t.objects)).toContain('CiliumClusterwideNetworkPolicy tenant-a-ingress-etcd');
    expect(ids(t.objects)).not.toContain('CiliumClusterwideNetworkPolicy tenant-a-b-ingress-etcd');
    expect(ids(t.objects)).not.toContain('HelmRelease tenant-a-b/etcd');
  });
  it('the shared fixed policies are copied, not shared between tenants', () => {
    const a = policies('tenant-a', 'tenant-root');
    const b = policies('tenant-b', 'tenant-root');
    expect(a[0].metadata.namespace).toBe('tenant-a');
    expect(b[0].metadata.namespace).toBe('tenant-b');
    expect(a[0].spec).not.toBe(b[0].spec);
    expect(fixed[0].metadata.namespace).toBeUndefined();
  });
});

describe('the tree: every object of a tenant', () => {
  it('22 objects for a sub-tenant with defaults and no Gateway; tenant-root 20 (docs/tenant.md §1.2)', () => {
    const t = renderTenantTree(cluster(), [tenant('a', 'tenant-root')]);
    const inNs = (ns: string) =>
      t.objects.filter(
        (o) =>
          o.metadata.namespace === ns ||
          (o.kind === 'Namespace' && o.metadata.name === ns) ||
          (!o.metadata.namespace &&
            o.kind === 'CiliumClusterwideNetworkPolicy' &&
            o.metadata.name.startsWith(`${ns}-`) &&
            !o.metadata.name.startsWith(`${ns}-a-`)) ||
          o.metadata.name === `cozy:${ns}:dashboard`,
      );
    expect(inNs('tenant-a')).toHaveLength(22);
    // tenant-root's Namespace and Secret are cozystack-basics': 20 from the tenant chart.
    expect(inNs('tenant-root').filter((o) => o.kind !== 'Namespace' && o.kind !== 'Secret')).toHaveLength(20);
  });
  it('with quotas, modules and OIDC: +2 quotas, +4 Keycloak groups, +1 per module and +1 policy each for ingress, etcd, monitoring', () => {
    const c = cluster({ authentication: { oidc: { enabled: true } } });
    const t = renderTenantTree(c, [
      tenant('a', 'tenant-root', {
        etcd: true,
        ingress: true,
        monitoring: true,
        seaweedfs: true,
        computeplane: true,
        resourceQuotas: { cpu: '4' },
      }),
    ]);
    const a = t.objects.filter((o) => o.metadata.namespace === 'tenant-a');
    const kinds = (k: string) => a.filter((o) => o.kind === k).map((o) => o.metadata.name);
    expect(kinds('HelmRelease')).toEqual(['etcd', 'ingress', 'monitoring', 'seaweedfs', 'computeplane', 'info']);
    expect(kinds('KeycloakRealmGroup')).toEqual([
      'tenant-a-view',
      'tenant-a-use',
      'tenant-a-admin',
      'tenant-a-super-admin',
    ]);
    expect(kinds('ResourceQuota')).toEqual(['tenant-quota']);
    expect(kinds('LimitRange')).toEqual(['tenant-range-limits']);
    // The computeplane Package was not checked: no cozystack.io/v1alpha1 object among the inputs (docs/decisions.md §Q2).
    expect(t.findings).toEqual([
      expect.objectContaining({ severity: 'warning', rule: 'tenant.computeplane-unchecked' }),
    ]);
  });
  it("the root Tenant sets tenant-root's own modules; the gateway HelmRelease is never emitted", () => {
    const t = renderTenantTree(cluster(), [tenant('root', 'tenant-root', { gateway: true, etcd: true })]);
    const hrs = t.objects
      .filter((o) => o.kind === 'HelmRelease')
      .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(hrs).toEqual(['tenant-root/etcd', 'tenant-root/info']);
    expect(t.objects.find((o) => o.metadata.name === 'etcd')!.metadata.labels!['app.kubernetes.io/instance']).toBe(
      'tenant-root',
    );
  });
  it('cozystack-basics: 10 ClusterRoles, cozy-public and its Role, the monitoring Services; never the tenant-root HelmRelease (docs/decisions.md §Q6, §Q7)', () => {
    const t = renderTenantTree(cluster(), []);
    expect(t.objects.filter((o) => o.kind === 'ClusterRole')).toHaveLength(10);
    expect(ids(t.objects)).toEqual(
      expect.arrayContaining([
        'Namespace cozy-public',
        'Role cozy-public/cozy:tenant:dashboard',
        'Service cozy-monitoring/vlinsert-generic',
        'Service cozy-monitoring/vminsert-shortterm',
        'Service cozy-monitoring/vminsert-longterm',
      ]),
    );
    expect(ids(t.objects)).not.toContain('HelmRelease tenant-root/tenant-root');
  });
  it('monitoring.rootEnabled: false writes monitoring-enabled "false" and drops the Services; the boolean false would keep them (docs/decisions.md §Q12)', () => {
    const off = cluster({ monitoring: { rootEnabled: false } });
    expect(off['monitoring-enabled']).toBe('false');
    expect(renderTenantTree(off, []).objects.filter((o) => o.kind === 'Service')).toEqual([]);
    expect(cluster()['monitoring-enabled']).toBe('true');
    expect(monitoringEnabled({ 'monitoring-enabled': false })).toBe(true);
  });
  it('the platform values the tenant templates read reach _cluster (reference values of behaviour.md §1)', () => {
    const c = cluster({
      authentication: {
        oidc: {
          enabled: true,
          insecureSkipVerify: true,
          keycloakExtraRedirectUri: 'https://x',
          keycloakInternalUrl: 'http://kc',
        },
      },
      resources: { cpuAllocationRatio: 4, memoryAllocationRatio: '2', ephemeralStorageAllocationRatio: 8 },
    });
    expect(c).toMatchObject({
      'oidc-enabled': 'true',
      'oidc-insecure-skip-verify': 'true',
      'extra-keycloak-redirect-uri-for-dashboard': 'https://x',
      'keycloak-internal-url': 'http://kc',
      'cpu-allocation-ratio': '4',
      'memory-allocation-ratio': '2',
      'ephemeral-storage-allocation-ratio': '8',
    });
    const t = renderTenantTree(c, [tenant('a', 'tenant-root', { resourceQuotas: { cpu: '2', memory: '4Gi' } })]);
    expect(t.objects.find((o) => o.kind === 'ResourceQuota')!.spec).toEqual({
      hard: { 'limits.cpu': '2', 'limits.memory': '4Gi', 'requests.cpu': '0.5', 'requests.memory': '2147483648' },
    });
  });
});

describe('failures and hazards', () => {
  it('a Tenant with an invalid name, no namespace and spec "oops": every failure at once', () => {
    const bad: KObject = {
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'Bad-Name' },
      spec: 'oops' as never,
    };
    const r = render({ objects: [bad], valuesFiles: [] });
    expect(r.objects).toEqual([]);
    expect(r.findings.map((f) => [f.rule, f.field])).toEqual(
      expect.arrayContaining([
        ['input.tenant-schema', 'metadata.namespace'],
        ['input.tenant-schema', 'spec'],
        ['tenant.release-name', 'metadata.name'],
        ['tenant.name', 'metadata.name'],
      ]),
    );
  });
  it('an invalid Tenant skips its subtree quietly; the others still render and report', () => {
    const t = renderTenantTree(cluster(), [
      tenant('a', 'tenant-root', { etcd: 'yes' }),
      tenant('b', 'tenant-a'),
      tenant('c', 'tenant-root', { resourceQuotas: { limits: '1' } }),
    ]);
    expect(rules(t.findings)).toEqual(['input.tenant-schema', 'tenant.quota']);
    expect(ids(t.objects)).not.toContain('Namespace tenant-a-b');
  });
  it('Q13: empty, upper case, a leading digit, dots fail with the README rule; a dash keeps the chart message', () => {
    expect(tenantNameError('')).toMatch(/empty.*lowercase letters and digits, starting with a letter/);
    for (const n of ['Alice', '1abc', 'a.b', 'a_b'])
      expect([n, tenantNameError(n)]).toEqual([n, expect.stringMatching(/README requires/)]);
    expect(tenantNameError('a-b')).toBeUndefined();
    expect(rules(tenantInputFindings(tenant('a-b', 'tenant-root')))).toEqual(['tenant.release-name']);
    expect(rules(tenantInputFindings(tenant('', 'tenant-root')))).toEqual(['tenant.name']);
    expect(rules(tenantInputFindings(tenant('a', 'tenant-root')))).toEqual([]);
  });
  it('Q13: a tenant namespace over 63 characters fails', () => {
    const f = tenantInputFindings(tenant('x'.repeat(46), `tenant-${'p'.repeat(10)}`));
    expect(rules(f)).toEqual(['tenant.namespace-name']);
    expect(f[0].message).toMatch(/64 characters long/);
    // At depth 1 such a name is past the Tenants API's 46 too (docs/decisions.md §15): both are said.
    expect(rules(tenantInputFindings(tenant('x'.repeat(57), 'tenant-root')))).toEqual([
      'tenant.name-length',
      'tenant.namespace-name',
    ]);
  });
  it('Q14: a cluster-wide policy name two tenants render fails, naming both', () => {
    const t = renderTenantTree(cluster(), [
      tenant('a', 'tenant-root', { ingress: true }),
      tenant('ingress', 'tenant-a'),
    ]);
    const clash = t.findings.filter((f) => f.rule === 'tenant.clusterwide-name');
    expect(clash).toHaveLength(1);
    expect(clash[0]).toMatchObject({ severity: 'error', object: { name: 'ingress', namespace: 'tenant-a' } });
    expect(clash[0].message).toMatch(
      /tenant-a-ingress-ingress would be rendered by two tenants, tenant-a and tenant-a-ingress/,
    );
  });
  it('Q14: a Keycloak group two tenants render is a warning', () => {
    const t = renderTenantTree(cluster({ authentication: { oidc: { enabled: true } } }), [
      tenant('a', 'tenant-root'),
      tenant('super', 'tenant-a'),
    ]);
    expect(t.findings).toEqual([
      expect.objectContaining({
        severity: 'warning',
        rule: 'tenant.keycloak-group-shared',
        message: expect.stringMatching(/tenant-a-super-admin/),
      }),
    ]);
  });
  it('nested resourceQuotas and a ratio of 0 fail, naming the Tenant', () => {
    const t = renderTenantTree(cluster({ resources: { cpuAllocationRatio: 0 } }), [
      tenant('a', 'tenant-root', { resourceQuotas: { cpu: '1' } }),
      tenant('b', 'tenant-root', { resourceQuotas: { requests: { cpu: '1' } } }),
      tenant('c', 'tenant-root', { resourceQuotas: { limits: '2' } }),
    ]);
    expect(t.findings.map((f) => [f.rule, f.object?.name, f.field])).toEqual([
      // A nested section is a mapping where a quantity goes: the values schema refuses it first.
      ['input.tenant-schema', 'b', 'spec.resourceQuotas.requests'],
      ['tenant.quota', 'a', undefined],
      // A key named limits is the helper's own failure.
      ['tenant.quota', 'c', 'spec.resourceQuotas'],
    ]);
    expect(t.findings[0].message).toMatch(/not nested requests: and limits: sections/);
    expect(t.findings[1].message).toMatch(/_cluster\.cpu-allocation-ratio is "0"/);
    expect(t.findings[2].message).toMatch(/flat map of resources/);
  });
  it('a resourceQuotas value that is not a quantity fails once per key, naming it', () => {
    const f = tenantInputFindings(
      tenant('a', 'tenant-root', { resourceQuotas: { cpu: 'lots', memory: 0.5, pods: 3, gpu: '2' } }),
    );
    expect(f.map((x) => [x.field, x.message])).toEqual([
      ['spec.resourceQuotas.cpu', expect.stringMatching(/must be a quantity .*got "lots"/)],
      ['spec.resourceQuotas.memory', expect.stringMatching(/must be a quantity .*got 0\.5/)],
    ]);
  });
  it('Q11: a non-string oidc-enabled fails as Go refuses the comparison; absent is false', () => {
    expect(() => oidcEnabled({ 'oidc-enabled': true })).toThrow(OidcFlagError);
    expect(() => oidcEnabled({ 'oidc-enabled': true })).toThrow(/incompatible types for comparison/);
    expect(oidcEnabled(undefined)).toBe(false);
    expect(oidcEnabled({ 'oidc-enabled': 'true' })).toBe(true);
  });
});

describe('the capability rulings (docs/decisions.md §Q2, §Q3)', () => {
  const cp = tenant('a', 'tenant-root', { computeplane: true });
  const pkg = (name: string): KObject => ({ apiVersion: 'cozystack.io/v1alpha1', kind: 'Package', metadata: { name } });
  it('Q2: with cozystack.io/v1alpha1 served, a missing computeplane Package fails; present, it renders', () => {
    const missing = renderTenantTree(cluster(), [cp, pkg('cozystack.cozystack-platform')]);
    expect(missing.findings).toEqual([
      expect.objectContaining({ severity: 'error', rule: 'tenant.computeplane-package' }),
    ]);
    expect(missing.findings[0].message).toMatch(
      /cozystack\.computeplane-application is not installed.*iaas bundle.*bundles\.iaas\.enabled: true/,
    );
    const viaFlag = renderTenantTree(cluster(), [cp], { apiVersions: ['cozystack.io/v1alpha1'] });
    expect(rules(viaFlag.findings)).toEqual(['tenant.computeplane-package']);
    const present = renderTenantTree(cluster(), [cp, pkg('cozystack.computeplane-application')]);
    expect(present.findings).toEqual([]);
    expect(ids(present.objects)).toContain('HelmRelease tenant-a/computeplane');
  });
  it('Q2: without it, the HelmRelease renders with a warning that the Package was not checked', () => {
    const t = renderTenantTree(cluster(), [cp]);
    expect(rules(t.findings)).toEqual(['tenant.computeplane-unchecked']);
    expect(ids(t.objects)).toContain('HelmRelease tenant-a/computeplane');
  });
  it('Q3: the Keycloak groups follow oidc-enabled, unless --api-versions lists the served versions', () => {
    const on = cluster({ authentication: { oidc: { enabled: true } } });
    const groups = (c: ClusterMap, apiVersions?: string[]) =>
      renderTenantTree(c, [tenant('a', 'tenant-root')], { apiVersions }).objects.filter(
        (o) => o.kind === 'KeycloakRealmGroup',
      ).length;
    expect(groups(on)).toBe(8); // tenant-root's and tenant-a's
    expect(groups(cluster())).toBe(0);
    expect(groups(on, ['apps/v1'])).toBe(0);
    expect(groups(on, ['v1.edp.epam.com/v1'])).toBe(8);
    expect(groups(cluster(), ['v1.edp.epam.com/v1'])).toBe(0);
  });
});

describe('render options', () => {
  const input = {
    objects: [tenant('root', 'tenant-root', { gateway: true }), tenant('a', 'tenant-root', { gateway: true })],
    valuesFiles: [{ file: 'v.yaml', values: { gateway: { enabled: true } } }],
  };
  it('--gateway-only: Namespaces, cozystack-values Secrets, TenantGateways and the admission policies only', () => {
    const r = render(input, { gatewayOnly: true });
    expect(r.findings).toEqual([]);
    expect([...new Set(r.objects.map((o) => o.kind))].sort()).toEqual([
      'Namespace',
      'Secret',
      'TenantGateway',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
  });
  it('--include-hooks: the 4 + 4 hook objects per tenant, their annotations kept and namespaces filled in (docs/decisions.md §Q5)', () => {
    const r = render(input, { includeHooks: true });
    const hooks = r.objects.filter((o) => o.metadata.annotations?.['helm.sh/hook']);
    expect(ids(hooks).sort()).toEqual(
      [
        'Job cozy-system/tenant-a-cleanup',
        'Job cozy-system/tenant-root-cleanup',
        'Job tenant-a/gateway-cleanup',
        'Job tenant-root/gateway-cleanup',
        'Role tenant-a/gateway-cleanup',
        'Role tenant-a/tenant-a-cleanup',
        'Role tenant-root/gateway-cleanup',
        'Role tenant-root/tenant-root-cleanup',
        'RoleBinding tenant-a/gateway-cleanup',
        'RoleBinding tenant-a/tenant-a-cleanup',
        'RoleBinding tenant-root/gateway-cleanup',
        'RoleBinding tenant-root/tenant-root-cleanup',
        'ServiceAccount cozy-system/tenant-a-cleanup',
        'ServiceAccount cozy-system/tenant-root-cleanup',
        'ServiceAccount tenant-a/gateway-cleanup',
        'ServiceAccount tenant-root/gateway-cleanup',
      ].sort(),
    );
    expect(r.findings).toEqual([]);
    const script = (
      hooks.find((o) => o.metadata.name === 'tenant-a-cleanup' && o.kind === 'Job')!.spec as never as {
        template: { spec: { containers: { command: string[] }[] } };
      }
    ).template.spec.containers[0].command[2];
    expect(script).toContain('NAMESPACE="tenant-a"');
    expect(script).toMatch(
      /-l 'apps\.cozystack\.io\/application\.kind,internal\.cozystack\.io\/tenantmodule!=true' \\\n/,
    );
  });
  it('by default the hooks are left out; the note (when asked for) names them and why, once', () => {
    const r = render(input, { noteOmittedHooks: true });
    expect(r.objects.filter((o) => o.metadata.annotations?.['helm.sh/hook']).map(keyOf)).toEqual([]);
    expect(r.findings).toEqual([expect.objectContaining({ severity: 'info', rule: 'render.hooks-omitted' })]);
    expect(r.findings[0].message).toMatch(
      /pre-delete cleanup of 2 tenants .*post-delete ACME cleanup of 2 Gateway owners .*--include-hooks/,
    );
    expect(render(input).findings).toEqual([]);
    expect(omittedHooksNote(0, 0)).toBeUndefined();
  });
  it('no note when the render fails: there is no output to leave anything out of', () => {
    const r = render(
      { ...input, objects: [...input.objects, tenant('a-b', 'tenant-root')] },
      { noteOmittedHooks: true },
    );
    expect(rules(r.findings)).toEqual(['tenant.release-name']);
  });
  it('the output order holds for the new objects: cluster-scoped ones sorted, after every namespaced object, before the policies', () => {
    const objs = render(input).objects;
    const firstClusterScoped = objs.findIndex((o) => !o.metadata.namespace && o.kind !== 'Namespace');
    const cs = objs.slice(firstClusterScoped).map((o) => o.kind);
    expect(
      objs
        .slice(firstClusterScoped)
        .filter((o) => o.metadata.namespace)
        .map(keyOf),
    ).toEqual([]);
    expect(cs.indexOf('ValidatingAdmissionPolicy')).toBeGreaterThan(cs.lastIndexOf('ClusterRole'));
    expect(cs.lastIndexOf('CiliumClusterwideNetworkPolicy')).toBeLessThan(cs.indexOf('ClusterRole'));
  });
});
