/**
 * `cozy-gw diff`'s default output: one unified diff per object that differs, as
 * `kubectl diff` prints it (`diff -u -N` of the object's YAML before and after, three lines of
 * context), each headed by the object as kubectl users read it: `Kind namespace/name`. A created
 * object is all `+`, a deleted one all `-`. The YAML is the one every command prints (k8s/yaml.ts).
 * The objects come from the diff with Secret data already masked. The line diff is lineDiff.ts
 * (jsdiff, bounded). Every line is escaped (k8s/printable.ts). Pure: objects in, text out.
 */
import { describe, isObject, type KObject } from '../k8s/model';
import { dumpYaml, newMemo, type Memo } from '../k8s/yaml';
import { textOf } from '../k8s/printable';
import { lineDiff, type Op } from './lineDiff';

function lines(o: KObject | undefined, memo: Memo): string[] {
  if (!o) return [];
  const text = dumpYaml(o, memo);
  return text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
}

function range(start: number, count: number): string {
  // diff -u: a hunk of no lines names the line before it.
  if (count === 0) return `${start - 1 < 0 ? 0 : start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

/** The hunks of one edit script, `context` lines around each change. */
function hunks(script: [Op, string][], context: number): string[] {
  const out: string[] = [];
  const changes: number[] = [];
  script.forEach(([op], i) => op !== ' ' && changes.push(i));
  if (!changes.length) return out;
  // Line numbers before each script entry.
  const aLine: number[] = [];
  const bLine: number[] = [];
  let ai = 1;
  let bi = 1;
  for (const [op] of script) {
    aLine.push(ai);
    bLine.push(bi);
    if (op !== '+') ai++;
    if (op !== '-') bi++;
  }
  let i = 0;
  while (i < changes.length) {
    const start = Math.max(0, changes[i] - context);
    let end = Math.min(script.length - 1, changes[i] + context);
    let j = i + 1;
    while (j < changes.length && changes[j] - context <= end + 1) {
      end = Math.min(script.length - 1, changes[j] + context);
      j++;
    }
    const body = script.slice(start, end + 1);
    const aCount = body.filter(([op]) => op !== '+').length;
    const bCount = body.filter(([op]) => op !== '-').length;
    out.push(`@@ -${range(aLine[start], aCount)} +${range(bLine[start], bCount)} @@`);
    for (const [op, l] of body) out.push(`${op}${l}`);
    i = j;
  }
  return out;
}

/**
 * `after` with its maps' members in `before`'s order, those `before` lacks after them in their own
 * (list elements paired by position): the order of a map's members says nothing, and the API
 * server prints both sides in one order, as `kubectl diff` shows them. So a member the change
 * leaves alone is never a line removed and added again (a live object's uid, resourceVersion and
 * creationTimestamp, kept by the apply, come after the labels the change gave).
 */
export function inOrderOf(after: unknown, before: unknown): unknown {
  if (Array.isArray(after) && Array.isArray(before)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < after.length && i < before.length; i++) {
      const x = inOrderOf(after[i], before[i]);
      if (x !== after[i]) (out ??= after.slice())[i] = x;
    }
    return out ?? after;
  }
  if (!isObject(after) || !isObject(before) || after === before) return after;
  const keys = Object.keys(after);
  const order = [...Object.keys(before).filter((k) => has(after, k)), ...keys.filter((k) => !has(before, k))];
  let changed = order.some((k, i) => k !== keys[i]);
  const out: Record<string, unknown> = {};
  for (const k of order) {
    const v = inOrderOf(after[k], before[k]);
    if (v !== after[k]) changed = true;
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : after;
}

const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** The unified diff of one object (before undefined: created; after undefined: deleted). */
export function unifiedDiff(
  before: KObject | undefined,
  after: KObject | undefined,
  context = 3,
  memo: Memo = newMemo(),
): string {
  const o = (after ?? before)!;
  const head = describe(o);
  const shown = before && after ? (inOrderOf(after, before) as KObject) : after;
  const body = hunks(lineDiff(lines(before, memo), lines(shown, memo)), context);
  // As git and diff -N write a side that does not exist: /dev/null. Every line escaped
  // (printable.ts): a name cannot forge a header, a value cannot hide text in the body.
  const header = [
    head,
    before ? `--- ${head} (state)` : '--- /dev/null',
    after ? `+++ ${head} (after)` : '+++ /dev/null',
  ];
  return textOf(header) + textOf(body);
}

/** Every difference, objects in the order given: created, changed and deleted interleaved by the caller. */
export function* unifiedDiffs(items: Iterable<{ before?: KObject; after?: KObject }>): Generator<string> {
  const memo = newMemo();
  for (const it of items) yield unifiedDiff(it.before, it.after, 3, memo);
}
