/**
 * Spec audit of the controller half: one test per behaviour sentence of the platform's gateway
 * specification (docs/behaviour.md §5) that no other test pinned down. Each test quotes (or names) the sentence it holds the code to.
 */
import { runTenantGatewayController } from '../../src/controller/tenantGatewayController';
import { perAppListenerName, perAppCertificateName } from '../../src/platform/names';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import { tenantGatewayProblems } from '../../src/controller/tenantGatewayValidation';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import { LATER, NOW, acceptedOf, baseNamespaces, http, judge, ns, route, tgw, tls } from './tgwFixtures';

const GW = 'gateway.networking.k8s.io';
const CTRL = 'gateway.cozystack.io/tenantgateway-controller';

function pass(objects: KObject[], now = NOW): Store {
  const store = new Store(objects);
  runTenantGatewayController(store, { now });
  return store;
}

const listenersOf = (s: Store, namespace = 'tenant-root') =>
  (s.get(GW, 'Gateway', namespace, 'cozystack')?.spec as { listeners?: { name: string; hostname?: string }[] })
    ?.listeners ?? [];
const readyOf = (s: Store, namespace = 'tenant-root') =>
  (
    (
      s.get('gateway.cozystack.io', 'TenantGateway', namespace, 'cozystack')!.status as {
        conditions: Record<string, unknown>[];
      }
    ).conditions ?? []
  ).find((c) => c.type === 'Ready')!;
const ours = (o: KObject | undefined) =>
  ((o?.status as { parents?: Record<string, unknown>[] })?.parents ?? []).filter((p) => p.controllerName === CTRL);

