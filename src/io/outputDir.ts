/**
 * `--output-dir DIR` (the CLI edge): a tree ready to commit and apply with Flux or Argo CD —
 * one file per object under `DIR/<namespace>/<kind>-<name>.yaml` (cluster-scoped objects under
 * `DIR/_cluster/`), plus `DIR/kustomization.yaml` listing every file in output order.
 *
 * The directory owns only what it wrote (docs/decisions.md §12):
 * - Every path is inside DIR whatever the objects' names hold: names are mapped to file names
 *   injectively and safely (`treePaths`), so `..`, `/`, NUL, control characters and names that
 *   differ only in case (on a case-insensitive file system) neither escape nor share a file.
 * - DIR records the files it wrote (`.cozy-gw-files`, src/io/treeRecord.ts; `readTree` reads it,
 *   for the writer and for `diff --state DIR`). A later run replaces and removes those files only;
 *   anything else (a `.git`, a README, the user's own manifests) is left alone and named in a note.
 *   A directory that holds files and no record is refused, and so are the working directory and
 *   the home directory unless they hold the record. A tree an earlier version wrote (its
 *   kustomization.yaml carries the marker line) counts its kustomization and the files it lists as
 *   its own.
 * - Writing is a transaction (src/io/treeCommit.ts): locked against a concurrent run, staged,
 *   journaled, committed by one rename, rolled back on failure or signal, recovered by the next run
 *   after a kill; every path walked without following links (src/io/safeDir.ts). A failed run
 *   leaves DIR as it was. The process umask decides the modes, as for any file a user's tool writes.
 */
import * as fs from 'node:fs';
import { hash } from 'node:crypto';
import type { KObject } from '../k8s/model';
import { dumpYaml, newMemo, toJson } from '../k8s/yaml';
import { SafeDir } from './safeDir';
import {
  commitTree,
  WORK,
  type TreeCommitOptions,
  type TreeCommitResult,
  type TreeEntry,
  type TreeSource,
} from './treeCommit';
import {
  KUSTOMIZATION,
  MARKER,
  blockFiles,
  headLength,
  parseRecordHead,
  RECORD,
  readRecordWith,
  recordParts,
  sha256,
  type RecordHead,
  type TreeFile,
  type RecordBlockInput,
  type RecordFile,
  type TreeFormat,
  type TreeObjectRef,
  type TreeMaking,
  type TreeRecord,
} from './treeRecord';

export {
  MARKER,
  RECORD,
  recordBytes,
  recordParts,
  parseRecord,
  blockFiles,
  sameShape,
  KUSTOMIZATION,
} from './treeRecord';
export type { RecordHead, TreeFile, TreeFormat, TreeMaking, TreeObjectRef, TreeRecord, TreeShape } from './treeRecord';
export { LOCK_WAIT_MS, TreeChanged, TreeInterrupted, WORK, type SignalSource, type TreeSource } from './treeCommit';
export { LOCK } from './treeLock';

/** The kustomization file of every tree. */
export const KUSTOMIZATION_FILE = KUSTOMIZATION;

/** A segment every character of which stays (`[a-z0-9]`, `.` but first, `-` where allowed). */
const KEPT_DASH = /^[a-z0-9][a-z0-9.-]*$/;
const KEPT = /^[a-z0-9][a-z0-9.]*$/;

/** Longest encoded segment kept whole; longer ones are cut and given a digest, within NAME_MAX. */
const MAX_SEGMENT = 180;

/**
 * One path segment, injectively: `[a-z0-9.]` stay (and `-` where `dash` allows it), every other
 * character (upper case, `_`, `/`, NUL, control and non-ASCII characters) becomes `_<hex>_`, a
 * leading dot is escaped (no hidden files, no `.` or `..`), an empty segment is `_`. The result is
 * lower case, so two different segments stay different on a case-insensitive file system.
 */
