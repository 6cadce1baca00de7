/**
 * A stand-in for a live cluster behind kubectl (docs/decisions.md §C8: "A
 * live snapshot is compared as it will be applied"): objects dressed as the API server returns
 * them after Flux's kustomize-controller applied a tree with server-side apply and the other
 * controllers did their part, and a kubectl runner (CliIO.exec) that answers
 * `get <resource> [--all-namespaces] -o json` from them.
 *
 * What the dressing adds, as a real cluster does: uid, resourceVersion, generation,
 * creationTimestamp; managedFields (the applied fields under `kustomize-controller`, with Flux's
 * `kustomize.toolkit.fluxcd.io/*` labels, which Flux adds to what it applies; what was applied by
 * hand under `kubectl-client-side-apply`, what a controller created under `cozystack-controller`,
 * each as FieldsV1 by the kind's list types (test/helpers/ssaModel.ts), and status under a status
 * writer); the Namespace's
 * `kubernetes.io/metadata.name` label, spec.finalizers and status.phase; a Secret's stringData
 * folded into data and its type defaulted; defaulted Service, RoleBinding, admission-policy,
 * Gateway API and TenantGateway fields (ssaModel.ts serverDefaults); a ResourceQuota's status; a HelmRelease's finalizer and status; Gateway and Certificate
 * status written by their controllers.
 */
import { createHash } from 'node:crypto';
import type { Exec } from '../../src/io/exec';
import { SNAPSHOT_RESOURCES } from '../../src/pipelines/snapshot';
import { groupOf, isObject, keyOf, type KObject } from '../../src/k8s/model';
import { fieldsV1, manifestBody, schemaOf, serverDefaults } from './ssaModel';

type Obj = Record<string, unknown>;

export const FLUX_LABELS = {
  'kustomize.toolkit.fluxcd.io/name': 'tenants',
  'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
};

/** A Secret's stringData folded into data, as the API server stores it (and as Flux applies it). */
function folded(o: KObject): KObject {
  if (o.kind !== 'Secret' || !isObject(o.stringData)) return o;
  const data: Obj = { ...(isObject(o.data) ? o.data : {}) };
  for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
  const { stringData: _s, ...rest } = o;
  return { ...rest, data } as KObject;
}

/** The managedFields entry of a manager that wrote `manifest`. */
function entry(manager: string, operation: string, manifest: KObject): Obj {
  return {
    manager,
    operation,
    apiVersion: manifest.apiVersion,
    time: '2026-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsV1(manifestBody(folded(manifest)), schemaOf(manifest)),
  };
}

function uid(o: KObject): string {
  const h = createHash('sha1').update(keyOf(o)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The API server's defaults for the kinds the platform writes, with what their controllers write (status, finalizers). */
function defaulted(o: KObject): KObject {
  const x = serverDefaults(folded(o)) as KObject & Obj;
  const spec = (isObject(x.spec) ? x.spec : undefined) as Obj | undefined;
  switch (x.kind) {
    case 'Namespace':
      x.spec = { finalizers: ['kubernetes'], ...(spec ?? {}) };
      x.status = { phase: 'Active' };
      break;
    case 'ValidatingAdmissionPolicy':
      x.status = { observedGeneration: 1, typeChecking: {} };
      break;
    case 'ResourceQuota':
      if (spec && isObject(spec.hard))
        x.status = { hard: spec.hard, used: Object.fromEntries(Object.keys(spec.hard).map((k) => [k, '0'])) };
      break;
    case 'HelmRelease':
      x.metadata.finalizers = ['finalizers.fluxcd.io'];
      x.status = { conditions: [{ type: 'Ready', status: 'True', reason: 'InstallSucceeded' }] };
      break;
    case 'Gateway':
      x.status ??= {
        addresses: [{ type: 'IPAddress', value: '192.0.2.10' }],
        conditions: [{ type: 'Programmed', status: 'True', reason: 'Programmed' }],
      };
      break;
    case 'Certificate':
      x.status ??= {
        conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }],
        notAfter: '2026-04-01T00:00:00Z',
      };
      break;
  }
  return x;
}

/**
 * The live cluster: `objects` (the state after the controller ran: `reconcile --all` over what Flux
 * applied and what else the cluster holds, Secrets with their data) as the API server returns
 * them; `applied` are the manifests Flux applied (render's output), by which each object's applier
 * and Flux labels are known; `byHand` the manifests someone applied with kubectl
 * (`kubectl-client-side-apply`). What neither holds a controller wrote (`cozystack-controller`).
 */
export function liveCluster(objects: KObject[], applied: KObject[], byHand: KObject[] = []): KObject[] {
  const byKey = new Map(applied.map((o) => [keyOf(o), o]));
  const handKey = new Map(byHand.map((o) => [keyOf(o), o]));
  const byRef = new Map(objects.map((o) => [`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
  // An owner reference names its owner's uid, which the API server gave it.
  const owned = (o: KObject): KObject => {
    const refs = o.metadata.ownerReferences;
    if (!Array.isArray(refs)) return o;
    const ownerReferences = refs.map((r) => {
      const owner = byRef.get(`${r.kind}/${o.metadata.namespace ?? ''}/${r.name}`) ?? byRef.get(`${r.kind}//${r.name}`);
      return owner ? { ...r, uid: uid(owner) } : r;
    });
    return { ...o, metadata: { ...o.metadata, ownerReferences } };
  };
  return objects.map(owned).map((o) => {
    const manifest = byKey.get(keyOf(o));
    const x = defaulted(o);
    const managedFields: Obj[] = [];
    if (manifest) {
      const withLabels = {
        ...manifest,
        metadata: { ...manifest.metadata, labels: { ...(manifest.metadata.labels ?? {}), ...FLUX_LABELS } },
      };
      x.metadata.labels = { ...(x.metadata.labels ?? {}), ...FLUX_LABELS };
      managedFields.push(entry('kustomize-controller', 'Apply', withLabels));
    } else if (handKey.has(keyOf(o)))
      managedFields.push(entry('kubectl-client-side-apply', 'Update', handKey.get(keyOf(o))!));
    else managedFields.push(entry('cozystack-controller', 'Update', o));
    if (x.status !== undefined)
      managedFields.push({
        manager: 'status-writer',
        operation: 'Update',
        apiVersion: o.apiVersion,
        time: '2026-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        subresource: 'status',
        fieldsV1: { 'f:status': {} },
      });
    x.metadata = {
      ...x.metadata,
      uid: uid(o),
      resourceVersion: String(1000 + managedFields.length),
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(o.apiVersion === 'v1' ? {} : { generation: 1 }),
      managedFields,
    };
    return x;
  });
}

/**
 * kubectl over the live objects: `get <resource> -o json` lists the objects of that resource's
 * kind and group; a resource in `unserved` is one whose CRD the cluster lacks.
 */
export function kubectlServing(live: KObject[], unserved: ReadonlySet<string> = new Set()): Exec {
  return async (_bin, args) => {
    const i = args.indexOf('get');
    const resource = args[i + 1];
    const r = SNAPSHOT_RESOURCES.find((x) => x.resource === resource);
    if (i < 0 || !r || unserved.has(resource))
      return {
        exitCode: 1,
        stdout: '',
        stderr: `error: the server doesn't have a resource type "${resource}"\n`,
        missing: false,
      };
    const group = resource.includes('.') ? resource.slice(resource.indexOf('.') + 1) : '';
    const items = live.filter((o) => o.kind === r.kind && groupOf(o.apiVersion) === group);
    return {
      exitCode: 0,
      stdout: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
      stderr: '',
      missing: false,
    };
  };
}