describe('HTTP-01 reservation and wildcard refusal (docs/behaviour.md §5.8, §5.13)', () => {
  test('"an HTTPRoute publishing *.<apex> overlaps the shipped api.<apex> entry, but it is refused before the overlap is read": the wildcard cause, not the passthrough one', () => {
    const m = judge([http('tenant-root', 'w', ['*.example.org'])], { tlsPassthroughServices: ['api'] });
    const vd = m.get('tenant-root/w#0')!;
    expect(vd.reason).toBe('NoMatchingListenerHostname');
    expect(vd.message).toMatch(/wildcard.*\*\.example\.org/);
    expect(vd.message).not.toMatch(/answered by/);
  });

  test('"the route reads NoMatchingListenerHostname naming it whether or not a TLSRoute claims *.<apex> too", and no listener or certificate', () => {
    const s = pass([
      tgw({ tlsPassthroughServices: ['api'] }),
      ...baseNamespaces(),
      http('tenant-root', 'w', ['*.example.org']),
      tls('tenant-root', 't', ['*.example.org']),
    ]);
    expect(listenersOf(s).map((l) => l.name)).toEqual(['http', 'tls-api']);
    expect(acceptedOf(s.get(GW, 'HTTPRoute', 'tenant-root', 'w'))).toMatchObject({
      status: 'False',
      reason: 'NoMatchingListenerHostname',
      message: expect.stringMatching(/\*\.example\.org/),
    });
    expect(s.list('cert-manager.io', 'Certificate')).toEqual([]);
  });

  test('"The reservation is read off the TenantGateway spec alone: it holds whether or not a TLSRoute is attached to the passthrough listener"', () => {
    for (const withTls of [false, true]) {
      const objs = [
        tgw({ tlsPassthroughServices: ['api'], attachedNamespaces: ['cozy-dashboard'] }),
        ...baseNamespaces(),
        http('cozy-dashboard', 'api', ['api.example.org']),
      ];
      if (withTls) objs.push(tls('tenant-root', 'kube', ['api.example.org']));
      const s = pass(objs);
      expect(listenersOf(s).map((l) => l.name)).toEqual(['http', 'tls-api']);
      expect(acceptedOf(s.get(GW, 'HTTPRoute', 'cozy-dashboard', 'api'))).toMatchObject({
        reason: 'NoMatchingListenerHostname',
        message: expect.stringMatching(/answered by api\.example\.org/),
      });
    }
  });

  test('"a hostname only a TLSRoute claims earns neither at all"', () => {
    const s = pass([tgw({}), ...baseNamespaces(), tls('tenant-root', 'db', ['db.example.org'])]);
    expect(listenersOf(s).map((l) => l.name)).toEqual(['http']);
    expect(s.list('cert-manager.io', 'Certificate')).toEqual([]);
  });

  test('"A name beneath a wildcard entry is reserved the same way" (native-port entry): no terminate listener on 443 for it', () => {
    const s = pass([
      tgw({ tlsPassthroughListeners: [{ name: 'dbs', port: 5432, hostname: '*.db.example.org' }] }),
      ...baseNamespaces(),
      http('tenant-root', 'pg', ['pg.db.example.org', 'free.example.org']),
    ]);
    expect(listenersOf(s).map((l) => l.hostname)).toEqual([undefined, 'free.example.org', '*.db.example.org']);
    // "one that also claims a free hostname stays Accepted and is served on that one"
    expect(acceptedOf(s.get(GW, 'HTTPRoute', 'tenant-root', 'pg'))).toMatchObject({ status: 'True' });
  });

  test('the plain-HTTP exception: "that listener carries no hostname, so it serves a wildcard claim like any other and the route is refused nothing" (port 80 too)', () => {
    const m = judge(
      [http('tenant-root', 'p80', ['*.example.org', 'api.example.org'], [{ name: 'cozystack', port: 80 }])],
      { tlsPassthroughServices: ['api'] },
    );
    expect(m.get('tenant-root/p80#0')!.reason).toBe('Accepted');
  });

  test('"A parentRef that pins a port other than 443 earns neither through that parentRef": another parentRef of the same route still earns', () => {
    const s = pass([
      tgw({}),
      ...baseNamespaces(),
      http('tenant-root', 'r', ['a.example.org'], [{ name: 'cozystack', port: 8443 }]),
    ]);
    expect(listenersOf(s).map((l) => l.name)).toEqual(['http']);
    const s2 = pass([
      tgw({}),
      ...baseNamespaces(),
      http(
        'tenant-root',
        'r',
        ['a.example.org'],
        [
          { name: 'cozystack', port: 8443 },
          { name: 'cozystack', port: 443 },
        ],
      ),
    ]);
    expect(listenersOf(s2).map((l) => l.name)).toEqual(['http', perAppListenerName('a.example.org')]);
    const r = s2.get(GW, 'HTTPRoute', 'tenant-root', 'r');
    expect(acceptedOf(r, { name: 'cozystack', port: 8443 })).toMatchObject({
      status: 'False',
      reason: 'NoMatchingListenerHostname',
    });
    expect(acceptedOf(r, { name: 'cozystack', port: 443 })).toMatchObject({ status: 'True' });
  });

  test('"a route claiming one withdrawn name and one ordinary name keeps the listener and the certificate for the second. The message names the hostnames that lost"', () => {
    const s = pass([
      tgw({ attachedNamespaces: ['cozy-harbor'] }),
      ...baseNamespaces(),
      http('cozy-harbor', 'portal', ['portal.example.org']),
      http('tenant-root', 'both', ['portal.example.org', 'shop.example.org']),
    ]);
    expect(listenersOf(s).map((l) => l.hostname)).toEqual([undefined, 'portal.example.org', 'shop.example.org']);
    expect(
      s.get('cert-manager.io', 'Certificate', 'tenant-root', perAppCertificateName('cozystack', 'shop.example.org')),
    ).toBeDefined();
    const c = acceptedOf(s.get(GW, 'HTTPRoute', 'tenant-root', 'both'))!;
    expect(c).toMatchObject({ status: 'False', reason: 'HostnameConflict' });
    expect(c.message).toMatch(/portal\.example\.org/);
    expect(c.message).not.toMatch(/shop\.example\.org/);
  });
});

