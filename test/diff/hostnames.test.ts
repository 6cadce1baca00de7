/**
 * The hostname table (src/diff/hostnames.ts): read from the races the passes computed, worded
 * by the race module; a state no pass wrote read through the pass that started from it.
 */
import { reconcile } from '../../src/pipelines/reconcile';
import {
  classify,
  hostnameTable,
  type HostnameRow,
  type HostnameSide,
  type HostnameState,
} from '../../src/diff/hostnames';
import type { KObject } from '../../src/k8s/model';
import { baseNamespaces, http, NOW, tgw } from '../controller/tgwFixtures';

/** One pass over the objects: the input side (read through the pass) and the output side (its races). */
function passSides(objects: KObject[]): { before: HostnameSide; after: HostnameSide } {
  const r = reconcile({ objects }, { now: NOW });
  expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
  return { before: { objects, judgedBy: r.races }, after: { objects: r.store.all(), races: r.races } };
}

function row(rows: HostnameRow[], hostname: string, route: string): HostnameRow {
  const r = rows.find((x) => x.hostname === hostname && x.route === route);
  if (!r)
    throw new Error(`no row ${hostname} (${route}); rows: ${rows.map((x) => `${x.hostname} (${x.route})`).join(', ')}`);
  return r;
}

describe('hostnameTable', () => {
  const contested = () => [
    ...baseNamespaces(),
    tgw({ attachedNamespaces: ['cozy-dashboard'] }),
    http('cozy-dashboard', 'dash', ['dash.example.org']),
    http('tenant-root', 'status', ['status.example.org', 'dash.example.org']),
  ];

  it('reads who holds and who lost a hostname from the race, in the race module’s words', () => {
    const { before, after } = passSides(contested());
    const rows = hostnameTable(before, after);
    const lost = row(rows, 'dash.example.org', 'HTTPRoute tenant-root/status');
    expect(lost.after).toEqual({
      state: 'refused',
      reason: 'HostnameConflict',
      message:
        'hostname held by a route in another namespace: dash.example.org (held by HTTPRoute cozy-dashboard/dash)',
      gateway: 'tenant-root/cozystack',
    });
    // The route's other hostname is served, although its verdict is HostnameConflict.
    expect(row(rows, 'status.example.org', 'HTTPRoute tenant-root/status').after).toMatchObject({
      state: 'served',
      listener: expect.stringMatching(/^https-status-/),
      certificate: expect.stringMatching(/^Certificate tenant-root\/cozystack-status-/),
    });
    expect(row(rows, 'dash.example.org', 'HTTPRoute cozy-dashboard/dash').change).toBe('starts');
  });

  it('reads a state another pass wrote through the race of the pass over it, where the two agree', () => {
    const first = reconcile({ objects: contested() }, { now: NOW }).store.all();
    const { before, after } = passSides(first);
    const rows = hostnameTable(before, after);
    for (const r of rows)
      expect({ row: `${r.hostname} (${r.route})`, change: r.change }).toEqual({
        row: `${r.hostname} (${r.route})`,
        change: 'none',
      });
    expect(row(rows, 'status.example.org', 'HTTPRoute tenant-root/status').before.state).toBe('served');
  });

  it('a recorded verdict the pass would not write is read as recorded: refused whole, with its own reason and message', () => {
    const first = reconcile({ objects: contested() }, { now: NOW }).store.all();
    const stale = first.map((o) => {
      if (o.kind !== 'HTTPRoute' || o.metadata.name !== 'status') return o;
      const st = JSON.parse(JSON.stringify(o.status)) as { parents: { conditions: { message: string }[] }[] };
      st.parents[0].conditions[0].message = 'written by another version';
      return { ...o, status: st };
    });
    const { before } = passSides(stale);
    const rows = hostnameTable(before, { objects: [] });
    expect(row(rows, 'status.example.org', 'HTTPRoute tenant-root/status').before).toEqual({
      state: 'refused',
      reason: 'HostnameConflict',
      message: 'written by another version',
      gateway: 'tenant-root/cozystack',
    });
  });

  it('under DNS-01 a hostname is served to every route the wildcard admits, and the row says why', () => {
    const objects = [
      ...baseNamespaces(),
      tgw({
        attachedNamespaces: ['cozy-dashboard'],
        certMode: 'dns01',
        dns01: { provider: 'cloudflare', cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'api-token' } } },
      }),
      http('cozy-dashboard', 'dash', ['dash.example.org']),
      http('tenant-root', 'status', ['dash.example.org']),
    ];
    const { before, after } = passSides(objects);
    const rows = hostnameTable(before, after);
    expect(row(rows, 'dash.example.org', 'HTTPRoute tenant-root/status').after).toMatchObject({
      state: 'served',
      shared: 2,
      rule: 'DNS-01 serves a hostname to every route the wildcard listener admits (no race)',
    });
    expect(row(rows, 'dash.example.org', 'HTTPRoute cozy-dashboard/dash').after).toMatchObject({ shared: 2 });
  });

  it('a hostname that keeps only a plain-HTTP listener says it lost TLS', () => {
    const gw = (listeners: unknown[]): KObject => ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'cozystack', namespace: 'tenant-root' },
      spec: { listeners },
    });
    const all = { namespaces: { from: 'All' } };
    const https = {
      name: 'https',
      hostname: '*.example.org',
      port: 443,
      protocol: 'HTTPS',
      allowedRoutes: all,
      tls: { certificateRefs: [{ name: 'w' }] },
    };
    const plain = { name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: all };
    const r = http('tenant-root', 'web', ['web.example.org']);
    const rows = hostnameTable({ objects: [gw([https, plain]), r] }, { objects: [gw([plain]), r] });
    expect(rows[0]).toMatchObject({ change: 'moves', tls: 'lost', after: { state: 'served', listener: 'http' } });
  });

  it('a route without a verdict attaches where a listener admits its namespace (Gateway API), else says why not', () => {
    const gateway: KObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'cozystack', namespace: 'tenant-root' },
      spec: {
        listeners: [
          {
            name: 'https',
            hostname: '*.example.org',
            port: 443,
            protocol: 'HTTPS',
            tls: { mode: 'Terminate', certificateRefs: [{ name: 'w' }] },
            allowedRoutes: {
              namespaces: {
                from: 'Selector',
                selector: { matchLabels: { 'namespace.cozystack.io/gateway': 'tenant-root' } },
              },
            },
          },
        ],
      },
    };
    const nsOf = (gwLabel: string): KObject => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'tenant-a', labels: { 'namespace.cozystack.io/gateway': gwLabel } },
    });
    const r = http('tenant-a', 'web', ['web.example.org']);
    const rows = hostnameTable(
      { objects: [gateway, nsOf('tenant-root'), r] },
      { objects: [gateway, nsOf('tenant-a'), r] },
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].before).toMatchObject({ state: 'served', listener: 'https', certificate: 'Secret tenant-root/w' });
    expect(rows[0].after).toEqual({
      state: 'unattached',
      reason: 'not attached: Gateway tenant-root/cozystack takes no routes from namespace tenant-a',
    });
    expect(rows[0].change).toBe('stops');
  });
});

