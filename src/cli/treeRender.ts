/**
 * `render --output-dir DIR` into a tree whose record allows it, changed-only (docs/performance.md
 * "Changed-only"): the record's head is read and the inputs planned against it as a changed-only
 * diff plans a change (src/diff/changedOnly.ts, with the given Tenants as the whole tree); only the
 * releases whose inputs changed are rendered, the controller's pass summarized over the namespaces
 * they reach, and only their files written; the other releases' blocks of the record are kept as
 * they are, their files unread. The tree and its record are those a whole render writes, byte for
 * byte (test/cli/renderChangedOnly.test.ts).
 *
 * The whole tree is rendered instead (`full`, with why) wherever the plan says so, DIR holds more
 * than the tree, the record is of another format, shape or file format, is unfinished or changes
 * under the run, a file of the tree cannot be read, the render finds an error, the pass over the
 * namespaces reached is not theirs alone, or a file name of a release rendered meets another
 * release's (its name would take a digest).
 */
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { hasErrors, type Finding } from '../k8s/diagnostics';
import type { KObject } from '../k8s/model';
import { pushAll } from '../k8s/arrays';
import { readInputs } from '../io/inputs';
import { FindingsError } from '../k8s/diagnostics';
import {
  blockFiles,
  KUSTOMIZATION,
  kustomizationText,
  outputFileOf,
  PLAIN_PATH,
  readTreeBlockBytes,
  readTreeHead,
  recordParts,
  sameShape,
  segment,
  treePaths,
  TreeChanged,
  writePartialTree,
  type TreeFile,
  type TreeFormat,
  type TreeMaking,
  type TreeSource,
  type WriteResult,
} from '../io/outputDir';
import type { PathLookup, TreeCommitOptions } from '../io/treeCommit';
import { sha256, type RecordBlockInput, type RecordFile } from '../io/treeRecord';
import { uidsGiven } from '../pipelines/treeInputs';
import { SourceMap } from '../io/sourceMap';
import { dumpYaml, newMemo, toJson } from '../k8s/yaml';
import { orderOutput, renderGroups, type RenderInput, type RenderOptions } from '../pipelines/render';
import { planChangedOnly, type ChangedOnlyPlan } from '../diff/changedOnly';
import { factLines, isControllerView, readFacts, summarizePass, type TreeFacts } from '../diff/treeSummary';
import { tenantChecks } from '../charts/tenantChart';
import { isTenant, isTenantGateway } from '../platform/kinds';
import { treeAlone } from './treeDiff';
import { buildIdentity } from './version';

export interface TreeRenderRequest {
  /** `--output-dir`, as given, and the directory it is relative to. */
  dir: string;
  cwd: string;
  input: RenderInput;
  /** The chart options (with `digests`: the record keeps them). */
  options: RenderOptions;
  format: TreeFormat;
  /** What the record keeps of how the tree is written (its platform line is made here). */
  making: TreeMaking;
  commit: TreeCommitOptions;
}

export interface TreeRenderDone {
  findings: Finding[];
  /** The objects of the whole tree. */
  objects: number;
  written: WriteResult;
}

/** One object file of the tree after the run: its object (a rendered one, or a stub from the record) and its release. */
interface Placed {
  object: KObject;
  release: string;
  /** The rendered object (undefined: a file of a release kept as it is). */
  rendered: boolean;
}

/** A stub object of a record's file line: what output order and file names read. */
function stubOf(f: TreeFile): KObject {
  const o = f.object!;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: { name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) },
  } as KObject;
}

/** The releases the plan renders, and the claims of the others (diff.ts scopedBy: ancestors and descendants). */
function onlyOf(plan: ChangedOnlyPlan): NonNullable<RenderOptions['only']> {
  const rendered = [...plan.render];
  const related = (ns: string) => rendered.some((r) => r.startsWith(`${ns}-`) || ns.startsWith(`${r}-`));
  return { render: (ns) => plan.render.has(ns), claims: related };
}

/** What the partial render makes: the rendered objects by release, each release's new record line, the platform digest. */
interface Rendered {
  findings: Finding[];
  byRelease: Map<string, KObject[]>;
  /** Every release in walk order, with its line (the rendered ones' made anew, without the pass summary). */
  order: string[];
  lines: Map<string, Record<string, unknown>>;
  platform: string;
}

