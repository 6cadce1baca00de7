/**
 * The TenantGateway controller per Cozystack version (docs/versions.md §7, §10): the route kinds of
 * the port-443 listeners (§C1), the redirect's hostnames (§X6), the releases' claims, race and route
 * status (§X7), no controller-side validation (§X8), no native-port listeners (§X9), several
 * TenantGateways on the same namespaces (§X3's reconcile side), and replication without the edge
 * exception (§X10).
 *
 * The upstream controller's own tests (internal/controller/tenantgateway/reconciler_test.go) differ
 * between v1.5.4 and v1.6.2 in the C1 cases only; they are mirrored here (`upstream <tag> <Test>`),
 * each asserting the same facts against that version, beside the release tests the pack's own
 * behaviour departs from (the redirect, the hostname race, per-parentRef status), run against every
 * release class and against main for the contrast.
 */
import { runTenantGatewayController, type TenantGatewayRun } from '../../src/controller/tenantGatewayController';
import { Store } from '../../src/k8s/store';
import type { KObject } from '../../src/k8s/model';
import { COZYSTACK_VERSIONS, type CozystackVersion } from '../../src/platform/cozystackVersions';
import { reconcile } from '../../src/pipelines/reconcile';
import { hostnameStates } from '../../src/diff/hostnames';
import { hex8 } from '../../src/platform/names';
import { LATER, NOW, acceptedOf, http, liveStatus, ns, tgw, tls } from '../controller/tgwFixtures';

const version = (name: string): CozystackVersion => COZYSTACK_VERSIONS.find((v) => v.name === name)!;
/** The controller is the same in every v1.5 release and in every v1.6 one (docs/versions.md §7). */
const V15 = ['v1.5.0', 'v1.5.4'];
const V16 = ['v1.6.0', 'v1.6.2'];
const RELEASES = [...V15, ...V16];
const ALL = [...RELEASES, 'main'];

const GROUP = 'gateway.networking.k8s.io';
type Listener = { name: string; port: number; protocol: string; hostname?: string; allowedRoutes?: any; tls?: any };

function pass(objects: KObject[], name: string, now = NOW): { store: Store; run: TenantGatewayRun } {
  const store = new Store(objects);
  const run = runTenantGatewayController(store, { now, behaviour: version(name).behaviour });
  return { store, run };
}
const gateway = (s: Store, namespace = 'tenant-foo') => s.get(GROUP, 'Gateway', namespace, 'cozystack');
const listeners = (s: Store, namespace = 'tenant-foo') =>
  ((gateway(s, namespace)?.spec as { listeners?: Listener[] } | undefined)?.listeners ?? []) as Listener[];
const route = (s: Store, kind: string, namespace: string, name: string) => s.get(GROUP, kind, namespace, name)!;
const ready = (s: Store, namespace = 'tenant-foo') =>
  (
    s.get('gateway.cozystack.io', 'TenantGateway', namespace, 'cozystack')!.status as {
      conditions: Record<string, unknown>[];
    }
  ).conditions.find((c) => c.type === 'Ready')!;
const kinds = (l: Listener) => (l.allowedRoutes?.kinds ?? []).map((k: any) => `${k.group}/${k.kind}`);
const certificates = (s: Store) => s.list('cert-manager.io', 'Certificate').map((c) => c.metadata.name);

/** The Go tests' TenantGateway tenant-foo/cozystack (apex foo.example.com). */
function foo(spec: Record<string, unknown>): KObject {
  return tgw(
    { apex: 'foo.example.com', gatewayClassName: 'cilium', ...spec },
    { namespace: 'tenant-foo', uid: 'uid-foo' },
  );
}
/** The Go tests' httpRouteAttached: one parentRef to tenant-foo/cozystack, one hostname. */
const attached = (name: string, namespace: string, hostname: string) =>
  http(namespace, name, [hostname], [{ group: GROUP, kind: 'Gateway', name: 'cozystack', namespace: 'tenant-foo' }]);
