/**
 * `render`, the pure core: the platform → apps/tenant → extra/gateway chart chain and the
 * cozystack-basics admission policies (README "cozy-gw render"), as one function from
 * input objects and platform values to output objects and findings. The CLI, the KRM function
 * and the Helm post-renderer all call `render`.
 *
 * Steps: validate every input (schemas/, the TenantGateway CRD); merge the platform values and
 * derive `_cluster` (platformValues.ts) with the layer-6 guard (policies.ts); render tenant-root
 * and the Tenant tree (tenantChart.ts); render a TenantGateway for every tenant that owns a
 * Gateway (gatewayChart.ts), each checked against the CRD; append the admission policies.
 * Every failure is collected; when any is an error, no object is returned. Invalid input (a
 * schema violation) stops before the charts run, since their verdicts on ill-typed values would
 * only repeat it; every invalid input is still reported.
 *
 * Not emitted: the tenant chart's `gateway` HelmRelease (docs/behaviour.md §2.6). The contract
 * materialises the TenantGateway that release would produce; emitting both would have Helm and
 * the rendered tree own one object. Nor is the platform's `cozy-system/cozystack-values` Secret
 * (the values channel is the values given to each command, docs/decisions.md §7), so applying the
 * output never overwrites the keys cozy-gw does not reproduce (kube-root-ca, scheduling, branding).
 *
 * Output order (stable, documented in the README): Namespaces by name; then namespaced objects
 * by namespace, then apiVersion, kind and name (compareObjects); then the admission policies in
 * the order the platform applies them (each VAP followed by its binding). Namespaces come first
 * so that `kubectl apply -f` of the stream creates them before what lives in them.
 */
import { FindingsError, hasErrors, warning, type Finding } from '../k8s/diagnostics';
import { renderGateway } from '../charts/gatewayChart';
import { validatePlatformValues, validateTenant } from '../validation/inputValidation';
import { placeValueFinding, valueSources, whereSet, type ValuesWhere } from '../validation/valueSources';
import { compareObjects, refOf, type KObject } from '../k8s/model';
import { clusterValues, resolvePlatformValues } from '../charts/platformValues';
import { attachedNamespacesGuard, renderPolicies } from '../charts/policies';
import { renderTenantTree, rootHostFindings } from '../charts/tenantChart';
import { findPlatformPackage, isTenant, isTenantGateway } from '../platform/kinds';
import { publishingNamespace, TENANT_ROOT, type ClusterMap } from '../platform/tenancy';
import { validateTenantGateway } from '../validation/tenantGatewayCrd';

export interface RenderInput {
  objects: KObject[];
  valuesFiles: { file: string; values: Record<string, unknown> }[];
}

export interface RenderOptions {
  /** The Gateway API CRD bundle version the route policy covers (default: the bundle the platform ships). */
  gatewayApiVersion?: string;
}

export interface RenderResult {
  /** The rendered objects; empty when any finding is an error. */
  objects: KObject[];
  findings: Finding[];
}

/** The platform value each gateway-chart guard reads (docs/behaviour.md §3). */
const GUARD_VALUES: Record<string, (f: Finding) => string> = {
  'gateway.unsupported-solver': () => 'publishing.certificates.solver',
  'gateway.unsupported-provider': () => 'publishing.certificates.dns01.provider',
  'gateway.unsupported-issuer': () => 'publishing.certificates.issuerName',
  'gateway.dns01-missing-field': (f) =>
    f.message.includes('route53') ? 'publishing.certificates.dns01.route53' : 'publishing.certificates.dns01.rfc2136',
};

/** A guard that fails on a platform value says where that value was set (the hint ends with it). */
function pointAtValue(f: Finding, sources: ValuesWhere[]): Finding {
  const value = f.rule ? GUARD_VALUES[f.rule]?.(f) : undefined;
  if (!value) return f;
  const at = whereSet(sources, value);
  if (!at.file && !at.object) return f;
  return { ...f, valueAt: { value, file: at.file, object: at.object, field: at.field } };
}

/** Findings about an input object name it. */
function aboutObject(f: Finding, o: KObject): Finding {
  return { ...f, object: f.object ?? refOf(o) };
}

