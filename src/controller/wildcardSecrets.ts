/**
 * The wildcard-Secret replication controller (docs/behaviour.md §6; the existingSecret and edge
 * modes of §5.12).
 *
 * It mirrors the operator's wildcard TLS Secret `<expose-ingress>/<wildcard-secret-name>` into
 * every namespace that owns a termination point, under the same name, and garbage-collects the
 * replicas when wildcard mode is explicitly disabled or a namespace stops terminating TLS.
 * Pure: it reads and writes a Store and returns findings.
 *
 * The channel (docs/decisions.md §7) is the `_cluster` map the platform values give: see
 * `wildcardChannel` for how a command's inputs become it.
 */
import { pushAll } from '../k8s/arrays';
import { warning, type Finding } from '../k8s/diagnostics';
import { clone, deepEqual, isObject, refOf, type KObject, type ObjRef } from '../k8s/model';
import { isRedacted, REDACTED_ANNOTATION } from '../k8s/secretRedaction';
import { GROUPS, type Store } from '../k8s/store';
import { NS_LABEL_GATEWAY, NS_LABEL_INGRESS, TGW_KIND } from '../platform/names';
import { publishingNamespace, VALUES_SECRET, type ClusterMap } from '../platform/tenancy';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

export const LABEL_WILDCARD_COPY = 'cozystack.io/wildcard-secret-copy';
export const ANNOTATION_WILDCARD_SOURCE = 'cozystack.io/wildcard-secret-source';
export const CHANNEL_SECRET = { namespace: 'cozy-system', name: VALUES_SECRET } as const;
const TLS_TYPE = 'kubernetes.io/tls';

const REASON_PREFIX = 'wildcard-secret replication';

// ---------------------------------------------------------------------------------------------
// The controller
// ---------------------------------------------------------------------------------------------

function isTerminating(ns: KObject): boolean {
  const status = ns.status;
  return ns.metadata.deletionTimestamp !== undefined || (isObject(status) && status.phase === 'Terminating');
}

function isReplica(s: KObject): boolean {
  return s.metadata.labels?.[LABEL_WILDCARD_COPY] === 'true';
}

/**
 * The namespaces that own a termination point (docs/behaviour.md §6 "Targets"): not the source
 * namespace, not terminating, and either
 *  - labelled `namespace.cozystack.io/ingress` with its own name (it runs an ingress controller,
 *    which terminates locally — the edge exception does not reach it), or
 *  - labelled `namespace.cozystack.io/gateway` with its own name, unless every TenantGateway in it
 *    is `certMode: edge` (a namespace moved onto an edge class stops counting as a termination
 *    point and loses its replica on the next reconcile, docs/behaviour.md §5.12). A release's
 *    controller has no such exception (docs/versions.md §X10).
 */
export function replicationTargets(
  store: Store,
  sourceNamespace: string,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): string[] {
  const out: string[] = [];
  for (const ns of store.list(GROUPS.core, 'Namespace')) {
    const name = ns.metadata.name;
    if (name === sourceNamespace || isTerminating(ns)) continue;
    const labels = ns.metadata.labels ?? {};
    if (labels[NS_LABEL_INGRESS] === name) {
      out.push(name);
      continue;
    }
    if (labels[NS_LABEL_GATEWAY] === name) {
      if (!behaviour.replicationSkipsEdge) {
        out.push(name);
        continue;
      }
      const tgws = store.list(GROUPS.cozyGateway, TGW_KIND, name);
      const allEdge = tgws.length > 0 && tgws.every((t) => isObject(t.spec) && t.spec.certMode === 'edge');
      if (!allEdge) out.push(name);
    }
  }
  return out;
}

/** Data as the apiserver stores it: `data` with `stringData` merged in (base64). */
function effectiveData(s: KObject): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(s.data)) for (const [k, v] of Object.entries(s.data)) if (typeof v === 'string') out[k] = v;
  if (isObject(s.stringData))
    for (const [k, v] of Object.entries(s.stringData))
      if (typeof v === 'string') out[k] = Buffer.from(v, 'utf8').toString('base64');
  return out;
}