const CF = { provider: 'cloudflare', cloudflare: { apiTokenSecretRef: { name: 'cf-token', key: 'api-token' } } };
const children = () => [
  ns('tenant-foo', {
    'namespace.cozystack.io/host': 'foo.example.com',
    'namespace.cozystack.io/gateway': 'tenant-foo',
  }),
  ns('tenant-foo-alice', {
    'namespace.cozystack.io/host': 'alice.foo.example.com',
    'namespace.cozystack.io/gateway': 'tenant-foo',
  }),
];

describe('docs/versions.md §C1: the route kinds of the port-443 listeners', () => {
  const HTTP = `${GROUP}/HTTPRoute`;
  const TLS = `${GROUP}/TLSRoute`;

  test.each(ALL)('upstream TestReconcile_TLSPassthroughListenersRendered, as %s', (name) => {
    const { store } = pass(
      [foo({ certMode: 'http01', tlsPassthroughServices: ['api', 'vm-exportproxy', 'cdi-uploadproxy'] })],
      name,
    );
    const pt = listeners(store).filter((l) => l.name.startsWith('tls-'));
    expect(pt.map((l) => [l.name, l.hostname, l.port, l.protocol, l.tls?.mode])).toEqual([
      ['tls-api', 'api.foo.example.com', 443, 'TLS', 'Passthrough'],
      ['tls-vm-exportproxy', 'vm-exportproxy.foo.example.com', 443, 'TLS', 'Passthrough'],
      ['tls-cdi-uploadproxy', 'cdi-uploadproxy.foo.example.com', 443, 'TLS', 'Passthrough'],
    ]);
    for (const l of pt) expect({ [l.name]: kinds(l) }).toEqual({ [l.name]: V15.includes(name) ? [TLS] : [HTTP, TLS] });
  });

  describe.each(ALL)('upstream TestReconcile_HTTPSListenersRestrictRouteKindsToHTTPRoute, as %s', (name) => {
    test.each([
      [
        'HTTP-01',
        { certMode: 'http01', attachedNamespaces: ['cozy-harbor'] },
        [attached('harbor', 'cozy-harbor', 'harbor.foo.example.com')],
      ],
      ['DNS-01', { certMode: 'dns01', dns01: CF }, []],
    ])('%s', (_mode, spec, objects) => {
      const { store } = pass([foo(spec), ...objects], name);
      const https = listeners(store).filter((l) => l.protocol === 'HTTPS');
      expect(https.length).toBeGreaterThan(0);
      // v1.5: exactly one kind, HTTPRoute, with the group; v1.6 on: HTTPRoute and TLSRoute, each with the group.
      for (const l of https)
        expect({ [l.name]: kinds(l) }).toEqual({ [l.name]: V15.includes(name) ? [HTTP] : [HTTP, TLS] });
    });
  });

  describe.each(ALL)('upstream v1.6.2 TestReconcile_Port443ListenersShareKinds, as %s', (name) => {
    test.each([
      [
        'HTTP-01',
        { certMode: 'http01', attachedNamespaces: ['cozy-harbor'], tlsPassthroughServices: ['api'] },
        [attached('harbor', 'cozy-harbor', 'harbor.foo.example.com')],
      ],
      [
        'DNS-01',
        { certMode: 'dns01', dns01: CF, tlsPassthroughServices: ['api'] },
        [...children(), attached('harbor', 'tenant-foo-alice', 'harbor.alice.foo.example.com')],
      ],
      [
        'existingSecret',
        { certMode: 'existingSecret', wildcardSecretRef: { name: 'wildcard-tls' }, tlsPassthroughServices: ['api'] },
        [...children(), attached('harbor', 'tenant-foo-alice', 'harbor.alice.foo.example.com')],
      ],
    ])('%s', (_mode, spec, objects) => {
      const { store } = pass([foo(spec), ...objects], name);
      const on443 = listeners(store).filter((l) => l.port === 443);
      expect(on443.length).toBeGreaterThanOrEqual(2);
      const sets = new Set(on443.map((l) => JSON.stringify([...kinds(l)].sort())));
      for (const l of on443) {
        // Never empty (Gateway API's default admits every kind), never GRPCRoute, TCPRoute or UDPRoute.
        expect({ [l.name]: kinds(l).length > 0 }).toEqual({ [l.name]: true });
        expect({ [l.name]: kinds(l).filter((k: string) => /GRPC|TCP|UDP/.test(k)) }).toEqual({ [l.name]: [] });
      }
      // v1.6 on: one set, the canonical one, on every port-443 listener; v1.5 diverges (cilium#45559).
      expect([...sets]).toEqual(
        V15.includes(name) ? [JSON.stringify([HTTP]), JSON.stringify([TLS])] : [JSON.stringify([HTTP, TLS])],
      );
    });
  });
});

