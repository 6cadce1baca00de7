/**
 * The apiserver's admission of the controller's own writes. The platform's admission policies
 * (src/charts/policies.ts, the very objects `render` emits) judge what cozystack-controller writes like
 * any other write: a Gateway whose listener hostname leaves the namespace's
 * namespace.cozystack.io/host apex is refused by layer 2 (cozystack-gateway-hostname-policy), and
 * the apiserver then refuses the whole Gateway write, every other listener on it frozen where it
 * stood (docs/behaviour.md §5.15). Offline nothing refuses the write, so the pass asks the
 * policies itself: a denial is the error the controller would get back, and stops the pass
 * (Ready=False, ReconcileError) with the object left as it was. This is how an inheriting child
 * with a custom apex (customer1.io under an example.org Gateway), or a cozy-* route naming a
 * hostname outside the apex, shows up in a preview instead of in a frozen Gateway.
 * Status writes go through the status subresource, which these policies do not intercept.
 * A write into a namespace the inputs do not hold is not judged: its labels are unknown.
 */
import { admitObject } from '../admission/admit';
import { denialMessage, type UserInfo } from '../admission/decision';
import { describe, type KObject } from '../k8s/model';
import type { Store, WriteAdmission } from '../k8s/store';
import { ReconcileError } from './errors';

/** cozystack-controller's identity: its service account in cozy-system. */
export const CONTROLLER_USER: UserInfo = {
  username: 'system:serviceaccount:cozy-system:cozystack-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-system', 'system:authenticated'],
};

/**
 * The store's write admission for a controller pass judged by `policies` (the pipeline passes the
 * ones `render` emits: layer 8, the only one reading platform values, judges Ingresses, which the
 * controller never writes).
 */
export function controllerWriteAdmission(policies: readonly KObject[]): WriteAdmission {
  return (obj, store) => admitWrite(store, obj, policies);
}

/** Throws the ReconcileError the apiserver's refusal would give when the platform's policies deny the write. */
export function admitWrite(store: Store, obj: KObject, policies: readonly KObject[]): void {
  const ns = obj.metadata.namespace ? store.get('', 'Namespace', undefined, obj.metadata.namespace) : undefined;
  // A namespace the inputs do not hold is unknown rather than absent: its labels cannot be read,
  // so the write is not judged (the cluster always has the namespace it writes into).
  if (obj.metadata.namespace && !ns) return;
  // Only the written object is judged (its Namespace is the request's namespaceObject, not a write);
  // an object no policy's match constraints select (a Certificate, an Issuer) costs no CEL at all.
  const denied = admitObject(obj, ns, policies, CONTROLLER_USER).filter((d) => !d.allowed);
  if (denied.length === 0) return;
  const why = denied.map((d) => denialMessage(d));
  throw new ReconcileError(`the apiserver refuses the write of ${describe(obj)}: ${why.join('; ')}`);
}
