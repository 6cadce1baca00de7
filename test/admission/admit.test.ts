import { admit, resourceOf } from '../../src/admission/admit';
import { denials, unjudged, warnings, type UserInfo } from '../../src/admission/decision';
import type { KObject } from '../../src/k8s/model';
import { clusterValues, platformDefaults } from '../../src/charts/platformValues';
import { renderPolicies, TRUSTED_GROUPS } from '../../src/charts/policies';

const POLICIES = renderPolicies({ ...clusterValues(platformDefaults()).cluster, 'root-host': 'example.org' });
const FLUX: UserInfo = {
  username: 'system:serviceaccount:cozy-fluxcd:helm-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-fluxcd', 'system:authenticated'],
};
const ADMIN: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const ALICE: UserInfo = { username: 'alice', groups: ['tenant-alice-admin', 'system:authenticated'] };

function ns(name: string, host?: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, ...(host !== undefined ? { labels: { 'namespace.cozystack.io/host': host } } : {}) },
  };
}
/** The denial messages of the last object, judged beside the others (Namespaces supply namespaceObject). */
function denied(objs: KObject[], user: UserInfo = FLUX): string[] {
  const last = objs[objs.length - 1];
  return denials(admit(objs, POLICIES, user))
    .filter((d) => d.object.kind === last.kind && d.object.name === last.metadata.name)
    .flatMap((d) => d.messages.map((m) => `${d.policy}: ${m}`));
}
const ALICE_NS = ns('tenant-alice', 'alice.example.org');

describe('layer 2: cozystack-gateway-hostname-policy', () => {
  const gw = (
    listeners: Record<string, unknown>[] | undefined,
    namespace = 'tenant-alice',
    apiVersion = 'gateway.networking.k8s.io/v1',
  ): KObject => ({
    apiVersion,
    kind: 'Gateway',
    metadata: { name: 'gw', namespace },
    spec: { gatewayClassName: 'cilium', ...(listeners ? { listeners } : {}) },
  });
  const l = (hostname?: string) => ({ name: 'l', port: 443, protocol: 'HTTPS', ...(hostname ? { hostname } : {}) });
  it.each([
    ['the apex', [l('alice.example.org')]],
    ['a subdomain', [l('app.alice.example.org')]],
    ['a wildcard under the apex', [l('*.alice.example.org')]],
    ['mixed case', [l('App.ALICE.example.org')]],
    ['a listener without hostname', [l()]],
    ['no listeners', undefined],
  ])('admits %s', (_, listeners) => {
    expect(denied([ALICE_NS, gw(listeners)])).toEqual([]);
  });
  it.each([
    ['a foreign apex', 'dashboard.example.org'],
    ['the apex as a prefix', 'alice.example.org.attacker.net'],
    ['a suffix without the dot', 'evilalice.example.org'],
    ['a broader wildcard', '*.example.org'],
  ])('denies %s, naming L and the namespace', (_, h) => {
    const d = denied([ALICE_NS, gw([l('ok.alice.example.org'), l(h)])]);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(/^cozystack-gateway-hostname-policy: .*must equal alice\.example\.org.*tenant-alice/);
    expect(d[0]).toContain(h);
    expect(d[0]).not.toContain('ok.alice');
  });
  it('matches v1beta1 too', () => {
    expect(denied([ALICE_NS, gw([l('x.org')], 'tenant-alice', 'gateway.networking.k8s.io/v1beta1')])).toHaveLength(1);
  });
  it('fails open when the label is absent or empty, or the namespace is unknown', () => {
    expect(denied([ns('tenant-alice'), gw([l('x.org')])])).toEqual([]);
    expect(denied([ns('tenant-alice', ''), gw([l('x.org')])])).toEqual([]);
    expect(denied([gw([l('x.org')])])).toEqual([]);
  });
  it('does not touch Gateways outside tenant-* namespaces', () => {
    expect(denied([ns('kube-system', 'alice.example.org'), gw([l('x.org')], 'kube-system')])).toEqual([]);
  });
});

