/**
 * The Cozystack releases cozy-gw reproduces, and what each does (docs/versions.md): one row per
 * version, each row every behaviour that differs between the supported versions, named after the
 * entry of docs/versions.md that describes it. The charts, the controller, the admission policies
 * and the input checks read these properties; none of them compares version numbers. Adding a
 * release is a new row (and, if it brings one, a new property).
 *
 * Versions are keyed exactly, never by "at least": the two maintained lines are separate branches
 * (docs/versions.md §0: v1.5.4 is newer by date than v1.6.0). `main` is the specification pack
 * docs/behaviour.md and docs/tenant.md describe (upstream main at 3c780acd plus the pack's
 * additions, docs/versions.md §10).
 */

/** What one version does, wherever the supported versions differ (docs/versions.md §1). */
export interface Behaviour {
  // The tenant chart (docs/versions.md §2)
  /** docs/versions.md §T1: the etcd, ingress and monitoring HelmReleases depend on the VictoriaMetrics operator. */
  readonly moduleReleasesWaitForVmo: boolean;
  /**
   * docs/versions.md §T2: a tenant Namespace's `tenant.cozystack.io/*` ancestor labels: every dash-prefix of the
   * **parent** namespace (`parent-prefixes`, no tenant-root label from depth 2 on) or
   * tenant-root plus every dash-prefix of the tenant's own (`to-root`).
   */
  readonly namespaceAncestorLabels: 'parent-prefixes' | 'to-root';
  /** docs/versions.md §T3, §T4: the tenant's pre-delete cleanup hook: v1.5's, v1.6's hardened one, or main's bounded one. */
  readonly tenantCleanupHook: 'v1.5' | 'v1.6' | 'bounded';
  /** docs/versions.md §T5: the `allow-to-grafana-dashboards` CiliumNetworkPolicy in every tenant. */
  readonly grafanaDashboardsEgress: boolean;
  /** docs/versions.md §T6: `computeplane` is a tenant value (its HelmRelease, its Package guard). */
  readonly computeplaneModule: boolean;
  /** docs/versions.md §T7: the etcd, monitoring, seaweedfs and gateway HelmReleases retry in place (RetryOnFailure). */
  readonly dataModulesRetryOnFailure: boolean;
  // cozy-lib (docs/versions.md §3)
  /** docs/versions.md §L1: quantities with the `n` and `u` suffixes convert (without them such a request reads as 0). */
  readonly quantitySuffixesNanoMicro: boolean;
  // The gateway chart (docs/versions.md §4)
  /** docs/versions.md §G1: the gateway chart's post-delete ACME cleanup hook. */
  readonly gatewayCleanupHook: boolean;
  // cozystack-basics (docs/versions.md §5)
  /** docs/versions.md §B2: the Ingress hostname policy (layer 8). */
  readonly ingressHostnamePolicy: boolean;
  /** docs/versions.md §B3: the monitoring ExternalName Services render only while `monitoring-enabled` is "true". */
  readonly monitoringServicesFollowRootEnabled: boolean;
  /** docs/versions.md §B4: the SecurityGroup rules of the tenant ClusterRoles. */
  readonly securityGroupRules: boolean;
  /** docs/versions.md §B5: the hostname policies compare hosts ignoring ASCII case. */
  readonly hostComparisonsIgnoreCase: boolean;
  // The platform chart's `_cluster` (docs/versions.md §6)
  /**
   * docs/versions.md §P1: `expose-ingress-admin`, `load-balancer-class`, `monitoring-enabled`, `wildcard-issue`, and
   * the derived wildcard Secret name (dns01 with `certificates.wildcard` and the gateway off).
   */
  readonly clusterKeysOfV1_6: boolean;
  /** docs/versions.md §P2: `authentication.oidc.keycloakInternalUrl`'s default. */
  readonly keycloakInternalUrlDefault: string;
  /** docs/versions.md §P3: the platform value `gateway.http2` (Cilium only, never in `_cluster`) is known. */
  readonly gatewayHttp2: boolean;
  // The controllers (docs/versions.md §7)
  /** docs/versions.md §C1: route kinds of the port-443 listeners: by listener (HTTPS: HTTPRoute, passthrough: TLSRoute) or both on every one. */
  readonly port443RouteKinds: 'by-listener' | 'http-and-tls';
  /** docs/versions.md §C2: the wildcard-Secret replication controller runs. */
  readonly wildcardSecretReplication: boolean;
  // The Tenants API (docs/versions.md §8)
  /** docs/versions.md §A1: Tenant quotas are checked on create and update (quantities parse; the hierarchical quota). */
  readonly tenantQuotaChecks: boolean;
  // The TenantGateway CRD (docs/versions.md §9)
  /**
   * docs/versions.md §9: the TenantGateway CRD the API server applies: the releases' (the same at every tag: no edge,
   * no bounds, no tlsPassthroughListeners, no CEL rules) or the pack's (§X1's edge, §X9's bounds, listeners and rules).
   */
  readonly tenantGatewayCrd: 'releases' | 'pack';
  // The specification pack's departures from every release (docs/versions.md §10)
  /** docs/versions.md §X1: gateway classes and edge termination (the platform's class keys, a tenant's gatewayClass, certMode edge). */
  readonly gatewayClasses: boolean;
  /** docs/versions.md §X2: only the publishing tenant's TenantGateway lists passthrough services, filtered by expose-services. */
  readonly passthroughServicesPublishingOnly: boolean;
  /** docs/versions.md §X3: only the publishing tenant's TenantGateway attaches the platform's namespaces. */
  readonly attachedNamespacesPublishingOnly: boolean;
  /** docs/versions.md §X4: layers 3 and 6: no tenant-* entry in gateway.attachedNamespaces (a render refusal and a policy). */
  readonly attachedNamespacesGuard: boolean;
  /** docs/versions.md §X5: the route-hostname policy: the releases' two (HTTPRoute; TLSRoute v1alpha2) or the pack's one. */
  readonly routeHostnamePolicy: 'releases' | 'pack';
  /** docs/versions.md §X6: the http→https redirect route names the listeners' hostnames. */
  readonly redirectRouteHostnames: boolean;
  /** docs/versions.md §X7: which claims earn listeners, and route status: the releases' race, or the pack's (docs/behaviour.md §5.8, §5.9). */
  readonly listenerClaims: 'releases' | 'pack';
  /** docs/versions.md §X8: the controller validates a TenantGateway itself and keeps the 64-listener budget. */
  readonly controllerValidation: boolean;
  /** docs/versions.md §X9: native-port passthrough listeners (`tlsPassthroughListeners`) and the CRD's bounds and CEL rules. */
  readonly nativePassthroughListeners: boolean;
  /** docs/versions.md §X10: wildcard-Secret replication skips namespaces behind an edge TenantGateway. */
  readonly replicationSkipsEdge: boolean;
}

