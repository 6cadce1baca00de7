/**
 * Property: documentSpans (src/k8s/limits.ts) finds the documents of a stream as a line-by-line
 * reading of the `---` rule does, whatever the line ends (\n, \r\n, a lone \r, mixed). The
 * oracle below is that reading written plainly (the text split into lines with their ends).
 * Seed: FC_SEED replays a run.
 */
import fc from 'fast-check';
import { documentSpans, type DocumentSpan } from '../../src/k8s/limits';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

function oracle(text: string): DocumentSpan[] {
  const lines: { start: number; body: string }[] = [];
  const re = /\r\n|\r|\n/g;
  let start = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    lines.push({ start, body: text.slice(start, m.index) });
    start = m.index + m[0].length;
  }
  lines.push({ start, body: text.slice(start) });
  const spans: DocumentSpan[] = [];
  let docStart = 0;
  let docLine = 1;
  let leading = true;
  let leadingHasContent = false;
  const close = (end: number) => {
    if (!leading || leadingHasContent) spans.push({ line: docLine, length: end - docStart });
  };
  lines.forEach((l, i) => {
    if (/^---(\s|$)/.test(l.body.slice(0, 4)) || l.body.slice(0, 4) === '---') {
      close(l.start);
      leading = false;
      docStart = l.start;
      docLine = i + 1;
    } else if (leading && !leadingHasContent && !/^\s*(#|%|$)/.test(l.body.slice(0, 200))) leadingHasContent = true;
  });
  close(text.length);
  return spans;
}

const piece = fc.constantFrom(
  '---',
  '--- ',
  '---x',
  '-- ',
  '- a',
  'a: 1',
  '# c',
  '%YAML 1.2',
  '',
  '  ',
  'k: ---',
  '----',
);
const end = fc.constantFrom('\n', '\r\n', '\r', '\n\n');
const text = fc
  .array(fc.tuple(piece, end), { maxLength: 12 })
  .chain((ls) => fc.boolean().map((last) => ls.map(([p, e]) => p + e).join('') + (last ? 'tail' : '')));

describe('documentSpans', () => {
  test('the documents a plain line-by-line reading finds, for every kind of line end', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect({ t, spans: documentSpans(t) }).toEqual({ t, spans: oracle(t) });
      }),
      { seed, numRuns: 3000 },
    );
  });
});
