import {
  attachedRoutes,
  collectClaimants,
  passthroughListenersOf,
  reservingHostname,
  servedHostnames,
} from '../../src/controller/hostnameClaims';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import { Store } from '../../src/k8s/store';
import { http, route, tgw, tls } from './tgwFixtures';

const v = viewOf(
  tgw({
    tlsPassthroughServices: ['api'],
    tlsPassthroughListeners: [{ name: 'dbs', port: 5432, hostname: '*.db.example.org' }],
  }),
);
const pt = passthroughListenersOf(v);

describe('passthrough reservation', () => {
  test('services first then native entries; none under edge', () => {
    expect(pt.map((p) => [p.listenerName, p.hostname, p.port, p.native])).toEqual([
      ['tls-api', 'api.example.org', 443, false],
      ['tls-dbs', '*.db.example.org', 5432, true],
    ]);
    expect(passthroughListenersOf(viewOf(tgw({ certMode: 'edge', tlsPassthroughServices: ['api'] })))).toEqual([]);
  });
  test('a name beneath a wildcard entry is reserved; the smallest match is named', () => {
    expect(reservingHostname('pg.db.example.org', pt)).toBe('*.db.example.org');
    expect(reservingHostname('api.example.org', pt)).toBe('api.example.org');
    expect(reservingHostname('www.example.org', pt)).toBeUndefined();
  });
});

describe('claimants and earned hostnames', () => {
  const routes = [
    http('cozy-harbor', 'harbor', ['harbor.example.org', 'api.example.org', '*.example.org', 'pg.db.example.org']),
    http('tenant-root', 'plain', ['plain.example.org'], [{ name: 'cozystack', sectionName: 'http' }]),
    http('tenant-root', 'port80', ['port80.example.org'], [{ name: 'cozystack', port: 80 }]),
    http('tenant-root', 'port8443', ['p8443.example.org'], [{ name: 'cozystack', port: 8443 }]),
    http('tenant-root', 'port443', ['p443.example.org'], [{ name: 'cozystack', port: 443 }]),
    http('tenant-root', 'tlssec', ['tlssec.example.org'], [{ name: 'cozystack', sectionName: 'tls-api' }]),
    http('tenant-root', 'other', ['other.example.org'], [{ name: 'cozystack', sectionName: 'https-whatever' }]),
    tls('tenant-root', 'tlsonly', ['tlsonly.example.org']),
    http('tenant-root', 'nohosts', undefined),
    http('tenant-root', 'bad', ['Bad_Host.example.org']),
  ];
  const claimants = collectClaimants(routes, v);

  test('a route with no hostnames gets no claim; each matching parentRef is a claimant', () => {
    expect(claimants.map((c) => c.name)).not.toContain('nohosts');
    const twoRefs = collectClaimants(
      [
        http(
          'tenant-root',
          'two',
          ['a.example.org'],
          [{ name: 'cozystack' }, { name: 'cozystack', sectionName: 'http' }, { name: 'elsewhere' }],
        ),
      ],
      v,
    );
    expect(twoRefs.map((c) => c.refIndex)).toEqual([0, 1]);
  });

  test('only HTTPRoutes wanting termination earn, and never a wildcard, a reserved or an invalid name', () => {
    expect(servedHostnames(claimants, pt)).toEqual(['harbor.example.org', 'other.example.org', 'p443.example.org']);
  });

  test('GRPCRoutes and routes outside the attach set are not read', () => {
    const store = new Store([
      route('GRPCRoute', 'tenant-root', 'rpc', ['rpc.example.org']),
      http('tenant-eve', 'shop', ['shop.example.org']),
      http('tenant-root', 'shop', ['shop.example.org']),
    ]);
    expect(
      attachedRoutes(store, v, ['tenant-root']).map((r) => `${r.kind}/${r.metadata.namespace}/${r.metadata.name}`),
    ).toEqual(['HTTPRoute/tenant-root/shop']);
  });

  test('the controller redirect route is not judged', () => {
    const store = new Store([
      http('tenant-root', 'cozystack-http-redirect', ['example.org'], [{ name: 'cozystack', sectionName: 'http' }]),
    ]);
    expect(attachedRoutes(store, v, ['tenant-root'])).toEqual([]);
  });
});
