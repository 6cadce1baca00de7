/**
 * The extra/gateway chart: the render-time guards, in the chart's order, and the one
 * `gateway.cozystack.io/v1alpha1` TenantGateway it renders for a tenant that owns a Gateway. Pure: a
 * tenant release in, a TenantGateway or findings out. A release's chart (docs/versions.md §X1–§X3)
 * has no class guards and no edge, and writes the platform's attached namespaces and the chart's
 * passthrough services on every TenantGateway; main's is docs/behaviour.md §3 (the certificate
 * modes of §5.12).
 */
import { asset } from '../assets';
import { DEFAULT_CLASS, TGW_API_VERSION, TGW_KIND, TGW_NAME } from '../platform/names';
import { error, hasErrors, warning, type Finding } from '../k8s/diagnostics';
import { refOf, type KObject } from '../k8s/model';
import { splitList } from './platformValues';
import { clusterString, publishingNamespace, TENANT_ROOT, type ClusterMap } from '../platform/tenancy';
import {
  DEFAULT_DNS01_PROVIDER,
  DEFAULT_ISSUER,
  DEFAULT_SOLVER,
  DEFAULT_TSIG_ALGORITHM,
  DNS01_PROVIDERS,
  ISSUERS,
  SOLVERS,
  type CertMode,
} from '../platform/certificates';
import type { TenantRelease } from './tenantRelease';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

interface GatewayChartValues {
  gatewayClassName: string;
  tlsPassthroughServices: string[];
}

/** The chart's own defaults (charts/gateway/values.yaml). */
export function gatewayChartDefaults(): GatewayChartValues {
  return asset<GatewayChartValues>('charts/gateway/values.yaml');
}

/** §3.2 Resolution, the platform default: trimmed `gateway-class-name`, else cilium. */
export function defaultClass(cluster: ClusterMap): string {
  return clusterString(cluster, 'gateway-class-name').trim() || DEFAULT_CLASS;
}

/** The classes listed in gateway.edgeTerminatedClasses (trimmed). */
export function isEdgeClass(cluster: ClusterMap, cls: string): boolean {
  return splitList(cluster['gateway-edge-classes']).includes(cls);
}

/** §3.1 guard 4: the platform default plus the trimmed gateway.tenantSelectableClasses entries. */
export function selectableClasses(cluster: ClusterMap): string[] {
  // A Set, not Array.includes: tens of thousands of classes stay linear.
  return [...new Set([defaultClass(cluster), ...splitList(cluster['gateway-tenant-classes'])])];
}

/** §3.2 Resolution, the class: trimmed gatewayClassName, else trimmed gateway-class-name, else cilium. */
export function resolveClass(cluster: ClusterMap, gatewayClassName: string | undefined): string {
  return (gatewayClassName ?? '').trim() || defaultClass(cluster);
}

/**
 * §3.2 Resolution, certMode: edge, else existingSecret, else the solver (missing means http01). An
 * unsupported solver comes back as it is, for guard 6 to refuse. A release knows no edge
 * (docs/versions.md §X1).
 */
export function resolveCertMode(
  cluster: ClusterMap,
  cls: string,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): CertMode | string {
  if (behaviour.gatewayClasses && isEdgeClass(cluster, cls)) return 'edge';
  if ((cluster['wildcard-secret-name'] ?? '') !== '') return 'existingSecret';
  return solverOf(cluster);
}

/** publishing.certificates.solver, http01 when unset. */
function solverOf(cluster: ClusterMap): string {
  return clusterString(cluster, 'solver') || DEFAULT_SOLVER;
}

const or = (v: unknown, d: string) => (typeof v === 'string' && v !== '' ? v : d);

