/**
 * The ResourceList protocol on text: items that pass through keep their bytes, so kpt writes the
 * user's files back as they were (`kpt fn render` run again and again leaves the package
 * as `exec: cat` would). Pure: text in, text out.
 */
import {
  Composer,
  CST,
  Document,
  isMap,
  isScalar,
  isSeq,
  Parser,
  parseDocument,
  YAMLSeq,
  type Node,
  type Scalar,
} from 'yaml';
import { error, type Finding } from '../../k8s/diagnostics';
import * as jsyaml from 'js-yaml';
import { isObject } from '../../k8s/model';
import { dumpYaml } from '../../k8s/yaml';
import { processResourceListStream, type FnOptions, type NewItem, type ResourceList } from './function';
import { withMarks } from './items';
import { toResult } from './results';
import { yamlProblem } from './config';
import { checkParsed, checkText } from '../../k8s/limits';
import { pushAll } from '../../k8s/arrays';
import { kptEntry, kptMarkedEntry, newLayoutMemo, STRINGIFY } from './kptLayout';

export { STRINGIFY };

/** A node for a new object, written the YAML-1.1-safe way (js-yaml quotes `yes`, `0777`, ...). */
function newNode(doc: Document, value: unknown, failsafe: boolean): Node {
  const parsed = parseDocument(dumpYaml(value), failsafe ? { schema: 'failsafe' } : {});
  return (parsed.contents as Node | null) ?? (doc.createNode(value) as Node);
}

export interface TextRun {
  /** The whole output. */
  readonly stdout: string;
  /**
   * The same text in pieces, each made when it is asked for (a large output is never held whole).
   * A streamed run makes its pieces once: read either `chunks()` once, or `stdout`.
   */
  chunks?: () => Iterable<string>;
  exitCode: number;
  findings: Finding[];
}

/**
 * The ResourceList protocol on text: the items that pass through keep their YAML nodes,
 * comments and quoting included, so kpt writes the user's files back as they were.
 */
export function processResourceListText(text: string, opts: FnOptions): TextRun {
  // docs/decisions.md §13: a document too large is refused before it is parsed; one that expands past
  // the bounds (an alias bomb) after parsing, before anything walks or copies it.
  const tooBig = checkText(text);
  if (tooBig)
    return writeBare(
      error(`standard input: ${tooBig.message}`, { rule: 'input.limit', file: '<stdin>', line: tooBig.line }),
    );
  const read = readResourceList(text);
  if ('bare' in read) return writeBare(read.bare);
  const { rl, plan, isMapDoc } = read;
  // The input's tokens and YAML document are out of reach from here on: for a large package they
  // weigh dozens of times its text, and the render below is the run's peak.
  const run = processResourceListStream(rl, opts);
  const { exitCode, findings } = run;
  // The new items are made as they are written (spliceItems); the other layouts, and a list of no
  // items that pass through (the new ones may be none), take them all at once.
  const whole = (): ResourceList => {
    const made = [...run.generated()].map((n) => withMarks(n.object, n.marks));
    return made.length ? { ...run.output, items: [...run.output.items, ...made] } : run.output;
  };
  if (!isObject(rl) || rl.kind !== 'ResourceList' || !isMapDoc) {
    return { stdout: dumpYaml(whole()), exitCode, findings };
  }
  const lazy = run.output.items.length > 0;
  const output = lazy ? run.output : whole();
  // docs/commands/fn.md, docs/decisions.md §9: items that came in pass through unchanged, byte for byte.
  const spliced = plan && spliceItems(text, plan, rl.items as unknown[], output, lazy ? run.generated : () => []);
  if (spliced !== undefined) return streamed(spliced, exitCode, findings);
  // Not the block layout kpt and kustomize write (JSON, a flow sequence, ...): the items are
  // written back from their YAML nodes, comments and quoting kept.
  // The output is written from the same text read with the failsafe schema, where every scalar
  // is its source text: a number such as `1e3`, `0x1F` or `012` is written back as it was, not
  // as the YAML 1.2 reader's number re-printed (`1e+3`, `0x1f`, `12`), which a YAML 1.1 reader
  // (PyYAML, kubectl) would load as another value.
  const raw = parseDocument(text, { keepSourceTokens: false, schema: 'failsafe' });
  const text1 = raw.errors.length === 0 && raw.warnings.length === 0 && isMap(raw.contents);
  return writeItems(
    text1 ? raw : parseDocument(text, { keepSourceTokens: false }),
    rl,
    lazy ? whole() : output,
    exitCode,
    findings,
    text1,
  );
}