/** One version cozy-gw reproduces. */
export interface CozystackVersion {
  /** `v1.6.2`, or `main`. */
  readonly name: string;
  /** Its maintained line (`v1.5`, `v1.6`), or `main`. */
  readonly line: string;
  /** The upstream commit of the tag (main: the commit the specification pack describes). */
  readonly commit: string;
  /**
   * The behaviour class (docs/versions.md §0): versions of one class give identical output; a test
   * that covers a class covers its versions.
   */
  readonly behaviourClass: number;
  readonly behaviour: Behaviour;
  /**
   * How a live cluster shows it (docs/versions.md §11): the migration level of the
   * `cozy-system/cozystack-version` ConfigMap (the platform chart's `migrations.targetVersion`).
   */
  readonly migration: number;
  /** The tag of the cozystack images its tree pins (docs/versions.md §11: v1.5.3 pins v1.5.2's, main v1.6.0's). */
  readonly images: string;
}

const V1_5_0: Behaviour = {
  moduleReleasesWaitForVmo: false,
  namespaceAncestorLabels: 'parent-prefixes',
  tenantCleanupHook: 'v1.5',
  grafanaDashboardsEgress: false,
  computeplaneModule: false,
  dataModulesRetryOnFailure: false,
  quantitySuffixesNanoMicro: false,
  gatewayCleanupHook: false,
  ingressHostnamePolicy: false,
  monitoringServicesFollowRootEnabled: false,
  securityGroupRules: false,
  hostComparisonsIgnoreCase: false,
  clusterKeysOfV1_6: false,
  keycloakInternalUrlDefault: '',
  gatewayHttp2: false,
  port443RouteKinds: 'by-listener',
  wildcardSecretReplication: false,
  tenantQuotaChecks: false,
  tenantGatewayCrd: 'releases',
  gatewayClasses: false,
  passthroughServicesPublishingOnly: false,
  attachedNamespacesPublishingOnly: false,
  attachedNamespacesGuard: false,
  routeHostnamePolicy: 'releases',
  redirectRouteHostnames: false,
  listenerClaims: 'releases',
  controllerValidation: false,
  nativePassthroughListeners: false,
  replicationSkipsEdge: false,
};

