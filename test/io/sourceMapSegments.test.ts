/**
 * A line is found by parsing only the document it is in (src/io/sourceMap.ts documentSegments):
 * for every stream the split accepts, each document's keys are on the lines a parse of the whole
 * stream gives, and the documents are the ones the yaml library counts; any other stream is
 * parsed whole. Property: FC_SEED replays a run.
 */
import fc from 'fast-check';
import { isMap, isScalar, LineCounter, parseAllDocuments, parseDocument, type Document } from 'yaml';
import { documentSegments } from '../../src/io/sourceMap';

/** Each key of each document's top mapping and its line, from a whole-stream parse. */
function wholeLines(text: string): string[][] {
  const lc = new LineCounter();
  return (parseAllDocuments(text, { lineCounter: lc }) as Document.Parsed[]).map((d) =>
    isMap(d.contents)
      ? d.contents.items.map(
          (it) =>
            `${String(isScalar(it.key) ? it.key.value : '?')}@${lc.linePos(it.key && (it.key as { range?: number[] }).range ? (it.key as { range: number[] }).range[0] : 0).line}`,
        )
      : [],
  );
}

/** The same from the segments, each document parsed alone. */
function segmentLines(text: string, segments: [number, number, number][]): string[][] {
  return segments.map(([start, end, first]) => {
    const lc = new LineCounter();
    const d = parseDocument(text.slice(start, end), { lineCounter: lc });
    return isMap(d.contents)
      ? d.contents.items.map(
          (it) =>
            `${String(isScalar(it.key) ? it.key.value : '?')}@${first - 1 + lc.linePos((it.key as { range: number[] }).range[0]).line}`,
        )
      : [];
  });
}

const line = fc.oneof(
  fc.constantFrom('', '# a comment', '  # indented comment'),
  fc.integer({ min: 0, max: 99 }).map((n) => `k${n}: v${n}`),
  fc.integer({ min: 0, max: 99 }).map((n) => `m${n}:\n  nested: ${n}\n  list:\n    - a\n    - b`),
);
const marker = fc.constantFrom('---', '--- ', '---  # next', '---\t');
const stream = fc
  .tuple(fc.boolean(), fc.array(fc.array(line, { maxLength: 5 }), { minLength: 1, maxLength: 6 }), marker, fc.boolean())
  .map(([lead, docs, sep, trail]) => {
    // Keys unique within a document (a duplicate is an error, not a line).
    const bodies = docs.map((ls, i) => ls.map((l, j) => l.replace(/^([km])(\d+)/, `$1${i}x${j}_$2`)).join('\n'));
    return `${lead ? `${sep}\n` : ''}${bodies.join(`\n${sep}\n`)}${trail ? `\n${sep}\n` : '\n'}`;
  });

test('a stream split at its --- lines: the documents and the lines of their keys are the whole parse’s', () => {
  const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
  const result = fc.check(
    fc.property(stream, (text) => {
      const segments = documentSegments(text);
      expect(segments).toBeDefined();
      expect({ text, lines: segmentLines(text, segments!) }).toEqual({ text, lines: wholeLines(text) });
    }),
    { numRuns: 300, seed },
  );
  if (result.failed) throw new Error(`replay with FC_SEED=${seed}\n${fc.defaultReportMessage(result)}`);
});

test.each([
  ['a directive', '%YAML 1.2\n---\na: 1\n'],
  ['a document end marker', 'a: 1\n...\n---\nb: 2\n'],
  ['content on the --- line', '--- |\n  text\n'],
  ['a flow mapping on the --- line', '--- {a: 1}\n'],
])('%s: parsed whole', (_, text) => {
  expect(documentSegments(text)).toBeUndefined();
});

test('CRLF line ends split as LF ones, on the same lines', () => {
  const text = 'a: 1\r\n---\r\nb: 2\r\nc: 3\r\n';
  expect(documentSegments(text)).toEqual([
    [0, 6, 1],
    [11, 23, 3],
  ]);
  expect(segmentLines(text, documentSegments(text)!)).toEqual(wholeLines(text));
});

test('the segments of a stream with leading comments, an empty document and a trailing marker', () => {
  const text = '# head\n---\na: 1\n---\n---\nb: 2\n---\n';
  expect(documentSegments(text)).toEqual([
    [11, 16, 3],
    [20, 20, 5],
    [24, 29, 6],
    [33, 33, 8],
  ]);
  expect(parseAllDocuments(text)).toHaveLength(4);
});
