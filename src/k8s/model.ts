/**
 * The object model shared by every module: Kubernetes objects as plain data, their identity,
 * a stable order, and structural equality. Pure: no I/O, no clock.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  uid?: string;
  generation?: number;
  ownerReferences?: OwnerReference[];
  [key: string]: unknown;
}

/** A Kubernetes object. Everything but apiVersion/kind/metadata is left open. */
export interface KObject {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
  [key: string]: unknown;
}

/** How an object is named in messages, results and deletions. */
export interface ObjRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export function refOf(o: KObject): ObjRef {
  const r: ObjRef = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata?.name ?? '' };
  if (o.metadata?.namespace) r.namespace = o.metadata.namespace;
  return r;
}

/** `Kind namespace/name` (or `Kind name` for cluster-scoped objects), as kubectl users read it. */
/** A core Namespace (v1). */
export function isNamespace(o: Pick<KObject, 'apiVersion' | 'kind'>): boolean {
  return o.kind === 'Namespace' && o.apiVersion === 'v1';
}

export function describe(o: KObject | ObjRef): string {
  const r = 'metadata' in o ? refOf(o as KObject) : (o as ObjRef);
  return r.namespace ? `${r.kind} ${r.namespace}/${r.name}` : `${r.kind} ${r.name}`;
}

export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** Identity of an object: group, kind, namespace and name (the version is not part of it). */
export function keyOf(o: KObject | ObjRef): string {
  // refOf's reading of an object, without building the ref (keyOf runs over every object of every state).
  if ('metadata' in o) {
    const m = (o as KObject).metadata;
    const ns = m?.namespace;
    const name = m?.name;
    // The memo is kept on the metadata, which a copy of the object made to change something else
    // (a status written: `{ ...route, status }`) shares: its key is then not made again.
    const holder = isObject(m) ? m : o;
    const seen = (holder as Memoised)[KEY_MEMO];
    if (seen && seen.apiVersion === o.apiVersion && seen.kind === o.kind && seen.ns === ns && seen.name === name)
      return seen.key;
    // Joined, not a template: one flat string, where a template's would be a chain of seven
    // concatenations, held as long as the object (300 bytes against 80 per key).
    const key = [groupOf(o.apiVersion), o.kind, ns || '', name ?? ''].join('|');
    if (Object.isExtensible(holder))
      Object.defineProperty(holder, KEY_MEMO, {
        value: { apiVersion: o.apiVersion, kind: o.kind, ns, name, key },
        writable: true,
        configurable: true,
      });
    return key;
  }
  return `${groupOf(o.apiVersion)}|${o.kind}|${o.namespace ?? ''}|${o.name}`;
}

/**
 * The key last computed for an object, with the identity it was computed from: an object's key is
 * asked for many times in a run (every index, comparison and plan reads it), and a memo checked
 * against the object's current identity fields can never go stale (nor can one that objects of
 * different identities share the metadata of: each finds the other's memo not its own). It is kept
 * on the object's metadata (the object itself when it has none) under a symbol, not enumerable (no copy, comparison, JSON or YAML of the object sees it), rather than
 * in a WeakMap: V8's WeakMaps slow to about 10 µs a look-up past some 2-4 million keys (a state of
 * 200,000 tenants holds 4.4 million objects), where a property stays a property.
 */
const KEY_MEMO = Symbol('keyOf');
type Memoised = { [KEY_MEMO]?: { apiVersion: string; kind: string; ns: unknown; name: unknown; key: string } };

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The stable order of identities: apiVersion, kind, namespace, name (byte order), as kpt's SDK
 * keeps it. Scalars, not records: it runs in every sort of output.
 */
function compareIdentity(
  av: string,
  ak: string,
  ans: string,
  an: string,
  bv: string,
  bk: string,
  bns: string,
  bn: string,
): number {
  return cmp(av, bv) || cmp(ak, bk) || cmp(ans, bns) || cmp(an, bn);
}

