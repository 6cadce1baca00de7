import { validatePublished } from '../../src/validation/publishedSchemas';
import { KINDS } from '../../src/validation/upstreamValidators.generated';
import { schemaCheck } from '../helpers/schemaCheck';
import type { KObject } from '../../src/k8s/model';

const gateway = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name: 'gw', namespace: 'tenant-root' },
  spec,
});

describe('published schemas (vendored, compiled)', () => {
  it('vendors the Gateway API and cert-manager kinds the tool emits', () => {
    for (const k of [
      'gateway.networking.k8s.io/v1/Gateway',
      'gateway.networking.k8s.io/v1/HTTPRoute',
      'gateway.networking.k8s.io/v1/GRPCRoute',
      'cert-manager.io/v1/Certificate',
      'cert-manager.io/v1/Issuer',
      'cert-manager.io/v1/ClusterIssuer',
    ]) {
      expect(KINDS[k]).toBeDefined();
    }
  });

  it('a valid Gateway passes; an invalid one names the object and the field', () => {
    expect(
      validatePublished([
        gateway({ gatewayClassName: 'cilium', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] }),
      ]),
    ).toEqual([]);
    const f = validatePublished([
      gateway({ gatewayClassName: 'cilium', listeners: [{ name: 'http', port: 'eighty', protocol: 'HTTP' }] }),
    ]);
    expect(f.length).toBeGreaterThan(0);
    expect(f[0]).toMatchObject({
      severity: 'error',
      object: { kind: 'Gateway', namespace: 'tenant-root', name: 'gw' },
      field: 'spec.listeners[0].port',
    });
    const missing = validatePublished([gateway({ listeners: [] })]);
    expect(missing).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'spec.gatewayClassName', message: 'Required value' })]),
    );
  });

  it('agrees with the test suite check (the @kubernetes-models packages) on valid and invalid objects', async () => {
    const objs: KObject[] = [
      gateway({ gatewayClassName: 'cilium', listeners: [{ name: 'h', port: 99999, protocol: 'HTTP' }] }),
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: 'c', namespace: 'n' },
        spec: { secretName: 's', issuerRef: { name: 'i' }, dnsNames: ['a.example.org'] },
      },
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: 'd', namespace: 'n' },
        spec: { issuerRef: { name: 'i' } },
      },
    ];
    const mine = validatePublished(objs)
      .filter((f) => f.severity === 'error')
      .map((f) => `${f.object!.name}:${f.field}`);
    const theirs = (await schemaCheck(objs))
      .filter((f) => f.severity === 'error')
      .map((f) => `${f.object!.name}:${f.field}`);
    expect([...new Set(mine)].sort()).toEqual([...new Set(theirs)].sort());
    expect(mine.length).toBeGreaterThan(0);
  });

  it('an unvendored version is a warning, not a silent pass; TenantGateways use our CRD', () => {
    const f = validatePublished([
      { apiVersion: 'gateway.networking.k8s.io/v9', kind: 'Gateway', metadata: { name: 'x' } },
    ]);
    expect(f).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: 'no published schema for gateway.networking.k8s.io/v9 Gateway is vendored; not checked',
      }),
    ]);
    const t = validatePublished([
      {
        apiVersion: 'gateway.cozystack.io/v1alpha1',
        kind: 'TenantGateway',
        metadata: { name: 'cozystack', namespace: 'tenant-x' },
        spec: { apex: 'x.org', certMode: 'http03' },
      },
    ]);
    expect(t.some((x) => x.severity === 'error' && x.field === 'spec.certMode')).toBe(true);
  });
});
