/**
 * Server-side apply as the API server does it, written for the tests and apart from the
 * production code (src/diff/serverSideApply.ts) so that each checks the other (docs/commands/diff.md
 * "A live snapshot is compared as it will be applied"):
 *
 * - SCHEMAS: how the lists and maps of the kinds the tests apply merge, from the Kubernetes API's
 *   markers (`+listType`, `+listMapKey`, `+structType=atomic`): a list not named is atomic.
 * - fieldsV1(): the managedFields entry of an applied manifest (`f:`, `k:`, `v:`, `.`), as the API
 *   server records it; used to dress live objects (apiServer.ts) and to write drift.
 * - serverDefaults(): the API server's defaulting of the kinds the platform writes.
 * - modelApply(): the object an apply by Flux (kustomize-controller, taking the kubectl managers'
 *   fields over) leaves, computed on flattened field paths rather than by walking both objects.
 */
import type { KObject } from '../../src/k8s/model';
import { applyTenantGatewayDefaults } from '../../src/validation/tenantGatewayCrd';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const copy = <T>(x: T): T => (x === undefined ? x : (JSON.parse(JSON.stringify(x)) as T));

/** A node of a test schema: `map` lists by keys, `set` lists, atomic maps; members by name. */
export interface Node {
  list?: 'map' | 'set';
  keys?: string[];
  keyDefaults?: Obj;
  atomic?: boolean;
  fields?: Record<string, Node>;
  items?: Node;
}

const F = (fields: Record<string, Node>): Node => ({ fields });
const MAP = (keys: string[], items?: Node, keyDefaults?: Obj): Node => ({ list: 'map', keys, items, keyDefaults });
const SET: Node = { list: 'set' };
const ATOMIC: Node = { atomic: true };

const META = F({ finalizers: SET, ownerReferences: MAP(['uid']) });

/** Per kind (group/kind), the kinds the tests apply. */
export const SCHEMAS: Record<string, Node> = {
  '/Service': F({ spec: F({ ports: MAP(['port', 'protocol'], undefined, { protocol: 'TCP' }), selector: ATOMIC }) }),
  '/ServiceAccount': F({ secrets: MAP(['name']) }),
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': F({
    spec: F({ matchConstraints: ATOMIC, paramKind: ATOMIC, matchConditions: MAP(['name']) }),
  }),
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': F({
    spec: F({ matchResources: ATOMIC, paramRef: ATOMIC, validationActions: SET }),
  }),
  'networking.k8s.io/NetworkPolicy': F({ spec: F({ podSelector: ATOMIC }) }),
};

export function schemaOf(o: { apiVersion: string; kind: string }): Node {
  const group = o.apiVersion.includes('/') ? o.apiVersion.slice(0, o.apiVersion.indexOf('/')) : '';
  const own = SCHEMAS[`${group}/${o.kind}`] ?? {};
  return { ...own, fields: { ...(own.fields ?? {}), metadata: META } };
}

const sub = (n: Node | undefined, k: string): Node | undefined => n?.fields?.[k];

/** A map list element's key JSON, keys sorted, with the keys' defaults. */
function keyJson(x: Obj, n: Node): string {
  const k: Obj = {};
  for (const f of [...n.keys!].sort()) k[f] = x[f] ?? n.keyDefaults?.[f];
  return JSON.stringify(k);
}

/** The FieldsV1 an apply of `v` records (FieldsV1 of a manifest). */
export function fieldsV1(v: unknown, n: Node | undefined): Obj {
  const out: Obj = {};
  if (!isObj(v) || n?.atomic) return out;
  for (const [k, x] of Object.entries(v)) {
    const c = sub(n, k);
    if (Array.isArray(x) && c?.list === 'map')
      out[`f:${k}`] = Object.fromEntries(
        x.map((e) => [`k:${keyJson(e as Obj, c)}`, { '.': {}, ...fieldsV1(e, c.items) }]),
      );
    else if (Array.isArray(x) && c?.list === 'set')
      out[`f:${k}`] = Object.fromEntries(x.map((e) => [`v:${JSON.stringify(e)}`, {}]));
    else out[`f:${k}`] = isObj(x) && !c?.atomic ? fieldsV1(x, c) : {};
  }
  return out;
}

