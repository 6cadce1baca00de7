/**
 * Who races for a hostname (docs/decisions.md §11; docs/behaviour.md §5.8 "Who races", §5.9): one row per
 * shape, each asserting every claim's reason and exact message, and the per-hostname result.
 */
import { collectClaimants } from '../../src/controller/hostnameClaims';
import { compareClaims, compareRaceRank, type HostnameOutcome } from '../../src/controller/hostnameRace';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import type { KObject } from '../../src/k8s/model';
import { http, judge, race, tgw, tls } from './tgwFixtures';

const ON = 'On TenantGateway tenant-root/cozystack: ';
const ACCEPTED = ['Accepted', 'Route attached to TenantGateway tenant-root/cozystack'];
const CONFLICT = 'hostname held by a route in another namespace';
const RESERVED =
  'answered only by a TLS-passthrough listener, which an HTTPRoute does not attach to, and no terminate listener is rendered beside it';
const WILDCARD = 'HTTP-01 issues no wildcard certificate, so no terminate listener can carry the wildcard';
const TLS_ONLY = 'no listener renders it (a hostname only a TLSRoute claims earns no listener)';
const PORT = 'no listener answering it is published on the parentRef port';
const SECTION = 'the listener named by sectionName answers another hostname';
const NATIVE = 'the native-port listener answering it admits routes from the TenantGateway namespace only';

