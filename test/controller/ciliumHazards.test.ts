import * as semver from 'semver';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { ciliumHazards, HAZARD_RULES, needsPerPortListeners, rulesFor } from '../../src/controller/ciliumHazards';
import { parseCiliumVersion } from '../../src/controller/ciliumVersion';

const K443 = [
  { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' },
  { group: 'gateway.networking.k8s.io', kind: 'TLSRoute' },
];
const http = { name: 'http', port: 80, protocol: 'HTTP' };
const term = (name: string, hostname: string, port = 443) => ({
  name,
  port,
  protocol: 'HTTPS',
  hostname,
  tls: { mode: 'Terminate', certificateRefs: [{ name: 'c' }] },
  allowedRoutes: { kinds: K443 },
});
const pt443 = (svc: string, hostname: string) => ({
  name: `tls-${svc}`,
  port: 443,
  protocol: 'TLS',
  hostname,
  tls: { mode: 'Passthrough' },
  allowedRoutes: { kinds: K443 },
});
const native = (name: string, port: number, hostname: string, kinds?: unknown[]) => ({
  name: `tls-${name}`,
  port,
  protocol: 'TLS',
  hostname,
  tls: { mode: 'Passthrough' },
  allowedRoutes: kinds ? { kinds } : {},
});

function gateway(
  listeners: unknown[],
  md: Partial<KObject['metadata']> = {},
  spec: Record<string, unknown> = {},
): KObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'cozystack', namespace: 'tenant-root', ...md },
    spec: { gatewayClassName: 'cilium', listeners, ...spec },
  };
}
function tlsRoute(name: string, sectionName: string, hostnames: string[], gw = 'cozystack'): KObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1alpha2',
    kind: 'TLSRoute',
    metadata: { name, namespace: 'tenant-root' },
    spec: { parentRefs: [{ name: gw, sectionName }], hostnames },
  };
}

const rulesOf = (objs: KObject[], version: string, patched = true) =>
  ciliumHazards(new Store(objs), version, patched).map((f) => f.rule);

// The dns01 / existingSecret shape of the publishing tenant: *.apex and apex terminate, the
// tls-<svc> passthrough listeners beside them on 443.
const dns01Gateway = (extra: unknown[] = []) =>
  gateway([
    http,
    term('https', '*.example.org'),
    term('https-apex', 'example.org'),
    pt443('api', 'api.example.org'),
    ...extra,
  ]);

describe('versions', () => {
  it('versions parse with or without v', () => {
    expect(parseCiliumVersion('v1.19.5')).toBe('1.19.5');
    expect(parseCiliumVersion('1.20.2')).toBe('1.20.2');
    expect(parseCiliumVersion('latest')).toBeUndefined();
  });
  it('an invalid version is an error finding', () => {
    expect(ciliumHazards(new Store([]), 'one.two')).toEqual([
      expect.objectContaining({ severity: 'error', rule: 'cilium.version' }),
    ]);
  });
});

describe('rulesFor', () => {
  it('selects by version and image', () => {
    const ids = (v: string, patched: boolean) => rulesFor({ version: v, patched }).map((r) => r.id);
    expect(ids('1.19.5', true)).toContain('cilium.no-conflicted-condition');
    expect(ids('1.19.5', true)).not.toContain('cilium.listener-pair-conflict');
    expect(ids('1.20.2', true)).not.toContain('cilium.duplicate-envoy-listener-name');
    expect(ids('1.20.2', false)).toContain('cilium.duplicate-envoy-listener-name');
  });
});

describe('every rule names versions that parse and a spec source', () => {
  it.each(HAZARD_RULES.map((r) => [r.id, r]))('%s', (_id, r) => {
    expect(r.source.length).toBeGreaterThan(20);
    expect(semver.validRange(r.versions)).not.toBeNull();
    expect(r.id).toMatch(/^cilium\./);
  });
});