/** What a client sends of an object: no server fields, no status, no identity. */
export function manifestBody(o: KObject): Obj {
  const { apiVersion: _a, kind: _k, status: _s, metadata, ...rest } = o as KObject & Obj;
  const {
    name: _n,
    namespace: _ns,
    uid: _u,
    resourceVersion: _rv,
    generation: _g,
    creationTimestamp: _c,
    managedFields: _mf,
    ...meta
  } = metadata;
  return { ...rest, metadata: meta };
}

const objs = (x: unknown): Obj[] => (Array.isArray(x) ? (x.filter(isObj) as Obj[]) : []);

function routeDefaults(kind: string, spec: Obj): void {
  for (const p of objs(spec.parentRefs)) {
    p.group ??= 'gateway.networking.k8s.io';
    p.kind ??= 'Gateway';
  }
  if (kind === 'HTTPRoute') spec.rules ??= [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }] }];
  for (const r of objs(spec.rules)) {
    for (const b of objs(r.backendRefs)) {
      b.group ??= '';
      b.kind ??= 'Service';
      b.weight ??= 1;
    }
    if (kind !== 'HTTPRoute') continue;
    r.matches ??= [{ path: { type: 'PathPrefix', value: '/' } }];
    for (const m of objs(r.matches)) {
      const path = (m.path ??= { type: 'PathPrefix', value: '/' }) as Obj;
      path.type ??= 'PathPrefix';
      path.value ??= '/';
      for (const h of [...objs(m.headers), ...objs(m.queryParams)]) h.type ??= 'Exact';
    }
  }
}

function gatewayDefaults(spec: Obj): void {
  for (const l of objs(spec.listeners)) {
    const routes = (l.allowedRoutes ??= { namespaces: { from: 'Same' } }) as Obj;
    const ns = (routes.namespaces ??= { from: 'Same' }) as Obj;
    ns.from ??= 'Same';
    if (isObj(l.tls)) {
      l.tls.mode ??= 'Terminate';
      for (const c of objs(l.tls.certificateRefs)) {
        c.group ??= '';
        c.kind ??= 'Secret';
      }
    }
  }
}

function matchDefaults(m: unknown): void {
  if (!isObj(m)) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of [...objs(m.resourceRules), ...objs(m.excludeResourceRules)]) r.scope ??= '*';
}

/** The API server's defaulting of an object it stores (a copy): what it writes where a field is absent. */
export function serverDefaults(o: KObject): KObject {
  const x = copy(o) as KObject & Obj;
  const spec = isObj(x.spec) ? x.spec : undefined;
  switch (x.kind) {
    case 'Namespace':
      x.metadata.labels = { ...(x.metadata.labels ?? {}), 'kubernetes.io/metadata.name': x.metadata.name };
      break;
    case 'Secret':
      x.type ??= 'Opaque';
      break;
    case 'Service':
      if (spec) {
        spec.sessionAffinity ??= 'None';
        spec.type ??= 'ClusterIP';
        for (const p of objs(spec.ports)) {
          p.protocol ??= 'TCP';
          p.targetPort ??= p.port;
        }
      }
      break;
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      for (const s of objs(x.subjects))
        if (s.kind === 'User' || s.kind === 'Group') s.apiGroup ??= 'rbac.authorization.k8s.io';
      break;
    case 'ValidatingAdmissionPolicy':
      if (spec) {
        spec.failurePolicy ??= 'Fail';
        matchDefaults(spec.matchConstraints);
      }
      break;
    case 'ValidatingAdmissionPolicyBinding':
      if (spec) matchDefaults(spec.matchResources);
      break;
    case 'NetworkPolicy':
      if (spec) {
        spec.policyTypes ??= objs(spec.egress).length ? ['Ingress', 'Egress'] : ['Ingress'];
        for (const r of [...objs(spec.ingress), ...objs(spec.egress)])
          for (const p of objs(r.ports)) p.protocol ??= 'TCP';
      }
      break;
    case 'LimitRange':
      for (const l of objs(spec?.limits)) {
        if (l.type !== 'Container') continue;
        const d = { ...((l.default as Obj | undefined) ?? {}) };
        const r = { ...((l.defaultRequest as Obj | undefined) ?? {}) };
        for (const [k, v] of Object.entries((l.max as Obj | undefined) ?? {})) d[k] ??= v;
        for (const [k, v] of Object.entries(d)) r[k] ??= v;
        for (const [k, v] of Object.entries((l.min as Obj | undefined) ?? {})) r[k] ??= v;
        if (Object.keys(d).length || l.default !== undefined) l.default = d;
        if (Object.keys(r).length || l.defaultRequest !== undefined) l.defaultRequest = r;
      }
      break;
    case 'TenantGateway':
      return applyTenantGatewayDefaults(x);
    case 'HTTPRoute':
    case 'GRPCRoute':
    case 'TLSRoute':
      if (spec) routeDefaults(x.kind, spec);
      break;
    case 'Gateway':
      if (spec) gatewayDefaults(spec);
      break;
  }
  return x;
}

