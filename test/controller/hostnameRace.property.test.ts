/**
 * Properties of the hostname race over generated route sets (docs/decisions.md §11): no HostnameConflict
 * names as holder a route this pass withdrew from that hostname; every claim stands exactly once
 * on each of its hostnames; each message names a hostname once; and neither the verdicts nor the
 * per-hostname result depend on the order of the routes.
 *
 * fast-check prints the seed and path of a failure; replay it with FC_SEED=<seed> FC_PATH=<path>.
 */
import fc from 'fast-check';
import type { HostnameRace } from '../../src/controller/hostnameRace';
import type { KObject } from '../../src/k8s/model';
import { race, route } from './tgwFixtures';

const NAMESPACES = ['tenant-root', 'tenant-alice', 'tenant-zed', 'cozy-harbor', 'cozy-dashboard', 'default'];
const HOSTS = [
  'api.example.org',
  'vm-exportproxy.example.org',
  'app.example.org',
  'x.api.example.org',
  '*.example.org',
  '*.db.example.org',
  'pg.db.example.org',
  'pg.example.org',
  'gone.example.org',
  'Bad_Name.example.org',
];
const SECTIONS = [undefined, 'http', 'tls-api', 'tls-vm-exportproxy', 'tls-pg', 'tls-nope', 'https-whatever'];
const PORTS = [undefined, 80, 443, 5432, 8443];

const arbRef = fc
  .record({
    section: fc.constantFrom(...SECTIONS),
    port: fc.constantFrom(...PORTS),
    nsForm: fc.constantFrom('explicit', 'absent', 'empty'),
  })
  .map((r) => {
    const ref: Record<string, unknown> = { name: 'cozystack' };
    // Routes outside tenant-root must name the namespace to attach; the forms exercise the default.
    if (r.nsForm === 'explicit') ref.namespace = 'tenant-root';
    if (r.nsForm === 'empty') ref.namespace = '';
    if (r.section !== undefined) ref.sectionName = r.section;
    if (r.port !== undefined) ref.port = r.port;
    return ref;
  });

const arbRoute = fc.record({
  kind: fc.constantFrom('HTTPRoute' as const, 'TLSRoute' as const),
  namespace: fc.constantFrom(...NAMESPACES),
  name: fc.constantFrom('a', 'b', 'c'),
  hostnames: fc.uniqueArray(fc.constantFrom(...HOSTS), { minLength: 1, maxLength: 4 }),
  refs: fc.array(arbRef, { minLength: 1, maxLength: 2 }),
});

const arbSpec = fc
  .record({ services: fc.subarray(['api', 'vm-exportproxy']), native: fc.constantFrom('none', 'pg', 'db') })
  .map((r) => {
    const spec: Record<string, unknown> = { tlsPassthroughServices: r.services };
    if (r.native === 'pg') spec.tlsPassthroughListeners = [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }];
    if (r.native === 'db') spec.tlsPassthroughListeners = [{ name: 'pg', port: 5432, hostname: '*.db.example.org' }];
    return spec;
  });

const arbCase = fc.record({
  spec: arbSpec,
  routes: fc
    .uniqueArray(arbRoute, { maxLength: 10, selector: (r) => `${r.kind}/${r.namespace}/${r.name}` })
    .map((rs) => rs.map((r) => route(r.kind, r.namespace, r.name, r.hostnames, r.refs))),
});

const PARAMS = {
  numRuns: 400,
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
  ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
};

const idOf = (c: { kind: string; namespace: string; name: string; refIndex?: number }) =>
  `${c.kind} ${c.namespace}/${c.name}${c.refIndex === undefined ? '' : `#${c.refIndex}`}`;

/** The whole result as plain text keyed by identity, so two orders compare equal when they decide alike. */
function canonical(r: HostnameRace): unknown {
  const verdicts = r.verdicts
    .map((vd) => [idOf(vd.claimant), vd.accepted, vd.reason, vd.message])
    .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
  const hostnames = r.hostnames.map((o) => ({
    h: o.hostname,
    listener: o.listener,
    holders: o.holders.map(idOf),
    lost: o.lost.map((l) => `${idOf(l.claimant)}<${idOf(l.heldBy)}`),
    withdrawn: o.withdrawn.map((w) => `${idOf(w.claimant)}:${w.cause}:${w.detail}`),
    claimsNone: o.claimsNone.map((c) => `${idOf(c.claimant)}:${c.reason}`),
  }));
  return { verdicts, hostnames };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('hostname race properties', () => {
  test('no HostnameConflict names a withdrawn holder; one standing per claim and hostname; each hostname once per message', () => {
    fc.assert(
      fc.property(arbCase, ({ spec, routes }) => {
        const r = race(routes, spec);
        const outcomes = new Map(r.hostnames.map((o) => [o.hostname, o]));
        for (const vd of r.verdicts) {
          // Every hostname of every claim has exactly one standing.
          for (const h of vd.claimant.hostnames) {
            const o = outcomes.get(h)!;
            const places = [
              o.holders.filter((c) => c === vd.claimant),
              o.lost.filter((l) => l.claimant === vd.claimant),
              o.withdrawn.filter((w) => w.claimant === vd.claimant),
              o.claimsNone.filter((c) => c.claimant === vd.claimant),
            ];
            expect(places.reduce((n, p) => n + p.length, 0)).toBe(1);
          }
          // The holder a conflict names holds that hostname in this pass: it raced there, it was not withdrawn.
          for (const m of vd.message.matchAll(/(\S+) \(held by (HTTPRoute|TLSRoute) ([^/\s]+)\/([^)\s]+)\)/g)) {
            const [, h, kind, namespace, name] = m;
            expect(vd.reason).toBe('HostnameConflict');
            const o = outcomes.get(h)!;
            const holder = o.holders.find((c) => c.kind === kind && c.namespace === namespace && c.name === name);
            expect(holder).toBeDefined();
            expect(
              o.withdrawn.some((w) => w.claimant === holder) || o.claimsNone.some((c) => c.claimant === holder),
            ).toBe(false);
            expect(holder!.namespace).not.toBe(vd.claimant.namespace);
          }
          // HostnameConflict exactly when the claim lost somewhere.
          const lostSomewhere = vd.claimant.hostnames.some((h) =>
            outcomes.get(h)!.lost.some((l) => l.claimant === vd.claimant),
          );
          expect(vd.reason === 'HostnameConflict').toBe(lostSomewhere);
          // Each hostname is listed at most once among the message's items.
          for (const h of vd.claimant.hostnames) {
            const items = vd.message.match(new RegExp(`(?<=[:,] )${escape(h)}(?=[ ,;]|$)`, 'g')) ?? [];
            expect(items.length).toBeLessThanOrEqual(1);
          }
        }
        // Nobody loses to a claim that does not hold the name.
        for (const o of r.hostnames) for (const l of o.lost) expect(o.holders).toContain(l.heldBy);
      }),
      PARAMS,
    );
  });

  test('verdicts and the per-hostname result do not depend on the order of the routes', () => {
    fc.assert(
      fc.property(
        arbCase.chain(({ spec, routes }) =>
          fc.tuple(
            fc.constant(spec),
            fc.constant(routes),
            fc.shuffledSubarray(routes, { minLength: routes.length, maxLength: routes.length }),
          ),
        ),
        ([spec, routes, shuffled]: [Record<string, unknown>, KObject[], KObject[]]) => {
          expect(canonical(race(shuffled, spec))).toEqual(canonical(race(routes, spec)));
        },
      ),
      PARAMS,
    );
  });
});
