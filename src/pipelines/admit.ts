/**
 * `admit` as a request, the logic behind the command: who is asking (the caller, with the group
 * the apiserver adds on impersonation), which policies judge it (the ones `render` emits for the
 * platform values given), and what to tell a user about each policy's denial. Pure.
 */
import { hasErrors, type Finding } from '../k8s/diagnostics';
import { printable } from '../k8s/printable';
import { describe, type KObject } from '../k8s/model';
import { clusterValues, resolvePlatformValues } from '../charts/platformValues';
import { POLICY_NAMES, renderPolicies } from '../charts/policies';
import type { Decision, UserInfo } from '../admission/admit';

export const ANONYMOUS = 'system:anonymous';

/** The user `--as` names with its `--as-group`s; impersonating a user adds system:authenticated (or system:unauthenticated for the anonymous user), as the apiserver does. */
export function callerOf(username: string = ANONYMOUS, asGroups: string[] = []): UserInfo {
  const groups = [...asGroups];
  const auto = username === ANONYMOUS ? 'system:unauthenticated' : 'system:authenticated';
  if (!groups.includes(auto)) groups.push(auto);
  return { username, groups };
}

export interface AdmitInput {
  objects: KObject[];
  valuesFiles: { file: string; values: Record<string, unknown> }[];
}

/**
 * The platform's admission policies exactly as `render` emits them for these platform values,
 * with the values' findings; no policies when the values fail.
 */
export function platformPolicies(
  input: AdmitInput,
  opts: { gatewayApiVersion?: string } = {},
): { policies: KObject[]; findings: Finding[] } {
  const resolved = resolvePlatformValues({ files: input.valuesFiles, objects: input.objects });
  const { cluster, findings } = clusterValues(resolved.values, resolved.pkg);
  if (hasErrors(findings)) return { policies: [], findings };
  return { policies: renderPolicies(cluster, { gatewayApiVersion: opts.gatewayApiVersion }), findings };
}

/** `HTTPRoute tenant-alice/app: ValidatingAdmissionPolicy 'name' denied request: message` */
export function formatDenial(d: Decision, message: string): string {
  return printable(
    `${describe(d.object)}: ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${message}`,
  );
}

/**
 * What to do about a denial, per policy, and the field the policy judged (for the line number).
 * The stdout line stays the apiserver's wording (cli-contract "cozy-gw admit"); the hint goes to
 * stderr, so that a user learns where the object is and how to get it admitted.
 */
export const DENIAL_HINTS: Readonly<Record<string, { field?: string; hint: string }>> = Object.freeze({
  [POLICY_NAMES.route]: {
    field: 'spec.hostnames',
    hint: "name hostnames equal to the namespace's namespace.cozystack.io/host label or under it; a route in a cozy-* namespace may publish any hostname",
  },
  [POLICY_NAMES.tenantHost]: {
    field: 'spec.host',
    hint: 'leave spec.host unset (the tenant gets <name>.<parent apex>), or have a cluster-admin or the cozystack/Flux service accounts apply it (--as-group system:masters to preview that)',
  },
  [POLICY_NAMES.namespaceLabel]: {
    field: 'metadata.labels',
    hint: 'the tenant chart writes namespace.cozystack.io/host; to preview what Flux applies, run with --as-group system:serviceaccounts:cozy-fluxcd',
  },
  [POLICY_NAMES.gateway]: {
    field: 'spec.listeners',
    hint: "give every listener a hostname equal to the namespace's namespace.cozystack.io/host label or under it",
  },
  [POLICY_NAMES.attachedNamespaces]: {
    field: 'spec.components.platform.values.gateway.attachedNamespaces',
    hint: 'remove the tenant-* entries; a tenant that needs its own Gateway sets spec.gateway: true on its Tenant',
  },
  [POLICY_NAMES.ingress]: {
    field: 'spec.rules',
    hint: "use hosts under the namespace's apex or outside the platform apex, give every rule a host, and drop spec.defaultBackend",
  },
});

/** The hint for a denial by a policy, and the field it judged. */
export function denialHint(policy: string): { field?: string; hint: string } {
  return DENIAL_HINTS[policy] ?? { hint: 'fix the object, or run as a caller the policy trusts (--as, --as-group)' };
}