/** docs/behaviour.md §3.3 provider blocks; each falls back to its §1 default. */
export function dns01Block(cluster: ClusterMap, provider: string): Record<string, unknown> {
  const c = (k: string) => cluster[`dns01-${provider}-${k}`];
  switch (provider) {
    case 'cloudflare':
      return {
        apiTokenSecretRef: {
          name: or(c('secret-name'), 'cloudflare-api-token-secret'),
          key: or(c('secret-key'), 'api-token'),
        },
      };
    case 'route53':
      return {
        region: c('region') ?? '',
        accessKeyID: c('access-key-id') ?? '',
        secretAccessKeySecretRef: { name: c('secret-name') ?? '', key: or(c('secret-key'), 'secret-access-key') },
      };
    case 'digitalocean':
      return {
        tokenSecretRef: {
          name: or(c('secret-name'), 'digitalocean-api-token-secret'),
          key: or(c('secret-key'), 'access-token'),
        },
      };
    case 'rfc2136':
      return {
        nameserver: c('nameserver') ?? '',
        tsigKeyName: c('tsig-key-name') ?? '',
        tsigAlgorithm: or(c('tsig-algorithm'), DEFAULT_TSIG_ALGORITHM),
        tsigSecretSecretRef: { name: c('secret-name') ?? '', key: or(c('secret-key'), 'tsig-secret-key') },
      };
    default:
      return {};
  }
}

export interface GatewayRender {
  /** The TenantGateway, absent when any guard failed. */
  object?: KObject;
  findings: Finding[];
}

/** Where a guard's finding goes: the tenant namespace and the Tenant it names, and the findings so far. */
interface GuardContext {
  T: string;
  tenant?: KObject;
  findings: Finding[];
}

function fail(g: GuardContext, rule: string, message: string, field?: string, hint?: string): void {
  g.findings.push(
    error(`gateway chart for tenant namespace ${g.T}: ${message}`, {
      rule,
      hint,
      ...(g.tenant ? { object: refOf(g.tenant), field } : {}),
    }),
  );
}

/** Guard 1: an empty host (docs/behaviour.md §3.1: the message tells the user to set tenant.spec.host or inherit one). */
function hostGuard(g: GuardContext): void {
  fail(
    g,
    'gateway.empty-host',
    'the tenant has no host (_namespace.host is empty): set tenant.spec.host or inherit one',
    'spec.host',
    g.T === TENANT_ROOT
      ? "set publishing.host: tenant-root's host is the platform's"
      : 'set tenant.spec.host, or inherit one from a parent tenant that has a host',
  );
}

/** Guards 1-5: the host, and the class the tenant selects. Returns the resolved class. */
function classGuards(g: GuardContext, cluster: ClusterMap, host: string, chosen: string): string {
  const platformClass = clusterString(cluster, 'gateway-class-name');
  const selected = chosen.trim() !== '';
  // 1. An empty host.
  if (host === '') hostGuard(g);
  // 2. A whitespace-only platform class.
  if (platformClass !== '' && platformClass.trim() === '')
    fail(
      g,
      'gateway.class-whitespace',
      '_cluster.gateway-class-name is whitespace-only',
      undefined,
      'set gateway.className to a GatewayClass name, or leave it empty for cilium',
    );
  // 3. A whitespace-only tenant class.
  if (chosen !== '' && !selected)
    fail(
      g,
      'gateway.class-whitespace',
      `spec.gatewayClass ${JSON.stringify(chosen)} is whitespace-only`,
      'spec.gatewayClass',
      'name a GatewayClass, or remove spec.gatewayClass for the platform default',
    );
  const cls = resolveClass(cluster, chosen);
  if (!selected) return cls;
  // 4. A class the tenant may not select.
  const allowed = selectableClasses(cluster);
  if (!allowed.includes(cls))
    fail(
      g,
      'gateway.class-not-selectable',
      `gatewayClass "${cls}" is not one the tenant may select; allowed: ${allowed.join(', ')} (the platform default gateway.className plus gateway.tenantSelectableClasses)`,
      'spec.gatewayClass',
      `set spec.gatewayClass to one of ${allowed.join(', ')} or remove it, or add "${cls}" to the platform's gateway.tenantSelectableClasses`,
    );
  // 5. The publishing tenant crossing the edge line, in either direction.
  const def = defaultClass(cluster);
  const publishing = publishingNamespace(cluster);
  if (g.T === publishing && isEdgeClass(cluster, def) !== isEdgeClass(cluster, cls))
    fail(
      g,
      'gateway.publishing-edge-line',
      `the publishing tenant (publishing.ingressName ${publishing}) selected class "${cls}", which is ${isEdgeClass(cluster, cls) ? '' : 'not '}edge-terminated while the platform default "${def}" is ${isEdgeClass(cluster, def) ? 'edge-terminated' : 'not'}: the cluster ACME solver follows gateway.className alone`,
      'spec.gatewayClass',
      "move gateway.className instead of the publishing tenant's own class",
    );
  return cls;
}

