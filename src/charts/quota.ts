/**
 * `quota.yaml` of the apps/tenant chart (docs/tenant.md §2.3) and the cozy-lib helper it calls,
 * `resources.flatten` (§2.0.6): ResourceQuota `tenant-quota` (its `spec.hard` the flattened map)
 * and the fixed LimitRange `tenant-range-limits` (templates/tenant/limitrange.yaml), both in T,
 * when `resourceQuotas` is non-empty. The arithmetic is sprig's decimal `mulf`/`divf` and the
 * printing Go's `%v` (src/k8s/goDecimal.ts): JavaScript's would differ. The suffix table is the
 * version's cozy-lib's (docs/versions.md §L1). Pure.
 */
import { castToFloat64, divf, goFormatFloat, GoNumberError, goTruncToInt, goValueString, mulf } from '../k8s/goDecimal';
import { clone, isObject, type KObject } from '../k8s/model';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

/** The three allocation ratios: the `_cluster` key each is read from, and its default when the key is absent. */
export const RATIOS = {
  cpu: { key: 'cpu-allocation-ratio', value: 'resources.cpuAllocationRatio', default: 10 },
  memory: { key: 'memory-allocation-ratio', value: 'resources.memoryAllocationRatio', default: 1 },
  'ephemeral-storage': {
    key: 'ephemeral-storage-allocation-ratio',
    value: 'resources.ephemeralStorageAllocationRatio',
    default: 40,
  },
} as const;

type RatioResource = keyof typeof RATIOS;

/**
 * The quantity suffixes of cozy-lib's `_resources.tpl` and their factors. The releases' table
 * lacks `n` and `u` (docs/versions.md §L1): such a value matches no suffix, and its float parse
 * fails, so it reads as 0.
 */
const SUFFIXES: [string, number][] = (
  [
    ['Ki', 2 ** 10],
    ['Mi', 2 ** 20],
    ['Gi', 2 ** 30],
    ['Ti', 2 ** 40],
    ['Pi', 2 ** 50],
    ['Ei', 2 ** 60],
    ['n', 1e-9],
    ['u', 1e-6],
    ['m', 1e-3],
    ['k', 1e3],
    ['M', 1e6],
    ['G', 1e9],
    ['T', 1e12],
    ['P', 1e15],
    ['E', 1e18],
  ] as [string, number][]
)
  // The helper tries them all in byte order; the last match wins.
  .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/** The releases' table: without `n` and `u` (docs/versions.md §L1). */
const SUFFIXES_WITHOUT_NANO_MICRO = SUFFIXES.filter(([suffix]) => suffix !== 'n' && suffix !== 'u');

/** The suffix table of the version's cozy-lib (docs/versions.md §L1). */
function suffixesOf(behaviour: Behaviour): [string, number][] {
  return behaviour.quantitySuffixesNanoMicro ? SUFFIXES : SUFFIXES_WITHOUT_NANO_MICRO;
}

/** The keys that are quota names as they are (docs/tenant.md §2.0.6 RAW). */
const RAW = new Set([
  'pods',
  'services',
  'services.loadbalancers',
  'services.nodeports',
  'services.clusterip',
  'configmaps',
  'secrets',
  'persistentvolumeclaims',
  'replicationcontrollers',
  'resourcequotas',
]);

/** A failure of the helper: the message and, for a ratio, the `_cluster` key it is about. */
export class QuotaError extends Error {
  constructor(
    message: string,
    readonly clusterKey?: string,
  ) {
    super(message);
    this.name = 'QuotaError';
  }
}

/**
 * Q(v), the quantity as a number: a string loses its suffix (the last that matches, in byte
 * order, among the version's: docs/versions.md §L1) and is multiplied by its factor (sprig
 * `mulf`); the rest is read as Go's ParseFloat does (anything unparsable reads as 0, silently).
 * A number is itself.
 */
export function quantityValue(v: unknown, behaviour: Behaviour = MAIN_VERSION.behaviour): number {
  if (typeof v === 'number') return v;
  const s = String(v);
  let factor = 1;
  let rest = s;
  for (const [suffix, f] of suffixesOf(behaviour)) {
    if (s.endsWith(suffix)) {
      factor = f;
      rest = s.slice(0, -suffix.length);
    }
  }
  return mulf(castToFloat64(rest), factor);
}

