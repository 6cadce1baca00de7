/**
 * Reading inputs (the CLI edge): `-f` files, directories and stdin; multi-document YAML and
 * JSON; List kinds flattened. Bulk parsing uses js-yaml (fast); a source that is one JSON document
 * (a `kubectl get -o json` List, a cozy-gw `-o json` output) is read with `JSON.parse` (faster
 * still, src/io/jsonText.ts) when that gives the value js-yaml would. Every reader returns, beside
 * what it read, the SourceMap of it (src/io/sourceMap.ts): where each object came from, from
 * which the CLI edge finds the line of a field when a finding names one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { FindingsError, error, type Finding } from '../k8s/diagnostics';
import {
  CHUNK,
  readAllStdin,
  readChunks,
  readFdText,
  readFileText,
  readOpened,
  ReadBuffer,
  SourceRefused,
  tooLargeError,
} from './stdin';
import { JsonListReader, type JsonListResult, type StreamedList } from './jsonList';
import { isObject, type KObject } from '../k8s/model';
import { isList } from '../k8s/lists';
import { LOAD_OPTIONS } from '../k8s/yaml';
import { loadAllFast, type StringPool } from '../k8s/yamlFastRead';
import { SourceMap, stampOf, type FileStamp } from './sourceMap';
import { isTreeBookkeeping } from './treeFiles';
import { checkParsed, checkText, limitHint, MAX_DEPTH, MAX_SOURCE_BYTES, type LimitProblem } from '../k8s/limits';
import { countJsonKeys, looksLikeJson, parseJsonFast, printableJson, sameAsYaml } from './jsonText';
import { pushAll } from '../k8s/arrays';

export { SourceMap } from './sourceMap';

/**
 * Parse the documents of one source. Throws a FindingsError naming the file and line on bad YAML.
 * A reader of many sources passes one `pool` to every call: their repeated scalars are then kept
 * once (yamlFastRead.ts, StringPool). With a regular file's `stamp`, the source map keeps where to
 * read its text again rather than the text (SourceMap.addText).
 */
export function parseDocuments(
  text: string,
  file: string,
  sources: SourceMap,
  pool?: StringPool,
  stamp?: FileStamp,
): unknown[] {
  sources.addText(file, text, stamp);
  // JSON first: `JSON.parse` reads any size linearly, and the value is measured object by object
  // (countedAsYaml), so a JSON List past the YAML document bound (a 40 MB `kubectl get -o json`)
  // reads; what JSON does not take is bounded as YAML is, before js-yaml sees it.
  const json = readJson(text);
  if (json !== NOT_JSON) {
    sources.markJson(file);
    return [json];
  }
  const tooBig = checkText(text);
  if (tooBig) throw limitError(tooBig, file);
  // The layout Kubernetes tools write is read by the fast reader, with js-yaml's values; anything
  // else, and every error with its line, by js-yaml (src/k8s/yamlFastRead.ts).
  const docs = loadAllFast(text, pool) ?? loadWithJsYaml(text, file);
  const over = checkParsed(text, docs);
  if (over) throw limitError(over, file);
  return docs;
}

/** Every document of a text read by js-yaml; a FindingsError naming the file and line on bad YAML. */
function loadWithJsYaml(text: string, file: string): unknown[] {
  const docs: unknown[] = [];
  try {
    jsyaml.loadAll(text, (d) => docs.push(d), { ...LOAD_OPTIONS, filename: file });
  } catch (e) {
    const ye = e as jsyaml.YAMLException;
    // An error at the end of the stream is reported on the last line the file has, not one past it.
    const all = text.split(/\r\n|\r|\n/).length;
    const lines = /[\r\n]$/.test(text) ? all - 1 : all;
    const line = ye.mark ? Math.max(1, Math.min(ye.mark.line + 1, lines)) : undefined;
    if (/maxDepth/.test(ye.reason ?? ''))
      throw limitError(
        { line: line ?? 1, message: `the YAML is nested more than ${MAX_DEPTH} levels deep (limit ${MAX_DEPTH})` },
        file,
      );
    throw new FindingsError([
      error(`not valid YAML or JSON: ${ye.reason ?? ye.message}`, {
        file,
        line,
        rule: 'input.syntax',
        hint: 'fix the YAML at that line; an unclosed bracket or quote, or an indentation that does not line up, is the usual cause',
      }),
    ]);
  }
  return docs;
}

