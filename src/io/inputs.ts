/**
 * Reading inputs (the CLI edge): `-f` files, directories and stdin; multi-document YAML and
 * JSON; List kinds flattened. Bulk parsing uses js-yaml (fast); where a message needs a line
 * number for a field, the document is re-read lazily with `yaml`, which keeps source positions.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import type * as YamlLib from 'yaml';
import type { LineCounter, Node } from 'yaml';
import { FindingsError, error, type Finding } from '../k8s/diagnostics';
import { readAllStdin } from './stdin';
import { isObject, type KObject } from '../k8s/model';

/** Where an object came from. Kept beside objects (a WeakMap), never inside them. */
export interface Origin {
  file: string;
  /** Index of the YAML document within the file. */
  doc: number;
  /** Path from the document root to the object (e.g. `['items', 3]` for a List item). */
  path: (string | number)[];
}

const origins = new WeakMap<object, Origin>();
const texts = new Map<string, string>();

export function originOf(o: object): Origin | undefined {
  return origins.get(o);
}

export function setOrigin(o: object, origin: Origin): void {
  origins.set(o, origin);
}

/** Register the text of a source so that lines can be found later (stdin cannot be re-read). */
export function rememberText(file: string, text: string): void {
  // A path read again with other content (in-process runs, tests) must not reuse stale lines.
  if (texts.get(file) !== text) docCache.delete(file);
  texts.set(file, text);
}

const docCache = new Map<string, { docs: ReturnType<typeof YamlLib.parseAllDocuments>; lc: LineCounter }>();

/** The `yaml` library (line positions), loaded on the first lineOf: a run without findings never needs it (issue 5). */
let yamlLib: typeof YamlLib | undefined;
function yaml(): typeof YamlLib {
  return (yamlLib ??= require('yaml') as typeof YamlLib);
}

/**
 * The 1-based line of a field of an object read from a file (or of the object itself when the
 * field is not in the source). `field` is a dotted path; `[n]` or `.n` index lists.
 */
export function lineOf(o: object, field?: string): number | undefined {
  const origin = origins.get(o);
  if (!origin) return undefined;
  const { LineCounter, parseAllDocuments, isMap, isSeq, isScalar } = yaml();
  let cached = docCache.get(origin.file);
  if (!cached) {
    const text = texts.get(origin.file) ?? safeRead(origin.file);
    if (text === undefined) return undefined;
    const lc = new LineCounter();
    const docs = parseAllDocuments(text, { lineCounter: lc });
    cached = { docs: Array.isArray(docs) ? docs : [docs], lc };
    docCache.set(origin.file, cached);
  }
  const doc = cached.docs[origin.doc];
  if (!doc) return undefined;
  const parts: (string | number)[] = [...origin.path, ...(field ? splitField(field) : [])];
  let node: Node | null | undefined = doc.contents as Node | null;
  let best = node?.range ? node.range[0] : undefined;
  for (const p of parts) {
    if (isMap(node)) {
      const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(p));
      if (!pair) break;
      const k = pair.key as Node;
      best = k.range ? k.range[0] : best;
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof p === 'number') {
      const item = node.items[p] as Node | undefined;
      if (!item) break;
      best = item.range ? item.range[0] : best;
      node = item;
    } else break;
  }
  return best === undefined ? undefined : cached.lc.linePos(best).line;
}

function splitField(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of field.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    if (part === '') continue;
    out.push(/^\d+$/.test(part) ? Number(part) : part);
  }
  return out;
}