describe('docs/versions.md §X6: the redirect route', () => {
  test.each(ALL)('upstream TestReconcile_RendersHTTPToHTTPSRedirectRoute, as %s: hostnames in main only', (name) => {
    const { store } = pass([foo({ certMode: 'http01' })], name);
    const r = route(store, 'HTTPRoute', 'tenant-foo', 'cozystack-http-redirect');
    const spec = r.spec as Record<string, any>;
    expect(spec.parentRefs).toEqual([{ group: GROUP, kind: 'Gateway', name: 'cozystack', sectionName: 'http' }]);
    expect(spec.rules).toEqual([
      { filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }] },
    ]);
    expect(spec.hostnames).toEqual(name === 'main' ? ['foo.example.com', '*.foo.example.com'] : undefined);
  });

  test.each(RELEASES)(
    'a mixed-case apex: no redirect hostname to refuse in %s; the Gateway write is what fails',
    (name) => {
      const { store } = pass(
        [foo({ certMode: 'http01', apex: 'Foo.example.com', tlsPassthroughServices: ['api'] })],
        name,
      );
      expect(ready(store)).toMatchObject({
        status: 'False',
        reason: 'ReconcileError',
        message: expect.stringContaining('spec.listeners[1].hostname: Invalid value: "api.Foo.example.com"'),
      });
    },
  );
});