/** The ACME settings of the platform values, each with its default. */
function acmeOf(cluster: ClusterMap): { solver: string; provider: string; issuer: string } {
  return {
    solver: solverOf(cluster),
    provider: clusterString(cluster, 'dns01-provider') || DEFAULT_DNS01_PROVIDER,
    issuer: clusterString(cluster, 'issuer-name') || DEFAULT_ISSUER,
  };
}

/** Guards 6-7: the solver, the provider and the issuer (not under edge or existingSecret); dns01's required fields. */
function acmeGuards(g: GuardContext, cluster: ClusterMap, certMode: string): void {
  const { solver, provider, issuer } = acmeOf(cluster);
  if (certMode !== 'edge' && certMode !== 'existingSecret') {
    if (!SOLVERS.includes(solver))
      fail(
        g,
        'gateway.unsupported-solver',
        `unsupported solver "${solver}" (publishing.certificates.solver): supported are ${SOLVERS.join(', ')}`,
        undefined,
        `set publishing.certificates.solver to ${SOLVERS.join(' or ')}`,
      );
    else if (solver === 'dns01' && !(DNS01_PROVIDERS as readonly string[]).includes(provider))
      fail(
        g,
        'gateway.unsupported-provider',
        `unsupported DNS-01 provider "${provider}" (publishing.certificates.dns01.provider): supported are ${DNS01_PROVIDERS.join(', ')}`,
        undefined,
        `set publishing.certificates.dns01.provider to one of ${DNS01_PROVIDERS.join(', ')}`,
      );
    if (!ISSUERS.includes(issuer))
      fail(
        g,
        'gateway.unsupported-issuer',
        `unsupported issuer "${issuer}" (publishing.certificates.issuerName): supported are ${ISSUERS.join(', ')}`,
        undefined,
        `set publishing.certificates.issuerName to ${ISSUERS.join(' or ')} (another ACME provider needs a controller change)`,
      );
  }
  if (certMode !== 'dns01' || solver !== 'dns01') return;
  if (provider === 'route53' && !cluster['dns01-route53-region'])
    fail(
      g,
      'gateway.dns01-missing-field',
      'DNS-01 provider route53 needs a region (publishing.certificates.dns01.route53.region)',
      undefined,
      'set publishing.certificates.dns01.route53.region (e.g. us-east-1) in the platform values',
    );
  if (provider === 'rfc2136' && !cluster['dns01-rfc2136-nameserver'])
    fail(
      g,
      'gateway.dns01-missing-field',
      'DNS-01 provider rfc2136 needs a nameserver (publishing.certificates.dns01.rfc2136.nameserver)',
      undefined,
      'set publishing.certificates.dns01.rfc2136.nameserver (host:port of the DNS server) and rfc2136.tsigKeyName in the platform values',
    );
}

/** The keys each DNS-01 provider requires beyond those guard 7 fails on: [_cluster suffix, value name]. */
const DNS01_REQUIRED_KEYS: Record<string, [string, string][]> = {
  route53: [['secret-name', 'secretName']],
  rfc2136: [
    ['tsig-key-name', 'tsigKeyName'],
    ['secret-name', 'secretName'],
  ],
};

/**
 * docs/behaviour.md §3.3: the provider table lists the keys each provider requires
 * beyond the ones guard 7 fails on (route53.secretName; rfc2136.tsigKeyName and .secretName).
 * They have no default, and the chart renders them empty where upstream does not fail, so an
 * empty one is a warning: the Issuer would name no credentials.
 */
function dns01KeyWarnings(g: GuardContext, cluster: ClusterMap, certMode: string): void {
  const { solver, provider } = acmeOf(cluster);
  if (certMode !== 'dns01' || solver !== 'dns01') return;
  for (const [key, value] of DNS01_REQUIRED_KEYS[provider] ?? []) {
    if (cluster[`dns01-${provider}-${key}`]) continue;
    g.findings.push(
      warning(
        `gateway chart for tenant namespace ${g.T}: DNS-01 provider ${provider} requires publishing.certificates.dns01.${provider}.${value}, which is empty: the tenant's Issuer would name no ${key === 'secret-name' ? 'credentials Secret' : 'TSIG key'}`,
        {
          rule: 'gateway.dns01-required-key',
          hint: `set publishing.certificates.dns01.${provider}.${value} in the platform values${provider === 'route53' ? ' (and route53.accessKeyID unless the controller uses IRSA)' : ''}`,
          ...(g.tenant ? { object: refOf(g.tenant) } : {}),
        },
      ),
    );
  }
}

