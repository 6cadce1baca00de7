/**
 * The apps/tenant chart (docs/behaviour.md §2) and tenant-root's objects from cozystack-basics
 * (§2.7): for every Tenant its release-name and namespace rules, the tenant namespace name, the
 * host, the `_namespace` inheritance, the Namespace with every label in order and the
 * `cozystack-values` Secret. Tenants form a tree through `metadata.namespace` (the parent
 * tenant's namespace), of any depth. Pure: objects in, objects and findings out.
 */
import * as jsyaml from 'js-yaml';
import { asset } from '../assets';
import { error, warning, type Finding } from '../k8s/diagnostics';
import { renderTemplate } from './templates';
import { isDns1123Label } from '../k8s/dnsNames';
import { isObject, refOf, type KObject } from '../k8s/model';
import type { ClusterMap } from '../platform/tenancy';
import { NS_LABEL_GATEWAY, NS_LABEL_HOST } from '../platform/names';
import { isTenant } from '../platform/kinds';
import { TENANT_ROOT, tenantNamespace, VALUES_SECRET } from '../platform/tenancy';


/** The `_namespace` map a tenant's release sees; keys in the order the chart writes them. */
export type NamespaceValues = Record<string, string>;

/** The values a tenant's releases see: its own `cozystack-values` Secret. */
export interface TenantValues {
  _cluster: ClusterMap;
  _namespace: NamespaceValues;
}

/** One rendered tenant: what the gateway chart needs to know about it. */
export interface TenantRelease {
  /** The Tenant object (absent for tenant-root without a `root` Tenant). */
  tenant?: KObject;
  /** The Tenant's short name X (`root` for tenant-root). */
  name: string;
  /** The tenant namespace T. */
  namespace: string;
  /** The release namespace P (the parent tenant's namespace); absent for tenant-root itself. */
  parentNamespace?: string;
  values: TenantValues;
  /** §2.6: the `gateway` HelmRelease renders (and so the TenantGateway) iff spec.gateway is true. */
  ownsGateway: boolean;
  /** §2.6: `values.gatewayClassName`, only when the tenant set `gatewayClass`. */
  gatewayClassName?: string;
}

export interface TenantSpec {
  host?: string;
  gateway?: boolean;
  gatewayClass?: string;
  ingress?: boolean;
  etcd?: boolean;
  monitoring?: boolean;
  seaweedfs?: boolean;
  schedulingClass?: string;
  [k: string]: unknown;
}

/** The Tenant spec overlaid on the chart defaults (charts/tenant/values.yaml). */
export function tenantSpec(o: KObject | undefined): TenantSpec {
  const defaults = asset<TenantSpec>('charts/tenant/values.yaml');
  const spec = o && isObject(o.spec) ? (o.spec as TenantSpec) : {};
  return { ...defaults, ...spec };
}

// ---------------------------------------------------------------------------------------------
// §2.1 Naming

export function releaseName(name: string): string {
  return `tenant-${name}`;
}

/**
 * §2.1 release-name rule: split on `-`, exactly two parts, the first `tenant`. So a Tenant name
 * containing `-` (or an empty one) fails.
 */
export function releaseNameError(name: string): string | undefined {
  const parts = releaseName(name).split('-');
  if (parts.length === 2 && parts[0] === 'tenant' && parts[1] !== '') return undefined;
  return `release name "${releaseName(name)}" is invalid: a tenant release name must start with "tenant-" and contain no other dashes, so the Tenant name "${name}" must not contain "-"`;
}

/** §2.1: the release namespace (the Tenant's metadata.namespace) must start with `tenant-`. */
export function releaseNamespaceError(ns: string): string | undefined {
  if (ns.startsWith('tenant-')) return undefined;
  return `release namespace "${ns}" is invalid: a Tenant lives in its parent tenant's namespace, which starts with "tenant-" (tenant-root for a top-level tenant)`;
}

/** A Kubernetes label value: at most 63 characters, alphanumerics with `-`, `_`, `.` inside. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** T must be a valid Namespace name (a DNS-1123 label, at most 63 characters). */
export function namespaceNameError(ns: string): string | undefined {
  if (isDns1123Label(ns)) return undefined;
  return `tenant namespace "${ns}" is not a valid Namespace name (a DNS-1123 label: lowercase letters, digits and "-", at most 63 characters)`;
}

export function labelValueError(v: string): string | undefined {
  if (v.length <= 63 && LABEL_VALUE.test(v)) return undefined;
  return v.length > 63 ? `is ${v.length} characters long; a label value holds at most 63` : 'is not a valid label value (alphanumerics, "-", "_" and "." inside)';
}

// ---------------------------------------------------------------------------------------------
// §2.2 host, §2.3 `_namespace` inheritance