describe('docs/versions.md §X7: claims, the race and route status of a release', () => {
  test.each(RELEASES)('upstream TestReconcile_TwoRoutesSameHostnameCozyWins, as %s (the exact message)', (name) => {
    const { store } = pass(
      [
        foo({ certMode: 'http01', attachedNamespaces: ['cozy-harbor', 'tenant-foo'] }),
        attached('harbor', 'cozy-harbor', 'harbor.foo.example.com'),
        attached('harbor-shadow', 'tenant-foo', 'harbor.foo.example.com'),
      ],
      name,
    );
    expect(listeners(store).some((l) => l.hostname === 'harbor.foo.example.com')).toBe(true);
    expect(acceptedOf(route(store, 'HTTPRoute', 'tenant-foo', 'harbor-shadow'))).toMatchObject({
      status: 'False',
      reason: 'HostnameConflict',
      message:
        'Hostname(s) harbor.foo.example.com already claimed by another route on TenantGateway tenant-foo/cozystack',
    });
    expect(acceptedOf(route(store, 'HTTPRoute', 'cozy-harbor', 'harbor'))).toMatchObject({
      status: 'True',
      reason: 'Accepted',
      message: 'Route attached to TenantGateway tenant-foo/cozystack',
    });
  });

  test.each(ALL)(
    'upstream TestReconcile_SameNamespaceSameHostnameNoConflict and _MultipleHTTPRoutesSameHostnameDeduplicates, as %s',
    (name) => {
      const { store } = pass(
        [
          foo({ certMode: 'http01', attachedNamespaces: ['cozy-harbor'] }),
          attached('harbor-main', 'cozy-harbor', 'harbor.foo.example.com'),
          attached('harbor-canary', 'cozy-harbor', 'harbor.foo.example.com'),
        ],
        name,
      );
      for (const r of ['harbor-main', 'harbor-canary'])
        expect({ r, reason: acceptedOf(route(store, 'HTTPRoute', 'cozy-harbor', r))?.reason }).toEqual({
          r,
          reason: 'Accepted',
        });
      expect(listeners(store).filter((l) => l.hostname === 'harbor.foo.example.com')).toHaveLength(1);
      expect(certificates(store).filter((c) => c.startsWith('cozystack-harbor-'))).toHaveLength(1);
    },
  );

  test.each(ALL)(
    'upstream TestReconcile_MultiParentRefRouteWritesPerRefStatus, as %s: a sectionName http claim',
    (name) => {
      const ref = (sectionName: string) => ({
        group: GROUP,
        kind: 'Gateway',
        name: 'cozystack',
        namespace: 'tenant-foo',
        sectionName,
      });
      const { store } = pass(
        [
          foo({ certMode: 'http01' }),
          http('tenant-foo', 'harbor', ['harbor.foo.example.com'], [ref('https-harbor-deadbeef'), ref('http')]),
        ],
        name,
      );
      const parents = (route(store, 'HTTPRoute', 'tenant-foo', 'harbor').status as { parents: any[] }).parents;
      const ours = parents.filter((p) => p.controllerName === 'gateway.cozystack.io/tenantgateway-controller');
      expect(ours.map((p) => p.parentRef.sectionName)).toEqual(['https-harbor-deadbeef', 'http']);
      expect(ours.map((p) => p.conditions[0].reason)).toEqual(['Accepted', 'Accepted']);
    },
  );

  test.each(ALL)('upstream TestReconcile_DNS01ModeIgnoresHTTPRoutesForListeners, as %s', (name) => {
    const { store } = pass(
      [foo({ certMode: 'dns01', dns01: CF }), attached('harbor', 'tenant-foo', 'harbor.foo.example.com')],
      name,
    );
    expect(listeners(store).map((l) => l.name)).toEqual(['http', 'https', 'https-apex']);
    expect(certificates(store)).toEqual(['cozystack-gateway-tls']);
  });

  /** Routes a release's controller and main's judge differently, all on tenant-foo/cozystack. */
  const mixed = () => [
    foo({ certMode: 'http01', attachedNamespaces: ['cozy-system'], tlsPassthroughServices: ['api'] }),
    tls(
      'cozy-system',
      'api',
      ['api.foo.example.com'],
      [{ name: 'cozystack', namespace: 'tenant-foo', sectionName: 'tls-api' }],
    ),
    tls('tenant-foo', 'db', ['db.foo.example.com'], [{ name: 'cozystack' }]),
    http('tenant-foo', 'plain', ['plain.foo.example.com'], [{ name: 'cozystack', sectionName: 'http' }]),
    http('tenant-foo', 'port80', ['eighty.foo.example.com'], [{ name: 'cozystack', port: 80 }]),
  ];

  test.each(ALL)('every claimed hostname earns a listener and a Certificate in a release, as %s', (name) => {
    const { store } = pass(mixed(), name);
    const hosts = ['api', 'db', 'eighty', 'plain'].map((h) => `${h}.foo.example.com`);
    const earned = listeners(store)
      .filter((l) => l.protocol === 'HTTPS')
      .map((l) => l.hostname);
    // main: none of them (a passthrough name, a TLSRoute-only name, two plain-HTTP claims).
    expect(earned).toEqual(name === 'main' ? [] : hosts);
    expect(certificates(store).length).toBe(name === 'main' ? 0 : 4);
    // The passthrough listener stays beside the terminate one for the same name.
    expect(listeners(store).some((l) => l.name === 'tls-api')).toBe(true);
  });

  test.each(ALL)('only Accepted and HostnameConflict exist in a release, as %s', (name) => {
    const { store } = pass(
      [
        ...mixed(),
        http(
          'tenant-zed',
          'shadow',
          ['db.foo.example.com', 'api.foo.example.com', 'db.foo.example.com'],
          [{ name: 'cozystack', namespace: 'tenant-foo' }],
        ),
        ns('tenant-zed', { 'namespace.cozystack.io/gateway': 'tenant-foo' }),
      ],
      name,
    );
    const reasons = (
      [
        'TLSRoute/tenant-foo/db',
        'HTTPRoute/tenant-foo/plain',
        'HTTPRoute/tenant-foo/port80',
        'HTTPRoute/tenant-zed/shadow',
      ] as const
    ).map((k) => {
      const [kind, n, r] = k.split('/');
      return acceptedOf(route(store, kind, n, r))?.reason;
    });
    expect(reasons).toEqual(
      // main too, here: the HTTPRoute earns db a terminate listener, the TLSRoute races for it and wins.
      ['Accepted', 'Accepted', 'Accepted', 'HostnameConflict'],
    );
    if (name !== 'main')
      // The lost names sorted, each as often as the route lists it.
      expect(acceptedOf(route(store, 'HTTPRoute', 'tenant-zed', 'shadow'))?.message).toBe(
        'Hostname(s) api.foo.example.com, db.foo.example.com, db.foo.example.com already claimed by another route on TenantGateway tenant-foo/cozystack',
      );
  });

  test.each(ALL)('a wildcard hostname makes the Gateway write fail in a release, as %s', (name) => {
    const { store, run } = pass(
      [foo({ certMode: 'http01' }), http('tenant-foo', 'any', ['*.foo.example.com'], [{ name: 'cozystack' }])],
      name,
    );
    if (name === 'main') {
      expect(ready(store).reason).toBe('GatewayNotAccepted');
      expect(acceptedOf(route(store, 'HTTPRoute', 'tenant-foo', 'any'))?.reason).toBe('NoMatchingListenerHostname');
      return;
    }
    expect(gateway(store)).toBeUndefined();
    expect(ready(store)).toMatchObject({
      status: 'False',
      reason: 'ReconcileError',
      message: `create Gateway: Gateway.gateway.networking.k8s.io "cozystack" is invalid: spec.listeners[1].name: Invalid value: "https-*-${hex8('*.foo.example.com')}": spec.listeners[1].name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`,
    });
    // The pass stopped at the Gateway: no Certificate, no route status, no race for the plan.
    expect(certificates(store)).toEqual([]);
    expect(acceptedOf(route(store, 'HTTPRoute', 'tenant-foo', 'any'))).toBeUndefined();
    expect(run.races).toEqual([]);
    expect(run.findings.map((f) => f.rule)).toEqual(['tenantgateway.reconcile-error']);
  });

  test.each(ALL)('under DNS-01 a release writes no route status and removes none, as %s', (name) => {
    const first = pass(
      [foo({ certMode: 'http01' }), attached('harbor', 'tenant-foo', 'harbor.foo.example.com')],
      name,
    ).store;
    const switched = first.all().map((o) => (o.kind === 'TenantGateway' ? foo({ certMode: 'dns01', dns01: CF }) : o));
    const { store } = pass(switched, name, LATER);
    const entry = acceptedOf(route(store, 'HTTPRoute', 'tenant-foo', 'harbor'));
    expect(entry).toEqual(name === 'main' ? undefined : acceptedOf(route(first, 'HTTPRoute', 'tenant-foo', 'harbor')));
  });

  test.each(ALL)('an entry of a route that left the Gateway stays in a release, as %s', (name) => {
    const first = pass(
      [foo({ certMode: 'http01' }), attached('harbor', 'tenant-foo', 'harbor.foo.example.com')],
      name,
    ).store;
    const moved = first
      .all()
      .map((o) =>
        o.metadata.name === 'harbor' && o.kind === 'HTTPRoute'
          ? { ...o, spec: { ...(o.spec as object), parentRefs: [{ name: 'elsewhere' }] } }
          : o,
      );
    const { store } = pass(moved, name, LATER);
    expect(acceptedOf(route(store, 'HTTPRoute', 'tenant-foo', 'harbor'))?.reason).toBe(
      name === 'main' ? undefined : 'Accepted',
    );
  });

  test.each(ALL)(
    "lastTransitionTime moves with the status alone in a release (metav1's SetStatusCondition), as %s",
    (name) => {
      const objects = [
        foo({ certMode: 'http01', attachedNamespaces: ['cozy-harbor'] }),
        attached('harbor', 'cozy-harbor', 'harbor.foo.example.com'),
        attached('copy', 'tenant-foo', 'harbor.foo.example.com'),
      ];
      const first = pass(objects, name).store;
      // The loser now also loses a second name: the message changes, the status does not.
      const more = first
        .all()
        .map((o) =>
          o.metadata.name === 'copy'
            ? { ...o, spec: { ...(o.spec as object), hostnames: ['harbor.foo.example.com', 'www.foo.example.com'] } }
            : o,
        );
      const second = pass([...more, attached('www', 'cozy-harbor', 'www.foo.example.com')], name, LATER).store;
      const c = acceptedOf(route(second, 'HTTPRoute', 'tenant-foo', 'copy'))!;
      expect(c.status).toBe('False');
      expect(c.lastTransitionTime).toBe(name === 'main' ? LATER : NOW);
    },
  );
});