export function segment(s: string, dash = true): string {
  // Most names are kept as they are: one test instead of one per character.
  if ((dash ? KEPT_DASH : KEPT).test(s) && s.length <= MAX_SEGMENT) return s;
  let out = '';
  let i = 0;
  for (const ch of s) {
    const ok = /[a-z0-9]/.test(ch) || (ch === '.' && i > 0) || (ch === '-' && dash);
    out += ok ? ch : `_${ch.codePointAt(0)!.toString(16)}_`;
    i++;
  }
  if (out === '') out = '_';
  if (out.length > MAX_SEGMENT) out = `${out.slice(0, MAX_SEGMENT)}~${hash('sha256', s, 'hex').slice(0, 16)}`;
  return out;
}

/** The readable relative path of an object's file: `<namespace or _cluster>/<kind>-<name>.<ext>`. */
export function outputFileOf(o: KObject, format: TreeFormat = 'yaml'): string {
  const ns = o.metadata.namespace;
  const dir = ns ? segment(ns) : '_cluster';
  // The kind keeps no dash, so the first dash of the file name ends it.
  return `${dir}/${segment(o.kind.toLowerCase(), false)}-${segment(o.metadata.name)}.${format}`;
}

/**
 * Every object's file, in object order. Objects whose readable paths meet (the same kind and name
 * in one namespace from two API groups, kinds differing in case, the same object given twice) each
 * get a digest of their identity (and position, for a repeat) appended, so no two share a file.
 */
export function treePaths(objs: KObject[], format: TreeFormat = 'yaml'): string[] {
  const base = objs.map((o) => outputFileOf(o, format));
  const count = new Map<string, number>();
  for (const b of base) count.set(b, (count.get(b) ?? 0) + 1);
  const seen = new Map<string, number>();
  return base.map((b, i) => {
    if (count.get(b) === 1) return b;
    const o = objs[i];
    const id = `${o.apiVersion}\n${o.kind}\n${o.metadata.namespace ?? ''}\n${o.metadata.name}`;
    const k = `${b}\n${id}`;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    const digest = hash('sha256', n ? `${id}\n${n}` : id, 'hex').slice(0, 8);
    return `${b.slice(0, -(format.length + 1))}-${digest}.${format}`;
  });
}

/**
 * A path kustomization.yaml lists as it is: outputFileOf's names (escaped segments: lower-case
 * letters, digits and `_.~-`, one slash), which the YAML writer leaves plain. With a slash, none
 * reads as a number, a boolean, a null or a timestamp; none starts with an indicator.
 */
export const PLAIN_PATH = /^[a-z0-9_][a-z0-9_.~-]*\/[a-z0-9_.~-]+$/;

const KUSTOMIZATION_HEAD = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n';

/**
 * The text of kustomization.yaml for the tree's object files, in output order. Plain paths (every
 * path outputFileOf makes) are listed a line each, as the YAML writer writes them, without the
 * writer: it asks js-yaml about each `_cluster/...` path, which starts with no letter (24,000 at XL,
 * 90 ms of a first write); any other list is the writer's.
 */
export function kustomizationText(paths: readonly string[]): string {
  if (paths.length && paths.every((p) => PLAIN_PATH.test(p)))
    return `${MARKER}\n${KUSTOMIZATION_HEAD}resources:\n${paths.map((p) => `  - ${p}\n`).join('')}`;
  return `${MARKER}\n${dumpYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: paths })}`;
}

/** The files of the tree, path → content, kustomization.yaml last. Pure. */
export function outputTree(objs: KObject[], format: TreeFormat = 'yaml'): Map<string, string> {
  const files = new Map<string, string>();
  const memo = newMemo();
  const paths = treePaths(objs, format);
  objs.forEach((o, i) => files.set(paths[i], format === 'json' ? toJson(o) : dumpYaml(o, memo)));
  files.set(KUSTOMIZATION, kustomizationText([...files.keys()]));
  return files;
}

export type WriteResult = TreeCommitResult;

