/**
 * The in-scope templates of packages/system/cozystack-basics (docs/tenant.md §2.10; release
 * `cozystack-basics` in `cozy-system`, reading `_cluster` only): tenant-root's Namespace and
 * `cozystack-values` Secret (docs/behaviour.md §2.7), the 10 `cozy:tenant*` ClusterRoles,
 * Namespace `cozy-public` and its dashboard Role, and the monitoring ExternalName Services. The
 * static objects are data (templates/cozystack-basics/). The chart's `tenant-root` HelmRelease is
 * modelled (tenantRootHelmRelease) but never emitted next to a materialised tenant-root (docs/tenant.md §1.2
 * item 5, docs/decisions.md §Q6). Pure.
 */
import { asset } from '../assets';
import { error, type Finding } from '../k8s/diagnostics';
import { isObject, type KObject } from '../k8s/model';
import { NS_LABEL_GATEWAY, NS_LABEL_HOST } from '../platform/names';
import { TENANT_ROOT, type ClusterMap } from '../platform/tenancy';
import { helmToYaml, valuesSecret } from './namespaceTemplate';
import { labelValueError } from './tenantNames';
import { truthy, type NamespaceValues } from './tenantRelease';

/** docs/behaviour.md §2.7: tenant-root's `_namespace`: host, etcd, ingress, gateway (only when enabled), monitoring, seaweedfs. */
export function rootNamespaceValues(cluster: ClusterMap): NamespaceValues {
  const out: NamespaceValues = { host: cluster['root-host'] ?? '', etcd: TENANT_ROOT, ingress: TENANT_ROOT };
  if (cluster['gateway-enabled'] === 'true') out.gateway = TENANT_ROOT;
  out.monitoring = TENANT_ROOT;
  out.seaweedfs = TENANT_ROOT;
  return out;
}

/**
 * docs/behaviour.md §2.2/§2.7: cozystack-basics writes `namespace.cozystack.io/host: <root-host>` on tenant-root,
 * and "a label value over 63 characters breaks the Namespace write" there as it does for any
 * tenant. A finding on the platform value publishing.host.
 */
export function rootHostFindings(cluster: ClusterMap): Finding[] {
  const host = cluster['root-host'] ?? '';
  const bad = host ? labelValueError(host) : undefined;
  if (!bad) return [];
  return [
    error(
      `publishing.host "${host}" ${bad}: cozystack-basics writes it into the label namespace.cozystack.io/host of Namespace ${TENANT_ROOT}, which the API server would refuse`,
      {
        rule: 'tenant.label-value',
        field: 'publishing.host',
        hint: 'set publishing.host to a host of at most 63 characters (letters, digits, "-" and ".")',
      },
    ),
  ];
}

/** docs/behaviour.md §2.7, docs/tenant.md §2.10.1: tenant-root's Namespace and Secret, as cozystack-basics writes them. */
export function renderTenantRoot(cluster: ClusterMap, clusterYaml = helmToYaml(cluster)): KObject[] {
  const labels: Record<string, string> = {
    'platform.cozystack.io/no-delete': 'true',
    [NS_LABEL_HOST]: cluster['root-host'] ?? '',
  };
  if (cluster['gateway-enabled'] === 'true') labels[NS_LABEL_GATEWAY] = TENANT_ROOT;
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TENANT_ROOT, labels } },
    valuesSecret(
      TENANT_ROOT,
      { 'reconcile.fluxcd.io/watch': 'Enabled', 'internal.cozystack.io/managed-by-cozystack': '' },
      { _cluster: cluster, _namespace: rootNamespaceValues(cluster) },
      clusterYaml,
      'cozystack-basics/cozystack-values.yaml.hbs',
    ),
  ];
}

/**
 * §2.10.5: the monitoring Services render iff `_cluster.monitoring-enabled`, replaced by "true"
 * when empty in sprig's sense (absent, "", false, 0), is "true" once printed. An absent or null
 * `_cluster` counts as empty; so does the boolean false (docs/decisions.md §Q12: it still renders them).
 */
export function monitoringEnabled(cluster: Record<string, unknown> | null | undefined): boolean {
  const v = isObject(cluster) ? cluster['monitoring-enabled'] : undefined;
  return String(truthy(v) ? v : 'true') === 'true';
}

/** docs/tenant.md §2.10.2: the 10 `cozy:tenant*` ClusterRoles (templates/cozystack-basics/clusterroles.yaml). */
export function clusterRoles(): KObject[] {
  return asset<KObject[]>('templates/cozystack-basics/clusterroles.yaml');
}

/** docs/tenant.md §2.10.3-4: Namespace `cozy-public` and Role `cozy-public/cozy:tenant:dashboard`. */
export function cozyPublic(): KObject[] {
  return asset<KObject[]>('templates/cozystack-basics/cozy-public.yaml');
}

/** docs/tenant.md §2.10.5: the three ExternalName Services in `cozy-monitoring`, or none. */
export function monitoringExternalServices(cluster: Record<string, unknown> | null | undefined): KObject[] {
  return monitoringEnabled(cluster)
    ? asset<KObject[]>('templates/cozystack-basics/monitoring-external-services.yaml')
    : [];
}

/**
 * The platform-level objects of cozystack-basics that tenants depend on (docs/decisions.md §Q7), besides
 * tenant-root's Namespace and Secret and the admission policies: ClusterRoles, cozy-public and
 * its Role, the monitoring Services.
 */
export function renderPlatformObjects(cluster: ClusterMap): KObject[] {
  return [...clusterRoles(), ...cozyPublic(), ...monitoringExternalServices(cluster)];
}

/** docs/tenant.md §2.10.1: the `tenant-root/tenant-root` HelmRelease. Modelled only: never emitted next to a materialised tenant-root (docs/decisions.md §Q6). */
export function tenantRootHelmRelease(): KObject {
  return asset<KObject>('templates/cozystack-basics/tenant-root-helmrelease.yaml');
}
