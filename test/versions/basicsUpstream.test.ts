/**
 * The helm-unittest cases of cozystack-basics at the release tags (packages/system/cozystack-basics/tests),
 * where they differ from main's (test/charts/upstreamUnittests.test.ts holds those), each run
 * against every version whose tag has it: gateway-hostname-policy_test.yaml and
 * route-hostname-policy_test.yaml (every release), ingress-hostname-policy_test.yaml and
 * monitoring-external-services_test.yaml (v1.6), clusterroles-options_test.yaml (v1.5: one case;
 * v1.6: four). The policy suites render one template each; here those are the documents of
 * renderPolicies in template order (gateway-hostname-policy.yaml: 6, route-hostname-policy.yaml:
 * 4, ingress-hostname-policy.yaml: 2). hostname-policies-capability-gate_test.yaml (v1.5.4, v1.6.1,
 * v1.6.2) expects nothing rendered without the ValidatingAdmissionPolicy API; cozy-gw keeps the
 * policies whatever `--api-versions` says (docs/versions.md §B1), so its case is mirrored as that.
 * Each test is named `<version>: <file> "<upstream it>"` and asserts what the upstream case does.
 */
import { clusterRoles, monitoringExternalServices } from '../../src/charts/cozystackBasics';
import { renderPolicies } from '../../src/charts/policies';
import { getPath, type KObject } from '../../src/k8s/model';
import { COZYSTACK_VERSIONS, type CozystackVersion } from '../../src/platform/cozystackVersions';
import { render } from '../../src/pipelines/render';

const version = (name: string): CozystackVersion => COZYSTACK_VERSIONS.find((v) => v.name === name)!;
const V15 = ['v1.5.0', 'v1.5.1', 'v1.5.2', 'v1.5.3', 'v1.5.4'];
const V16 = ['v1.6.0', 'v1.6.1', 'v1.6.2'];
const RELEASES = [...V15, ...V16];

/** The documents one policy template renders at a version, `_cluster` as the suite sets it. */
function template(v: string, file: 'gateway' | 'route' | 'ingress', cluster: Record<string, string> = {}): KObject[] {
  const all = renderPolicies(cluster, { behaviour: version(v).behaviour });
  const at = { gateway: [0, 6], route: [6, 10], ingress: [10, 12] }[file];
  return all.slice(at[0], at[1]);
}
const at = (o: unknown, path: string): unknown => getPath(o, path.split('.'));
/** `spec.variables[?(@.name=="N")].expression` */
const variable = (doc: KObject, name: string): string =>
  ((at(doc, 'spec.variables') as { name: string; expression: string }[]).find((x) => x.name === name) ?? {})
    .expression ?? '';
const str = (doc: KObject, path: string): string => String(at(doc, path));

