/**
 * The ResourceList protocol on text: items that pass through keep their YAML nodes, so kpt
 * writes the user's files back as they were. Pure: text in, text out.
 */
import { isMap, isScalar, isSeq, parseDocument, YAMLSeq, type Document, type Node, type Scalar } from 'yaml';
import { error, type Finding } from '../../k8s/diagnostics';
import { isObject } from '../../k8s/model';
import { dumpYaml } from '../../io/output';
import { processResourceList, type FnOptions, type ResourceList } from './function';
import { toResult } from './results';

/** kpt's own layout (compact sequences), and no folding of long lines. */
export const STRINGIFY = { lineWidth: 0, minContentWidth: 0, indentSeq: false } as const;

/** A node for a new object, written the YAML-1.1-safe way (js-yaml quotes `yes`, `0777`, ...). */
function newNode(doc: Document, value: unknown, failsafe: boolean): Node {
  const parsed = parseDocument(dumpYaml(value), failsafe ? { schema: 'failsafe' } : {});
  return (parsed.contents as Node | null) ?? (doc.createNode(value) as Node);
}

export interface TextRun {
  stdout: string;
  exitCode: number;
  findings: Finding[];
}

/**
 * The ResourceList protocol on text: the items that pass through keep their YAML nodes,
 * comments and quoting included, so kpt writes the user's files back as they were.
 */
export function processResourceListText(text: string, opts: FnOptions): TextRun {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const f = error(`standard input is not valid YAML: ${e.message.split('\n')[0]}`, { rule: 'fn.input', file: '<stdin>', line: e.linePos?.[0]?.line });
    return writeBare(f);
  }
  const rl = doc.toJS({ maxAliasCount: -1 }) as unknown;
  const { output, exitCode, findings } = processResourceList(rl, opts);
  if (!isObject(rl) || rl.kind !== 'ResourceList' || !isMap(doc.contents)) {
    return { stdout: dumpYaml(output), exitCode, findings };
  }
  // cli-contract `fn`, decisions §9: items that came in pass through unchanged, scalars included.
  // The output is written from the same text read with the failsafe schema, where every scalar
  // is its source text: a number such as `1e3`, `0x1F` or `012` is written back as it was, not
  // as the YAML 1.2 reader's number re-printed (`1e+3`, `0x1f`, `12`), which a YAML 1.1 reader
  // (PyYAML, kubectl) would load as another value.
  const raw = parseDocument(text, { keepSourceTokens: false, schema: 'failsafe' });
  const text1 = raw.errors.length === 0 && raw.warnings.length === 0 && isMap(raw.contents);
  return writeItems(text1 ? raw : doc, rl, output, exitCode, findings, text1);
}

function writeItems(doc: Document, rl: Record<string, unknown>, output: ResourceList, exitCode: number, findings: Finding[], failsafe: boolean): TextRun {
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
  const output: ResourceList = { apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [], results: [toResult(f, [], undefined)] };
  return { stdout: dumpYaml(output), exitCode: 1, findings: [f] };
}