/** §2.2: spec.host if non-empty, else `<X>.<parent host>` if the parent host is non-empty, else "". */
export function deriveHost(name: string, specHost: string | undefined, parentHost: string | undefined): string {
  if (specHost) return specHost;
  if (parentHost) return `${name}.${parentHost}`;
  return '';
}

type ModuleKey = 'etcd' | 'ingress' | 'monitoring' | 'seaweedfs';

/** §2.3: the tenant's `_namespace`, in the chart's order, from its parent's and its spec. */
export function inheritNamespace(T: string, name: string, spec: TenantSpec, parent: NamespaceValues): NamespaceValues {
  const own = (k: ModuleKey) => (spec[k] === true ? T : parent[k] ?? '');
  const out: NamespaceValues = {
    etcd: own('etcd'),
    ingress: own('ingress'),
    // docs/decisions.md §2: only `true` owns a Gateway; false inherits exactly like absent.
    gateway: spec.gateway === true ? T : parent.gateway ?? '',
    monitoring: own('monitoring'),
    seaweedfs: own('seaweedfs'),
    host: deriveHost(name, typeof spec.host === 'string' ? spec.host : '', parent.host),
  };
  // docs/behaviour.md §2.3: the parent's scheduling class wins; emitted only when non-empty.
  const sc = parent.schedulingClass || (typeof spec.schedulingClass === 'string' ? spec.schedulingClass : '');
  if (sc) out.schedulingClass = sc;
  return out;
}

/** docs/behaviour.md §2.7: tenant-root's `_namespace`: host, etcd, ingress, gateway (only when enabled), monitoring, seaweedfs. */
export function rootNamespaceValues(cluster: ClusterMap): NamespaceValues {
  const out: NamespaceValues = { host: cluster['root-host'] ?? '', etcd: TENANT_ROOT, ingress: TENANT_ROOT };
  if (cluster['gateway-enabled'] === 'true') out.gateway = TENANT_ROOT;
  out.monitoring = TENANT_ROOT;
  out.seaweedfs = TENANT_ROOT;
  return out;
}

// ---------------------------------------------------------------------------------------------
// docs/behaviour.md §2.4 Namespace labels, §2.5 the Secret

/** docs/behaviour.md §2.4: `tenant.cozystack.io/<prefix>` for each dash-prefix of T with at least two parts, T included. */
export function prefixLabels(T: string): string[] {
  const parts = T.split('-');
  const out: string[] = [];
  for (let i = 2; i <= parts.length; i++) out.push(parts.slice(0, i).join('-'));
  return out;
}

/** docs/behaviour.md §2.4: Namespace T's labels, in order. */
export function namespaceLabels(T: string, ns: NamespaceValues): Record<string, string> {
  const labels: Record<string, string> = { 'tenant.cozystack.io/tenant-root': '' };
  for (const p of prefixLabels(T)) labels[`tenant.cozystack.io/${p}`] = '';
  for (const k of ['etcd', 'ingress', 'gateway', 'monitoring', 'seaweedfs', 'host']) labels[`namespace.cozystack.io/${k}`] = ns[k] ?? '';
  if (ns.schedulingClass) labels['scheduler.cozystack.io/scheduling-class'] = ns.schedulingClass;
  labels['alpha.kubevirt.io/auto-memory-limits-ratio'] = '1.0';
  return labels;
}

/**
 * Helm's `toYaml` of a flat string map: keys sorted, scalars a YAML reader would take for
 * something else (`"true"`, `"10"`, `""`) double-quoted, everything else plain.
 */
export function helmToYaml(map: Record<string, string>): string {
  return jsyaml.dump(map, { sortKeys: true, quotingType: '"', lineWidth: -1, noRefs: true });
}

/**
 * docs/behaviour.md §2.5: the `values.yaml` of a `cozystack-values` Secret (templates/tenant/cozystack-values.yaml.hbs).
 * `clusterYaml` is Helm's toYaml of `v._cluster`: every tenant of a render shares one map, so the
 * tree dumps it once and passes the text (for speed: dumping it once per tenant was a fifth of `render`).
 */
export function valuesYaml(v: TenantValues, clusterYaml = helmToYaml(v._cluster)): string {
  return renderTemplate('tenant/cozystack-values.yaml.hbs', { clusterYaml, namespace: v._namespace });
}

function secret(T: string, labels: Record<string, string>, v: TenantValues, clusterYaml?: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: VALUES_SECRET, namespace: T, labels },
    type: 'Opaque',
    stringData: { 'values.yaml': valuesYaml(v, clusterYaml) },
  };
}

/**
 * docs/behaviour.md §2.2/§2.7: cozystack-basics writes `namespace.cozystack.io/host: <root-host>` on tenant-root,
 * and "a label value over 63 characters breaks the Namespace write" there as it does for any
 * tenant (renderTenantTree checks those). A finding on the platform value publishing.host.
 */