describe('< 1.19.6 hazards', () => {
  it('passthrough listeners sharing an SNI across ports forward to whichever wins', () => {
    const gw = gateway([http, pt443('api', 'api.example.org'), native('pg', 5432, '*.example.org')]);
    expect(rulesOf([gw], '1.19.5')).toContain('cilium.passthrough-sni-across-ports');
    expect(rulesOf([gw], '1.19.6')).not.toContain('cilium.passthrough-sni-across-ports');
    expect(
      rulesOf([gateway([http, native('a', 5432, 'a.example.org'), native('b', 6379, 'b.example.org')])], '1.19.5'),
    ).not.toContain('cilium.passthrough-sni-across-ports');
  });

  it('a terminate chain and a passthrough chain sharing an SNI on different ports land in one Envoy listener', () => {
    const gw = dns01Gateway([native('pg', 5432, 'pg.example.org')]);
    expect(rulesOf([gw], '1.19.5')).toContain('cilium.sni-chains-share-one-envoy-listener');
    expect(rulesOf([gw], '1.20.2')).not.toContain('cilium.sni-chains-share-one-envoy-listener');
  });

  it('an explicit TLSRoute kind on a native-port listener rejects every HTTPRoute on the Gateway', () => {
    const gw = gateway([
      http,
      term('https-a', 'a.example.org'),
      native('pg', 5432, 'pg.example.org', [{ kind: 'TLSRoute' }]),
    ]);
    const fs = ciliumHazards(new Store([gw]), '1.19.5').filter(
      (f) => f.rule === 'cilium.explicit-kinds-apply-gateway-wide',
    );
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toMatch(/every HTTPRoute/);
    expect(fs[0].field).toBe('spec.listeners[2]');
    expect(rulesOf([gw], '1.19.6')).not.toContain('cilium.explicit-kinds-apply-gateway-wide');
    // The shipped shape (native-port listeners name no kinds) is clear on every version.
    expect(
      rulesOf([gateway([http, term('https-a', 'a.example.org'), native('pg', 5432, 'pg.example.org')])], '1.19.5'),
    ).not.toContain('cilium.explicit-kinds-apply-gateway-wide');
    // An empty kinds list is an unset one (Gateway API: the protocol decides), not an explicit "none".
    expect(
      rulesOf([gateway([http, term('https-a', 'a.example.org'), native('pg', 5432, 'pg.example.org', [])])], '1.19.5'),
    ).not.toContain('cilium.explicit-kinds-apply-gateway-wide');
  });

  it('the K443 kinds exclude GRPCRoute Gateway-wide only when a GRPCRoute attaches', () => {
    const gw = gateway([http, term('https-a', 'a.example.org')]);
    expect(rulesOf([gw], '1.19.5')).not.toContain('cilium.explicit-kinds-apply-gateway-wide');
    const grpc: KObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GRPCRoute',
      metadata: { name: 'g', namespace: 'tenant-root' },
      spec: { parentRefs: [{ name: 'cozystack', sectionName: 'http' }], hostnames: ['g.example.org'] },
    };
    expect(rulesOf([gw, grpc], '1.19.5')).toContain('cilium.explicit-kinds-apply-gateway-wide');
  });

  it('a terminate and a passthrough listener on 443 for the same name: no Conflicted condition, nothing reports it', () => {
    const gw = gateway([http, term('https-api', 'api.example.org'), pt443('api', 'api.example.org')]);
    expect(rulesOf([gw], '1.19.5')).toContain('cilium.no-conflicted-condition');
    expect(rulesOf([gw], '1.20.2')).not.toContain('cilium.no-conflicted-condition');
    // strictly narrower passthrough beside *.apex: Envoy picks the exact name first.
    expect(rulesOf([dns01Gateway()], '1.19.5')).not.toContain('cilium.no-conflicted-condition');
  });
});

