/**
 * Platform values → the `_cluster` map the charts read (docs/behaviour.md §1).
 * Inputs: the platform chart's defaults, an optional `cozystack.io/v1alpha1 Package`
 * (`spec.components.platform.values`), then `--values` files merged left to right (they win).
 */
import { hash } from 'node:crypto';
import { asset } from '../assets';
import { DEFAULT_CLASS } from '../platform/names';
import { findPlatformPackage, packageValues } from '../platform/kinds';
import type { ClusterMap } from '../platform/tenancy';
import { error, type Finding } from '../k8s/diagnostics';
import { goValueString } from '../k8s/goDecimal';
import { isDns1123Label, notANamespaceName } from '../k8s/dnsNames';
import { DEFAULT_DNS01_PROVIDER } from '../platform/certificates';
import { getPath, isObject, mergeValues, refOf, type KObject } from '../k8s/model';

export type PlatformValues = Record<string, unknown>;

/** The in-cluster Keycloak URL, `authentication.oidc.keycloakInternalUrl`'s default (docs/behaviour.md §1). */
const KEYCLOAK_INTERNAL_URL = 'http://keycloak-http.cozy-keycloak.svc:8080';

export function platformDefaults(): PlatformValues {
  return asset<PlatformValues>('charts/platform/values.yaml');
}

export interface ValuesSources {
  /** `--values` files, in order. */
  files: { file: string; values: Record<string, unknown> }[];
  /** Every input object; a platform Package among them contributes its values. */
  objects: KObject[];
}

export interface ResolvedValues {
  /** The merged platform values, defaults included. */
  values: PlatformValues;
  /** Whether any platform values were given at all (the values channel exists). */
  given: boolean;
  /** The Package the values came from, if any. */
  pkg?: KObject;
}

/** Merge defaults, the Package's values, then each `--values` file (later wins). */
export function resolvePlatformValues(src: ValuesSources): ResolvedValues {
  let values = platformDefaults();
  let given = false;
  const pkg = findPlatformPackage(src.objects);
  if (pkg) {
    const pv = packageValues(pkg);
    if (isObject(pv)) values = mergeValues(values, pv);
    given = true;
  }
  for (const f of src.files) {
    values = mergeValues(values, f.values);
    given = true;
  }
  return { values, given, pkg };
}

/**
 * The digest of the platform values a render reads (defaults, the Package's, the `--values` files and
 * `--set`, merged): sha256 of their JSON with every mapping's keys in order, so the same values
 * written in another order or over other files have one digest. A tree's record keeps it, and
 * `diff` compares it with the change's (docs/commands/diff.md "What it does").
 */
export function valuesDigest(src: ValuesSources): string {
  return hash('sha256', JSON.stringify(sortedKeys(resolvePlatformValues(src).values)), 'hex');
}

function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys(v[k]);
  return out;
}

/**
 * A value as the platform chart's `quote` prints it into `_cluster`: absent and null as '', a
 * scalar as Go's `%v` (a number as the float64 it decodes to, `1000000` → `1e+06`: docs/decisions.md
 * §16), anything else as JSON.
 */
function valueString(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return goValueString(v);
  return JSON.stringify(v);
}

function list(v: unknown): string {
  if (!Array.isArray(v)) return valueString(v);
  return v.map(valueString).join(',');
}

/** A list value checked as the platform chart checks class lists: strings without commas. */
function classList(v: unknown, field: string, findings: Finding[], object?: KObject): string {
  if (v === undefined || v === null) return '';
  if (!Array.isArray(v)) {
    findings.push(
      error(`${field} must be a list of class names`, {
        field,
        rule: 'platform.class-list',
        object: object && refOf(object),
      }),
    );
    return '';
  }
  const out: string[] = [];
  v.forEach((e, i) => {
    if (typeof e !== 'string')
      findings.push(
        error(`${field}[${i}] must be a string, got ${JSON.stringify(e)}`, {
          field: `${field}[${i}]`,
          rule: 'platform.class-list',
          object: object && refOf(object),
        }),
      );
    else if (e.includes(','))
      findings.push(
        error(`${field}[${i}] "${e}" must not contain a comma`, {
          field: `${field}[${i}]`,
          rule: 'platform.class-list',
          object: object && refOf(object),
        }),
      );
    else out.push(e);
  });
  return out.join(',');
}

