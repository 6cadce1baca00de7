/**
 * `kubectl apply` of a given object over the live one, as `diff` lays a change over the state
 * (docs/commands/diff.md: "an object with the same group, kind, namespace and name
 * replaces the state's"): the given object, with what the API server keeps when the given one
 * leaves it out — the state's `status`, the fields the server sets (metadata.uid,
 * resourceVersion, generation, creationTimestamp, managedFields) and, on a Namespace, its spec
 * and its `kubernetes.io/metadata.name` label. Pure.
 */
import { isNamespace, type KObject } from '../k8s/model';
import { NS_LABEL_NAME } from '../platform/names';

/** Fields the API server owns: an applied object without them keeps the state's. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields'];

/** `kubectl apply` of `given` over `live`: the given object, with what the server keeps. */
export function applyOver(given: KObject, live: KObject | undefined): KObject {
  if (!live) return given;
  let out: KObject | undefined;
  const edit = () => (out ??= { ...given, metadata: { ...given.metadata } });
  for (const f of SERVER_METADATA)
    if (given.metadata[f] === undefined && live.metadata[f] !== undefined) edit().metadata[f] = live.metadata[f];
  if (given.status === undefined && live.status !== undefined) edit().status = live.status;
  if (isNamespace(given)) {
    if (given.spec === undefined && live.spec !== undefined) edit().spec = live.spec;
    // The API server stamps every Namespace with its name label.
    const name = live.metadata.labels?.[NS_LABEL_NAME];
    if (name !== undefined && given.metadata.labels?.[NS_LABEL_NAME] === undefined) {
      const m = edit().metadata;
      m.labels = { ...(m.labels ?? {}), [NS_LABEL_NAME]: name };
    }
  }
  return out ?? given;
}
