import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { clusterValues, resolvePlatformValues } from '../../src/charts/platformValues';
import { type ClusterMap } from '../../src/platform/tenancy';
import { tenantInputFindings, renderTenantTree } from '../../src/charts/tenantChart';
import {
  deriveHost,
  helmToYaml,
  inheritNamespace,
  namespaceLabels,
  valuesYaml,
} from '../../src/charts/namespaceTemplate';
import { renderTenantRoot, rootNamespaceValues } from '../../src/charts/cozystackBasics';
import { releaseNameError, releaseNamespaceError } from '../../src/charts/tenantNames';
import { prefixes as prefixLabels } from '../../src/charts/ancestorChains';
import { tenantNamespace } from '../../src/platform/tenancy';
import type { KObject } from '../../src/k8s/model';

function cluster(values: Record<string, unknown> = {}): ClusterMap {
  return clusterValues(resolvePlatformValues({ files: [{ file: 'v', values }], objects: [] }).values).cluster;
}
const enabled = () => cluster({ gateway: { enabled: true } });

const tenant = (name: string, namespace: string, spec: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace },
  spec,
});

const find = (objs: KObject[], kind: string, ns: string | undefined, name: string) =>
  objs.find((o) => o.kind === kind && o.metadata.name === name && (ns === undefined || o.metadata.namespace === ns));

function nsValues(objs: KObject[], ns: string): Record<string, Record<string, string>> {
  const s = find(objs, 'Secret', ns, 'cozystack-values') as KObject;
  return jsyaml.load((s.stringData as Record<string, string>)['values.yaml']) as Record<string, Record<string, string>>;
}

describe('§2.1 naming', () => {
  it('release-name rule: the Tenant name must contain no dash', () => {
    expect(releaseNameError('alice')).toBeUndefined();
    expect(releaseNameError('a-b')).toMatch(/must start with "tenant-" and contain no other dashes/);
    // An empty name passes the chart's check (`tenant-` splits into two parts); Q13 rejects it apart.
    expect(releaseNameError('')).toBeUndefined();
  });
  it('release namespace must start with tenant-', () => {
    expect(releaseNamespaceError('tenant-root')).toBeUndefined();
    expect(releaseNamespaceError('default')).toMatch(/starts with "tenant-"/);
  });
  it('tenant namespace: tenant-X under tenant-root, P-X deeper down', () => {
    expect(tenantNamespace('alice', 'tenant-root')).toBe('tenant-alice');
    expect(tenantNamespace('dev', 'tenant-alice')).toBe('tenant-alice-dev');
    expect(tenantNamespace('root', 'tenant-root')).toBe('tenant-root');
  });
});

describe('§2.2 host', () => {
  it('spec.host wins, else <X>.<parent host>, else empty', () => {
    expect(deriveHost('alice', 'customer1.io', 'example.org')).toBe('customer1.io');
    expect(deriveHost('alice', '', 'example.org')).toBe('alice.example.org');
    expect(deriveHost('alice', undefined, '')).toBe('');
  });
  it('is never lowercased', () => {
    expect(deriveHost('alice', '', 'Example.ORG')).toBe('alice.Example.ORG');
  });
});

describe('§2.3 _namespace inheritance', () => {
  const parent = {
    etcd: 'tenant-root',
    ingress: 'tenant-root',
    gateway: 'tenant-root',
    monitoring: 'tenant-root',
    seaweedfs: 'tenant-root',
    host: 'example.org',
  };
  it('a module set true points at the tenant, otherwise the parent value', () => {
    const v = inheritNamespace('tenant-a', 'a', { etcd: true, ingress: false }, parent);
    expect(v.etcd).toBe('tenant-a');
    expect(v.ingress).toBe('tenant-root');
    expect(v.monitoring).toBe('tenant-root');
  });
  it('gateway: only true owns; false inherits exactly like absent (docs/decisions.md §2)', () => {
    expect(inheritNamespace('tenant-a', 'a', { gateway: true }, parent).gateway).toBe('tenant-a');
    expect(inheritNamespace('tenant-a', 'a', { gateway: false }, parent).gateway).toBe('tenant-root');
    expect(inheritNamespace('tenant-a', 'a', {}, parent).gateway).toBe('tenant-root');
    expect(inheritNamespace('tenant-a', 'a', { gateway: false }, { ...parent, gateway: '' }).gateway).toBe('');
  });
  it('missing parent keys inherit as ""', () => {
    expect(inheritNamespace('tenant-a', 'a', {}, { host: 'x.io' }).etcd).toBe('');
  });
  it("schedulingClass: the parent's wins, emitted only when non-empty", () => {
    expect(inheritNamespace('tenant-a', 'a', {}, parent)).not.toHaveProperty('schedulingClass');
    expect(inheritNamespace('tenant-a', 'a', { schedulingClass: 'fast' }, parent).schedulingClass).toBe('fast');
    expect(
      inheritNamespace('tenant-a', 'a', { schedulingClass: 'fast' }, { ...parent, schedulingClass: 'slow' })
        .schedulingClass,
    ).toBe('slow');
  });
  it('keys in the chart order', () => {
    expect(Object.keys(inheritNamespace('tenant-a', 'a', { schedulingClass: 'x' }, parent))).toEqual([
      'etcd',
      'ingress',
      'gateway',
      'monitoring',
      'seaweedfs',
      'host',
      'schedulingClass',
    ]);
  });
});