describe('parentRef section and port rules (layer 7 controller paragraph)', () => {
  test('"an HTTPRoute whose sectionName and parentRef port select different listeners ... reaches [NoMatchingParent] the same way": tls-<svc> with port 80, tls-<name> with port 443', () => {
    const m = judge(
      [
        http('tenant-root', 'h', ['x.example.org'], [{ name: 'cozystack', sectionName: 'tls-api', port: 80 }]),
        tls('tenant-root', 't', ['pg.example.org'], [{ name: 'cozystack', sectionName: 'tls-pg', port: 443 }]),
        tls('tenant-root', 'ok', ['pg.example.org'], [{ name: 'cozystack', sectionName: 'tls-pg', port: 5432 }]),
      ],
      {
        tlsPassthroughServices: ['api'],
        tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
      },
    );
    expect(m.get('tenant-root/h#0')!.reason).toBe('NoMatchingParent');
    expect(m.get('tenant-root/t#0')!.reason).toBe('NoMatchingParent');
    expect(m.get('tenant-root/ok#0')!.reason).toBe('Accepted');
  });

  test('"For an HTTPRoute it is reported whatever answers the hostname": an absent tls-<name> section on a reserved, a wildcard and a free hostname', () => {
    const m = judge(
      [
        http('tenant-root', 'res', ['api.example.org'], [{ name: 'cozystack', sectionName: 'tls-gone' }]),
        http('tenant-root', 'wild', ['*.example.org'], [{ name: 'cozystack', sectionName: 'tls-gone' }]),
        http(
          'cozy-harbor',
          'free',
          ['free.example.org'],
          [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-gone' }],
        ),
      ],
      { tlsPassthroughServices: ['api'] },
    );
    for (const k of ['tenant-root/res#0', 'tenant-root/wild#0', 'cozy-harbor/free#0'])
      expect(m.get(k)!.reason).toBe('NoMatchingParent');
  });

  test('"An HTTPRoute that pins a rendered tls-<name> listener by sectionName ... cannot serve an HTTPRoute whatever namespace the route is in" (a native-port one too)', () => {
    const m = judge(
      [
        http('tenant-root', 'own', ['pg.example.org'], [{ name: 'cozystack', sectionName: 'tls-pg' }]),
        http(
          'cozy-harbor',
          'cozy',
          ['api.example.org'],
          [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-api' }],
        ),
      ],
      {
        tlsPassthroughServices: ['api'],
        tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
      },
    );
    expect(m.get('tenant-root/own#0')!.reason).toBe('NotAllowedByListeners');
    expect(m.get('cozy-harbor/cozy#0')!.reason).toBe('NotAllowedByListeners');
  });

  test('"selecting it from any other namespace is refused by that listener with NotAllowedByListeners": an inheriting child and an attached cozy-* namespace, by port 80 and by http', () => {
    const m = judge([
      http(
        'tenant-alice',
        'a',
        ['a.alice.example.org'],
        [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'http' }],
      ),
      http('cozy-harbor', 'b', ['harbor.example.org'], [{ name: 'cozystack', namespace: 'tenant-root', port: 80 }]),
    ]);
    expect(m.get('tenant-alice/a#0')!.reason).toBe('NotAllowedByListeners');
    expect(m.get('cozy-harbor/b#0')!.reason).toBe('NotAllowedByListeners');
  });

  test('routes selecting the plain-HTTP listener claim no hostname and take no part in the race (docs/decisions.md §5, §6)', () => {
    const m = judge([
      http('tenant-root', 'plain', ['x.example.org'], [{ name: 'cozystack', sectionName: 'http' }]),
      http('tenant-zed', 'term', ['x.example.org'], [{ name: 'cozystack', namespace: 'tenant-root' }]),
    ]);
    expect(m.get('tenant-root/plain#0')!.reason).toBe('Accepted');
    expect(m.get('tenant-zed/term#0')!.reason).toBe('Accepted');
  });

  test('"A sectionName outside that prefix, http aside, is not judged here at all ... the route is written Accepted=True like any attached route"', () => {
    const a = perAppListenerName('a.example.org');
    const m = judge([
      http('tenant-root', 'a', ['a.example.org']),
      // pins the per-app listener of another hostname, and a listener family this pass renders in other modes
      http('tenant-root', 'b', ['b.example.org'], [{ name: 'cozystack', sectionName: a }]),
      http('tenant-root', 'c', ['c.example.org'], [{ name: 'cozystack', sectionName: 'https-apex' }]),
      tls('tenant-root', 't', ['b.example.org'], [{ name: 'cozystack', sectionName: a }]),
    ]);
    expect(m.get('tenant-root/b#0')!.reason).toBe('Accepted');
    expect(m.get('tenant-root/c#0')!.reason).toBe('Accepted');
    expect(m.get('tenant-root/t#0')!.reason).toBe('Accepted');
  });

  test('a section outside the prefix with port 80 selects the plain-HTTP listener like port 80 alone: served from an admitted namespace, refused from another', () => {
    const m = judge([
      http('tenant-root', 'own', ['*.example.org'], [{ name: 'cozystack', sectionName: 'web', port: 80 }]),
      http(
        'tenant-alice',
        'kid',
        ['a.alice.example.org'],
        [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'web', port: 80 }],
      ),
    ]);
    expect(m.get('tenant-root/own#0')!.reason).toBe('Accepted');
    expect(m.get('tenant-alice/kid#0')!.reason).toBe('NotAllowedByListeners');
  });

  test('"Two TLSRoutes racing for a hostname a passthrough listener answers, both eligible to attach, still get the conflict", also beneath a wildcard native entry', () => {
    const m = judge(
      [
        tls('tenant-root', 'a', ['pg.db.example.org']),
        tls('tenant-root', 'b', ['pg.db.example.org']),
        tls('tenant-zed', 'c', ['pg.db.example.org'], [{ name: 'cozystack', namespace: 'tenant-root' }]),
      ],
      {
        tlsPassthroughServices: ['api'],
        tlsPassthroughListeners: [{ name: 'dbs', port: 5432, hostname: '*.db.example.org' }],
      },
    );
    expect(m.get('tenant-root/a#0')!.reason).toBe('Accepted');
    expect(m.get('tenant-root/b#0')!.reason).toBe('Accepted');
    // tenant-zed is refused by the native listener first (NotAllowedByListeners claims no hostname).
    expect(m.get('tenant-zed/c#0')!.reason).toBe('NotAllowedByListeners');
  });

  test('"A route carrying a conflict alongside any of the others is reported as HostnameConflict, with every cause spelled out in the message"', () => {
    const m = judge(
      [
        http('cozy-harbor', 'w', ['shop.example.org']),
        http('tenant-root', 'l', ['shop.example.org', 'api.example.org']),
      ],
      { tlsPassthroughServices: ['api'] },
    );
    const vd = m.get('tenant-root/l#0')!;
    expect(vd.reason).toBe('HostnameConflict');
    expect(vd.message).toMatch(/shop\.example\.org \(held by HTTPRoute cozy-harbor\/w\)/);
    expect(vd.message).toMatch(/api\.example\.org \(answered by api\.example\.org\)/);
  });

  test('"GRPCRoute takes no part in that race and never carries the condition": a full pass leaves it untouched and it earns nothing', () => {
    const g = route('GRPCRoute', 'tenant-root', 'rpc', ['rpc.example.org']);
    const s = pass([
      tgw({}),
      ...baseNamespaces(),
      g,
      http('tenant-zed', 'web', ['rpc.example.org'], [{ name: 'cozystack', namespace: 'tenant-root' }]),
    ]);
    expect(s.get(GW, 'GRPCRoute', 'tenant-root', 'rpc')).toEqual(g);
    expect(listenersOf(s).map((l) => l.name)).toEqual(['http']);
  });
});

