/**
 * fast-check generators of whole tenant trees (docs/tenant.md): a platform (the gateway choices of
 * test/helpers/platformArbitrary.ts, plus the `_cluster` values the tenant templates read: OIDC,
 * monitoring.rootEnabled, the allocation ratios) and a Tenant tree 1 to 5 levels below tenant-root
 * whose tenants set random module flags (`etcd`, `ingress`, `monitoring`, `seaweedfs`,
 * `computeplane`), gateways (own, parked, inherited; a selectable class), custom hosts, scheduling
 * classes and `resourceQuotas` (quantity strings and integers). For reuse by any property over the
 * whole tenant; test/properties/tenantTree.property.test.ts is the first.
 *
 * Every case is meant to render: names are `[a-z][a-z0-9]*` and unique among siblings, no child is
 * named `ingress` (docs/tenant.md §2.12: the CCNP name clash is a render failure, docs/decisions.md §Q14),
 * and a platform given as a Package (which makes `cozystack.io/v1alpha1` served, §Q2) comes with
 * the computeplane Package when a tenant enables computeplane. The gateway choices can still be
 * refused by the gateway chart's guards (a class on the wrong side of the edge line, say), as in
 * platformArbitrary; properties filter those out and check the rate.
 */
import fc from 'fast-check';
import type { KObject } from '../../src/k8s/model';
import { arbPlatform, platformPackage, platformValues, selectable, type PlatformChoice } from './platformArbitrary';
import type { ClusterFlags, TenantFlags } from './wholeTenant';

/** The `_cluster` values the tenant templates read, as platform values set them. */
export interface ClusterChoice {
  oidc: boolean;
  /** `monitoring.rootEnabled`; absent means the platform default. */
  rootMonitoring?: boolean;
  /** `resources.*AllocationRatio`; absent means the default (10, 1, 40). Never 0 (a render failure). */
  cpuRatio?: number;
  memoryRatio?: number;
  ephemeralRatio?: number;
}

export type Quota = Record<string, string | number>;

export interface TenantChoice {
  name: string;
  /** true owns a Gateway, false parks it (inherits, as absent), undefined inherits. */
  gateway?: boolean;
  /** Index into the classes the tenant may select, when it owns a Gateway. */
  classPick?: number;
  customHost?: 'outside' | 'under';
  schedulingClass?: string;
  etcd?: boolean;
  ingress?: boolean;
  monitoring?: boolean;
  seaweedfs?: boolean;
  computeplane?: boolean;
  resourceQuotas?: Quota;
  children: TenantChoice[];
}

export interface TenantTreeCase {
  platform: PlatformChoice;
  cluster: ClusterChoice;
  /** tenant-root's own settings (docs/decisions.md §1): its Tenant `root`, when present. */
  root?: {
    gateway: boolean;
    sameClass: boolean;
    modules: Pick<TenantChoice, 'etcd' | 'ingress' | 'monitoring' | 'seaweedfs'>;
  };
  /** The tenants directly under tenant-root. */
  tree: TenantChoice[];
}

const NAMES = ['alice', 'bob', 'carol', 'dev', 'prod', 'qa', 'super', 'egress', 'x1', 'team7'];

const arbCluster: fc.Arbitrary<ClusterChoice> = fc.record(
  {
    oidc: fc.boolean(),
    rootMonitoring: fc.boolean(),
    cpuRatio: fc.constantFrom(10, 3, 4, 2.5),
    memoryRatio: fc.constantFrom(1, 2, 3),
    ephemeralRatio: fc.constantFrom(40, 10, 7),
  },
  { requiredKeys: ['oidc'] },
);

/** One quota value for a key: the quantity shapes of docs/tenant.md §2.0.6's examples. */
const QUANTITIES: Record<string, fc.Arbitrary<string | number>> = {
  cpu: fc.constantFrom('4', 4, '500m', '1.1', '2', '12345678', '250m'),
  memory: fc.constantFrom('4Gi', '512Mi', 1073741824, '1G', '3Gi'),
  'ephemeral-storage': fc.constantFrom('10Gi', '50Gi', '1Ti'),
  storage: fc.constantFrom('100Gi', '1Ti', '20Gi'),
  pods: fc.constantFrom('50', 50, 10),
  services: fc.constantFrom('10', 5),
  'services.loadbalancers': fc.constantFrom('3', 0, 1),
  'services.nodeports': fc.constantFrom('0', 2),
  configmaps: fc.constantFrom(100, '20'),
  secrets: fc.constantFrom(100, '30'),
  persistentvolumeclaims: fc.constantFrom('10', 4),
  'nvidia.com/gpu': fc.constantFrom('1', 2),
};

const arbQuota: fc.Arbitrary<Quota> = fc
  .subarray(Object.keys(QUANTITIES), { minLength: 1 })
  .chain((keys) => fc.record(Object.fromEntries(keys.map((k) => [k, QUANTITIES[k]]))) as fc.Arbitrary<Quota>);

