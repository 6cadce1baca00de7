/**
 * The apps/tenant chart over the whole tenant tree, and cozystack-basics (docs/tenant.md §1.1,
 * §1.2): for tenant-root and every Tenant, every object the chart renders (namespaceTemplate,
 * tenantRbac, networkPolicies, quota, keycloakGroups, moduleReleases, and on request hooks), and
 * the platform objects of cozystack-basics (cozystackBasics). Tenants form a tree through
 * `metadata.namespace` (the parent tenant's namespace), of any depth; this module walks it once,
 * parents first, and calls each template for each tenant. The TenantGateway of each tenant that
 * owns a Gateway is the gateway chart's (gatewayChart.ts, called by the render pipeline with the
 * releases returned here). Pure: objects in, objects and findings out.
 */
import { error, hasErrors, warning, type Finding } from '../k8s/diagnostics';
import { isNamespace, refOf, type KObject } from '../k8s/model';
import { pushAll } from '../k8s/arrays';
import { asset } from '../assets';
import { isTenant } from '../platform/kinds';
import { TENANT_ROOT, tenantNamespace, type ClusterMap } from '../platform/tenancy';
import { validateTenant } from '../validation/inputValidation';
import { capabilitiesOf, keycloakServed, type Capabilities } from './capabilities';
import { renderPlatformObjects, renderTenantRoot, rootNamespaceValues } from './cozystackBasics';
import { tenantCleanupHook } from './hooks';
import { OidcFlagError, renderKeycloakGroups } from './keycloakGroups';
import { computeplaneGuard, moduleTable, renderModuleReleases, type ModuleDef } from './moduleReleases';
import { helmToYaml, inheritNamespace, renderTenantObjects } from './namespaceTemplate';
import { CCNP_KIND, renderNetworkPolicies } from './networkPolicies';
import { QuotaError, RATIOS, renderQuota } from './quota';
import { renderTenantRbac } from './tenantRbac';
import { labelValueError, releaseNameError, releaseNamespaceError } from './tenantNames';
import {
  nameFindings,
  namespaceFinding,
  quantityFindings,
  quotaHierarchyFindings,
  reservedKeyFindings,
  TENANTS_API_RULES,
  uncheckedQuantityFindings,
} from './tenantsApi';
import {
  releaseName,
  tenantChartDefaults,
  tenantSpec,
  type TenantRelease,
  type TenantSpec,
  type TenantValues,
} from './tenantRelease';
import { duplicateFindings } from '../k8s/duplicates';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

export interface TreeOptions {
  /** `--gateway-only`: the gateway slice alone (each tenant's Namespace and Secret), for platforms whose tenant HelmReleases still render the rest. */
  gatewayOnly?: boolean;
  /** `--include-hooks` (docs/decisions.md §Q5): the tenant chart's pre-delete hook objects too. */
  includeHooks?: boolean;
  /** `--api-versions` (docs/decisions.md §Q2, §Q3). */
  apiVersions?: readonly string[];
  /**
   * The Tenants whose inputs already failed (tenantInputFindings, run by the caller with the other
   * input checks and reported there): skipped with their subtrees. Absent: the tree checks every
   * Tenant itself and reports what it finds.
   */
  invalidTenants?: ReadonlySet<KObject>;
  /**
   * Render the templates of these releases only (a change against a tree's record, docs/performance.md
   * "Changed-only"): every release is still walked (its values, its own findings), and a release
   * not rendered claims its cluster-wide names where `claims` says (the tenants whose names could
   * meet a rendered one's: docs/tenant.md §2.12), so that a name two tenants share is found as a
   * whole render finds it. Absent: every release is rendered.
   */
  only?: { render(namespace: string): boolean; claims(namespace: string): boolean };
  /** What the Cozystack version renders (docs/versions.md); default main's. */
  behaviour?: Behaviour;
}

/** A release as the walk hands it on: its objects (none when not rendered), and how many findings its templates gave. */
export interface WalkedRelease {
  release: TenantRelease;
  objects: KObject[];
  /** Whether its templates were rendered (every release, unless TreeOptions.only). */
  rendered: boolean;
  /** The findings its templates added (which a walk that does not render it would not give). */
  templateFindings: number;
}