/** The stable order of object references (a pass's changes). */
export function compareRefs(a: ObjRef, b: ObjRef): number {
  return compareIdentity(
    a.apiVersion,
    a.kind,
    a.namespace ?? '',
    a.name,
    b.apiVersion,
    b.kind,
    b.namespace ?? '',
    b.name,
  );
}

/** The stable output order of objects. */
export function compareObjects(a: KObject, b: KObject): number {
  return compareIdentity(
    a.apiVersion,
    a.kind,
    a.metadata?.namespace ?? '',
    a.metadata?.name ?? '',
    b.apiVersion,
    b.kind,
    b.metadata?.namespace ?? '',
    b.metadata?.name ?? '',
  );
}

export function sortObjects<T extends KObject>(objs: T[]): T[] {
  return [...objs].sort(compareObjects);
}

/**
 * A deep copy with JSON's semantics (JSON.parse(JSON.stringify(x))): undefined, functions and
 * symbols dropped from mappings and null in lists, non-finite numbers null, -0 as 0. Plain data
 * (what the inputs and the controllers hold) is copied by a walk, several times faster than the
 * round trip, faster; anything else (a Date, a class instance, a toJSON method, a cycle) takes
 * the round trip itself.
 */
export function clone<T>(x: T): T {
  if (x === undefined) return x;
  try {
    return copyPlain(x) as T;
  } catch {
    return JSON.parse(JSON.stringify(x)) as T;
  }
}

const NOT_PLAIN = new Error('not plain data');

function copyPlain(x: unknown): unknown {
  switch (typeof x) {
    case 'string':
    case 'boolean':
      return x;
    case 'number':
      return Number.isFinite(x) ? (x === 0 ? 0 : x) : null;
    case 'object': {
      if (x === null) return null;
      if (Array.isArray(x)) {
        if (Object.getPrototypeOf(x) !== Array.prototype || typeof (x as { toJSON?: unknown }).toJSON === 'function')
          throw NOT_PLAIN;
        const out = new Array<unknown>(x.length);
        for (let i = 0; i < x.length; i++) {
          const v = x[i];
          out[i] = v === undefined || typeof v === 'function' || typeof v === 'symbol' ? null : copyPlain(v);
        }
        return out;
      }
      const proto = Object.getPrototypeOf(x);
      if ((proto !== Object.prototype && proto !== null) || typeof (x as { toJSON?: unknown }).toJSON === 'function')
        throw NOT_PLAIN;
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(x)) {
        const v = (x as Record<string, unknown>)[k];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        if (k === '__proto__')
          Object.defineProperty(out, k, { value: copyPlain(v), enumerable: true, writable: true, configurable: true });
        else out[k] = copyPlain(v);
      }
      return out;
    }
    default:
      throw NOT_PLAIN; // bigint, or a top-level function or symbol: the round trip decides
  }
}

/** Structural equality over JSON data (key order ignored, array order significant). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // Plain loops (a hot path of every store write): members set to undefined count as absent.
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    na++;
    if (!deepEqual(ao[k], bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}

/** A string field as Go reads one: the string, or '' for anything else (absent, null, another type). */
export function stringField(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

/** A string field that is set: the string when it is a non-empty one, else undefined. */
export function nonEmptyString(x: unknown): string | undefined {
  return typeof x === 'string' && x !== '' ? x : undefined;
}

export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Read a dotted path (`spec.apex`) out of plain data. */
export function getPath(o: unknown, path: string | string[]): unknown {
  const parts = Array.isArray(path) ? path : path.split('.');
  let cur: unknown = o;
  for (const p of parts) {
    if (!isObject(cur) && !Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** Helm's merge of values files: maps merge recursively, anything else replaces, null deletes. */
export function mergeValues(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const own = Object.prototype.hasOwnProperty.call(out, k);
    if (v === null) delete out[k];
    // defineProperty keeps a key such as `__proto__` a plain key (an assignment would set the prototype).
    else if (isObject(v) && own && isObject(out[k]))
      Object.defineProperty(out, k, {
        value: mergeValues(out[k] as Record<string, unknown>, v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else Object.defineProperty(out, k, { value: clone(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function labelsOf(o: KObject): Record<string, string> {
  return o.metadata?.labels ?? {};
}