export function rootHostFindings(cluster: ClusterMap): Finding[] {
  const host = cluster['root-host'] ?? '';
  const bad = host ? labelValueError(host) : undefined;
  if (!bad) return [];
  return [error(`publishing.host "${host}" ${bad}: cozystack-basics writes it into the label namespace.cozystack.io/host of Namespace ${TENANT_ROOT}, which the API server would refuse`, {
    rule: 'tenant.label-value', field: 'publishing.host',
    hint: 'set publishing.host to a host of at most 63 characters (letters, digits, "-" and ".")',
  })];
}

/** docs/behaviour.md §2.7: tenant-root's Namespace and Secret, as cozystack-basics writes them. */
export function renderTenantRoot(cluster: ClusterMap, clusterYaml = helmToYaml(cluster)): KObject[] {
  const labels: Record<string, string> = {
    'platform.cozystack.io/no-delete': 'true',
    [NS_LABEL_HOST]: cluster['root-host'] ?? '',
  };
  if (cluster['gateway-enabled'] === 'true') labels[NS_LABEL_GATEWAY] = TENANT_ROOT;
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TENANT_ROOT, labels } },
    secret(TENANT_ROOT, { 'reconcile.fluxcd.io/watch': 'Enabled', 'internal.cozystack.io/managed-by-cozystack': '' }, { _cluster: cluster, _namespace: rootNamespaceValues(cluster) }, clusterYaml),
  ];
}

/**
 * docs/behaviour.md §2.4/§2.5: a tenant's Namespace and Secret. The ownerReference to the parent Namespace is
 * emitted only when the parent Namespace in the inputs has a uid (docs/decisions.md §4).
 */
export function renderTenantObjects(T: string, parent: string, v: TenantValues, parentUid?: string, clusterYaml?: string): KObject[] {
  const metadata: KObject['metadata'] = { name: T, labels: namespaceLabels(T, v._namespace) };
  if (parentUid) metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Namespace', name: parent, uid: parentUid, controller: true, blockOwnerDeletion: true }];
  return [{ apiVersion: 'v1', kind: 'Namespace', metadata }, secret(T, { 'reconcile.fluxcd.io/watch': 'Enabled' }, v, clusterYaml)];
}

// ---------------------------------------------------------------------------------------------
// The tree

export interface TenantTree {
  /** tenant-root first, then every rendered Tenant, parents before children. */
  releases: TenantRelease[];
  /** The Namespaces and Secrets (tenant-root's included). */
  objects: KObject[];
  findings: Finding[];
}

function where(o: KObject, field?: string): Pick<Finding, 'object' | 'field'> {
  return { object: refOf(o), field };
}

/**
 * Render tenant-root and every Tenant among `objects` (cluster state among them supplies the
 * parent Namespaces' uids). Tenants are processed parents first; a Tenant whose parent failed
 * is skipped (its parent's failure says why), one whose parent is unknown is a failure.
 */