describe('layer 3: cozystack-gateway-attached-namespaces-policy', () => {
  const pkg = (values: Record<string, unknown>): KObject => ({
    apiVersion: 'cozystack.io/v1alpha1',
    kind: 'Package',
    metadata: { name: 'cozystack.cozystack-platform' },
    spec: { variant: 'isp-full', components: { platform: { values } } },
  });
  it('admits a Package without gateway values or without tenant-* entries', () => {
    expect(denied([pkg({})], ADMIN)).toEqual([]);
    expect(denied([pkg({ gateway: { enabled: true } })], ADMIN)).toEqual([]);
    expect(denied([pkg({ gateway: { attachedNamespaces: ['cozy-system', 'default'] } })], ADMIN)).toEqual([]);
    expect(denied([{ ...pkg({}), spec: { components: {} } }], ADMIN)).toEqual([]);
  });
  it('denies tenant-* entries even for cluster-admins (trimmed), naming them', () => {
    const d = denied([pkg({ gateway: { attachedNamespaces: ['cozy-system', ' tenant-alice', 'tenant-bob'] } })], ADMIN);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(
      /^cozystack-gateway-attached-namespaces-policy: .*tenant-alice, tenant-bob.*tenant\.spec\.gateway=true/,
    );
  });
});

describe('layer 4: cozystack-tenant-host-policy', () => {
  const tenant = (host?: string): KObject => ({
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: 'alice', namespace: 'tenant-root' },
    spec: { gateway: true, ...(host !== undefined ? { host } : {}) },
  });
  it('denies an untrusted CREATE that sets spec.host, naming the user', () => {
    const d = denied([tenant('dashboard.example.org')], ALICE);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(
      /^cozystack-tenant-host-policy: spec\.host can only be set by cluster-admins or cozystack\/Flux service accounts: user alice/,
    );
  });
  it.each(TRUSTED_GROUPS)('admits a caller in %s', (g) => {
    expect(denied([tenant('dashboard.example.org')], { username: 'x', groups: [g] })).toEqual([]);
  });
  it('admits a Tenant without host, or with an empty one', () => {
    expect(denied([tenant()], ALICE)).toEqual([]);
    expect(denied([tenant('')], ALICE)).toEqual([]);
  });
  it('does not trust a look-alike group', () => {
    expect(
      denied([tenant('a.example.org')], {
        username: 'x',
        groups: ['system:serviceaccounts:cozy-systemx', 'system:serviceaccounts'],
      }),
    ).toHaveLength(1);
  });
});

describe('layer 5: cozystack-namespace-host-label-policy', () => {
  it('denies an untrusted first-time write on CREATE, with old, new and user', () => {
    const d = denied([ALICE_NS], ALICE);
    expect(d).toEqual([
      'cozystack-namespace-host-label-policy: label namespace.cozystack.io/host is immutable except for cluster-admins and cozystack/Flux service accounts: old "", new "alice.example.org", user alice',
    ]);
  });
  it('admits the trusted callers, a label with value "", and namespaces without the label', () => {
    expect(denied([ALICE_NS], FLUX)).toEqual([]);
    expect(denied([ALICE_NS], ADMIN)).toEqual([]);
    expect(denied([ns('tenant-alice', '')], ALICE)).toEqual([]);
    expect(denied([ns('tenant-alice')], ALICE)).toEqual([]);
  });
});

