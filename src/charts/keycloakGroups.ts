/**
 * `keycloakgroups.yaml` of the apps/tenant chart (docs/tenant.md §2.4): the four
 * KeycloakRealmGroups `T-view`, `T-use`, `T-admin`, `T-super-admin` in T (the groups the
 * RoleBindings of §2.1 name), when `_cluster.oidc-enabled` is the string "true" and the API
 * `v1.edp.epam.com/v1` is served (capabilities.ts, docs/decisions.md §Q3). Pure.
 */
import type { KObject } from '../k8s/model';
import { isObject } from '../k8s/model';

export const KEYCLOAK_API_VERSION = 'v1.edp.epam.com/v1';

/** A failure of the template: Go refuses `eq` between a non-string and a string (docs/tenant.md §2.4, docs/decisions.md §Q11). */
export class OidcFlagError extends Error {
  constructor(readonly value: unknown) {
    super(
      `_cluster.oidc-enabled is ${JSON.stringify(value)}, not a string: the template compares it with "true" and Go refuses the comparison (incompatible types for comparison)`,
    );
    this.name = 'OidcFlagError';
  }
}

/**
 * docs/tenant.md §2.4 condition 1: `_cluster["oidc-enabled"]` equals the string "true". An absent `_cluster` or
 * key is false; any other type throws OidcFlagError.
 */
export function oidcEnabled(cluster: Record<string, unknown> | null | undefined): boolean {
  const v = isObject(cluster) ? cluster['oidc-enabled'] : undefined;
  if (v === undefined || v === null) return false;
  if (typeof v !== 'string') throw new OidcFlagError(v);
  return v === 'true';
}

/** The four groups of tenant namespace T, in template order. */
export function keycloakGroupNames(T: string): string[] {
  return ['view', 'use', 'admin', 'super-admin'].map((l) => `${T}-${l}`);
}

/**
 * docs/tenant.md §2.4: the four KeycloakRealmGroups, or none. `served` is whether `v1.edp.epam.com/v1` is served.
 * The flag is condition 1 and is always compared, so a non-string fails whether or not the API is
 * served.
 */
export function renderKeycloakGroups(
  T: string,
  cluster: Record<string, unknown> | undefined,
  served: boolean,
): KObject[] {
  if (!oidcEnabled(cluster) || !served) return [];
  return keycloakGroupNames(T).map((name) => ({
    apiVersion: KEYCLOAK_API_VERSION,
    kind: 'KeycloakRealmGroup',
    metadata: { name, namespace: T },
    spec: { name, realmRef: { name: 'keycloakrealm-cozy', kind: 'ClusterKeycloakRealm' } },
  }));
}