/** Step 1: every input checked against its schema. */
export function validateInputs(input: RenderInput): Finding[] {
  const findings: Finding[] = [];
  for (const f of input.valuesFiles) findings.push(...validatePlatformValues(f));
  const pkg = findPlatformPackage(input.objects);
  if (pkg) findings.push(...validatePlatformValues({ pkg }));
  for (const o of input.objects) {
    if (isTenant(o)) findings.push(...validateTenant(o));
    else if (isTenantGateway(o)) findings.push(...validateTenantGateway(o).map((f) => aboutObject(f, o)));
  }
  return findings;
}

/** Step 2: the merged platform values and `_cluster`, with the platform chart's, tenant-root's host label and layer 6's failures. */
export function resolveCluster(input: RenderInput): { cluster: ClusterMap; findings: Finding[] } {
  const resolved = resolvePlatformValues({ files: input.valuesFiles, objects: input.objects });
  const sources = valueSources(input.valuesFiles, resolved.pkg);
  const { cluster, findings } = clusterValues(resolved.values, resolved.pkg);
  const all = [...findings, ...rootHostFindings(cluster), ...attachedNamespacesGuard(cluster)].map((f) =>
    placeValueFinding(f, sources),
  );
  return { cluster, findings: all };
}

/** The stable output order (see the module comment). */
export function orderOutput(objs: KObject[]): KObject[] {
  const namespaces = objs.filter((o) => o.kind === 'Namespace' && o.apiVersion === 'v1').sort(compareObjects);
  const namespaced = objs
    .filter((o) => o.metadata.namespace)
    .sort((a, b) => {
      const an = a.metadata.namespace ?? '',
        bn = b.metadata.namespace ?? '';
      return an < bn ? -1 : an > bn ? 1 : compareObjects(a, b);
    });
  const rest = objs.filter((o) => !o.metadata.namespace && !(o.kind === 'Namespace' && o.apiVersion === 'v1'));
  return [...namespaces, ...namespaced, ...rest];
}

export function render(input: RenderInput, opts: RenderOptions = {}): RenderResult {
  const findings = validateInputs(input);
  if (hasErrors(findings)) return { objects: [], findings };

  const { cluster, findings: valueFindings } = resolveCluster(input);
  findings.push(...valueFindings);

  const sources = valueSources(input.valuesFiles, findPlatformPackage(input.objects));
  const tree = renderTenantTree(cluster, input.objects);
  findings.push(...tree.findings);
  const rendered: KObject[] = [...tree.objects];

  for (const r of tree.releases) {
    if (!r.ownsGateway) continue;
    const g = renderGateway(r);
    findings.push(...g.findings.map((f) => pointAtValue(f, sources)));
    if (!g.object) continue;
    // Self-check: the TenantGateway must pass the CRD schema and CEL rules the apiserver applies.
    const check = validateTenantGateway(g.object);
    for (const f of check) {
      findings.push({
        ...f,
        message: `the rendered TenantGateway ${r.namespace}/cozystack would be refused by the API server: ${f.field ? `${f.field}: ` : ''}${f.message}`,
        object: r.tenant ? refOf(r.tenant) : f.object,
        field: undefined,
      });
    }
    if (!check.length) rendered.push(g.object);
  }

  // docs/decisions.md §1: gateway.enabled with no Gateway on the publishing tenant renders, with a warning.
  // (Not for a publishing namespace the values already failed on.)
  const publishing = publishingNamespace(cluster);
  if (
    cluster['gateway-enabled'] === 'true' &&
    !valueFindings.some((f) => f.rule === 'platform.ingress-name') &&
    !tree.releases.some((r) => r.namespace === publishing && r.ownsGateway)
  ) {
    findings.push(
      warning(
        `gateway.enabled is true but the publishing tenant (${publishing}) owns no Gateway: nothing publishes the tenants' routes`,
        {
          rule: 'render.no-publishing-gateway',
          hint:
            publishing === TENANT_ROOT
              ? 'add a Tenant named root in namespace tenant-root with spec.gateway: true'
              : `set spec.gateway: true on the Tenant whose namespace is ${publishing}`,
        },
      ),
    );
  }

  try {
    rendered.push(...renderPolicies(cluster, { gatewayApiVersion: opts.gatewayApiVersion }));
  } catch (e) {
    if (e instanceof FindingsError) findings.push(...e.findings);
    else throw e;
  }

  if (hasErrors(findings)) return { objects: [], findings };
  return { objects: orderOutput(rendered), findings };
}
