/**
 * The objects the whole tenant adds to the gateway slice, as docs/tenant.md §1.1–§1.3 lists them:
 * an oracle for tests of every entry point (render, --output-dir, fn, kustomize,
 * --with-controller, diff) and for the properties over generated trees
 * (test/helpers/tenantTreeArbitrary.ts). The gateway slice (Namespaces, `cozystack-values`
 * Secrets, TenantGateways, admission policies) is not listed here: other tests own it.
 */
import type { KObject } from '../../src/k8s/model';

export const RBAC = 'rbac.authorization.k8s.io/v1';
export const CILIUM = 'cilium.io/v2';
export const FLUX_HR = 'helm.toolkit.fluxcd.io/v2';
export const KEYCLOAK = 'v1.edp.epam.com/v1';

/** The kinds of the whole tenant beyond the gateway slice, as `apiVersion kind`. */
export const WHOLE_TENANT_KINDS = new Set([
  'v1 ServiceAccount',
  `${RBAC} RoleBinding`,
  `${RBAC} Role`,
  `${RBAC} ClusterRole`,
  `${CILIUM} CiliumNetworkPolicy`,
  `${CILIUM} CiliumClusterwideNetworkPolicy`,
  'v1 ResourceQuota',
  'v1 LimitRange',
  `${KEYCLOAK} KeycloakRealmGroup`,
  `${FLUX_HR} HelmRelease`,
  'v1 Service',
]);

/** One tenant's own choices, as the chart reads them (its own values, never the inherited ones). */
export interface TenantFlags {
  /** T, the tenant namespace. */
  ns: string;
  etcd?: boolean;
  ingress?: boolean;
  monitoring?: boolean;
  seaweedfs?: boolean;
  computeplane?: boolean;
  /** `resourceQuotas` non-empty. */
  quotas?: boolean;
}

/** The platform-level choices the whole tenant reads through `_cluster`. */
export interface ClusterFlags {
  /** `authentication.oidc.enabled`: the Keycloak groups (docs/decisions.md §Q3). */
  oidc: boolean;
  /** `monitoring.rootEnabled` (default true): the ExternalName Services. */
  rootMonitoring?: boolean;
  /** A Cozystack release rather than main: no `allow-to-grafana-dashboards` policy (docs/versions.md §T5). */
  release?: boolean;
}