describe("docs/versions.md §X8: nothing is validated by a release's controller; the Gateway CRD refuses the write", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      'a repeated passthrough service',
      { tlsPassthroughServices: ['api', 'api'] },
      `create Gateway: Gateway.gateway.networking.k8s.io "cozystack" is invalid: [spec.listeners[2]: Duplicate value: map[string]interface {}{"name":"tls-api"}, spec.listeners: Invalid value: "array": Listener name must be unique within the Gateway, spec.listeners: Invalid value: "array": Combination of port, protocol and hostname must be unique for each listener]`,
      'tlsPassthroughServices entry "api" is repeated',
    ],
    [
      'more than 64 listeners',
      { tlsPassthroughServices: Array.from({ length: 64 }, (_, i) => `s${i}`) },
      'create Gateway: Gateway.gateway.networking.k8s.io "cozystack" is invalid: spec.listeners: Too many: 65: must have at most 64 items',
      'would have 65 listeners, over the Gateway API budget of 64',
    ],
    [
      'a service that is no DNS name',
      { tlsPassthroughServices: ['API'] },
      `create Gateway: Gateway.gateway.networking.k8s.io "cozystack" is invalid: [spec.listeners[1].hostname: Invalid value: "API.foo.example.com": spec.listeners[1].hostname in body should match '^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', spec.listeners[1].name: Invalid value: "tls-API": spec.listeners[1].name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$']`,
      'tlsPassthroughServices entry "API" is not a DNS-1123 subdomain',
    ],
  ];
  describe.each(ALL)('as %s', (name) => {
    test.each(cases)('%s', (_what, spec, release, main) => {
      const { store } = pass([foo({ certMode: 'http01', ...spec })], name);
      expect(ready(store)).toMatchObject({ status: 'False', reason: 'ReconcileError' });
      const message = String(ready(store).message);
      if (name === 'main') expect(message).toContain(main);
      else expect(message).toBe(release);
      expect(gateway(store)).toBeUndefined();
    });

    test('an existing Gateway: the refusal names the update, the Gateway stays as it was', () => {
      const first = pass([foo({ certMode: 'http01' })], name).store;
      const objects = first
        .all()
        .map((o) => (o.kind === 'TenantGateway' ? foo({ certMode: 'http01', tlsPassthroughServices: ['API'] }) : o));
      const { store } = pass(objects, name, LATER);
      if (name !== 'main') expect(String(ready(store).message)).toMatch(/^update Gateway: /);
      expect(gateway(store)).toEqual(gateway(first));
    });
  });
});

