/**
 * The items of a ResourceList (the KRM Functions Specification, as kpt runs it): where an item
 * lives in the package (path annotations), what passes through unread (the Kptfile,
 * local-config objects, the function's own config), what a previous run generated, and the
 * marks and files new items get. Pure.
 */
import { isObject, type KObject, type ObjRef } from '../../k8s/model';

/** Marks the objects this function generated, so a later run replaces them instead of adding copies. */
export const GENERATED_ANNOTATION = 'cozy-gw.cozystack.io/generated';
export const PATH_ANNOTATION = 'internal.config.kubernetes.io/path';
export const INDEX_ANNOTATION = 'internal.config.kubernetes.io/index';
export const LEGACY_PATH_ANNOTATION = 'config.kubernetes.io/path';
export const LEGACY_INDEX_ANNOTATION = 'config.kubernetes.io/index';
export const LOCAL_CONFIG_ANNOTATION = 'config.kubernetes.io/local-config';
/** Directory of the package that new items are written into (by kpt). */
export const GENERATED_DIR = 'cozy-gw';

export function refOfLoose(o: Record<string, unknown>): ObjRef {
  const md = isObject(o.metadata) ? o.metadata : {};
  const r: ObjRef = { apiVersion: String(o.apiVersion ?? ''), kind: String(o.kind ?? ''), name: String(md.name ?? '') };
  if (typeof md.namespace === 'string' && md.namespace) r.namespace = md.namespace;
  return r;
}

function annotationOf(o: unknown, name: string): string | undefined {
  if (!isObject(o) || !isObject(o.metadata) || !isObject(o.metadata.annotations)) return undefined;
  const v = o.metadata.annotations[name];
  return typeof v === 'string' ? v : undefined;
}

export function isGenerated(o: unknown): boolean {
  return annotationOf(o, GENERATED_ANNOTATION) === 'true';
}

/** A package path's components, `.` and empty ones dropped and `..` resolved; undefined when it climbs out of the package. */
function pathParts(p: string): string[] | undefined {
  const parts: string[] = [];
  for (const part of p.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts;
}

/** Whether a package path lies inside the function's own folder (`cozy-gw/...`, never `cozy-gw/../x`). */
export function isUnderGeneratedDir(p: string): boolean {
  const parts = pathParts(p);
  return parts !== undefined && parts.length > 1 && parts[0] === GENERATED_DIR;
}

/** A package path as generatedPath writes one (`cozy-gw/ns/kind-name.yaml`), to compare paths: `./a//b` is `a/b`. */
export function normalPath(p: string): string | undefined {
  return pathParts(p)?.join('/');
}

/**
 * An item this function wrote on an earlier run, to be replaced: marked generated and in a file
 * under its own folder. A marked item elsewhere (a user's customised copy in `overrides/`) is the
 * user's and passes through; a marked item without any path (kustomize's plugin mode, where no
 * item carries one) is recognised by the mark alone.
 */
export function isOwnItem(o: unknown): boolean {
  if (!isGenerated(o)) return false;
  const f = itemPathOf(o);
  return f === undefined || isUnderGeneratedDir(f.path);
}

/** kpt's own objects and local-config objects: passed through, never read as inputs. */
export function isMetaOrLocal(o: unknown): boolean {
  if (!isObject(o)) return false;
  if (o.kind === 'Kptfile' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('kpt.dev/')) return true;
  if (typeof o.apiVersion === 'string' && o.apiVersion.startsWith('fn.cozystack.io/')) return true; // our own config
  return annotationOf(o, LOCAL_CONFIG_ANNOTATION) === 'true';
}

/** Where an item lives in the package, from its path and index annotations (internal first, then the legacy ones). */
export function itemPathOf(o: unknown): { path: string; index?: number } | undefined {
  const p = annotationOf(o, PATH_ANNOTATION) ?? annotationOf(o, LEGACY_PATH_ANNOTATION);
  if (!p) return undefined;
  const i = annotationOf(o, INDEX_ANNOTATION) ?? annotationOf(o, LEGACY_INDEX_ANNOTATION);
  return i !== undefined && /^\d+$/.test(i) ? { path: p, index: Number(i) } : { path: p };
}

export function isKObject(o: unknown): o is KObject {
  return (
    isObject(o) &&
    typeof o.apiVersion === 'string' &&
    o.apiVersion !== '' &&
    typeof o.kind === 'string' &&
    o.kind !== '' &&
    isObject(o.metadata) &&
    typeof o.metadata.name === 'string' &&
    o.metadata.name !== ''
  );
}

/** What one run has worked out of the paths it gave: each namespace's folder, each kind's file prefix. */
interface PathMemo {
  dirs: Map<string, string>;
  kinds: Map<string, string>;
}

const UNSAFE = /[^A-Za-z0-9._-]/;
const DOTS = /^\.+$/;
/** A path component: characters outside `A-Za-z0-9._-` as `_`, and a component of dots alone as underscores. */
function safe(s: string): string {
  if (!UNSAFE.test(s) && !DOTS.test(s)) return s;
  return s.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+$/, (d) => '_'.repeat(d.length));
}