const API = { tlsPassthroughServices: ['api', 'vm-exportproxy'] };
const PG = {
  tlsPassthroughServices: ['api'],
  tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
};
const tlsApi = [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-api' }];

interface Row {
  shape: string;
  spec: Record<string, unknown>;
  routes: KObject[];
  /** `<namespace>/<name>#<parentRef index>` → [reason, message]. */
  want: Record<string, string[]>;
  /** hostname → holders / lost (`who<holder`) / withdrawn (`who:cause`), as `<namespace>/<name>`. */
  hostnames?: Record<string, { holders?: string[]; lost?: string[]; withdrawn?: string[] }>;
}

const ROWS: Row[] = [
  {
    shape:
      'withdrawn on a reserved name: a cozy-* HTTPRoute on api.<apex> takes nothing from a tenant route that also claims a free name',
    spec: API,
    routes: [
      http('cozy-dashboard', 'api', ['api.example.org']),
      http('tenant-root', 'web', ['api.example.org', 'app.example.org']),
    ],
    want: {
      'cozy-dashboard/api#0': [
        'NoMatchingListenerHostname',
        `${ON}${RESERVED}: api.example.org (answered by api.example.org)`,
      ],
      'tenant-root/web#0': ACCEPTED,
    },
    hostnames: {
      'api.example.org': {
        holders: [],
        lost: [],
        withdrawn: ['cozy-dashboard/api:reserved', 'tenant-root/web:reserved'],
      },
      'app.example.org': { holders: ['tenant-root/web'] },
    },
  },
  {
    shape:
      'TLSRoute recount across namespaces: with the cozy-* HTTPRoute withdrawn, default wins and tenant-alice loses to it',
    spec: API,
    routes: [
      http('cozy-dashboard', 'web', ['api.example.org']),
      tls('default', 'kubernetes-api', ['api.example.org'], tlsApi),
      tls('tenant-alice', 'shadow', ['api.example.org'], tlsApi),
    ],
    want: {
      'cozy-dashboard/web#0': [
        'NoMatchingListenerHostname',
        `${ON}${RESERVED}: api.example.org (answered by api.example.org)`,
      ],
      'default/kubernetes-api#0': ACCEPTED,
      'tenant-alice/shadow#0': [
        'HostnameConflict',
        `${ON}${CONFLICT}: api.example.org (held by TLSRoute default/kubernetes-api)`,
      ],
    },
    hostnames: {
      'api.example.org': {
        holders: ['default/kubernetes-api'],
        lost: ['tenant-alice/shadow<default/kubernetes-api'],
        withdrawn: ['cozy-dashboard/web:reserved'],
      },
    },
  },
  {
    shape:
      'TLSRoute recount: better-ranked TLSRoutes that cannot attach (off-port, another section) are withdrawn, not winners',
    spec: API,
    routes: [
      tls('cozy-harbor', 'offport', ['api.example.org'], [{ name: 'cozystack', namespace: 'tenant-root', port: 8443 }]),
      tls(
        'cozy-harbor',
        'othersection',
        ['api.example.org'],
        [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-vm-exportproxy' }],
      ),
      tls('default', 'kubernetes-api', ['api.example.org'], tlsApi),
    ],
    want: {
      'cozy-harbor/offport#0': [
        'NoMatchingListenerHostname',
        `${ON}${PORT}: api.example.org (port 8443; answered on port 443)`,
      ],
      'cozy-harbor/othersection#0': [
        'NoMatchingListenerHostname',
        `${ON}${SECTION}: api.example.org (sectionName tls-vm-exportproxy answers vm-exportproxy.example.org)`,
      ],
      'default/kubernetes-api#0': ACCEPTED,
    },
    hostnames: {
      'api.example.org': {
        holders: ['default/kubernetes-api'],
        lost: [],
        withdrawn: ['cozy-harbor/offport:port', 'cozy-harbor/othersection:section'],
      },
    },
  },
  {
    shape:
      'TLSRoute recount within a namespace: two eligible TLSRoutes of one namespace both hold; another namespace still loses',
    spec: API,
    routes: [
      tls('tenant-root', 'a', ['api.example.org'], tlsApi),
      tls('tenant-root', 'b', ['api.example.org']),
      tls('tenant-zed', 'c', ['api.example.org']),
    ],
    want: {
      'tenant-root/a#0': ACCEPTED,
      'tenant-root/b#0': ACCEPTED,
      'tenant-zed/c#0': ['HostnameConflict', `${ON}${CONFLICT}: api.example.org (held by TLSRoute tenant-root/a)`],
    },
    hostnames: {
      'api.example.org': { holders: ['tenant-root/a', 'tenant-root/b'], lost: ['tenant-zed/c<tenant-root/a'] },
    },
  },
  {
    shape:
      'the unanswered name: TLSRoutes from two namespaces on a name no listener answers race nobody and name it once',
    spec: { tlsPassthroughServices: [] },
    routes: [tls('cozy-harbor', 'aaa', ['gone.example.org']), tls('tenant-root', 'zzz', ['gone.example.org'])],
    want: {
      'cozy-harbor/aaa#0': ['NoMatchingListenerHostname', `${ON}${TLS_ONLY}: gone.example.org`],
      'tenant-root/zzz#0': ['NoMatchingListenerHostname', `${ON}${TLS_ONLY}: gone.example.org`],
    },
    hostnames: {
      'gone.example.org': { holders: [], lost: [], withdrawn: ['cozy-harbor/aaa:tlsOnly', 'tenant-root/zzz:tlsOnly'] },
    },
  },
  {
    shape:
      'the HTTP-01 wildcard: terminate-seeking claims are withdrawn; the plain-HTTP claim on it races nobody and is served',
    spec: {},
    routes: [
      http('cozy-harbor', 'wild', ['*.example.org']),
      http('tenant-root', 'wild', ['*.example.org']),
      http('tenant-root', 'plain', ['*.example.org'], [{ name: 'cozystack', sectionName: 'http' }]),
    ],
    want: {
      'cozy-harbor/wild#0': ['NoMatchingListenerHostname', `${ON}${WILDCARD}: *.example.org`],
      'tenant-root/wild#0': ['NoMatchingListenerHostname', `${ON}${WILDCARD}: *.example.org`],
      'tenant-root/plain#0': ACCEPTED,
    },
    hostnames: {
      '*.example.org': { holders: [], lost: [], withdrawn: ['cozy-harbor/wild:wildcard', 'tenant-root/wild:wildcard'] },
    },
  },
  {
    shape:
      'the off-port pin: a cozy-* HTTPRoute pinned to 8443 is withdrawn, so the tenant route on 443 holds the name',
    spec: {},
    routes: [
      http('cozy-harbor', 'pinned', ['x.example.org'], [{ name: 'cozystack', namespace: 'tenant-root', port: 8443 }]),
      http('tenant-root', 'x', ['x.example.org']),
    ],
    want: {
      'cozy-harbor/pinned#0': [
        'NoMatchingListenerHostname',
        `${ON}${PORT}: x.example.org (port 8443; terminate listeners are published on 443 only)`,
      ],
      'tenant-root/x#0': ACCEPTED,
    },
    hostnames: { 'x.example.org': { holders: ['tenant-root/x'], lost: [], withdrawn: ['cozy-harbor/pinned:port'] } },
  },
  {
    shape:
      'the native-port refusal: TLSRoutes from outside the TenantGateway namespace are turned away, and take nothing from its own',
    spec: PG,
    routes: [
      tls(
        'cozy-harbor',
        'pg',
        ['pg.example.org'],
        [{ name: 'cozystack', namespace: 'tenant-root', sectionName: 'tls-pg' }],
      ),
      tls('tenant-alice', 'pg', ['pg.example.org'], [{ name: 'cozystack', namespace: 'tenant-root' }]),
      tls('tenant-root', 'pg', ['pg.example.org'], [{ name: 'cozystack', sectionName: 'tls-pg' }]),
    ],
    want: {
      'cozy-harbor/pg#0': [
        'NotAllowedByListeners',
        `${ON}${NATIVE}: pg.example.org (listener tls-pg admits tenant-root)`,
      ],
      'tenant-alice/pg#0': [
        'NotAllowedByListeners',
        `${ON}${NATIVE}: pg.example.org (listener tls-pg admits tenant-root)`,
      ],
      'tenant-root/pg#0': ACCEPTED,
    },
    hostnames: {
      'pg.example.org': {
        holders: ['tenant-root/pg'],
        lost: [],
        withdrawn: ['cozy-harbor/pg:native', 'tenant-alice/pg:native'],
      },
    },
  },
  {
    shape: 'withdrawn on one name and losing on another: HostnameConflict, every cause, each hostname once, sorted',
    spec: API,
    routes: [
      http('cozy-dashboard', 'portal', ['portal.example.org']),
      http('tenant-root', 'mixed', ['portal.example.org', 'api.example.org', '*.example.org', 'zz.example.org']),
    ],
    want: {
      'cozy-dashboard/portal#0': ACCEPTED,
      'tenant-root/mixed#0': [
        'HostnameConflict',
        `${ON}${CONFLICT}: portal.example.org (held by HTTPRoute cozy-dashboard/portal); ${RESERVED}: api.example.org (answered by api.example.org); ${WILDCARD}: *.example.org`,
      ],
    },
    hostnames: {
      'portal.example.org': { holders: ['cozy-dashboard/portal'], lost: ['tenant-root/mixed<cozy-dashboard/portal'] },
      'api.example.org': { holders: [], withdrawn: ['tenant-root/mixed:reserved'] },
      'zz.example.org': { holders: ['tenant-root/mixed'] },
    },
  },
  {
    shape:
      'native-withdrawn on one name and racing on another: the other name is raced (docs/decisions.md §11), and losing it is HostnameConflict',
    spec: PG,
    routes: [
      tls('tenant-alice', 'both', ['pg.example.org', 'api.example.org']),
      tls('cozy-system', 'k', ['api.example.org']),
    ],
    want: {
      'cozy-system/k#0': ACCEPTED,
      'tenant-alice/both#0': [
        'HostnameConflict',
        `${ON}${CONFLICT}: api.example.org (held by TLSRoute cozy-system/k); ${NATIVE}: pg.example.org (listener tls-pg admits tenant-root)`,
      ],
    },
    hostnames: {
      'api.example.org': { holders: ['cozy-system/k'], lost: ['tenant-alice/both<cozy-system/k'] },
      'pg.example.org': { holders: [], withdrawn: ['tenant-alice/both:native'] },
    },
  },
  {
    shape:
      'native-withdrawn on one name and holding the other: the refusal alone is NotAllowedByListeners; the held name is served',
    spec: PG,
    routes: [
      tls('tenant-alice', 'both', ['pg.example.org', 'api.example.org']),
      tls('tenant-zed', 'k', ['api.example.org']),
    ],
    want: {
      'tenant-alice/both#0': [
        'NotAllowedByListeners',
        `${ON}${NATIVE}: pg.example.org (listener tls-pg admits tenant-root)`,
      ],
      'tenant-zed/k#0': ['HostnameConflict', `${ON}${CONFLICT}: api.example.org (held by TLSRoute tenant-alice/both)`],
    },
  },
];

const who = (c: { namespace: string; name: string }) => `${c.namespace}/${c.name}`;

describe('who races (docs/decisions.md §11, docs/behaviour.md §5.8)', () => {
  test.each(ROWS.map((r) => [r.shape, r] as const))('%s', (_shape, row) => {
    const m = judge(row.routes, row.spec);
    const got = Object.fromEntries([...m].map(([k, vd]) => [k, [vd.reason, vd.message]]));
    expect(got).toEqual(row.want);
    // Accepted=True exactly when the reason is Accepted.
    for (const vd of m.values()) expect(vd.accepted).toBe(vd.reason === 'Accepted');
    const outcomes = new Map(race(row.routes, row.spec).hostnames.map((o) => [o.hostname, o]));
    for (const [h, want] of Object.entries(row.hostnames ?? {})) {
      const o = outcomes.get(h)!;
      expect(o).toBeDefined();
      if (want.holders) expect(o.holders.map(who)).toEqual(want.holders);
      if (want.lost) expect(o.lost.map((l) => `${who(l.claimant)}<${who(l.heldBy)}`)).toEqual(want.lost);
      if (want.withdrawn) expect(o.withdrawn.map((w) => `${who(w.claimant)}:${w.cause}`)).toEqual(want.withdrawn);
    }
  });
});

describe('the race result', () => {
  test('every claimed hostname once, sorted, with whether it earns a listener; every claim on it in exactly one list', () => {
    const routes = [
      http('cozy-dashboard', 'portal', ['portal.example.org']),
      http('tenant-root', 'mixed', ['portal.example.org', 'api.example.org', '*.example.org']),
      http('tenant-root', 'plain', ['plain.example.org'], [{ name: 'cozystack', sectionName: 'http' }]),
      tls('default', 'kubernetes-api', ['api.example.org'], tlsApi),
    ];
    const r = race(routes, API);
    expect(r.tenantGateway).toBe('tenant-root/cozystack');
    expect(r.hostnames.map((o) => [o.hostname, o.listener, o.passthrough])).toEqual([
      ['*.example.org', false, 'tls-api'],
      ['api.example.org', false, 'tls-api'],
      ['plain.example.org', false, undefined],
      ['portal.example.org', true, undefined],
    ]);
    const plain = r.hostnames.find((o) => o.hostname === 'plain.example.org')!;
    expect(plain.claimsNone.map((c) => [who(c.claimant), c.reason])).toEqual([['tenant-root/plain', 'Accepted']]);
    const count = (o: HostnameOutcome) => o.holders.length + o.lost.length + o.withdrawn.length + o.claimsNone.length;
    expect(r.hostnames.map(count)).toEqual([1, 2, 1, 2]);
    expect(r.verdicts.map((vd) => who(vd.claimant))).toEqual([
      'cozy-dashboard/portal',
      'tenant-root/mixed',
      'tenant-root/plain',
      'default/kubernetes-api',
    ]);
  });

  test('an HTTPRoute and a TLSRoute sharing a namespace and name: the holder named is the same whatever the input order', () => {
    const routes = [
      tls('cozy-a', 'same', ['x.example.org']),
      http('cozy-a', 'same', ['x.example.org']),
      tls('tenant-root', 'l', ['x.example.org']),
    ];
    for (const order of [routes, [...routes].reverse()]) {
      const loser = race(order).verdicts.find((vd) => vd.claimant.name === 'l')!;
      expect(loser.message).toBe(`${ON}${CONFLICT}: x.example.org (held by HTTPRoute cozy-a/same)`);
    }
  });

  test('ranking: cozy-* first, then namespace, then name; then kind and parentRef index', () => {
    const r = (namespace: string, name: string) => ({ namespace, name });
    const sorted = [
      r('tenant-a', 'x'),
      r('cozy-harbor', 'b'),
      r('cozy-dashboard', 'z'),
      r('cozy-harbor', 'a'),
      r('default', 'a'),
    ].sort(compareRaceRank);
    expect(sorted.map(who)).toEqual(['cozy-dashboard/z', 'cozy-harbor/a', 'cozy-harbor/b', 'default/a', 'tenant-a/x']);
    const v = viewOf(tgw({}));
    const cs = collectClaimants(
      [
        tls(
          't',
          'n',
          ['a.example.org'],
          [
            { name: 'cozystack', namespace: 'tenant-root' },
            { name: 'cozystack', namespace: 'tenant-root', port: 443 },
          ],
        ),
        http('t', 'n', ['a.example.org'], [{ name: 'cozystack', namespace: 'tenant-root' }]),
      ],
      v,
    );
    expect([...cs].sort(compareClaims).map((c) => `${c.kind}#${c.refIndex}`)).toEqual([
      'HTTPRoute#0',
      'TLSRoute#0',
      'TLSRoute#1',
    ]);
  });
});