describe('classify: two states are the same when they read the same (as JSON)', () => {
  const served = (extra: Record<string, unknown> = {}): HostnameState =>
    ({ state: 'served', gateway: 'tenant-root/cozystack', listener: 'https', ...extra }) as HostnameState;

  it('ignores members set to undefined, and whom else the hostname is shared with (their rows say it)', () => {
    expect(classify(served({ certificate: undefined }), served())).toBe('none');
    expect(classify(served({ shared: 2, rule: 'r' }), served({ shared: 3000, rule: 'r' }))).toBe('none');
    expect(classify(served({ shared: 2, rule: 'r' }), served())).toBe('none');
    expect(classify(served({ certificate: 'Secret x/y' }), served())).toBe('moves');
  });

  it('tells apart the same members in another order, as their JSON does', () => {
    const reordered = { listener: 'https', gateway: 'tenant-root/cozystack', state: 'served' } as HostnameState;
    expect(classify(served(), reordered)).toBe('moves');
  });

  it('reads a list with a hole as JSON does (null), not as equal to any string', () => {
    const holed = new Array<string>(1);
    expect(classify(served({ extra: holed }), served({ extra: ['a'] }))).toBe('moves');
    expect(classify(served({ extra: holed }), served({ extra: new Array<string>(1) }))).toBe('none');
  });
});

describe('hostnameTable order', () => {
  it('lists rows by change, then hostname (a name before the longer names it begins), then route', () => {
    const objects = [
      ...baseNamespaces(),
      tgw({ attachedNamespaces: ['cozy-dashboard'] }),
      http('tenant-root', 'zeta', ['b.example.org', 'a.example.org.uk']),
      http('tenant-root', 'alpha', ['a.example.org.uk']),
      http('tenant-root', 'mid', ['a.example.org']),
    ];
    const side = { objects: reconcile({ objects }, { now: NOW }).store.all() };
    const rows = hostnameTable(side, side);
    expect(rows.map((r) => `${r.change} ${r.hostname} ${r.route}`)).toEqual([
      'none a.example.org HTTPRoute tenant-root/mid',
      'none a.example.org.uk HTTPRoute tenant-root/alpha',
      'none a.example.org.uk HTTPRoute tenant-root/zeta',
      'none b.example.org HTTPRoute tenant-root/zeta',
    ]);
  });
});
