/**
 * The tenant's module HelmReleases (docs/tenant.md §1.3, §2.5): `etcd.yaml`, `ingress.yaml`,
 * `monitoring.yaml`, `seaweedfs.yaml`, `computeplane.yaml`, `gateway.yaml` and `info.yaml` of the
 * apps/tenant chart, one Flux `helm.toolkit.fluxcd.io/v2` HelmRelease each, named after the module,
 * in T. They are emitted as objects, not materialised (§1.2 item 2): `info` always, the others
 * when the tenant's own flag is truthy. The `gateway` release is modelled (gatewayRelease) but not
 * emitted: its TenantGateway is materialised instead (§1.2 item 3). The table is data
 * (templates/tenant/modules.yaml), cut to what the Cozystack version's chart has (moduleTable:
 * docs/versions.md §T1, §T6, §T7). Pure.
 */
import { asset } from '../assets';
import type { KObject } from '../k8s/model';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { COMPUTEPLANE_PACKAGE, cozystackServed, type Capabilities } from './capabilities';
import { truthy, type TenantRelease } from './tenantRelease';

/** One row of templates/tenant/modules.yaml. */
export interface ModuleDef {
  name: string;
  kind: string;
  /** The tenant value that renders it; none: always (info). */
  flag?: string;
  chart: string;
  vmo: boolean;
  timeout: string;
  retryOnFailure: boolean;
  /** The property of the version the module's template needs (computeplane: docs/versions.md §T6); none: every version has it. */
  requires?: 'computeplaneModule';
}

/**
 * The module templates of the version's chart (templates/tenant/modules.yaml): a row whose
 * `requires` the version lacks is left out (docs/versions.md §T6); the VictoriaMetrics operator
 * gate (§T1) and RetryOnFailure (§T7) only where the version has them.
 */
export function moduleTable(behaviour: Behaviour = MAIN_VERSION.behaviour): ModuleDef[] {
  return asset<ModuleDef[]>('templates/tenant/modules.yaml')
    .filter((m) => m.requires === undefined || behaviour[m.requires])
    .map((m) => ({
      ...m,
      vmo: m.vmo && behaviour.moduleReleasesWaitForVmo,
      retryOnFailure: m.retryOnFailure && behaviour.dataModulesRetryOnFailure,
    }));
}

/** dependsOn (VMO): the VictoriaMetrics operator, whose webhook (failurePolicy Fail) guards what these releases create. */
const VMO = { name: 'victoria-metrics-operator', namespace: 'cozy-victoria-metrics-operator' };

function action(retryOnFailure: boolean): Record<string, unknown> {
  return retryOnFailure
    ? { strategy: { name: 'RetryOnFailure', retryInterval: '30s' }, remediation: { retries: -1 } }
    : { remediation: { retries: -1 } };
}

/** docs/tenant.md §1.3: one module's HelmRelease for release `r`, labels and spec fields in the template's order. */
export function moduleRelease(
  m: ModuleDef,
  r: Pick<TenantRelease, 'namespace' | 'releaseName' | 'spec' | 'gatewayClassName'>,
): KObject {
  const spec: Record<string, unknown> = {};
  if (m.vmo) spec.dependsOn = [{ ...VMO }];
  spec.chartRef = { kind: 'ExternalArtifact', name: m.chart, namespace: 'cozy-system' };
  spec.interval = '5m';
  spec.timeout = m.timeout;
  spec.install = action(m.retryOnFailure);
  spec.upgrade = action(m.retryOnFailure);
  // [E] the gateway release alone gets inline values: the tenant's non-empty gatewayClass (docs/behaviour.md §2.6),
  // which the release carries only in a version with gateway classes (docs/versions.md §X1).
  if (m.name === 'gateway' && r.gatewayClassName !== undefined) spec.values = { gatewayClassName: r.gatewayClassName };
  spec.valuesFrom = [{ kind: 'Secret', name: 'cozystack-values' }];
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: {
      name: m.name,
      namespace: r.namespace,
      labels: {
        'sharding.fluxcd.io/key': 'tenants',
        'internal.cozystack.io/tenantmodule': 'true',
        'app.kubernetes.io/instance': r.releaseName,
        // docs/decisions.md §Q8: kept verbatim although no Helm release owns the object in the tree.
        'app.kubernetes.io/managed-by': 'Helm',
        'apps.cozystack.io/application.kind': m.kind,
        'apps.cozystack.io/application.group': 'apps.cozystack.io',
        'apps.cozystack.io/application.name': m.name,
      },
    },
    spec,
  };
}

/** docs/tenant.md §2.0.3 `tenant.gatewayEffective`: the key `gateway` is present with a non-nil, truthy value. */
export function gatewayEffective(spec: TenantRelease['spec']): boolean {
  return truthy(spec.gateway);
}

/** Whether module `m` renders for these values (docs/tenant.md §1.3 "Rendered when"): info always, the others on their own flag. */
export function moduleRenders(m: ModuleDef, spec: TenantRelease['spec']): boolean {
  if (m.flag === undefined) return true;
  if (m.flag === 'gateway') return gatewayEffective(spec);
  return truthy(spec[m.flag]);
}

/** The module HelmReleases the tree emits, in template order: every rendered module but `gateway`. */
export function renderModuleReleases(
  r: Pick<TenantRelease, 'namespace' | 'releaseName' | 'spec' | 'gatewayClassName'>,
  modules: readonly ModuleDef[],
): KObject[] {
  const out: KObject[] = [];
  for (const m of modules) if (m.name !== 'gateway' && moduleRenders(m, r.spec)) out.push(moduleRelease(m, r));
  return out;
}

/** The `gateway` HelmRelease `gateway.yaml` renders (never emitted: docs/tenant.md §1.2 item 3), or undefined. */
export function gatewayRelease(
  r: Pick<TenantRelease, 'namespace' | 'releaseName' | 'spec' | 'gatewayClassName'>,
  modules: readonly ModuleDef[] = moduleTable(),
): KObject | undefined {
  const m = modules.find((x) => x.name === 'gateway');
  return m && moduleRenders(m, r.spec) ? moduleRelease(m, r) : undefined;
}

/** The computeplane guard's verdict (docs/tenant.md §2.5.3, docs/decisions.md §Q2). */
export type ComputeplaneGuard = { ok: true } | { ok: false; error: string } | { ok: true; unchecked: string };

/**
 * docs/tenant.md §2.5.3 / Q2: with `computeplane` on and `cozystack.io/v1alpha1` served (an input object of that
 * API, or `--api-versions` naming it), the Package `cozystack.computeplane-application` must be
 * among the inputs; without that API the guard is inactive and the presence is not checked.
 */
export function computeplaneGuard(spec: TenantRelease['spec'], caps: Capabilities): ComputeplaneGuard {
  if (!truthy(spec.computeplane)) return { ok: true };
  if (!cozystackServed(caps))
    return {
      ok: true,
      unchecked: `computeplane is enabled, but whether the Package ${COMPUTEPLANE_PACKAGE} is installed was not checked: no cozystack.io/v1alpha1 object is among the inputs`,
    };
  if (caps.packages.has(COMPUTEPLANE_PACKAGE)) return { ok: true };
  return {
    ok: false,
    error: `the computeplane module is enabled but the Package ${COMPUTEPLANE_PACKAGE} is not installed: it ships in the iaas bundle; set bundles.iaas.enabled: true in the platform values`,
  };
}
