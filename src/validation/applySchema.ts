/**
 * What server-side apply reads of a kind's schema (docs/commands/diff.md "A live snapshot is
 * compared as it will be applied"), in the OpenAPI words the API server reads them:
 *
 * - `x-kubernetes-list-type`: how a list merges. `atomic` (the default of every list that says
 *   nothing, built-in or CRD) is replaced whole by the list the applier gives; `map` merges its
 *   elements by their `x-kubernetes-list-map-keys`; `set` by their value.
 * - `x-kubernetes-map-type: atomic` (`+structType=atomic` in the Kubernetes API): a map replaced
 *   whole, such as a label selector; every other map merges member by member (granular).
 * - `default`: what the API server writes into an object where a field is absent (a CRD's
 *   schema defaults; the built-in kinds' defaulting is serverDefaults.ts).
 *
 * The sources: the CRDs cozy-gw vendors (schemas/tenantgateway.crd.yaml; Flux's HelmRelease and
 * Keycloak's realm group, whose rule trees src/validation/upstreamValidators.*.generated.ts
 * carry), and for the built-in kinds and the Gateway API (whose vendored validators keep no list
 * types) the markers of their API types, written below for the kinds render, the controller and
 * a change write. Every list not named here is atomic, as the API server has it. Each kind's
 * schema is built once. Pure.
 */
import { groupOf, isObject } from '../k8s/model';
import { tenantGatewaySchema } from './tenantGatewayCrd';
import { FAMILIES, KINDS } from './upstreamValidators.generated';

export type ApplySchema = Readonly<Record<string, unknown>>;

const EMPTY: ApplySchema = Object.freeze({});

const SET: ApplySchema = { 'x-kubernetes-list-type': 'set' };
const ATOMIC_MAP: ApplySchema = { 'x-kubernetes-map-type': 'atomic' };
const fields = (properties: Record<string, ApplySchema>, extra: Record<string, unknown> = {}): ApplySchema => ({
  properties,
  ...extra,
});
const mapList = (keys: string[], items: ApplySchema = EMPTY): ApplySchema => ({
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': keys,
  items,
});
const listOf = (items: ApplySchema, extra: Record<string, unknown> = {}): ApplySchema => ({ items, ...extra });

/** ObjectMeta, on every kind: finalizers a set, ownerReferences a map by uid, labels and annotations granular. */
const METADATA = fields({ finalizers: SET, ownerReferences: mapList(['uid']) });

/** A container of a pod template (a Job of the chart's hooks). */
const CONTAINER = fields({
  env: mapList(['name']),
  ports: mapList(['containerPort', 'protocol'], fields({ protocol: { default: 'TCP' } })),
  volumeMounts: mapList(['mountPath']),
  volumeDevices: mapList(['devicePath']),
});
const POD_SPEC = fields({
  containers: mapList(['name'], CONTAINER),
  initContainers: mapList(['name'], CONTAINER),
  ephemeralContainers: mapList(['name'], CONTAINER),
  volumes: mapList(['name']),
  imagePullSecrets: mapList(['name']),
  topologySpreadConstraints: mapList(['topologyKey', 'whenUnsatisfiable']),
});

/** A reference to a Gateway from a route, with the CRD's defaults. */
const PARENT_REFS = listOf(fields({ group: { default: 'gateway.networking.k8s.io' }, kind: { default: 'Gateway' } }));
const BACKEND_REFS = listOf(fields({ group: { default: '' }, kind: { default: 'Service' }, weight: { default: 1 } }));
const EXACT = fields({ type: { default: 'Exact' } });
const ROOT_PATH = { type: 'PathPrefix', value: '/' };
const HTTP_MATCH = fields({
  path: fields({ type: { default: 'PathPrefix' }, value: { default: '/' } }, { default: ROOT_PATH }),
  headers: mapList(['name'], EXACT),
  queryParams: mapList(['name'], EXACT),
});