describe('§2.4 Namespace labels', () => {
  it('prefix labels: every dash-prefix with at least two parts', () => {
    expect(prefixLabels('tenant-a-b')).toEqual(['tenant-a', 'tenant-a-b']);
    expect(prefixLabels('tenant-a')).toEqual(['tenant-a']);
  });
  it('labels in order, scheduling class only when set', () => {
    const l = namespaceLabels('tenant-a-b', {
      etcd: '',
      ingress: 'tenant-root',
      gateway: 'tenant-a',
      monitoring: '',
      seaweedfs: '',
      host: 'b.a.example.org',
    });
    expect(Object.keys(l)).toEqual([
      'tenant.cozystack.io/tenant-root',
      'tenant.cozystack.io/tenant-a',
      'tenant.cozystack.io/tenant-a-b',
      'namespace.cozystack.io/etcd',
      'namespace.cozystack.io/ingress',
      'namespace.cozystack.io/gateway',
      'namespace.cozystack.io/monitoring',
      'namespace.cozystack.io/seaweedfs',
      'namespace.cozystack.io/host',
      'alpha.kubevirt.io/auto-memory-limits-ratio',
    ]);
    expect(l['namespace.cozystack.io/etcd']).toBe('');
    expect(l['alpha.kubevirt.io/auto-memory-limits-ratio']).toBe('1.0');
    const s = namespaceLabels('tenant-a', { host: 'h', schedulingClass: 'fast' });
    expect(Object.keys(s).slice(-2)).toEqual([
      'scheduler.cozystack.io/scheduling-class',
      'alpha.kubevirt.io/auto-memory-limits-ratio',
    ]);
  });
});

describe('§2.5 the cozystack-values Secret', () => {
  it('_cluster as helm toYaml: sorted keys, ambiguous scalars double-quoted', () => {
    expect(helmToYaml({ b: 'true', a: 'example.org', c: '10', d: '', e: 'a,b' })).toBe(
      'a: example.org\nb: "true"\nc: "10"\nd: ""\ne: a,b\n',
    );
  });
  it('_namespace values are always double-quoted', () => {
    const y = valuesYaml({
      _cluster: { 'root-host': 'example.org' },
      _namespace: { etcd: 'tenant-a', host: 'a.example.org' },
    });
    expect(y).toBe('_cluster:\n  root-host: example.org\n_namespace:\n  etcd: "tenant-a"\n  host: "a.example.org"\n');
  });
  it('round-trips as YAML', () => {
    const c = enabled();
    const parsed = jsyaml.load(valuesYaml({ _cluster: c, _namespace: rootNamespaceValues(c) })) as Record<
      string,
      unknown
    >;
    expect(parsed._cluster).toEqual(c);
  });
});

describe('§2.7 tenant-root from cozystack-basics', () => {
  it('Namespace labels: no-delete, host, gateway only when enabled', () => {
    const off = renderTenantRoot(cluster())[0];
    expect(off.metadata.labels).toEqual({
      'platform.cozystack.io/no-delete': 'true',
      'namespace.cozystack.io/host': 'example.org',
    });
    const on = renderTenantRoot(enabled())[0];
    expect(Object.keys(on.metadata.labels ?? {})).toEqual([
      'platform.cozystack.io/no-delete',
      'namespace.cozystack.io/host',
      'namespace.cozystack.io/gateway',
    ]);
  });
  it('Secret labels and _namespace order: host, etcd, ingress, gateway (when enabled), monitoring, seaweedfs', () => {
    const [, s] = renderTenantRoot(enabled());
    expect(s.metadata.labels).toEqual({
      'reconcile.fluxcd.io/watch': 'Enabled',
      'internal.cozystack.io/managed-by-cozystack': '',
    });
    expect(s.type).toBe('Opaque');
    expect(Object.keys(rootNamespaceValues(enabled()))).toEqual([
      'host',
      'etcd',
      'ingress',
      'gateway',
      'monitoring',
      'seaweedfs',
    ]);
    expect(Object.keys(rootNamespaceValues(cluster()))).toEqual(['host', 'etcd', 'ingress', 'monitoring', 'seaweedfs']);
  });
});

