/**
 * `render`, the pure core: the platform → apps/tenant → extra/gateway chart chain and
 * cozystack-basics (docs/commands/render.md), as one function from input objects and
 * platform values to output objects and findings. The CLI, the KRM function and the Helm
 * post-renderer all call `render`.
 *
 * Steps: check every input at once (schemas/, the Tenants' values schema and names, the
 * TenantGateway CRD); merge the platform values and derive `_cluster` (platformValues.ts) with the
 * layer-6 guard (policies.ts); render tenant-root, every Tenant and cozystack-basics
 * (tenantChart.ts: every template of apps/tenant, docs/tenant.md); render a TenantGateway for
 * every tenant that owns a Gateway (gatewayChart.ts), each checked against the CRD; append the
 * admission policies. Every failure is collected; when any is an error, no object is returned.
 * Invalid platform values stop before the charts run, since their verdicts on ill-typed values
 * would only repeat it; an invalid Tenant is skipped with its subtree while the others render, so
 * that every failure comes out in one run.
 *
 * Not emitted: the tenant chart's `gateway` HelmRelease (docs/tenant.md §1.2 item 3): its
 * TenantGateway is materialised, and emitting both would have Helm and the rendered tree own one
 * object; cozystack-basics' `tenant-root` HelmRelease (docs/decisions.md §Q6); the Helm hook objects unless asked
 * for (docs/decisions.md §Q5: a note names them); the platform's `cozy-system/cozystack-values` Secret (the values
 * channel is the values given to each command, docs/decisions.md §7), so applying the output never
 * overwrites the keys cozy-gw does not reproduce (kube-root-ca, scheduling, branding).
 *
 * Output order (stable, documented in ARCHITECTURE.md "Rules of the house"; docs/decisions.md §Q16): Namespaces by name; then namespaced
 * objects by namespace, then apiVersion, kind and name (compareObjects); then the other
 * cluster-scoped objects (ClusterRoles, CiliumClusterwideNetworkPolicies) by compareObjects; then
 * the admission policies in the order the platform applies them (each VAP followed by its
 * binding). Namespaces come first so that `kubectl apply -f` of the stream creates them before
 * what lives in them.
 */
import { FindingsError, hasErrors, warning, type Finding } from '../k8s/diagnostics';
import { renderGateway } from '../charts/gatewayChart';
import { unsetByTypoFindings, validatePlatformValues } from '../validation/inputValidation';
import { placeValueFinding, valueSources, whereSet, type ValuesWhere } from '../validation/valueSources';
import { isNamespace, compareObjects, keyOf, refOf, type KObject } from '../k8s/model';
import { clusterValues, resolvePlatformValues } from '../charts/platformValues';
import { attachedNamespacesGuard, DEFAULT_GATEWAY_API_VERSION, renderPolicies } from '../charts/policies';
import { TreeOutput, tenantsInputCheck, walkTenantTree, type TreeOptions } from '../charts/tenantChart';
import { capabilitiesOf } from '../charts/capabilities';
import { platformDigest, releaseDigest, uidsGiven } from './treeInputs';
import { wildcardChannel } from './platformChannel';
import type { TenantRelease } from '../charts/tenantRelease';
import { rootHostFindings } from '../charts/cozystackBasics';
import { gatewayCleanupHook, omittedHooksNote } from '../charts/hooks';
import { findPlatformPackage, isTenant, isTenantGateway } from '../platform/kinds';
import { COZYSTACK_API_VERSION } from '../charts/capabilities';
import { publishingNamespace, TENANT_ROOT, type ClusterMap } from '../platform/tenancy';
import { validateTenantGateway } from '../validation/tenantGatewayCrd';
import { pushAll } from '../k8s/arrays';
import { isRedacted, redactionNotice } from '../k8s/secretRedaction';
import { MAIN_VERSION, type Behaviour, type CozystackVersion } from '../platform/cozystackVersions';

export interface RenderInput {
  objects: KObject[];
  valuesFiles: { file: string; values: Record<string, unknown> }[];
}