/**
 * A ratio as the helper reads it: the `_cluster` value as a float (a string parsed, unparsable as
 * 0), the default only when absent. A null one (docs/decisions.md §17: the platform value was null)
 * is what `dig` finds and prints as `<no value>`, which reads as 0 (docs/tenant.md §2.0.6).
 */
export function allocationRatio(cluster: Record<string, unknown> | undefined, resource: RatioResource): number {
  const { key, default: d } = RATIOS[resource];
  const v = cluster?.[key];
  if (v === undefined) return d;
  if (v === null) return 0;
  if (typeof v === 'number') return v;
  return castToFloat64(String(v));
}

function divide(q: number, resource: RatioResource, cluster: Record<string, unknown> | undefined): number {
  const ratio = allocationRatio(cluster, resource);
  try {
    return divf(q, ratio);
  } catch (e) {
    if (!(e instanceof GoNumberError)) throw e;
    const { key, value } = RATIOS[resource];
    const shown = cluster?.[key] === undefined ? `${ratio}` : JSON.stringify(cluster[key]);
    throw new QuotaError(
      ratio === 0 || Number.isNaN(ratio)
        ? `_cluster.${key} is ${shown}, which reads as 0: the ${resource} request is the limit divided by it (decimal division by zero, which fails the tenant release upstream); ${value} must be a non-zero number${cluster?.[key] === null ? ` (set to null it is deleted and its default is not restored, as Helm does)` : ''}`
        : `the ${resource} request cannot be computed (${e.message}); _cluster.${key} is ${shown}`,
      key,
    );
  }
}

/**
 * docs/tenant.md §2.0.6 `resources.flatten`: the `spec.hard` map of the tenant's ResourceQuota, keys in byte
 * order. Throws QuotaError for nested `limits:`/`requests:` sections and for a ratio of 0.
 */
export function flattenResources(
  m: Record<string, unknown>,
  cluster?: Record<string, unknown>,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): Record<string, unknown> {
  if ('limits' in m || 'requests' in m)
    throw new QuotaError(
      'resourceQuotas must be a flat map of resources (cpu: 4, memory: 4Gi, ...), not nested requests: and limits: sections',
    );
  // Step 1, sanitize: the limit and the request of each resource.
  const lim = new Map<string, unknown>();
  const req = new Map<string, unknown>();
  for (const [k, v] of Object.entries(m)) {
    if (k === 'cpu') {
      lim.set(k, goValueString(v));
      req.set(k, goFormatFloat(divide(quantityValue(v, behaviour), 'cpu', cluster)));
    } else if (k === 'memory' || k === 'ephemeral-storage') {
      lim.set(k, goValueString(v));
      req.set(k, goTruncToInt(divide(quantityValue(v, behaviour), k, cluster)).toString());
    } else {
      lim.set(k, v);
      req.set(k, v);
    }
  }
  // Step 2, flatten.
  const out: [string, unknown][] = [];
  for (const [k, v] of lim) {
    if (k === 'storage') continue;
    out.push([RAW.has(k) ? k : `limits.${k}`, v]);
  }
  for (const [k, v] of req) if (!RAW.has(k)) out.push([`requests.${k}`, v]);
  out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const hard: Record<string, unknown> = {};
  for (const [k, v] of out) hard[k] = v;
  return hard;
}

/**
 * docs/tenant.md §2.3: ResourceQuota and LimitRange in T when `resourceQuotas` is a non-empty map, else nothing.
 * Throws QuotaError (the caller names the Tenant).
 */
export function renderQuota(
  T: string,
  resourceQuotas: unknown,
  cluster: Record<string, unknown> | undefined,
  limitRange: KObject,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): KObject[] {
  if (!isObject(resourceQuotas) || Object.keys(resourceQuotas).length === 0) return [];
  const hard = flattenResources(resourceQuotas, cluster, behaviour);
  const range = clone(limitRange);
  range.metadata.namespace = T;
  return [
    { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'tenant-quota', namespace: T }, spec: { hard } },
    range,
  ];
}