function renderPart(req: TreeRenderRequest, plan: ChangedOnlyPlan): Rendered {
  const findings: Finding[] = [];
  const byRelease = new Map<string, KObject[]>();
  const lines = new Map<string, Record<string, unknown>>();
  const order: string[] = [];
  let platform = '';
  const opts = { ...req.options, only: onlyOf(plan), unordered: true };
  for (const g of renderGroups(req.input, opts, findings)) {
    if (!g.release) {
      byRelease.set('', g.objects);
      platform = g.platform ?? '';
      continue;
    }
    const ns = g.release.namespace;
    order.push(ns);
    if (!g.rendered) continue;
    byRelease.set(ns, [...g.objects, ...g.gateway]);
    lines.set(ns, {
      inputs: g.inputs ?? '',
      gateway: g.release.values._namespace.gateway ?? '',
      owns: g.gateway.some(isTenantGateway),
      findings: (g.findings ?? 0) > 0,
    });
  }
  return { findings, byRelease, order, lines, platform };
}

/** The view objects of the namespaces the pass reaches but the run does not render, read from the tree's files. */
function viewOf(req: TreeRenderRequest, files: TreeFile[]): KObject[] | undefined {
  const rels = files.filter((f) => f.object && isControllerView(stubOf(f))).map((f) => f.path);
  if (!rels.length) return [];
  try {
    return readInputs(
      rels.map((r) => path.join(req.dir, r)),
      { cwd: req.cwd, flag: '--output-dir', sources: new SourceMap() },
    ).objects;
  } catch (e) {
    if (e instanceof FindingsError) return undefined;
    throw e;
  }
}

/**
 * The render changed-only (see the module comment): what it wrote, or why the whole tree is to be
 * rendered.
 */
export async function changedOnlyRender(req: TreeRenderRequest): Promise<TreeRenderDone | { full: string }> {
  const dir = path.resolve(req.cwd, req.dir);
  const head = readTreeHead(dir);
  if (!head) return { full: 'no record of format 4' };
  if (head.unfinished) return { full: 'a run left its work in the tree' };
  if ((head.fileFormat ?? 'yaml') !== req.format) return { full: 'another file format' };
  if (!sameShape(head.making.shape, req.making.shape)) return { full: 'other options' };
  const facts = readFacts(head.making.platform, head.releases);
  if (!facts) return { full: 'a record without the facts of its releases' };
  if (!treeAlone(dir, head, facts)) return { full: 'the directory holds more than the tree' };
  const tenants = req.input.objects.filter(isTenant);
  const checks = tenantChecks(
    [...head.making.tenants, ...tenants],
    req.options.cozystack?.behaviour,
    head.making.checked ? head.making.tenants : [],
  );
  const options = { ...req.options, tenantChecks: checks };
  // The record says whether the given Tenants' own checks found nothing, as a whole render's does.
  const checked = tenants.every((t) => !checks.get(t)?.length);
  const run: TreeRenderRequest = { ...req, making: { ...req.making, ...(checked ? { checked } : {}) } };
  const planned = planChangedOnly(
    { tenants: head.making.tenants, facts },
    { objects: req.input.objects, valuesFiles: req.input.valuesFiles, prune: true },
    { ...options, build: buildIdentity() },
  );
  if ('full' in planned) return planned;
  const plan = planned.plan;
  const blocks = readTreeBlockBytes(dir, head, [...head.releases.map((r) => r.namespace)]);
  if (!blocks) return { full: 'the record changed while it was read' };
  const part = renderPart({ ...run, options }, plan);
  if (hasErrors(part.findings)) return { full: 'the render finds an error' };
  return writePart(run, dir, head, { plan, facts, blocks, part });
}

interface PartState {
  plan: ChangedOnlyPlan;
  facts: TreeFacts;
  blocks: Map<string, Buffer>;
  part: Rendered;
}