/** `apiVersion kind namespace/name` of an object (no namespace: `kind /name`). */
export const refText = (o: Pick<KObject, 'apiVersion' | 'kind'> & { metadata: { name: string; namespace?: string } }) =>
  `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;

const ref = (apiVersion: string, kind: string, namespace: string | undefined, name: string) =>
  `${apiVersion} ${kind} ${namespace ?? ''}/${name}`;

/** What one tenant's templates render beyond the gateway slice (docs/tenant.md §2.1–§2.5). */
export function tenantObjects(t: TenantFlags, cluster: ClusterFlags): string[] {
  const T = t.ns;
  const out = [ref('v1', 'ServiceAccount', T, T)];
  for (const rb of [
    'cozy:tenant',
    'cozy:tenant:view',
    'cozy:tenant:use',
    'cozy:tenant:admin',
    'cozy:tenant:super-admin',
  ])
    out.push(ref(RBAC, 'RoleBinding', T, rb));
  out.push(ref(RBAC, 'RoleBinding', 'cozy-public', `cozy:${T}:dashboard`));
  for (const p of [
    'allow-internal-communication',
    'allow-external-communication',
    'allow-to-apiserver',
    'allow-to-dns',
    'allow-to-dashboard',
    'allow-to-linstor-gui',
    'allow-to-keycloak',
    ...(cluster.release ? [] : ['allow-to-grafana-dashboards']),
    'allow-to-cdi-upload-proxy',
    'allow-to-ingress',
  ])
    out.push(ref(CILIUM, 'CiliumNetworkPolicy', T, p));
  const ccnp = [`${T}-egress`, `${T}-ingress`];
  if (t.ingress) ccnp.push(`${T}-ingress-ingress`);
  if (t.etcd) ccnp.push(`${T}-ingress-etcd`);
  if (t.monitoring) ccnp.push(`${T}-egress-virt-handler`);
  for (const p of ccnp) out.push(ref(CILIUM, 'CiliumClusterwideNetworkPolicy', undefined, p));
  if (t.quotas)
    out.push(ref('v1', 'ResourceQuota', T, 'tenant-quota'), ref('v1', 'LimitRange', T, 'tenant-range-limits'));
  if (cluster.oidc)
    for (const l of ['view', 'use', 'admin', 'super-admin'])
      out.push(ref(KEYCLOAK, 'KeycloakRealmGroup', T, `${T}-${l}`));
  out.push(ref(FLUX_HR, 'HelmRelease', T, 'info'));
  for (const m of ['etcd', 'ingress', 'monitoring', 'seaweedfs', 'computeplane'] as const)
    if (t[m]) out.push(ref(FLUX_HR, 'HelmRelease', T, m));
  return out;
}

/** cozystack-basics' platform objects (docs/tenant.md §2.10.2–§2.10.5). */
export function platformObjects(cluster: ClusterFlags): string[] {
  const out: string[] = [];
  for (const r of [
    '',
    ':base',
    ':view',
    ':view:base',
    ':use',
    ':use:base',
    ':admin',
    ':admin:base',
    ':super-admin',
    ':super-admin:base',
  ])
    out.push(ref(RBAC, 'ClusterRole', undefined, `cozy:tenant${r}`));
  out.push(ref(RBAC, 'Role', 'cozy-public', 'cozy:tenant:dashboard'));
  if (cluster.rootMonitoring !== false)
    for (const s of ['vlinsert-generic', 'vminsert-shortterm', 'vminsert-longterm'])
      out.push(ref('v1', 'Service', 'cozy-monitoring', s));
  return out;
}

/** Every whole-tenant object expected for these tenants (tenant-root among them) and platform, sorted. */
export function expectedWholeTenant(tenants: TenantFlags[], cluster: ClusterFlags): string[] {
  return [...platformObjects(cluster), ...tenants.flatMap((t) => tenantObjects(t, cluster))].sort();
}

/** The whole-tenant objects among `objects` (the gateway slice left out), as sorted ref texts. */
export function wholeTenantOf(objects: KObject[]): string[] {
  return objects
    .filter((o) => WHOLE_TENANT_KINDS.has(`${o.apiVersion} ${o.kind}`))
    .map(refText)
    .sort();
}

/**
 * Each tenant's flags read from Tenant objects as render reads them (tenant-root's from its Tenant
 * `root`, docs/decisions.md §1; T from the Tenant's namespace and name, docs/tenant.md §0), with
 * tenant-root always among them.
 */
export function flagsOfTenants(objects: KObject[]): TenantFlags[] {
  const out = new Map<string, TenantFlags>([['tenant-root', { ns: 'tenant-root' }]]);
  for (const o of objects) {
    if (o.kind !== 'Tenant' || o.apiVersion !== 'apps.cozystack.io/v1alpha1') continue;
    const { name, namespace = '' } = o.metadata;
    const ns =
      name === 'root' && namespace === 'tenant-root'
        ? 'tenant-root'
        : namespace === 'tenant-root'
          ? `tenant-${name}`
          : `${namespace}-${name}`;
    const spec = (o.spec ?? {}) as Record<string, unknown>;
    const q = spec.resourceQuotas;
    out.set(ns, {
      ns,
      etcd: spec.etcd === true,
      ingress: spec.ingress === true,
      monitoring: spec.monitoring === true,
      seaweedfs: spec.seaweedfs === true,
      computeplane: spec.computeplane === true,
      quotas: typeof q === 'object' && q !== null && Object.keys(q).length > 0,
    });
  }
  return [...out.values()];
}
