/**
 * The benchmark's figures are stated twice for their readers: in full in docs/performance.md
 * ("Current figures", the installed package's on each Node.js line and the binary's) and, as
 * ratios only, in the README's Performance section, whose table is a part of the docs' turned on its
 * side (a column per target, a row per runtime) with the same ratios, bold marks included; and in
 * the docs' table a ratio is marked missed, in bold, exactly when it is above its bar. A row whose
 * bar cell says `figure` is reported, not held to a bar (docs/performance.md "Running the
 * benchmark": every CPU time, TS's peak memory): its cells say so, never bold.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/cli';

interface Table {
  header: string[];
  rows: Map<string, string[]>;
}

/** The first Markdown table after the heading given, its rows by their first cell. */
function tableAfter(file: string, heading: string): Table {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${file}: no heading "${heading}"`);
  const lines = text.slice(at).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const table: string[][] = [];
  for (const l of lines.slice(first)) {
    if (!l.startsWith('|')) break;
    table.push(
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  const [header, , ...body] = table;
  return { header, rows: new Map(body.map((r) => [r[0], r.slice(1)])) };
}

/** A cell's ratio as written, its bold marks kept: `**1.28×** (88.8 MB, ...) — missed` is `**1.28×**`. */
const ratioOf = (cell: string) => /^(\*\*)?\d+(\.\d+)?×(\*\*)?/.exec(cell)?.[0];

const docs = tableAfter('docs/performance.md', '## Current figures');
const readme = tableAfter('README.md', '## Performance');

/** The README's columns: the row of docs/performance.md each is, by its label there. */
const COLUMNS: Record<string, string> = {
  'TS wall': '`reconcile --all` TS (722 objects: start-up), wall',
  'TS peak RSS': '`reconcile --all` TS, peak RSS',
  'TL wall': '`reconcile --all` TL (24,402 objects), wall',
  'TL CPU': '`reconcile --all` TL, CPU',
  'TL peak RSS': '`reconcile --all` TL, peak RSS',
  'diff TL wall': '`diff -o plan` TL, against the floor of its state, wall',
};

test("the README's columns are rows of docs/performance.md, its rows the bar and the docs' runtimes", () => {
  expect(readme.header.slice(1)).toEqual(Object.keys(COLUMNS));
  for (const label of Object.values(COLUMNS))
    expect({ label, inDocs: docs.rows.has(label) }).toEqual({ label, inDocs: true });
  expect([...readme.rows.keys()]).toEqual(['bar', ...docs.header.slice(2)]);
});

test.each([...readme.rows.keys()])("README row %s: the ratios of docs/performance.md's current figures", (row) => {
  const column = row === 'bar' ? 0 : docs.header.indexOf(row) - 1;
  const cells = readme.rows.get(row)!;
  const expected = Object.values(COLUMNS).map((label) => {
    const cell = docs.rows.get(label)?.[column] ?? '';
    return ratioOf(cell) ?? cell;
  });
  expect({ row, cells }).toEqual({ row, cells: expected });
});

test.each([...docs.rows.keys()])('docs/performance.md row %s: missed, in bold, exactly above its bar', (label) => {
  const [bar, ...cells] = docs.rows.get(label)!;
  if (bar === 'figure') {
    for (const cell of cells)
      expect({ label, cell, figure: /^\d+(\.\d+)?× .*— figure$|^\d+(\.\d+)?× — figure$/.test(cell) }).toEqual({
        label,
        cell,
        figure: true,
      });
    return;
  }
  const limit = Number(/^(\d+(\.\d+)?)×$/.exec(bar)?.[1]);
  expect({ label, bar, barIsARatio: Number.isFinite(limit) }).toEqual({ label, bar, barIsARatio: true });
  for (const cell of cells) {
    const ratio = ratioOf(cell);
    if (!ratio) throw new Error(`${label}: "${cell}" does not start with a ratio`);
    const value = Number(ratio.replace(/\*|×/g, ''));
    const above = value > limit;
    const marked = { bold: ratio.startsWith('**'), missed: /— missed$/.test(cell), met: /— met\b/.test(cell) };
    expect({ label, cell, marked }).toEqual({ label, cell, marked: { bold: above, missed: above, met: !above } });
  }
});