/** The pass summary over the namespaces the plan reaches, as the record's release lines hold it; undefined where it is not theirs alone. */
function touchedSummary(req: TreeRenderRequest, s: PartState, files: Map<string, TreeFile[]>) {
  const objects: KObject[] = [];
  for (const ns of s.plan.touched) {
    const rendered = s.part.byRelease.get(ns);
    if (rendered) pushAll(objects, rendered);
    else {
      const view = viewOf(req, files.get(ns) ?? []);
      if (!view) return undefined;
      pushAll(objects, view);
    }
  }
  const summary = summarizePass(objects, s.plan.touched, req.input.valuesFiles, { cozystack: req.options.cozystack });
  if (!summary) return undefined;
  const pass = s.facts.pass;
  if (!pass || summary.ciliumVersion !== pass.cilium || summary.upstreamCilium !== pass.upstream) return undefined;
  return summary;
}

/** Each release's record line after the run: the rendered and reached ones made anew, the others as the record has them. */
function releaseLines(
  req: TreeRenderRequest,
  s: PartState,
  files: Map<string, TreeFile[]>,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
): Map<string, Record<string, unknown>> | undefined {
  const summary = touchedSummary(req, s, files);
  if (!summary) return undefined;
  const old = new Map(head.releases.map((r) => [r.namespace, r.info]));
  const facts: TreeFacts = { platform: s.part.platform, pass: s.facts.pass, releases: new Map() };
  const out = new Map<string, Record<string, unknown>>();
  for (const ns of s.part.order) {
    const made = s.part.lines.get(ns);
    const was = s.facts.releases.get(ns);
    if (!s.plan.touched.has(ns)) {
      out.set(ns, old.get(ns) ?? {});
      continue;
    }
    const base = made ?? was;
    if (!base) return undefined;
    const sum = summary.releases.get(ns);
    facts.releases.set(ns, {
      inputs: String(base.inputs),
      gateway: String(base.gateway ?? ''),
      owns: base.owns === true,
      findings: base.findings === true,
      drift: sum?.drift ?? 0,
      warnings: sum?.warnings ?? 0,
      relabel: sum?.relabel ?? false,
    });
  }
  for (const [ns, line] of factLines(facts).releases) out.set(ns, line);
  return out;
}

/** Every file of the tree after the run, in output order, with its path; undefined where a rendered file's name meets another release's. */
function placedFiles(req: TreeRenderRequest, s: PartState, files: Map<string, TreeFile[]>) {
  const all: Placed[] = [];
  const kept = new Set<string>();
  for (const ns of [...s.part.order, '']) {
    const rendered = s.part.byRelease.get(ns);
    if (rendered) {
      for (const o of rendered) all.push({ object: o, release: ns, rendered: true });
      // A file of the release before whose name took a digest (two objects met): the whole tree decides it.
      for (const f of files.get(ns) ?? [])
        if (f.object && outputFileOf(stubOf(f), req.format) !== f.path) return undefined;
      continue;
    }
    for (const f of files.get(ns) ?? []) {
      all.push({ object: stubOf(f), release: ns, rendered: false });
      kept.add(f.path);
    }
  }
  const byObject = new Map(all.map((p) => [p.object, p]));
  const ordered = orderOutput(all.map((p) => p.object)).map((o) => byObject.get(o)!);
  const paths = treePaths(
    ordered.map((p) => p.object),
    req.format,
  );
  for (let i = 0; i < ordered.length; i++) if (ordered[i].rendered && kept.has(paths[i])) return undefined;
  return { ordered, paths };
}