export interface RenderOptions {
  /**
   * The Cozystack version whose charts, policies and Tenants API render (docs/versions.md); absent:
   * `main`, the specification pack docs/behaviour.md and docs/tenant.md describe. The commands
   * always pass the version the user chose (default the newest release).
   */
  cozystack?: CozystackVersion;
  /** The Gateway API CRD bundle version the route policy covers (default: the bundle the platform ships). */
  gatewayApiVersion?: string;
  /**
   * `--gateway-only`: only the gateway slice (the Namespaces, `cozystack-values` Secrets,
   * TenantGateways and admission policies), for a platform whose tenant HelmReleases still render
   * the rest.
   */
  gatewayOnly?: boolean;
  /** `--include-hooks` (docs/decisions.md §Q5): the Helm hook objects too, for Argo CD. */
  includeHooks?: boolean;
  /** `--api-versions GROUP/VERSION`: the API versions the cluster serves (docs/decisions.md §Q2, Q3). */
  apiVersions?: readonly string[];
  /**
   * The note naming the hook objects left out (docs/decisions.md §Q5), an info finding: asked for
   * by the commands that write manifests to be applied (render, fn); off by default.
   */
  noteOmittedHooks?: boolean;
  /**
   * The objects in the order the charts made them, for a caller that orders what it outputs itself
   * (renderThenReconcile: a controller pass's store holds them): the stable order costs a sort of
   * every object, a quarter of a second at 20,000 tenants.
   */
  unordered?: boolean;
  /**
   * Told how many tenants are rendered so far, after each one (the CLI's progress line on a
   * terminal, src/cli/progress.ts): an event sink from the edge; render itself prints nothing.
   */
  progress?: (tenantsRendered: number) => void;
  /**
   * The digests a tree's record keeps (treeInputs.ts, docs/performance.md "Changed-only"): each
   * release's group gets the digest of its inputs, made with the build of cozy-gw named here.
   */
  digests?: { build: string };
  /** Render the templates of these releases only (src/charts/tenantChart.ts TreeOptions.only). */
  only?: TreeOptions['only'];
  /** Each Tenant's own checks, made once by the caller (src/charts/tenantChart.ts tenantChecks). */
  tenantChecks?: ReadonlyMap<KObject, Finding[]>;
}

export interface RenderResult {
  /** The rendered objects; empty when any finding is an error. */
  objects: KObject[];
  findings: Finding[];
  /** With RenderOptions.digests: what a tree's record keeps of the render. */
  tree?: RenderedTree;
}

/** What a tree's record keeps of each release (docs/performance.md "Changed-only"). */
export interface ReleaseFacts {
  namespace: string;
  /** The digest of its inputs (treeInputs.ts). */
  inputs: string;
  /** Whether its templates or its gateway chart gave findings (a run that does not render it would not give them). */
  findings: boolean;
  /** The tenant namespace whose Gateway it publishes through ('' for none). */
  gateway: string;
  /** Whether it owns a Gateway. */
  owns: boolean;
}

/** The render a tree's record is made of: the platform digest, every release in walk order, and which release made each object. */
export interface RenderedTree {
  platform: string;
  /** A Namespace among the inputs carried a uid (treeInputs.ts uidsGiven). */
  uids: boolean;
  releases: ReleaseFacts[];
  /** The release namespace of each object the charts rendered, by its key (keyOf); the admission policies have none. */
  releaseOf: Map<string, string>;
}

/** The platform value each gateway-chart guard reads (docs/behaviour.md §3). */
const GUARD_VALUES: Record<string, (f: Finding) => string> = {
  'gateway.unsupported-solver': () => 'publishing.certificates.solver',
  'gateway.unsupported-provider': () => 'publishing.certificates.dns01.provider',
  'gateway.unsupported-issuer': () => 'publishing.certificates.issuerName',
  'gateway.dns01-missing-field': (f) =>
    f.message.includes('route53') ? 'publishing.certificates.dns01.route53' : 'publishing.certificates.dns01.rfc2136',
};

/**
 * A guard that fails on a platform value says where that value was set (the hint ends with it): the
 * gateway chart's guards by their rule, the tenant chart's by the value they name (valueAt.value).
 */
function pointAtValue(f: Finding, sources: ValuesWhere[]): Finding {
  const value = f.valueAt?.value ?? (f.rule ? GUARD_VALUES[f.rule]?.(f) : undefined);
  if (!value) return f;
  const at = whereSet(sources, value);
  if (!at.file && !at.object) return f;
  return { ...f, valueAt: { value, file: at.file, object: at.object, field: at.field } };
}