// ---- the model: flattened paths -------------------------------------------------------------

/** A path segment: a map member `."name"` (JSON), a map list element `[k=...]`, a set element `{v=...}`. */
const member = (at: string, k: string) => `${at}.${JSON.stringify(k)}`;
type Leaf = { path: string; value: unknown; granular?: boolean };

/**
 * Whether a leaf is an empty map or list that merges member by member (not atomic): given, it
 * sets the container without replacing what others set in it.
 */
function emptyGranular(leaf: Leaf, n: Node | undefined): boolean {
  const v = leaf.value;
  if (n?.atomic) return false;
  if (isObj(v)) return !Object.keys(v).length;
  return Array.isArray(v) && !v.length && (n?.list === 'map' || n?.list === 'set');
}

/** Every leaf of a value under its schema (a scalar, an atomic list or map, an empty map or list). */
function flatten(v: unknown, n: Node | undefined, at: string, out: Leaf[]): void {
  if (isObj(v) && !n?.atomic && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v)) flatten(x, sub(n, k), member(at, k), out);
  } else if (Array.isArray(v) && v.length && n?.list === 'map') {
    for (const e of v) flatten(e, n.items, `${at}[k=${keyJson(e as Obj, n)}]`, out);
  } else if (Array.isArray(v) && v.length && n?.list === 'set') {
    for (const e of v) out.push({ path: `${at}{v=${JSON.stringify(e)}}`, value: e });
  } else out.push({ path: at, value: v, granular: emptyGranular({ path: at, value: v }, n) });
}

/** The paths a FieldsV1 tree owns: whole subtrees (leaves) and list elements themselves (`.`). */
function owned(f: unknown, at: string, whole: Set<string>, elements: Set<string>): void {
  if (!isObj(f)) return;
  const entries = Object.entries(f);
  if (!entries.length) whole.add(at);
  for (const [k, c] of entries) {
    if (k === '.') elements.add(at);
    else if (k.startsWith('f:')) owned(c, member(at, k.slice(2)), whole, elements);
    else if (k.startsWith('k:')) {
      const keys = JSON.parse(k.slice(2)) as Obj;
      const sorted = Object.fromEntries(
        Object.keys(keys)
          .sort()
          .map((x) => [x, keys[x]]),
      );
      owned(c, `${at}[k=${JSON.stringify(sorted)}]`, whole, elements);
    } else if (k.startsWith('v:')) owned(c, `${at}{v=${k.slice(2)}}`, whole, elements);
  }
}

