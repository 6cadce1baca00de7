/**
 * Spec audit, properties of the gateway chart over generated platform values (docs/behaviour.md
 * §3.2, §3.4).
 */
import fc from 'fast-check';
import { renderGateway } from '../../src/charts/gatewayChart';
import { clusterValues, resolvePlatformValues } from '../../src/charts/platformValues';
import { inheritNamespace } from '../../src/charts/namespaceTemplate';
import { rootNamespaceValues } from '../../src/charts/cozystackBasics';
import type { TenantRelease } from '../../src/charts/tenantRelease';

const DEFAULT_SERVICES = ['api', 'vm-exportproxy', 'cdi-uploadproxy'];
const ALL = ['api', 'dashboard', 'vm-exportproxy', 'cdi-uploadproxy', 'harbor'];

const config = fc.record({
  enabled: fc.boolean(),
  publishing: fc.constantFrom('tenant-root', 'tenant-alice', ''),
  exposed: fc.shuffledSubarray(ALL),
  edgeDefault: fc.boolean(),
  edgeTenant: fc.boolean(),
  wildcard: fc.constantFrom('', 'corp-wildcard'),
  solver: fc.constantFrom('http01', 'dns01'),
  owner: fc.constantFrom('root', 'alice'),
});

describe('gateway chart properties', () => {
  it('tlsPassthroughServices: only on the publishing tenant, only while gateway.enabled, never under edge, the chart default filtered to exposedServices in chart order; certMode edge > existingSecret > solver', () => {
    fc.assert(
      fc.property(config, (k) => {
        const values = {
          gateway: {
            enabled: k.enabled,
            className: k.edgeDefault ? 'cf' : 'cilium',
            edgeTerminatedClasses: ['cf'],
            tenantSelectableClasses: ['cf', 'cilium'],
          },
          publishing: {
            ingressName: k.publishing,
            exposedServices: k.exposed,
            certificates: { solver: k.solver, wildcardSecretName: k.wildcard, dns01: { provider: 'cloudflare' } },
          },
        };
        const c = clusterValues(resolvePlatformValues({ files: [{ file: 'v', values }], objects: [] }).values).cluster;
        const T = k.owner === 'root' ? 'tenant-root' : 'tenant-alice';
        const publishing = T === (k.publishing || 'tenant-root');
        // The publishing tenant may not choose across the edge line (guard 5): it keeps the default.
        const chosen = publishing ? undefined : k.edgeTenant ? 'cf' : 'cilium';
        const ns =
          k.owner === 'root'
            ? rootNamespaceValues(c)
            : inheritNamespace(T, 'alice', { gateway: true }, rootNamespaceValues(c));
        const r: TenantRelease = {
          name: k.owner,
          namespace: T,
          parentNamespace: 'tenant-root',
          releaseName: 'tenant-x',
          spec: {},
          values: { _cluster: c, _namespace: ns },
          ownsGateway: true,
          gatewayClassName: chosen,
        };
        const g = renderGateway(r);
        expect(g.findings.filter((f) => f.severity === 'error')).toEqual([]);
        const spec = g.object!.spec as Record<string, unknown>;
        const cls = chosen ?? (k.edgeDefault ? 'cf' : 'cilium');
        const edge = cls === 'cf';
        expect(spec.certMode).toBe(edge ? 'edge' : k.wildcard ? 'existingSecret' : k.solver);
        const want = publishing && k.enabled && !edge ? DEFAULT_SERVICES.filter((s) => k.exposed.includes(s)) : [];
        expect(spec.tlsPassthroughServices ?? []).toEqual(want);
        // docs/decisions.md §3: attachedNamespaces on the publishing tenant's TenantGateway only.
        if (publishing) expect(spec.attachedNamespaces).toEqual(expect.arrayContaining(['cozy-system']));
        else expect(spec).not.toHaveProperty('attachedNamespaces');
      }),
      { numRuns: 300 },
    );
  });
});