/** v1.5.1→v1.5.2: docs/versions.md §T1. */
const V1_5_2: Behaviour = { ...V1_5_0, moduleReleasesWaitForVmo: true };

/** v1.5.3→v1.5.4: docs/versions.md §T2 (§B1 shows nothing). */
const V1_5_4: Behaviour = { ...V1_5_2, namespaceAncestorLabels: 'to-root' };

/** v1.5.4→v1.6.0: docs/versions.md §T3, §G1, §B2, §B3, §B4, §P1, §P2, §P3, §C1, §C2, §A1. */
const V1_6_0: Behaviour = {
  ...V1_5_4,
  tenantCleanupHook: 'v1.6',
  gatewayCleanupHook: true,
  ingressHostnamePolicy: true,
  monitoringServicesFollowRootEnabled: true,
  securityGroupRules: true,
  clusterKeysOfV1_6: true,
  keycloakInternalUrlDefault: 'http://keycloak-http.cozy-keycloak.svc:8080/realms/cozy',
  port443RouteKinds: 'http-and-tls',
  wildcardSecretReplication: true,
  tenantQuotaChecks: true,
};

/** v1.6.2→main: upstream's docs/versions.md §T4–§T7, §L1, §B5, §P3, and §X1–§X10. */
const MAIN: Behaviour = {
  ...V1_6_0,
  tenantCleanupHook: 'bounded',
  grafanaDashboardsEgress: true,
  computeplaneModule: true,
  dataModulesRetryOnFailure: true,
  quantitySuffixesNanoMicro: true,
  hostComparisonsIgnoreCase: true,
  gatewayHttp2: true,
  tenantGatewayCrd: 'pack',
  gatewayClasses: true,
  passthroughServicesPublishingOnly: true,
  attachedNamespacesPublishingOnly: true,
  attachedNamespacesGuard: true,
  routeHostnamePolicy: 'pack',
  redirectRouteHostnames: true,
  listenerClaims: 'pack',
  controllerValidation: true,
  nativePassthroughListeners: true,
  replicationSkipsEdge: true,
};

/** Every version cozy-gw reproduces, in the order `--version` lists them (docs/versions.md §0). */
export const COZYSTACK_VERSIONS: readonly CozystackVersion[] = [
  {
    name: 'v1.5.0',
    line: 'v1.5',
    commit: '82b8c460c',
    behaviourClass: 1,
    behaviour: V1_5_0,
    migration: 45,
    images: 'v1.5.0',
  },
  {
    name: 'v1.5.1',
    line: 'v1.5',
    commit: '5ba0fee60',
    behaviourClass: 1,
    behaviour: V1_5_0,
    migration: 45,
    images: 'v1.5.1',
  },
  {
    name: 'v1.5.2',
    line: 'v1.5',
    commit: 'ab0f9ed08',
    behaviourClass: 2,
    behaviour: V1_5_2,
    migration: 45,
    images: 'v1.5.2',
  },
  {
    name: 'v1.5.3',
    line: 'v1.5',
    commit: '37cd6a797',
    behaviourClass: 2,
    behaviour: V1_5_2,
    migration: 45,
    images: 'v1.5.2',
  },
  {
    name: 'v1.5.4',
    line: 'v1.5',
    commit: 'fe2fbd0d2',
    behaviourClass: 3,
    behaviour: V1_5_4,
    migration: 46,
    images: 'v1.5.4',
  },
  {
    name: 'v1.6.0',
    line: 'v1.6',
    commit: '764e30418',
    behaviourClass: 4,
    behaviour: V1_6_0,
    migration: 54,
    images: 'v1.6.0',
  },
  {
    name: 'v1.6.1',
    line: 'v1.6',
    commit: '8f4c19daa',
    behaviourClass: 4,
    behaviour: V1_6_0,
    migration: 54,
    images: 'v1.6.1',
  },
  {
    name: 'v1.6.2',
    line: 'v1.6',
    commit: 'bfde94fd2',
    behaviourClass: 4,
    behaviour: V1_6_0,
    migration: 54,
    images: 'v1.6.2',
  },
  {
    name: 'main',
    line: 'main',
    commit: '3c780acd4',
    behaviourClass: 5,
    behaviour: MAIN,
    migration: 56,
    images: 'v1.6.0',
  },
];

