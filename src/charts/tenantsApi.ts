/**
 * The Tenants API's checks (docs/decisions.md §15): upstream a Tenant is served by cozystack-api,
 * which checks it before it becomes the HelmRelease that renders the apps/tenant chart, so a Tenant
 * it refuses never reaches the chart. Every rule, in one place:
 *
 * - the name: the chart README's pattern `[a-z][a-z0-9]*` (tenantNameError, docs/decisions.md §Q13)
 *   and at most NAME_LIMIT (46) characters, at every depth; the computed tenant namespace at most
 *   63 (namespaceNameError);
 * - no top-level spec key starting with `_` (reserved for the values the platform injects; nested
 *   keys are not checked);
 * - every `resourceQuotas` value a Kubernetes quantity (src/k8s/quantity.ts: `1e1.5` is refused
 *   although the chart's pattern admits it);
 * - the hierarchical quota: for each resource its direct parent declares, a child's value may not
 *   exceed the parent's quota less what its siblings declare (exact decimals, mixed units; the
 *   parent's live usage, unknown offline, is taken as zero). Keys the parent does not declare and
 *   children without a quota are not checked; only the direct parent counts; where siblings
 *   over-commit together each of them is refused, naming the others.
 *
 * The last two exist only from v1.6 on (docs/versions.md §A1): under a v1.5 release the caller
 * (tenantChart.ts tenantsInputCheck) skips them, and a value the schema's pattern admits but no
 * quantity parses (`1e1.5`) reaches the chart, whose quota helper reads it as 0.
 *
 * Each refusal is an error at the Tenant's field naming the rule and the numbers. Pure.
 */
import { error, warning, type Finding } from '../k8s/diagnostics';
import { isObject, refOf, type KObject } from '../k8s/model';
import { decimalAdd, decimalCmp, decimalSub, quantityOf, showQuantity, ZERO, type Decimal } from '../k8s/quantity';
import { isReservedSpecKey, TENANT_ROOT, tenantNamespace } from '../platform/tenancy';
import { namespaceNameError, tenantNameError } from './tenantNames';

/** Helm's release-name limit (53) less the `tenant-` prefix of a tenant's release. */
export const NAME_LIMIT = 53 - 'tenant-'.length;

/** The rule names of docs/decisions.md §15's checks, as findings carry them. */
export const TENANTS_API_RULES = {
  name: 'tenant.name',
  nameLength: 'tenant.name-length',
  namespace: 'tenant.namespace-name',
  reservedKey: 'tenant.reserved-key',
  quantity: 'tenant.quantity',
  quantityUnchecked: 'tenant.quantity-unchecked',
  quota: 'tenant.quota-hierarchy',
} as const;

const where = (t: KObject, field?: string) => ({ object: refOf(t), field });

/** The name rules that depend on the name alone: the pattern and the length. */
export function nameFindings(t: KObject, name: string, suggestion: string): Finding[] {
  const out: Finding[] = [];
  const bad = tenantNameError(name);
  if (bad)
    out.push(
      error(bad, {
        ...where(t, 'metadata.name'),
        rule: TENANTS_API_RULES.name,
        hint: `rename it with lowercase letters and digits only, starting with a letter, e.g. ${suggestion}`,
      }),
    );
  if (name.length > NAME_LIMIT)
    out.push(
      error(
        `the Tenant name is ${name.length} characters long: the Tenants API admits at most ${NAME_LIMIT} (Helm's release-name limit of 53 less the "tenant-" prefix), at every depth`,
        {
          ...where(t, 'metadata.name'),
          rule: TENANTS_API_RULES.nameLength,
          hint: `shorten the name to at most ${NAME_LIMIT} characters`,
        },
      ),
    );
  return out;
}

/** The computed tenant namespace T as a Namespace name (at most 63 characters). */
export function namespaceFinding(t: KObject, name: string, parentNamespace: string): Finding | undefined {
  const bad = namespaceNameError(tenantNamespace(name, parentNamespace));
  if (!bad) return undefined;
  return error(bad, {
    ...where(t, 'metadata.name'),
    rule: TENANTS_API_RULES.namespace,
    hint: 'shorten the Tenant name or nest it less deeply: the namespace joins every ancestor name',
  });
}

/** Top-level spec keys starting with `_`: reserved for the values the platform injects. */
export function reservedKeyFindings(t: KObject): Finding[] {
  if (!isObject(t.spec)) return [];
  return Object.keys(t.spec)
    .filter(isReservedSpecKey)
    .map((k) =>
      error(
        `spec key "${k}" is reserved: top-level keys starting with "_" hold the values the platform injects (_cluster, _namespace), and the Tenants API refuses a Tenant that sets one`,
        {
          ...where(t, `spec.${k}`),
          rule: TENANTS_API_RULES.reservedKey,
          hint: `remove spec.${k}: platform settings go in the platform values`,
        },
      ),
    );
}

/** The Tenant's `resourceQuotas` map, when it is one. */
function quotasOf(t: KObject): Record<string, unknown> | undefined {
  const q = isObject(t.spec) ? t.spec.resourceQuotas : undefined;
  return isObject(q) ? q : undefined;
}

/**
 * Every `resourceQuotas` value that is no Kubernetes quantity; `skip`: the keys another check
 * already refused (the values schema), not reported twice.
 */
