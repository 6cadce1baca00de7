/**
 * `cozy-gw diff`'s default output: one unified diff per object that differs, as
 * `kubectl diff` prints it (`diff -u -N` of the object's YAML before and after, three lines of
 * context), each headed by the object as kubectl users read it: `Kind namespace/name`. A created
 * object is all `+`, a deleted one all `-`. The YAML is the one every command prints (k8s/yaml.ts).
 * The objects come from the diff with Secret data already masked. Every line is escaped
 * (k8s/printable.ts). Pure: objects in, text out.
 */
import { describe, type KObject } from '../k8s/model';
import { dumpYaml, newMemo, type Memo } from '../k8s/yaml';
import { textOf } from '../k8s/printable';
import { pushAll } from '../k8s/arrays';

type Op = ' ' | '-' | '+';

/** The line edit script from a to b (Myers' O(ND) difference algorithm), as (op, line) pairs. */
export function lineDiff(a: string[], b: string[]): [Op, string][] {
  // Trim the common head and tail first: most objects change in a few places.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const A = a.slice(head, a.length - tail);
  const B = b.slice(head, b.length - tail);
  const mid = myers(A, B);
  const out: [Op, string][] = [];
  for (let i = 0; i < head; i++) out.push([' ', a[i]]);
  pushAll(out, mid);
  for (let i = a.length - tail; i < a.length; i++) out.push([' ', a[i]]);
  return out;
}

function myers(a: string[], b: string[]): [Op, string][] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((l) => ['+', l] as [Op, string]);
  if (m === 0) return a.map((l) => ['-', l] as [Op, string]);
  const max = n + m;
  const off = max;
  let v: Int32Array = new Int32Array(2 * max + 2);
  // trace[d] is v as it stood before step d.
  const trace: Int32Array[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) break outer;
    }
  }
  const out: [Op, string][] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    v = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? k + 1 : k - 1;
    const prevX = v[off + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push([' ', a[x - 1]]);
      x--;
      y--;
    }
    if (d > 0) out.push(x === prevX ? ['+', b[y - 1]] : ['-', a[x - 1]]);
    x = prevX;
    y = prevY;
  }
  return out.reverse();
}

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

/** The unified diff of one object (before undefined: created; after undefined: deleted). */
export function unifiedDiff(
  before: KObject | undefined,
  after: KObject | undefined,
  context = 3,
  memo: Memo = newMemo(),
): string {
  const o = (after ?? before)!;
  const head = describe(o);
  const body = hunks(lineDiff(lines(before, memo), lines(after, memo)), context);
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