describe('layer 7: cozystack-route-hostname-policy', () => {
  const route = (
    kind: string,
    hostnames: string[] | undefined,
    namespace = 'tenant-alice',
    apiVersion = 'gateway.networking.k8s.io/v1',
  ): KObject => ({
    apiVersion,
    kind,
    metadata: { name: 'r', namespace },
    spec: {
      parentRefs: [{ name: 'cozystack', namespace: 'tenant-root' }],
      ...(hostnames ? { hostnames } : {}),
      rules: [{ backendRefs: [{ name: 'app', port: 80 }] }],
    },
  });
  const kinds: [string, string][] = [
    ['HTTPRoute', 'gateway.networking.k8s.io/v1'],
    ['HTTPRoute', 'gateway.networking.k8s.io/v1beta1'],
    ['TLSRoute', 'gateway.networking.k8s.io/v1'],
    ['TLSRoute', 'gateway.networking.k8s.io/v1alpha2'],
    ['TLSRoute', 'gateway.networking.k8s.io/v1alpha3'],
    ['GRPCRoute', 'gateway.networking.k8s.io/v1'],
  ];
  describe.each(kinds)('%s %s', (kind, apiVersion) => {
    it('admits hostnames within the apex (apex, subdomain, wildcard, mixed case)', () => {
      expect(
        denied([
          ALICE_NS,
          route(
            kind,
            ['alice.example.org', 'app.alice.example.org', '*.alice.example.org', 'Web.Alice.Example.Org'],
            'tenant-alice',
            apiVersion,
          ),
        ]),
      ).toEqual([]);
    });
    it('denies a hostname outside the apex, naming only it', () => {
      const d = denied([
        ALICE_NS,
        route(kind, ['app.alice.example.org', 'alice.example.org.attacker.net'], 'tenant-alice', apiVersion),
      ]);
      expect(d).toHaveLength(1);
      expect(d[0]).toMatch(
        new RegExp(
          `^cozystack-route-hostname-policy: ${kind} hostnames alice\\.example\\.org\\.attacker\\.net must equal alice\\.example\\.org`,
        ),
      );
    });
    it('denies a route that names no hostname', () => {
      expect(denied([ALICE_NS, route(kind, undefined, 'tenant-alice', apiVersion)])).toEqual([
        `cozystack-route-hostname-policy: ${kind} must name its own hostnames in spec.hostnames: a route without hostnames inherits every hostname of the listeners it attaches to`,
      ]);
      expect(denied([ALICE_NS, route(kind, [], 'tenant-alice', apiVersion)])).toHaveLength(1);
    });
  });
  it.each([
    ['a sibling apex', 'bob.example.org'],
    ['the root apex', 'example.org'],
    ['a suffix without the dot', 'evilalice.example.org'],
    ['a broader wildcard', '*.example.org'],
  ])('denies %s', (_, h) => {
    expect(denied([ALICE_NS, route('HTTPRoute', [h])])).toHaveLength(1);
  });
  it('fails closed: no host label, or an empty one', () => {
    for (const objs of [
      [ns('tenant-alice'), route('HTTPRoute', ['a.alice.example.org'])],
      [ns('tenant-alice', ''), route('HTTPRoute', ['a.alice.example.org'])],
    ]) {
      const d = denied(objs);
      expect(d).toHaveLength(1);
      expect(d[0]).toMatch(/has no \(or an empty\) namespace\.cozystack\.io\/host label/);
    }
  });
  it('a namespace the inputs lack is never judged, never admitted: the decision names it', () => {
    const decisions = admit([route('HTTPRoute', ['a.alice.example.org'])], POLICIES, FLUX);
    expect(denials(decisions)).toEqual([]);
    expect(unjudged(decisions).map((d) => [d.policy, d.allowed, d.missingNamespace])).toEqual([
      ['cozystack-route-hostname-policy', false, 'tenant-alice'],
    ]);
  });
  it('reads a mixed-case label lowercased', () => {
    expect(denied([ns('tenant-alice', 'Alice.Example.org'), route('HTTPRoute', ['app.alice.example.org'])])).toEqual(
      [],
    );
  });
  it('trusts cozy-* namespaces (not matched)', () => {
    expect(
      denied([ns('cozy-dashboard', 'example.org'), route('HTTPRoute', ['anything.example.com'], 'cozy-dashboard')]),
    ).toEqual([]);
    expect(denied([route('HTTPRoute', undefined, 'cozy-dashboard')])).toEqual([]);
  });
  it('does not match a version the bundle does not serve', () => {
    expect(
      denied([ALICE_NS, route('GRPCRoute', ['x.org'], 'tenant-alice', 'gateway.networking.k8s.io/v1alpha2')]),
    ).toEqual([]);
  });
});

