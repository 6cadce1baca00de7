/**
 * One tenant release of the apps/tenant chart, as every template of the chart reads it
 * (docs/tenant.md §2.0.1, §2.0.8, docs/decisions.md §Q1, §Q15): the release identity (R = `tenant-X` in P), the
 * tenant namespace T, the `cozystack-values` the tenant's own releases see, and the chart values
 * (the chart defaults overlaid by the Tenant's spec). Pure data.
 */
import { asset } from '../assets';
import { isObject, type KObject } from '../k8s/model';
import type { ClusterMap } from '../platform/tenancy';

/** The `_namespace` map a tenant's release sees; keys in the order the chart writes them. */
export type NamespaceValues = Record<string, string>;

/** The values a tenant's releases see: its own `cozystack-values` Secret. */
export interface TenantValues {
  _cluster: ClusterMap;
  _namespace: NamespaceValues;
}

/** The tenant chart's values (docs/tenant.md §3), as the schema types them. */
export interface TenantSpec {
  host?: string;
  gateway?: boolean;
  gatewayClass?: string;
  ingress?: boolean;
  etcd?: boolean;
  monitoring?: boolean;
  seaweedfs?: boolean;
  computeplane?: boolean;
  schedulingClass?: string;
  resourceQuotas?: Record<string, unknown>;
  [k: string]: unknown;
}

/** One rendered tenant. */
export interface TenantRelease {
  /** The Tenant object (absent for tenant-root without a `root` Tenant). */
  tenant?: KObject;
  /** The Tenant's short name X (`root` for tenant-root). */
  name: string;
  /** The tenant namespace T. */
  namespace: string;
  /** The release namespace P (the parent tenant's namespace; tenant-root for tenant-root itself, docs/decisions.md §Q1). */
  parentNamespace: string;
  /** The release name R = `tenant-X` (docs/decisions.md §Q1). */
  releaseName: string;
  /** Its own `cozystack-values` (T's `_cluster` and `_namespace`). */
  values: TenantValues;
  /** Its own chart values: the chart defaults overlaid by the Tenant's spec (docs/decisions.md §Q15). */
  spec: TenantSpec;
  /** docs/behaviour.md §2.6, docs/tenant.md §2.0.3: the `gateway` release renders (and so the TenantGateway) iff spec.gateway is true. */
  ownsGateway: boolean;
  /** docs/behaviour.md §2.6: `values.gatewayClassName`, only when the tenant set `gatewayClass`. */
  gatewayClassName?: string;
}

/** The chart defaults (charts/tenant/values.yaml, docs/tenant.md §3). */
export function tenantChartDefaults(): TenantSpec {
  return asset<TenantSpec>('charts/tenant/values.yaml');
}

/** The Tenant spec overlaid on the chart defaults (a top-level overlay: the chart's values are flat but for resourceQuotas, which the Tenant replaces). */
export function tenantSpec(o: KObject | undefined, defaults: TenantSpec = tenantChartDefaults()): TenantSpec {
  const spec = o && isObject(o.spec) ? (o.spec as TenantSpec) : {};
  return { ...defaults, ...spec };
}

/** §2.0.1: the tenant release name R. */
export function releaseName(name: string): string {
  return `tenant-${name}`;
}

/** Go-template truth (docs/tenant.md §0): false, 0, nil, "" and empty maps and lists are false. */
export function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.keys(v).length > 0;
  return true;
}