/** Findings about an input object name it. */
function aboutObject(f: Finding, o: KObject): Finding {
  return { ...f, object: f.object ?? refOf(o) };
}

/**
 * The input objects render reads: the Tenants, the Namespaces (their uids), the TenantGateways
 * (checked against the CRD) and the objects of cozystack.io/v1alpha1 (the platform Package, the
 * served APIs). A caller holding a whole cluster state (diff) passes only these: the rest of it,
 * routes and Secrets by the ten thousand, render never looks at.
 */
export function readByRender(o: KObject): boolean {
  return isTenant(o) || isNamespace(o) || isTenantGateway(o) || o.apiVersion === COZYSTACK_API_VERSION;
}

/** What step 1 found: every finding, the Tenants that failed, and whether the platform values did. */
export interface InputCheck {
  findings: Finding[];
  /** Tenants with an error (schema or names): the tree skips them and their subtrees. */
  invalidTenants: Set<KObject>;
  /** A platform-values source failed its schema: the charts cannot run on those values. */
  valuesInvalid: boolean;
}

/**
 * Step 1: every input checked, all at once: each platform-values source against its schema,
 * every Tenant (the values schema and its names, tenantInputFindings), every TenantGateway
 * against the CRD.
 */
export function validateInputs(
  input: RenderInput,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
  checks?: ReadonlyMap<KObject, Finding[]>,
): InputCheck {
  const findings: Finding[] = [];
  for (const f of input.valuesFiles) pushAll(findings, validatePlatformValues(f, behaviour));
  const pkg = findPlatformPackage(input.objects);
  if (pkg) pushAll(findings, validatePlatformValues({ pkg }, behaviour));
  pushAll(findings, unsetByTypoFindings(pkg ? [...input.valuesFiles, { pkg }] : input.valuesFiles, behaviour));
  const valuesInvalid = hasErrors(findings);
  // The version's tenant schema and Tenants API (docs/versions.md §T6, §X1, §A1).
  const tenants = tenantsInputCheck(input.objects.filter(isTenant), behaviour, checks);
  pushAll(findings, tenants.findings);
  const invalidTenants = tenants.invalid;
  for (const o of input.objects) {
    if (isTenantGateway(o))
      pushAll(
        findings,
        validateTenantGateway(o, behaviour).map((f) => aboutObject(f, o)),
      );
  }
  return { findings, invalidTenants, valuesInvalid };
}

/** Step 2: the merged platform values and `_cluster`, with the platform chart's, tenant-root's host label and layer 6's failures. */
export function resolveCluster(
  input: RenderInput,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): { cluster: ClusterMap; findings: Finding[] } {
  const resolved = resolvePlatformValues({ files: input.valuesFiles, objects: input.objects }, behaviour);
  const sources = valueSources(input.valuesFiles, resolved.pkg);
  const { cluster, findings } = clusterValues(resolved.values, resolved.pkg, behaviour);
  const all = [...findings, ...rootHostFindings(cluster), ...attachedNamespacesGuard(cluster, behaviour)].map((f) =>
    placeValueFinding(f, sources),
  );
  return { cluster, findings: all };
}

const isAdmissionPolicy = (o: KObject) => o.apiVersion.startsWith('admissionregistration.k8s.io/');

/** The stable output order (see the module comment). */
export function orderOutput(objs: KObject[]): KObject[] {
  const namespaces = objs.filter((o) => isNamespace(o)).sort(compareObjects);
  const namespaced = objs
    .filter((o) => o.metadata.namespace)
    .sort((a, b) => {
      const an = a.metadata.namespace ?? '',
        bn = b.metadata.namespace ?? '';
      return an < bn ? -1 : an > bn ? 1 : compareObjects(a, b);
    });
  const rest = objs.filter((o) => !o.metadata.namespace && !isNamespace(o));
  const clusterScoped = rest.filter((o) => !isAdmissionPolicy(o)).sort(compareObjects);
  const policies = rest.filter(isAdmissionPolicy);
  return [...namespaces, ...namespaced, ...clusterScoped, ...policies];
}

/** What the gateway chart collects over the releases: its findings and the hooks it left out. */
interface GatewayOutput {
  findings: Finding[];
  hooksOmitted: number;
}

/**
 * The TenantGateway of a release that owns a Gateway, checked against the CRD first (a
 * TenantGateway the API server would refuse is a finding, not an object), with the gateway chart's
 * post-delete hook when hooks are asked for; else the count of the hooks left out.
 */