const under = (path: string, prefix: string) =>
  path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`) || path.startsWith(`${prefix}{`);

/** The list element paths a leaf path passes through (brackets inside JSON strings skipped). */
function elementsOf(path: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if ((c === ']' || c === '}') && --depth === 0) out.push(path.slice(0, i + 1));
  }
  return out;
}

/** Rebuild a value from its leaves, maps and lists as their paths say, list elements in the order given. */
function build(leaves: Leaf[], rank: Map<string, number>): unknown {
  const root: Obj = {};
  for (const { path, value } of leaves) {
    const segs =
      path.match(/\."(?:[^"\\]|\\.)*"|\[k=(?:[^\]"]|"(?:[^"\\]|\\.)*")*\]|\{v=(?:[^}"]|"(?:[^"\\]|\\.)*")*\}/g) ?? [];
    let node: Obj = root;
    segs.forEach((seg, i) => {
      const last = i === segs.length - 1;
      const name = seg.startsWith('.') ? (JSON.parse(seg.slice(1)) as string) : seg;
      const empty = (x: unknown) => (isObj(x) && !Object.keys(x).length) || (Array.isArray(x) && !x.length);
      if (last) {
        // An empty container given where members stay is the members, not an empty one.
        if (!(empty(value) && isObj(node[name]) && Object.keys(node[name] as Obj).length)) node[name] = copy(value);
      } else {
        if (!isObj(node[name])) node[name] = {};
        node = node[name] as Obj;
      }
    });
  }
  const fix = (v: unknown, at: string): unknown => {
    if (!isObj(v)) return v;
    const keys = Object.keys(v);
    const r = (k: string) => rank.get(`${at}${k}`) ?? Number.MAX_SAFE_INTEGER;
    if (keys.length && keys.every((k) => k.startsWith('[k=') || k.startsWith('{v=')))
      return keys.sort((a, b) => r(a) - r(b)).map((k) => fix(v[k], `${at}${k}`));
    return Object.fromEntries(keys.map((k) => [k, fix(v[k], `${at}.${JSON.stringify(k)}`)]));
  };
  return fix(root, '');
}

/** The list element paths of some leaves, each list's in the order first met. */
function elementOrder(leaves: Leaf[]): Map<string, string[]> {
  const lists = new Map<string, string[]>();
  for (const leaf of leaves)
    for (const el of elementsOf(leaf.path)) {
      const parent = el.slice(0, Math.max(el.lastIndexOf('[k='), el.lastIndexOf('{v=')));
      const xs = lists.get(parent) ?? [];
      if (!xs.includes(el)) xs.push(el);
      lists.set(parent, xs);
    }
  return lists;
}

/**
 * Where each list element of the result stands: the elements the live and the given list both
 * hold take the places such elements held in the live list, in the given list's order; the live
 * ones the given list lacks keep theirs; the given ones the live list lacks come after.
 */
function ranks(live: Leaf[], given: Leaf[]): Map<string, number> {
  const out = new Map<string, number>();
  const g = elementOrder(given);
  for (const [parent, liveEls] of elementOrder(live)) {
    const givenEls = g.get(parent) ?? [];
    const shared = givenEls.filter((e) => liveEls.includes(e));
    let next = 0;
    const final = liveEls.map((e) => (givenEls.includes(e) ? shared[next++] : e));
    for (const e of givenEls) if (!final.includes(e)) final.push(e);
    final.forEach((e, i) => out.set(e, i));
  }
  for (const [, givenEls] of g) givenEls.forEach((e, i) => out.has(e) || out.set(e, 1e6 + i));
  return out;
}

const FLUX_TAKES = (m: unknown) =>
  typeof m === 'string' && (m === 'kustomize-controller' || m === 'before-first-apply' || m.startsWith('kubectl'));

/**
 * The object Flux's apply of `given` over `live` leaves, by the rule of server-side apply: a leaf
 * the applied configuration sets wins; a live leaf it does not set stays, unless the applier (Flux
 * and the kubectl managers it takes over) owned it and no other manager does; a list element the
 * applier created whole goes with it when no other manager owns anything in it; key fields of an
 * element that stays stay. Then the server's defaulting.
 */
export function modelApply(live: KObject, given: KObject): KObject {
  const schema = schemaOf(given);
  const body = manifestBody(given);
  const fluxLabels = Object.entries(live.metadata.labels ?? {}).filter(([k]) =>
    k.startsWith('kustomize.toolkit.fluxcd.io/'),
  );
  const meta = body.metadata as Obj;
  meta.labels = { ...Object.fromEntries(fluxLabels), ...((meta.labels as Obj | undefined) ?? {}) };
  const g: Leaf[] = [];
  flatten(body, schema, '', g);
  const l: Leaf[] = [];
  const { metadata: lm, ...lrest } = live as KObject & Obj;
  const { name, namespace, uid, resourceVersion, generation, creationTimestamp, managedFields, ...lmeta } = lm;
  flatten({ ...lrest, metadata: lmeta }, schema, '', l);
  const aWhole = new Set<string>();
  const aElems = new Set<string>();
  const oWhole = new Set<string>();
  const oElems = new Set<string>();
  for (const e of (managedFields ?? []) as Obj[]) {
    if (FLUX_TAKES(e.manager) && !e.subresource) owned(e.fieldsV1, '', aWhole, aElems);
    else owned(e.fieldsV1, '', oWhole, oElems);
  }
  const coveredBy = (p: string, set: Set<string>) => [...set].some((s) => under(p, s));
  const touchedByOthers = (el: string) => [...oWhole, ...oElems].some((s) => under(s, el) || under(el, s));
  const gPaths = g.map((x) => x.path);
  const givenCovers = (p: string) =>
    g.some((x) => p === x.path || (under(p, x.path) && !x.granular) || under(x.path, p));
  const givenHasElement = (el: string) => gPaths.some((gp) => under(gp, el));
  const kept: Leaf[] = [];
  for (const leaf of l) {
    if (givenCovers(leaf.path)) continue;
    if (coveredBy(leaf.path, oWhole)) {
      kept.push(leaf);
      continue;
    }
    const gone = elementsOf(leaf.path).some(
      (el) => (aElems.has(el) || coveredBy(el, aWhole)) && !givenHasElement(el) && !touchedByOthers(el),
    );
    if (gone) continue;
    const isKey = elementsOf(leaf.path).some((el) => {
      const m = /^\.("(?:[^"\\]|\\.)*")$/.exec(leaf.path.slice(el.length));
      if (m === null || !el.endsWith(']')) return false;
      const keys = JSON.parse(el.slice(el.lastIndexOf('[k=') + 3, -1)) as Obj;
      return Object.prototype.hasOwnProperty.call(keys, JSON.parse(m[1]) as string);
    });
    if (coveredBy(leaf.path, aWhole) && !isKey) continue;
    kept.push(leaf);
  }
  const out = build([...kept, ...g], ranks(l, g)) as Obj;
  const result = {
    ...out,
    apiVersion: given.apiVersion,
    kind: given.kind,
    metadata: {
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(uid !== undefined ? { uid } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ...(generation !== undefined ? { generation } : {}),
      ...(creationTimestamp !== undefined ? { creationTimestamp } : {}),
      ...((out.metadata as Obj | undefined) ?? {}),
      ...(managedFields !== undefined ? { managedFields } : {}),
    },
  } as unknown as KObject;
  return serverDefaults(result);
}

// ---- drift: what other managers write to a live object -----------------------------------------

/** Two FieldsV1 trees as one. */
export function unionFields(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObj(out[k]) && isObj(v) ? unionFields(out[k] as Obj, v) : v;
  return out;
}

/** A FieldsV1 tree without the leaves of another (parents left empty dropped). */
function withoutFields(a: Obj, b: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(a)) {
    const x = b[k];
    if (x === undefined) out[k] = v;
    else if (isObj(x) && Object.keys(x).length && isObj(v) && Object.keys(v).length) {
      const rest = withoutFields(v, x);
      if (Object.keys(rest).length) out[k] = rest;
    }
  }
  return out;
}

/**
 * A live object after `manager` wrote to it (an Update, as kubectl edit, label, annotate and
 * controllers do): `edit` changes a copy, `fields` is what the manager now owns. With `moves`
 * (the write changed values others had set) those fields leave their other owners; without, they
 * are co-owned (the same value written again).
 */
export function written(
  o: KObject,
  manager: string,
  fields: Obj,
  edit: (x: Obj) => void = () => {},
  moves = false,
): KObject {
  const x = copy(o) as KObject & Obj;
  edit(x);
  const mf = ((x.metadata.managedFields ?? []) as Obj[]).map((e) =>
    moves && e.manager !== manager && !e.subresource && isObj(e.fieldsV1)
      ? { ...e, fieldsV1: withoutFields(e.fieldsV1, fields) }
      : e,
  );
  const mine = mf.find((e) => e.manager === manager && e.operation === 'Update' && !e.subresource);
  if (mine) mine.fieldsV1 = unionFields((mine.fieldsV1 as Obj | undefined) ?? {}, fields);
  else mf.push({ manager, operation: 'Update', apiVersion: o.apiVersion, fieldsType: 'FieldsV1', fieldsV1: fields });
  x.metadata.managedFields = mf as never;
  return x;
}

/** The FieldsV1 of one path of map members (`['metadata', 'labels', 'a']`). */
export function fieldPath(...names: string[]): Obj {
  return names.reduceRight<Obj>((inner, n) => ({ [`f:${n}`]: inner }), {});
}
