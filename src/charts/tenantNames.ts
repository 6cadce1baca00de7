/**
 * The names a Tenant must have (docs/behaviour.md §2.1, docs/tenant.md §2.0.2, docs/decisions.md §Q13): the
 * chart's `tenant.name` checks (the release name, the release namespace), the chart README's rule
 * for a tenant name, and the tenant namespace T as a Namespace name. Pure: strings in, messages out.
 */
import { isDns1123Label, notANamespaceName } from '../k8s/dnsNames';
import { releaseName } from './tenantRelease';

/**
 * docs/tenant.md §2.0.2 check 1 (`tenant.name`): split R on `-`, exactly two parts, the first `tenant`. So a
 * Tenant name containing `-` fails; an empty one (`tenant-`) passes it (Q13 rejects it apart).
 */
export function releaseNameError(name: string): string | undefined {
  const parts = releaseName(name).split('-');
  if (parts.length === 2 && parts[0] === 'tenant') return undefined;
  return `release name "${releaseName(name)}" is invalid: a tenant release name must start with "tenant-" and contain no other dashes, so the Tenant name "${name}" must not contain "-"`;
}

/** docs/tenant.md §2.0.2 check 2: the release namespace (the Tenant's metadata.namespace) must start with `tenant-`. */
export function releaseNamespaceError(ns: string): string | undefined {
  if (ns.startsWith('tenant-')) return undefined;
  return `release namespace "${ns}" is invalid: a Tenant lives in its parent tenant's namespace, which starts with "tenant-" (tenant-root for a top-level tenant)`;
}

/** The chart README's rule for a tenant name: lowercase alphanumerics starting with a letter. */
const TENANT_NAME = /^[a-z][a-z0-9]*$/;

/**
 * docs/decisions.md §Q13: the name is empty, or not `[a-z][a-z0-9]*` for another reason than a dash (a dash has
 * the chart's own message, releaseNameError). Upper case or dots pass the chart but make invalid
 * Kubernetes names; a leading digit passes both but breaks the README's rule.
 */
export function tenantNameError(name: string): string | undefined {
  if (name === '')
    return 'the Tenant name is empty: the apps/tenant chart README requires a name of lowercase letters and digits, starting with a letter';
  const undashed = name.replace(/-/g, '');
  if (undashed === '' || TENANT_NAME.test(undashed)) return undefined;
  return `the Tenant name "${name}" is invalid: the apps/tenant chart README requires lowercase letters and digits only, starting with a letter`;
}

/** T must be a valid Namespace name (a DNS-1123 label, at most 63 characters; docs/decisions.md §Q13). */
export function namespaceNameError(ns: string): string | undefined {
  if (isDns1123Label(ns)) return undefined;
  if (ns.length > 63)
    return `tenant namespace "${ns}" is ${ns.length} characters long: a Namespace name (and the tenant.cozystack.io/<namespace> label key) holds at most 63`;
  return `tenant namespace ${notANamespaceName(ns)}`;
}

/** A Kubernetes label value: at most 63 characters, alphanumerics with `-`, `_`, `.` inside. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function labelValueError(v: string): string | undefined {
  if (v.length <= 63 && LABEL_VALUE.test(v)) return undefined;
  return v.length > 63
    ? `is ${v.length} characters long; a label value holds at most 63`
    : 'is not a valid label value (alphanumerics, "-", "_" and "." inside)';
}