function renderGatewayOf(
  r: TenantRelease,
  sources: ValuesWhere[],
  includeHooks: boolean,
  out: GatewayOutput,
  behaviour: Behaviour,
): KObject[] {
  if (!r.ownsGateway) return [];
  const g = renderGateway(r, behaviour);
  pushAll(
    out.findings,
    g.findings.map((f) => pointAtValue(f, sources)),
  );
  if (!g.object) return [];
  // Self-check: the TenantGateway must pass the CRD schema and CEL rules the apiserver applies (the
  // version's CRD, docs/versions.md §9).
  const check = validateTenantGateway(g.object, behaviour);
  for (const f of check) {
    out.findings.push({
      ...f,
      message: `the rendered TenantGateway ${r.namespace}/cozystack would be refused by the API server: ${f.field ? `${f.field}: ` : ''}${f.message}`,
      object: r.tenant ? refOf(r.tenant) : f.object,
      field: undefined,
    });
  }
  if (check.length) return [];
  // The gateway chart's post-delete hook (docs/tenant.md §2.8, docs/decisions.md §Q5): part of the
  // gateway chart, so of the gateway slice too.
  // docs/versions.md §G1: a chart without the hook (v1.5) has nothing to include or leave out.
  if (!behaviour.gatewayCleanupHook) return [g.object];
  if (includeHooks) return [g.object, ...gatewayCleanupHook(r.namespace)];
  out.hooksOmitted++;
  return [g.object];
}

/**
 * docs/decisions.md §1: gateway.enabled with no Gateway on the publishing tenant renders, with a
 * warning. (Not for a publishing namespace the values already failed on.)
 */
function publishingGatewayWarning(
  cluster: ClusterMap,
  valueFindings: Finding[],
  releases: TenantRelease[],
): Finding | undefined {
  const publishing = publishingNamespace(cluster);
  if (
    cluster['gateway-enabled'] !== 'true' ||
    valueFindings.some((f) => f.rule === 'platform.ingress-name') ||
    releases.some((r) => r.namespace === publishing && r.ownsGateway)
  )
    return undefined;
  return warning(
    `gateway.enabled is true but the publishing tenant (${publishing}) owns no Gateway: nothing publishes the tenants' routes`,
    {
      rule: 'render.no-publishing-gateway',
      hint:
        publishing === TENANT_ROOT
          ? 'add a Tenant named root in namespace tenant-root with spec.gateway: true'
          : `set spec.gateway: true on the Tenant whose namespace is ${publishing}`,
    },
  );
}

/** What the charts render, group by group: a release's objects, or (last) the admission policies. */
export interface RenderGroup {
  /** The release whose chart rendered the group (tenant-root's with cozystack-basics'); none for the policies. */
  release?: TenantRelease;
  /** The objects of the tenant chart (or the policies). */
  objects: KObject[];
  /** The release's TenantGateway (and its hook), when it owns a Gateway. */
  gateway: KObject[];
  /** Whether the release was rendered (RenderOptions.only; else every one is). */
  rendered?: boolean;
  /** The digest of the release's inputs (RenderOptions.digests). */
  inputs?: string;
  /** How many findings its templates and its gateway chart gave. */
  findings?: number;
  /** The platform digest (RenderOptions.digests), on the last group (the policies). */
  platform?: string;
}

/**
 * render's steps (see the module comment), the charts' objects handed on group by group as they
 * are made, every finding pushed to `findings` (complete once the groups are done; the tree's
 * and the gateways' findings after the walk, in the order render has always given them). The
 * same inputs give the same groups and findings on every walk: a caller may walk once for the
 * findings alone and again to write the objects out, never holding them all.
 */
