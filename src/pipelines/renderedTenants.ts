/**
 * The Tenants a committed `render --output-dir` tree was rendered from, read back from what render
 * wrote there (docs/commands/diff.md: "A tree holds no Tenants: the tenants it was rendered
 * from are read from the tree itself"). A tenant is known by its Namespace (the tenant chart writes
 * the label `tenant.cozystack.io/<its namespace>` on it, docs/behaviour.md §2.4) and its spec by what the
 * charts made of it:
 * - the name and the parent: a tenant namespace is `tenant-<name>` under tenant-root and
 *   `<parent namespace>-<name>` deeper, and a Tenant name holds no dash (docs/behaviour.md §2.1), so
 *   the last dash-separated part is the name and the rest the parent's namespace;
 * - `gateway: true` when the gateway chart's TenantGateway is in its namespace, with
 *   `gatewayClass` when that TenantGateway names a class other than the platform default;
 * - `etcd`, `ingress`, `monitoring`, `seaweedfs: true` when the `namespace.cozystack.io/<module>`
 *   label names the tenant's own namespace (otherwise the module is inherited, docs/behaviour.md §2.3);
 * - `host` when the host label is not the one the chart derives (`<name>.<parent host>`, docs/behaviour.md §2.2);
 * - `schedulingClass` when the tenant carries one its parent does not (the parent's wins, docs/behaviour.md §2.3);
 * - `computeplane: true` when the module's HelmRelease `computeplane` is in its namespace;
 * - `resourceQuotas` from its ResourceQuota `tenant-quota` (docs/tenant.md §2.3): the flattened
 *   map read back (a `limits.<r>` entry is the quota of `<r>` as given, a `requests.<r>` entry is
 *   derived from it, except `requests.storage`, which has no limit; the counted resources as they are).
 * A spec value that leaves no trace in what render writes (a host set to the value it would have
 * anyway) reads back as absent: rendering the Tenants read back gives the same objects. Only
 * objects render wrote (the tree's record) are read, so a file of the user's own in the tree
 * cannot make a tenant. tenant-root's own Tenant (`root`) is read back when it owns a Gateway.
 * Pure.
 */
import * as jsyaml from 'js-yaml';
import { isNamespace, isObject, type KObject } from '../k8s/model';
import { isTenantGateway } from '../platform/kinds';
import { DEFAULT_CLASS, NS_LABEL_HOST, TGW_NAME } from '../platform/names';
import { TENANT_ROOT, tenantNamespaceOf, VALUES_SECRET } from '../platform/tenancy';

const TENANT_API = 'apps.cozystack.io/v1alpha1';
const MODULES = ['etcd', 'ingress', 'monitoring', 'seaweedfs'] as const;
const SCHEDULING_LABEL = 'scheduler.cozystack.io/scheduling-class';

/** The platform default class as tenant-root's values Secret holds it (`_cluster.gateway-class-name`). */
function platformClass(held: readonly KObject[]): string {
  const s = held.find(
    (o) =>
      o.kind === 'Secret' &&
      o.apiVersion === 'v1' &&
      o.metadata.namespace === TENANT_ROOT &&
      o.metadata.name === VALUES_SECRET,
  );
  let text: unknown = isObject(s?.stringData) ? s.stringData['values.yaml'] : undefined;
  if (text === undefined && isObject(s?.data) && typeof s.data['values.yaml'] === 'string')
    text = Buffer.from(s.data['values.yaml'], 'base64').toString('utf8');
  if (typeof text !== 'string') return DEFAULT_CLASS;
  try {
    const v = jsyaml.load(text, { schema: jsyaml.FAILSAFE_SCHEMA });
    const cls = isObject(v) && isObject(v._cluster) ? v._cluster['gateway-class-name'] : undefined;
    return typeof cls === 'string' && cls.trim() ? cls.trim() : DEFAULT_CLASS;
  } catch {
    return DEFAULT_CLASS;
  }
}

/** The tenant's ResourceQuota (docs/tenant.md §2.3). */
const QUOTA_NAME = 'tenant-quota';

/** `resourceQuotas` as the flattened `spec.hard` map says it was given (the inverse of resources.flatten). */
function quotasOf(hard: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(hard)) {
    if (k.startsWith('limits.')) out[k.slice('limits.'.length)] = v;
    else if (k === 'requests.storage') out.storage = v;
    else if (!k.startsWith('requests.')) out[k] = v;
  }
  return out;
}

