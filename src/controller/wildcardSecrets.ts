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
import { warning, type Finding } from '../k8s/diagnostics';
import { clone, deepEqual, isObject, refOf, type KObject, type ObjRef } from '../k8s/model';
import { isRedacted, REDACTED_ANNOTATION } from '../k8s/secretRedaction';
import { GROUPS, type Store } from '../k8s/store';
import { NS_LABEL_GATEWAY, NS_LABEL_INGRESS, TGW_KIND } from '../platform/names';
import { publishingNamespace, VALUES_SECRET, type ClusterMap } from '../platform/tenancy';

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
 *    point and loses its replica on the next reconcile, docs/behaviour.md §5.12).
 */
export function replicationTargets(store: Store, sourceNamespace: string): string[] {
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
export function reconcileWildcardSecrets(store: Store, channel: ClusterMap | undefined): Finding[] {
  const findings: Finding[] = [];
  if (channel === undefined || !('wildcard-secret-name' in channel)) return findings;
  const name = channel['wildcard-secret-name'];
  const replicas = store.list(GROUPS.core, 'Secret').filter(isReplica);

  // Key present and "": wildcard mode explicitly disabled; every replica goes, the one at the
  // old source location included (upstream TestReconcile_DisableDeletesCopyAtSourceLocation).
  if (name === '') {
    for (const r of replicas) {
      store.delete(
        refOf(r),
        `${REASON_PREFIX}: wildcard mode is disabled (wildcardSecretName is empty), so every replica is garbage-collected`,
      );
    }
    return findings;
  }

  const srcNs = publishingNamespace(channel);
  const sourceSlot = `${srcNs}/${name}`;
  const source = store.get(GROUPS.core, 'Secret', srcNs, name);
  if (!source) {
    findings.push(
      warning(
        `wildcard source Secret ${sourceSlot} does not exist; replicas are kept and none is created until it does`,
        { rule: 'wildcard.source-missing', object: secretRef(srcNs, name) },
      ),
    );
    return findings;
  }
  if (source.type !== TLS_TYPE) {
    findings.push(
      warning(
        `wildcard source Secret ${sourceSlot} is of type ${JSON.stringify(source.type ?? 'Opaque')}, not ${TLS_TYPE}; replicas are kept and none is created until it is`,
        {
          rule: 'wildcard.source-not-tls',
          object: refOf(source),
          field: 'type',
        },
      ),
    );
    return findings;
  }
  const sourceKnown = !isRedacted(source);
  const data = effectiveData(source);

  const targets = replicationTargets(store, srcNs);
  for (const ns of targets) {
    const existing = store.get(GROUPS.core, 'Secret', ns, name);
    if (existing && !isReplica(existing)) {
      // Foreign collision: never touched (upstream Warning Event WildcardReplicaSkipped).
      findings.push(
        warning(
          `WildcardReplicaSkipped: Secret ${ns}/${name} exists without label ${LABEL_WILDCARD_COPY}="true"; it is not a replica of ${sourceSlot} and is left untouched`,
          {
            rule: 'wildcard.replica-skipped',
            object: refOf(existing),
            hint: `rename or remove it to let the controller mirror ${sourceSlot} there`,
          },
        ),
      );
      continue;
    }
    if (!existing) {
      if (!sourceKnown) {
        findings.push(
          warning(
            `cannot create replica ${ns}/${name}: the data of source ${sourceSlot} was left out of the input (printed without --include-secret-data)`,
            { rule: 'wildcard.source-redacted', object: refOf(source) },
          ),
        );
        continue;
      }
      const replica: KObject = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name,
          namespace: ns,
          labels: { [LABEL_WILDCARD_COPY]: 'true' },
          annotations: { [ANNOTATION_WILDCARD_SOURCE]: sourceSlot },
        },
        type: source.type,
        data: clone(data),
      };
      store.put(
        replica,
        `${REASON_PREFIX}: namespace ${ns} owns a termination point, so the operator wildcard ${sourceSlot} is mirrored into it`,
      );
      continue;
    }
    // Updated only when data or the source annotation differs; the update re-asserts the label
    // and the annotation. Bytes the input does not carry (a redacted source) are not compared.
    const annotationDiffers = existing.metadata.annotations?.[ANNOTATION_WILDCARD_SOURCE] !== sourceSlot;
    const dataDiffers = sourceKnown && (isRedacted(existing) || !deepEqual(effectiveData(existing), data));
    if (!annotationDiffers && !dataDiffers) continue;
    const upd = clone(existing);
    upd.metadata.labels = { ...(upd.metadata.labels ?? {}), [LABEL_WILDCARD_COPY]: 'true' };
    upd.metadata.annotations = { ...(upd.metadata.annotations ?? {}), [ANNOTATION_WILDCARD_SOURCE]: sourceSlot };
    if (dataDiffers) {
      upd.data = clone(data);
      delete upd.stringData;
      if (isRedacted(existing)) delete upd.metadata.annotations[REDACTED_ANNOTATION];
    }
    const why = [
      annotationDiffers ? `its source annotation is not ${sourceSlot}` : '',
      dataDiffers ? 'its data differs from the source' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    store.put(upd, `${REASON_PREFIX}: replica ${ns}/${name} is brought back in line with ${sourceSlot} (${why})`);
  }

  // Prune: every labelled replica that is not in a target namespace under the current name,
  // except the Secret at the source slot (upstream TestReconcile_NeverPrunesSecretAtSourceLocation).
  const targetSet = new Set(targets);
  for (const r of replicas) {
    const ns = r.metadata.namespace ?? '';
    if (ns === srcNs && r.metadata.name === name) continue;
    if (r.metadata.name === name && targetSet.has(ns)) continue;
    const why =
      r.metadata.name !== name
        ? `its name is not the current wildcardSecretName ${JSON.stringify(name)} (the source was renamed)`
        : `namespace ${ns} no longer owns a termination point`;
    store.delete(refOf(r), `${REASON_PREFIX}: replica ${ns}/${r.metadata.name} is garbage-collected: ${why}`);
  }
  return findings;
}