/** Which release each object of a tree belongs to, and what the core keeps of each (the record's blocks, in order). */
export interface TreeReleases {
  /** The tenant namespace of the release whose chart made the object ('' for none: the admission policies). */
  of(o: KObject): string;
  /** What the record keeps of each release (its release line), in the record's order. */
  info: ReadonlyMap<string, Record<string, unknown>>;
}

export interface WriteOptions extends TreeCommitOptions {
  format?: TreeFormat;
  /** How the tree is written and the Tenants it is rendered from, for its record (`diff --state DIR` reads them). */
  making?: TreeMaking;
  /** The releases the objects belong to (absent: one block, no release). */
  releases?: TreeReleases;
}

/**
 * The record's blocks of a tree: its files grouped by release, in the order of `releases.info` (a
 * release not named there after them, '' last), each block in output order.
 */
export function recordBlocks(
  objs: readonly KObject[],
  paths: readonly string[],
  digestOf: (path: string) => string,
  releases?: TreeReleases,
): RecordBlockInput[] {
  const blocks = new Map<string, RecordFile[]>();
  for (const ns of releases?.info.keys() ?? []) blocks.set(ns, []);
  objs.forEach((o, i) => {
    const ns = releases?.of(o) ?? '';
    let b = blocks.get(ns);
    if (!b) blocks.set(ns, (b = []));
    b.push({ path: paths[i], sha256: digestOf(paths[i]), object: refOfObject(o) });
  });
  const order = [...blocks.keys()].filter((ns) => ns !== '');
  if (blocks.has('')) order.push('');
  return order.map((ns) => ({ namespace: ns, info: releases?.info.get(ns), files: blocks.get(ns)! }));
}

/** The tree's folders that are not the folder of one release's own namespace (record `folders`). */
export function sharedFolders(objs: readonly KObject[], paths: readonly string[], releases?: TreeReleases): string[] {
  const shared = new Set<string>();
  objs.forEach((o, i) => {
    const folder = paths[i].slice(0, paths[i].indexOf('/'));
    const ns = releases?.of(o) ?? '';
    if (!ns || segment(ns) !== folder) shared.add(folder);
  });
  return [...shared].sort();
}

function refOfObject(o: KObject): TreeObjectRef {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    name: o.metadata.name,
  };
}

/**
 * The record of the tree in `dir` (read only, no lock taken): the files render wrote there and what
 * each holds; undefined when `dir` holds no tree cozy-gw wrote. The one reader of the record, for
 * the writer and for `diff --state DIR` alike. `dir` itself may be a link (the user named it);
 * nothing inside it is followed.
 */
export function readTree(dir: string): TreeRecord | undefined {
  let d: SafeDir;
  try {
    d = new SafeDir(fs.realpathSync(dir));
  } catch {
    return undefined;
  }
  try {
    const r = readRecordWith((rel) => {
      try {
        return d.lstat(rel)?.isFile() ? d.read(rel) : undefined;
      } catch {
        return undefined;
      }
    });
    return r && { ...r, unfinished: d.lstat(WORK) !== undefined };
  } finally {
    d.close();
  }
}

/** A format-4 record's head as `readTreeHead` reads it from a tree, with whether a run left work there. */
export type TreeHead = RecordHead & { unfinished: boolean };

/**
 * The head of the format-4 record of the tree in `dir`, its body left unread (no lock taken):
 * undefined when `dir` holds no such record. A changed-only diff reads this and then the blocks of
 * the releases it needs (readTreeBlocks).
 */
export function readTreeHead(dir: string): TreeHead | undefined {
  let d: SafeDir;
  try {
    d = new SafeDir(fs.realpathSync(dir));
  } catch {
    return undefined;
  }
  try {
    if (!d.lstat(RECORD)?.isFile()) return undefined;
    const start = d.readRange(RECORD, 0, 4096);
    const len = headLength(start);
    if (!len) return undefined;
    const head = parseRecordHead(d.readRange(RECORD, 0, len.prefix + len.head));
    return head && { ...head, unfinished: d.lstat(WORK) !== undefined };
  } catch {
    return undefined;
  } finally {
    d.close();
  }
}