/**
 * The ResourceList read from its text: its value, whether the document is a mapping, and where
 * its items lie in the text (planSplice); or the finding that refuses it.
 */
function readResourceList(
  text: string,
): { bare: Finding } | { rl: unknown; plan: SplicePlan | undefined; isMapDoc: boolean } {
  // One lexing and parsing pass: its tokens are composed into the document here and planned by
  // planSplice. Only input that does not compose cleanly into one document is read again, by
  // parseDocument, for its errors with their lines.
  const tokens = [...new Parser().parse(text)];
  // Where the items lie is read from the tokens before they are composed, and composing then lets
  // go of each item's tokens once its node is made: for a large package the tokens weigh thirty
  // times its text, and held to the end beside the document they were fn's peak.
  const planned = planSplice(text, tokens);
  if (planned) releasedAsRead(planned.seq.items);
  const composed = [...new Composer({ keepSourceTokens: false }).compose(tokens, true, text.length)];
  tokens.length = 0;
  const doc =
    composed.length === 1 && composed[0].errors.length === 0
      ? composed[0]
      : parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const message =
      e.code === 'MULTIPLE_DOCS'
        ? 'standard input holds more than one YAML document; a KRM function reads exactly one ResourceList'
        : `standard input is not valid YAML: ${yamlProblem(e)}`;
    return { bare: error(message, { rule: 'fn.input', file: '<stdin>', line: e.linePos?.[0]?.line }) };
  }
  // The items' nodes are let go of as they are read too, unless an alias (`*name`) may have to find
  // its anchor among them once they are gone.
  const itemNodes = doc.get('items', true);
  if (isSeq(itemNodes) && text.indexOf('*') < 0) releasedAsRead(itemNodes.items);
  // Aliases come out as shared nodes (no copy); the bound below counts them as expanded.
  const rl = doc.toJS({ maxAliasCount: -1 }) as unknown;
  const over = checkParsed(text, [rl]);
  if (over)
    return {
      bare: error(`standard input: ${over.message}`, { rule: 'input.limit', file: '<stdin>', line: over.line }),
    };
  const oneEach = planned && isObject(rl) && Array.isArray(rl.items) && rl.items.length === planned.plan.starts.length;
  return { rl, plan: oneEach ? planned.plan : undefined, isMapDoc: isMap(doc.contents) };
}

/** An array whose iteration lets go of each element as it hands it on (the composer reads the items once). */
function releasedAsRead<T>(a: T[]): void {
  Object.defineProperty(a, Symbol.iterator, {
    value: function* () {
      for (let i = 0; i < a.length; i++) {
        const x = a[i];
        (a as (T | undefined)[])[i] = undefined;
        yield x;
      }
    },
  });
}

/** The source text of a CST token, and where it ends. */
function extent(tok: CST.Token | undefined, from: number): number {
  return tok ? tok.offset + CST.stringify(tok).length : from;
}

/** Where a sequence item begins in the source: its first comment, blank line or `-`. */
function itemStart(it: { start: CST.SourceToken[]; value?: CST.Token }): number | undefined {
  return it.start.length ? it.start[0].offset : it.value?.offset;
}

/**
 * New items as block sequence entries at the given indentation, one string each, laid out as kpt lays out its
 * own files (compact sequences), its scalars written the YAML-1.1-safe way (newNode).
 */
export function seqEntries(values: unknown[], indent: string): string[] {
  if (values.length === 0) return [];
  // All of them in one sequence, read and written once: in a block sequence written at column 0,
  // an entry begins exactly at a line that begins with `-` (everything inside it is indented).
  const doc = new Document(new YAMLSeq(), { schema: 'failsafe' });
  const seq = doc.contents as YAMLSeq;
  const parsed = parseDocument(dumpYaml(values), { schema: 'failsafe' }).contents;
  if (isSeq(parsed) && parsed.items.length === values.length) pushAll(seq.items, parsed.items as Node[]);
  else for (const v of values) seq.items.push(newNode(doc, v, true));
  const entries: string[] = [];
  for (const l of doc.toString(STRINGIFY).replace(/\n$/, '').split('\n')) {
    if (l.startsWith('-') || entries.length === 0) entries.push('');
    entries[entries.length - 1] += `${l === '' ? '' : `${indent}${l}`}\n`;
  }
  if (entries.length !== values.length) return values.map((v) => seqEntries([v], indent)[0]);
  return entries.map((e, i) => (readsBack(e, values[i]) ? e : jsonEntry(values[i], indent)));
}

/**
 * Whether an entry reads back as its value (js-yaml, as render's readers read YAML): the `yaml`
 * library reads some block scalars js-yaml writes otherwise (a line of only spaces at the end of
 * ` a\n\n ` is dropped), and an item must never go out with a value other than its own.
 */