describe.each(RELEASES)('%s: gateway-hostname-policy_test.yaml', (v) => {
  const docs = template(v, 'gateway');
  test(`${v}: gateway-hostname-policy_test.yaml "renders 3 VAPs + 3 Bindings (6 documents total)"`, () => {
    expect(docs).toHaveLength(6);
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-gateway-hostname-policy targets gateway resources"`, () => {
    expect([docs[0].kind, docs[0].metadata.name]).toEqual([
      'ValidatingAdmissionPolicy',
      'cozystack-gateway-hostname-policy',
    ]);
    expect(at(docs[0], 'spec.matchConstraints.resourceRules.0.apiGroups')).toEqual(['gateway.networking.k8s.io']);
    expect(at(docs[0], 'spec.matchConstraints.resourceRules.0.resources')).toEqual(['gateways']);
    expect(at(docs[0], 'spec.failurePolicy')).toBe('Fail');
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-gateway-hostname-policy gates on tenant-* namespace prefix"`, () => {
    expect(at(docs[0], 'spec.matchConditions.0.name')).toBe('tenant-namespace');
    expect(str(docs[0], 'spec.matchConditions.0.expression')).toMatch(
      /object\.metadata\.namespace\.startsWith\("tenant-"\)/,
    );
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-gateway-hostname-policy CEL validates listener hostname against namespace.cozystack.io/host"`, () => {
    expect(variable(docs[0], 'tenantHost')).toMatch(/namespace\.cozystack\.io\/host/);
    expect(str(docs[0], 'spec.validations.0.expression')).toMatch(/l\.hostname\.endsWith/);
    expect(str(docs[0], 'spec.validations.0.expression')).toMatch(/variables\.tenantHost/);
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-gateway-hostname-policy Binding is fail-closed (validationActions Deny)"`, () => {
    expect(docs[1].kind).toBe('ValidatingAdmissionPolicyBinding');
    expect(at(docs[1], 'spec.policyName')).toBe('cozystack-gateway-hostname-policy');
    expect(at(docs[1], 'spec.validationActions')).toEqual(['Deny']);
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-tenant-host-policy targets Tenant CRs and gates on trusted callers"`, () => {
    expect(docs[2].metadata.name).toBe('cozystack-tenant-host-policy');
    expect(at(docs[2], 'spec.matchConstraints.resourceRules.0.apiGroups')).toEqual(['apps.cozystack.io']);
    expect(at(docs[2], 'spec.matchConstraints.resourceRules.0.resources')).toEqual(['tenants']);
    for (const p of ['system:masters', 'cozy-system', 'cozy-fluxcd', 'cozy-cert-manager'])
      expect([p, variable(docs[2], 'trustedCaller').includes(p)]).toEqual([p, true]);
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-tenant-host-policy Binding is fail-closed"`, () => {
    expect(at(docs[3], 'spec.validationActions')).toEqual(['Deny']);
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-namespace-host-label-policy targets core/v1 Namespace"`, () => {
    expect(docs[4].metadata.name).toBe('cozystack-namespace-host-label-policy');
    expect(at(docs[4], 'spec.matchConstraints.resourceRules.0.apiGroups')).toEqual(['']);
    expect(at(docs[4], 'spec.matchConstraints.resourceRules.0.resources')).toEqual(['namespaces']);
    expect(str(docs[4], 'spec.validations.0.messageExpression')).toMatch(/immutable/);
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-namespace-host-label-policy Binding is fail-closed"`, () => {
    expect(at(docs[5], 'spec.validationActions')).toEqual(['Deny']);
    expect(at(docs[5], 'spec.policyName')).toBe('cozystack-namespace-host-label-policy');
  });
  test(`${v}: gateway-hostname-policy_test.yaml "render passes when gateway-attached-namespaces contains a tenant-* entry"`, () => {
    const r = render(
      {
        objects: [],
        valuesFiles: [
          { file: 'v', values: { gateway: { attachedNamespaces: ['cozy-cert-manager', 'tenant-alice'] } } },
        ],
      },
      { cozystack: version(v) },
    );
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(template(v, 'gateway', { 'gateway-attached-namespaces': 'cozy-cert-manager,tenant-alice' })).toHaveLength(6);
  });
  test(`${v}: gateway-hostname-policy_test.yaml "cozystack-gateway-attached-namespaces-policy VAP is no longer rendered"`, () => {
    for (const i of [0, 2, 4])
      expect([i, docs[i].metadata.name]).not.toEqual([i, 'cozystack-gateway-attached-namespaces-policy']);
  });
});

describe.each(RELEASES)('%s: route-hostname-policy_test.yaml', (v) => {
  const docs = template(v, 'route');
  const cel = (i: number) => str(docs[i], 'spec.validations.0.expression');
  test(`${v}: route-hostname-policy_test.yaml "renders ValidatingAdmissionPolicy + Binding for HTTPRoute and TLSRoute (Layer 7)"`, () => {
    expect(docs).toHaveLength(4);
    expect([docs[0].kind, docs[0].metadata.name]).toEqual([
      'ValidatingAdmissionPolicy',
      'cozystack-route-hostname-policy',
    ]);
    expect(docs[1].kind).toBe('ValidatingAdmissionPolicyBinding');
  });
  test(`${v}: route-hostname-policy_test.yaml "gates on tenant-* namespace prefix via matchConditions"`, () => {
    expect(at(docs[0], 'spec.matchConditions.0')).toEqual({
      name: 'tenant-namespace',
      expression: 'object.metadata.namespace.startsWith("tenant-")',
    });
  });
  test(`${v}: route-hostname-policy_test.yaml "validates HTTPRoute hostnames against namespace.cozystack.io/host label"`, () => {
    expect(cel(0)).toMatch(/object\.spec\.hostnames\.all\(h,/);
    expect(cel(0)).toMatch(/namespace\.cozystack\.io\/host/);
  });
  test(`${v}: route-hostname-policy_test.yaml "validation actions are Deny so requests fail closed"`, () => {
    expect(at(docs[1], 'spec.validationActions')).toEqual(['Deny']);
  });
  test(`${v}: route-hostname-policy_test.yaml "targets gateway.networking.k8s.io v1 HTTPRoute and v1alpha2 TLSRoute"`, () => {
    expect(at(docs[0], 'spec.matchConstraints.resourceRules.0.apiGroups')).toEqual(['gateway.networking.k8s.io']);
    expect(at(docs[0], 'spec.matchConstraints.resourceRules.0.resources')).toEqual(['httproutes']);
    expect(at(docs[2], 'spec.matchConstraints.resourceRules.0.resources')).toEqual(['tlsroutes']);
    expect(at(docs[2], 'spec.matchConstraints.resourceRules.0.apiVersions')).toEqual(['v1alpha2']);
  });
  test(`${v}: route-hostname-policy_test.yaml "failurePolicy is Fail so admission errors deny instead of allow"`, () => {
    expect([at(docs[0], 'spec.failurePolicy'), at(docs[2], 'spec.failurePolicy')]).toEqual(['Fail', 'Fail']);
  });
  test(`${v}: route-hostname-policy_test.yaml "CEL is fail-closed when namespace has no host label (returns false, not true)"`, () => {
    expect(cel(0)).toMatch(/\)\s*\?\s*false\s*:/);
    expect(cel(2)).toMatch(/\)\s*\?\s*false\s*:/);
    expect(cel(0)).toMatch(/namespaceObject\s*==\s*null/);
    expect(cel(0)).toMatch(/!has\(namespaceObject\.metadata\.labels\)/);
    expect(cel(0)).toMatch(/!\("namespace\.cozystack\.io\/host" in namespaceObject\.metadata\.labels\)/);
  });
});