describe('apex-wide modes and moving between modes (edge section)', () => {
  const tlsRef = { name: 'cozystack', namespace: 'tenant-root' };
  const world = (certMode: string, extra: KObject[] = []) => [
    tgw({
      certMode,
      tlsPassthroughServices: ['api'],
      wildcardSecretRef: { name: 'wild' },
      dns01: { provider: 'cloudflare', cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'k' } } },
    }),
    ...baseNamespaces(),
    ...extra,
  ];
  const replace = (s: Store, certMode: string) =>
    s.all().map((o) => (o.kind === 'TenantGateway' ? { ...o, spec: { ...(o.spec as object), certMode } } : o));

  test('"Moving back off the mode clears the condition again": edge -> http01 judges afresh, edge -> dns01 drops the entry', () => {
    const first = pass(
      world('edge', [
        tls('tenant-root', 'kube', ['api.example.org'], [tlsRef]),
        tls('tenant-root', 'bare', undefined, [tlsRef]),
      ]),
    );
    expect(acceptedOf(first.get(GW, 'TLSRoute', 'tenant-root', 'kube'))).toMatchObject({
      status: 'False',
      reason: 'NoMatchingParent',
    });
    expect(ours(first.get(GW, 'TLSRoute', 'tenant-root', 'bare'))).toEqual([]);

    const back = pass(replace(first, 'http01'), LATER);
    expect(acceptedOf(back.get(GW, 'TLSRoute', 'tenant-root', 'kube'))).toMatchObject({
      status: 'True',
      reason: 'Accepted',
      lastTransitionTime: LATER,
    });
    const dns = pass(replace(first, 'dns01'), LATER);
    expect(ours(dns.get(GW, 'TLSRoute', 'tenant-root', 'kube'))).toEqual([]);
    const es = pass(replace(first, 'existingSecret'), LATER);
    expect(ours(es.get(GW, 'TLSRoute', 'tenant-root', 'kube'))).toEqual([]);
  });

  test('"every attached TLSRoute that declares hostnames gets Accepted=False with reason NoMatchingParent": one entry per parentRef naming the Gateway, none for other Gateways', () => {
    const refs = [
      tlsRef,
      { name: 'cozystack', namespace: 'tenant-root', port: 443 },
      { name: 'other', namespace: 'tenant-root' },
    ];
    const s = pass(world('edge', [tls('tenant-root', 'kube', ['api.example.org'], refs)]));
    const e = ours(s.get(GW, 'TLSRoute', 'tenant-root', 'kube'));
    expect(e.map((p) => p.parentRef)).toEqual([refs[0], refs[1]]);
  });

  test('edge renders no tls-<svc>, no http, no redirect, no Issuer; tlsPassthroughServices is dropped without an error ("dropping it is the only way an edge tenant renders at all")', () => {
    const s = pass(world('edge'));
    expect(listenersOf(s).map((l) => l.name)).toEqual([
      'edge',
      'edge-apex',
      expect.stringMatching(/^edge-child-alice-/),
    ]);
    expect(readyOf(s).reason).not.toBe('ReconcileError');
    expect(s.get(GW, 'HTTPRoute', 'tenant-root', 'cozystack-http-redirect')).toBeUndefined();
    expect(s.list('cert-manager.io', 'Issuer')).toEqual([]);
  });

  test('"Under dns01 and existingSecret the wildcard terminate listener still serves such a name on 443": no reservation, no per-app listeners, the passthrough listener kept', () => {
    for (const m of ['dns01', 'existingSecret']) {
      const s = pass(world(m, [http('tenant-root', 'api', ['api.example.org'])]));
      expect(listenersOf(s).map((l) => l.name)).toEqual([
        'http',
        'https',
        'https-apex',
        expect.stringMatching(/^https-child-alice-/),
        'tls-api',
      ]);
      expect(ours(s.get(GW, 'HTTPRoute', 'tenant-root', 'api'))).toEqual([]);
    }
  });
});