export function quantityFindings(t: KObject, skip: ReadonlySet<string> = new Set()): Finding[] {
  const quotas = quotasOf(t);
  if (!quotas) return [];
  const out: Finding[] = [];
  for (const [k, v] of Object.entries(quotas)) {
    if (skip.has(k) || v === null) continue;
    const q = quantityOf(v);
    if (q.ok) continue;
    out.push(
      error(`${JSON.stringify(v)} is not a Kubernetes quantity: ${q.reason}`, {
        ...where(t, `spec.resourceQuotas.${k}`),
        rule: TENANTS_API_RULES.quantity,
        hint: 'write an integer, or a quantity with a suffix such as 500m or 4Gi, or an integer exponent such as 1e3',
      }),
    );
  }
  return out;
}

/**
 * Under a version whose Tenants API checks no quota (docs/versions.md §A1): each value that is no
 * quantity passes, and the chart renders it as the ResourceQuota's limit (its request reads as 0),
 * which the API server refuses when the tenant's release applies it. A warning, not a refusal.
 */
export function uncheckedQuantityFindings(t: KObject, skip: ReadonlySet<string> = new Set()): Finding[] {
  // Only these are converted to compute a request (docs/tenant.md §2.0.6); the rest are copied.
  const converted = ['cpu', 'memory', 'ephemeral-storage'].map((k) => `spec.resourceQuotas.${k}`);
  return quantityFindings(t, skip).map((f) =>
    warning(
      `${f.message}; the Tenants API of the Cozystack version rendered does not check quotas, so the chart writes it into the ResourceQuota${converted.includes(f.field ?? '') ? ' (its request reads as 0)' : ''}, which the API server refuses`,
      {
        object: f.object,
        field: f.field,
        rule: TENANTS_API_RULES.quantityUnchecked,
        hint: f.hint,
      },
    ),
  );
}

/** A Tenant's declared quotas as exact values (those that parse). */
function declared(t: KObject): Map<string, { text: string; value: Decimal }> {
  const out = new Map<string, { text: string; value: Decimal }>();
  const quotas = quotasOf(t);
  if (!quotas) return out;
  for (const [k, v] of Object.entries(quotas)) {
    const q = quantityOf(v);
    if (q.ok) out.set(k, { text: typeof v === 'string' ? v : String(v), value: q.value });
  }
  return out;
}

const nsOf = (t: KObject): string =>
  typeof t.metadata?.name === 'string' && typeof t.metadata?.namespace === 'string'
    ? tenantNamespace(t.metadata.name, t.metadata.namespace)
    : '';

/**
 * The hierarchical quota over the Tenants that passed their own checks (`tenants`: each identity
 * once). For each parent and each resource it declares, the children that declare it must fit
 * together: a child whose value exceeds the parent's quota less its siblings' is refused, naming
 * the parent's quota, the siblings and what they hold, and by how much it is over.
 */
export function quotaHierarchyFindings(tenants: readonly KObject[]): { tenant: KObject; finding: Finding }[] {
  const byNamespace = new Map<string, KObject>();
  for (const t of tenants) {
    const T = nsOf(t);
    if (T && !byNamespace.has(T)) byNamespace.set(T, t);
  }
  const children = new Map<string, KObject[]>();
  for (const t of byNamespace.values()) {
    const P = t.metadata.namespace as string;
    if (nsOf(t) === TENANT_ROOT) continue; // the root Tenant is tenant-root's own values
    const list = children.get(P);
    if (list) list.push(t);
    else children.set(P, [t]);
  }
  const out: { tenant: KObject; finding: Finding }[] = [];
  for (const [P, kids] of children) {
    const parent = byNamespace.get(P);
    if (!parent) continue;
    const limits = declared(parent);
    if (!limits.size) continue;
    const held = kids.map((c) => ({ t: c, q: declared(c) }));
    for (const [k, limit] of limits) {
      const holders = held.filter((h) => h.q.has(k));
      if (holders.length === 0) continue;
      let total: Decimal = ZERO;
      for (const h of holders) total = decimalAdd(total, h.q.get(k)!.value);
      if (decimalCmp(total, limit.value) <= 0) continue;
      for (const h of holders) {
        const own = h.q.get(k)!;
        const siblings = holders.filter((x) => x !== h);
        const theirs = decimalSub(total, own.value);
        const left = decimalSub(limit.value, theirs);
        const over = decimalSub(own.value, left);
        const named = siblings.map((x) => `${nsOf(x.t)} ${x.q.get(k)!.text}`).join(', ');
        const siblingsText = siblings.length
          ? `its siblings hold ${showQuantity(theirs)} (${named}), which leaves ${showQuantity(left)}`
          : 'it has no sibling declaring it';
        out.push({
          tenant: h.t,
          finding: error(
            `${own.text} does not fit in its parent's quota: ${P} declares ${k} ${limit.text} and ${siblingsText}; over by ${showQuantity(over)}`,
            {
              ...where(h.t, `spec.resourceQuotas.${k}`),
              rule: TENANTS_API_RULES.quota,
              hint: siblings.length
                ? `lower ${k} here or in ${siblings.map((x) => nsOf(x.t)).join(', ')}, or raise the parent's: upstream refuses whichever of them is created last`
                : `lower ${k} to at most ${showQuantity(left)}, or raise the parent's`,
            },
          ),
        });
      }
    }
  }
  return out;
}
