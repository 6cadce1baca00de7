/**
 * The four ancestor chains of the apps/tenant chart (docs/tenant.md §2.0.4). They differ, and
 * each template uses its own: keep them apart. T is the tenant namespace, P the release namespace
 * (the parent tenant's namespace; tenant-root for tenant-root itself). Pure.
 *
 * | Chain   | Used by                                   | Value                                                  |
 * |---------|-------------------------------------------|--------------------------------------------------------|
 * | C-label | Namespace labels (docs/behaviour.md §2.4)   | tenant-root, then Prefixes(T)                          |
 * | C-sa    | RoleBinding cozy:tenant subjects          | tenant-root (only if P ≠ tenant-root), Prefixes(P), T  |
 * | C-level | the four level RoleBindings (cozy-lib)    | Prefixes(T), then tenant-root (only if T ≠ tenant-root)|
 * | C-net   | network policy ancestor rules             | Prefixes(P); skipped entirely when T = tenant-root     |
 */
import { TENANT_ROOT } from '../platform/tenancy';

/**
 * Prefixes(N): the dash-prefixes of N with at least two parts, shortest first, N itself last.
 * Prefixes(`tenant-a-b`) = [`tenant-a`, `tenant-a-b`]; Prefixes(`tenant-root`) = [`tenant-root`].
 */
export function prefixes(n: string): string[] {
  const out: string[] = [];
  let i = n.indexOf('-');
  if (i < 0) return out;
  for (;;) {
    const j = n.indexOf('-', i + 1);
    if (j < 0) break;
    out.push(n.slice(0, j));
    i = j;
  }
  out.push(n);
  return out;
}

/** C-label: `tenant-root`, then Prefixes(T) (the Namespace's `tenant.cozystack.io/<a>` labels). */
export function labelChain(T: string): string[] {
  return [TENANT_ROOT, ...prefixes(T)];
}

/**
 * C-label of the releases up to v1.5.3 (docs/versions.md §T2): T, then Prefixes(P), the parent's
 * dash-prefixes. From depth 2 on it lacks `tenant-root` (`tenant-a-b` in `tenant-a`: `tenant-a-b`,
 * `tenant-a`).
 */
export function parentPrefixesLabelChain(T: string, P: string): string[] {
  return [T, ...prefixes(P)];
}

/** C-sa: `tenant-root` (only if P ≠ tenant-root), then Prefixes(P), then T. For tenant-root: tenant-root twice (kept, docs/decisions.md §Q12). */
export function serviceAccountChain(T: string, P: string): string[] {
  return [...(P !== TENANT_ROOT ? [TENANT_ROOT] : []), ...prefixes(P), T];
}

/** C-level: Prefixes(T), then `tenant-root` (only if T ≠ tenant-root). */
export function levelChain(T: string): string[] {
  const out = prefixes(T);
  if (T !== TENANT_ROOT) out.push(TENANT_ROOT);
  return out;
}

/**
 * C-net: Prefixes(P); empty (the rules are skipped) when T = tenant-root. Below depth 1 it does
 * not contain tenant-root: it is the parent's dash-prefixes, not T's ancestors (docs/decisions.md §Q12).
 */
export function networkChain(T: string, P: string): string[] {
  return T === TENANT_ROOT ? [] : prefixes(P);
}
