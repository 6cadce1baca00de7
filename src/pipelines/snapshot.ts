/**
 * `cozy-gw snapshot`: which cluster state cozy-gw reads, and how a listing becomes a snapshot.
 * Pure: the command (src/cli/commands/snapshot.ts) runs kubectl and hands the parsed lists in here.
 *
 * The snapshot is what `render`, `reconcile` and `admit` read as cluster state
 * (docs/commands/snapshot.md: Namespaces, TenantGateways, Gateways, GatewayClasses, HTTPRoutes, TLSRoutes,
 * GRPCRoutes, Ingresses, Secrets, cert-manager Certificates and Issuers, Tenants, the platform
 * Package), so `cozy-gw reconcile -f snapshot.yaml` replays the controller against a live cluster;
 * and every kind render writes, the platform's own objects of them (platformObject), so that
 * `diff --state snapshot.yaml` compares a change with everything it would apply over
 * (docs/decisions.md §C8), managedFields kept as field trees; and what tells the cluster's
 * Cozystack version, with a record of it (docs/versions.md §11), so that `diff` and `reconcile`
 * over the snapshot reproduce that version.
 */
import * as jsyaml from 'js-yaml';
import { LOAD_OPTIONS } from '../k8s/yaml';
import { pushAll } from '../k8s/arrays';
import { managedTrees } from '../k8s/managedFields';
import { exceedsLimits } from '../k8s/limits';
import { compareObjects, getPath, isObject, type KObject } from '../k8s/model';
import { isValuesChannel, redactSecret } from '../k8s/secretRedaction';
import { LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../platform/names';
import { VALUES_SECRET } from '../platform/tenancy';
import { LABEL_WILDCARD_COPY } from '../controller/wildcardSecrets';
import { channelValuesYaml, isChannelSecret } from './platformChannel';
import { isPackage, packageValues } from '../platform/kinds';
import {
  clusterVersionOf,
  versionEvidenceObject,
  versionRecord,
  type ClusterVersion,
} from '../platform/clusterVersion';

export interface SnapshotResource {
  /** The fully qualified resource kubectl is asked for (`<plural>.<group>`, bare for the core group). */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Which part of cozy-gw reads it. */
  readBy: string;
  /** Only the platform's objects are kept (platformObject): a kind every cluster has many of. */
  platformOnly?: boolean;
  /**
   * Served by every Kubernetes API server (the core group, RBAC, batch). kubectl saying it is not
   * ("the server could not find the requested resource") means the context's server is not a
   * Kubernetes API server (a wrong URL, a proxy that answers 404): the snapshot stops there, where
   * it wrote an empty state that said every kind's CRD was absent.
   */
  alwaysServed?: boolean;
  /** Listed in this namespace only (`-n`), not in every namespace. */
  namespace?: string;
  /**
   * Read for the cluster's Cozystack version (docs/versions.md §11): only the objects that tell it
   * are kept, trimmed to what tells it (versionEvidenceObject); a listing the user may not make
   * leaves the version to the other sources (a note), where another kind's stops the snapshot.
   */
  versionEvidence?: boolean;
}

const RENDER_WRITES = 'diff (render writes it: the state a change is laid over)';

/**
 * An object of a kind render writes that is the platform's: in a tenant namespace or one of
 * cozystack's own (`tenant-*`, `cozy-*`), or cluster-scoped with such a name (the `cozy:tenant*`
 * ClusterRoles, the tenants' clusterwide policies, the `cozystack-*` admission policies), or
 * applied by Flux's kustomize-controller (its labels). The cluster's other ServiceAccounts,
 * Services, Jobs, ... are none of cozy-gw's business.
 */
export function platformObject(o: KObject): boolean {
  const at = o.metadata.namespace ?? o.metadata.name;
  return (
    /^(tenant-|cozy)/.test(at) ||
    Object.keys(o.metadata.labels ?? {}).some((k) => k.startsWith('kustomize.toolkit.fluxcd.io/'))
  );
}

/** The kinds cozy-gw reads, in the order they are listed. */
export const SNAPSHOT_RESOURCES: readonly SnapshotResource[] = [
  {
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    readBy: 'tenant labels, attached-namespace labels, replication targets',
    alwaysServed: true,
  },
  {
    resource: 'secrets',
    kind: 'Secret',
    namespaced: true,
    readBy: 'wildcard-Secret replication, cozystack-values, certificate Secrets (a selection: see selectSecret)',
    alwaysServed: true,
  },
  {
    resource: 'packages.cozystack.io',
    kind: 'Package',
    namespaced: false,
    readBy: 'platform values (spec.components.platform.values)',
  },
  {
    resource: 'tenants.apps.cozystack.io',
    kind: 'Tenant',
    namespaced: true,
    readBy: 'render (the tenant tree), admit',
  },
  {
    resource: 'tenantgateways.gateway.cozystack.io',
    kind: 'TenantGateway',
    namespaced: true,
    readBy: 'the TenantGateway controller',
  },
  {
    resource: 'gatewayclasses.gateway.networking.k8s.io',
    kind: 'GatewayClass',
    namespaced: false,
    readBy: 'class checks',
  },
  {
    resource: 'gateways.gateway.networking.k8s.io',
    kind: 'Gateway',
    namespaced: true,
    readBy: 'the controller (owned Gateways), admit',
  },
  {
    resource: 'httproutes.gateway.networking.k8s.io',
    kind: 'HTTPRoute',
    namespaced: true,
    readBy: 'route hostnames and status',
  },
  {
    resource: 'tlsroutes.gateway.networking.k8s.io',
    kind: 'TLSRoute',
    namespaced: true,
    readBy: 'route hostnames and status',
  },
  {
    resource: 'grpcroutes.gateway.networking.k8s.io',
    kind: 'GRPCRoute',
    namespaced: true,
    readBy: 'admit (route hostname policy)',
  },
  {
    resource: 'ingresses.networking.k8s.io',
    kind: 'Ingress',
    namespaced: true,
    readBy: 'admit (ingress hostname policy)',
  },
  {
    resource: 'certificates.cert-manager.io',
    kind: 'Certificate',
    namespaced: true,
    readBy: 'the controller (owned Certificates)',
  },
  { resource: 'issuers.cert-manager.io', kind: 'Issuer', namespaced: true, readBy: 'the controller (owned Issuer)' },
  // What render writes besides (docs/decisions.md §C8; docs/commands/render.md: the whole tenant and its
  // hooks), so that a live cluster's state holds every object render and the controller write: read
  // in the platform's own namespaces and names only (platformObject).
  ...// [resource, kind, namespaced, served by every API server]
  (
    [
      ['serviceaccounts', 'ServiceAccount', true, true],
      ['roles.rbac.authorization.k8s.io', 'Role', true, true],
      ['rolebindings.rbac.authorization.k8s.io', 'RoleBinding', true, true],
      ['clusterroles.rbac.authorization.k8s.io', 'ClusterRole', false, true],
      ['ciliumnetworkpolicies.cilium.io', 'CiliumNetworkPolicy', true, false],
      ['ciliumclusterwidenetworkpolicies.cilium.io', 'CiliumClusterwideNetworkPolicy', false, false],
      ['resourcequotas', 'ResourceQuota', true, true],
      ['limitranges', 'LimitRange', true, true],
      ['helmreleases.helm.toolkit.fluxcd.io', 'HelmRelease', true, false],
      ['keycloakrealmgroups.v1.edp.epam.com', 'KeycloakRealmGroup', true, false],
      ['services', 'Service', true, true],
      ['jobs.batch', 'Job', true, true],
      ['validatingadmissionpolicies.admissionregistration.k8s.io', 'ValidatingAdmissionPolicy', false, false],
      [
        'validatingadmissionpolicybindings.admissionregistration.k8s.io',
        'ValidatingAdmissionPolicyBinding',
        false,
        false,
      ],
    ] as const
  ).map(([resource, kind, namespaced, alwaysServed]) => ({
    resource,
    kind,
    namespaced,
    readBy: RENDER_WRITES,
    platformOnly: true,
    ...(alwaysServed ? { alwaysServed } : {}),
  })),
  // What tells the cluster's Cozystack version (docs/versions.md §11), in cozy-system only.
  ...// [resource, kind, served by every API server]
  (
    [
      ['deployments.apps', 'Deployment', true],
      ['ocirepositories.source.toolkit.fluxcd.io', 'OCIRepository', false],
      ['configmaps', 'ConfigMap', true],
    ] as const
  ).map(([resource, kind, alwaysServed]) => ({
    resource,
    kind,
    namespaced: true,
    namespace: 'cozy-system',
    readBy: "the cluster's Cozystack version (diff and reconcile reproduce it)",
    versionEvidence: true,
    ...(alwaysServed ? { alwaysServed } : {}),
  })),
];

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function decodeValuesYaml(s: KObject): unknown {
  // An alias bomb in the channel names nothing (docs/decisions.md §13); reconcile reports it when it reads the Secret.
  const text = channelValuesYaml(s);
  if (text === undefined) return undefined;
  try {
    const v = jsyaml.load(text, LOAD_OPTIONS);
    return exceedsLimits(v) ? undefined : v;
  } catch {
    // an unparsable channel names no wildcard Secret; reconcile reports it when it reads the Secret
    return undefined;
  }
}

/**
 * The names the wildcard-Secret controller looks for in every namespace: the operator wildcard
 * Secret named by `publishing.certificates.wildcardSecretName` (docs/behaviour.md §5.12,
 * existingSecret), read from the platform Package and from the live channel
 * `cozy-system/cozystack-values` (`_cluster.wildcard-secret-name`, docs/behaviour.md §6).
 */
export function wildcardSecretNames(packages: KObject[], secrets: KObject[]): Set<string> {
  const names = new Set<string>();
  for (const p of packages) {
    const n = getPath(packageValues(p), 'publishing.certificates.wildcardSecretName');
    if (typeof n === 'string' && n) names.add(n);
  }
  for (const s of secrets) {
    if (!isChannelSecret(s)) continue;
    const n = getPath(decodeValuesYaml(s), ['_cluster', 'wildcard-secret-name']);
    if (typeof n === 'string' && n) names.add(n);
  }
  return names;
}

/**
 * The Secrets a snapshot keeps, out of every Secret in the cluster: those cozy-gw reads.
 * - `cozystack-values` in any namespace (the values channel, and each tenant's rendered values);
 * - every `kubernetes.io/tls` Secret (wildcard sources and replicas, certificate Secrets the
 *   Gateway listeners name);
 * - every replica the replication controller labelled, whatever its type (it prunes them);
 * - every Secret carrying a wildcard Secret's name, whatever its type: a same-named Secret without
 *   the label is a foreign collision the controller must see to leave alone (docs/behaviour.md §6);
 * - every Secret the TenantGateway controller owns (its labels or a TenantGateway ownerReference).
 * Service-account tokens, Helm release Secrets, DNS-01 API tokens and the rest are left out.
 */
export function selectSecret(s: KObject, wildcardNames: Set<string>): boolean {
  const labels = s.metadata.labels ?? {};
  return (
    s.metadata.name === VALUES_SECRET ||
    s.type === 'kubernetes.io/tls' ||
    LABEL_WILDCARD_COPY in labels ||
    wildcardNames.has(s.metadata.name) ||
    labels[LABEL_MANAGED_BY] === MANAGED_BY_VALUE ||
    (s.metadata.ownerReferences ?? []).some((r) => r.kind === 'TenantGateway')
  );
}

export { isValuesChannel };

/**
 * Server-side bookkeeping: managedFields kept as field trees only (their timestamps dropped: `diff`
 * reads who applied which field, docs/decisions.md §C8), and last-applied
 * dropped (cozy-gw never reads it; for a Secret it repeats the data).
 */
export function tidy(o: KObject): KObject {
  const metadata = { ...o.metadata };
  if (metadata.managedFields !== undefined) metadata.managedFields = managedTrees(metadata.managedFields) as never;
  if (metadata.annotations && LAST_APPLIED in metadata.annotations) {
    const { [LAST_APPLIED]: _dropped, ...rest } = metadata.annotations;
    if (Object.keys(rest).length) metadata.annotations = rest;
    else delete metadata.annotations;
  }
  return { ...o, metadata };
}

export interface Listing {
  resource: SnapshotResource;
  items: KObject[];
}

export interface SnapshotResult {
  objects: KObject[];
  /** Per resource: listed and kept (Secrets are a selection). */
  counts: { resource: string; listed: number; kept: number }[];
  /** How many Secrets were printed without their data. */
  redacted: number;
  /** What the cluster shows of its Cozystack version (when the snapshot read it: a record among the objects says the same). */
  version?: ClusterVersion;
}

/**
 * Assemble a snapshot from kubectl's listings: Secrets selected (selectSecret) and, unless
 * `includeSecretData`, printed without key material (docs/decisions.md §9, src/k8s/secretRedaction.ts)
 * — except `cozystack-values`, which is the values channel the controller reads and carries no key
 * material (the certificate and key never travel on the values channel, docs/behaviour.md §6);
 * bookkeeping dropped (tidy); the objects that tell the Cozystack version trimmed to what tells it,
 * with a record of the version they tell (src/platform/clusterVersion.ts, docs/versions.md §11);
 * objects in the stable order (compareObjects).
 */
export function assembleSnapshot(listings: Listing[], opts: { includeSecretData: boolean }): SnapshotResult {
  const all = listings.flatMap((l) => l.items.filter(isObject).map((o) => withKind(o as KObject, l.resource)));
  const packages = all.filter(isPackage);
  const secrets = all.filter((o) => o.kind === 'Secret');
  const names = wildcardSecretNames(packages, secrets);
  const counts: SnapshotResult['counts'] = [];
  const objects: KObject[] = [];
  let redacted = 0;
  for (const l of listings) {
    const items = l.items.filter(isObject).map((o) => withKind(o as KObject, l.resource));
    if (l.resource.versionEvidence) {
      const evidence = items.map(versionEvidenceObject).filter((o): o is KObject => o !== undefined);
      counts.push({ resource: l.resource.resource, listed: items.length, kept: evidence.length });
      pushAll(objects, evidence);
      continue;
    }
    const kept =
      l.resource.kind === 'Secret'
        ? items.filter((s) => selectSecret(s, names))
        : l.resource.platformOnly
          ? items.filter(platformObject)
          : items;
    counts.push({ resource: l.resource.resource, listed: items.length, kept: kept.length });
    for (const o of kept) {
      let out = tidy(o);
      if (out.kind === 'Secret' && !opts.includeSecretData && !isValuesChannel(out)) {
        const r = redactSecret(out);
        if (r !== out) redacted++;
        out = r;
      }
      objects.push(out);
    }
  }
  // The version the evidence tells, recorded beside it when the snapshot read it (docs/versions.md §11).
  const version = listings.some((l) => l.resource.versionEvidence) ? clusterVersionOf(objects) : undefined;
  if (version) objects.push(versionRecord(version));
  return { objects: objects.sort(compareObjects), counts, redacted, ...(version ? { version } : {}) };
}

/** `kubectl get -o json` lists carry apiVersion and kind on every item; fill them in where a list omitted them. */
function withKind(o: KObject, r: SnapshotResource): KObject {
  if (o.apiVersion && o.kind) return o;
  return { ...o, kind: o.kind ?? r.kind, apiVersion: o.apiVersion ?? '' } as KObject;
}

/** How kubectl failed, read from its standard error. */
export type KubectlFailure =
  | { kind: 'absent'; message: string }
  | { kind: 'forbidden'; message: string }
  | { kind: 'context'; message: string }
  | { kind: 'other'; message: string };

/** The message lines of kubectl's stderr, without klog's `E1130 01:02:03.456 ...` noise. */
export function kubectlMessage(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^[EWIF]\d{4} \d{2}:\d{2}:\d{2}/.test(l));
  return lines.join('\n') || stderr.trim();
}

export function classifyKubectlError(stderr: string): KubectlFailure {
  const message = kubectlMessage(stderr);
  // `error: the server doesn't have a resource type "tlsroutes.gateway.networking.k8s.io"`: the CRD is not installed.
  if (/doesn't have a resource type|the server could not find the requested resource/.test(message))
    return { kind: 'absent', message };
  if (/\(Forbidden\)|is forbidden/.test(message)) return { kind: 'forbidden', message };
  // `Error in configuration: context was not found for specified context: x`, or `error: context "x" does not exist`.
  if (/context was not found|context "[^"]*" does not exist|no context exists/.test(message))
    return { kind: 'context', message };
  return { kind: 'other', message };
}