describe('layer 8: cozystack-ingress-hostname-policy', () => {
  const ing = (spec: Record<string, unknown>, namespace = 'tenant-alice'): KObject => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'web', namespace },
    spec: { ingressClassName: 'tenant-root', ...spec },
  });
  const backend = { service: { name: 'app', port: { number: 80 } } };
  const rule = (host?: string) => ({
    ...(host !== undefined ? { host } : {}),
    http: { paths: [{ path: '/', pathType: 'Prefix', backend }] },
  });
  it.each([
    ['the namespace apex', 'alice.example.org'],
    ['a subdomain', 'app.alice.example.org'],
    ['a wildcard under the namespace apex', '*.alice.example.org'],
    ['mixed case', 'APP.Alice.example.org'],
    ['a custom domain outside the root apex', 'shop.customer1.io'],
    ['a look-alike of the root apex', 'notexample.org'],
    ['the apex as a prefix of a foreign domain (outside the root apex)', 'example.org.attacker.net'],
  ])('admits %s', (_, h) => {
    expect(denied([ALICE_NS, ing({ rules: [rule(h)], tls: [{ hosts: [h], secretName: 's' }] })])).toEqual([]);
  });
  it.each([
    ['a sibling under the root apex', 'bob.example.org'],
    ['the root apex itself', 'example.org'],
    ['a root-apex wildcard', '*.example.org'],
    ['a wildcard outside the root apex', '*.customer1.io'],
    ['mixed-case root apex', 'Dashboard.EXAMPLE.org'],
  ])('denies %s in rules and in tls', (_, h) => {
    expect(denied([ALICE_NS, ing({ rules: [rule(h)] })])).toHaveLength(1);
    expect(denied([ALICE_NS, ing({ tls: [{ hosts: ['ok.alice.example.org', h] }] })])).toHaveLength(1);
    expect(denied([ALICE_NS, ing({ rules: [rule(h)] })])[0]).toContain(h);
  });
  it('denies a rule without host and an empty host', () => {
    expect(denied([ALICE_NS, ing({ rules: [rule('a.alice.example.org'), rule()] })])).toEqual([
      'cozystack-ingress-hostname-policy: Ingress rules need a host: a rule without one is an unbounded catch-all, not allowed in tenant namespaces',
    ]);
    expect(denied([ALICE_NS, ing({ rules: [rule('')] })])).toHaveLength(1);
    expect(denied([ALICE_NS, ing({ tls: [{ hosts: [''] }] })])).toHaveLength(1);
  });
  it('denies spec.defaultBackend', () => {
    const d = denied([ALICE_NS, ing({ defaultBackend: backend })]);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(/defaultBackend/);
  });
  it('fails closed on a namespace without the label (one denial)', () => {
    expect(denied([ns('tenant-alice'), ing({ rules: [rule('a.alice.example.org')] })])).toHaveLength(1);
    expect(unjudged(admit([ing({ rules: [rule('a.alice.example.org')] })], POLICIES, FLUX))).toHaveLength(1);
  });
  it('trusts cozy-* namespaces', () => {
    expect(denied([ing({ defaultBackend: backend, rules: [rule()] }, 'cozy-dashboard')])).toEqual([]);
  });
  it('is not rendered without a root host, so nothing is judged', () => {
    const p = renderPolicies({ ...clusterValues(platformDefaults()).cluster, 'root-host': '' });
    expect(denials(admit([ALICE_NS, ing({ rules: [rule('bob.example.org')] })], p, FLUX))).toEqual([]);
  });
});