const NOT_JSON = Symbol('not JSON');
/**
 * One JSON document read with `JSON.parse`, or NOT_JSON when js-yaml must read the text: it is not
 * one JSON document, or the parsed value could differ from js-yaml's (sameAsYaml: a number js-yaml
 * reads otherwise, nesting it refuses; a key repeated in a mapping, which js-yaml refuses; a
 * character js-yaml refuses, NON_PRINTABLE, which `JSON.parse` takes in a string), or it crosses a
 * bound (sameAsYaml measures it as src/k8s/limits.ts does). In every such case the text is read as
 * before, with js-yaml's values, errors and lines.
 */
function readJson(text: string): unknown {
  if (!looksLikeJson(text)) return NOT_JSON;
  const value = parseJsonFast(text);
  if (value === undefined || !printableJson(text)) return NOT_JSON;
  return countedAsYaml(value, countJsonKeys(text));
}

/**
 * readJson for a List read item by item (src/io/jsonList.ts): the head and tail read as one text
 * (the object with an empty `items`) and the items put in, with the same checks, made on the pieces:
 * the keys of the text are those of the pieces, and a character is in the text when it is in one.
 */
function readJsonList(l: StreamedList['list']): unknown {
  const shellText = l.head + l.tail;
  const shell = parseJsonFast(shellText);
  if (!isObject(shell) || !Array.isArray(shell.items) || shell.items.length !== 0) return NOT_JSON;
  if (!l.printable || !printableJson(shellText)) return NOT_JSON;
  shell.items = l.items;
  return countedAsYaml(shell, l.keys + countJsonKeys(shellText));
}

/**
 * A parsed JSON value, or NOT_JSON when js-yaml could read its text (with `keys` keys) otherwise:
 * sameAsYaml's walk declines a number js-yaml reads otherwise, nesting it refuses and a value past
 * a bound of src/k8s/limits.ts (what checkParsed would refuse, which js-yaml then reads and reports
 * at its line), and counts the entries, fewer than the keys when a key is repeated.
 */
function countedAsYaml(value: unknown, keys: number): unknown {
  const entries = sameAsYaml(value);
  return entries === undefined || entries !== keys ? NOT_JSON : value;
}

/** A bound of src/k8s/limits.ts crossed: an input error at the file and the document's line. */
function limitError(p: LimitProblem, file: string): FindingsError {
  return new FindingsError([
    error(p.message, {
      file,
      line: p.line,
      rule: 'input.limit',
      hint: limitHint(p.message),
    }),
  ]);
}

/**
 * Turn parsed documents into objects: `List` / `*List` kinds are flattened into their items,
 * empty documents skipped, and anything that is not a Kubernetes object reported.
 */