type ValueAt = (p: string) => unknown;
const CERTS = 'publishing.certificates';

/**
 * The wildcard Secret: the one named, else cozystack-wildcard-tls issued by the platform when
 * dns01 asks for a wildcard and the gateway is off.
 */
function wildcardSecret(g: ValueAt, gatewayEnabled: boolean): { name: string; issue: string } {
  const name = valueString(g(`${CERTS}.wildcardSecretName`));
  const wildcard = g(`${CERTS}.wildcard`) === true || g(`${CERTS}.wildcard`) === 'true';
  if (name === '' && valueString(g(`${CERTS}.solver`)) === 'dns01' && wildcard && !gatewayEnabled)
    return { name: 'cozystack-wildcard-tls', issue: 'true' };
  return { name, issue: 'false' };
}

/** gateway.className trimmed, cilium when unset or empty; a non-string or whitespace-only one is refused. */
function gatewayClassName(g: ValueAt, findings: Finding[], pkg?: KObject): string {
  const rawClass = g('gateway.className');
  if (rawClass === undefined || rawClass === null) return DEFAULT_CLASS;
  if (typeof rawClass !== 'string') {
    findings.push(
      error(`gateway.className must be a string, got ${JSON.stringify(rawClass)}`, {
        field: 'gateway.className',
        rule: 'platform.class-name',
        object: pkg && refOf(pkg),
      }),
    );
  } else if (rawClass !== '' && rawClass.trim() === '') {
    findings.push(
      error(
        'gateway.className is whitespace-only; leave it unset or empty for the bundled cilium class, or name a GatewayClass',
        { field: 'gateway.className', rule: 'platform.class-name', object: pkg && refOf(pkg) },
      ),
    );
  } else if (rawClass.trim() !== '') {
    return rawClass.trim();
  }
  return DEFAULT_CLASS;
}

/** publishing.ingressName as given: a value that is not a namespace name is refused, never trimmed. */
function publishingIngressName(g: ValueAt, findings: Finding[]): string {
  const exposeIngress = valueString(g('publishing.ingressName'));
  if (exposeIngress !== '' && !isDns1123Label(exposeIngress))
    findings.push(
      error(
        `publishing.ingressName ${notANamespaceName(exposeIngress)}: the controllers would look for the publishing tenant in a namespace that cannot exist`,
        {
          field: 'publishing.ingressName',
          rule: 'platform.ingress-name',
          hint: "name the publishing tenant's namespace (tenant-root, or tenant-<name> of a tenant that owns a Gateway), without spaces",
        },
      ),
    );
  return exposeIngress;
}

/** The dns01-* keys of `_cluster`: the provider (cloudflare when unset) and each provider's fields as given. */
function dns01Keys(g: ValueAt): ClusterMap {
  const d = (p: string) => valueString(g(`${CERTS}.dns01.${p}`));
  return {
    'dns01-provider': d('provider') || DEFAULT_DNS01_PROVIDER,
    'dns01-cloudflare-secret-name': d('cloudflare.secretName'),
    'dns01-cloudflare-secret-key': d('cloudflare.secretKey'),
    'dns01-route53-region': d('route53.region'),
    'dns01-route53-access-key-id': d('route53.accessKeyID'),
    'dns01-route53-secret-name': d('route53.secretName'),
    'dns01-route53-secret-key': d('route53.secretKey'),
    'dns01-digitalocean-secret-name': d('digitalocean.secretName'),
    'dns01-digitalocean-secret-key': d('digitalocean.secretKey'),
    'dns01-rfc2136-nameserver': d('rfc2136.nameserver'),
    'dns01-rfc2136-tsig-key-name': d('rfc2136.tsigKeyName'),
    'dns01-rfc2136-tsig-algorithm': d('rfc2136.tsigAlgorithm'),
    'dns01-rfc2136-secret-name': d('rfc2136.secretName'),
    'dns01-rfc2136-secret-key': d('rfc2136.secretKey'),
  };
}

