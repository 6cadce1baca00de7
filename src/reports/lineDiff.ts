/**
 * The line edit script between two texts, for `diff`'s unified diffs: jsdiff's Myers difference
 * (the `diff` package's diffArrays), kept bounded in time and memory whatever the input.
 * - The common head and tail are trimmed first (most objects change in a few places).
 * - A line that appears only on one side cannot be part of any common subsequence, so it is set
 *   aside before Myers runs and put back as a change after (as GNU diff and git's xdiff do): the
 *   script stays minimal, and ten thousand changed lines of one object cost a linear walk.
 * - What remains is diffed with an edit budget that shrinks as the texts grow (work ≈ lines ×
 *   edits stays under EDIT_WORK); past it the remaining middle is shown replaced whole, which is
 *   still a correct diff, only not the shortest.
 * Lines are compared as interned numbers. Pure; linear memory; nothing recursive.
 */
import { diffArrays } from 'diff';

export type Op = ' ' | '-' | '+';

/** The most Myers work (lines × edit distance) one object's diff may take. */
export const EDIT_WORK = 10_000_000;

/** The ids one side keeps (those the other side has), and the line index of each (from `head`). */
function keptIn(ids: readonly number[], other: ReadonlySet<number>, head: number): [number[], number[]] {
  const kept: number[] = [];
  const at: number[] = [];
  ids.forEach((id, i) => {
    if (other.has(id)) {
      kept.push(id);
      at.push(head + i);
    }
  });
  return [kept, at];
}

/** The line edit script from a to b, as (op, line) pairs; `work` is the Myers budget (EDIT_WORK). */
export function lineDiff(a: readonly string[], b: readonly string[], work = EDIT_WORK): [Op, string][] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const aEnd = a.length - tail;
  const bEnd = b.length - tail;
  const out: [Op, string][] = [];
  for (let i = 0; i < head; i++) out.push([' ', a[i]]);

  // Intern the middle lines; keep on each side only the lines the other side also has.
  const ids = new Map<string, number>();
  const idOf = (l: string) => {
    let id = ids.get(l);
    if (id === undefined) ids.set(l, (id = ids.size));
    return id;
  };
  const aIds: number[] = [];
  for (let i = head; i < aEnd; i++) aIds.push(idOf(a[i]));
  const inA = new Set(aIds);
  const bIds: number[] = [];
  const inB = new Set<number>();
  for (let i = head; i < bEnd; i++) {
    const id = idOf(b[i]);
    bIds.push(id);
    inB.add(id);
  }
  const [ra, raAt] = keptIn(aIds, inB, head);
  const [rb, rbAt] = keptIn(bIds, inA, head);

  // The matched pairs (index in a, index in b), in order.
  const pairs: [number, number][] = [];
  if (ra.length && rb.length) {
    const maxEditLength = Math.max(16, Math.floor(work / (ra.length + rb.length)));
    const parts = diffArrays(ra, rb, { maxEditLength });
    if (parts) {
      let i = 0;
      let j = 0;
      for (const p of parts) {
        if (p.added) j += p.count;
        else if (p.removed) i += p.count;
        else for (let k = 0; k < p.count; k++, i++, j++) pairs.push([raAt[i], rbAt[j]]);
      }
    }
  }

  let i = head;
  let j = head;
  const flush = (toA: number, toB: number) => {
    for (; i < toA; i++) out.push(['-', a[i]]);
    for (; j < toB; j++) out.push(['+', b[j]]);
  };
  for (const [pa, pb] of pairs) {
    flush(pa, pb);
    out.push([' ', a[pa]]);
    i = pa + 1;
    j = pb + 1;
  }
  flush(aEnd, bEnd);
  for (let k = aEnd; k < a.length; k++) out.push([' ', a[k]]);
  return out;
}