function readsBack(entry: string, value: unknown): boolean {
  try {
    const back = jsyaml.load(entry) as unknown[];
    // The same data written alike by the one YAML writer (-0, .inf and keys left out included).
    return Array.isArray(back) && back.length === 1 && dumpYaml(back[0]) === dumpYaml(value);
  } catch {
    return false;
  }
}

/**
 * An entry written as one JSON mapping (JSON is YAML, every string quoted): for the rare item the
 * round trip would change. Characters a YAML reader takes for line breaks or refuses raw are escaped.
 */
function jsonEntry(value: unknown, indent: string): string {
  // JSON has no -0 and no infinities: they go out as YAML's plain -0.0, .inf, -.inf and .nan.
  const marks: string[] = [];
  const json = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'number' || (Number.isFinite(v) && !Object.is(v, -0))) return v;
    marks.push(Object.is(v, -0) ? '-0.0' : Number.isNaN(v) ? '.nan' : v > 0 ? '.inf' : '-.inf');
    return `\u0000\u0001cozy-gw:${marks.length - 1}\u0001\u0000`;
  })
    .replace(/"\\u0000\\u0001cozy-gw:(\d+)\\u0001\\u0000"/g, (_m, i: string) => marks[Number(i)])
    .replace(/[\u007f-\u009f\u2028\u2029\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${indent}- ${json}\n`;
}

/**
 * About how much of the output each piece of a streamed run holds: small enough that the entries
 * a piece is made of die young (a megabyte of them outlived the young generation, and its
 * collections took a third of fn's time at 20,000 tenants), large enough for few writes.
 */
const CHUNK = 1 << 16;

/**
 * Where the items of a ResourceList lie in its text, read from its tokens before the run: the
 * text before the first item, each item's start, the end of the last one, the indentation of
 * their `-`, and the extent of a `results` entry. Undefined where the items are not one block
 * sequence of the document's mapping, one entry per item.
 */
interface SplicePlan {
  from: number;
  to: number;
  starts: number[];
  indent: string;
  results?: { head: number; end: number };
}

function planSplice(text: string, tokens: CST.Token[]): { plan: SplicePlan; seq: CST.BlockSequence } | undefined {
  const docs = tokens.filter((t) => t.type !== 'comment' && t.type !== 'newline' && t.type !== 'space');
  if (docs.length !== 1 || docs[0].type !== 'document' || docs[0].value?.type !== 'block-map') return undefined;
  const map = docs[0].value;
  const keyName = (k: CST.Token | null | undefined) => (k && k.type === 'scalar' ? k.source : undefined);
  const itemsPair = map.items.find((p) => keyName(p.key) === 'items');
  const seq = itemsPair?.value;
  if (!seq || seq.type !== 'block-seq' || seq.items.length === 0) return undefined;
  const starts: number[] = [];
  for (const it of seq.items) {
    const at = itemStart(it);
    if (at === undefined) return undefined;
    starts.push(at);
  }
  const from = starts[0];
  const to = extent(seq.items[seq.items.length - 1].value, from);
  const dash = seq.items[0].start.find((t) => t.type === 'seq-item-ind');
  if (!dash) return undefined;
  const indent = ' '.repeat(dash.offset - (text.lastIndexOf('\n', dash.offset - 1) + 1));
  const resultsPair = map.items.find((p) => keyName(p.key) === 'results');
  if (!resultsPair) return { plan: { from, to, starts, indent }, seq };
  const head = itemStart({ start: resultsPair.start, value: resultsPair.key ?? undefined });
  const end = extent(resultsPair.value ?? undefined, extent(resultsPair.key ?? undefined, 0));
  if (head === undefined || head < to) return undefined;
  return { plan: { from, to, starts, indent, results: { head, end } }, seq };
}

/**
 * The output as the input's text with its items spliced (docs/decisions.md §9): the items that
 * pass through as their source text, the new ones after them, written as kpt writes them, in
 * one YAML document whose `items` is a block sequence (the layout kpt and kustomize write).
 * The text comes in pieces, each made when it is asked for: a caller writing them one by one
 * never holds the whole output (for a large tree, hundreds of megabytes).
 */
function spliceItems(
  text: string,
  plan: SplicePlan,
  inputItems: unknown[],
  output: ResourceList,
  generated: () => Iterable<NewItem>,
): (() => Generator<string>) | undefined {
  const { from, to, starts, indent } = plan;
  // Every piece and every new entry holds at least its `-`: the body is empty only without items.
  if (output.items.length === 0) return undefined;
  const index = new Map<unknown, number>(inputItems.map((it, i) => [it, i]));
  const piece = (i: number) => text.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : to);
  // results: the input's own (earlier functions') and this run's, written in place of the old ones.
  const resultsText = output.results?.length
    ? parseDocument(dumpYaml({ results: output.results }), { schema: 'failsafe' }).toString(STRINGIFY)
    : '';
  const tail = plan.results
    ? text.slice(to, plan.results.head) + resultsText + text.slice(plan.results.end)
    : text.slice(to);
  const appendResults = !plan.results && resultsText !== '';
  // The stream owns its list of the run's items and lets go of each once written: for a large
  // tree the objects written need not stay in memory beside the text still to come. So it runs once.
  const items: unknown[] = output.items.slice();
  let consumed = false;
  return function* () {
    if (consumed) throw new Error('the fn output stream was already written');
    consumed = true;
    const memo = newLayoutMemo();
    let buf = text.slice(0, from);
    let last = buf;
    /** The piece with `p` added: whether it is full. */
    const full = (p: string) => {
      buf += p;
      last = p;
      return buf.length >= CHUNK;
    };
    // The items that pass through, each let go of once written, then the new ones as they are made.
    for (let n = 0; n < items.length; n++) {
      const it = items[n];
      items[n] = undefined;
      const i = index.get(it);
      if (full(i !== undefined ? piece(i) : (kptEntry(it, indent, memo) ?? seqEntries([it], indent)[0]))) {
        yield buf;
        buf = '';
      }
    }
    for (const { object, marks } of generated()) {
      if (full(kptMarkedEntry(object, marks, indent, memo) ?? seqEntries([withMarks(object, marks)], indent)[0])) {
        yield buf;
        buf = '';
      }
    }
    if (tail !== '') last = tail;
    buf += tail;
    if (appendResults) buf += `${last.endsWith('\n') ? '' : '\n'}${resultsText}`;
    if (buf !== '') yield buf;
  };
}

/** A run whose output is made piece by piece when written (`chunks`), or whole when read (`stdout`). */
function streamed(chunks: () => Generator<string>, exitCode: number, findings: Finding[]): TextRun {
  // The pieces can be made once (spliceItems): the whole text, once asked for, is kept.
  let whole: string | undefined;
  return {
    get stdout() {
      if (whole === undefined) {
        whole = '';
        for (const c of chunks()) whole += c;
      }
      return whole;
    },
    chunks: () => (whole !== undefined ? [whole] : chunks()),
    exitCode,
    findings,
  };
}

function writeItems(
  doc: Document,
  rl: Record<string, unknown>,
  output: ResourceList,
  exitCode: number,
  findings: Finding[],
  failsafe: boolean,
): TextRun {
  const nodeOf = (_d: Document, value: unknown) => newNode(doc, value, failsafe);
  // Map every input item (as plain data) back to its node.
  const inItems = Array.isArray(rl.items) ? (rl.items as unknown[]) : [];
  const seqNode = doc.get('items', true);
  const nodes = new Map<unknown, Node>();
  if (isSeq(seqNode)) inItems.forEach((it, i) => nodes.set(it, seqNode.items[i] as Node));
  const seq = new YAMLSeq();
  for (const it of output.items) {
    const n = nodes.get(it);
    seq.items.push(n ? headCommentInside(n) : nodeOf(doc, it));
  }
  if (isSeq(seqNode)) {
    seq.commentBefore = seqNode.commentBefore;
    seq.comment = seqNode.comment;
  }
  doc.set('items', seq);
  if (output.results?.length) doc.set('results', nodeOf(doc, output.results));
  else doc.delete('results');
  return { stdout: doc.toString(STRINGIFY), exitCode, findings };
}

/**
 * A comment above an item's first key (`- # comment` then `  apiVersion: ...`, as kpt writes
 * it) stays on that key: written before the `-` instead, kpt would read it as a second comment
 * and write it into the user's file twice.
 */
function headCommentInside(n: Node): Node {
  if (isMap(n) && n.commentBefore && n.items.length > 0 && isScalar(n.items[0].key)) {
    const key = n.items[0].key as Scalar;
    key.commentBefore = key.commentBefore ? `${n.commentBefore}\n${key.commentBefore}` : n.commentBefore;
    n.commentBefore = undefined;
  }
  return n;
}

function writeBare(f: Finding): TextRun {
  const output: ResourceList = {
    apiVersion: 'config.kubernetes.io/v1',
    kind: 'ResourceList',
    items: [],
    results: [toResult(f, [], undefined)],
  };
  return { stdout: dumpYaml(output), exitCode: 1, findings: [f] };
}