async function writePart(
  req: TreeRenderRequest,
  dir: string,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
  s: PartState,
): Promise<TreeRenderDone | { full: string }> {
  const files = new Map<string, TreeFile[]>();
  // The blocks the run reads file by file: those of the releases it renders or the pass reaches.
  for (const ns of new Set([...s.plan.render, ...s.plan.touched, ...s.part.byRelease.keys()])) {
    const b = s.blocks.get(ns);
    if (b) files.set(ns, blockFiles(b));
  }
  const lines = releaseLines(req, s, files, head);
  if (!lines) return { full: "the controller's pass over the namespaces the change reaches is not theirs alone" };
  const same = samePaths(req, s, files, head);
  const local = same ? undefined : localPaths(req, s, files, head, dir);
  // The files of the tree before the run, where the blocks are not parsed: their paths alone.
  const held = new FolderPaths();
  held.add(KUSTOMIZATION);
  if (same || local) for (const b of s.blocks.values()) blockPaths(b, held);
  let source: TreeSource;
  let objects: number;
  if (same) {
    source = keptPathsSource(req, head, s, { ...same, lines, files }, held);
    objects = head.releases.reduce((n, r) => n + r.block.files, 0);
  } else if (local) {
    source = localSource(req, head, s, { ...local, lines, files }, held);
    objects = local.total - 1;
  } else {
    for (const [ns, b] of s.blocks) if (!files.has(ns)) files.set(ns, blockFiles(b));
    const placed = placedFiles(req, s, files);
    if (!placed) return { full: 'a file name of a release rendered meets another one' };
    source = partialSource(req, head, s, { ...placed, lines, files });
    objects = placed.ordered.length;
  }
  // A file of the tree replaced by a link, or a folder by one (docs/decisions.md §12): the whole
  // render's writer meets it and refuses or mends it; a run that keeps the file unread would not.
  const before = same || local ? held : new FolderPaths();
  if (!same && !local) {
    before.add(KUSTOMIZATION);
    for (const fs of files.values()) for (const f of fs) before.add(f.path);
  }
  if (!inPlace(dir, before)) return { full: 'a file of the tree is not a regular file in a real folder' };
  try {
    const written = await writePartialTree(req.dir, req.cwd, source, req.commit);
    return { findings: s.part.findings, objects, written };
  } catch (e) {
    if (e instanceof TreeChanged) return { full: 'the record changed while the tree was written' };
    throw e;
  }
}

/** The tree's source for the commit: the rendered files and kustomization.yaml, the earlier files of the releases rendered, the record. */
function partialSource(
  req: TreeRenderRequest,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
  s: PartState,
  p: PlacedTree,
): TreeSource {
  const memo = newMemo();
  const entries = [];
  for (let i = 0; i < p.ordered.length; i++) {
    const o = p.ordered[i];
    if (!o.rendered) continue;
    entries.push({
      path: p.paths[i],
      content: () => (req.format === 'json' ? toJson(o.object) : dumpYaml(o.object, memo)),
    });
  }
  const kustomization = kustomizationText(p.paths);
  entries.push({ path: KUSTOMIZATION, content: () => kustomization });
  const prev = new Map<string, string | undefined>([[KUSTOMIZATION, head.kustomization]]);
  // The earlier files of the releases rendered or gone, and of the policies': replaced or removed.
  for (const ns of new Set([...s.plan.render, ...s.part.byRelease.keys()]))
    for (const f of p.files.get(ns) ?? []) prev.set(f.path, f.sha256);
  return {
    files: entries,
    partial: { prev, total: p.ordered.length + 1, recordId: head.id ?? '', held: new Set(p.paths) },
    record: (digestOf) => partialRecord(req, head, s, p, digestOf),
  };
}

/** The tree after the run as the record is made of it. */
interface PlacedTree {
  ordered: Placed[];
  paths: string[];
  lines: Map<string, Record<string, unknown>>;
  /** The record's files, by release. */
  files: Map<string, TreeFile[]>;
}

/** The record of the tree after the run (treeRecord.ts recordBytes: what a whole render's record holds, byte for byte). */
function partialRecord(
  req: TreeRenderRequest,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
  s: PartState,
  p: PlacedTree,
  digestOf: (path: string) => string,
): Buffer[] {
  const byRelease = new Map<string, RecordFile[]>();
  const shared = new Set<string>();
  for (let i = 0; i < p.ordered.length; i++) {
    const { object: o, release, rendered } = p.ordered[i];
    const rel = p.paths[i];
    const folder = rel.slice(0, rel.indexOf('/'));
    if (!release || segment(release) !== folder) shared.add(folder);
    if (!rendered) continue;
    let l = byRelease.get(release);
    if (!l) byRelease.set(release, (l = []));
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name };
    l.push({
      path: rel,
      sha256: digestOf(rel),
      object: o.metadata.namespace ? { ...ref, namespace: o.metadata.namespace } : ref,
    });
  }
  return partRecord(req, head, s, p.lines, (ns) => byRelease.get(ns) ?? [], {
    kustomization: digestOf(KUSTOMIZATION),
    folders: [...shared].sort(),
  });
}

