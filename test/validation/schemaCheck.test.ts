import { modelSpecifier, schemaCheck, type Loader } from '../helpers/schemaCheck';
import type { KObject } from '../../src/k8s/model';

const route: KObject = {
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'r', namespace: 'tenant-a' },
  spec: { hostnames: [7] },
};
const cert: KObject = {
  apiVersion: 'cert-manager.io/v1',
  kind: 'Certificate',
  metadata: { name: 'c', namespace: 'tenant-a' },
  spec: { secretName: 'c' },
};

/** A stand-in for a @kubernetes-models class: validate() throws like the models' ValidationError. */
function fakeModels(
  errorsFor: Record<
    string,
    { instancePath: string; message: string; keyword?: string; params?: Record<string, unknown> }[]
  >,
): { load: Loader; loaded: string[] } {
  const loaded: string[] = [];
  const load: Loader = async (spec) => {
    loaded.push(spec);
    const kind = spec.split('/').pop()!;
    class M {
      constructor(private readonly data: unknown) {}
      validate(): void {
        const errs = errorsFor[kind];
        if (errs?.length) throw Object.assign(new Error('invalid'), { errors: errs, data: this.data });
      }
    }
    return { [kind]: M };
  };
  return { load, loaded };
}

describe('schemaCheck', () => {
  it('maps objects to the model modules', () => {
    expect(modelSpecifier(route)).toBe('@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute');
    expect(modelSpecifier(cert)).toBe('@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate');
    expect(modelSpecifier({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } })).toBe(
      'kubernetes-models/v1/Secret',
    );
    expect(modelSpecifier({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' } })).toBe(
      'kubernetes-models/rbac.authorization.k8s.io/v1/Role',
    );
    expect(modelSpecifier({ apiVersion: 'cilium.io/v2', kind: 'CiliumNetworkPolicy', metadata: { name: 'p' } })).toBe(
      '@kubernetes-models/cilium/cilium.io/v2/CiliumNetworkPolicy',
    );
    expect(
      modelSpecifier({ apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name: 't' } }),
    ).toBeUndefined();
  });
  it('reports every schema error with its field path, loading each module once', async () => {
    const { load, loaded } = fakeModels({
      HTTPRoute: [{ instancePath: '/spec/hostnames/0', message: 'must be string', keyword: 'type' }],
      Certificate: [
        {
          instancePath: '/spec',
          message: "must have required property 'issuerRef'",
          keyword: 'required',
          params: { missingProperty: 'issuerRef' },
        },
      ],
    });
    const f = await schemaCheck([route, cert, { ...route, metadata: { name: 'r2', namespace: 'tenant-a' } }], load);
    expect(f.map((x) => `${x.object?.name} ${x.field}: ${x.message}`)).toEqual([
      'r spec.hostnames[0]: must be string',
      "c spec.issuerRef: must have required property 'issuerRef'",
      'r2 spec.hostnames[0]: must be string',
    ]);
    expect(loaded).toHaveLength(2);
  });
  it('checks TenantGateways against the CRD', async () => {
    const f = await schemaCheck(
      [
        {
          apiVersion: 'gateway.cozystack.io/v1alpha1',
          kind: 'TenantGateway',
          metadata: { name: 'cozystack', namespace: 'tenant-root' },
          spec: {},
        },
      ],
      fakeModels({}).load,
    );
    expect(f.map((x) => x.field)).toEqual(['spec.apex']);
  });
  it('warns once per missing package instead of failing', async () => {
    const load: Loader = async () => {
      throw Object.assign(new Error("Cannot find package '@kubernetes-models/gateway-api'"), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
    };
    const f = await schemaCheck([route, { ...route, kind: 'Gateway' }], load);
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('warning');
    expect(f[0].hint).toBe('npm install --save-dev @kubernetes-models/gateway-api');
  });
});