describe('>= 1.19.6 hazards', () => {
  it('listenerPairConflict: *.apex terminate beside a narrower tls-<svc> is Conflicted on the upstream image only', () => {
    expect(rulesOf([dns01Gateway()], '1.20.2', false)).toContain('cilium.listener-pair-conflict');
    expect(rulesOf([dns01Gateway()], '1.20.2', true)).not.toContain('cilium.listener-pair-conflict');
    expect(rulesOf([dns01Gateway()], '1.19.5', false)).not.toContain('cilium.listener-pair-conflict');
  });
  it('listenerPairConflict: a terminate listener for the passthrough name itself is Conflicted even on the patched image', () => {
    const gw = gateway([http, term('https-api', 'api.example.org'), pt443('api', 'api.example.org')]);
    const fs = ciliumHazards(new Store([gw]), '1.20.2').filter((f) => f.rule === 'cilium.listener-pair-conflict');
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toMatch(/dropped|drops both from Envoy/);
    expect(
      ciliumHazards(new Store([gw]), '1.19.6').find((f) => f.rule === 'cilium.listener-pair-conflict')?.message,
    ).not.toMatch(/Envoy/);
  });

  it('NeedsPerPortListeners: each clause', () => {
    const view = (listeners: unknown[], routed: string[] = []) => ({
      gateway: gateway(listeners),
      listeners: listeners.map((l, i) => ({
        index: i,
        ...(l as { name: string; port: number; protocol: string }),
        tlsMode: (l as { tls?: { mode?: string } }).tls?.mode,
        hostname: (l as { hostname?: string }).hostname,
      })),
      routed: new Set(routed),
      grpcAttached: false,
    });
    expect(needsPerPortListeners(view([term('a', 'a.x', 443), term('b', 'b.x', 8443)]))).toMatch(
      /more than one HTTPS port/,
    );
    expect(
      needsPerPortListeners(view([pt443('api', 'api.x'), native('pg', 5432, 'pg.x')], ['tls-api', 'tls-pg'])),
    ).toMatch(/more than one TLS-passthrough port/);
    expect(
      needsPerPortListeners(view([pt443('api', 'api.x'), native('pg', 5432, 'pg.x')], ['tls-api'])),
    ).toBeUndefined();
    expect(needsPerPortListeners(view([term('https', '*.x'), native('pg', 5432, 'pg.x')], ['tls-pg']))).toMatch(
      /share an SNI/,
    );
    // A passthrough listener with no TLSRoute contributes no filter chain.
    expect(needsPerPortListeners(view([term('https', '*.x'), native('pg', 5432, 'pg.x')]))).toBeUndefined();
  });

  it('a routed native-port entry beside a routed tls-<svc> on 443 splits the listeners; upstream then names two Envoy listeners alike (cilium#48269)', () => {
    const gw = dns01Gateway([native('pg', 5432, 'pg.example.org')]);
    const routes = [tlsRoute('api', 'tls-api', ['api.example.org']), tlsRoute('pg', 'tls-pg', ['pg.example.org'])];
    expect(rulesOf([gw, ...routes], '1.20.2')).toContain('cilium.needs-per-port-listeners');
    expect(rulesOf([gw, ...routes], '1.20.2', false)).toContain('cilium.duplicate-envoy-listener-name');
    expect(rulesOf([gw, ...routes], '1.20.2', true)).not.toContain('cilium.duplicate-envoy-listener-name');
    expect(rulesOf([gw, ...routes], '1.19.5', false)).not.toContain('cilium.duplicate-envoy-listener-name');
    // A route naming another Gateway does not count.
    expect(
      rulesOf(
        [
          gateway([http, pt443('api', 'api.example.org'), native('pg', 5432, 'pg.example.org')]),
          tlsRoute('api', 'tls-api', ['api.example.org']),
          tlsRoute('pg', 'tls-pg', ['pg.example.org'], 'other'),
        ],
        '1.20.2',
      ),
    ).not.toContain('cilium.needs-per-port-listeners');
    // An empty parentRef.namespace is the route's own (Gateway API; one rule with the controller).
    const withNs = (r: KObject, namespace: string) => ({
      ...r,
      spec: {
        ...(r.spec as object),
        parentRefs: [{ ...(r.spec as { parentRefs: object[] }).parentRefs[0], namespace }],
      },
    });
    const twoPorts = gateway([http, pt443('api', 'api.example.org'), native('pg', 5432, 'pg.example.org')]);
    expect(
      rulesOf(
        [
          twoPorts,
          withNs(tlsRoute('api', 'tls-api', ['api.example.org']), ''),
          withNs(tlsRoute('pg', 'tls-pg', ['pg.example.org']), ''),
        ],
        '1.20.2',
      ),
    ).toContain('cilium.needs-per-port-listeners');
    expect(
      rulesOf(
        [
          twoPorts,
          withNs(tlsRoute('api', 'tls-api', ['api.example.org']), ''),
          withNs(tlsRoute('pg', 'tls-pg', ['pg.example.org']), 'elsewhere'),
        ],
        '1.20.2',
      ),
    ).not.toContain('cilium.needs-per-port-listeners');
  });

  it("a TLSRoute from a namespace the passthrough listener's allowedRoutes do not admit attaches to nothing (k8s/gatewayApi.ts)", () => {
    const inNs = (r: KObject, namespace: string): KObject => ({ ...r, metadata: { ...r.metadata, namespace } });
    const pg = (namespaces?: unknown) => ({
      ...native('pg', 5432, 'pg.example.org'),
      allowedRoutes: namespaces ? { namespaces } : {},
    });
    const objs = (namespaces?: unknown, labels?: Record<string, string>): KObject[] => [
      gateway([http, pt443('api', 'api.example.org'), pg(namespaces)]),
      tlsRoute('api', 'tls-api', ['api.example.org']),
      { ...inNs(tlsRoute('pg', 'tls-pg', ['pg.example.org']), 'tenant-bob') },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-bob', labels: labels ?? {} } },
    ];
    // The pg route's parentRef names tenant-root's Gateway from tenant-bob.
    const named = (o: KObject[]) =>
      o.map((x) =>
        x.metadata.name === 'pg' && x.kind === 'TLSRoute'
          ? {
              ...x,
              spec: {
                ...(x.spec as object),
                parentRefs: [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-pg' }],
              },
            }
          : x,
      );
    // Same (the default): tenant-bob's route does not attach, so no second passthrough port carries a route.
    expect(rulesOf(named(objs()), '1.20.2')).not.toContain('cilium.needs-per-port-listeners');
    expect(rulesOf(named(objs({ from: 'All' })), '1.20.2')).toContain('cilium.needs-per-port-listeners');
    const sel = { from: 'Selector', selector: { matchLabels: { team: 'pg' } } };
    expect(rulesOf(named(objs(sel, { team: 'pg' })), '1.20.2')).toContain('cilium.needs-per-port-listeners');
    expect(rulesOf(named(objs(sel, { team: 'web' })), '1.20.2')).not.toContain('cilium.needs-per-port-listeners');
  });

  it('the declared port is no boundary unless the listeners split', () => {
    const gw = gateway([http, native('pg', 5432, 'pg.example.org')]);
    expect(rulesOf([gw], '1.20.2')).toContain('cilium.passthrough-port-not-a-boundary');
    expect(rulesOf([gw], '1.19.5')).toContain('cilium.passthrough-port-not-a-boundary');
    const split = dns01Gateway([native('pg', 5432, 'pg.example.org')]);
    expect(rulesOf([split, tlsRoute('pg', 'tls-pg', ['pg.example.org'])], '1.20.2')).not.toContain(
      'cilium.passthrough-port-not-a-boundary',
    );
    expect(rulesOf([split, tlsRoute('pg', 'tls-pg', ['pg.example.org'])], '1.19.5')).toContain(
      'cilium.passthrough-port-not-a-boundary',
    );
  });
});

describe('hazards on every version', () => {
  it('divergent kind sets on one port (cilium#45559)', () => {
    const gw = gateway([
      http,
      term('https-a', 'a.example.org'),
      { ...pt443('api', 'api.example.org'), allowedRoutes: { kinds: [{ kind: 'TLSRoute' }] } },
    ]);
    for (const v of ['1.19.5', '1.20.2']) expect(rulesOf([gw], v)).toContain('cilium.divergent-kinds-on-port');
    expect(rulesOf([dns01Gateway()], '1.20.2')).not.toContain('cilium.divergent-kinds-on-port');
  });
  it('a sharing key on Gateways that collide on a port is inactive', () => {
    const a = gateway(
      [http],
      { namespace: 'tenant-a' },
      { infrastructure: { annotations: { 'lbipam.cilium.io/sharing-key': 'k' } } },
    );
    const b = gateway([http], { namespace: 'tenant-b', annotations: { 'lbipam.cilium.io/sharing-key': 'k' } });
    expect(rulesOf([a, b], '1.20.2').filter((r) => r === 'cilium.sharing-key-port-collision')).toHaveLength(2);
    expect(rulesOf([a], '1.20.2')).not.toContain('cilium.sharing-key-port-collision');
  });
});

describe('scope and shape', () => {
  it('the controller’s shipped shapes raise no warning on the shipped version and image', () => {
    const warnings = ciliumHazards(
      new Store([
        dns01Gateway(),
        gateway([http, term('https-a', 'a.example.org'), pt443('api', 'api.example.org')], { namespace: 'tenant-b' }),
      ]),
      '1.20.2',
    ).filter((f) => f.severity === 'warning');
    expect(warnings).toEqual([]);
  });
  it('Gateways of a class another controller runs are skipped', () => {
    const gc: KObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: 'tunnel' },
      spec: { controllerName: 'example.com/tunnel' },
    };
    const gw = gateway(
      [http, term('https-api', 'api.example.org'), pt443('api', 'api.example.org')],
      {},
      { gatewayClassName: 'tunnel' },
    );
    expect(rulesOf([gc, gw], '1.20.2')).toEqual([]);
  });
  it('findings name the Gateway, the listener and the version', () => {
    const gw = gateway([http, term('https-api', 'api.example.org'), pt443('api', 'api.example.org')]);
    const f = ciliumHazards(new Store([gw]), 'v1.20.2').find((x) => x.rule === 'cilium.listener-pair-conflict')!;
    expect(f.object).toEqual({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      namespace: 'tenant-root',
      name: 'cozystack',
    });
    expect(f.field).toBe('spec.listeners[2]');
    expect(f.message).toMatch(/^Cilium 1\.20\.2: /);
  });
});
