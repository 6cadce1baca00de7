/**
 * `tenant.yaml` of the apps/tenant chart (docs/tenant.md §2.1) and the cozy-lib RBAC helper it
 * calls (§2.0.5): ServiceAccount T/T, the five RoleBindings `cozy:tenant[:level]` in T, and
 * `cozy:T:dashboard` in `cozy-public`. Subjects follow the ancestor chains of §2.0.4 (C-sa for
 * `cozy:tenant`, C-level for the level bindings; ancestorChains.ts). Depends on R and P only. Pure.
 */
import type { KObject } from '../k8s/model';
import { levelChain, serviceAccountChain } from './ancestorChains';
import type { TenantRelease } from './tenantRelease';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_API = 'rbac.authorization.k8s.io/v1';

export type Subject =
  | { kind: 'ServiceAccount'; name: string; namespace: string }
  | { kind: 'Group'; name: string; apiGroup: typeof RBAC_GROUP };

/** §2.0.5: cozy-lib's access levels and their order. */
export const ACCESS_LEVELS: Readonly<Record<string, number>> = { view: 0, use: 1, admin: 2, 'super-admin': 3 };

/**
 * The levels at or above `level`, in byte order of the level name (the helper walks a map, and Go
 * templates walk maps in sorted key order): view → admin, super-admin, use, view.
 */
export function levelsAtOrAbove(level: string): string[] {
  const min = ACCESS_LEVELS[level];
  if (min === undefined)
    throw new Error(
      `internal: access level ${level} is not allowed (allowed: ${Object.keys(ACCESS_LEVELS).join(', ')})`,
    );
  return Object.keys(ACCESS_LEVELS)
    .sort()
    .filter((l) => ACCESS_LEVELS[l] >= min);
}

const serviceAccount = (t: string): Subject => ({ kind: 'ServiceAccount', name: t, namespace: t });
const group = (name: string): Subject => ({ kind: 'Group', name, apiGroup: RBAC_GROUP });

/**
 * §2.0.5 (cozy-lib `subjectsForTenantAndAccessLevel`): for each tenant t of C-level(N), its
 * ServiceAccount, then its group `t-<ℓ>` for each level ℓ at or above `level`.
 */
export function subjectsForTenantAndAccessLevel(level: string, N: string): Subject[] {
  if (!N.startsWith('tenant-')) throw new Error(`internal: ${N} is not a valid tenant identifier`);
  const levels = levelsAtOrAbove(level);
  const out: Subject[] = [];
  for (const t of levelChain(N)) {
    out.push(serviceAccount(t));
    for (const l of levels) out.push(group(`${t}-${l}`));
  }
  return out;
}

function roleBinding(
  name: string,
  namespace: string,
  subjects: Subject[],
  roleRef: { kind: string; name: string },
): KObject {
  return {
    apiVersion: RBAC_API,
    kind: 'RoleBinding',
    metadata: { name, namespace },
    subjects,
    roleRef: { kind: roleRef.kind, name: roleRef.name, apiGroup: RBAC_GROUP },
  };
}

/** §2.1: the 7 objects of `tenant.yaml`, in template order. */
export function renderTenantRbac(r: Pick<TenantRelease, 'namespace' | 'parentNamespace'>): KObject[] {
  const T = r.namespace;
  const out: KObject[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: T, namespace: T } },
    roleBinding('cozy:tenant', T, serviceAccountChain(T, r.parentNamespace).map(serviceAccount), {
      kind: 'ClusterRole',
      name: 'cozy:tenant',
    }),
  ];
  for (const level of ['view', 'use', 'admin', 'super-admin']) {
    const name = `cozy:tenant:${level}`;
    out.push(roleBinding(name, T, subjectsForTenantAndAccessLevel(level, T), { kind: 'ClusterRole', name }));
  }
  out.push(
    roleBinding(
      `cozy:${T}:dashboard`,
      'cozy-public',
      [group(`${T}-super-admin`), group(`${T}-admin`), group(`${T}-use`), group(`${T}-view`), serviceAccount(T)],
      { kind: 'Role', name: 'cozy:tenant:dashboard' },
    ),
  );
  return out;
}
