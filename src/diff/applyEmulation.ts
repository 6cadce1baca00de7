/**
 * A given object applied over the live one, as `diff` lays a change over the state
 * (docs/decisions.md §C8: "an object with the same group, kind, namespace and
 * name replaces the state's"; "A live snapshot is compared as it will be applied"). Two cases:
 *
 * - The live object carries managedFields (a snapshot of a live cluster): server-side apply by
 *   Flux's field manager, as the API server merges it (serverSideApply.ts): lists and maps by the
 *   kind's schema (atomic, keyed or sets), what the applier and the kubectl managers it takes over
 *   owned and the manifests stopped setting removed unless another manager co-owns it, the
 *   server's defaults written again. So what the API server, Flux and other controllers added
 *   (uid, resourceVersion, generation, creationTimestamp, managedFields, finalizers, defaulted
 *   fields, status, Flux's labels, the `kubernetes.io/metadata.name` label) stays as it is.
 * - Otherwise (a tree, a `reconcile --all` output): `kubectl apply`, the given object with what
 *   the API server keeps when the given one leaves it out: the state's `status`, the fields the
 *   server sets (metadata.uid, resourceVersion, generation, creationTimestamp, managedFields) and,
 *   on a Namespace, its spec and its `kubernetes.io/metadata.name` label.
 *
 * Either way the annotations cozy-gw puts on a Secret it printed without its data
 * (secretRedaction.ts) are the state's word on the live data, never carried onto the given Secret.
 * Pure.
 */
import { isNamespace, type KObject } from '../k8s/model';
import { NS_LABEL_NAME } from '../platform/names';
import { hasManagedFields } from '../k8s/managedFields';
import { DIGEST_ANNOTATION, isSecret, REDACTED_ANNOTATION } from '../k8s/secretRedaction';
import { serverSideApply } from './serverSideApply';

/** Fields the API server owns: an applied object without them keeps the state's. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields'];

/** cozy-gw's annotations on a Secret printed without its data: the state's, never the given object's. */
const REDACTION_ANNOTATIONS = [REDACTED_ANNOTATION, DIGEST_ANNOTATION];

/** `given` applied over `live`: see the module comment. */
export function applyOver(given: KObject, live: KObject | undefined): KObject {
  if (!live) return given;
  const out = hasManagedFields(live) ? serverSideApply(given, live) : clientSideApply(given, live);
  return isSecret(given) ? withoutRedactionMarks(out) : out;
}

function clientSideApply(given: KObject, live: KObject): KObject {
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

/**
 * The applied Secret without cozy-gw's redaction annotations: the state's word on the live data,
 * never the applied object's (the change's own are dropped before, redactionClaims.ts).
 */
function withoutRedactionMarks(o: KObject): KObject {
  const a = o.metadata.annotations;
  if (!a || !REDACTION_ANNOTATIONS.some((k) => k in a)) return o;
  const annotations = { ...a };
  for (const k of REDACTION_ANNOTATIONS) delete annotations[k];
  const metadata: KObject['metadata'] = { ...o.metadata, annotations };
  if (!Object.keys(annotations).length) delete metadata.annotations;
  return { ...o, metadata };
}
