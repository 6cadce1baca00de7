/**
 * The kinds every layer recognises, each by one predicate: the platform's own resources (Tenant,
 * TenantGateway, the platform Package) and the Gateway API route kinds the controller judges.
 * A kind is matched by group (any version), as the controller and the charts match it.
 */
import { getPath, groupOf, isObject, type KObject } from '../k8s/model';
import { LABEL_MANAGED_BY, MANAGED_BY_VALUE, TGW_KIND } from './names';

/** An `apps.cozystack.io` Tenant (any version). */
export function isTenant(o: KObject): boolean {
  return o.kind === 'Tenant' && groupOf(o.apiVersion) === 'apps.cozystack.io';
}

/** A `gateway.cozystack.io` TenantGateway (any version). */
export function isTenantGateway(o: KObject): boolean {
  return o.kind === TGW_KIND && groupOf(o.apiVersion) === 'gateway.cozystack.io';
}

/** An object the cozystack-controller wrote (its managed-by label), of any kind. */
export function isControllerOwned(o: KObject): boolean {
  return o.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY_VALUE;
}

/** A `cozystack.io` Package (any version): the platform Package is one of them. */
export function isPackage(o: KObject): boolean {
  return o.kind === 'Package' && groupOf(o.apiVersion) === 'cozystack.io';
}

/**
 * The Package that carries the platform values: the first `cozystack.io` Package with a
 * `spec.components.platform` entry (docs/commands/render.md), else the first `cozystack.io` Package.
 */
export function findPlatformPackage(objects: KObject[]): KObject | undefined {
  const pkgs = objects.filter(isPackage);
  return pkgs.find((p) => isObject(getPath(p, ['spec', 'components', 'platform']))) ?? pkgs[0];
}

/** The field of a platform Package that holds the platform values. */
export const PACKAGE_VALUES_FIELD = 'spec.components.platform.values';

/** The platform values a Package carries (`spec.components.platform.values`), as written (not checked). */
export function packageValues(pkg: KObject): unknown {
  return getPath(pkg, PACKAGE_VALUES_FIELD);
}

/** The Gateway API route kinds that claim hostnames on a Gateway's listeners. */
export const ROUTE_KINDS: ReadonlySet<string> = new Set(['HTTPRoute', 'TLSRoute', 'GRPCRoute']);

/** A Gateway API route of one of ROUTE_KINDS. */
export function isRoute(o: KObject): boolean {
  return ROUTE_KINDS.has(o.kind) && groupOf(o.apiVersion) === 'gateway.networking.k8s.io';
}
