/**
 * The tenancy names every layer shares: tenant-root, the values-channel Secret, and how a Tenant's
 * namespace is named from its short name and its parent's namespace (docs/behaviour.md §2.1).
 */
import type { KObject } from '../k8s/model';

export const TENANT_ROOT = 'tenant-root';
/** The values channel Secret, in cozy-system and in each tenant namespace: values, never key material. */
export const VALUES_SECRET = 'cozystack-values';

/**
 * One `_cluster` value (docs/behaviour.md §1): a string, as the platform chart quotes every value;
 * null where a platform value was null and the template writes it as it stands
 * (docs/decisions.md §17); or what the platform copies whole (`branding`, `scheduling`: a map,
 * or whatever YAML value was given there).
 */
export type ClusterValue = string | null | Record<string, unknown> | unknown[] | number | boolean;

/** The `_cluster` map: the platform values as the tenant charts and the controller read them. */
export type ClusterMap = Record<string, ClusterValue>;

/** A `_cluster` key read as a string, as the charts read one: "" when it is absent, null or a map. */
export function clusterString(cluster: ClusterMap, key: string): string {
  const v = cluster[key];
  return typeof v === 'string' ? v : '';
}

/**
 * The publishing tenant's namespace, as the `_cluster` map names it (`expose-ingress`, the platform
 * value publishing.ingressName), empty meaning tenant-root (docs/behaviour.md §3.1 guard 5). Read as
 * given, as upstream reads it: a value that is no namespace name is refused where the values are
 * read (clusterValues, the values channel), never trimmed here.
 */
export function publishingNamespace(cluster: ClusterMap): string {
  return clusterString(cluster, 'expose-ingress') || TENANT_ROOT;
}

/** The tenant namespace T: `tenant-X` under tenant-root, `P-X` deeper down. */
export function tenantNamespace(name: string, parentNamespace: string): string {
  return parentNamespace === TENANT_ROOT ? `tenant-${name}` : `${parentNamespace}-${name}`;
}

/** The namespace a Tenant object's tenant lives in (its parent's namespace is its metadata.namespace). */
export function tenantNamespaceOf(t: KObject): string {
  return tenantNamespace(t.metadata.name, t.metadata.namespace ?? '');
}

/**
 * A top-level Tenant spec key reserved for the values the platform injects (`_cluster`,
 * `_namespace`): the Tenants API refuses a Tenant that sets one (docs/decisions.md §15).
 */
export function isReservedSpecKey(key: string): boolean {
  return key.startsWith('_');
}