const byName = new Map(COZYSTACK_VERSIONS.map((v) => [v.name, v]));

function known(name: string): CozystackVersion {
  const v = byName.get(name);
  if (!v) throw new Error(`no Cozystack version ${name} in the table`);
  return v;
}

/** The default: the newest release, what users run (docs/versions.md "Choosing a version"). */
export const DEFAULT_COZYSTACK_VERSION: CozystackVersion = known('v1.6.2');

/** The specification pack the docs describe: what the core renders when no version is given to it. */
export const MAIN_VERSION: CozystackVersion = known('main');

/** The names of every supported version, for messages: `v1.5.0 … v1.5.4, v1.6.0 … v1.6.2, main`. */
export function supportedVersionsText(): string {
  const lines = new Map<string, string[]>();
  for (const v of COZYSTACK_VERSIONS) lines.set(v.line, [...(lines.get(v.line) ?? []), v.name]);
  return [...lines.values()].map((names) => (names.length > 1 ? `${names[0]} … ${names.at(-1)}` : names[0])).join(', ');
}

/** A version given by the user, resolved: the version, and a warning when it stood in for an unknown patch. */
export type VersionResolution =
  { ok: true; version: CozystackVersion; warning?: string } | { ok: false; error: string };

/**
 * `--cozystack-version V` (docs/versions.md "Choosing a version"): a tag (`v1.6.2`, `1.6.2`), a
 * line (`v1.6`: its newest known patch) or `main`. An unknown patch of a known line warns and
 * resolves to the line's newest; an unknown line or a malformed value is an error listing the
 * supported versions. Release candidates (`v1.6.2-rc.1`) are not listed: they resolve as an
 * unknown patch of their line.
 */
export function resolveCozystackVersion(given: string): VersionResolution {
  const text = given.trim();
  if (text === 'main') return { ok: true, version: MAIN_VERSION };
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(-[0-9A-Za-z.-]+)?$/.exec(text);
  const supported = `supported: ${supportedVersionsText()} (or a line: ${lineNames().join(', ')})`;
  if (!m) return { ok: false, error: `${JSON.stringify(given.slice(0, 80))} is not a Cozystack version; ${supported}` };
  const line = `v${Number(m[1])}.${Number(m[2])}`;
  const patches = COZYSTACK_VERSIONS.filter((v) => v.line === line);
  if (!patches.length)
    return { ok: false, error: `Cozystack ${line} is not a line cozy-gw reproduces (${given}); ${supported}` };
  const newest = patches[patches.length - 1];
  if (m[3] === undefined && !m[4]) return { ok: true, version: newest };
  const exact = m[4] ? undefined : byName.get(`${line}.${Number(m[3])}`);
  if (exact) return { ok: true, version: exact };
  return {
    ok: true,
    version: newest,
    warning: `Cozystack ${given} is not a version cozy-gw knows: rendering as ${newest.name}, the newest of ${line} it reproduces`,
  };
}

function lineNames(): string[] {
  return [...new Set(COZYSTACK_VERSIONS.filter((v) => v.line !== 'main').map((v) => v.line))];
}
