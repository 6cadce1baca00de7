/**
 * A given object applied over the live one, as `diff` lays a change over the state
 * (docs/decisions.md §C8: "an object with the same group, kind, namespace and
 * name replaces the state's"; "A live snapshot is compared as it will be applied"). Two cases:
 *
 * - The live object carries managedFields (a snapshot of a live cluster): server-side apply by
 *   Flux's field manager (FLUX_MANAGER). Every field the given object sets wins; a field only the
 *   live object has stays, unless the applier owned it (its managedFields say so), in which case the
 *   manifests stopped setting it and server-side apply removes it. So what the API server, Flux and
 *   other controllers added (uid, resourceVersion, generation, creationTimestamp, managedFields,
 *   finalizers, defaulted fields, status) stays as it is; Flux's own `kustomize.toolkit.fluxcd.io/*`
 *   labels and annotations stay although Flux owns them (it adds them to every object it applies),
 *   and so does the `kubernetes.io/metadata.name` label the API server stamps on a Namespace. List
 *   elements are merged position by position when both lists are as long: a field the server
 *   defaulted inside an element (a subject's apiGroup) stays.
 * - Otherwise (a tree, a `reconcile --all` output): `kubectl apply`, the given object with what
 *   the API server keeps when the given one leaves it out: the state's `status`, the fields the
 *   server sets (metadata.uid, resourceVersion, generation, creationTimestamp, managedFields) and,
 *   on a Namespace, its spec and its `kubernetes.io/metadata.name` label.
 *
 * Either way the annotations cozy-gw puts on a Secret it printed without its data
 * (secretRedaction.ts) are the state's word on the live data, never carried onto the given Secret.
 * Pure.
 */
import { isNamespace, isObject, type KObject } from '../k8s/model';
import { NS_LABEL_NAME } from '../platform/names';
import { elementSets, FLUX_MANAGER, hasManagedFields, memberSets, ownedBy, type FieldSet } from '../k8s/managedFields';
import { DIGEST_ANNOTATION, isSecret, REDACTED_ANNOTATION } from '../k8s/secretRedaction';

/** Fields the API server owns: an applied object without them keeps the state's. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields'];

/** Flux's own labels and annotations (it adds them on every apply). */
const FLUX_PREFIX = 'kustomize.toolkit.fluxcd.io/';

/** cozy-gw's annotations on a Secret printed without its data: the state's, never the given object's. */
const REDACTION_ANNOTATIONS = [REDACTED_ANNOTATION, DIGEST_ANNOTATION];

/** `given` applied over `live`: see the module comment. */
export function applyOver(given: KObject, live: KObject | undefined): KObject {
  if (!live) return given;
  const out = hasManagedFields(live) ? serverSideApply(given, live) : clientSideApply(given, live);
  return isSecret(given) ? withoutRedactionMarks(out, given) : out;
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

/** Whether a live-only field at this place stays although the applier owned it. */
type Keeps = (key: string) => boolean;

const keepsNothing: Keeps = () => false;
const keepsFlux: Keeps = (k) => k.startsWith(FLUX_PREFIX);

function serverSideApply(given: KObject, live: KObject): KObject {
  const sets = ownedBy(live, FLUX_MANAGER);
  const metaSets = memberSets(sets, 'metadata');
  const out = merge(given, live, sets, (k) => k === 'metadata') as KObject;
  const metadata = merge(given.metadata, live.metadata, metaSets, keepsNothing, (k) =>
    k === 'labels'
      ? (l) => keepsFlux(l) || (isNamespace(given) && l === NS_LABEL_NAME)
      : k === 'annotations'
        ? keepsFlux
        : undefined,
  ) as KObject['metadata'];
  const applied: KObject = { ...out, metadata };
  // A Secret's data is what the given one says (stringData is folded into it on write).
  if (isSecret(given) && given.data === undefined && given.stringData !== undefined) delete applied.data;
  return applied;
}

/**
 * The given value over the live one: maps member by member, lists of the same length element by
 * element, anything else the given value. A live-only member stays unless `sets` own it (and
 * `keeps` does not keep it); `inner` gives the rule one level down for a member.
 */
function merge(
  given: unknown,
  live: unknown,
  sets: readonly FieldSet[],
  keeps: Keeps,
  inner?: (key: string) => Keeps | undefined,
): unknown {
  if (isObject(given) && isObject(live)) {
    const out: Record<string, unknown> = {};
    for (const [k, g] of Object.entries(given)) {
      if (g === undefined) continue;
      put(
        out,
        k,
        Object.prototype.hasOwnProperty.call(live, k)
          ? merge(g, live[k], memberSets(sets, k), inner?.(k) ?? keepsNothing)
          : g,
      );
    }
    for (const [k, l] of Object.entries(live)) {
      if (Object.prototype.hasOwnProperty.call(out, k) || l === undefined) continue;
      const owned = memberSets(sets, k);
      if (keeps(k) || !owned.length) put(out, k, l);
      else if (isObject(l)) {
        // A map the applier set some members of: what others set in it stays.
        const rest = merge({}, l, owned, inner?.(k) ?? keepsNothing) as Record<string, unknown>;
        if (Object.keys(rest).length) put(out, k, rest);
      }
    }
    return out;
  }
  if (Array.isArray(given) && Array.isArray(live) && given.length === live.length)
    return given.map((g, i) => merge(g, live[i], elementSets(sets, live[i], i), keepsNothing));
  return given;
}

/** Set a member as data, whatever its name (`__proto__` stays a plain key, as model.ts copies it). */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** The applied Secret without cozy-gw's redaction annotations, unless the given Secret carries them itself. */
function withoutRedactionMarks(o: KObject, given: KObject): KObject {
  const a = o.metadata.annotations;
  if (
    !a ||
    !REDACTION_ANNOTATIONS.some((k) => k in a && !(given.metadata.annotations && k in given.metadata.annotations))
  )
    return o;
  const annotations = { ...a };
  for (const k of REDACTION_ANNOTATIONS)
    if (!(given.metadata.annotations && k in given.metadata.annotations)) delete annotations[k];
  const metadata: KObject['metadata'] = { ...o.metadata, annotations };
  if (!Object.keys(annotations).length) delete metadata.annotations;
  return { ...o, metadata };
}