describe('docs/versions.md §X9, §X1: what a release reads of the spec', () => {
  test.each(ALL)('tlsPassthroughListeners renders no native-port listener in a release, as %s', (name) => {
    const { store } = pass(
      [
        foo({
          certMode: 'http01',
          tlsPassthroughListeners: [{ name: 'redis', port: 6379, hostname: 'redis.foo.example.com' }],
        }),
      ],
      name,
    );
    expect(listeners(store).map((l) => l.name)).toEqual(name === 'main' ? ['http', 'tls-redis'] : ['http']);
  });

  test.each(ALL)(
    'certMode edge is no mode of a release: rendered as http01 up to the Issuer, which fails, as %s',
    (name) => {
      const { store } = pass(
        [foo({ certMode: 'edge' }), attached('harbor', 'tenant-foo', 'harbor.foo.example.com')],
        name,
      );
      if (name === 'main') {
        expect(listeners(store).map((l) => l.name)).toEqual(['edge', 'edge-apex']);
        return;
      }
      expect(listeners(store).map((l) => l.name)).toEqual(['http', `https-harbor-${hex8('harbor.foo.example.com')}`]);
      expect(ready(store)).toMatchObject({
        reason: 'ReconcileError',
        message: 'render Issuer: unknown certMode "edge"',
      });
      expect(store.list('cert-manager.io', 'Issuer')).toEqual([]);
    },
  );
});