export interface TenantTree {
  /** tenant-root first, then every rendered Tenant, parents before children. */
  releases: TenantRelease[];
  /** Every object of the charts, cozystack-basics' included (the TenantGateways aside). */
  objects: KObject[];
  findings: Finding[];
  /** The tenants whose pre-delete hook objects were left out (without includeHooks; docs/decisions.md §Q5). */
  hooksOmitted: number;
}

const where = (t: KObject | undefined, field?: string): Pick<Finding, 'object' | 'field'> =>
  t ? { object: refOf(t), field } : {};

// ---------------------------------------------------------------------------------------------
// Input checks: every one at once

/** A name the chart accepts, close to one it refuses: lowercased, letters and digits kept, a letter first. */
function nameSuggestion(name: string): string {
  const kept = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return /^[a-z]/.test(kept) ? kept : `t${kept}`;
}

/**
 * A Tenant's own input checks, all of them (docs/decisions.md §C5: every failure at once): the
 * values schema (docs/tenant.md §3, docs/decisions.md §Q15, src/validation/; the keys the
 * version's schema knows), the chart's `tenant.name` (docs/tenant.md §2.0.2), and the Tenants
 * API's rules that a Tenant alone decides (docs/decisions.md §15, src/charts/tenantsApi.ts: the
 * name, its length, the tenant namespace, the reserved keys, and the quantities where the version
 * checks quotas, docs/versions.md §A1).
 */
export function tenantInputFindings(t: KObject, behaviour: Behaviour = MAIN_VERSION.behaviour): Finding[] {
  const out = validateTenant(t, behaviour);
  const X = t.metadata?.name;
  const P = t.metadata?.namespace;
  let namesOk = typeof X === 'string' && typeof P === 'string' && P !== '';
  /** A name the chart refuses: a finding at its field, and (but for its length) no namespace name to check. */
  const refuse = (fs: (Finding | undefined)[]) => {
    for (const f of fs) {
      if (!f) continue;
      if (f.rule !== TENANTS_API_RULES.nameLength) namesOk = false;
      out.push(f);
    }
  };
  if (typeof X === 'string') {
    const suggestion = JSON.stringify(nameSuggestion(X));
    const bad = releaseNameError(X);
    refuse([
      bad
        ? error(bad, {
            ...where(t, 'metadata.name'),
            rule: 'tenant.release-name',
            hint: `rename the Tenant without dashes, e.g. ${suggestion}`,
          })
        : undefined,
      ...nameFindings(t, X, suggestion),
    ]);
  }
  if (typeof P === 'string' && P !== '') {
    const bad = releaseNamespaceError(P);
    if (bad)
      refuse([
        error(bad, {
          ...where(t, 'metadata.namespace'),
          rule: 'tenant.release-namespace',
          hint: `set metadata.namespace to ${TENANT_ROOT} or to a parent tenant's namespace (tenant-<name>)`,
        }),
      ]);
  }
  if (namesOk) refuse([namespaceFinding(t, X as string, P as string)]);
  // docs/decisions.md §15: the reserved keys and the quantities (a value the schema refused is not reported twice).
  pushAll(out, reservedKeyFindings(t));
  const schemaRefused = new Set<string>();
  for (const f of out)
    if (f.field?.startsWith('spec.resourceQuotas.')) schemaRefused.add(f.field.slice('spec.resourceQuotas.'.length));
  // docs/versions.md §A1: a version without the quota checks lets any value the schema admits through.
  pushAll(
    out,
    behaviour.tenantQuotaChecks ? quantityFindings(t, schemaRefused) : uncheckedQuantityFindings(t, schemaRefused),
  );
  return out;
}

/**
 * Each Tenant's own checks (tenantInputFindings), by Tenant: made once by a caller that renders the
 * same Tenants more than once (a changed-only diff plans from the tree's Tenants, then renders
 * them: docs/performance.md "Changed-only") and handed to each render (RenderOptions.tenantChecks).
 * A Tenant's checks read only the Tenant (its findings name it by kind, namespace and name), so
 * Tenants of the same JSON text share them. `clean`: Tenants known to pass their checks with
 * nothing to say (a tree's, whose record says so: src/io/treeRecord.ts `checked`), not checked again,
 * nor any Tenant of the same text.
 */