export function objectsOf(docs: unknown[], file: string, findings: Finding[], sources: SourceMap): KObject[] {
  const out: KObject[] = [];
  const visit = (d: unknown, doc: number, p: (string | number)[]) => {
    if (d === null || d === undefined) return;
    if (!isObject(d)) {
      findings.push(
        error('expected a Kubernetes object (a mapping with apiVersion, kind and metadata)', {
          file,
          rule: 'input.object',
          line: sources.lineAt({ file, doc, path: p }),
          hint: 'each YAML document must be one object; put several in a `kind: List` with `items:`, or separate them with ---',
        }),
      );
      return;
    }
    if (isList(d)) {
      const items = d.items;
      // concat, not a spread: no iterator per item (docs/performance.md).
      for (let i = 0; i < items.length; i++) visit(items[i], doc, p.concat('items', i));
      return;
    }
    const md = d.metadata;
    const named = isObject(md) && typeof md.name === 'string' && md.name !== '';
    if (!named || !nonEmpty(d.apiVersion) || !nonEmpty(d.kind)) {
      const missing = ['apiVersion', 'kind'].filter((k) => !nonEmpty(d[k]));
      if (!named) missing.push('metadata.name');
      // A platform values file given to -f: say where it belongs.
      const looksLikeValues =
        p.length === 0 && d.apiVersion === undefined && d.kind === undefined && ('publishing' in d || 'gateway' in d);
      const hint = looksLikeValues
        ? `this looks like platform values (top-level publishing/gateway): pass it with --values ${file}`
        : 'every object needs apiVersion, kind and metadata.name, as kubectl get -o yaml prints them';
      findings.push(
        error(`object lacks ${missing.join(', ')}`, {
          file,
          rule: 'input.object',
          line: sources.lineAt({ file, doc, path: p }),
          field: missing[0],
          hint,
        }),
      );
      return;
    }
    const o = d as unknown as KObject;
    sources.addObject(o, { file, doc, path: p });
    out.push(o);
  };
  for (let i = 0; i < docs.length; i++) visit(docs[i], i, []);
  return out;
}

/** A string with something in it (an object's apiVersion, kind and name must be). */
function nonEmpty(v: unknown): boolean {
  return typeof v === 'string' && v !== '';
}

/** Why a path could not be read, in words (not Node's `ENOENT: no such file or directory, open '...'`). */
function unreadable(e: unknown): string {
  const why: Record<string, string> = {
    ENOENT: 'no such file or directory',
    ENOTDIR: 'no such file or directory (a part of the path is a file)',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'a directory, not a file',
    ELOOP: 'too many levels of symbolic links',
  };
  const err = e as NodeJS.ErrnoException;
  return (err.code && why[err.code]) ?? String(err.message ?? e).split('\n')[0];
}

/** What a non-regular file is, in words (for the finding that refuses it in a directory). */
function kindOfFile(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'something else';
}

/**
 * The files a `-f` path names: the path itself (a file or a stream, read as given), or the
 * *.yaml, *.yml and *.json files under a directory, sorted. Inside a directory only regular files
 * are read (symbolic links followed): a FIFO would block the run, a device such as /dev/zero
 * never ends; each is an input error naming it.
 */
