/**
 * Platform values → the `_cluster` map the charts read (docs/behaviour.md §1), as the platform
 * chart's `apps.yaml` of the version writes it into Secret `cozy-system/cozystack-values`
 * (docs/versions.md §P1, §P2, §X1). Inputs: the platform chart's defaults, an optional
 * `cozystack.io/v1alpha1 Package` (`spec.components.platform.values`), then `--values` files
 * merged left to right (they win); Helm coalesces them over the defaults, so a null deletes a key
 * and its default is not put back (docs/decisions.md §17).
 */
import { hash } from 'node:crypto';
import { asset } from '../assets';
import { DEFAULT_CLASS } from '../platform/names';
import { findPlatformPackage, packageValues } from '../platform/kinds';
import type { ClusterMap, ClusterValue } from '../platform/tenancy';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { error, type Finding } from '../k8s/diagnostics';
import { goQuote, goSprint } from '../k8s/goText';
import { isDns1123Label, notANamespaceName } from '../k8s/dnsNames';
import { clone, getPath, isObject, refOf, type KObject } from '../k8s/model';
import { helmToYaml } from './namespaceTemplate';
import { truthy } from './tenantRelease';

export type PlatformValues = Record<string, unknown>;

/**
 * The platform chart's defaults (charts/platform/values.yaml) of a version: its
 * `authentication.oidc.keycloakInternalUrl` is the version's (docs/versions.md §P2).
 */
export function platformDefaults(behaviour: Behaviour = MAIN_VERSION.behaviour): PlatformValues {
  const values = asset<PlatformValues>('charts/platform/values.yaml');
  const oidc = getPath(values, 'authentication.oidc');
  if (isObject(oidc)) oidc.keycloakInternalUrl = behaviour.keycloakInternalUrlDefault;
  return values;
}

export interface ValuesSources {
  /** `--values` files, in order. */
  files: { file: string; values: Record<string, unknown> }[];
  /** Every input object; a platform Package among them contributes its values. */
  objects: KObject[];
}

export interface ResolvedValues {
  /** The platform values as the chart sees them: the given ones coalesced over the defaults. */
  values: PlatformValues;
  /** Whether any platform values were given at all (the values channel exists). */
  given: boolean;
  /** The Package the values came from, if any. */
  pkg?: KObject;
}

/** Helm's merge of two sources of values (`-f a -f b`): maps merge key by key, anything else (null too) replaces. */
function mergeGiven(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const value = isObject(v) && isObject(out[k]) ? mergeGiven(out[k] as Record<string, unknown>, v) : clone(v);
    // defineProperty keeps a key such as `__proto__` a plain key (an assignment would set the prototype).
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The digest of the platform values a render reads (defaults, the Package's, the `--values` files and
 * `--set`, merged): sha256 of their JSON with every mapping's keys in order, so the same values
 * written in another order or over other files have one digest. A tree's record keeps it, and
 * `diff` compares it with the change's (docs/commands/diff.md "What it does").
 */
export function valuesDigest(src: ValuesSources, behaviour: Behaviour = MAIN_VERSION.behaviour): string {
  return hash('sha256', JSON.stringify(sortedKeys(resolvePlatformValues(src, behaviour).values)), 'hex');
}

function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys(v[k]);
  return out;
}

/**
 * Helm's coalesce of the given values over the chart's defaults (docs/decisions.md §17): a key the
 * defaults hold is deleted where the given value is null (the default is not put back), maps
 * coalesce key by key, a key the defaults lack is kept as given (null included).
 */
export function coalesceValues(given: Record<string, unknown>, defaults: Record<string, unknown>): PlatformValues {
  const out: Record<string, unknown> = { ...given };
  for (const [k, d] of Object.entries(defaults)) {
    if (!Object.prototype.hasOwnProperty.call(out, k)) out[k] = d;
    else if (out[k] === null) delete out[k];
    else if (isObject(out[k]) && isObject(d)) out[k] = coalesceValues(out[k] as Record<string, unknown>, d);
  }
  return out;
}