describe('admission semantics', () => {
  const obj: KObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'tenant-a', labels: { team: 'x' } },
    data: { n: '1' },
  };
  const mk = (spec: Record<string, unknown>, actions: string[] | null = ['Deny']): KObject[] => [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
        ...spec,
      },
    },
    ...(actions
      ? [
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingAdmissionPolicyBinding',
            metadata: { name: 'b' },
            spec: { policyName: 'p', validationActions: actions },
          },
        ]
      : []),
  ];
  const no = { validations: [{ expression: 'false', message: 'no' }] };
  it('a policy without a binding has no effect', () => {
    expect(admit([obj], mk(no, null), ALICE)).toEqual([]);
  });
  it('Warn warns and does not deny', () => {
    const d = admit([obj], mk(no, ['Warn']), ALICE);
    expect(denials(d)).toEqual([]);
    expect(warnings(d)[0].messages).toEqual(['no']);
  });
  it('messageExpression, then message, then the expression', () => {
    expect(
      admit(
        [obj],
        mk({ validations: [{ expression: 'false', messageExpression: "'n=' + object.data.n", message: 'm' }] }),
        ALICE,
      )[0].messages,
    ).toEqual(['n=1']);
    expect(
      admit(
        [obj],
        mk({ validations: [{ expression: 'false', messageExpression: 'object.nope', message: 'm' }] }),
        ALICE,
      )[0].messages,
    ).toEqual(['m']);
    expect(admit([obj], mk({ validations: [{ expression: '1 == 2' }] }), ALICE)[0].messages).toEqual([
      'failed expression: 1 == 2',
    ]);
  });
  it('an error denies under failurePolicy Fail and is ignored under Ignore', () => {
    expect(
      denials(admit([obj], mk({ validations: [{ expression: 'object.spec.x == 1' }] }), ALICE))[0].messages[0],
    ).toMatch(/resulted in error/);
    expect(
      denials(
        admit([obj], mk({ failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.x == 1' }] }), ALICE),
      ),
    ).toEqual([]);
    expect(
      denials(
        admit(
          [obj],
          mk({ matchConditions: [{ name: 'c', expression: 'object.spec.x' }], validations: [{ expression: 'true' }] }),
          ALICE,
        ),
      )[0].messages[0],
    ).toBe("expression 'object.spec.x' resulted in error: No such key: spec");
  });
  it('a false matchCondition skips the policy', () => {
    expect(admit([obj], mk({ matchConditions: [{ name: 'c', expression: 'false' }], ...no }), ALICE)).toEqual([]);
  });
  it('variables see the earlier ones; a failed variable fails the validations that read it', () => {
    expect(
      denials(
        admit(
          [obj],
          mk({
            variables: [
              { name: 'a', expression: 'int(object.data.n)' },
              { name: 'b', expression: 'variables.a + 1' },
            ],
            validations: [{ expression: 'variables.b == 2' }],
          }),
          ALICE,
        ),
      ),
    ).toEqual([]);
    expect(
      denials(
        admit(
          [obj],
          mk({
            variables: [{ name: 'a', expression: 'object.nope' }],
            validations: [{ expression: 'variables.a == 1' }],
          }),
          ALICE,
        ),
      )[0].messages[0],
    ).toBe(
      'expression \'variables.a == 1\' resulted in error: composited variable "a" fails to evaluate: No such key: nope',
    );
  });
  it('exposes request, userInfo, oldObject (null) and params (null)', () => {
    const e =
      "request.operation == 'CREATE' && request.namespace == 'tenant-a' && request.name == 'c' && request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps' && request.userInfo.username == 'alice' && 'tenant-alice-admin' in request.userInfo.groups && oldObject == null && params == null && namespaceObject == null";
    expect(denials(admit([obj], mk({ validations: [{ expression: e }] }), ALICE))).toEqual([]);
  });
  it('objectSelector, namespaceSelector and excludeResourceRules', () => {
    const base = mk(no);
    const with_ = (mc: Record<string, unknown>) => {
      const p = JSON.parse(JSON.stringify(base));
      Object.assign(p[0].spec.matchConstraints, mc);
      return p;
    };
    expect(admit([obj], with_({ objectSelector: { matchLabels: { team: 'y' } } }), ALICE)).toEqual([]);
    expect(admit([obj], with_({ objectSelector: { matchLabels: { team: 'x' } } }), ALICE)).toHaveLength(1);
    expect(
      admit(
        [ns('tenant-a'), obj],
        with_({ namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'Exists' }] } }),
        ALICE,
      ),
    ).toEqual([]);
    expect(
      admit(
        [obj],
        with_({
          excludeResourceRules: [
            { apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['configmaps'] },
          ],
        }),
        ALICE,
      ),
    ).toEqual([]);
  });
  it('maps kinds to resources', () => {
    expect(['Ingress', 'HTTPRoute', 'GatewayClass', 'NetworkPolicy', 'Namespace', 'Package'].map(resourceOf)).toEqual([
      'ingresses',
      'httproutes',
      'gatewayclasses',
      'networkpolicies',
      'namespaces',
      'packages',
    ]);
  });
});

describe('admit prints one line per denial', () => {
  it('an Ingress a policy denies for two reasons gives one line naming both', async () => {
    const { runCli } = require('../helpers/cli') as typeof import('../helpers/cli');
    const stdin = [
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-alice\n  labels: {namespace.cozystack.io/host: alice.example.org}\n',
      'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: tenant-alice\nspec:\n  defaultBackend: {service: {name: app, port: {number: 80}}}\n  rules:\n  - host: dashboard.example.org\n',
    ].join('---\n');
    const r = await runCli(['admit', '-f', '-', '--as', 'admin', '--as-group', 'system:masters'], { stdin });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Ingress tenant-alice\/web: ValidatingAdmissionPolicy 'cozystack-ingress-hostname-policy'.*; /,
    );
  });
});