/**
 * The record of a tree written in part (partialRecord, keptPathsSource): each release the run
 * rendered with its files, every other release's block copied as the tree holds it, and the
 * platform line made again from the part's facts.
 */
function partRecord(
  req: TreeRenderRequest,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
  s: PartState,
  lines: Map<string, Record<string, unknown>>,
  filesOf: (release: string) => readonly RecordFile[],
  tail: { kustomization: string; folders: string[] },
): Buffer[] {
  const digests = new Map(head.releases.map((r) => [r.namespace, r]));
  const releases: RecordBlockInput[] = [...s.part.order, ''].map((ns) => {
    const info = ns ? lines.get(ns) : undefined;
    if (s.part.byRelease.has(ns)) return { namespace: ns, info, files: filesOf(ns) };
    const r = digests.get(ns)!;
    return { namespace: ns, info, copy: { bytes: s.blocks.get(ns)!, files: r.block.files, digest: r.digest } };
  });
  const platform = factLines({
    platform: s.part.platform,
    uids: uidsGiven(req.input.objects),
    pass: s.facts.pass,
    releases: new Map(),
  }).platform;
  return recordParts({ format: req.format, making: { ...req.making, platform }, releases, ...tail });
}

/** The identity of an object's file as a record line holds it. */
function lineKey(path: string, o: { apiVersion: string; kind: string; namespace?: string; name: string }): string {
  return JSON.stringify([path, o.apiVersion, o.kind, o.namespace ?? '', o.name]);
}

/**
 * The rendered releases' files when they are the files the record has for them, object for object
 * (the same releases in the same order, each writing the same objects at the same paths): then the
 * tree's order, kustomization.yaml and folders are the record's, and only these blocks change.
 */
function samePaths(
  req: TreeRenderRequest,
  s: PartState,
  files: Map<string, TreeFile[]>,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
): { placed: Placed[]; paths: string[] } | undefined {
  const was = head.releases.map((r) => r.namespace).filter((ns) => ns !== '');
  if (was.length !== s.part.order.length || was.some((ns, i) => s.part.order[i] !== ns)) return undefined;
  const placed: Placed[] = [];
  const paths: string[] = [];
  for (const [ns, objs] of s.part.byRelease) {
    const ordered = orderOutput(objs);
    const old = files.get(ns) ?? [];
    if (old.length !== ordered.length) return undefined;
    for (let i = 0; i < ordered.length; i++) {
      const o = ordered[i];
      const rel = outputFileOf(o, req.format);
      const f = old[i];
      const ref = { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name };
      if (!f.object || lineKey(f.path, f.object) !== lineKey(rel, ref)) return undefined;
      placed.push({ object: o, release: ns, rendered: true });
      paths.push(rel);
    }
  }
  return { placed, paths };
}

/**
 * The paths of a tree a folder at a time (`folder/name`, or `name` at the top): what a re-render
 * checks folder by folder (inPlace) and asks of (the commit's PathLookup), without a set of every
 * path whole (170,000 at XL).
 */
class FolderPaths implements PathLookup {
  /** Each folder's file names ('' the top). */
  readonly folders = new Map<string, Set<string>>();

  add(rel: string): void {
    const slash = rel.lastIndexOf('/');
    this.names(slash < 0 ? '' : rel.slice(0, slash)).add(rel.slice(slash + 1));
  }

  /** The names of a folder, made empty when it has none yet. */
  names(folder: string): Set<string> {
    let names = this.folders.get(folder);
    if (!names) this.folders.set(folder, (names = new Set()));
    return names;
  }

  has(rel: string): boolean {
    const slash = rel.lastIndexOf('/');
    return this.folders.get(slash < 0 ? '' : rel.slice(0, slash))?.has(rel.slice(slash + 1)) === true;
  }
}