/** The given values (the Package's, then each `--values` file, later wins) coalesced over the version's defaults. */
export function resolvePlatformValues(
  src: ValuesSources,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): ResolvedValues {
  let given: Record<string, unknown> = {};
  let any = false;
  const pkg = findPlatformPackage(src.objects);
  if (pkg) {
    const pv = packageValues(pkg);
    if (isObject(pv)) given = mergeGiven(given, pv);
    any = true;
  }
  for (const f of src.files) {
    given = mergeGiven(given, f.values);
    any = true;
  }
  return { values: coalesceValues(given, platformDefaults(behaviour)), given: any, pkg };
}

/**
 * A value as sprig's `quote` prints it into `_cluster`: a scalar or a collection as Go's `%v` (a
 * number as the float64 it decodes to, `1000000` → `1e+06`: docs/decisions.md §16), read back as
 * a string; nothing for an absent or null value, which leaves the key null (docs/decisions.md §17).
 */
function quoted(v: unknown): string | null {
  return v === undefined || v === null ? null : goSprint(v);
}

/** Sprig's `default d v`: `d` when `v` is empty (absent, null, false, 0, "", an empty list or map). */
function orDefault(v: unknown, d: unknown): unknown {
  return truthy(v) ? v : d;
}

/** Sprig's `join ","`: a list's entries (null ones skipped) as Go prints them; a scalar is a list of one; none is "". */
function joined(v: unknown): string {
  if (v === undefined || v === null) return '';
  const entries = Array.isArray(v) ? v : [v];
  return entries
    .filter((e) => e !== null && e !== undefined)
    .map(goSprint)
    .join(',');
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
 * docs/versions.md §P1: `wildcard-secret-name` as given (v1.5), or derived with `wildcard-issue`
 * (v1.6 and main): the one named, else cozystack-wildcard-tls issued by the platform when the
 * dns01 solver asks for a wildcard and the gateway is off (each test is Go's truth, as the
 * template's `and` has it).
 */
function wildcardKeys(g: ValueAt, behaviour: Behaviour): ClusterMap {
  const named = goSprint(orDefault(g(`${CERTS}.wildcardSecretName`), ''));
  if (!behaviour.clusterKeysOfV1_6) return { 'wildcard-secret-name': named };
  const issue =
    named === '' && g(`${CERTS}.solver`) === 'dns01' && truthy(g(`${CERTS}.wildcard`)) && !truthy(g('gateway.enabled'));
  return { 'wildcard-secret-name': issue ? 'cozystack-wildcard-tls' : named, 'wildcard-issue': String(issue) };
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
function publishingIngressName(g: ValueAt, findings: Finding[]): string | null {
  const exposeIngress = quoted(g('publishing.ingressName'));
  if (exposeIngress !== null && exposeIngress !== '' && !isDns1123Label(exposeIngress))
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

/** Each provider block's keys and the default the template puts in place of an empty value, in template order. */
const DNS01_PROVIDER_KEYS: readonly (readonly [string, readonly (readonly [string, string, string])[]])[] = [
  [
    'cloudflare',
    [
      ['secret-name', 'secretName', 'cloudflare-api-token-secret'],
      ['secret-key', 'secretKey', 'api-token'],
    ],
  ],
  [
    'route53',
    [
      ['region', 'region', ''],
      ['access-key-id', 'accessKeyID', ''],
      ['secret-name', 'secretName', ''],
      ['secret-key', 'secretKey', 'secret-access-key'],
    ],
  ],
  [
    'digitalocean',
    [
      ['secret-name', 'secretName', 'digitalocean-api-token-secret'],
      ['secret-key', 'secretKey', 'access-token'],
    ],
  ],
  [
    'rfc2136',
    [
      ['nameserver', 'nameserver', ''],
      ['tsig-key-name', 'tsigKeyName', ''],
      ['tsig-algorithm', 'tsigAlgorithm', 'HMACSHA256'],
      ['secret-name', 'secretName', ''],
      ['secret-key', 'secretKey', 'tsig-secret-key'],
    ],
  ],
];

/**
 * The dns01-* keys of `_cluster`, written whatever the solver, each inside the template's `with`:
 * none when the dns01 block is empty or null, none of a provider's when its block is; each value
 * its default when empty (sprig's `default`, so `""` too), `dns01-provider` cloudflare.
 */
function dns01Keys(g: ValueAt): ClusterMap {
  const dns01 = g(`${CERTS}.dns01`);
  if (!truthy(dns01) || !isObject(dns01)) return {};
  const out: ClusterMap = { 'dns01-provider': goSprint(orDefault(dns01.provider, 'cloudflare')) };
  for (const [provider, keys] of DNS01_PROVIDER_KEYS) {
    const block = dns01[provider];
    if (!truthy(block) || !isObject(block)) continue;
    for (const [key, value, d] of keys) out[`dns01-${provider}-${key}`] = goSprint(orDefault(block[value], d));
  }
  return out;
}

/** The pack's gateway class keys (docs/versions.md §X1): `gateway-class-name`, `gateway-edge-classes`, `gateway-tenant-classes`. */
function classKeys(g: ValueAt, findings: Finding[], pkg?: KObject): ClusterMap {
  return {
    'gateway-class-name': gatewayClassName(g, findings, pkg),
    'gateway-edge-classes': classList(
      g('gateway.edgeTerminatedClasses'),
      'gateway.edgeTerminatedClasses',
      findings,
      pkg,
    ),
    'gateway-tenant-classes': classList(
      g('gateway.tenantSelectableClasses'),
      'gateway.tenantSelectableClasses',
      findings,
      pkg,
    ),
  };
}

/** The keys whose value the template copies whole (`toYaml`) when it is not empty (`with`). */
const COPIED = new Set(['branding', 'scheduling']);

/** A value the template copies whole when it is not empty: `branding`, `scheduling`. */
function copied(key: string, v: unknown): ClusterMap {
  return truthy(v) ? { [key]: clone(v) as ClusterValue } : {}; // a decoded YAML value: one of ClusterValue's
}

/**
 * The `_cluster` entries from `publishing.certificates` on, in template order. `monitoring-enabled`
 * (docs/versions.md §P1) is `monitoring.rootEnabled` as given, `true` only when the key is absent
 * (`dig`): an explicit false stays "false".
 */
function laterKeys(g: ValueAt, behaviour: Behaviour, findings: Finding[], pkg?: KObject): ClusterMap {
  const v16 = behaviour.clusterKeysOfV1_6;
  const monitoring = orDefault(g('monitoring'), {});
  const rootEnabled = isObject(monitoring) && 'rootEnabled' in monitoring ? monitoring.rootEnabled : true;
  return {
    ...wildcardKeys(g, behaviour),
    ...dns01Keys(g),
    'oidc-enabled': quoted(g('authentication.oidc.enabled')),
    'oidc-insecure-skip-verify': quoted(g('authentication.oidc.insecureSkipVerify')),
    'extra-keycloak-redirect-uri-for-dashboard': quoted(g('authentication.oidc.keycloakExtraRedirectUri')),
    'keycloak-internal-url': quoted(g('authentication.oidc.keycloakInternalUrl')),
    'expose-services': joined(g('publishing.exposedServices')),
    'expose-ingress': publishingIngressName(g, findings),
    ...(v16 ? { 'expose-ingress-admin': goSprint(orDefault(g('publishing.ingressNameAdmin'), '')) } : {}),
    'expose-external-ips': joined(g('publishing.externalIPs')),
    ...(v16 ? { 'load-balancer-class': goSprint(orDefault(g('publishing.loadBalancerClass'), '')) } : {}),
    'proxy-protocol': goSprint(orDefault(g('publishing.proxyProtocol'), false)),
    'gateway-enabled': goSprint(orDefault(g('gateway.enabled'), false)),
    'gateway-attached-namespaces': joined(orDefault(g('gateway.attachedNamespaces'), [])),
    ...(behaviour.gatewayClasses ? classKeys(g, findings, pkg) : {}),
    ...(v16 ? { 'monitoring-enabled': quoted(rootEnabled) } : {}),
    'cluster-domain': quoted(g('networking.clusterDomain')),
    'api-server-endpoint': quoted(g('publishing.apiServerEndpoint')),
    ...copied('branding', g('branding')),
    'cpu-allocation-ratio': quoted(g('resources.cpuAllocationRatio')),
    'memory-allocation-ratio': quoted(g('resources.memoryAllocationRatio')),
    'ephemeral-storage-allocation-ratio': quoted(g('resources.ephemeralStorageAllocationRatio')),
    ...copied('scheduling', g('scheduling')),
  };
}

/**
 * The maps the platform chart reads a field of, and the first field it reads (its apps.yaml and
 * scheduling.yaml templates): one that is null (docs/decisions.md §17) or not a map fails the
 * platform release upstream ("nil pointer evaluating interface {}.<field>").
 */
const DEREFERENCED: readonly (readonly [string, string, string])[] = [
  ['bundles', 'system', 'apps.yaml'],
  ['bundles.system', 'variant', 'apps.yaml'],
  ['publishing', 'host', 'apps.yaml'],
  ['publishing.certificates', 'solver', 'apps.yaml'],
  ['authentication', 'oidc', 'apps.yaml'],
  ['authentication.oidc', 'enabled', 'apps.yaml'],
  ['gateway', 'enabled', 'apps.yaml'],
  ['networking', 'clusterDomain', 'apps.yaml'],
  ['resources', 'cpuAllocationRatio', 'apps.yaml'],
  ['scheduling', 'globalAppTopologySpreadConstraints', 'scheduling.yaml'],
];

/** docs/decisions.md §17: every map the platform chart reads into that a null (or a non-map) took away. */
function dereferenceFindings(values: PlatformValues, pkg?: KObject): Finding[] {
  const out: Finding[] = [];
  for (const [path, field, template] of DEREFERENCED) {
    const parent = path.includes('.') ? getPath(values, path.slice(0, path.lastIndexOf('.'))) : values;
    if (!isObject(parent)) continue; // its own parent is reported
    const v = parent[path.slice(path.lastIndexOf('.') + 1)];
    if (isObject(v)) continue;
    const what =
      v === undefined
        ? "null (Helm deletes the key and does not restore the chart's default)"
        : `${goSprint(v)}, not a map`;
    out.push(
      error(
        `${path} is ${what}: the platform chart's templates/${template} reads .Values.${path}.${field} and fails there (nil pointer evaluating interface {}.${field}), so upstream the whole platform release fails to render`,
        {
          field: path,
          rule: 'platform.null-value',
          object: pkg && refOf(pkg),
          hint: `remove ${path} from the values to keep the chart's defaults, or set the values under it`,
        },
      ),
    );
  }
  return out;
}

/**
 * The `_cluster` map of docs/behaviour.md §1 as the version's `apps.yaml` writes it, in
 * template order (docs/versions.md §P1, §X1). Findings (errors) for values the platform chart
 * refuses: a map it reads into that is null or not a map (docs/decisions.md §17), a non-string or
 * whitespace-only gateway.className, class list entries that are not strings or contain a comma,
 * a publishing.ingressName that is not a namespace name.
 */
export function clusterValues(
  values: PlatformValues,
  pkg?: KObject,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): { cluster: ClusterMap; findings: Finding[] } {
  const findings: Finding[] = dereferenceFindings(values, pkg);
  const g: ValueAt = (p) => getPath(values, p);
  const cluster: ClusterMap = {
    'root-host': quoted(g('publishing.host')),
    'bundle-name': quoted(g('bundles.system.variant')),
    solver: quoted(g(`${CERTS}.solver`)),
    'issuer-name': quoted(g(`${CERTS}.issuerName`)),
    ...laterKeys(g, behaviour, findings, pkg),
  };
  return { cluster, findings };
}

/**
 * The platform's own Secret `cozy-system/cozystack-values` as `apps.yaml` writes it:
 * `_cluster` in template order, every string quoted (Go's `%q`), a null as nothing, a copied map
 * as Helm's toYaml (docs/behaviour.md §1). Modelled, never emitted: render leaves the values
 * channel to the values given (docs/decisions.md §7).
 */
export function platformValuesSecret(cluster: ClusterMap): KObject {
  const lines = ['_cluster:'];
  for (const [k, v] of Object.entries(cluster)) {
    if (v === null) lines.push(`  ${k}: `);
    else if (!COPIED.has(k)) lines.push(`  ${k}: ${goQuote(String(v))}`);
    else {
      lines.push(`  ${k}:`);
      for (const l of helmToYaml(v).replace(/\n$/, '').split('\n')) lines.push(`    ${l}`);
    }
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'cozystack-values',
      namespace: 'cozy-system',
      labels: { 'reconcile.fluxcd.io/watch': 'Enabled' },
    },
    type: 'Opaque',
    stringData: { 'values.yaml': `${lines.join('\n')}\n` },
  };
}

/** The split, trimmed, non-empty entries of a comma-joined `_cluster` list (none when it is not a string). */
export function splitList(v: unknown): string[] {
  return (typeof v === 'string' ? v : '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