export function tenantChecks(
  tenants: readonly KObject[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
  clean: readonly KObject[] = [],
): Map<KObject, Finding[]> {
  const out = new Map<KObject, Finding[]>();
  // Two Tenants of the same text (the tree's and the change's, unchanged) have the same checks.
  const byText = new Map<string, Finding[]>();
  for (const t of clean) {
    const none: Finding[] = [];
    out.set(t, none);
    byText.set(JSON.stringify(t), none);
  }
  for (const t of tenants) {
    if (out.has(t)) continue;
    const text = JSON.stringify(t);
    let fs = byText.get(text);
    if (!fs) byText.set(text, (fs = tenantInputFindings(t, behaviour)));
    out.set(t, fs);
  }
  return out;
}

/**
 * Every Tenant's input checks (tenantInputFindings) and then the hierarchical quota over those
 * that pass them (docs/decisions.md §15; only where the version checks quotas, docs/versions.md
 * §A1): the findings, and the Tenants with an error, whose subtrees the tree skips. `checks`: each
 * Tenant's own checks where the caller made them (tenantChecks).
 */
export function tenantsInputCheck(
  tenants: readonly KObject[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
  checks?: ReadonlyMap<KObject, Finding[]>,
): { findings: Finding[]; invalid: Set<KObject> } {
  const findings: Finding[] = [];
  const invalid = new Set<KObject>();
  const passed: KObject[] = [];
  for (const t of tenants) {
    const fs = checks?.get(t) ?? tenantInputFindings(t, behaviour);
    pushAll(findings, fs);
    if (hasErrors(fs)) invalid.add(t);
    else passed.push(t);
  }
  if (!behaviour.tenantQuotaChecks) return { findings, invalid };
  for (const { tenant, finding } of quotaHierarchyFindings(passed)) {
    findings.push(finding);
    invalid.add(tenant);
  }
  return { findings, invalid };
}

// ---------------------------------------------------------------------------------------------
// Shared per-render data and the output

/** What every tenant's templates share in one render: read and computed once. */
interface ChartData {
  cluster: ClusterMap;
  /** Helm's toYaml of `_cluster`: every tenant inherits the same map, so its YAML is written once. */
  clusterYaml: string;
  defaults: TenantSpec;
  fixedPolicies: KObject[];
  limitRange: KObject;
  modules: ModuleDef[];
  capabilities: Capabilities;
  /** The uids of the input Namespaces (docs/decisions.md §4). */
  namespaceUids: Map<string, string>;
  opts: TreeOptions;
  /** What the Cozystack version renders (docs/versions.md). */
  behaviour: Behaviour;
}

/** The egress policy to the grafana-dashboards plugin server, which only some versions render (docs/versions.md §T5). */
const GRAFANA_DASHBOARDS_POLICY = 'allow-to-grafana-dashboards';

/** The fixed CiliumNetworkPolicies of the version's chart (docs/tenant.md §2.2; docs/versions.md T5). */
function fixedPoliciesOf(behaviour: Behaviour): KObject[] {
  const all = asset<KObject[]>('templates/tenant/networkpolicy-fixed.yaml');
  return behaviour.grafanaDashboardsEgress ? all : all.filter((p) => p.metadata.name !== GRAFANA_DASHBOARDS_POLICY);
}

function chartData(cluster: ClusterMap, objects: readonly KObject[], opts: TreeOptions): ChartData {
  const behaviour = opts.behaviour ?? MAIN_VERSION.behaviour;
  const namespaceUids = new Map<string, string>();
  for (const o of objects) if (isNamespace(o) && o.metadata.uid) namespaceUids.set(o.metadata.name, o.metadata.uid);
  return {
    cluster,
    clusterYaml: helmToYaml(cluster),
    defaults: tenantChartDefaults(),
    fixedPolicies: fixedPoliciesOf(behaviour),
    limitRange: asset<KObject>('templates/tenant/limitrange.yaml'),
    modules: moduleTable(behaviour),
    capabilities: capabilitiesOf(objects, opts.apiVersions),
    namespaceUids,
    opts,
    behaviour,
  };
}

/** What the walk collects: objects, findings, and the cluster-wide names two tenants must not share (docs/tenant.md §2.12, docs/decisions.md §Q14). */
export class TreeOutput {
  /** The objects of the release being rendered (walkTenantTree hands them on release by release). */
  objects: KObject[] = [];
  readonly findings: Finding[] = [];
  /** tenant-root first, then every rendered Tenant, parents before children. */
  readonly releases: TenantRelease[] = [];
  hooksOmitted = 0;
  private readonly ccnps = new Map<string, TenantRelease>();
  private readonly keycloakGroups = new Map<string, TenantRelease>();

  push(objs: KObject[]): void {
    for (const o of objs) this.objects.push(o);
  }

  /** The objects pushed since the last call, handed on. */
  take(): KObject[] {
    const objs = this.objects;
    this.objects = [];
    return objs;
  }

  /** Q14: a CiliumClusterwideNetworkPolicy name two tenants render is a failure naming both. */
  claimClusterwide(o: KObject, r: TenantRelease): void {
    const first = this.ccnps.get(o.metadata.name);
    if (!first) {
      this.ccnps.set(o.metadata.name, r);
      return;
    }
    this.findings.push(
      error(
        `${CCNP_KIND} ${o.metadata.name} would be rendered by two tenants, ${first.namespace} and ${r.namespace}: its name is cluster-wide, so the second would fail on the first one's (as the second tenant release fails upstream)`,
        {
          ...where(r.tenant),
          rule: 'tenant.clusterwide-name',
          hint: `rename the Tenant ${r.name} (a child named "${r.name}" of a tenant with ${r.name}: true produces the same policy name)`,
        },
      ),
    );
  }

  /** Q14: a Keycloak group name two tenants render is only a warning (upstream renders it without complaint). */
  claimKeycloakGroup(name: string, r: TenantRelease): void {
    const first = this.keycloakGroups.get(name);
    if (!first) {
      this.keycloakGroups.set(name, r);
      return;
    }
    this.findings.push(
      warning(
        `the Keycloak group ${name} is rendered for two tenants, ${first.namespace} and ${r.namespace} (two KeycloakRealmGroups with one spec.name): whoever is in it gets the access of both`,
        { ...where(r.tenant), rule: 'tenant.keycloak-group-shared', hint: `rename the Tenant ${r.name}` },
      ),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// One tenant: each template a call

/**
 * A release the walk does not render (TreeOptions.only): its hook counted, and where asked its
 * cluster-wide names claimed as rendering it would claim them (the objects made and let go).
 */
function walkUnrendered(r: TenantRelease, d: ChartData, out: TreeOutput, claims: boolean): void {
  if (!d.opts.includeHooks && !d.opts.gatewayOnly) out.hooksOmitted++;
  if (!claims || d.opts.gatewayOnly) return;
  for (const p of renderNetworkPolicies(r, d.fixedPolicies)) if (p.kind === CCNP_KIND) out.claimClusterwide(p, r);
  let groups: KObject[] = [];
  try {
    groups = renderKeycloakGroups(r.namespace, r.values._cluster, keycloakServed(d.capabilities, r.values._cluster));
  } catch (e) {
    if (!(e instanceof OidcFlagError)) throw e; // the rendered releases report it
  }
  for (const g of groups) out.claimKeycloakGroup(g.metadata.name, r);
}

/** Render every template of the apps/tenant chart for one tenant release. */
function renderTenant(r: TenantRelease, d: ChartData, out: TreeOutput): void {
  const T = r.namespace;
  // namespace.yaml: for tenant-root, cozystack-basics' Namespace and Secret instead (docs/behaviour.md §2.1).
  if (T !== TENANT_ROOT) {
    const uid = d.namespaceUids.get(r.parentNamespace);
    const clusterYaml = r.values._cluster === d.cluster ? d.clusterYaml : undefined;
    out.push(renderTenantObjects(T, r.parentNamespace, r.values, uid, clusterYaml, d.behaviour));
  }
  if (d.opts.gatewayOnly) return;
  // tenant.yaml
  out.push(renderTenantRbac(r));
  // networkpolicy.yaml
  const policies = renderNetworkPolicies(r, d.fixedPolicies);
  for (const p of policies) if (p.kind === CCNP_KIND) out.claimClusterwide(p, r);
  out.push(policies);
  // quota.yaml
  try {
    out.push(renderQuota(T, r.spec.resourceQuotas, r.values._cluster, d.limitRange, d.behaviour));
  } catch (e) {
    if (!(e instanceof QuotaError)) throw e;
    const ratio = Object.values(RATIOS).find((x) => x.key === e.clusterKey);
    out.findings.push(
      error(`quota of tenant namespace ${T}: ${e.message}`, {
        ...where(r.tenant, ratio ? undefined : 'spec.resourceQuotas'),
        rule: 'tenant.quota',
        hint: ratio
          ? `set ${ratio.value} in the platform values to a non-zero number`
          : 'write resourceQuotas as one flat map (cpu: 4, memory: 4Gi, storage: 100Gi, pods: 50)',
        // The platform value the ratio comes from: the render pipeline says where it is set.
        valueAt: ratio ? { value: ratio.value } : undefined,
      }),
    );
  }
  // keycloakgroups.yaml
  try {
    const groups = renderKeycloakGroups(T, r.values._cluster, keycloakServed(d.capabilities, r.values._cluster));
    for (const g of groups) out.claimKeycloakGroup(g.metadata.name, r);
    out.push(groups);
  } catch (e) {
    if (!(e instanceof OidcFlagError)) throw e;
    out.findings.push(
      error(`keycloak groups of tenant namespace ${T}: ${e.message}`, { ...where(r.tenant), rule: 'tenant.oidc-flag' }),
    );
  }
  // etcd.yaml, ingress.yaml, monitoring.yaml, seaweedfs.yaml, computeplane.yaml, info.yaml
  if (d.behaviour.computeplaneModule) checkComputeplane(r, d, out);
  out.push(renderModuleReleases(r, d.modules));
  // cleanup-job.yaml: a Helm hook (docs/decisions.md §Q5), the version's (docs/versions.md §T3, §T4).
  if (d.opts.includeHooks) out.push(tenantCleanupHook(T, d.behaviour));
  else out.hooksOmitted++;
}

/** computeplane.yaml's Package guard (docs/tenant.md §2.5.3): a version without the module has none (docs/versions.md §T6). */
function checkComputeplane(r: TenantRelease, d: ChartData, out: TreeOutput): void {
  const T = r.namespace;
  const guard = computeplaneGuard(r.spec, d.capabilities);
  if (!guard.ok)
    out.findings.push(
      error(`computeplane of tenant namespace ${T}: ${guard.error}`, {
        ...where(r.tenant, 'spec.computeplane'),
        rule: 'tenant.computeplane-package',
        hint: 'enable the iaas bundle (bundles.iaas.enabled: true), or set spec.computeplane: false',
      }),
    );
  else if ('unchecked' in guard)
    out.findings.push(
      warning(`tenant namespace ${T}: ${guard.unchecked}`, {
        ...where(r.tenant, 'spec.computeplane'),
        rule: 'tenant.computeplane-unchecked',
        hint: 'give the platform Package (or --api-versions cozystack.io/v1alpha1 and the Packages) among the inputs to check it',
      }),
    );
}

// ---------------------------------------------------------------------------------------------
// The releases: tenant-root, and each Tenant from its parent's

/**
 * Whether the tenant owns a Gateway, and the class it chose. A version without gateway classes
 * has no `gatewayClass` value (docs/versions.md §X1): its unknown-key warning is the whole verdict.
 */
function gatewaySettings(t: KObject | undefined, spec: TenantSpec, d: ChartData, out: TreeOutput) {
  const gatewayClassName =
    d.behaviour.gatewayClasses && typeof spec.gatewayClass === 'string' && spec.gatewayClass !== ''
      ? spec.gatewayClass
      : undefined;
  const ownsGateway = spec.gateway === true;
  if (gatewayClassName !== undefined && !ownsGateway)
    out.findings.push(
      warning('spec.gatewayClass has no effect: the tenant owns no Gateway (set spec.gateway: true to give it one)', {
        ...where(t, 'spec.gatewayClass'),
        rule: 'tenant.gateway-class-unused',
      }),
    );
  return { ownsGateway, gatewayClassName };
}

/** tenant-root: release `tenant-root` in `tenant-root` (docs/decisions.md §Q1); its own values from the optional Tenant `root` (docs/decisions.md §1). */
function rootRelease(root: KObject | undefined, d: ChartData, out: TreeOutput): TenantRelease {
  const spec = tenantSpec(root, d.defaults);
  if (root && typeof spec.host === 'string' && spec.host !== '' && spec.host !== d.cluster['root-host'])
    out.findings.push(
      warning(
        `spec.host "${spec.host}" of the root Tenant is ignored: tenant-root's host is publishing.host ("${d.cluster['root-host'] ?? ''}")`,
        { ...where(root, 'spec.host'), rule: 'tenant.root-host' },
      ),
    );
  return {
    tenant: root,
    name: 'root',
    namespace: TENANT_ROOT,
    parentNamespace: TENANT_ROOT,
    releaseName: releaseName('root'),
    values: { _cluster: d.cluster, _namespace: rootNamespaceValues(d.cluster) },
    spec,
    ...gatewaySettings(root, spec, d, out),
  };
}

/** A Tenant's release from its parent's (docs/behaviour.md §2.1-2.3); undefined when a label it would write is invalid (reported). */
function childRelease(t: KObject, parent: TenantRelease, d: ChartData, out: TreeOutput): TenantRelease | undefined {
  const X = t.metadata.name;
  const P = parent.namespace;
  const T = tenantNamespace(X, P);
  const spec = tenantSpec(t, d.defaults);
  const values: TenantValues = {
    _cluster: parent.values._cluster,
    _namespace: inheritNamespace(T, X, spec, parent.values._namespace),
  };
  const before = out.findings.length;
  for (const k of ['host', 'schedulingClass']) {
    const v = values._namespace[k];
    const bad = v ? labelValueError(v) : undefined;
    if (!bad) continue;
    const field =
      k === 'host' && spec.host
        ? 'spec.host'
        : k === 'schedulingClass' && spec.schedulingClass
          ? 'spec.schedulingClass'
          : undefined;
    out.findings.push(
      error(
        `${k} "${v}" ${bad}: it is written into the label namespace.cozystack.io/${k === 'host' ? 'host' : 'scheduling-class'} of Namespace ${T}, which the API server would refuse`,
        {
          ...where(t, field),
          rule: 'tenant.label-value',
          hint: field
            ? `shorten ${field} to at most 63 characters of letters, digits, "-", "_" and "."`
            : 'the value is inherited: shorten the Tenant name or the host it derives from',
        },
      ),
    );
  }
  if (out.findings.length > before) return undefined;
  return {
    tenant: t,
    name: X,
    namespace: T,
    parentNamespace: P,
    releaseName: releaseName(X),
    values,
    spec,
    ...gatewaySettings(t, spec, d, out),
  };
}

/**
 * The walk order, parents first: tenant-root's children, then the others by namespace (a parent
 * below tenant-root has namespace P and children in P-X, which sorts after P), then by name.
 */
const walkOrder = (a: KObject, b: KObject): number => {
  const an = a.metadata.namespace ?? '',
    bn = b.metadata.namespace ?? '';
  if (an !== bn) {
    if (an === TENANT_ROOT) return -1;
    if (bn === TENANT_ROOT) return 1;
    return an < bn ? -1 : 1;
  }
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
};

// ---------------------------------------------------------------------------------------------
// The walk

/**
 * Render tenant-root, every Tenant among `objects` and cozystack-basics (cluster state among the
 * objects supplies the parent Namespaces' uids and the served APIs), in one pass, parents first
 * (walkOrder). A
 * Tenant whose parent failed is skipped (its parent's failure says why); one whose parent is
 * unknown is a failure, and its subtree is skipped.
 */
export function renderTenantTree(cluster: ClusterMap, objects: KObject[], opts: TreeOptions = {}): TenantTree {
  const out = new TreeOutput();
  const all: KObject[] = [];
  for (const g of walkTenantTree(cluster, objects, opts, out)) pushAll(all, g.objects);
  return { releases: out.releases, objects: all, findings: out.findings, hooksOmitted: out.hooksOmitted };
}

/**
 * The walk of renderTenantTree, release by release: each release with the objects it renders
 * (tenant-root's with cozystack-basics' objects), as it is rendered, so that a caller writing
 * them out need not hold the whole tree's objects at once. The findings, the releases and the
 * hooks left out collect in `out`, complete once the walk is done.
 */
export function* walkTenantTree(
  cluster: ClusterMap,
  objects: KObject[],
  opts: TreeOptions,
  out: TreeOutput,
): Generator<WalkedRelease> {
  const d = chartData(cluster, objects, opts);
  const { tenants, failed } = treeInputs(objects, opts, out);
  const isRoot = (t: KObject) => tenantNamespace(t.metadata.name, t.metadata.namespace ?? '') === TENANT_ROOT;
  const only = opts.only;
  const walked = (r: TenantRelease, basics: () => void): WalkedRelease => {
    const rendered = only ? only.render(r.namespace) : true;
    if (!rendered) {
      walkUnrendered(r, d, out, only!.claims(r.namespace));
      return { release: r, objects: out.take(), rendered, templateFindings: 0 };
    }
    basics();
    const before = out.findings.length;
    renderTenant(r, d, out);
    return { release: r, objects: out.take(), rendered, templateFindings: out.findings.length - before };
  };

  const root = rootRelease(tenants.find(isRoot), d, out);
  out.releases.push(root);
  const known = new Map<string, TenantRelease>([[TENANT_ROOT, root]]);
  // cozystack-basics: tenant-root's Namespace and Secret, and the platform objects tenants depend on.
  yield walked(root, () => {
    out.push(renderTenantRoot(cluster, d.clusterYaml));
    if (!opts.gatewayOnly) out.push(renderPlatformObjects(cluster, d.behaviour));
  });

  for (const t of tenants) {
    if (isRoot(t)) continue;
    const P = t.metadata.namespace ?? '';
    const T = tenantNamespace(t.metadata.name, P);
    const parent = known.get(P);
    if (!parent) {
      if (!failed.has(P)) out.findings.push(unknownParent(t, P));
      failed.add(T);
      continue;
    }
    const r = childRelease(t, parent, d, out);
    if (!r) {
      failed.add(T);
      continue;
    }
    known.set(T, r);
    out.releases.push(r);
    yield walked(r, () => undefined);
  }
}

/**
 * The inputs: each Tenant once, checked (unless the caller did), in walk order; and the tenant
 * namespaces of the Tenants that failed their check, whose subtrees are skipped.
 */
function treeInputs(
  objects: KObject[],
  opts: TreeOptions,
  out: TreeOutput,
): { tenants: KObject[]; failed: Set<string> } {
  let invalid = opts.invalidTenants;
  if (!invalid) {
    const checked = tenantsInputCheck(objects.filter(isTenant), opts.behaviour);
    pushAll(out.findings, checked.findings);
    invalid = checked.invalid;
  }
  const tenants: KObject[] = [];
  const seen = new Set<string>();
  const failed = new Set<string>();
  const given = objects.filter(isTenant);
  pushAll(out.findings, duplicateFindings(given));
  for (const t of given.sort(walkOrder)) {
    const key = `${t.metadata.namespace ?? ''}/${t.metadata.name}`;
    if (seen.has(key)) continue; // a copy: duplicateFindings located each
    seen.add(key);
    if (invalid.has(t)) {
      if (typeof t.metadata?.name === 'string' && typeof t.metadata?.namespace === 'string')
        failed.add(tenantNamespace(t.metadata.name, t.metadata.namespace));
      continue;
    }
    tenants.push(t);
  }
  return { tenants, failed };
}

/** A Tenant whose parent namespace is neither tenant-root nor any Tenant's namespace. */
function unknownParent(t: KObject, P: string): Finding {
  return error(
    `parent namespace "${P}" is neither tenant-root nor the namespace of any Tenant in the inputs, so the tenant's values cannot be derived`,
    {
      ...where(t, 'metadata.namespace'),
      rule: 'tenant.parent',
      hint: `add the parent Tenant, or set metadata.namespace to ${TENANT_ROOT}`,
    },
  );
}