/** The paths a block's lines name, read without parsing the rest of each line. */
function blockPaths(bytes: Buffer, into: FolderPaths): void {
  const text = bytes.toString('utf8');
  // A block's files are mostly in one folder, one after another: its names are looked up once.
  let folder: string | undefined;
  let names: Set<string> | undefined;
  for (let at = 0; at < text.length;) {
    let nl = text.indexOf('\n', at);
    if (nl < 0) nl = text.length;
    const end = text.indexOf('",', at);
    // A file's line: `["path","sha256",...]`.
    if (end > at && end < nl && text.startsWith('["', at)) {
      const start = at + 2;
      // Within the path (a line's search would run past it): its last slash, and whether it holds an escape.
      let slash = -1;
      let escaped = false;
      for (let i = start; i < end; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x2f) slash = i;
        else if (c === 0x5c) escaped = true;
      }
      if (escaped) into.add(JSON.parse(text.slice(at + 1, end + 1)) as string);
      else {
        // A path without an escape is its JSON text unquoted: `["folder/name",...`.
        if (slash < 0) into.add(text.slice(start, end));
        else {
          if (folder === undefined || slash - start !== folder.length || !text.startsWith(folder, start))
            names = into.names((folder = text.slice(start, slash)));
          names!.add(text.slice(slash + 1, end));
        }
      }
    }
    at = nl + 1;
  }
}

/** The rendered releases' files when only their own folders change (localPaths): each release's, and its folder's run before and after. */
interface LocalPaths {
  placed: Placed[];
  paths: string[];
  /** kustomization.yaml after the run. */
  kustomization: string;
  /** The files of the tree after the run, kustomization.yaml included. */
  total: number;
  /** The paths the rendered releases had before the run (replaced or removed by it). */
  gone: Set<string>;
}

/** One rendered release's files, when those outside its own folder are the record's and its own folder holds no other release's. */
function releaseRun(req: TreeRenderRequest, ns: string, objs: KObject[], old: TreeFile[], shared: ReadonlySet<string>) {
  // The admission policies ('') have no folder of their own: their files must all be the record's.
  const folder = ns ? segment(ns) : undefined;
  if (folder !== undefined && shared.has(folder)) return undefined;
  const ordered = orderOutput(objs);
  const paths = ordered.map((o) => outputFileOf(o, req.format));
  if (new Set(paths).size !== paths.length) return undefined;
  const mine = (rel: string) => rel.slice(0, rel.indexOf('/')) === folder;
  const oldElsewhere: string[] = [];
  const oldOwn: string[] = [];
  for (const f of old) {
    if (!f.object || outputFileOf(stubOf(f), req.format) !== f.path) return undefined;
    if (mine(f.path)) oldOwn.push(f.path);
    else oldElsewhere.push(lineKey(f.path, f.object));
  }
  const elsewhere: string[] = [];
  const own: string[] = [];
  ordered.forEach((o, i) => {
    const m = o.metadata;
    if (mine(paths[i])) own.push(paths[i]);
    else
      elsewhere.push(
        lineKey(paths[i], { apiVersion: o.apiVersion, kind: o.kind, namespace: m.namespace, name: m.name }),
      );
  });
  const plain = (rel: string) => PLAIN_PATH.test(rel);
  if (
    elsewhere.join('\n') !== oldElsewhere.join('\n') ||
    (own.length && !oldOwn.length) ||
    ![...own, ...oldOwn].every(plain)
  )
    return undefined;
  return { ordered, paths, own, oldOwn };
}

