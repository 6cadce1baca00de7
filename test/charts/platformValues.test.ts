import { DEFAULT_ATTACHED_NAMESPACES } from '../helpers/referenceFacts';
import { clusterValues, resolvePlatformValues, splitList } from '../../src/charts/platformValues';
import { publishingNamespace } from '../../src/platform/tenancy';
import { findPlatformPackage } from '../../src/platform/kinds';
import type { KObject } from '../../src/k8s/model';

const pkg = (values: Record<string, unknown>, name = 'cozystack.cozystack-platform'): KObject => ({
  apiVersion: 'cozystack.io/v1alpha1',
  kind: 'Package',
  metadata: { name },
  spec: { components: { platform: { values } } },
});

function cluster(values: Record<string, unknown> = {}) {
  return clusterValues(resolvePlatformValues({ files: [{ file: 'v.yaml', values }], objects: [] }).values);
}

describe('platform values merge (docs/commands/render.md)', () => {
  it('no values at all means the chart defaults, and the channel is absent', () => {
    const r = resolvePlatformValues({ files: [], objects: [] });
    expect(r.given).toBe(false);
    expect(r.values).toMatchObject({
      publishing: { host: 'example.org', ingressName: 'tenant-root' },
      gateway: { enabled: false },
    });
  });

  it('merges --values left to right, later files winning', () => {
    const r = resolvePlatformValues({
      files: [
        { file: 'a', values: { publishing: { host: 'a.io' } } },
        { file: 'b', values: { publishing: { host: 'b.io' } } },
      ],
      objects: [],
    });
    expect(r.given).toBe(true);
    expect((r.values.publishing as Record<string, unknown>).host).toBe('b.io');
    expect((r.values.publishing as Record<string, unknown>).ingressName).toBe('tenant-root');
  });

  it('reads a Package and lets --values win where both set a key', () => {
    const p = pkg({ publishing: { host: 'pkg.io', ingressName: 'tenant-pub' } });
    const r = resolvePlatformValues({
      files: [{ file: 'v', values: { publishing: { host: 'cli.io' } } }],
      objects: [p],
    });
    expect(r.pkg).toBe(p);
    const pub = r.values.publishing as Record<string, unknown>;
    expect(pub.host).toBe('cli.io');
    expect(pub.ingressName).toBe('tenant-pub');
  });

  it('prefers the Package that carries a platform component', () => {
    const other: KObject = {
      apiVersion: 'cozystack.io/v1alpha1',
      kind: 'Package',
      metadata: { name: 'other' },
      spec: { components: {} },
    };
    const p = pkg({});
    expect(findPlatformPackage([other, p])).toBe(p);
  });

  it('null deletes a key, as helm does', () => {
    const r = resolvePlatformValues({
      files: [{ file: 'v', values: { gateway: { attachedNamespaces: null } } }],
      objects: [],
    });
    expect((r.values.gateway as Record<string, unknown>).attachedNamespaces).toBeUndefined();
  });
});