/** The parent namespace and name of tenant namespace T, or undefined when T is not one. */
export function tenantOfNamespace(T: string): { parent: string; name: string } | undefined {
  const parts = T.split('-');
  if (parts.length < 2 || parts[0] !== 'tenant' || T === TENANT_ROOT) return undefined;
  const name = parts[parts.length - 1];
  if (!name) return undefined;
  const parent = parts.length === 2 ? TENANT_ROOT : parts.slice(0, -1).join('-');
  return { parent, name };
}

/**
 * The Tenants the held objects (those render wrote into a tree) were rendered from, parents
 * before children. `known` names tenant namespaces whose Tenant the caller already has (a state
 * that holds Tenant objects): they are not read back.
 */
export function renderedTenants(held: readonly KObject[], known: ReadonlySet<string> = new Set()): KObject[] {
  const namespaces = new Map<string, KObject>();
  const gateways = new Map<string, KObject>();
  const quotas = new Map<string, Record<string, unknown>>();
  const computeplane = new Set<string>();
  for (const o of held) {
    const ns = o.metadata.namespace ?? '';
    if (o.kind === 'ResourceQuota' && o.apiVersion === 'v1' && o.metadata.name === QUOTA_NAME && isObject(o.spec)) {
      if (isObject(o.spec.hard)) quotas.set(ns, o.spec.hard);
    } else if (
      o.kind === 'HelmRelease' &&
      o.apiVersion.startsWith('helm.toolkit.fluxcd.io/') &&
      o.metadata.name === 'computeplane'
    )
      computeplane.add(ns);
    else if (isNamespace(o)) namespaces.set(o.metadata.name, o);
    else if (isTenantGateway(o) && o.metadata.name === TGW_NAME && o.metadata.namespace)
      gateways.set(o.metadata.namespace, o);
  }
  const defaultClass = platformClass(held);
  const gatewaySpec = (ns: string): Record<string, unknown> => {
    const tgw = gateways.get(ns);
    if (!tgw) return {};
    const cls = isObject(tgw.spec) ? tgw.spec.gatewayClassName : undefined;
    return typeof cls === 'string' && cls.trim() && cls.trim() !== defaultClass
      ? { gateway: true, gatewayClass: cls }
      : { gateway: true };
  };
  const out: KObject[] = [];
  if (gateways.has(TENANT_ROOT) && !known.has(TENANT_ROOT))
    out.push({
      apiVersion: TENANT_API,
      kind: 'Tenant',
      metadata: { name: 'root', namespace: TENANT_ROOT },
      spec: gatewaySpec(TENANT_ROOT),
    });
  const names = [...namespaces.keys()].sort((a, b) => a.split('-').length - b.split('-').length || (a < b ? -1 : 1));
  for (const T of names) {
    const ns = namespaces.get(T)!;
    const labels = ns.metadata.labels ?? {};
    const at = tenantOfNamespace(T);
    if (!at || known.has(T) || labels[`tenant.cozystack.io/${T}`] === undefined) continue;
    const parentLabels = namespaces.get(at.parent)?.metadata.labels ?? {};
    const spec: Record<string, unknown> = { ...gatewaySpec(T) };
    for (const m of MODULES) if (labels[`namespace.cozystack.io/${m}`] === T) spec[m] = true;
    const host = labels[NS_LABEL_HOST] ?? '';
    const parentHost = parentLabels[NS_LABEL_HOST] ?? '';
    const derived = parentHost ? `${at.name}.${parentHost}` : '';
    if (host && host !== derived) spec.host = host;
    const sc = labels[SCHEDULING_LABEL];
    if (sc && !parentLabels[SCHEDULING_LABEL]) spec.schedulingClass = sc;
    if (computeplane.has(T)) spec.computeplane = true;
    const hard = quotas.get(T);
    if (hard) spec.resourceQuotas = quotasOf(hard);
    out.push({ apiVersion: TENANT_API, kind: 'Tenant', metadata: { name: at.name, namespace: at.parent }, spec });
  }
  return out;
}

/** The tenant namespaces whose Tenant objects a state holds. */
export function tenantNamespacesOf(tenants: readonly KObject[]): Set<string> {
  return new Set(tenants.map(tenantNamespaceOf));
}
