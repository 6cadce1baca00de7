/**
 * What admission decides about one object and one policy, and how a denial reads: the caller, the
 * decision, the apiserver's wording of a denial, and which decisions deny or warn. Apart from the
 * evaluator (admit.ts) so that the words load without the CEL engine. Pure.
 */
import type { ObjRef } from '../k8s/model';

export interface UserInfo {
  username: string;
  groups: string[];
  uid?: string;
}

export interface Decision {
  /** The object judged. */
  object: ObjRef;
  /** The policy that matched it. */
  policy: string;
  /** The binding through which the policy applied. */
  binding: string;
  /** Deny, Warn or Audit (the binding's validationActions). */
  actions: string[];
  allowed: boolean;
  /** One per failed validation (or error), in validation order. */
  messages: string[];
  /** The reason of the first failed validation (Forbidden, Invalid, ...). */
  reason?: string;
  /**
   * Not judged: the policy reads the object's Namespace, which is not among the inputs (never an
   * admission: `allowed` is false, and `admit` reports it as an input error).
   */
  missingNamespace?: string;
}

/**
 * The apiserver's words for a denial: `ValidatingAdmissionPolicy 'name' with binding 'b' denied
 * request: message` (the failed validations' messages joined, unless one message is given).
 */
export function denialMessage(d: Decision, message = d.messages.join('; ')): string {
  return `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${message}`;
}

/** The denials (Deny action, a failed validation) among the decisions; an unjudged one is not a denial. */
export function denials(decisions: Decision[]): Decision[] {
  return decisions.filter((d) => !d.allowed && d.missingNamespace === undefined);
}

/** The decisions that could not be made: the policy needs a Namespace the inputs lack. */
export function unjudged(decisions: Decision[]): Decision[] {
  return decisions.filter((d) => d.missingNamespace !== undefined);
}

/** The warnings (Warn action, a failed validation) among the decisions. */
export function warnings(decisions: Decision[]): Decision[] {
  return decisions.filter(
    (d) => d.messages.length > 0 && d.actions.includes('Warn') && d.missingNamespace === undefined,
  );
}