/** The TenantGateway spec, in the chart's field order (§3.3). */
function tenantGatewaySpec(
  cluster: ClusterMap,
  T: string,
  host: string,
  cls: string,
  certMode: string,
  chart: GatewayChartValues,
  behaviour: Behaviour,
): Record<string, unknown> {
  const { provider, issuer } = acmeOf(cluster);
  const spec: Record<string, unknown> = { apex: host, gatewayClassName: cls, certMode };
  if (certMode === 'existingSecret') spec.wildcardSecretRef = { name: cluster['wildcard-secret-name'] };
  else if (certMode !== 'edge') {
    spec.issuerName = issuer;
    if (certMode === 'dns01') spec.dns01 = { provider, [provider]: dns01Block(cluster, provider) };
  }
  const publishing = T === publishingNamespace(cluster);
  // docs/decisions.md §3: attachedNamespaces go onto the publishing tenant's TenantGateway only;
  // a release writes them on every one (docs/versions.md §X3).
  const attachesHere = publishing || !behaviour.attachedNamespacesPublishingOnly;
  const attached = attachesHere ? splitList(cluster['gateway-attached-namespaces']) : [];
  if (attached.length) spec.attachedNamespaces = attached;
  const services = passthroughServices(cluster, publishing, certMode, chart, behaviour);
  if (services.length) spec.tlsPassthroughServices = services;
  return spec;
}

/**
 * docs/behaviour.md §3.4: only on the publishing tenant while gateway.enabled, filtered to
 * publishing.exposedServices in the chart's order, and never under edge. A release writes the
 * chart's list on every TenantGateway, whatever the platform values say (docs/versions.md §X2).
 */
function passthroughServices(
  cluster: ClusterMap,
  publishing: boolean,
  certMode: string,
  chart: GatewayChartValues,
  behaviour: Behaviour,
): string[] {
  const all = chart.tlsPassthroughServices ?? [];
  if (!behaviour.passthroughServicesPublishingOnly) return [...all];
  if (!publishing || cluster['gateway-enabled'] !== 'true' || certMode === 'edge') return [];
  const exposed = splitList(cluster['expose-services']);
  return all.filter((s) => exposed.includes(s));
}

/**
 * A release's class (docs/versions.md §X1): the chart's `gatewayClassName`, whose default there is
 * cilium (main's chart leaves it empty for the platform default), as it is: the tenant chart passes
 * the gateway release no values. Of the guards of docs/behaviour.md §3.1 only guard 1, the host, exists.
 */
function releaseClass(g: GuardContext, host: string, chart: GatewayChartValues): string {
  if (host === '') hostGuard(g);
  return chart.gatewayClassName || DEFAULT_CLASS;
}

/**
 * Render the gateway chart for one tenant release that owns a Gateway. Every guard that fails
 * is reported (in the chart's order), each naming the tenant and the rule.
 */
export function renderGateway(
  r: TenantRelease,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
  chart: GatewayChartValues = gatewayChartDefaults(),
): GatewayRender {
  const cluster = r.values._cluster;
  const host = r.values._namespace.host ?? '';
  const g: GuardContext = { T: r.namespace, tenant: r.tenant, findings: [] };
  const cls = behaviour.gatewayClasses
    ? classGuards(g, cluster, host, r.gatewayClassName ?? chart.gatewayClassName ?? '')
    : releaseClass(g, host, chart);
  const certMode = resolveCertMode(cluster, cls, behaviour);
  acmeGuards(g, cluster, certMode);
  dns01KeyWarnings(g, cluster, certMode);
  if (hasErrors(g.findings)) return { findings: g.findings };
  const spec = tenantGatewaySpec(cluster, r.namespace, host, cls, certMode, chart, behaviour);
  return {
    object: { apiVersion: TGW_API_VERSION, kind: TGW_KIND, metadata: { name: TGW_NAME, namespace: r.namespace }, spec },
    findings: g.findings,
  };
}