function secretRef(namespace: string, name: string): ObjRef {
  return { apiVersion: 'v1', kind: 'Secret', namespace, name };
}

/**
 * One pass of the replication controller over the store (docs/behaviour.md §6 "Outcomes"):
 *
 * | channel                                   | outcome                                    |
 * |-------------------------------------------|--------------------------------------------|
 * | absent, or `wildcard-secret-name` missing | keep every replica, create none            |
 * | `wildcard-secret-name: ""`                | delete every replica (the one prune-all)   |
 * | source missing or not kubernetes.io/tls   | keep every replica, create none (retry)    |
 * | otherwise                                 | mirror into every target, prune the rest   |
 *
 * A transient absence of the source Secret or of the platform values channel never prunes an
 * existing replica.
 */
export function reconcileWildcardSecrets(
  store: Store,
  channel: ClusterMap | undefined,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): Finding[] {
  if (channel === undefined || !('wildcard-secret-name' in channel)) return [];
  const name = channel['wildcard-secret-name'];
  if (typeof name !== 'string') return [];
  const replicas = store.list(GROUPS.core, 'Secret').filter(isReplica);
  // Key present and "": wildcard mode explicitly disabled; every replica goes, the one at the
  // old source location included (upstream TestReconcile_DisableDeletesCopyAtSourceLocation).
  if (name === '') {
    for (const r of replicas)
      store.delete(
        refOf(r),
        `${REASON_PREFIX}: wildcard mode is disabled (wildcardSecretName is empty), so every replica is garbage-collected`,
      );
    return [];
  }
  const src = readSource(store, publishingNamespace(channel), name);
  if ('findings' in src) return src.findings;
  const findings: Finding[] = [];
  const targets = replicationTargets(store, src.namespace, behaviour);
  for (const ns of targets) pushAll(findings, mirrorInto(store, ns, src));
  pruneStale(store, replicas, src, new Set(targets));
  return findings;
}

/** The source Secret the replicas mirror: `<expose-ingress>/<wildcard-secret-name>`, of type kubernetes.io/tls. */
interface Source {
  namespace: string;
  name: string;
  /** `namespace/name`, as the replicas' annotation names it. */
  slot: string;
  secret: KObject;
  /** Its data as the apiserver stores it. */
  data: Record<string, string>;
  /** Whether its bytes are in the input (a Secret printed without its data is not). */
  known: boolean;
}

/** The source, or why nothing is created or pruned until it exists and is a TLS Secret (a transient absence prunes nothing). */
function readSource(store: Store, namespace: string, name: string): Source | { findings: Finding[] } {
  const slot = `${namespace}/${name}`;
  const secret = store.get(GROUPS.core, 'Secret', namespace, name);
  if (!secret)
    return {
      findings: [
        warning(`wildcard source Secret ${slot} does not exist; replicas are kept and none is created until it does`, {
          rule: 'wildcard.source-missing',
          object: secretRef(namespace, name),
        }),
      ],
    };
  if (secret.type !== TLS_TYPE)
    return {
      findings: [
        warning(
          `wildcard source Secret ${slot} is of type ${JSON.stringify(secret.type ?? 'Opaque')}, not ${TLS_TYPE}; replicas are kept and none is created until it is`,
          { rule: 'wildcard.source-not-tls', object: refOf(secret), field: 'type' },
        ),
      ],
    };
  return { namespace, name, slot, secret, data: effectiveData(secret), known: !isRedacted(secret) };
}