describe.each(V16)('%s: ingress-hostname-policy_test.yaml (_cluster.root-host example.org)', (v) => {
  const docs = template(v, 'ingress', { 'root-host': 'example.org' });
  const cel = () => str(docs[0], 'spec.validations.0.expression');
  const t = (name: string) => `${v}: ingress-hostname-policy_test.yaml "${name}"`;
  test(t('renders ValidatingAdmissionPolicy + Binding for legacy Ingress'), () => {
    expect(docs.map((d) => [d.kind, d.metadata.name])).toEqual([
      ['ValidatingAdmissionPolicy', 'cozystack-ingress-hostname-policy'],
      ['ValidatingAdmissionPolicyBinding', 'cozystack-ingress-hostname-policy'],
    ]);
  });
  test(t('gates on tenant-* namespace prefix via matchConditions'), () => {
    expect(at(docs[0], 'spec.matchConditions.0')).toEqual({
      name: 'tenant-namespace',
      expression: 'object.metadata.namespace.startsWith("tenant-")',
    });
  });
  test(t('targets networking.k8s.io v1 Ingress on CREATE and UPDATE'), () => {
    expect(at(docs[0], 'spec.matchConstraints.resourceRules.0')).toEqual({
      apiGroups: ['networking.k8s.io'],
      apiVersions: ['v1'],
      operations: ['CREATE', 'UPDATE'],
      resources: ['ingresses'],
    });
  });
  test(t('validates both rules[].host and tls[].hosts against namespace.cozystack.io/host label'), () => {
    for (const re of [
      /object\.spec\.rules\.all\(r,/,
      /object\.spec\.tls\.all\(t,/,
      /t\.hosts\.all\(h,/,
      /namespace\.cozystack\.io\/host/,
    ])
      expect(cel()).toMatch(re);
  });
  test(t('allows a hostname outside the platform root apex (external custom domain)'), () => {
    expect(cel()).toMatch(/!\(r\.host == "example\.org" \|\| r\.host\.endsWith\("\.example\.org"\)\)/);
    expect(cel()).toMatch(/!\(h == "example\.org" \|\| h\.endsWith\("\.example\.org"\)\)/);
  });
  test(t('does not let a wildcard use the outside-root path (would match the platform apex)'), () => {
    expect(cel()).toMatch(/!r\.host\.startsWith\("\*\."\) && !\(r\.host == "example\.org"/);
    expect(cel()).toMatch(/!h\.startsWith\("\*\."\) && !\(h == "example\.org"/);
  });
  test(t('allows a wildcard under the own apex (own-apex path is not wildcard-gated)'), () => {
    expect(cel()).toMatch(
      /r\.host\.endsWith\("\." \+ namespaceObject\.metadata\.labels\["namespace\.cozystack\.io\/host"\]\) \|\| \(!r\.host\.startsWith\("\*\."\)/,
    );
    expect(cel()).toMatch(
      /h\.endsWith\("\." \+ namespaceObject\.metadata\.labels\["namespace\.cozystack\.io\/host"\]\) \|\| \(!h\.startsWith\("\*\."\)/,
    );
  });
  test(t('rejects a hostless or empty-host catch-all rule'), () => {
    expect(cel()).toMatch(/object\.spec\.rules\.all\(r,\s*has\(r\.host\) && r\.host != ""/);
    expect(cel()).toMatch(/t\.hosts\.all\(h,\s*h != ""/);
  });
  test(t('rejects a tenant Ingress default backend (a catch-all for unmatched traffic)'), () => {
    expect(cel()).toMatch(/!has\(object\.spec\.defaultBackend\)/);
  });
  test(t('validation actions are Deny so requests fail closed'), () => {
    expect(at(docs[1], 'spec.validationActions')).toEqual(['Deny']);
  });
  test(t('failurePolicy is Fail so admission errors deny instead of allow'), () => {
    expect(at(docs[0], 'spec.failurePolicy')).toBe('Fail');
  });
  test(t('CEL is fail-closed when namespace has no host label (returns false, not true)'), () => {
    for (const re of [
      /\)\s*\?\s*false\s*:/,
      /namespaceObject\s*==\s*null/,
      /!has\(namespaceObject\.metadata\.labels\)/,
      /!\("namespace\.cozystack\.io\/host" in namespaceObject\.metadata\.labels\)/,
    ])
      expect(cel()).toMatch(re);
  });
  test(t('reason is Forbidden and message references the host label'), () => {
    expect(at(docs[0], 'spec.validations.0.reason')).toBe('Forbidden');
    expect(str(docs[0], 'spec.validations.0.messageExpression')).toMatch(/namespace\.cozystack\.io\/host/);
  });
  test(t('omits the policy when the platform root apex is unset (no fail-open)'), () => {
    expect(template(v, 'ingress', { 'root-host': '' })).toEqual([]);
  });
});

describe.each([...V15, ...V16])('%s: clusterroles-options_test.yaml', (v) => {
  const rules = (name: string) =>
    at(
      clusterRoles(version(v).behaviour).find((r) => r.metadata.name === name),
      'rules',
    );
  test(`${v}: clusterroles-options_test.yaml "cozy:tenant:view:base grants read on core.cozystack.io options"`, () => {
    expect(rules('cozy:tenant:view:base')).toContainEqual({
      apiGroups: ['core.cozystack.io'],
      resources: ['options'],
      verbs: ['get', 'list', 'watch'],
    });
  });
  if (!V16.includes(v)) return;
  const sg = (verbs: string[]) => ({ apiGroups: ['sdn.cozystack.io'], resources: ['securitygroups'], verbs });
  test(`${v}: clusterroles-options_test.yaml "cozy:tenant:base grants full access on sdn.cozystack.io securitygroups"`, () => {
    expect(rules('cozy:tenant:base')).toContainEqual(sg(['*']));
  });
  test(`${v}: clusterroles-options_test.yaml "cozy:tenant:view:base grants read on sdn.cozystack.io securitygroups"`, () => {
    expect(rules('cozy:tenant:view:base')).toContainEqual(sg(['get', 'list', 'watch']));
  });
  test(`${v}: clusterroles-options_test.yaml "cozy:tenant:admin:base grants write on sdn.cozystack.io securitygroups"`, () => {
    expect(rules('cozy:tenant:admin:base')).toContainEqual(sg(['create', 'update', 'patch', 'delete']));
  });
});

describe.each(V16)('%s: monitoring-external-services_test.yaml', (v) => {
  const b = version(v).behaviour;
  const t = (name: string) => `${v}: monitoring-external-services_test.yaml "${name}"`;
  test(t('renders all three ExternalName redirects when monitoring-enabled is "true"'), () => {
    expect(
      monitoringExternalServices({ 'monitoring-enabled': 'true' }, b).map((d) => [
        d.metadata.namespace,
        d.metadata.name,
      ]),
    ).toEqual([
      ['cozy-monitoring', 'vlinsert-generic'],
      ['cozy-monitoring', 'vminsert-shortterm'],
      ['cozy-monitoring', 'vminsert-longterm'],
    ]);
  });
  test(t('keeps the redirects (default) when monitoring-enabled is absent'), () => {
    expect(monitoringExternalServices({}, b)).toHaveLength(3);
  });
  test(t('omits all redirects when monitoring-enabled is "false"'), () => {
    expect(monitoringExternalServices({ 'monitoring-enabled': 'false' }, b)).toHaveLength(0);
  });
  test(t('keeps the redirects (no panic) when _cluster is null'), () => {
    expect(monitoringExternalServices(null, b)).toHaveLength(3);
  });
  test(t('vlinsert-generic still points at tenant-root when rendered'), () => {
    expect(at(monitoringExternalServices({ 'monitoring-enabled': 'true' }, b)[0], 'spec')).toEqual({
      type: 'ExternalName',
      externalName: 'vlinsert-generic.tenant-root.svc.cluster.local',
    });
  });
});

describe.each(['v1.5.4', 'v1.6.1', 'v1.6.2'])('%s: hostname-policies-capability-gate_test.yaml', (v) => {
  test(`${v}: hostname-policies-capability-gate_test.yaml "neither hostname VAP policy renders when the API is unavailable": cozy-gw keeps them (docs/versions.md §B1)`, () => {
    const r = render({ objects: [], valuesFiles: [] }, { cozystack: version(v), apiVersions: ['v1'] });
    const vaps = r.objects.filter((o) => o.kind === 'ValidatingAdmissionPolicy').map((o) => o.metadata.name);
    expect(vaps).toEqual(
      expect.arrayContaining(['cozystack-gateway-hostname-policy', 'cozystack-route-hostname-policy']),
    );
  });
});