describe('docs/versions.md §X3: several TenantGateways attach the same namespaces', () => {
  const objects = () => [
    foo({ certMode: 'http01', attachedNamespaces: ['cozy-dashboard', 'cozy-harbor'] }),
    tgw({ certMode: 'http01', attachedNamespaces: ['cozy-dashboard', 'cozy-harbor'] }),
    ns('cozy-dashboard'),
    ns(
      'cozy-harbor',
      { 'namespace.cozystack.io/gateway': 'tenant-foo' },
      { 'cozystack.io/gateway-attached-by': 'tenant-foo' },
    ),
    attached('harbor', 'cozy-harbor', 'harbor.foo.example.com'),
  ];

  test.each(ALL)(
    "docs/decisions.md §3's tie-break holds; a release warns once and writes no status message, as %s",
    (name) => {
      const { store, run } = pass(objects(), name);
      const label = (n: string) =>
        store.get('', 'Namespace', undefined, n)!.metadata.labels!['namespace.cozystack.io/gateway'];
      expect([label('cozy-dashboard'), label('cozy-harbor')]).toEqual(['tenant-root', 'tenant-root']);
      const contest = run.findings.filter((f) => f.object?.namespace === 'tenant-foo');
      if (name === 'main') {
        expect(contest.map((f) => f.rule)).toEqual([
          'tenantgateway.attached-namespace-contest',
          'tenantgateway.attached-namespace-contest',
        ]);
        expect(String(ready(store).message)).toContain(
          'attachedNamespaces entry cozy-harbor is attached to the TenantGateway in tenant-root',
        );
      } else {
        expect(contest.map((f) => [f.rule, f.field])).toEqual([
          ['tenantgateway.attached-namespaces-flap', 'spec.attachedNamespaces'],
        ]);
        expect(contest[0].message).toMatch(
          /^attachedNamespaces cozy-dashboard, cozy-harbor are also listed by the TenantGateway in tenant-root.*flap/,
        );
        expect(String(ready(store).message)).not.toContain('attachedNamespaces');
      }
    },
  );

  test.each(ALL)("a release's loser still collects the routes of its attachedNamespaces, as %s", (name) => {
    const { store } = pass(objects(), name);
    expect(listeners(store).map((l) => l.hostname)).toEqual(
      name === 'main' ? [undefined] : [undefined, 'harbor.foo.example.com'],
    );
  });
});