/** The files of the given releases' blocks of the tree's record, by release; undefined when the record changed under the reader. */
export function readTreeBlocks(
  dir: string,
  head: RecordHead,
  namespaces: Iterable<string>,
): Map<string, TreeFile[]> | undefined {
  const d = new SafeDir(fs.realpathSync(dir));
  try {
    const byNs = new Map(head.releases.map((r) => [r.namespace, r]));
    const out = new Map<string, TreeFile[]>();
    for (const ns of namespaces) {
      const r = byNs.get(ns);
      if (!r) continue;
      const bytes = d.readRange(RECORD, head.bodyOffset + r.block.offset, r.block.bytes);
      if (bytes.length !== r.block.bytes || sha256(bytes) !== r.digest) return undefined;
      out.set(ns, blockFiles(bytes));
    }
    return out;
  } finally {
    d.close();
  }
}

/** The bytes of the given releases' blocks of the tree's record, by release; undefined when the record changed under the reader. */
export function readTreeBlockBytes(
  dir: string,
  head: RecordHead,
  namespaces: Iterable<string>,
): Map<string, Buffer> | undefined {
  const d = new SafeDir(fs.realpathSync(dir));
  try {
    const byNs = new Map(head.releases.map((r) => [r.namespace, r]));
    const wanted = [...namespaces].map((ns) => byNs.get(ns)).filter((r) => r !== undefined);
    // One read from the first block asked for to the end of the last (the blocks are in the body's
    // order), each block a view of it: a read per block costs an open of the record each.
    let from = Infinity;
    let to = 0;
    for (const r of wanted) {
      from = Math.min(from, r.block.offset);
      to = Math.max(to, r.block.offset + r.block.bytes);
    }
    const body = wanted.length ? d.readRange(RECORD, head.bodyOffset + from, to - from) : Buffer.alloc(0);
    const out = new Map<string, Buffer>();
    for (const r of wanted) {
      const bytes = body.subarray(r.block.offset - from, r.block.offset - from + r.block.bytes);
      if (bytes.length !== r.block.bytes || sha256(bytes) !== r.digest) return undefined;
      out.set(r.namespace, bytes);
    }
    return out;
  } finally {
    d.close();
  }
}

/**
 * Write part of the tree in DIR (render changed-only into a tree, src/cli/treeRender.ts): the files
 * `source` makes, the earlier files it names replaced or removed, the others kept; TreeChanged
 * when the record in place is not the one the source was planned against.
 */
export function writePartialTree(dirArg: string, cwd: string, source: TreeSource, opts: TreeCommitOptions = {}) {
  return commitTree(dirArg, cwd, source, opts);
}

/**
 * Write the tree into DIR, owning only what it wrote (see the module comment). Rejects with a
 * FindingsError (clean lines, exit 1) when DIR may not be written or a write fails, DIR then as it
 * was; with a TreeInterrupted when a signal stopped it.
 */
export function writeOutputDir(
  dirArg: string,
  cwd: string,
  objs: KObject[],
  opts: WriteOptions = {},
): Promise<WriteResult> {
  const format = opts.format ?? 'yaml';
  const paths = treePaths(objs, format);
  const memo = newMemo();
  const files: TreeEntry[] = objs.map((o, i) => ({
    path: paths[i],
    content: () => (format === 'json' ? toJson(o) : dumpYaml(o, memo)),
  }));
  const kustomization = kustomizationText(paths);
  files.push({ path: KUSTOMIZATION, content: () => kustomization });
  const record = (digestOf: (path: string) => string) =>
    recordParts({
      format,
      making: opts.making,
      releases: recordBlocks(objs, paths, digestOf, opts.releases),
      kustomization: digestOf(KUSTOMIZATION),
      folders: sharedFolders(objs, paths, opts.releases),
    });
  return commitTree(dirArg, cwd, { files, record }, opts);
}