export function renderTenantTree(cluster: ClusterMap, objects: KObject[]): TenantTree {
  const findings: Finding[] = [];
  // Every tenant inherits tenant-root's `_cluster` (the same map): its YAML is written once.
  const clusterYaml = helmToYaml(cluster);
  const out: KObject[] = [...renderTenantRoot(cluster, clusterYaml)];
  const rootValues: TenantValues = { _cluster: cluster, _namespace: rootNamespaceValues(cluster) };
  const rootRelease: TenantRelease = { name: 'root', namespace: TENANT_ROOT, values: rootValues, ownsGateway: false };
  const releases: TenantRelease[] = [rootRelease];
  const known = new Map<string, TenantValues>([[TENANT_ROOT, rootValues]]);
  const failed = new Set<string>();
  const nsUid = new Map<string, string>();
  for (const o of objects) if (o.kind === 'Namespace' && o.apiVersion === 'v1' && o.metadata.uid) nsUid.set(o.metadata.name, o.metadata.uid);

  const tenants = objects.filter(isTenant).sort((a, b) => {
    const an = a.metadata.namespace ?? '', bn = b.metadata.namespace ?? '';
    return an < bn ? -1 : an > bn ? 1 : a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
  });
  const seen = new Set<string>();
  let pending: KObject[] = [];
  for (const t of tenants) {
    const key = `${t.metadata.namespace ?? ''}/${t.metadata.name}`;
    if (seen.has(key)) {
      findings.push(error(`duplicate Tenant ${key}: each Tenant may appear once in the inputs`, { ...where(t), rule: 'input.duplicate', hint: 'remove one copy (a directory given with -f is read recursively; check that no file is given twice)' }));
      continue;
    }
    seen.add(key);
    pending.push(t);
  }

  // Parents first: a pass renders every Tenant whose parent namespace is known.
  for (;;) {
    const next: KObject[] = [];
    let progress = false;
    for (const t of pending) {
      const X = t.metadata.name;
      const P = t.metadata.namespace ?? '';
      if (failed.has(P)) {
        failed.add(tenantNamespace(X, P));
        progress = true;
        continue;
      }
      const parent = known.get(P);
      if (!parent && P.startsWith('tenant-')) {
        next.push(t);
        continue;
      }
      progress = true;
      const errs: Finding[] = [];
      const rn = releaseNameError(X);
      if (rn) errs.push(error(rn, { ...where(t, 'metadata.name'), rule: 'tenant.release-name', hint: `rename the Tenant without dashes (e.g. "${X.replace(/-/g, '')}")` }));
      const rns = releaseNamespaceError(P);
      if (rns) errs.push(error(rns, { ...where(t, 'metadata.namespace'), rule: 'tenant.release-namespace', hint: `set metadata.namespace to ${TENANT_ROOT} or to a parent tenant's namespace (tenant-<name>)` }));
      const T = tenantNamespace(X, P);
      if (!rn && !rns) {
        const nn = namespaceNameError(T);
        if (nn) errs.push(error(nn, { ...where(t, 'metadata.name'), rule: 'tenant.namespace-name', hint: T.length > 63 ? 'shorten the Tenant name or nest it less deeply: the namespace joins every ancestor name' : 'use lowercase letters and digits only in the Tenant name' }));
      }
      if (errs.length || !parent) {
        findings.push(...errs);
        failed.add(T);
        continue;
      }
      const spec = tenantSpec(t);
      const gatewayClassName = typeof spec.gatewayClass === 'string' && spec.gatewayClass !== '' ? spec.gatewayClass : undefined;
      const ownsGateway = spec.gateway === true;
      if (gatewayClassName !== undefined && !ownsGateway) {
        findings.push(warning('spec.gatewayClass has no effect: the tenant owns no Gateway (set spec.gateway: true to give it one)', { ...where(t, 'spec.gatewayClass'), rule: 'tenant.gateway-class-unused' }));
      }
      if (T === TENANT_ROOT) {
        // docs/behaviour.md §2.1: for tenant-root the Namespace and Secret templates render nothing; the release sees
        // cozystack-basics' Secret. Only gateway.yaml (and so the TenantGateway) is not gated.
        if (typeof spec.host === 'string' && spec.host !== '' && spec.host !== cluster['root-host']) {
          findings.push(warning(`spec.host "${spec.host}" of the root Tenant is ignored: tenant-root's host is publishing.host ("${cluster['root-host'] ?? ''}")`, { ...where(t, 'spec.host'), rule: 'tenant.root-host' }));
        }
        rootRelease.tenant = t;
        rootRelease.parentNamespace = P;
        rootRelease.ownsGateway = ownsGateway;
        rootRelease.gatewayClassName = gatewayClassName;
        continue;
      }
      const values: TenantValues = { _cluster: parent._cluster, _namespace: inheritNamespace(T, X, spec, parent._namespace) };
      let labelErr = false;
      for (const k of ['host', 'schedulingClass']) {
        const v = values._namespace[k];
        const bad = v ? labelValueError(v) : undefined;
        if (bad) {
          labelErr = true;
          const field = k === 'host' && spec.host ? 'spec.host' : k === 'schedulingClass' && spec.schedulingClass ? 'spec.schedulingClass' : undefined;
          findings.push(error(`${k} "${v}" ${bad}: it is written into the label namespace.cozystack.io/${k === 'host' ? 'host' : 'scheduling-class'} of Namespace ${T}, which the API server would refuse`, { ...where(t, field), rule: 'tenant.label-value', hint: field ? `shorten ${field} to at most 63 characters of letters, digits, "-", "_" and "."` : 'the value is inherited: shorten the Tenant name or the host it derives from' }));
        }
      }
      if (labelErr) {
        failed.add(T);
        continue;
      }
      known.set(T, values);
      out.push(...renderTenantObjects(T, P, values, nsUid.get(P), values._cluster === cluster ? clusterYaml : undefined));
      releases.push({ tenant: t, name: X, namespace: T, parentNamespace: P, values, ownsGateway, gatewayClassName });
    }
    pending = next;
    if (!progress || pending.length === 0) break;
  }
  for (const t of pending) {
    const P = t.metadata.namespace ?? '';
    findings.push(error(`parent namespace "${P}" is neither tenant-root nor the namespace of any Tenant in the inputs, so the tenant's values cannot be derived`, { ...where(t, 'metadata.namespace'), rule: 'tenant.parent', hint: `add the parent Tenant, or set metadata.namespace to ${TENANT_ROOT}` }));
  }
  return { releases, objects: out, findings };
}