describe('controller-side validation and the budget (passthrough section)', () => {
  test('"an assembled listener count over the Gateway API cap of 64": 64 passes and 65 fails, counting http, per-app, tls-<svc> and native entries', () => {
    const svcs = ['api', 'vm-exportproxy', 'cdi-uploadproxy'];
    const natives = [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }];
    const hosts = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.example.org`);
    const ok = pass([
      tgw({ tlsPassthroughServices: svcs, tlsPassthroughListeners: natives }),
      ...baseNamespaces(),
      http('tenant-root', 'many', hosts(59)),
    ]);
    expect(listenersOf(ok)).toHaveLength(64);
    const over = pass([
      tgw({ tlsPassthroughServices: svcs, tlsPassthroughListeners: natives }),
      ...baseNamespaces(),
      http('tenant-root', 'many', hosts(60)),
    ]);
    expect(over.get(GW, 'Gateway', 'tenant-root', 'cozystack')).toBeUndefined();
    expect(readyOf(over)).toMatchObject({
      status: 'False',
      reason: 'ReconcileError',
      message: expect.stringMatching(/65 listeners.*64/),
    });
    // The route statuses are not written either: the pass stopped before step 8.
    expect(ours(over.get(GW, 'HTTPRoute', 'tenant-root', 'many'))).toEqual([]);
  });

  test('the budget holds under dns01 too (child apexes), before the write', () => {
    const kids = Array.from({ length: 62 }, (_, i) =>
      ns(`tenant-k${i}`, {
        'namespace.cozystack.io/gateway': 'tenant-root',
        'namespace.cozystack.io/host': `k${i}.example.org`,
      }),
    );
    const s = pass([
      tgw({
        certMode: 'dns01',
        dns01: { provider: 'cloudflare', cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'k' } } },
      }),
      ...baseNamespaces(),
      ...kids,
    ]);
    // http + https + https-apex + 63 children (62 + alice)
    expect(s.get(GW, 'Gateway', 'tenant-root', 'cozystack')).toBeUndefined();
    expect(readyOf(s).message).toMatch(/66 listeners/);
  });

  test('"a wildcard that broad is rejected on a TenantGateway that carries the defaults": *.<apex> against api.<apex>; emptied defaults keep the rule between entries', () => {
    const wide = [{ name: 'all', port: 6379, hostname: '*.example.org' }];
    expect(
      tenantGatewayProblems(viewOf(tgw({ tlsPassthroughServices: ['api'], tlsPassthroughListeners: wide }))),
    ).toEqual([expect.stringMatching(/tls-api.*tls-all.*overlap by SNI/)]);
    expect(tenantGatewayProblems(viewOf(tgw({ tlsPassthroughServices: [], tlsPassthroughListeners: wide })))).toEqual(
      [],
    );
    const nested = [...wide, { name: 'db', port: 5432, hostname: '*.db.example.org' }];
    expect(tenantGatewayProblems(viewOf(tgw({ tlsPassthroughServices: [], tlsPassthroughListeners: nested })))).toEqual(
      [expect.stringMatching(/tls-all.*tls-db.*overlap/)],
    );
  });

  test('"an entry whose composed listener name or hostname runs past the 253 characters": a service at the bound composes a hostname over it', () => {
    const svc = Array.from({ length: 4 }, () => 'a'.repeat(60)).join('.'); // 243 characters
    const v = viewOf(tgw({ tlsPassthroughServices: [svc], apex: 'example.org' }));
    expect(tenantGatewayProblems(v)).toEqual([expect.stringMatching(/hostname .* is longer than 253/)]);
  });

  test('"the field is refused under edge" as Ready=False on the TenantGateway, nothing rendered', () => {
    const s = pass([
      tgw({ certMode: 'edge', tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }] }),
      ...baseNamespaces(),
    ]);
    expect(readyOf(s)).toMatchObject({
      status: 'False',
      reason: 'ReconcileError',
      message: expect.stringMatching(/tlsPassthroughListeners.*edge/),
    });
    expect(s.get(GW, 'Gateway', 'tenant-root', 'cozystack')).toBeUndefined();
  });
});

describe('a mixed-case apex (schema constraints paragraph)', () => {
  test('"the controller then composes listener hostnames from it that Gateway API refuses ... admitted it is Ready=False": under http01 too, where the redirect names the apex', () => {
    const s = pass([tgw({ apex: 'Example.org' }), ns('tenant-root', { 'namespace.cozystack.io/host': 'Example.org' })]);
    expect(readyOf(s)).toMatchObject({
      status: 'False',
      reason: 'ReconcileError',
      message: expect.stringMatching(/Example\.org.*lowercase/),
    });
    expect(s.get(GW, 'HTTPRoute', 'tenant-root', 'cozystack-http-redirect')).toBeUndefined();
  });
});

describe('listener shapes per family and mode (Security model item 1)', () => {
  const K443 = [
    { group: GW, kind: 'HTTPRoute' },
    { group: GW, kind: 'TLSRoute' },
  ];
  const LABEL_SEL = {
    from: 'Selector',
    selector: { matchLabels: { 'namespace.cozystack.io/gateway': 'tenant-root' } },
  };
  const nameSel = (values: string[]) => ({
    from: 'Selector',
    selector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values }] },
  });
  const spec = (certMode: string) => ({
    certMode,
    tlsPassthroughServices: ['api'],
    tlsPassthroughListeners: certMode === 'edge' ? [] : [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
    wildcardSecretRef: { name: 'wild' },
    dns01: { provider: 'cloudflare', cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'k' } } },
  });

  test.each(['http01', 'dns01', 'existingSecret', 'edge'])(
    '%s: "every listener there [443], HTTPS-terminate and tls-<svc> passthrough alike, carries the same allowedRoutes.kinds"; port 80 pins the name; native ports pin the tenant namespace and name no kinds',
    (certMode) => {
      const s = pass([tgw(spec(certMode)), ...baseNamespaces(), http('tenant-root', 'shop', ['shop.example.org'])]);
      const ls = listenersOf(s) as unknown as {
        name: string;
        port: number;
        protocol: string;
        allowedRoutes: { namespaces: unknown; kinds?: unknown };
      }[];
      expect(ls.length).toBeGreaterThan(2);
      for (const l of ls) {
        if (certMode === 'edge') {
          // "Under certMode: edge ... every listener carries the same broad selector"
          expect(l).toMatchObject({ port: 80, protocol: 'HTTP' });
          expect(l.allowedRoutes).toEqual({ namespaces: LABEL_SEL, kinds: [{ group: GW, kind: 'HTTPRoute' }] });
        } else if (l.port === 443) {
          expect(l.allowedRoutes).toEqual({ namespaces: LABEL_SEL, kinds: K443 });
        } else if (l.port === 80) {
          expect(l.name).toBe('http');
          expect(l.allowedRoutes).toEqual({ namespaces: nameSel(['tenant-root', 'cozy-cert-manager']) });
        } else {
          expect(l).toMatchObject({ name: 'tls-pg', port: 5432, protocol: 'TLS' });
          expect(l.allowedRoutes).toEqual({ namespaces: nameSel(['tenant-root']) });
        }
      }
    },
  );
});

describe('the upgrade that introduces the reservation (passthrough section, "One behaviour change")', () => {
  test('"On HTTP-01 that tenant sheds the terminate listeners for those names on upgrade, with the controller garbage-collecting the certificates that went with them" — the Secrets stay', () => {
    const before = pass([tgw({}), ...baseNamespaces(), http('tenant-root', 'kube', ['api.example.org'])]);
    const certName = perAppCertificateName('cozystack', 'api.example.org');
    expect(before.get('cert-manager.io', 'Certificate', 'tenant-root', certName)).toBeDefined();
    expect(listenersOf(before).map((l) => l.name)).toContain(perAppListenerName('api.example.org'));
    const issued: KObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: certName, namespace: 'tenant-root' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' },
    };
    const upgraded = before
      .all()
      .map((o) =>
        o.kind === 'TenantGateway' ? { ...o, spec: { ...(o.spec as object), tlsPassthroughServices: ['api'] } } : o,
      );
    const after = pass([...upgraded, issued], LATER);
    expect(listenersOf(after).map((l) => l.name)).toEqual(['http', 'tls-api']);
    expect(after.get('cert-manager.io', 'Certificate', 'tenant-root', certName)).toBeUndefined();
    expect(after.get('', 'Secret', 'tenant-root', certName)).toEqual(issued);
    expect(acceptedOf(after.get(GW, 'HTTPRoute', 'tenant-root', 'kube'))).toMatchObject({
      status: 'False',
      reason: 'NoMatchingListenerHostname',
      lastTransitionTime: LATER,
    });
  });

  test('"Every other tenant renders no passthrough listener from this value, so its own HTTPRoute on one of those names under its apex keeps its terminate listener"', () => {
    const s = pass([
      tgw({ apex: 'alice.example.org' }, { namespace: 'tenant-alice', uid: 'uid-alice' }),
      ns('tenant-alice', {
        'namespace.cozystack.io/gateway': 'tenant-alice',
        'namespace.cozystack.io/host': 'alice.example.org',
      }),
      http('tenant-alice', 'kube', ['api.alice.example.org'], [{ name: 'cozystack' }]),
    ]);
    expect(listenersOf(s, 'tenant-alice').map((l) => l.hostname)).toEqual([undefined, 'api.alice.example.org']);
  });
});

describe('entries on routes that stopped attaching (docs/behaviour.md §5.9: "one RouteParentStatus per claimant")', () => {
  const ref = { name: 'cozystack', namespace: 'tenant-root' };
  const stale = {
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
  };
  const cilium = { parentRef: ref, controllerName: 'io.cilium/gateway-controller', conditions: [] };

  test('a route whose parentRefs no longer name the Gateway, or whose namespace left the attach set, loses this controller’s entry and keeps the others', () => {
    const moved = route('HTTPRoute', 'tenant-root', 'moved', ['m.example.org'], [{ name: 'elsewhere' }], {
      parents: [stale, cilium],
    });
    const left = route('HTTPRoute', 'tenant-eve', 'left', ['e.example.org'], [ref], { parents: [stale, cilium] });
    const s = pass([tgw({}), ...baseNamespaces(), moved, left], LATER);
    for (const [n, name] of [
      ['tenant-root', 'moved'],
      ['tenant-eve', 'left'],
    ]) {
      expect((s.get(GW, 'HTTPRoute', n, name)!.status as { parents: unknown[] }).parents).toEqual([cilium]);
    }
    // and a second pass writes nothing
    const again = new Store(s.all());
    runTenantGatewayController(again, { now: LATER });
    expect(again.changes()).toEqual([]);
  });

  test('an entry of another TenantGateway’s Gateway is left alone, and a pass stopped by an error drops nothing', () => {
    const other = { ...stale, parentRef: { name: 'cozystack', namespace: 'tenant-alice' } };
    const r = route('HTTPRoute', 'tenant-eve', 'r', ['e.example.org'], [{ name: 'elsewhere' }], { parents: [other] });
    const s = pass([tgw({}), ...baseNamespaces(), r], LATER);
    expect(s.get(GW, 'HTTPRoute', 'tenant-eve', 'r')).toEqual(r);
    const r2 = route('HTTPRoute', 'tenant-eve', 'r2', ['e.example.org'], [{ name: 'elsewhere' }], { parents: [stale] });
    const broken = pass([tgw({ tlsPassthroughServices: ['api', 'api'] }), ...baseNamespaces(), r2], LATER);
    expect(broken.get(GW, 'HTTPRoute', 'tenant-eve', 'r2')).toEqual(r2);
  });
});
