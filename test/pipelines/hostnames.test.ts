import type { KObject } from '../../src/k8s/model';
import { hostnameTable } from '../../src/pipelines/hostnames';

describe('hostnameTable', () => {
  const route = (ns: string, name: string, hostnames: string[], status?: unknown): KObject => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, namespace: ns },
    spec: { parentRefs: [{ name: 'cozystack', namespace: 'tenant-root' }], hostnames },
    ...(status ? { status } : {}),
  });
  const verdict = (accepted: boolean, reason: string, message: string) => ({
    parents: [
      {
        parentRef: { name: 'cozystack', namespace: 'tenant-root' },
        controllerName: 'gateway.cozystack.io/tenantgateway-controller',
        conditions: [{ type: 'Accepted', status: accepted ? 'True' : 'False', reason, message }],
      },
    ],
  });
  const gateway = (listeners: unknown[]): KObject => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'cozystack', namespace: 'tenant-root' },
    spec: { listeners },
  });
  const https = (name: string, hostname: string, secret: string) => ({
    name,
    hostname,
    port: 443,
    protocol: 'HTTPS',
    tls: { mode: 'Terminate', certificateRefs: [{ name: secret }] },
  });
  const cert = (name: string, secretName: string): KObject => ({
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name, namespace: 'tenant-root' },
    spec: { secretName },
  });

  it('says which hostnames stop, start and move, and a refusal names only the hostnames its message names', () => {
    const before = [
      gateway([https('https-a', 'a.example.org', 'a-tls'), https('https-b', 'b.example.org', 'b-tls')]),
      cert('a-cert', 'a-tls'),
      route('tenant-root', 'r', ['a.example.org', 'b.example.org'], verdict(true, 'Accepted', 'Route attached')),
    ];
    const after = [
      gateway([https('https', '*.example.org', 'wild-tls'), https('https-b', 'b.example.org', 'b-tls')]),
      cert('wild', 'wild-tls'),
      route(
        'tenant-root',
        'r',
        ['a.example.org', 'b.example.org'],
        verdict(
          false,
          'HostnameConflict',
          'On TenantGateway tenant-root/cozystack: hostname held by a route in another namespace: b.example.org (held by HTTPRoute x/y)',
        ),
      ),
    ];
    const rows = hostnameTable(before, after);
    const a = rows.find((r) => r.hostname === 'a.example.org')!;
    const b = rows.find((r) => r.hostname === 'b.example.org')!;
    expect(a.change).toBe('moves');
    expect(a.before).toEqual({
      state: 'served',
      gateway: 'tenant-root/cozystack',
      listener: 'https-a',
      certificate: 'Certificate tenant-root/a-cert',
    });
    expect(a.after).toEqual({
      state: 'served',
      gateway: 'tenant-root/cozystack',
      listener: 'https',
      certificate: 'Certificate tenant-root/wild',
    });
    expect(b.change).toBe('stops');
    expect(b.after).toMatchObject({
      state: 'refused',
      reason: 'HostnameConflict',
      message: 'hostname held by a route in another namespace: b.example.org (held by HTTPRoute x/y)',
    });
    expect(rows.map((r) => r.change)).toEqual(['stops', 'moves']);
  });

  it('a route without a verdict attaches where a listener admits its namespace (Gateway API), else says why not', () => {
    const listener = {
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
    };
    const nsIn: KObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'tenant-a', labels: { 'namespace.cozystack.io/gateway': 'tenant-root' } },
    };
    const nsOut: KObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'tenant-a', labels: { 'namespace.cozystack.io/gateway': 'tenant-a' } },
    };
    const r = route('tenant-a', 'web', ['web.example.org']);
    const rows = hostnameTable([gateway([listener]), nsIn, r], [gateway([listener]), nsOut, r]);
    expect(rows).toHaveLength(1);
    expect(rows[0].before).toMatchObject({ state: 'served', listener: 'https', certificate: 'Secret tenant-root/w' });
    expect(rows[0].after).toEqual({
      state: 'unattached',
      reason: 'not attached: Gateway tenant-root/cozystack takes no routes from namespace tenant-a',
    });
    expect(rows[0].change).toBe('stops');
  });

  it('a listener admits the route kinds its protocol takes: a TCP listener no HTTPRoute, a TLS one no HTTPRoute', () => {
    const listener = (name: string, protocol: string, port: number) => ({
      name,
      hostname: '*.example.org',
      port,
      protocol,
      allowedRoutes: { namespaces: { from: 'All' } },
    });
    const r = route('tenant-a', 'web', ['web.example.org']);
    const served = (listeners: unknown[]) => hostnameTable([], [gateway(listeners), r])[0].after;
    expect(served([listener('tcp', 'TCP', 8443)])).toMatchObject({ state: 'unattached' });
    expect(served([listener('tls', 'TLS', 8443)])).toMatchObject({ state: 'unattached' });
    expect(served([listener('tcp', 'TCP', 8443), listener('http', 'HTTP', 80)])).toMatchObject({
      state: 'served',
      listener: 'http',
    });
    // allowedRoutes.kinds given empty is unset: the protocol decides.
    const empty = { ...listener('http', 'HTTP', 80), allowedRoutes: { namespaces: { from: 'All' }, kinds: [] } };
    expect(served([empty])).toMatchObject({ state: 'served', listener: 'http' });
  });
});