/** Mirror the source into one target namespace: create the replica, bring it back in line, or leave a foreign Secret alone. */
function mirrorInto(store: Store, ns: string, src: Source): Finding[] {
  const existing = store.get(GROUPS.core, 'Secret', ns, src.name);
  if (existing && !isReplica(existing))
    // Foreign collision: never touched (upstream Warning Event WildcardReplicaSkipped).
    return [
      warning(
        `WildcardReplicaSkipped: Secret ${ns}/${src.name} exists without label ${LABEL_WILDCARD_COPY}="true"; it is not a replica of ${src.slot} and is left untouched`,
        {
          rule: 'wildcard.replica-skipped',
          object: refOf(existing),
          hint: `rename or remove it to let the controller mirror ${src.slot} there`,
        },
      ),
    ];
  if (!existing) return createReplica(store, ns, src);
  updateReplica(store, existing, src);
  return [];
}

function createReplica(store: Store, ns: string, src: Source): Finding[] {
  if (!src.known)
    return [
      warning(
        `cannot create replica ${ns}/${src.name}: the data of source ${src.slot} was left out of the input (printed without --include-secret-data)`,
        { rule: 'wildcard.source-redacted', object: refOf(src.secret) },
      ),
    ];
  const replica: KObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: src.name,
      namespace: ns,
      labels: { [LABEL_WILDCARD_COPY]: 'true' },
      annotations: { [ANNOTATION_WILDCARD_SOURCE]: src.slot },
    },
    type: src.secret.type,
    data: clone(src.data),
  };
  store.put(
    replica,
    `${REASON_PREFIX}: namespace ${ns} owns a termination point, so the operator wildcard ${src.slot} is mirrored into it`,
  );
  return [];
}

/**
 * A replica is updated only when its data or its source annotation differs; the update
 * re-asserts the label and the annotation. Bytes the input does not carry (a redacted source)
 * are not compared.
 */
function updateReplica(store: Store, existing: KObject, src: Source): void {
  const annotationDiffers = existing.metadata.annotations?.[ANNOTATION_WILDCARD_SOURCE] !== src.slot;
  const dataDiffers = src.known && (isRedacted(existing) || !deepEqual(effectiveData(existing), src.data));
  if (!annotationDiffers && !dataDiffers) return;
  const upd = clone(existing);
  upd.metadata.labels = { ...(upd.metadata.labels ?? {}), [LABEL_WILDCARD_COPY]: 'true' };
  upd.metadata.annotations = { ...(upd.metadata.annotations ?? {}), [ANNOTATION_WILDCARD_SOURCE]: src.slot };
  if (dataDiffers) {
    upd.data = clone(src.data);
    delete upd.stringData;
    if (isRedacted(existing)) delete upd.metadata.annotations[REDACTED_ANNOTATION];
  }
  const why = [
    annotationDiffers ? `its source annotation is not ${src.slot}` : '',
    dataDiffers ? 'its data differs from the source' : '',
  ]
    .filter(Boolean)
    .join(' and ');
  store.put(
    upd,
    `${REASON_PREFIX}: replica ${upd.metadata.namespace}/${src.name} is brought back in line with ${src.slot} (${why})`,
  );
}

/**
 * Prune every labelled replica that is not in a target namespace under the current name,
 * except the Secret at the source slot (upstream TestReconcile_NeverPrunesSecretAtSourceLocation).
 */
function pruneStale(store: Store, replicas: readonly KObject[], src: Source, targets: ReadonlySet<string>): void {
  for (const r of replicas) {
    const ns = r.metadata.namespace ?? '';
    if (ns === src.namespace && r.metadata.name === src.name) continue;
    if (r.metadata.name === src.name && targets.has(ns)) continue;
    const why =
      r.metadata.name !== src.name
        ? `its name is not the current wildcardSecretName ${JSON.stringify(src.name)} (the source was renamed)`
        : `namespace ${ns} no longer owns a termination point`;
    store.delete(refOf(r), `${REASON_PREFIX}: replica ${ns}/${r.metadata.name} is garbage-collected: ${why}`);
  }
}