/**
 * The keys the tenant charts read (docs/behaviour.md §1; docs/tenant.md §2.4, §2.0.6, §2.10.5).
 * Each is the value as given, defaulted only when absent (null deletes a key, as in helm, and so
 * defaults it too): an explicit `monitoring.rootEnabled: false` stays "false".
 */
function tenantChartKeys(g: ValueAt): ClusterMap {
  return {
    'oidc-enabled': valueString(g('authentication.oidc.enabled') ?? false),
    'oidc-insecure-skip-verify': valueString(g('authentication.oidc.insecureSkipVerify') ?? false),
    'extra-keycloak-redirect-uri-for-dashboard': valueString(g('authentication.oidc.keycloakExtraRedirectUri')),
    'api-server-endpoint': valueString(g('publishing.apiServerEndpoint')),
    'keycloak-internal-url': valueString(g('authentication.oidc.keycloakInternalUrl') ?? KEYCLOAK_INTERNAL_URL),
    'monitoring-enabled': valueString(g('monitoring.rootEnabled') ?? true),
    'cluster-domain': valueString(g('networking.clusterDomain') || 'cozy.local'),
    'cpu-allocation-ratio': valueString(g('resources.cpuAllocationRatio') ?? 10),
    'memory-allocation-ratio': valueString(g('resources.memoryAllocationRatio') ?? 1),
    'ephemeral-storage-allocation-ratio': valueString(g('resources.ephemeralStorageAllocationRatio') ?? 40),
  };
}

/**
 * The `_cluster` map of docs/behaviour.md §1. Findings (errors) for values the platform chart
 * refuses: a non-string or whitespace-only gateway.className, class list entries that are not
 * strings or contain a comma, a publishing.ingressName that is not a namespace name.
 */
export function clusterValues(values: PlatformValues, pkg?: KObject): { cluster: ClusterMap; findings: Finding[] } {
  const findings: Finding[] = [];
  const g: ValueAt = (p) => getPath(values, p);
  const gatewayEnabled = g('gateway.enabled') === true || g('gateway.enabled') === 'true';
  const wildcard = wildcardSecret(g, gatewayEnabled);
  const className = gatewayClassName(g, findings, pkg);
  const exposeIngress = publishingIngressName(g, findings);
  const classes = (p: string) => classList(g(p), p, findings, pkg);
  const cluster: ClusterMap = {
    'root-host': valueString(g('publishing.host')),
    'bundle-name': valueString(g('bundles.system.variant')),
    solver: valueString(g(`${CERTS}.solver`)),
    'issuer-name': valueString(g(`${CERTS}.issuerName`)),
    'wildcard-secret-name': wildcard.name,
    'wildcard-issue': wildcard.issue,
    ...dns01Keys(g),
    'expose-services': list(g('publishing.exposedServices')),
    'expose-ingress': exposeIngress,
    'expose-ingress-admin': valueString(g('publishing.ingressNameAdmin')),
    'expose-external-ips': list(g('publishing.externalIPs')),
    'load-balancer-class': valueString(g('publishing.loadBalancerClass')),
    'proxy-protocol': valueString(g('publishing.proxyProtocol') ?? false),
    'gateway-enabled': gatewayEnabled ? 'true' : 'false',
    'gateway-attached-namespaces': list(g('gateway.attachedNamespaces')),
    'gateway-class-name': className,
    'gateway-edge-classes': classes('gateway.edgeTerminatedClasses'),
    'gateway-tenant-classes': classes('gateway.tenantSelectableClasses'),
    ...tenantChartKeys(g),
  };
  return { cluster, findings };
}

/** The split, trimmed, non-empty entries of a comma-joined `_cluster` list. */
export function splitList(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
