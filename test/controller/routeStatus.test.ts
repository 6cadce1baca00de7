import { collectClaimants, servedHostnames } from '../../src/controller/hostnameClaims';
import { decideHostnames, type Verdict } from '../../src/controller/hostnameRace';
import {
  gatewayKey,
  routesWithOurEntries,
  writeApexWideRouteStatuses,
  writeRouteStatuses,
} from '../../src/controller/routeStatus';
import { runTenantGatewayController } from '../../src/controller/tenantGatewayController';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { LATER, NOW, acceptedOf, baseNamespaces, http, judge, route, tgw, tls } from './tgwFixtures';

const CTRL = 'gateway.cozystack.io/tenantgateway-controller';

const reasonOf = (m: Map<string, Verdict>, k: string) => [m.get(k)!.reason, m.get(k)!.message];

describe('verdicts (docs/behaviour.md §5.9)', () => {
  test('an attached route is Accepted with the fixed message', () => {
    expect(reasonOf(judge([http('cozy-harbor', 'h', ['harbor.example.org'])]), 'cozy-harbor/h#0')).toEqual([
      'Accepted',
      'Route attached to TenantGateway tenant-root/cozystack',
    ]);
  });

  test('HostnameConflict for the loser, naming the hostname and the holder; the winner is Accepted', () => {
    const m = judge([
      http('cozy-harbor', 'p', ['portal.example.org']),
      http('cozy-dashboard', 'p', ['portal.example.org']),
    ]);
    expect(m.get('cozy-dashboard/p#0')!.reason).toBe('Accepted');
    expect(reasonOf(m, 'cozy-harbor/p#0')).toEqual([
      'HostnameConflict',
      'On TenantGateway tenant-root/cozystack: hostname held by a route in another namespace: portal.example.org (held by HTTPRoute cozy-dashboard/p)',
    ]);
  });

  test('a conflict alongside other causes is HostnameConflict with every cause spelled out', () => {
    const m = judge([
      http('cozy-a', 'w', ['x.example.org']),
      http('tenant-root', 'l', ['x.example.org', '*.example.org']),
    ]);
    const [reason, msg] = reasonOf(m, 'tenant-root/l#0');
    expect(reason).toBe('HostnameConflict');
    expect(msg).toMatch(/x\.example\.org \(held by HTTPRoute cozy-a\/w\).*; .*wildcard: \*\.example\.org/);
  });

  test('NoMatchingListenerHostname shapes: wildcard, reserved (only when every hostname is), port, a tls-<name> section answering another name, TLSRoute-only; a section outside the tls- prefix is not judged', () => {
    const m = judge(
      [
        http('tenant-root', 'wild', ['*.example.org', 'www.example.org']),
        http('tenant-root', 'res', ['api.example.org']),
        http('tenant-root', 'resfree', ['api.example.org', 'free.example.org']),
        http('tenant-root', 'port', ['p.example.org'], [{ name: 'cozystack', port: 8443 }]),
        http(
          'tenant-root',
          'sec',
          ['a.example.org', 'b.example.org'],
          [{ name: 'cozystack', sectionName: 'https-a-8479b785' }],
        ),
        tls('tenant-root', 'only', ['only.example.org']),
        tls('tenant-root', 'tlsother', ['db.example.org'], [{ name: 'cozystack', sectionName: 'tls-api' }]),
      ],
      { tlsPassthroughServices: ['api'] },
    );
    expect(reasonOf(m, 'tenant-root/wild#0')[0]).toBe('NoMatchingListenerHostname');
    expect(reasonOf(m, 'tenant-root/wild#0')[1]).toMatch(/^(?!.*www\.example\.org).*\*\.example\.org/);
    expect(reasonOf(m, 'tenant-root/res#0')).toEqual([
      'NoMatchingListenerHostname',
      expect.stringMatching(/TLS-passthrough listener.*: api\.example\.org \(answered by api\.example\.org\)$/),
    ]);
    expect(m.get('tenant-root/resfree#0')!.reason).toBe('Accepted'); // docs/decisions.md §10
    expect(reasonOf(m, 'tenant-root/port#0')).toEqual([
      'NoMatchingListenerHostname',
      expect.stringMatching(/p\.example\.org \(port 8443; /),
    ]);
    // "A sectionName outside that prefix, http aside, is not judged here at all ... the route is
    // written Accepted=True like any attached route": a per-app listener name is such a section.
    expect(m.get('tenant-root/sec#0')!.reason).toBe('Accepted');
    expect(reasonOf(m, 'tenant-root/only#0')).toEqual([
      'NoMatchingListenerHostname',
      expect.stringMatching(/only a TLSRoute claims.*: only\.example\.org$/),
    ]);
    expect(reasonOf(m, 'tenant-root/tlsother#0')).toEqual([
      'NoMatchingListenerHostname',
      expect.stringMatching(/db\.example\.org \(sectionName tls-api answers api\.example\.org\)/),
    ]);
  });

  test('a TLSRoute on a hostname an HTTPRoute earned a terminate listener for is judged like any attached route', () => {
    const m = judge([
      http('tenant-root', 'web', ['db.example.org']),
      tls('tenant-root', 'db', ['db.example.org'], [{ name: 'cozystack', sectionName: 'tls-db' }]),
    ]);
    expect(m.get('tenant-root/db#0')!.reason).toBe('Accepted');
  });

  test('NoMatchingParent: absent tls-* section (HTTPRoute whatever answers; TLSRoute where passthrough answers); section and port disagreeing', () => {
    const m = judge(
      [
        http('tenant-root', 'h', ['x.example.org'], [{ name: 'cozystack', sectionName: 'tls-nope' }]),
        tls('tenant-root', 't', ['api.example.org'], [{ name: 'cozystack', sectionName: 'tls-nope' }]),
        tls('tenant-root', 'n', ['nothing.example.org'], [{ name: 'cozystack', sectionName: 'tls-nope' }]),
        http('tenant-root', 'sp', ['x.example.org'], [{ name: 'cozystack', sectionName: 'http', port: 443 }]),
      ],
      { tlsPassthroughServices: ['api'] },
    );
    expect(m.get('tenant-root/h#0')!.reason).toBe('NoMatchingParent');
    expect(m.get('tenant-root/t#0')!.reason).toBe('NoMatchingParent');
    expect(m.get('tenant-root/n#0')!.reason).toBe('NoMatchingListenerHostname');
    expect(m.get('tenant-root/sp#0')!.reason).toBe('NoMatchingParent');
  });

  test('NotAllowedByListeners: HTTPRoute pinned to a rendered tls-*; plain HTTP from another namespace; native-port listener from another namespace', () => {
    const m = judge(
      [
        http('tenant-root', 'pin', ['x.example.org'], [{ name: 'cozystack', sectionName: 'tls-api' }]),
        http(
          'tenant-alice',
          'plain',
          ['*.alice.example.org'],
          [{ name: 'cozystack', namespace: 'tenant-root', port: 80 }],
        ),
        http('tenant-root', 'plainok', ['*.example.org'], [{ name: 'cozystack', sectionName: 'http' }]),
        http(
          'cozy-cert-manager',
          'acme',
          ['x.example.org'],
          [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'http' }],
        ),
        tls(
          'tenant-alice',
          'pg',
          ['pg.example.org'],
          [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-pg' }],
        ),
        tls('tenant-alice', 'pg2', ['pg.example.org'], [{ name: 'cozystack', namespace: 'tenant-root' }]),
        tls('tenant-root', 'pgok', ['pg.example.org'], [{ name: 'cozystack', sectionName: 'tls-pg' }]),
      ],
      {
        tlsPassthroughServices: ['api'],
        tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
      },
    );
    expect(m.get('tenant-root/pin#0')!.reason).toBe('NotAllowedByListeners');
    expect(m.get('tenant-alice/plain#0')!.reason).toBe('NotAllowedByListeners');
    expect(m.get('tenant-root/plainok#0')!.reason).toBe('Accepted');
    expect(m.get('cozy-cert-manager/acme#0')!.reason).toBe('Accepted');
    expect(m.get('tenant-alice/pg#0')!.reason).toBe('NotAllowedByListeners');
    expect(m.get('tenant-alice/pg2#0')!.reason).toBe('NotAllowedByListeners');
    // The refused ones claim no hostname, so the tenant-root TLSRoute is not in a race with them.
    expect(m.get('tenant-root/pgok#0')!.reason).toBe('Accepted');
  });

  test('two TLSRoutes racing for a passthrough hostname both eligible: the loser gets the conflict', () => {
    const m = judge([tls('tenant-root', 'a', ['api.example.org']), tls('cozy-system', 'b', ['api.example.org'])], {
      tlsPassthroughServices: ['api'],
    });
    expect(m.get('cozy-system/b#0')!.reason).toBe('Accepted');
    expect(m.get('tenant-root/a#0')!.reason).toBe('HostnameConflict');
  });
});

describe('writing RouteParentStatus entries', () => {
  const v = viewOf(tgw({}));
  const write = (routes: KObject[], now: string, store = new Store(routes)) => {
    const claimants = collectClaimants(routes, v);
    const served = servedHostnames(claimants, []);
    const { verdicts } = decideHostnames(
      { v, passthrough: [], served: new Set(served), plainHttpNamespaces: ['tenant-root'] },
      claimants,
    );
    writeRouteStatuses(store, v, routes, verdicts, now);
    return store;
  };
  const get = (s: Store, kind: string, n: string, name: string) => s.get('gateway.networking.k8s.io', kind, n, name)!;

  test('other controllers keep their entries; ours is appended keyed by the exact parentRef; lastTransitionTime is kept', () => {
    const ref = { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'cozystack', namespace: 'tenant-root' };
    const cilium = {
      parentRef: ref,
      controllerName: 'io.cilium/gateway-controller',
      conditions: [{ type: 'Accepted', status: 'True' }],
    };
    const r = route('HTTPRoute', 'tenant-root', 'a', ['a.example.org'], [ref], { parents: [cilium] });
    const s1 = write([r], NOW);
    const a1 = get(s1, 'HTTPRoute', 'tenant-root', 'a');
    const parents = (a1.status as { parents: Record<string, unknown>[] }).parents;
    expect(parents[0]).toEqual(cilium);
    expect(parents[1]).toEqual({
      parentRef: ref,
      controllerName: CTRL,
      conditions: [
        {
          type: 'Accepted',
          status: 'True',
          lastTransitionTime: NOW,
          reason: 'Accepted',
          message: 'Route attached to TenantGateway tenant-root/cozystack',
        },
      ],
    });
    const s2 = write([a1], LATER);
    expect(s2.changes()).toEqual([]);
    expect(acceptedOf(get(s2, 'HTTPRoute', 'tenant-root', 'a'))!.lastTransitionTime).toBe(NOW);
  });

  test('lastTransitionTime moves when the message changes; a parentRef no longer naming the Gateway loses its entry', () => {
    const s1 = write([http('tenant-root', 'a', ['a.example.org'])], NOW);
    const a1 = get(s1, 'HTTPRoute', 'tenant-root', 'a');
    const loser = { ...a1, spec: { ...(a1.spec as object), hostnames: ['a.example.org'] } };
    const s2 = write([loser, http('cozy-x', 'w', ['a.example.org'])], LATER);
    expect(acceptedOf(get(s2, 'HTTPRoute', 'tenant-root', 'a'))).toMatchObject({
      status: 'False',
      reason: 'HostnameConflict',
      lastTransitionTime: LATER,
    });
    const moved = {
      ...a1,
      spec: {
        parentRefs: [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'http' }],
        hostnames: ['a.example.org'],
      },
    };
    const s3 = write([moved], LATER);
    const ps = (get(s3, 'HTTPRoute', 'tenant-root', 'a').status as { parents: Record<string, unknown>[] }).parents;
    expect(ps.map((p) => p.parentRef)).toEqual([{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'http' }]);
  });

  test('apex-wide modes remove our entries; edge gives hostname-bearing TLSRoutes NoMatchingParent and leaves other controllers alone', () => {
    const ref = { name: 'cozystack', namespace: 'tenant-root' };
    const ours = {
      parentRef: ref,
      controllerName: CTRL,
      conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: 'x', lastTransitionTime: NOW }],
    };
    const theirs = { parentRef: ref, controllerName: 'io.cilium/gateway-controller', conditions: [] };
    const routes = [
      route('HTTPRoute', 'tenant-root', 'h', ['h.example.org'], [ref], { parents: [ours, theirs] }),
      route('TLSRoute', 'tenant-root', 't', ['api.example.org'], [ref], { parents: [ours, theirs] }),
      route('TLSRoute', 'tenant-root', 'n', undefined, [ref], { parents: [ours, theirs] }),
    ];
    for (const mode of ['dns01', 'existingSecret']) {
      const store = new Store(routes);
      writeApexWideRouteStatuses(store, viewOf(tgw({ certMode: mode })), routes, LATER);
      for (const [k, n] of [
        ['HTTPRoute', 'h'],
        ['TLSRoute', 't'],
        ['TLSRoute', 'n'],
      ]) {
        expect((get(store, k, 'tenant-root', n).status as { parents: unknown[] }).parents).toEqual([theirs]);
      }
    }
    const store = new Store(routes);
    writeApexWideRouteStatuses(store, viewOf(tgw({ certMode: 'edge' })), routes, LATER);
    expect((get(store, 'HTTPRoute', 'tenant-root', 'h').status as { parents: unknown[] }).parents).toEqual([theirs]);
    expect((get(store, 'TLSRoute', 'tenant-root', 'n').status as { parents: unknown[] }).parents).toEqual([theirs]);
    expect(acceptedOf(get(store, 'TLSRoute', 'tenant-root', 't'))).toEqual({
      type: 'Accepted',
      status: 'False',
      lastTransitionTime: LATER,
      reason: 'NoMatchingParent',
      message: 'TenantGateway tenant-root/cozystack terminates TLS at its class provider',
    });
  });
});