describe('the tenant tree', () => {
  it('renders any depth, parents before children, with inheritance', () => {
    const t = renderTenantTree(enabled(), [
      tenant('ci', 'tenant-alice-dev'),
      tenant('dev', 'tenant-alice', { etcd: true }),
      tenant('alice', 'tenant-root', { gateway: true }),
    ]);
    expect(t.findings).toEqual([]);
    expect(t.releases.map((r) => r.namespace)).toEqual([
      'tenant-root',
      'tenant-alice',
      'tenant-alice-dev',
      'tenant-alice-dev-ci',
    ]);
    const ci = nsValues(t.objects, 'tenant-alice-dev-ci')._namespace;
    expect(ci).toEqual({
      etcd: 'tenant-alice-dev',
      ingress: 'tenant-root',
      gateway: 'tenant-alice',
      monitoring: 'tenant-root',
      seaweedfs: 'tenant-root',
      host: 'ci.dev.alice.example.org',
    });
    expect(
      find(t.objects, 'Namespace', undefined, 'tenant-alice-dev-ci')?.metadata.labels?.[
        'tenant.cozystack.io/tenant-alice-dev'
      ],
    ).toBe('');
  });

  it('a root Tenant adds tenant-root settings without a second Namespace or Secret', () => {
    const t = renderTenantTree(enabled(), [tenant('root', 'tenant-root', { gateway: true, gatewayClass: 'x' })]);
    expect(t.objects.filter((o) => o.kind === 'Namespace' && o.metadata.name.startsWith('tenant-'))).toHaveLength(1);
    expect(t.objects.filter((o) => o.kind === 'Secret')).toHaveLength(1);
    expect(t.releases[0]).toMatchObject({ namespace: 'tenant-root', ownsGateway: true, gatewayClassName: 'x' });
  });

  it('without a root Tenant, tenant-root owns no Gateway (docs/decisions.md §1)', () => {
    expect(renderTenantTree(enabled(), []).releases[0].ownsGateway).toBe(false);
  });

  it('fails a bad release name, a bad release namespace and an unknown parent, all at once', () => {
    const t = renderTenantTree(enabled(), [
      tenant('a-b', 'tenant-root'),
      tenant('x', 'default'),
      tenant('y', 'tenant-nobody'),
    ]);
    expect(t.findings.map((f) => f.rule).sort()).toEqual([
      'tenant.parent',
      'tenant.release-name',
      'tenant.release-namespace',
    ]);
    expect(t.findings.filter((f) => !f.object)).toEqual([]);
  });

  it("skips a failed tenant's children quietly (the parent's failure says why)", () => {
    const t = renderTenantTree(enabled(), [tenant('a-b', 'tenant-root'), tenant('c', 'tenant-a-b')]);
    expect(t.findings).toHaveLength(1);
  });

  it('fails a namespace name over 63 characters', () => {
    // A name within the Tenants API's 46 whose namespace, below its parent's, is 68 long.
    const t = renderTenantTree(enabled(), [
      tenant('p'.repeat(20), 'tenant-root'),
      tenant('x'.repeat(40), `tenant-${'p'.repeat(20)}`),
    ]);
    expect(t.findings.map((f) => f.rule)).toEqual(['tenant.namespace-name']);
  });

  it('fails a host that cannot be a label value', () => {
    const t = renderTenantTree(enabled(), [tenant('a', 'tenant-root', { host: `${'h'.repeat(64)}.io` })]);
    expect(t.findings[0]).toMatchObject({ rule: 'tenant.label-value', field: 'spec.host' });
    expect(t.findings[0].message).toMatch(/at most 63/);
  });

  it('a refused name is answered with a name the chart accepts, in one sentence (no nested parentheses)', () => {
    const hints = (name: string) => tenantInputFindings(tenant(name, 'tenant-root')).map((f) => `${f.rule}: ${f.hint}`);
    expect(hints('Bad-Name')).toEqual([
      'tenant.release-name: rename the Tenant without dashes, e.g. "badname"',
      'tenant.name: rename it with lowercase letters and digits only, starting with a letter, e.g. "badname"',
    ]);
    expect(hints('my-team')).toEqual(['tenant.release-name: rename the Tenant without dashes, e.g. "myteam"']);
    expect(hints('2fast')).toEqual([
      'tenant.name: rename it with lowercase letters and digits only, starting with a letter, e.g. "t2fast"',
    ]);
  });

  it('reports duplicate Tenants', () => {
    const t = renderTenantTree(enabled(), [tenant('a', 'tenant-root'), tenant('a', 'tenant-root')]);
    // both copies, each placed at itself (instance) by the CLI edge
    expect(t.findings.map((f) => [f.rule, f.message])).toEqual([
      ['input.duplicate', 'given 2 times in the inputs; this is copy 1 of 2'],
      ['input.duplicate', 'given 2 times in the inputs; this is copy 2 of 2'],
    ]);
  });

  it('an ownerReference to the parent Namespace only when the input parent has a uid (docs/decisions.md §4)', () => {
    const parentNs: KObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-root', uid: 'u-1' } };
    const withUid = renderTenantTree(enabled(), [tenant('a', 'tenant-root'), parentNs]);
    expect(find(withUid.objects, 'Namespace', undefined, 'tenant-a')?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        name: 'tenant-root',
        uid: 'u-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const without = renderTenantTree(enabled(), [tenant('a', 'tenant-root')]);
    expect(find(without.objects, 'Namespace', undefined, 'tenant-a')?.metadata.ownerReferences).toBeUndefined();
  });

  it('warns when gatewayClass is set on a tenant that owns no Gateway', () => {
    const t = renderTenantTree(enabled(), [tenant('a', 'tenant-root', { gatewayClass: 'x' })]);
    expect(t.findings).toEqual([expect.objectContaining({ severity: 'warning', rule: 'tenant.gateway-class-unused' })]);
  });
});

describe('inheritance invariants (property)', () => {
  // A random tree: node i's parent is some earlier node (or tenant-root).
  const treeArb = fc.array(
    fc.record({
      parent: fc.nat(),
      gateway: fc.constantFrom(true, false, undefined),
      host: fc.constantFrom(undefined, '', 'custom.io'),
    }),
    { minLength: 1, maxLength: 12 },
  );
  it('the gateway label names the nearest ancestor-or-self that owns a Gateway; the host follows the chain', () => {
    fc.assert(
      fc.property(treeArb, fc.boolean(), (nodes, gwEnabled) => {
        const c = cluster({ gateway: { enabled: gwEnabled } });
        const nsOf: string[] = [];
        const objs: KObject[] = [];
        nodes.forEach((n, i) => {
          const p = i === 0 ? -1 : (n.parent % (i + 1)) - 1; // -1 = tenant-root
          const P = p < 0 ? 'tenant-root' : nsOf[p];
          nsOf.push(tenantNamespace(`t${i}`, P));
          const spec: Record<string, unknown> = {};
          if (n.gateway !== undefined) spec.gateway = n.gateway;
          if (n.host !== undefined) spec.host = n.host;
          objs.push(tenant(`t${i}`, P, spec));
        });
        const t = renderTenantTree(c, objs);
        expect(t.findings.filter((f) => f.severity === 'error')).toEqual([]);
        const byNs = new Map(t.releases.map((r) => [r.namespace, r]));
        for (const r of t.releases.slice(1)) {
          // Expected owner: walk up until a tenant with gateway: true.
          let cur: typeof r | undefined = r;
          let owner = gwEnabled ? 'tenant-root' : '';
          while (cur && cur.namespace !== 'tenant-root') {
            if ((cur.tenant?.spec as Record<string, unknown>).gateway === true) {
              owner = cur.namespace;
              break;
            }
            cur = byNs.get(cur.parentNamespace ?? '');
          }
          const ns = find(t.objects, 'Namespace', undefined, r.namespace) as KObject;
          expect(ns.metadata.labels?.['namespace.cozystack.io/gateway']).toBe(owner);
          const parentHost = byNs.get(r.parentNamespace ?? '')?.values._namespace.host ?? '';
          const own = (r.tenant?.spec as Record<string, unknown>).host as string | undefined;
          expect(r.values._namespace.host).toBe(own ? own : parentHost ? `${r.name}.${parentHost}` : '');
        }
      }),
      { numRuns: 100 },
    );
  });
});