/**
 * `cozy-gw/<namespace>/<kind>-<name>.yaml`; cluster-scoped objects under `cozy-gw/_cluster/`.
 * Always inside the folder: a namespace is a DNS label (metadataShape.ts refuses others), and a
 * component of dots alone is written with underscores all the same. With a memo (one run's), each
 * folder and kind prefix is made once.
 */
export function generatedPath(o: KObject, memo?: PathMemo): string {
  const ns = o.metadata.namespace ?? '';
  let dir = memo?.dirs.get(ns);
  if (dir === undefined) {
    dir = `${GENERATED_DIR}/${ns ? safe(ns) : '_cluster'}/`;
    memo?.dirs.set(ns, dir);
  }
  let kind = memo?.kinds.get(o.kind);
  if (kind === undefined) {
    kind = `${o.kind.toLowerCase()}-`;
    memo?.kinds.set(o.kind, kind);
  }
  return `${dir}${kind}${safe(o.metadata.name)}.yaml`;
}

/**
 * The annotations a new item gets: the generated marker and, in ResourceList mode, its file and
 * index in both forms. An object literal of the keys (the constants above, spelled out; a test holds
 * them equal): made several times faster than the same object built key by key, once per item.
 */
export function generatedMarks(path?: string, index?: number): Record<string, string> {
  if (path === undefined) return { 'cozy-gw.cozystack.io/generated': 'true' };
  const i = String(index ?? 0);
  return {
    'cozy-gw.cozystack.io/generated': 'true',
    'internal.config.kubernetes.io/path': path,
    'internal.config.kubernetes.io/index': i,
    'config.kubernetes.io/path': path,
    'config.kubernetes.io/index': i,
  };
}

/** Mark objects as generated and, in ResourceList mode, give each a file in the package. */
export function annotateGenerated(objs: KObject[], withPath: boolean): KObject[] {
  const marksOf = generatedMarker(withPath);
  return objs.map((o) => withMarks(o, marksOf(o)));
}

/**
 * The marks of each new object, given in the order they are written: the marker counts the
 * objects given each file, so that the second object of one file gets the next index. `taken`:
 * the files (normalPath) of the items that pass through, a user's among them: a new object whose
 * file one of them holds goes to `<kind>-<name>-2.yaml` (or the next number free), never into the
 * user's file.
 */
export function generatedMarker(
  withPath: boolean,
  taken: ReadonlySet<string> = new Set(),
): (o: KObject) => Record<string, string> {
  const used = new Map<string, number>();
  const memo: PathMemo = { dirs: new Map(), kinds: new Map() };
  return (o) => {
    if (!withPath) return generatedMarks();
    let p = generatedPath(o, memo);
    if (taken.has(p)) {
      const stem = p.slice(0, -'.yaml'.length);
      let n = 2;
      while (taken.has(`${stem}-${n}.yaml`)) n++;
      p = `${stem}-${n}.yaml`;
    }
    const index = used.get(p) ?? 0;
    used.set(p, index + 1);
    return generatedMarks(p, index);
  };
}

/**
 * The object with its marks: a new object and metadata, the rest shared with the render's object
 * (nothing writes to it afterwards): a deep copy of every generated object doubled fn's memory.
 * Key order is the copy's, the marks after the object's own annotations. (kptLayout.ts
 * kptMarkedEntry writes this without making it.)
 */
export function withMarks(o: KObject, marks: Record<string, string>): KObject {
  const own = o.metadata.annotations;
  let annotations = marks;
  if (own !== undefined) {
    annotations = { ...own };
    for (const k of Object.keys(marks)) annotations[k] = marks[k];
  }
  return { ...o, metadata: { ...o.metadata, annotations } };
}