function listFiles(p: string, cwd: string, irregular: Finding[] = []): string[] {
  const st = fs.statSync(path.resolve(cwd, p));
  if (!st.isDirectory()) return [p];
  const out: string[] = [];
  for (const e of fs
    .readdirSync(path.resolve(cwd, p), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(p, e.name);
    // A tree's kustomization.yaml and hidden names are not objects (treeFiles.ts); a file named
    // with -f is read whatever its name.
    if (isTreeBookkeeping(e.name)) continue;
    // A name that is not UTF-8 comes back with U+FFFD in place of its bytes, and that name is no
    // file: reading it said "no such file or directory" of a file the directory lists.
    if (e.name.includes('\uFFFD') && !fs.existsSync(path.resolve(cwd, full))) {
      if (e.isDirectory() || /\.(ya?ml|json)$/i.test(e.name))
        irregular.push(
          error('a name that is not UTF-8 (\uFFFD stands for the bytes that are not): it cannot be read by its name', {
            file: full,
            rule: 'input.name-not-utf8',
            hint: 'rename it in UTF-8',
          }),
        );
      continue;
    }
    if (e.isDirectory()) pushAll(out, listFiles(full, cwd, irregular));
    else if (/\.(ya?ml|json)$/i.test(e.name)) {
      // A regular file is read as is; anything else (a link is followed) is looked at first.
      let target: fs.Stats | undefined;
      if (!e.isFile())
        try {
          target = fs.statSync(path.resolve(cwd, full));
        } catch {
          target = undefined; // a dangling link: reading it names the problem
        }
      if (target && !target.isFile() && !target.isDirectory())
        irregular.push(
          error(`not a regular file but ${kindOfFile(target)}: a directory is read for regular files only`, {
            file: full,
            rule: 'input.not-regular',
            hint: 'remove it from the directory, or give a stream explicitly with -f PATH',
          }),
        );
      else out.push(full);
    }
  }
  return out;
}

/**
 * A file read whole, bounded (src/io/stdin.ts; through `into`, when given, a chunk buffer reused
 * from file to file), as text, with the stamp that lets the source map read a regular file again
 * instead of keeping its text (src/io/sourceMap.ts); past the bound an input error naming it.
 */
function readSource(file: string, cwd: string, into?: ReadBuffer): { text: string; stamp?: FileStamp } {
  const at = path.resolve(cwd, file);
  let stamp: FileStamp | undefined;
  try {
    const text = readFileText(at, undefined, into, (st) => (stamp = stampOf(at, st)));
    return { text, stamp };
  } catch (e) {
    if (e instanceof SourceRefused) throw tooLargeError(file, e);
    throw e;
  }
}

/**
 * A file read as readFileText reads it (src/io/stdin.ts), except that a regular file is read
 * through a JsonListReader: a JSON List comes back item by item, parsed, its whole text never made
 * (src/io/jsonList.ts), whatever its size up to the source bound (each item at most
 * MAX_OBJECT_BYTES); anything else as its text, read once (a YAML document then bounded by
 * MAX_DOCUMENT_BYTES). `again`: read it again whole.
 */
export function readFileSource(
  file: string,
  max = MAX_SOURCE_BYTES,
  scratch = new ReadBuffer(),
  seen?: (st: fs.Stats) => void,
): JsonListResult {
  return readOpened(file, max, seen, (fd, size) => {
    if (size === 0) return { text: readFdText(fd, max, size, scratch) };
    const reader = new JsonListReader((n, keep) => scratch.hold(n, keep), scratch.decoder());
    try {
      readChunks(
        fd,
        max,
        size < CHUNK ? size : 0,
        (len) => reader.space(len),
        (chunk) => reader.scan(chunk.length),
      );
    } catch (e) {
      reader.abandon();
      throw e;
    }
    return reader.end();
  });
}

/**
 * The documents of one input file. A regular file that is a JSON List is read item by item, its
 * whole text never made (src/io/jsonList.ts, docs/performance.md), when that gives the value
 * js-yaml would; anything else is read as text (parseDocuments), and a List given up on, or whose
 * value could differ, is read again whole, with js-yaml's values, errors and lines.
 */
function readDocuments(file: string, cwd: string, sources: SourceMap, pool: StringPool, into: ReadBuffer): unknown[] {
  const at = path.resolve(cwd, file);
  let stamp: FileStamp | undefined;
  let read: JsonListResult;
  try {
    read = readFileSource(at, undefined, into, (st) => (stamp = stampOf(at, st)));
  } catch (e) {
    if (e instanceof SourceRefused) throw tooLargeError(file, e);
    throw e;
  }
  if (read !== 'again' && 'list' in read && stamp) {
    const value = readJsonList(read.list);
    if (value !== NOT_JSON) {
      sources.addFile(file, stamp);
      sources.markJson(file);
      return [value];
    }
  }
  const src = read !== 'again' && 'text' in read ? { text: read.text, stamp } : readSource(file, cwd, into);
  return parseDocuments(src.text, file, sources, pool, src.stamp);
}

export interface ReadOptions {
  /** Reads all of standard input; injected so the core stays testable. */
  readStdin?: () => string;
  /** Directory relative paths are resolved against (messages keep the path as given). */
  cwd?: string;
  /** The map to add to (one map for every reader of a run); a new one when not given. */
  sources?: SourceMap;
  /** The option the paths were given with (`-f`, `--state`), which a hint about a wrong path names. */
  flag?: string;
}

export function readStdinSync(): string {
  return readAllStdin();
}

/** Read every `-f` source. Every problem in every file is reported together. */
export function readInputs(paths: string[], opts: ReadOptions = {}): { objects: KObject[]; sources: SourceMap } {
  const sources = opts.sources ?? new SourceMap();
  const findings: Finding[] = [];
  const objs: KObject[] = [];
  const pool: StringPool = new Map();
  // One chunk buffer for every file of this read (stdin.ts, ReadBuffer, readFileText).
  const into = new ReadBuffer();
  for (const p of paths) {
    if (p === '-') {
      const text = (opts.readStdin ?? readStdinSync)();
      try {
        pushAll(objs, objectsOf(parseDocuments(text, '<stdin>', sources, pool), '<stdin>', findings, sources));
      } catch (e) {
        if (e instanceof FindingsError) pushAll(findings, e.findings);
        else throw e;
      }
      continue;
    }
    let files: string[];
    const flag = opts.flag ?? '-f';
    const refusedBefore = findings.length;
    try {
      files = listFiles(p, opts.cwd ?? process.cwd(), findings);
    } catch (e) {
      findings.push(error(unreadable(e), { file: p, rule: 'input.missing', hint: `check the ${flag} path` }));
      continue;
    }
    // A directory with nothing to read is a mistyped or wrong path far more often than an
    // intended empty input: an error naming it, never a silent success over nothing.
    if (files.length === 0 && findings.length === refusedBefore) {
      findings.push(
        error('a directory with no *.yaml, *.yml or *.json file in it or below it', {
          file: p,
          rule: 'input.empty-dir',
          hint: `check the ${flag} path`,
        }),
      );
      continue;
    }
    for (const f of files) {
      try {
        pushAll(
          objs,
          objectsOf(readDocuments(f, opts.cwd ?? process.cwd(), sources, pool, into), f, findings, sources),
        );
      } catch (e) {
        if (e instanceof FindingsError) pushAll(findings, e.findings);
        else findings.push(error(unreadable(e), { file: f, rule: 'input.missing' }));
      }
    }
  }
  if (findings.length) throw new FindingsError(findings);
  return { objects: objs, sources };
}

/** Read `--values` files (each one mapping), in order; merging is the platform values module's job. */
export function readValuesFiles(
  files: string[],
  opts: ReadOptions = {},
): { values: { file: string; values: Record<string, unknown> }[]; sources: SourceMap } {
  const sources = opts.sources ?? new SourceMap();
  const findings: Finding[] = [];
  const out: { file: string; values: Record<string, unknown> }[] = [];
  for (const f of files) {
    let text: string;
    let stamp: FileStamp | undefined;
    try {
      if (f === '-') text = (opts.readStdin ?? readStdinSync)();
      else ({ text, stamp } = readSource(f, opts.cwd ?? process.cwd()));
    } catch (e) {
      if (e instanceof FindingsError) {
        pushAll(findings, e.findings);
        continue;
      }
      findings.push(error(unreadable(e), { file: f, rule: 'values.missing', hint: 'check the --values path' }));
      continue;
    }
    try {
      const docs = parseDocuments(text, f, sources, undefined, stamp).filter((d) => d !== null && d !== undefined);
      if (docs.length === 0) {
        out.push({ file: f, values: {} });
        continue;
      }
      if (docs.length > 1 || !isObject(docs[0])) {
        findings.push(
          error('a values file must hold one mapping (top-level keys publishing, gateway, ...)', {
            file: f,
            line: 1,
            rule: 'values.shape',
          }),
        );
        continue;
      }
      const values = docs[0] as Record<string, unknown>;
      sources.addValues(f, values);
      out.push({ file: f, values });
    } catch (e) {
      if (e instanceof FindingsError) pushAll(findings, e.findings);
      else throw e;
    }
  }
  if (findings.length) throw new FindingsError(findings);
  return { values: out, sources };
}