describe('entries of routes that no longer attach (docs/behaviour.md §5.9)', () => {
  const entry = (name: string, namespace?: string, controllerName = CTRL) => ({
    parentRef: namespace ? { name, namespace } : { name },
    controllerName,
    conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: 'm', lastTransitionTime: NOW }],
  });

  test('routesWithOurEntries indexes each route under every Gateway its entries name, once, the route namespace standing in for a missing one', () => {
    const both = route('HTTPRoute', 'tenant-alice', 'both', ['a.example.org'], [], {
      parents: [entry('cozystack', 'tenant-root'), entry('cozystack'), entry('cozystack', 'tenant-root')],
    });
    const other = route('TLSRoute', 'cozy-harbor', 'other', undefined, [], {
      parents: [entry('cozystack', 'tenant-root', 'example.net/other')],
    });
    const index = routesWithOurEntries(new Store([both, other]));
    expect([...index.keys()].sort()).toEqual([
      gatewayKey('tenant-alice', 'cozystack'),
      gatewayKey('tenant-root', 'cozystack'),
    ]);
    expect(index.get(gatewayKey('tenant-root', 'cozystack'))!.map((r) => r.metadata.name)).toEqual(['both']);
    expect(index.get(gatewayKey('tenant-alice', 'cozystack'))!.map((r) => r.metadata.name)).toEqual(['both']);
  });

  test('each TenantGateway drops only its own entry from a route that left both, and other controllers keep theirs', () => {
    const gone = route('HTTPRoute', 'tenant-alice', 'gone', ['a.example.org'], [], {
      parents: [
        entry('cozystack', 'tenant-root'),
        entry('cozystack'),
        entry('cozystack', 'tenant-root', 'example.net/other'),
      ],
    });
    const store = new Store([
      tgw({}),
      tgw({ apex: 'alice.example.org' }, { namespace: 'tenant-alice', uid: 'uid-alice' }),
      ...baseNamespaces(),
      gone,
    ]);
    runTenantGatewayController(store, { now: NOW });
    const after = store.get('gateway.networking.k8s.io', 'HTTPRoute', 'tenant-alice', 'gone')!;
    expect((after.status as { parents: { controllerName: string }[] }).parents.map((p) => p.controllerName)).toEqual([
      'example.net/other',
    ]);
  });
});
