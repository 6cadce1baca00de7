import { compileError } from '../helpers/celCompile';
import type { KObject } from '../../src/k8s/model';
import { clusterValues, platformDefaults } from '../../src/charts/platformValues';
import { attachedNamespacesGuard, renderPolicies, servedVersions, TRUSTED_GROUPS } from '../../src/charts/policies';

const cluster = (over: Record<string, string> = {}) => ({ ...clusterValues(platformDefaults()).cluster, ...over });

const spec = (o: KObject) => o.spec as any;
const vap = (objs: KObject[], name: string) =>
  objs.find((o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name === name)!;

describe('renderPolicies (docs/behaviour.md §7)', () => {
  const objs = renderPolicies(cluster({ 'root-host': 'example.org' }));

  it('renders the layers in order, each VAP followed by its binding', () => {
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(
      [
        'cozystack-gateway-hostname-policy',
        'cozystack-gateway-attached-namespaces-policy',
        'cozystack-tenant-host-policy',
        'cozystack-namespace-host-label-policy',
        'cozystack-route-hostname-policy',
        'cozystack-ingress-hostname-policy',
      ].flatMap((n) => [`ValidatingAdmissionPolicy/${n}`, `ValidatingAdmissionPolicyBinding/${n}`]),
    );
  });

  it('labels both, fails closed, reason Forbidden, binding Deny only', () => {
    for (const o of objs) {
      expect(o.apiVersion).toBe('admissionregistration.k8s.io/v1');
      expect(o.metadata.labels).toEqual({ 'internal.cozystack.io/managed-by-cozystack': '' });
      if (o.kind === 'ValidatingAdmissionPolicy') {
        expect(spec(o).failurePolicy).toBe('Fail');
        for (const v of spec(o).validations) {
          expect(v.reason).toBe('Forbidden');
          expect(v.messageExpression).toBeTruthy();
        }
        for (const r of spec(o).matchConstraints.resourceRules) expect(r.operations).toEqual(['CREATE', 'UPDATE']);
      } else {
        expect(spec(o)).toEqual({ policyName: o.metadata.name, validationActions: ['Deny'] });
      }
    }
  });

  it('every CEL expression compiles', () => {
    for (const o of objs.filter((x) => x.kind === 'ValidatingAdmissionPolicy')) {
      const s = spec(o);
      const exprs = [
        ...(s.matchConditions ?? []).map((c: { expression: string }) => c.expression),
        ...(s.variables ?? []).map((c: { expression: string }) => c.expression),
        ...s.validations.flatMap((v: { expression: string; messageExpression: string }) => [
          v.expression,
          v.messageExpression,
        ]),
      ];
      for (const e of exprs) expect([o.metadata.name, compileError(e)]).toEqual([o.metadata.name, undefined]);
    }
  });

  it('matches the resources each layer names', () => {
    const rules = (n: string) => spec(vap(objs, n)).matchConstraints.resourceRules;
    expect(rules('cozystack-gateway-hostname-policy')).toEqual([
      {
        apiGroups: ['gateway.networking.k8s.io'],
        apiVersions: ['v1', 'v1beta1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['gateways'],
      },
    ]);
    expect(rules('cozystack-gateway-attached-namespaces-policy')[0]).toMatchObject({
      apiGroups: ['cozystack.io'],
      apiVersions: ['v1alpha1'],
      resources: ['packages'],
    });
    expect(rules('cozystack-tenant-host-policy')[0]).toMatchObject({
      apiGroups: ['apps.cozystack.io'],
      apiVersions: ['v1alpha1'],
      resources: ['tenants'],
    });
    expect(rules('cozystack-namespace-host-label-policy')[0]).toMatchObject({
      apiGroups: [''],
      apiVersions: ['v1'],
      resources: ['namespaces'],
    });
    expect(rules('cozystack-ingress-hostname-policy')[0]).toMatchObject({
      apiGroups: ['networking.k8s.io'],
      apiVersions: ['v1'],
      resources: ['ingresses'],
    });
  });

  it('layer 7 covers HTTPRoute, TLSRoute and GRPCRoute in every version the vendored bundle serves', () => {
    const r = spec(vap(objs, 'cozystack-route-hostname-policy')).matchConstraints.resourceRules;
    expect(r.map((x: { resources: string[]; apiVersions: string[] }) => [x.resources[0], x.apiVersions])).toEqual([
      ['httproutes', ['v1', 'v1beta1']],
      ['tlsroutes', ['v1', 'v1alpha2', 'v1alpha3']],
      ['grpcroutes', ['v1']],
    ]);
  });

  it('scopes layers 2, 7 and 8 to tenant-* namespaces', () => {
    for (const n of [
      'cozystack-gateway-hostname-policy',
      'cozystack-route-hostname-policy',
      'cozystack-ingress-hostname-policy',
    ]) {
      expect(spec(vap(objs, n)).matchConditions).toEqual([
        { name: 'tenant-ns', expression: "request.namespace.startsWith('tenant-')" },
      ]);
    }
  });

  it('layers 4 and 5 trust exactly the whitelist', () => {
    for (const n of ['cozystack-tenant-host-policy', 'cozystack-namespace-host-label-policy']) {
      const t = spec(vap(objs, n)).variables.find((v: { name: string }) => v.name === 'trusted').expression;
      for (const g of TRUSTED_GROUPS) expect(t).toContain(`"${g}"`);
      expect(t.match(/"system:/g)).toHaveLength(TRUSTED_GROUPS.length);
    }
  });

  it('layer 8 renders only when root-host is set, with the root host baked in as a literal', () => {
    expect(renderPolicies(cluster({ 'root-host': '' })).map((o) => o.metadata.name)).not.toContain(
      'cozystack-ingress-hostname-policy',
    );
    const s = JSON.stringify(
      spec(vap(renderPolicies(cluster({ 'root-host': 'Corp.Example.COM' })), 'cozystack-ingress-hostname-policy')),
    );
    expect(s).toContain('\\"corp.example.com\\"');
    expect(s).toContain('\\".corp.example.com\\"');
    expect(s).not.toContain('root-host');
  });

  it('is deterministic', () => {
    expect(JSON.stringify(renderPolicies(cluster()))).toBe(JSON.stringify(renderPolicies(cluster())));
  });
});

describe('Gateway API bundle versions (semver)', () => {
  const tls = (v: string) => servedVersions(v).tlsroutes;
  it('follows the bundle the route policy is rendered for', () => {
    expect(tls('1.2.1')).toEqual(['v1alpha2']);
    expect(tls('v1.3.0')).toEqual(['v1alpha2']);
    expect(tls('1.4.0')).toEqual(['v1alpha2', 'v1alpha3']);
    expect(tls('1.5.0')).toEqual(['v1', 'v1alpha2', 'v1alpha3']);
    expect(tls('1.6.1')).toEqual(['v1', 'v1alpha2', 'v1alpha3']);
    expect(tls('1.9.0')).toEqual(['v1', 'v1alpha2', 'v1alpha3']);
    expect(servedVersions('1.1.0').grpcroutes).toEqual(['v1', 'v1alpha2']);
  });
  it('renders the route policy for an older bundle', () => {
    const r = spec(vap(renderPolicies(cluster(), { gatewayApiVersion: '1.2.0' }), 'cozystack-route-hostname-policy'))
      .matchConstraints.resourceRules;
    expect(r[1]).toMatchObject({ resources: ['tlsroutes'], apiVersions: ['v1alpha2'] });
  });
  it('refuses a non-version and a bundle older than 1.0', () => {
    expect(() => servedVersions('banana')).toThrow(/not a version/);
    expect(() => servedVersions('0.8.0')).toThrow(/older/);
  });
});

describe('layer 6: the render-time guard over gateway-attached-namespaces', () => {
  it('passes the default list', () => {
    expect(attachedNamespacesGuard(cluster())).toEqual([]);
  });
  it('fails on every tenant-* entry, split and trimmed, naming it and pointing to tenant.spec.gateway=true', () => {
    const f = attachedNamespacesGuard(
      cluster({ 'gateway-attached-namespaces': 'cozy-system, tenant-alice,default,tenant-bob ' }),
    );
    expect(f).toHaveLength(2);
    expect(f[0].message).toContain('"tenant-alice"');
    expect(f[1].message).toContain('"tenant-bob"');
    expect(
      f.filter((x) => x.severity !== 'error' || !/tenant\.spec\.gateway=true/.test(`${x.message} ${x.hint}`)),
    ).toEqual([]);
  });
  it('does not match a namespace that merely contains tenant-', () => {
    expect(attachedNamespacesGuard(cluster({ 'gateway-attached-namespaces': 'cozy-tenant-x,mytenant-a' }))).toEqual([]);
  });
});
