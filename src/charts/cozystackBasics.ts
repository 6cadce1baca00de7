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
import { clusterString, TENANT_ROOT, VALUES_SECRET, type ClusterMap } from '../platform/tenancy';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { helmToYaml } from './namespaceTemplate';
import { renderTemplate } from './templates';
import { labelValueError } from './tenantNames';
import { truthy, type NamespaceValues } from './tenantRelease';

/** docs/behaviour.md §2.7: tenant-root's `_namespace`: host, etcd, ingress, gateway (only when enabled), monitoring, seaweedfs. */
export function rootNamespaceValues(cluster: ClusterMap): NamespaceValues {
  const out: NamespaceValues = { host: clusterString(cluster, 'root-host'), etcd: TENANT_ROOT, ingress: TENANT_ROOT };
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
  const host = clusterString(cluster, 'root-host');
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

/**
 * docs/behaviour.md §2.7, docs/tenant.md §2.10.1: tenant-root's Namespace and Secret, as cozystack-basics writes them.
 * The Secret's `_namespace.host` is `root-host` quoted, as the template quotes it: `""` when the
 * root host is empty, and nothing when it is null (docs/decisions.md §17) or absent, which a YAML
 * reader takes for null (docs/tenant.md §2.10.6).
 */
export function renderTenantRoot(cluster: ClusterMap, clusterYaml = helmToYaml(cluster)): KObject[] {
  const labels: Record<string, string> = {
    'platform.cozystack.io/no-delete': 'true',
    [NS_LABEL_HOST]: clusterString(cluster, 'root-host'),
  };
  if (cluster['gateway-enabled'] === 'true') labels[NS_LABEL_GATEWAY] = TENANT_ROOT;
  const { host, ...namespace } = rootNamespaceValues(cluster);
  const rootHost = cluster['root-host'];
  const valuesYaml = renderTemplate('cozystack-basics/cozystack-values.yaml.hbs', {
    clusterYaml,
    host: typeof rootHost === 'string' ? JSON.stringify(host) : '',
    namespace,
  });
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TENANT_ROOT, labels } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: VALUES_SECRET,
        namespace: TENANT_ROOT,
        labels: { 'reconcile.fluxcd.io/watch': 'Enabled', 'internal.cozystack.io/managed-by-cozystack': '' },
      },
      type: 'Opaque',
      stringData: { 'values.yaml': valuesYaml },
    },
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

/** docs/versions.md §B4: a rule of the SecurityGroup API (`sdn.cozystack.io` `securitygroups`). */
function isSecurityGroupRule(rule: unknown): boolean {
  if (!isObject(rule)) return false;
  const { apiGroups, resources } = rule;
  return (
    Array.isArray(apiGroups) &&
    apiGroups.includes('sdn.cozystack.io') &&
    Array.isArray(resources) &&
    resources.includes('securitygroups')
  );
}

/**
 * docs/tenant.md §2.10.2: the 10 `cozy:tenant*` ClusterRoles (templates/cozystack-basics/clusterroles.yaml).
 * docs/versions.md §B4: a version without the SecurityGroup rules renders each role without them.
 */
export function clusterRoles(behaviour: Behaviour = MAIN_VERSION.behaviour): KObject[] {
  const roles = asset<KObject[]>('templates/cozystack-basics/clusterroles.yaml');
  if (behaviour.securityGroupRules) return roles;
  return roles.map((r) =>
    Array.isArray(r.rules) ? { ...r, rules: r.rules.filter((x) => !isSecurityGroupRule(x)) } : r,
  );
}

/** docs/tenant.md §2.10.3-4: Namespace `cozy-public` and Role `cozy-public/cozy:tenant:dashboard`. */
export function cozyPublic(): KObject[] {
  return asset<KObject[]>('templates/cozystack-basics/cozy-public.yaml');
}

/**
 * docs/tenant.md §2.10.5: the three ExternalName Services in `cozy-monitoring`, or none.
 * docs/versions.md §B3: a version whose template has no gate renders them always.
 */
export function monitoringExternalServices(
  cluster: Record<string, unknown> | null | undefined,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): KObject[] {
  return !behaviour.monitoringServicesFollowRootEnabled || monitoringEnabled(cluster)
    ? asset<KObject[]>('templates/cozystack-basics/monitoring-external-services.yaml')
    : [];
}

/**
 * The platform-level objects of cozystack-basics that tenants depend on (docs/decisions.md §Q7), besides
 * tenant-root's Namespace and Secret and the admission policies: ClusterRoles, cozy-public and
 * its Role, the monitoring Services.
 */
export function renderPlatformObjects(cluster: ClusterMap, behaviour: Behaviour = MAIN_VERSION.behaviour): KObject[] {
  return [...clusterRoles(behaviour), ...cozyPublic(), ...monitoringExternalServices(cluster, behaviour)];
}

/** docs/tenant.md §2.10.1: the `tenant-root/tenant-root` HelmRelease. Modelled only: never emitted next to a materialised tenant-root (docs/decisions.md §Q6). */
export function tenantRootHelmRelease(): KObject {
  return asset<KObject>('templates/cozystack-basics/tenant-root-helmrelease.yaml');
}