describe('_cluster keys (docs/behaviour.md §1)', () => {
  it('defaults', () => {
    const { cluster: c, findings } = cluster();
    expect(findings).toEqual([]);
    expect(c['root-host']).toBe('example.org');
    expect(c['bundle-name']).toBe('isp-full');
    expect(c.solver).toBe('http01');
    expect(c['issuer-name']).toBe('letsencrypt-prod');
    expect(c['gateway-enabled']).toBe('false');
    expect(c['gateway-class-name']).toBe('cilium');
    expect(c['gateway-attached-namespaces']).toBe(DEFAULT_ATTACHED_NAMESPACES.join(','));
    expect(c['expose-services']).toBe('api,dashboard,vm-exportproxy,cdi-uploadproxy');
    expect(c['expose-ingress']).toBe('tenant-root');
    expect(c['dns01-provider']).toBe('cloudflare');
    expect(c['dns01-rfc2136-tsig-algorithm']).toBe('HMACSHA256');
    expect(c['wildcard-issue']).toBe('false');
    expect(c['cpu-allocation-ratio']).toBe('10');
    expect(c['memory-allocation-ratio']).toBe('1');
    expect(c['ephemeral-storage-allocation-ratio']).toBe('40');
    // Every value a string but the scheduling map the chart copies whole (its default is not empty).
    expect(c.scheduling).toEqual({ globalAppTopologySpreadConstraints: '' });
    for (const [k, v] of Object.entries(c)) if (k !== 'scheduling') expect([k, typeof v]).toEqual([k, 'string']);
  });

  it("numbers are printed as quote prints them: Go's %v of a float64 (docs/decisions.md §16)", () => {
    const { cluster: c } = cluster({
      resources: {
        cpuAllocationRatio: 1000000,
        memoryAllocationRatio: 0.00001,
        ephemeralStorageAllocationRatio: 123456,
      },
    });
    expect([c['cpu-allocation-ratio'], c['memory-allocation-ratio'], c['ephemeral-storage-allocation-ratio']]).toEqual([
      '1e+06',
      '1e-05',
      '123456',
    ]);
  });

  it('an empty list gives "" and lists join with "," and no spaces', () => {
    const { cluster: c } = cluster({ publishing: { exposedServices: [], externalIPs: ['1.2.3.4', '5.6.7.8'] } });
    expect(c['expose-services']).toBe('');
    expect(c['expose-external-ips']).toBe('1.2.3.4,5.6.7.8');
  });

  it('an empty dns01 provider becomes cloudflare', () => {
    expect(cluster({ publishing: { certificates: { dns01: { provider: '' } } } }).cluster['dns01-provider']).toBe(
      'cloudflare',
    );
  });

  it('derives the wildcard only for dns01 + wildcard + gateway disabled + no secret name', () => {
    const on = cluster({ publishing: { certificates: { solver: 'dns01', wildcard: true } } }).cluster;
    expect(on['wildcard-secret-name']).toBe('cozystack-wildcard-tls');
    expect(on['wildcard-issue']).toBe('true');
    const gw = cluster({
      publishing: { certificates: { solver: 'dns01', wildcard: true } },
      gateway: { enabled: true },
    }).cluster;
    expect(gw['wildcard-secret-name']).toBe('');
    expect(gw['wildcard-issue']).toBe('false');
    const named = cluster({
      publishing: { certificates: { solver: 'dns01', wildcard: true, wildcardSecretName: 'mine' } },
    }).cluster;
    expect(named['wildcard-secret-name']).toBe('mine');
    expect(named['wildcard-issue']).toBe('false');
  });

  it('trims gateway.className; empty becomes cilium', () => {
    expect(cluster({ gateway: { className: '  envoy ' } }).cluster['gateway-class-name']).toBe('envoy');
    expect(cluster({ gateway: { className: '' } }).cluster['gateway-class-name']).toBe('cilium');
  });

  it('fails on a whitespace-only or non-string gateway.className', () => {
    expect(cluster({ gateway: { className: '   ' } }).findings).toEqual([
      expect.objectContaining({ severity: 'error', field: 'gateway.className', rule: 'platform.class-name' }),
    ]);
    expect(cluster({ gateway: { className: 7 } }).findings[0].message).toMatch(/must be a string/);
  });

  it('fails on class-list entries that are not strings or contain a comma', () => {
    const f = cluster({ gateway: { edgeTerminatedClasses: ['a,b'], tenantSelectableClasses: ['ok', 3] } }).findings;
    expect(f.map((x) => x.field)).toEqual(['gateway.edgeTerminatedClasses[0]', 'gateway.tenantSelectableClasses[1]']);
    expect(f[0].message).toMatch(/comma/);
  });

  it('expose-ingress empty means tenant-root; a value is read as given', () => {
    expect(publishingNamespace({ 'expose-ingress': '' })).toBe('tenant-root');
    expect(publishingNamespace({})).toBe('tenant-root');
    expect(publishingNamespace({ 'expose-ingress': 'tenant-pub' })).toBe('tenant-pub');
  });

  it('publishing.ingressName that is not a namespace name is an error naming the key, never trimmed', () => {
    for (const bad of ['tenant-root ', ' tenant-root', 'Tenant-Root', '   ', 'a.b', 'x'.repeat(64)]) {
      const r = cluster({ publishing: { ingressName: bad } });
      expect([bad, r.findings]).toEqual([
        bad,
        [
          expect.objectContaining({
            severity: 'error',
            field: 'publishing.ingressName',
            rule: 'platform.ingress-name',
          }),
        ],
      ]);
      expect([bad, r.cluster['expose-ingress']]).toEqual([bad, bad]);
    }
    for (const good of ['', 'tenant-root', 'tenant-pub', 'x'.repeat(63)])
      expect([good, cluster({ publishing: { ingressName: good } }).findings]).toEqual([good, []]);
  });

  it('splitList splits, trims and drops empties', () => {
    expect(splitList(' a, ,b ,')).toEqual(['a', 'b']);
    expect(splitList(undefined)).toEqual([]);
  });
});