export function* renderGroups(input: RenderInput, opts: RenderOptions, findings: Finding[]): Generator<RenderGroup> {
  const behaviour = (opts.cozystack ?? MAIN_VERSION).behaviour;
  const checked = validateInputs(input, behaviour, opts.tenantChecks);
  pushAll(findings, checked.findings);
  // Ill-typed platform values would only make the charts repeat the schema's verdict.
  if (checked.valuesInvalid) return;

  const { cluster, findings: valueFindings } = resolveCluster(input, behaviour);
  pushAll(findings, valueFindings);

  const sources = valueSources(input.valuesFiles, findPlatformPackage(input.objects));
  const tree = new TreeOutput();
  const treeOpts = {
    gatewayOnly: opts.gatewayOnly,
    includeHooks: opts.includeHooks,
    apiVersions: opts.apiVersions,
    invalidTenants: checked.invalidTenants,
    only: opts.only,
    behaviour,
  };
  const digests = opts.digests ? renderDigests(input, opts, cluster) : undefined;
  const gateways: GatewayOutput = { findings: [], hooksOmitted: 0 };
  let rendered = 0;
  for (const g of walkTenantTree(cluster, input.objects, treeOpts, tree)) {
    const before = gateways.findings.length;
    let gateway: KObject[] = [];
    if (g.rendered) gateway = renderGatewayOf(g.release, sources, Boolean(opts.includeHooks), gateways, behaviour);
    else if (g.release.ownsGateway && !opts.includeHooks && behaviour.gatewayCleanupHook) gateways.hooksOmitted++;
    opts.progress?.(++rendered);
    yield {
      release: g.release,
      objects: g.objects,
      gateway,
      rendered: g.rendered,
      inputs: digests?.release(g.release),
      findings: g.templateFindings + gateways.findings.length - before,
    };
  }
  pushAll(
    findings,
    tree.findings.map((f) => pointAtValue(f, sources)),
  );
  pushAll(findings, gateways.findings);
  const noGateway = publishingGatewayWarning(cluster, valueFindings, tree.releases);
  if (noGateway) findings.push(noGateway);

  let policies: KObject[] = [];
  try {
    policies = renderPolicies(cluster, { gatewayApiVersion: opts.gatewayApiVersion, behaviour });
  } catch (e) {
    if (e instanceof FindingsError) pushAll(findings, e.findings);
    else throw e;
  }
  if (!hasErrors(findings) && !opts.includeHooks && opts.noteOmittedHooks) {
    const note = omittedHooksNote(tree.hooksOmitted, gateways.hooksOmitted);
    if (note) findings.push(note);
  }
  yield { objects: policies, gateway: [], platform: digests?.platform };
}

/** The platform digest of a render, and each release's digest with it (treeInputs.ts). */
export function renderDigests(
  input: RenderInput,
  opts: RenderOptions,
  cluster: ClusterMap,
): { platform: string; release: (r: TenantRelease) => string } {
  const platform = platformDigest({
    build: opts.digests?.build ?? '',
    // As the charts read them: unset is the default.
    options: {
      cozystack: (opts.cozystack ?? MAIN_VERSION).name,
      gatewayApiVersion: opts.gatewayApiVersion ?? DEFAULT_GATEWAY_API_VERSION,
      gatewayOnly: Boolean(opts.gatewayOnly),
      includeHooks: Boolean(opts.includeHooks),
      apiVersions: opts.apiVersions?.length ? opts.apiVersions : null,
    },
    cluster,
    capabilities: capabilitiesOf(input.objects, opts.apiVersions),
    channel: wildcardChannel(input.objects, input.valuesFiles).channel,
  });
  const uids = new Map<string, string>();
  for (const o of input.objects) if (isNamespace(o) && o.metadata.uid) uids.set(o.metadata.name, o.metadata.uid);
  return { platform, release: (r) => releaseDigest(platform, r, uids.get(r.parentNamespace)) };
}

export function render(input: RenderInput, opts: RenderOptions = {}): RenderResult {
  const r = renderKept(input, opts, (o) => o);
  return opts.unordered ? r : { ...r, objects: orderOutput(r.objects) };
}

/**
 * render's objects in the order the charts make them (the tenant chart's group by group, then the
 * TenantGateways, then the policies: render's `unordered` order), each handed to `keep` as it is
 * made and what keep returns held in its place; none when a finding is an error. diff lays each
 * rendered object over the live one as it comes and holds the live object where the two are
 * equal, so that a whole second copy of the tree is never held at once.
 */