const optionalBool = fc.constantFrom<boolean | undefined>(undefined, undefined, false, true);

/** A tenant's own settings, without its name and children. */
const arbSettings = fc.record({
  gateway: fc.constantFrom<boolean | undefined>(undefined, undefined, undefined, false, true),
  classPick: fc.option(fc.nat(5), { nil: undefined }),
  customHost: fc.constantFrom<TenantChoice['customHost']>(undefined, undefined, undefined, 'outside', 'under'),
  schedulingClass: fc.constantFrom<string | undefined>(undefined, undefined, 'batch', 'gpu'),
  etcd: optionalBool,
  ingress: optionalBool,
  monitoring: optionalBool,
  seaweedfs: optionalBool,
  computeplane: fc.constantFrom<boolean | undefined>(undefined, undefined, undefined, false, true),
  resourceQuotas: fc.option(arbQuota, { nil: undefined, freq: 2 }),
});

type Settings = Omit<TenantChoice, 'name' | 'children'>;

/**
 * A tree whose deepest branch is exactly `depth` levels below tenant-root: a spine of `depth`
 * tenants, and up to four more tenants hung anywhere along it (at most `depth` levels down too).
 */
const arbTree = (depth: number): fc.Arbitrary<TenantChoice[]> =>
  fc
    .record({
      spine: fc.array(fc.tuple(fc.constantFrom(...NAMES), arbSettings), { minLength: depth, maxLength: depth }),
      extra: fc.array(fc.tuple(fc.nat(depth - 1), fc.constantFrom(...NAMES), arbSettings), { maxLength: 4 }),
    })
    .map(({ spine, extra }) => {
      const node = (name: string, s: Settings): TenantChoice => ({ name, ...s, children: [] });
      const levels: TenantChoice[][] = [];
      const top: TenantChoice[] = [];
      let siblings = top;
      for (const [name, s] of spine) {
        const n = node(name, s);
        siblings.push(n);
        levels.push(siblings);
        siblings = n.children;
      }
      // An extra tenant at level i is a sibling of the spine's tenant there (unique names only).
      for (const [level, name, s] of extra) {
        const at = levels[level];
        if (!at.some((x) => x.name === name)) at.push(node(name, s));
      }
      // No child named `ingress` exists (NAMES lacks it), so no CCNP name clash (§2.12).
      fitQuotas(top, undefined);
      return top;
    });

/**
 * The hierarchical quota (docs/decisions.md §15) holds in every case: a child declares only the
 * resources its parent leaves undeclared (test/properties/tenantsApi.property.test.ts generates
 * the trees that over-commit).
 */
function fitQuotas(nodes: TenantChoice[], parent: Quota | undefined): void {
  for (const n of nodes) {
    if (n.resourceQuotas && parent) {
      const kept = Object.entries(n.resourceQuotas).filter(([k]) => !(k in parent));
      n.resourceQuotas = kept.length ? (Object.fromEntries(kept) as Quota) : undefined;
    }
    fitQuotas(n.children, n.resourceQuotas);
  }
}

export const arbTenantTreeCase: fc.Arbitrary<TenantTreeCase> = fc.record({
  platform: arbPlatform,
  cluster: arbCluster,
  root: fc.option(
    fc.record({
      gateway: fc.constantFrom(true, true, true, false),
      sameClass: fc.boolean(),
      modules: fc.record({
        etcd: optionalBool,
        ingress: optionalBool,
        monitoring: optionalBool,
        seaweedfs: optionalBool,
      }),
    }),
    { nil: undefined, freq: 4 },
  ),
  tree: fc.integer({ min: 1, max: 5 }).chain(arbTree),
});

// ---------------------------------------------------------------------------------------------
// Materialising a case.

/** The platform values of a case: the gateway slice's, plus `authentication`, `monitoring`, `resources`. */
export function tenantTreeValues(c: TenantTreeCase): Record<string, unknown> {
  const v: Record<string, unknown> = {
    ...platformValues(c.platform),
    authentication: { oidc: { enabled: c.cluster.oidc } },
  };
  if (c.cluster.rootMonitoring !== undefined) v.monitoring = { rootEnabled: c.cluster.rootMonitoring };
  const resources: Record<string, number> = {};
  if (c.cluster.cpuRatio !== undefined) resources.cpuAllocationRatio = c.cluster.cpuRatio;
  if (c.cluster.memoryRatio !== undefined) resources.memoryAllocationRatio = c.cluster.memoryRatio;
  if (c.cluster.ephemeralRatio !== undefined) resources.ephemeralStorageAllocationRatio = c.cluster.ephemeralRatio;
  if (Object.keys(resources).length) v.resources = resources;
  return v;
}

/** The namespace of a tenant named `name` whose Tenant lives in `parentNs` (docs/tenant.md §0, T). */
export function childNamespace(parentNs: string, name: string): string {
  return parentNs === 'tenant-root' ? `tenant-${name}` : `${parentNs}-${name}`;
}

