/**
 * `admit` as a request, the logic behind the command (docs/commands/admit.md): who is asking
 * (the caller, with the group the apiserver adds on impersonation), where an object without a
 * namespace is created, which policies judge it (the ones `render` emits for the platform values
 * given), the decisions, whether the run fails, and what to tell a user about each denial. Pure.
 */
import { error, hasErrors, type Finding } from '../k8s/diagnostics';
import { printable } from '../k8s/printable';
import { describe, keyOf, type KObject } from '../k8s/model';
import { placeInNamespace, type Placement } from '../k8s/scope';
import { duplicateFindings } from '../k8s/duplicates';
import { clusterValues, resolvePlatformValues } from '../charts/platformValues';
import { POLICY_NAMES, renderPolicies } from '../charts/policies';
import { admit } from '../admission/admit';
import { denialMessage, denials, unjudged, warnings, type Decision, type UserInfo } from '../admission/decision';
import { unknownKeyFindings } from '../validation/inputValidation';
import { MAIN_VERSION, type CozystackVersion } from '../platform/cozystackVersions';

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
  opts: { gatewayApiVersion?: string; cozystack?: CozystackVersion } = {},
): { policies: KObject[]; findings: Finding[] } {
  const behaviour = (opts.cozystack ?? MAIN_VERSION).behaviour;
  const resolved = resolvePlatformValues({ files: input.valuesFiles, objects: input.objects }, behaviour);
  const { cluster, findings } = clusterValues(resolved.values, resolved.pkg, behaviour);
  if (hasErrors(findings)) return { policies: [], findings };
  return { policies: renderPolicies(cluster, { gatewayApiVersion: opts.gatewayApiVersion, behaviour }), findings };
}

export { placeInNamespace, type Placement } from '../k8s/scope';

export interface AdmitRequest extends AdmitInput {
  /** The namespace of the request (`-n`) for a namespaced object without one. */
  namespace: string;
  /** The user (`--as`, default the anonymous user) and the groups given (`--as-group`). */
  as?: string;
  asGroups: string[];
  gatewayApiVersion?: string;
  /** The Cozystack version whose policies judge (docs/versions.md §5, §10); absent: main. */
  cozystack?: CozystackVersion;
}

export interface AdmitOutcome {
  caller: UserInfo;
  /** The objects judged in the request's namespace. */
  placed: Placement[];
  /**
   * Two objects with one identity: which one the API server would hold depends on their order, so
   * the verdict would too. An input error, as render and reconcile have it.
   */
  duplicates: Finding[];
  /** The platform values' findings (no policies when they fail). */
  valueFindings: Finding[];
  /** Unknown keys in the values and the Tenants. */
  inputWarnings: Finding[];
  /** One per (object, policy) that matched, in object order then policy order. */
  decisions: Decision[];
  /**
   * An input error per object a policy could not judge: the policy reads the object's Namespace,
   * which is not among the inputs (the API server always has it; without it admit never admits).
   */
  unjudged: Finding[];
  denied: Decision[];
  warned: Decision[];
}

/** The whole request: every object judged as a CREATE by the caller against the platform's policies. */
export function admitRequest(req: AdmitRequest): AdmitOutcome {
  const { objects, placed } = placeInNamespace(req.objects, req.namespace);
  const input = { objects: req.objects, valuesFiles: req.valuesFiles };
  const platform = platformPolicies(input, { gatewayApiVersion: req.gatewayApiVersion, cozystack: req.cozystack });
  const caller = callerOf(req.as, req.asGroups);
  const decisions = admit(objects, platform.policies, caller, { gatewayApiVersion: req.gatewayApiVersion });
  return {
    caller,
    placed,
    duplicates: duplicateFindings(objects),
    valueFindings: platform.findings,
    inputWarnings: unknownKeyFindings(input, (req.cozystack ?? MAIN_VERSION).behaviour),
    decisions,
    unjudged: unjudgedFindings(decisions),
    denied: denials(decisions),
    warned: warnings(decisions),
  };
}