export function renderKept(input: RenderInput, opts: RenderOptions, keep: (o: KObject) => KObject): RenderResult {
  const findings: Finding[] = [];
  const rendered: KObject[] = [];
  const gateways: KObject[] = [];
  let policies: KObject[] = [];
  const tree: RenderedTree | undefined = opts.digests
    ? { platform: '', releases: [], releaseOf: new Map(), uids: uidsGiven(input.objects) }
    : undefined;
  for (const g of renderGroups(input, opts, findings)) {
    if (!g.release) {
      policies = g.objects;
      if (tree) tree.platform = g.platform ?? '';
      continue;
    }
    if (tree) noteRelease(tree, g);
    for (const o of g.objects) rendered.push(keep(o));
    pushAll(gateways, g.gateway);
  }
  if (hasErrors(findings)) return { objects: [], findings };
  for (const o of gateways) rendered.push(keep(o));
  for (const o of policies) rendered.push(keep(o));
  return { objects: rendered, findings, ...(tree ? { tree } : {}) };
}

/** A release's facts and its objects' release, as a tree's record keeps them. */
function noteRelease(tree: RenderedTree, g: RenderGroup): void {
  const r = g.release!;
  tree.releases.push({
    namespace: r.namespace,
    inputs: g.inputs ?? '',
    findings: (g.findings ?? 0) > 0,
    gateway: r.values._namespace.gateway ?? '',
    owns: g.gateway.some(isTenantGateway),
  });
  for (const o of g.objects) tree.releaseOf.set(keyOf(o), r.namespace);
  for (const o of g.gateway) tree.releaseOf.set(keyOf(o), r.namespace);
}

/**
 * The keys (keyOf) of what render produces, walked group by group without holding the objects
 * (diff's "what render produced for the state's tree": all it asks of that render); none when a
 * finding is an error, as render then produces nothing.
 */
export function renderedKeys(input: RenderInput, opts: RenderOptions = {}): Set<string> {
  const findings: Finding[] = [];
  const keys = new Set<string>();
  for (const g of renderGroups(input, opts, findings)) {
    for (const o of g.objects) keys.add(keyOf(o));
    for (const o of g.gateway) keys.add(keyOf(o));
  }
  return hasErrors(findings) ? new Set() : keys;
}

/**
 * The info findings about what a render's output is (docs/commands/render.md): nothing given at
 * all (no -f, --values, --set or --set-string), so the output is the charts' defaults alone, which
 * is rarely what was meant; and how many Secrets are printed without their data.
 */
export function outputInfoFindings(objects: KObject[], inputsGiven: boolean): Finding[] {
  const out: Finding[] = [];
  if (!inputsGiven)
    out.push({
      severity: 'info',
      message: 'no -f and no --values given: this is what the charts render from their defaults, for tenant-root alone',
    });
  const redacted = objects.filter(isRedacted).length;
  if (redacted) out.push({ severity: 'info', message: redactionNotice(redacted).replace(/^note: /, '') });
  return out;
}

/**
 * What `render --output-dir` says of the tree it wrote (docs/commands/README.md "Values, warnings and trees"): how
 * many files it wrote (added or replaced) and, when some already held the rendered bytes, how
 * many were left unchanged, then the files an earlier run wrote that it removed and the entries
 * it left, each list at most ten names and then how many more. Each line is to be printed escaped
 * (k8s/printable.ts, as the CLI prints every note): a file name cannot forge a line.
 */
export function treeNotes(
  dir: string,
  objects: number,
  format: 'yaml' | 'json',
  w: { written: number; changed: number; removed: string[]; left: string[] },
): string[] {
  const what = `${objects} objects${format === 'json' ? ' as JSON' : ''} and kustomization.yaml`;
  const unchanged = w.written - w.changed;
  const notes = [
    unchanged > 0
      ? `wrote ${w.changed} file${w.changed === 1 ? '' : 's'} to ${dir}, ${unchanged} unchanged (${w.written} in all: ${what})`
      : `wrote ${w.written} files (${what}) to ${dir}`,
  ];
  if (w.removed.length)
    notes.push(
      `note: removed ${w.removed.length} file${w.removed.length === 1 ? '' : 's'} an earlier run wrote: ${listed(w.removed)}`,
    );
  if (w.left.length)
    notes.push(
      `note: left ${w.left.length} entr${w.left.length === 1 ? 'y' : 'ies'} cozy-gw did not write: ${listed(w.left)}`,
    );
  return notes;
}

/** Names from a tree, at most ten, then how many more. */
function listed(xs: string[]): string {
  return xs.length > 10 ? `${xs.slice(0, 10).join(', ')}, ... (${xs.length - 10} more)` : xs.join(', ');
}
