/**
 * `render`, the pure core: the platform → apps/tenant → extra/gateway chart chain and the
 * cozystack-basics admission policies (cli-contract "cozy-gw render"), as one function from
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
 * Not emitted: the tenant chart's `gateway` HelmRelease (reference-facts §2.6). The contract
 * materialises the TenantGateway that release would produce; emitting both would have Helm and
 * the rendered tree own one object. Nor is the platform's `cozy-system/cozystack-values` Secret
 * (the values channel is the values given to each command, decisions.md §7), so applying the
 * output never overwrites the keys cozy-gw does not reproduce (kube-root-ca, scheduling, branding).
 *
 * Output order (stable, documented in the README): Namespaces by name; then namespaced objects
 * by namespace, then apiVersion, kind and name (compareObjects); then the admission policies in
 * the order the platform applies them (each VAP followed by its binding). Namespaces come first
 * so that `kubectl apply -f` of the stream creates them before what lives in them.
 */
import { FindingsError, hasErrors, warning, type Finding } from '../k8s/diagnostics';
import { renderGateway } from '../charts/gatewayChart';
import { locateValue, validatePlatformValues, validateTenant, type ValuesWhere } from '../validation/inputValidation';
import { compareObjects, getPath, isObject, refOf, type KObject } from '../k8s/model';
import { clusterValues, exposeIngress, resolvePlatformValues } from '../charts/platformValues';
import { type ClusterMap } from '../platform/tenancy';
import { findPlatformPackage } from '../platform/kinds';
import { attachedNamespacesGuard, renderPolicies } from '../charts/policies';
import { renderTenantTree, rootHostFindings } from '../charts/tenantChart';
import { isTenant, isTenantGateway } from '../platform/kinds';
import { TENANT_ROOT } from '../platform/tenancy';
import { validateTenantGateway } from '../validation/tenantGatewayCrd';
import { pushAll } from '../k8s/arrays';

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

/** The sources of platform values, highest precedence first (the last --values file wins). */
function valueSources(input: RenderInput, pkg: KObject | undefined): ValuesWhere[] {
  const out: ValuesWhere[] = [...input.valuesFiles].reverse();
  if (pkg) out.push({ pkg });
  return out;
}

/** Where a platform-values field was set: the highest-precedence source that sets it. */
function locate(sources: ValuesWhere[], field: string): Partial<Finding> {
  const top = field.replace(/\[\d+\]$/, '');
  for (const s of sources) {
    const values = 'pkg' in s ? getPath(s.pkg, ['spec', 'components', 'platform', 'values']) : s.values;
    if (isObject(values) && getPath(values, top) !== undefined) return locateValue(s, field);
  }
  return { field };
}

/** Add the file, line and object of a platform-values finding that has only a field. */
function placeValueFinding(f: Finding, sources: ValuesWhere[]): Finding {
  if (!f.field || f.file) return f;
  let field = f.field;
  // The layer-6 guard names the list; point at the offending entry when it can be found.
  const entry = /"(tenant-[^"]*)"/.exec(f.message)?.[1];
  if (entry && field === 'gateway.attachedNamespaces') {
    for (const s of sources) {
      const values = 'pkg' in s ? getPath(s.pkg, ['spec', 'components', 'platform', 'values']) : s.values;
      const list = isObject(values) ? getPath(values, 'gateway.attachedNamespaces') : undefined;
      if (Array.isArray(list)) {
        const i = list.findIndex((x) => typeof x === 'string' && x.trim() === entry);
        if (i >= 0) field = `${field}[${i}]`;
        break;
      }
    }
  }
  return { ...f, ...locate(sources, field) };
}

/** The platform value each gateway-chart guard reads (reference-facts §3). */
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
  const at = locate(sources, value);
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
  for (const f of input.valuesFiles) pushAll(findings, validatePlatformValues(f));
  const pkg = findPlatformPackage(input.objects);
  if (pkg) pushAll(findings, validatePlatformValues({ pkg }));
  for (const o of input.objects) {
    if (isTenant(o)) pushAll(findings, validateTenant(o));
    else if (isTenantGateway(o))
      pushAll(
        findings,
        validateTenantGateway(o).map((f) => aboutObject(f, o)),
      );
  }
  return findings;
}

/** Step 2: the merged platform values and `_cluster`, with the platform chart's, tenant-root's host label and layer 6's failures. */
export function resolveCluster(input: RenderInput): { cluster: ClusterMap; findings: Finding[] } {
  const resolved = resolvePlatformValues({ files: input.valuesFiles, objects: input.objects });
  const sources = valueSources(input, resolved.pkg);
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
  pushAll(findings, valueFindings);

  const sources = valueSources(input, findPlatformPackage(input.objects));
  const tree = renderTenantTree(cluster, input.objects);
  pushAll(findings, tree.findings);
  const rendered: KObject[] = [...tree.objects];

  for (const r of tree.releases) {
    if (!r.ownsGateway) continue;
    const g = renderGateway(r);
    pushAll(
      findings,
      g.findings.map((f) => pointAtValue(f, sources)),
    );
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

  // decisions.md §1: gateway.enabled with no Gateway on the publishing tenant renders, with a warning.
  const publishing = exposeIngress(cluster);
  if (
    cluster['gateway-enabled'] === 'true' &&
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
    pushAll(rendered, renderPolicies(cluster, { gatewayApiVersion: opts.gatewayApiVersion }));
  } catch (e) {
    if (e instanceof FindingsError) pushAll(findings, e.findings);
    else throw e;
  }

  if (hasErrors(findings)) return { objects: [], findings };
  return { objects: orderOutput(rendered), findings };
}