describe('docs/versions.md §X10, §C2: replication targets', () => {
  const secret: KObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'wild', namespace: 'tenant-root' },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': 'Yw==', 'tls.key': 'aw==' },
  };
  const channel: KObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cozystack-values', namespace: 'cozy-system' },
    stringData: { 'values.yaml': '_cluster:\n  wildcard-secret-name: wild\n  expose-ingress: tenant-root\n' },
  };
  /** Whether tenant-foo, owning a Gateway whose TenantGateway has this certMode, gets a replica. */
  const replicated = (name: string, certMode: string) => {
    const objects = [
      secret,
      channel,
      ns('tenant-root'),
      ns('tenant-foo', { 'namespace.cozystack.io/gateway': 'tenant-foo' }),
      foo({ certMode }),
    ];
    const r = reconcile({ objects }, { now: NOW, cozystack: version(name) });
    return r.store.get('', 'Secret', 'tenant-foo', 'wild') !== undefined;
  };

  test.each([
    // v1.5: no replication controller at all (§C2).
    ['v1.5.0', false, false],
    ['v1.5.4', false, false],
    // v1.6: every Gateway owner, an edge TenantGateway's too (§X10).
    ['v1.6.0', true, true],
    ['v1.6.2', true, true],
    // main: not behind an edge TenantGateway.
    ['main', true, false],
  ])('as %s: an http01 owner gets a replica: %s; an edge owner: %s', (name, http01, edge) => {
    expect([replicated(name, 'http01'), replicated(name, 'edge')]).toEqual([http01, edge]);
  });
});

describe("the hostname table reads a release's race (src/diff/hostnames.ts)", () => {
  test.each(ALL)(
    'as %s: every claim has a row, the losers read HostnameConflict, nothing reads another reason',
    (name) => {
      const objects = [
        foo({ certMode: 'http01', attachedNamespaces: ['cozy-harbor'] }),
        attached('harbor', 'cozy-harbor', 'harbor.foo.example.com'),
        attached('copy', 'tenant-foo', 'harbor.foo.example.com'),
        tls('tenant-foo', 'db', ['db.foo.example.com'], [{ name: 'cozystack' }]),
      ];
      const { store, run } = pass(objects, name);
      const rows = [...hostnameStates({ objects: store.all(), races: run.races }).values()].map((r) => [
        r.row.hostname,
        r.row.route,
        r.state.state === 'refused' ? r.state.reason : r.state.state,
      ]);
      expect(rows).toEqual([
        ['harbor.foo.example.com', 'HTTPRoute cozy-harbor/harbor', 'served'],
        ['harbor.foo.example.com', 'HTTPRoute tenant-foo/copy', 'HostnameConflict'],
        // v1.5's terminate listener admits no TLSRoute; v1.6's does, as Gateway API's kinds say; main renders none.
        [
          'db.foo.example.com',
          'TLSRoute tenant-foo/db',
          name === 'main' ? 'NoMatchingListenerHostname' : V15.includes(name) ? 'NoListener' : 'served',
        ],
      ]);
    },
  );
});

test('the releases a live Gateway programmed: Ready=True, as upstream reads it', () => {
  const first = pass([foo({ certMode: 'http01' })], 'v1.6.2').store;
  const live = { ...gateway(first)!, status: liveStatus(['http']) };
  const second = pass([...first.all().filter((o) => o.kind !== 'Gateway'), live], 'v1.6.2', LATER).store;
  expect(ready(second)).toMatchObject({ status: 'True', reason: 'Reconciled' });
});