function safeRead(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * How every input is read: the YAML core schema, as Kubernetes reads manifests (JSON types only).
 * js-yaml's default schema would turn `2024-05-01` or an unquoted timestamp into a Date and
 * write it back as `2024-05-01T00:00:00.000Z`, corrupting a ConfigMap value or a condition time.
 */
export const LOAD_OPTIONS = { schema: jsyaml.CORE_SCHEMA } as const;

/** Parse the documents of one source. Throws a FindingsError naming the file and line on bad YAML. */
export function parseDocuments(text: string, file: string): unknown[] {
  rememberText(file, text);
  try {
    const docs: unknown[] = [];
    jsyaml.loadAll(text, (d) => docs.push(d), { ...LOAD_OPTIONS, filename: file });
    return docs;
  } catch (e) {
    const ye = e as jsyaml.YAMLException;
    // An error at the end of the stream is reported on the last line the file has, not one past it.
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    const line = ye.mark ? Math.max(1, Math.min(ye.mark.line + 1, lines)) : undefined;
    throw new FindingsError([
      error(`not valid YAML or JSON: ${ye.reason ?? ye.message}`, {
        file,
        line,
        rule: 'input.syntax',
        hint: 'fix the YAML at that line; an unclosed bracket or quote, or an indentation that does not line up, is the usual cause',
      }),
    ]);
  }
}

/**
 * Turn parsed documents into objects: `List` / `*List` kinds are flattened into their items,
 * empty documents skipped, and anything that is not a Kubernetes object reported.
 */
export function objectsOf(docs: unknown[], file: string, findings: Finding[]): KObject[] {
  const out: KObject[] = [];
  const visit = (d: unknown, doc: number, p: (string | number)[]) => {
    if (d === null || d === undefined) return;
    if (!isObject(d)) {
      findings.push(error('expected a Kubernetes object (a mapping with apiVersion, kind and metadata)', { file, rule: 'input.object', line: lineAt(file, doc, p), hint: 'each YAML document must be one object; put several in a `kind: List` with `items:`, or separate them with ---' }));
      return;
    }
    if (typeof d.kind === 'string' && d.kind.endsWith('List') && Array.isArray(d.items)) {
      d.items.forEach((it, i) => visit(it, doc, [...p, 'items', i]));
      return;
    }
    const missing = ['apiVersion', 'kind'].filter((k) => typeof d[k] !== 'string' || d[k] === '');
    const md = d.metadata;
    if (!isObject(md) || typeof md.name !== 'string' || md.name === '') missing.push('metadata.name');
    if (missing.length) {
      findings.push(error(`object lacks ${missing.join(', ')}`, { file, rule: 'input.object', line: lineAt(file, doc, p), field: missing[0], hint: 'every object needs apiVersion, kind and metadata.name, as kubectl get -o yaml prints them' }));
      return;
    }
    const o = d as unknown as KObject;
    origins.set(o, { file, doc, path: p });
    out.push(o);
  };
  docs.forEach((d, i) => visit(d, i, []));
  return out;
}

function lineAt(file: string, doc: number, p: (string | number)[]): number | undefined {
  const probe = {};
  origins.set(probe, { file, doc, path: p });
  return lineOf(probe);
}

function listFiles(p: string, cwd: string, skip?: (file: string) => boolean): string[] {
  const st = fs.statSync(path.resolve(cwd, p));
  if (!st.isDirectory()) return skip?.(p) ? [] : [p];
  const out: string[] = [];
  for (const e of fs.readdirSync(path.resolve(cwd, p), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(p, e.name);
    if (skip?.(full)) continue;
    if (e.isDirectory()) out.push(...listFiles(full, cwd, skip));
    else if (/\.(ya?ml|json)$/i.test(e.name)) out.push(full);
  }
  return out;
}

export interface ReadOptions {
  /** Reads all of standard input; injected so the core stays testable. */
  readStdin?: () => string;
  /** Directory relative paths are resolved against (messages keep the path as given). */
  cwd?: string;
  /** Files (and directories) not to read, e.g. a committed tree's kustomization.yaml. */
  skip?: (file: string) => boolean;
}

export function readStdinSync(): string {
  return readAllStdin();
}

/** Read every `-f` source. Every problem in every file is reported together. */
export function readInputs(paths: string[], opts: ReadOptions = {}): KObject[] {
  const findings: Finding[] = [];
  const objs: KObject[] = [];
  for (const p of paths) {
    if (p === '-') {
      const text = (opts.readStdin ?? readStdinSync)();
      try {
        objs.push(...objectsOf(parseDocuments(text, '<stdin>'), '<stdin>', findings));
      } catch (e) {
        if (e instanceof FindingsError) findings.push(...e.findings);
        else throw e;
      }
      continue;
    }
    let files: string[];
    try {
      files = listFiles(p, opts.cwd ?? process.cwd(), opts.skip);
    } catch {
      findings.push(error(`cannot read ${p}: no such file or directory`, { file: p, rule: 'input.missing', hint: 'check the -f path' }));
      continue;
    }
    for (const f of files) {
      try {
        const text = fs.readFileSync(path.resolve(opts.cwd ?? process.cwd(), f), 'utf8');
        rememberText(f, text);
        objs.push(...objectsOf(parseDocuments(text, f), f, findings));
      } catch (e) {
        if (e instanceof FindingsError) findings.push(...e.findings);
        else findings.push(error(`cannot read ${f}: ${(e as Error).message}`, { file: f, rule: 'input.missing' }));
      }
    }
  }
  if (findings.length) throw new FindingsError(findings);
  return objs;
}

/** Read `--values` files (each one mapping), in order; merging is the platform values module's job. */
export function readValuesFiles(files: string[], opts: ReadOptions = {}): { file: string; values: Record<string, unknown> }[] {
  const findings: Finding[] = [];
  const out: { file: string; values: Record<string, unknown> }[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = f === '-' ? (opts.readStdin ?? readStdinSync)() : fs.readFileSync(path.resolve(opts.cwd ?? process.cwd(), f), 'utf8');
    } catch {
      findings.push(error(`cannot read values file ${f}`, { file: f, rule: 'values.missing', hint: 'check the --values path' }));
      continue;
    }
    try {
      const docs = parseDocuments(text, f).filter((d) => d !== null && d !== undefined);
      if (docs.length === 0) { out.push({ file: f, values: {} }); continue; }
      if (docs.length > 1 || !isObject(docs[0])) {
        findings.push(error('a values file must hold one mapping (top-level keys publishing, gateway, ...)', { file: f, line: 1, rule: 'values.shape' }));
        continue;
      }
      const values = docs[0] as Record<string, unknown>;
      setOrigin(values, { file: f, doc: 0, path: [] });
      out.push({ file: f, values });
    } catch (e) {
      if (e instanceof FindingsError) findings.push(...e.findings);
      else throw e;
    }
  }
  if (findings.length) throw new FindingsError(findings);
  return out;
}