/** The Gateway API kinds (every served version alike), by kind. */
const GATEWAY_API: Record<string, ApplySchema> = {
  Gateway: fields({
    spec: fields({
      addresses: listOf(fields({ type: { default: 'IPAddress' } })),
      listeners: mapList(
        ['name'],
        fields({
          allowedRoutes: fields(
            {
              namespaces: fields({ from: { default: 'Same' }, selector: ATOMIC_MAP }, { default: { from: 'Same' } }),
              kinds: listOf(fields({ group: { default: 'gateway.networking.k8s.io' } })),
            },
            { default: { namespaces: { from: 'Same' } } },
          ),
          tls: fields({
            mode: { default: 'Terminate' },
            certificateRefs: listOf(fields({ group: { default: '' }, kind: { default: 'Secret' } })),
          }),
        }),
      ),
    }),
  }),
  HTTPRoute: fields({
    spec: fields({
      parentRefs: PARENT_REFS,
      rules: listOf(
        fields({ matches: listOf(HTTP_MATCH, { default: [{ path: ROOT_PATH }] }), backendRefs: BACKEND_REFS }, {}),
        { default: [{ matches: [{ path: ROOT_PATH }] }] },
      ),
    }),
  }),
  GRPCRoute: fields({
    spec: fields({
      parentRefs: PARENT_REFS,
      rules: listOf(
        fields({
          matches: listOf(fields({ method: EXACT, headers: mapList(['name'], EXACT) })),
          backendRefs: BACKEND_REFS,
        }),
      ),
    }),
  }),
  TLSRoute: fields({ spec: fields({ parentRefs: PARENT_REFS, rules: listOf(fields({ backendRefs: BACKEND_REFS })) }) }),
};

/** The built-in kinds whose schema says more than "atomic lists, granular maps", by `group/kind`. */
const BUILT_IN: Record<string, ApplySchema> = {
  '/Service': fields({
    spec: fields({
      ports: mapList(['port', 'protocol'], fields({ protocol: { default: 'TCP' } })),
      selector: ATOMIC_MAP,
    }),
  }),
  '/ServiceAccount': fields({ secrets: mapList(['name']) }),
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': fields({
    spec: fields({ matchConstraints: ATOMIC_MAP, paramKind: ATOMIC_MAP, matchConditions: mapList(['name']) }),
  }),
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': fields({
    spec: fields({ matchResources: ATOMIC_MAP, paramRef: ATOMIC_MAP, validationActions: SET }),
  }),
  'networking.k8s.io/NetworkPolicy': fields({ spec: fields({ podSelector: ATOMIC_MAP }) }),
  'batch/Job': fields({ spec: fields({ selector: ATOMIC_MAP, template: fields({ spec: POD_SPEC }) }) }),
};

/** A vendored CRD's schema of this version: the TenantGateway's, or a rule tree of the vendored families. */
function crdSchema(apiVersion: string, kind: string): ApplySchema | undefined {
  if (kind === 'TenantGateway' && groupOf(apiVersion) === 'gateway.cozystack.io') return tenantGatewaySchema();
  const entry = KINDS[`${apiVersion}/${kind}`];
  if (!entry || !entry[1].startsWith('crd/')) return undefined;
  return FAMILIES[entry[0]]().RULES[entry[1]];
}

const memo = new Map<string, ApplySchema>();

/**
 * The schema server-side apply reads for a kind, metadata included and status left out; an empty one
 * (every list atomic) for a kind not known.
 */
export function applySchemaOf(apiVersion: string, kind: string): ApplySchema {
  const id = `${apiVersion}/${kind}`;
  let s = memo.get(id);
  if (!s) {
    const group = groupOf(apiVersion);
    const own =
      crdSchema(apiVersion, kind) ??
      (group === 'gateway.networking.k8s.io' ? GATEWAY_API[kind] : BUILT_IN[`${group}/${kind}`]) ??
      EMPTY;
    // The status is a subresource's: an apply of the object itself never writes it.
    const { status: _status, ...properties } = isObject(own.properties) ? own.properties : {};
    s = { ...own, properties: { ...properties, metadata: METADATA } };
    memo.set(id, s);
  }
  return s;
}

/** The schema of a map's member `key`: a named property, else the schema of every value. */
export function memberSchema(s: ApplySchema | undefined, key: string): ApplySchema {
  if (!s) return EMPTY;
  const p = s.properties;
  if (isObject(p) && Object.prototype.hasOwnProperty.call(p, key) && isObject(p[key])) return p[key];
  return isObject(s.additionalProperties) ? s.additionalProperties : EMPTY;
}

/** The schema of a list's elements. */
export function itemSchema(s: ApplySchema | undefined): ApplySchema {
  return s && isObject(s.items) ? s.items : EMPTY;
}

/** How a list merges, with the key fields of a `map` list. */
export function listTypeOf(
  s: ApplySchema | undefined,
): { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: string[] } {
  const t = s?.['x-kubernetes-list-type'];
  if (t === 'set') return { type: 'set' };
  const keys = s?.['x-kubernetes-list-map-keys'];
  if (t === 'map' && Array.isArray(keys) && keys.length && keys.every((k) => typeof k === 'string'))
    return { type: 'map', keys: keys as string[] };
  return { type: 'atomic' };
}

/** Whether a map is replaced whole (`x-kubernetes-map-type: atomic`). */
export function isAtomicMap(s: ApplySchema | undefined): boolean {
  return s?.['x-kubernetes-map-type'] === 'atomic';
}