/** The paths kustomization.yaml lists, when it is the file the record names (its digest) and lists them plainly. */
function kustomizationList(dir: string, digest: string | undefined): { head: string; paths: string[] } | undefined {
  let bytes: Buffer;
  try {
    const fd = nodeFs.openSync(path.join(dir, KUSTOMIZATION), nodeFs.constants.O_RDONLY | nodeFs.constants.O_NOFOLLOW);
    try {
      bytes = nodeFs.readFileSync(fd);
    } finally {
      nodeFs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (!digest || sha256(bytes) !== digest) return undefined;
  const text = bytes.toString('utf8');
  const at = text.indexOf('\nresources:\n');
  if (at < 0 || !text.endsWith('\n')) return undefined;
  const paths = text.slice(at + 12, -1).split('\n');
  for (let i = 0; i < paths.length; i++) {
    const l = paths[i];
    if (!l.startsWith('  - ') || !PLAIN_PATH.test((paths[i] = l.slice(4)))) return undefined;
  }
  return { head: text.slice(0, at + 12), paths };
}

/**
 * The rendered releases' files when each changes only the files of its own folder (a quota added: a
 * ResourceQuota and a LimitRange more): its files elsewhere (`_cluster`, a platform namespace's) the
 * record's, its own folder one no other release writes into. The tree's order is then kustomization.yaml's with each such
 * folder's run replaced (output order sorts a namespace's objects together), not made again from
 * every file of the tree (docs/performance.md "Changed-only").
 */
function localPaths(
  req: TreeRenderRequest,
  s: PartState,
  files: Map<string, TreeFile[]>,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
  dir: string,
): LocalPaths | undefined {
  const was = head.releases.map((r) => r.namespace).filter((ns) => ns !== '');
  if (was.length !== s.part.order.length || was.some((ns, i) => s.part.order[i] !== ns)) return undefined;
  const shared = new Set(head.folders);
  const placed: Placed[] = [];
  const paths: string[] = [];
  const gone = new Set<string>();
  const runs: { old: string[]; own: string[] }[] = [];
  let total = head.releases.reduce((n, r) => n + r.block.files, 0) + 1;
  for (const [ns, objs] of s.part.byRelease) {
    const old = files.get(ns) ?? [];
    const r = releaseRun(req, ns, objs, old, shared);
    if (!r) return undefined;
    r.ordered.forEach((o, i) => {
      placed.push({ object: o, release: ns, rendered: true });
      paths.push(r.paths[i]);
    });
    for (const f of old) gone.add(f.path);
    total += r.paths.length - old.length;
    if (r.oldOwn.length) runs.push({ old: r.oldOwn, own: r.own });
  }
  const k = kustomizationList(dir, head.kustomization);
  if (!k) return undefined;
  const old = k.paths;
  const list: string[] = [];
  let from = 0;
  for (const r of runs.map((x) => ({ ...x, i: old.indexOf(x.old[0]) })).sort((a, b) => a.i - b.i)) {
    if (r.i < from || r.old.some((p, j) => old[r.i + j] !== p)) return undefined;
    pushAll(list, old.slice(from, r.i));
    pushAll(list, r.own);
    from = r.i + r.old.length;
  }
  pushAll(list, old.slice(from));
  if (list.length !== total - 1) return undefined;
  return { placed, paths, kustomization: `${k.head}${list.map((p) => `  - ${p}\n`).join('')}`, total, gone };
}

/** The tree's source when the rendered releases change only their own folders' files (localPaths). */
function localSource(
  req: TreeRenderRequest,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
  s: PartState,
  p: LocalPaths & { lines: Map<string, Record<string, unknown>>; files: Map<string, TreeFile[]> },
  before: PathLookup,
): TreeSource {
  const kept = keptPathsSource(req, head, s, p, before);
  const prev = new Map(kept.partial!.prev);
  prev.set(KUSTOMIZATION, head.kustomization);
  // The tree's files after the run: those before, but the rendered releases' earlier ones, and theirs now.
  const made = new Set(p.paths);
  const held: PathLookup = { has: (rel) => made.has(rel) || (before.has(rel) && !p.gone.has(rel)) };
  return {
    files: [...kept.files, { path: KUSTOMIZATION, content: () => p.kustomization }],
    partial: { prev, total: p.total, recordId: head.id ?? '', held },
    record: (digestOf) =>
      keptRecord(req, head, s, p, { kustomization: digestOf(KUSTOMIZATION), folders: head.folders }, digestOf),
  };
}

/** The tree's source when the rendered releases keep their paths (samePaths): their files and blocks; kustomization.yaml and the rest as they are. */
function keptPathsSource(
  req: TreeRenderRequest,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
  s: PartState,
  p: { placed: Placed[]; paths: string[]; lines: Map<string, Record<string, unknown>>; files: Map<string, TreeFile[]> },
  held: PathLookup,
): TreeSource {
  const memo = newMemo();
  const entries = p.placed.map((o, i) => ({
    path: p.paths[i],
    content: () => (req.format === 'json' ? toJson(o.object) : dumpYaml(o.object, memo)),
  }));
  const prev = new Map<string, string | undefined>();
  for (const ns of s.part.byRelease.keys()) for (const f of p.files.get(ns) ?? []) prev.set(f.path, f.sha256);
  const total = head.releases.reduce((n, r) => n + r.block.files, 0) + 1;
  const record = (digestOf: (path: string) => string) =>
    keptRecord(req, head, s, p, { kustomization: head.kustomization ?? '', folders: head.folders }, digestOf);
  return { files: entries, partial: { prev, total, recordId: head.id ?? '', held }, record };
}

/** The record of a tree whose rendered releases' files are `p`'s (keptPathsSource, localSource). */
function keptRecord(
  req: TreeRenderRequest,
  head: NonNullable<ReturnType<typeof readTreeHead>>,
  s: PartState,
  p: { placed: Placed[]; paths: string[]; lines: Map<string, Record<string, unknown>> },
  tail: { kustomization: string; folders: string[] },
  digestOf: (path: string) => string,
): Buffer[] {
  const byRelease = new Map<string, RecordFile[]>();
  p.paths.forEach((rel, i) => {
    const { object: o, release } = p.placed[i];
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name };
    let l = byRelease.get(release);
    if (!l) byRelease.set(release, (l = []));
    l.push({
      path: rel,
      sha256: digestOf(rel),
      object: o.metadata.namespace ? { ...ref, namespace: o.metadata.namespace } : ref,
    });
  });
  return partRecord(req, head, s, p.lines, (ns) => byRelease.get(ns) ?? [], tail);
}

/**
 * Whether every path is a regular file whose folders are real folders (none a link), under `dir`:
 * read a folder at a time (each folder listed once with its entries' types, not a call per file:
 * 170,000 files' lstat took 1.6 s of a re-render at XL); an entry whose type the listing does not
 * give is looked at on its own.
 */
function inPlace(dir: string, paths: FolderPaths): boolean {
  const listed = new Map<string, nodeFs.Dirent[] | undefined>();
  const list = (folder: string) => {
    if (!listed.has(folder)) {
      let entries: nodeFs.Dirent[] | undefined;
      try {
        entries = nodeFs.readdirSync(path.join(dir, folder), { withFileTypes: true });
      } catch {
        entries = undefined;
      }
      listed.set(folder, entries);
    }
    return listed.get(folder);
  };
  const is = (folder: string, e: nodeFs.Dirent, kind: 'file' | 'folder'): boolean => {
    if (e.isFile() || e.isDirectory() || e.isSymbolicLink()) return kind === 'file' ? e.isFile() : e.isDirectory();
    const st = nodeFs.lstatSync(path.join(dir, folder, e.name), { throwIfNoEntry: false });
    return kind === 'file' ? st?.isFile() === true : st?.isDirectory() === true;
  };
  // The folders' own entries, by name: those that hold a folder of the tree (the top, mostly).
  const byName = new Map<string, Map<string, nodeFs.Dirent> | undefined>();
  const entry = (folder: string, name: string) => {
    if (!byName.has(folder)) {
      const entries = list(folder);
      byName.set(folder, entries && new Map(entries.map((e) => [e.name, e])));
    }
    return byName.get(folder)?.get(name);
  };
  const real = new Map<string, boolean>([['', true]]);
  const realFolder = (folder: string): boolean => {
    let ok = real.get(folder);
    if (ok === undefined) {
      const slash = folder.lastIndexOf('/');
      const parent = slash < 0 ? '' : folder.slice(0, slash);
      const e = realFolder(parent) ? entry(parent, folder.slice(slash + 1)) : undefined;
      ok = e !== undefined && is(parent, e, 'folder');
      real.set(folder, ok);
    }
    return ok;
  };
  for (const [folder, names] of paths.folders) {
    if (!realFolder(folder)) return false;
    const entries = list(folder);
    if (!entries) return false;
    // Each name once among the folder's entries, and a regular file.
    let found = 0;
    for (const e of entries) {
      if (!names.has(e.name)) continue;
      if (!is(folder, e, 'file')) return false;
      found++;
    }
    if (found !== names.size) return false;
  }
  return true;
}