function tenant(name: string, namespace: string, spec: Record<string, unknown>): KObject {
  return { apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name, namespace }, spec };
}

/** Every tenant of the tree with the namespace its Tenant lives in (P) and its own (T), parents first. */
export function tenantsOf(c: TenantTreeCase): { t: TenantChoice; parentNs: string; ns: string; depth: number }[] {
  const out: { t: TenantChoice; parentNs: string; ns: string; depth: number }[] = [];
  const walk = (nodes: TenantChoice[], parentNs: string, depth: number) => {
    for (const t of nodes) {
      const ns = childNamespace(parentNs, t.name);
      out.push({ t, parentNs, ns, depth });
      walk(t.children, ns, depth + 1);
    }
  };
  walk(c.tree, 'tenant-root', 1);
  return out;
}

/** How deep the tree goes below tenant-root. */
export function depthOf(c: TenantTreeCase): number {
  return Math.max(...tenantsOf(c).map((x) => x.depth));
}

/** The Tenant objects of a case, parents before children. */
export function tenantTreeObjects(c: TenantTreeCase): KObject[] {
  const p = c.platform;
  const allowed = selectable(p);
  const out: KObject[] = [];
  if (c.root) {
    const spec: Record<string, unknown> = { gateway: c.root.gateway };
    // The publishing tenant may not cross the edge line with its own class (gateway chart guard 5).
    if (c.root.gateway && c.root.sameClass) spec.gatewayClass = p.className;
    for (const [k, v] of Object.entries(c.root.modules)) if (v !== undefined) spec[k] = v;
    out.push(tenant('root', 'tenant-root', spec));
  }
  for (const { t, parentNs } of tenantsOf(c)) {
    const spec: Record<string, unknown> = {};
    if (t.gateway !== undefined) spec.gateway = t.gateway;
    if (t.gateway && t.classPick !== undefined) spec.gatewayClass = allowed[t.classPick % allowed.length];
    if (t.customHost === 'outside') spec.host = `${t.name}.customer.io`;
    if (t.customHost === 'under') spec.host = `${t.name}-own.${p.host}`;
    if (t.schedulingClass) spec.schedulingClass = t.schedulingClass;
    for (const k of ['etcd', 'ingress', 'monitoring', 'seaweedfs', 'computeplane'] as const)
      if (t[k] !== undefined) spec[k] = t[k];
    if (t.resourceQuotas) spec.resourceQuotas = t.resourceQuotas;
    out.push(tenant(t.name, parentNs, spec));
  }
  return out;
}

/** The Package that carries the computeplane module (docs/tenant.md §2.5.3). */
export const COMPUTEPLANE_PACKAGE: KObject = {
  apiVersion: 'cozystack.io/v1alpha1',
  kind: 'Package',
  metadata: { name: 'cozystack.computeplane-application' },
  spec: { variant: 'kubevirt' },
};

/**
 * The render input of a case: the Tenants, and the platform values as a Package (with the
 * computeplane Package when a tenant needs it: with a Package in the inputs the API counts as
 * served, docs/decisions.md §Q2) or as a --values file.
 */
export function tenantTreeInput(c: TenantTreeCase): {
  objects: KObject[];
  valuesFiles: { file: string; values: Record<string, unknown> }[];
} {
  const values = tenantTreeValues(c);
  const tenants = tenantTreeObjects(c);
  if (!c.platform.asPackage) return { objects: tenants, valuesFiles: [{ file: 'values.yaml', values }] };
  const needsComputeplane = tenantsOf(c).some((x) => x.t.computeplane);
  return {
    objects: [platformPackage(values), ...(needsComputeplane ? [COMPUTEPLANE_PACKAGE] : []), ...tenants],
    valuesFiles: [],
  };
}

/** FC_SEED replays a run (or explores another seed); without it fast-check picks one and prints it on failure. */
export const FC_SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

/** Each tenant's own flags (tenant-root's from its Tenant `root`, docs/decisions.md §1), for test/helpers/wholeTenant.ts. */
export function tenantFlagsOf(c: TenantTreeCase): TenantFlags[] {
  const root: TenantFlags = { ns: 'tenant-root', ...(c.root?.modules ?? {}) };
  return [
    root,
    ...tenantsOf(c).map(({ t, ns }) => ({
      ns,
      etcd: t.etcd,
      ingress: t.ingress,
      monitoring: t.monitoring,
      seaweedfs: t.seaweedfs,
      computeplane: t.computeplane,
      quotas: t.resourceQuotas !== undefined && Object.keys(t.resourceQuotas).length > 0,
    })),
  ];
}

/** The platform choices the whole tenant reads, for test/helpers/wholeTenant.ts. */
export function clusterFlagsOf(c: TenantTreeCase): ClusterFlags {
  return { oidc: c.cluster.oidc, rootMonitoring: c.cluster.rootMonitoring };
}
