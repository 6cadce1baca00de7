import { validatePublished } from '../../src/validation/publishedSchemas';
import { KINDS } from '../../src/validation/upstreamValidators.generated';
import type { KObject } from '../../src/k8s/model';

const gateway = (spec: Record<string, unknown>, name = 'gw'): KObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name, namespace: 'tenant-root' },
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

  // What the @kubernetes-models packages' own classes (`new Gateway(o).validate()`) report for these
  // objects, recorded with the packages the file was vendored from: the vendoring keeps their
  // behaviour (scripts/vendor-upstream-validators.js --check keeps the file what they compile to).
  it('reports what the @kubernetes-models packages report, on valid and invalid objects', () => {
    const objs: KObject[] = [
      gateway(
        { gatewayClassName: 'cilium', listeners: [{ name: 'h', port: 99999, protocol: 'HTTP' }] },
        'port-too-big',
      ),
      gateway({ gatewayClassName: 'cilium', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] }, 'valid'),
      gateway({ listeners: [] }, 'no-class'),
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'r', namespace: 'n' },
        spec: {
          parentRefs: [{ name: 'gw' }],
          hostnames: ['Not_A_Host'],
          rules: [{ backendRefs: [{ name: 's', port: 80 }] }],
        },
      },
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'ok', namespace: 'n' },
        spec: {
          parentRefs: [{ name: 'gw' }],
          hostnames: ['a.example.org'],
          rules: [{ backendRefs: [{ name: 's', port: 80 }] }],
        },
      },
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
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: 'i', namespace: 'n' },
        spec: {
          acme: {
            server: 'https://x',
            privateKeySecretRef: { name: 'k' },
            solvers: [{ http01: { gatewayHTTPRoute: { parentRefs: [{ name: 'gw' }] } } }],
          },
        },
      },
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: 'bad', namespace: 'n' },
        spec: { acme: { privateKeySecretRef: { name: 'k' } } },
      },
    ];
    const mine = validatePublished(objs)
      .filter((f) => f.severity === 'error')
      .map((f) => `${f.object!.name}:${f.field}`);
    expect([...new Set(mine)].sort()).toEqual([
      'bad:spec.acme.server',
      'd:spec.secretName',
      'no-class:spec.gatewayClassName',
      'no-class:spec.listeners',
      'port-too-big:spec.listeners[0].port',
      'r:spec.hostnames[0]',
    ]);
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
