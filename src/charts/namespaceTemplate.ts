/**
 * `namespace.yaml` of the apps/tenant chart (docs/behaviour.md §2.2-2.5, docs/tenant.md §2.6): the
 * host, the `_namespace` inheritance, Namespace T with every label in order, and the
 * `cozystack-values` Secret the tenant's own releases read. Rendered for every tenant but
 * tenant-root (cozystack-basics owns tenant-root's, cozystackBasics.ts). Pure.
 */
import * as jsyaml from 'js-yaml';
import type { KObject } from '../k8s/model';
import { VALUES_SECRET } from '../platform/tenancy';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { labelChain, parentPrefixesLabelChain } from './ancestorChains';
import { renderTemplate } from './templates';
import type { NamespaceValues, TenantSpec, TenantValues } from './tenantRelease';

/** §2.2: spec.host if non-empty, else `<X>.<parent host>` if the parent host is non-empty, else "". */
export function deriveHost(name: string, specHost: string | undefined, parentHost: string | undefined): string {
  if (specHost) return specHost;
  if (parentHost) return `${name}.${parentHost}`;
  return '';
}

type ModuleKey = 'etcd' | 'ingress' | 'monitoring' | 'seaweedfs';

/** §2.3: the tenant's `_namespace`, in the chart's order, from its parent's and its spec. */
export function inheritNamespace(T: string, name: string, spec: TenantSpec, parent: NamespaceValues): NamespaceValues {
  const own = (k: ModuleKey) => (spec[k] === true ? T : (parent[k] ?? ''));
  const out: NamespaceValues = {
    etcd: own('etcd'),
    ingress: own('ingress'),
    // docs/decisions.md §2: only `true` owns a Gateway; false inherits exactly like absent.
    gateway: spec.gateway === true ? T : (parent.gateway ?? ''),
    monitoring: own('monitoring'),
    seaweedfs: own('seaweedfs'),
    host: deriveHost(name, typeof spec.host === 'string' ? spec.host : '', parent.host),
  };
  // docs/tenant.md §2.3: the parent's scheduling class wins; emitted only when non-empty.
  const sc = parent.schedulingClass || (typeof spec.schedulingClass === 'string' ? spec.schedulingClass : '');
  if (sc) out.schedulingClass = sc;
  return out;
}

/**
 * docs/tenant.md §2.4: Namespace T's labels, in order: C-label (docs/tenant.md §2.0.4; the
 * version's, docs/versions.md §T2: up to v1.5.3 T and the dash-prefixes of its parent P), the
 * module namespaces, the host, ...
 */
export function namespaceLabels(
  T: string,
  ns: NamespaceValues,
  P = '',
  ancestors: Behaviour['namespaceAncestorLabels'] = 'to-root',
): Record<string, string> {
  const labels: Record<string, string> = {};
  const chain = ancestors === 'to-root' ? labelChain(T) : parentPrefixesLabelChain(T, P);
  for (const a of chain) labels[`tenant.cozystack.io/${a}`] = '';
  for (const k of ['etcd', 'ingress', 'gateway', 'monitoring', 'seaweedfs', 'host'])
    labels[`namespace.cozystack.io/${k}`] = ns[k] ?? '';
  if (ns.schedulingClass) labels['scheduler.cozystack.io/scheduling-class'] = ns.schedulingClass;
  labels['alpha.kubevirt.io/auto-memory-limits-ratio'] = '1.0';
  return labels;
}

/**
 * Helm's `toYaml` of a map: keys sorted at every depth, scalars a YAML reader would take for
 * something else (`"true"`, `"10"`, `""`) double-quoted, everything else plain, null as `null`,
 * and a list under a key not indented (as Go's YAML writes it: the maps `_cluster` copies,
 * docs/behaviour.md §1, may hold lists).
 */
export function helmToYaml(map: unknown): string {
  return jsyaml.dump(map, { sortKeys: true, quotingType: '"', lineWidth: -1, noRefs: true, noArrayIndent: true });
}

/**
 * docs/behaviour.md §2.5: the `values.yaml` of a `cozystack-values` Secret (templates/tenant/cozystack-values.yaml.hbs).
 * `clusterYaml` is Helm's toYaml of `v._cluster`: every tenant of a render shares one map, so the
 * tree dumps it once and passes the text (dumping it once per tenant was a fifth of `render`).
 */
export function valuesYaml(
  v: TenantValues,
  clusterYaml = helmToYaml(v._cluster),
  template = 'tenant/cozystack-values.yaml.hbs',
): string {
  return renderTemplate(template, { clusterYaml, namespace: v._namespace });
}

/**
 * A `cozystack-values` Secret (docs/behaviour.md §2.5, §2.7). `template` writes its values.yaml: the
 * tenant chart's by default, cozystack-basics' for tenant-root.
 */
export function valuesSecret(
  T: string,
  labels: Record<string, string>,
  v: TenantValues,
  clusterYaml?: string,
  template?: string,
): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: VALUES_SECRET, namespace: T, labels },
    type: 'Opaque',
    stringData: { 'values.yaml': valuesYaml(v, clusterYaml, template) },
  };
}

/**
 * §2.4/§2.5: a tenant's Namespace and Secret. The ownerReference to the parent Namespace is
 * emitted only when the parent Namespace in the inputs has a uid (docs/decisions.md §4, in every
 * version: docs/versions.md §T2); it sits in metadata after the labels (docs/tenant.md §2.6).
 */
export function renderTenantObjects(
  T: string,
  parent: string,
  v: TenantValues,
  parentUid?: string,
  clusterYaml?: string,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): KObject[] {
  const labels = namespaceLabels(T, v._namespace, parent, behaviour.namespaceAncestorLabels);
  const metadata: KObject['metadata'] = { name: T, labels };
  if (parentUid)
    metadata.ownerReferences = [
      { apiVersion: 'v1', kind: 'Namespace', name: parent, uid: parentUid, controller: true, blockOwnerDeletion: true },
    ];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata },
    valuesSecret(T, { 'reconcile.fluxcd.io/watch': 'Enabled' }, v, clusterYaml),
  ];
}