/**
 * What an admit run refuses on, in the order it is checked; the run stops at the first list that
 * holds an error (with --strict, a warning too): two objects with one identity (the verdict would
 * depend on their order); the platform values' findings, then the inputs' unknown keys; an object
 * a policy could not judge (its Namespace is not among the inputs: an input error, never an
 * admission). The objects judged in the request's namespace are said once the first has passed.
 */
export function admitRefusals(outcome: AdmitOutcome): [duplicates: Finding[], inputs: Finding[], unjudged: Finding[]] {
  return [outcome.duplicates, [...outcome.valueFindings, ...outcome.inputWarnings], outcome.unjudged];
}

/** One error per object whose Namespace a matching policy needs and the inputs lack, naming the policies. */
function unjudgedFindings(decisions: Decision[]): Finding[] {
  const byObject = new Map<string, { d: Decision; policies: string[] }>();
  for (const d of unjudged(decisions)) {
    const k = keyOf(d.object);
    const e = byObject.get(k);
    if (!e) byObject.set(k, { d, policies: [d.policy] });
    else if (!e.policies.includes(d.policy)) e.policies.push(d.policy);
  }
  const out: Finding[] = [];
  for (const { d, policies } of byObject.values()) {
    const ns = d.missingNamespace!;
    out.push(
      error(
        `cannot be judged: ValidatingAdmissionPolicy ${policies.map((p) => `'${p}'`).join(', ')} ${policies.length === 1 ? 'reads' : 'read'} Namespace ${ns} (its labels), which is not among the inputs`,
        {
          rule: 'admit.namespace-missing',
          object: d.object,
          field: 'metadata.namespace',
          hint: `pass the rendered Namespaces too: cozy-gw render --values ... -f tenants/ > rendered.yaml, then admit -f rendered.yaml; or a cluster snapshot, cozy-gw snapshot; the API server always judges an object with its Namespace`,
        },
      ),
    );
  }
  return out;
}

/** -o json: whether every object is admitted, the caller, and every decision. */
export function admitJson(outcome: AdmitOutcome): { allowed: boolean; user: UserInfo; decisions: Decision[] } {
  return { allowed: outcome.denied.length === 0, user: outcome.caller, decisions: outcome.decisions };
}

/** What is said of an object judged in the request's namespace (after its file:line, which the edge knows). */
export function placementNote(p: Placement, namespace: string): string {
  return `${describe(p.original)} has no metadata.namespace: judged in namespace ${namespace} (set -n/--namespace to choose another)`;
}

/** Whether the run fails: an object not judged, a denial, or with `--strict` an admission warning too. */
export function admitFails(outcome: AdmitOutcome, strict: boolean): boolean {
  return outcome.unjudged.length > 0 || outcome.denied.length > 0 || (strict && outcome.warned.length > 0);
}

/** One line per warning message (`--strict` calls it an error). */
export function formatAdmissionWarning(d: Decision, message: string, strict: boolean): string {
  return `${strict ? 'error' : 'warning'}: ${describe(d.object)}: ValidatingAdmissionPolicy '${d.policy}': ${message}`;
}

/** `HTTPRoute tenant-alice/app: ValidatingAdmissionPolicy 'name' with binding 'b' denied request: message` */
export function formatDenial(d: Decision, message?: string): string {
  return printable(`${describe(d.object)}: ${denialMessage(d, message)}`);
}

/**
 * What to do about a denial, per policy, and the field the policy judged (for the line number).
 * The stdout line stays the apiserver's wording (docs/commands/admit.md); the hint goes to
 * stderr, so that a user learns where the object is and how to get it admitted.
 */
export const DENIAL_HINTS: Readonly<Record<string, { field?: string; hint: string }>> = Object.freeze({
  [POLICY_NAMES.route]: {
    field: 'spec.hostnames',
    hint: "name hostnames equal to the namespace's namespace.cozystack.io/host label or under it; a route in a cozy-* namespace may publish any hostname",
  },
  [POLICY_NAMES.routeTls]: {
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
