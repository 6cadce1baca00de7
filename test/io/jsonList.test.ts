/**
 * A JSON List read item by item from its bytes (src/io/jsonList.ts, docs/performance.md): for
 * any bytes, in any chunks, the reader tells the List's value exactly as the whole text's
 * JSON.parse gives it, or gives the text whole, or asks for the file to be read again; and
 * reading a file through it (readInputs) gives the objects, errors and lines the whole text gives.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import * as fc from 'fast-check';
import { closerAt, JsonListReader, type JsonListResult } from '../../src/io/jsonList';
import { countJsonKeys, printableJson } from '../../src/io/jsonText';
import { objectsOf, parseDocuments, readFileSource, readInputs, SourceMap } from '../../src/io/inputs';
import { ReadBuffer } from '../../src/io/stdin';
import { FindingsError, type Finding } from '../../src/k8s/diagnostics';

/** Fixed runs; FC_SEED replays a failure (fast-check prints the seed). */
const fcParams = (numRuns = 300) => ({
  numRuns,
  seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined,
});

/**
 * The reader over `bytes`, handed in chunks of the given sizes (cycled), with a buffer that grows
 * to exactly what is asked (so that growing and letting go are exercised on small inputs).
 */
function feed(bytes: Buffer, chunks: number[]): JsonListResult {
  let held = Buffer.alloc(0);
  const grow = (n: number, keep: number) => {
    if (held.length >= n) return held;
    const bigger = Buffer.alloc(n);
    held.copy(bigger, 0, 0, keep);
    return (held = bigger);
  };
  const r = new JsonListReader(grow, new StringDecoder('utf8'));
  for (let off = 0, i = 0; off < bytes.length; i++) {
    const n = Math.min(chunks[i % chunks.length], bytes.length - off);
    const into = r.space(n);
    expect(into.length).toBe(n);
    bytes.copy(into, 0, off, off + n);
    r.scan(n);
    off += n;
  }
  return r.end();
}

const BOM = '\ufeff';
const unBom = (t: string) => (t.startsWith(BOM) ? t.slice(1) : t);
function parsed(text: string): { value: unknown } | { error: true } {
  try {
    return { value: JSON.parse(unBom(text)) as unknown };
  } catch {
    return { error: true };
  }
}

/**
 * What a result says the bytes are, checked against the whole text: a list's head and tail with
 * its items are the whole text's value, with its keys and characters; a text is the whole text.
 * Returns which of the three it was.
 */
function check(bytes: Buffer, r: JsonListResult): 'list' | 'text' | 'again' {
  const whole = new StringDecoder('utf8').end(bytes);
  if (r === 'again') return 'again';
  if ('text' in r) {
    expect(r.text).toBe(whole);
    return 'text';
  }
  const shellText = r.list.head + r.list.tail;
  const shell = parsed(shellText);
  // A head and tail JSON.parse refuses are declined by the caller (read again whole).
  if ('error' in shell) return 'list';
  const all = parsed(whole);
  expect(all).not.toHaveProperty('error');
  const value = shell.value as { items: unknown };
  expect(value.items).toEqual([]);
  value.items = r.list.items;
  expect(value).toEqual((all as { value: unknown }).value);
  expect(r.list.keys + countJsonKeys(shellText)).toBe(countJsonKeys(whole));
  expect(r.list.printable && printableJson(shellText)).toBe(printableJson(whole));
  return 'list';
}

/** Characters that matter to a scanner of JSON bytes: quotes, escapes, brackets, multi-byte. */
const tricky = fc.constantFrom(
  'a',
  'items',
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  ' ',
  '\n',
  'é',
  '😀',
  '\u007f',
  '\u0086',
  '\\"',
);
const str = fc.array(tricky, { maxLength: 6 }).map((a) => a.join(''));
const leaf = fc.oneof(
  str,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { value: jsonish } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(str, tie('value'), { maxKeys: 4 }),
  ),
}));
const item = fc.dictionary(str, jsonish, { maxKeys: 5 });
/** A List as a snapshot holds it, its members in any order, `items` among them. */
const list = fc
  .record({
    items: fc.array(item, { maxLength: 6 }),
    before: fc.dictionary(fc.constantFrom('apiVersion', 'kind', 'x', 'item'), jsonish, { maxKeys: 2 }),
    after: fc.dictionary(fc.constantFrom('metadata', 'kind', 'y', 'Items'), jsonish, { maxKeys: 2 }),
  })
  .map(({ items, before, after }) => ({ ...before, items, ...after }));
/** How it is written: any indentation (kubectl's is 4), with a byte-order mark or CRLF line ends. */
const layout = fc.record({
  indent: fc.constantFrom<number | string>(0, 1, 2, 4, '\t'),
  bom: fc.boolean(),
  crlf: fc.boolean(),
});
const write = (v: unknown, l: { indent: number | string; bom: boolean; crlf: boolean }) => {
  const t = JSON.stringify(v, null, l.indent);
  // A raw line feed is never inside a JSON string: every one is white space between tokens.
  return Buffer.from((l.bom ? BOM : '') + (l.crlf ? t.replace(/\n/g, '\r\n') : t), 'utf8');
};
const chunking = fc.array(fc.integer({ min: 1, max: 70 }), { minLength: 1, maxLength: 8 });

describe('JsonListReader: a List item by item', () => {
  test('property: a List written any way, in any chunks, is read item by item to JSON.parse value', () => {
    fc.assert(
      fc.property(list, layout, chunking, (v, l, chunks) => {
        const bytes = write(v, l);
        expect({ bytes: bytes.toString(), was: check(bytes, feed(bytes, chunks)) }).toEqual({
          bytes: bytes.toString(),
          was: 'list',
        });
      }),
      fcParams(),
    );
  });

  test('property: any bytes (a List cut, spliced or altered) give the whole value, the whole text, or again', () => {
    const mutated = fc
      .tuple(list, layout, fc.nat(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', '\\', '{', '[1]', 'x', '\xff'))
      .map(([v, l, at, len, insert]) => {
        const b = write(v, l);
        const i = at % (b.length + 1);
        return Buffer.concat([b.subarray(0, i), Buffer.from(insert, 'latin1'), b.subarray(i + (len % 4))]);
      });
    fc.assert(
      fc.property(mutated, chunking, (bytes, chunks) => {
        check(bytes, feed(bytes, chunks));
      }),
      fcParams(),
    );
  });

  test.each([
    ['YAML', 'kind: List\nitems:\n- a: 1\n'],
    ['a top-level array', '[{"a": 1}]'],
    ['a JSON object without items', '{\n  "a": {"items": [1]},\n  "b": "items"\n}'],
    ['items that are not an array', '{"items": {"a": 1}}'],
    ['an escaped items key', '{"\\u0069tems": [{"a": 1}]}'],
    ['white space only', '  \n\t '],
    ['a byte-order mark and YAML', '\ufeffa: 1\n'],
    ['bytes that are not UTF-8', '{"a": "\xff\xfe"}'],
  ])('%s: the text, whole', (_what, text) => {
    const bytes = Buffer.from(text, text.includes('\xff') ? 'latin1' : 'utf8');
    for (const chunks of [[1], [3], [1 << 16]]) expect(check(bytes, feed(bytes, chunks))).toBe('text');
  });

  test.each([
    ['an element that is not an object', '{"items": [{"a": 1}, 2]}'],
    ['an element JSON.parse refuses', '{"items": [{"a": 1}, {"a": }]}'],
    ['a trailing comma', '{"items": [{"a": 1},]}'],
    ['two elements without a comma', '{"items": [{"a": 1} {"b": 2}]}'],
    ['a file that ends inside the array', '{"items": [{"a": 1}, {"b"'],
  ])('%s, after an element was let go: read again', (_what, text) => {
    for (const chunks of [[1], [5], [1 << 16]]) expect(feed(Buffer.from(text), chunks)).toBe('again');
  });

  test.each([
    ['an element that is not an object', '{"items": [2, {"a": 1}]}'],
    ['a first element JSON.parse refuses', '{"items": [\n  {"a": }\n]}'],
    ['a file that ends inside the first element', '{"items": [\n  {\n    "a": 1'],
  ])('%s, before any element was kept: the text, whole', (_what, text) => {
    for (const chunks of [[1], [5], [1 << 16]])
      expect(check(Buffer.from(text), feed(Buffer.from(text), chunks))).toBe('text');
  });

  test('an element whose closing line appears inside it (not indented alike) is still read exactly', () => {
    // The inner object closes on a line indented like the element: the first guess is a text
    // JSON.parse refuses, and the element is then found byte by byte.
    const text =
      '{\n  "items": [\n    {\n      "a": {\n    },\n      "b": "\\"}"\n    },\n    {\n      "c": []\n    }\n  ]\n}';
    for (const chunks of [[1], [7], [1 << 16]]) {
      const r = feed(Buffer.from(text), chunks);
      expect(check(Buffer.from(text), r)).toBe('list');
      expect(r !== 'again' && 'list' in r && r.list.items).toEqual([{ a: {}, b: '"}' }, { c: [] }]);
    }
  });

  test.each([
    ['ASCII only', Buffer.from('"a b"'), true],
    ['ASCII with DEL', Buffer.from('"a\x7fb"'), false],
    ['a byte that is no UTF-8 (U+FFFD, as many characters as bytes)', Buffer.from([0x22, 0xff, 0x22]), true],
    ['a byte that is no UTF-8 and DEL', Buffer.from([0x22, 0xff, 0x7f, 0x22]), false],
    ['a C1 control (fewer characters than bytes)', Buffer.from('"a\u0086"'), false],
    ['NEL, the one C1 control js-yaml reads', Buffer.from('"a\u0085"'), true],
    ['é and DEL', Buffer.from('"é\x7f"'), false],
  ])("an element's characters, %s: printable as printableJson says", (_what, value, printable) => {
    const bytes = Buffer.concat([
      Buffer.from('{\n  "items": [\n    {\n      "k": '),
      value,
      Buffer.from('\n    }\n  ]\n}'),
    ]);
    for (const chunks of [[1], [1 << 16]]) {
      const r = feed(bytes, chunks);
      expect(check(bytes, r)).toBe('list');
      expect(r !== 'again' && 'list' in r && r.list.printable).toBe(printable);
    }
  });

  test('an escape split between two reads, and a quote right after it', () => {
    const text = '{"items": [{"k": "a\\\\", "l": "b\\"c"}, {"m": "\\\\\\""}]}';
    for (let size = 1; size <= text.length; size++)
      expect(check(Buffer.from(text), feed(Buffer.from(text), [size]))).toBe('list');
  });
});

describe("closerAt: where an element's closing line is", () => {
  test('property: the first place at or after the start, as Buffer indexOf finds it', () => {
    const bytes = fc
      .array(fc.constantFrom('\n', ' ', '  ', '}', '\t', 'a', '\n  }', '\n}'), { maxLength: 40 })
      .map((a) => Buffer.from(a.join('')));
    const closer = fc.constantFrom('', ' ', '  ', '\t').map((indent) => Buffer.from(`\n${indent}}`));
    fc.assert(
      fc.property(bytes, closer, fc.nat(), (b, c, from) => {
        const at = from % (b.length + 1);
        expect(closerAt(b, c, at)).toBe(b.indexOf(c, at));
      }),
      fcParams(500),
    );
  });
});

describe('readFileSource and readInputs: a List file read item by item', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cgw-jsonlist-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A kubectl-like List of `n` ConfigMaps. */
  const snapshot = (n: number) =>
    JSON.stringify(
      {
        apiVersion: 'v1',
        items: Array.from({ length: n }, (_, i) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `c${i}`, namespace: 'ns' },
          data: { k: 'v'.repeat(i % 50), q: '{"nested": ["json"]}' },
        })),
        kind: 'List',
        metadata: { resourceVersion: '' },
      },
      null,
      4,
    );

  test('no buffer of the file size is made: the reader holds one element and a read at a time', () => {
    const file = path.join(dir, 'big.json');
    fs.writeFileSync(file, snapshot(20000));
    expect(fs.statSync(file).size).toBeGreaterThan(4 << 20);
    const into = new ReadBuffer();
    const r = readFileSource(file, undefined, into);
    expect(r !== 'again' && 'list' in r && r.list.items.length).toBe(20000);
    expect(into.hold(0, 0).length).toBeLessThanOrEqual(256 << 10);
  });

  test('readInputs parses a List file element by element: no text of the whole file is parsed', () => {
    const file = path.join(dir, 'pieces.json');
    fs.writeFileSync(file, snapshot(2000));
    const size = fs.statSync(file).size;
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(readInputs([file]).objects.length).toBe(2000);
      const longest = parse.mock.calls.reduce((m, c) => Math.max(m, String(c[0]).length), 0);
      expect({ size, longest: longest < 1000 }).toEqual({ size, longest: true });
    } finally {
      parse.mockRestore();
    }
  });

  /** What the whole text gives: parseDocuments and objectsOf, as readInputs read every file before. */
  function wholeRead(text: string, file: string): { objects: unknown[] } | { findings: Finding[] } {
    const sources = new SourceMap();
    const findings: Finding[] = [];
    try {
      const objects = objectsOf(parseDocuments(text, file, sources), file, findings, sources);
      return findings.length ? { findings } : { objects };
    } catch (e) {
      if (e instanceof FindingsError) return { findings: e.findings };
      throw e;
    }
  }
  function fileRead(file: string): { objects: unknown[] } | { findings: Finding[] } {
    try {
      return { objects: readInputs([file]).objects };
    } catch (e) {
      if (e instanceof FindingsError) return { findings: e.findings };
      throw e;
    }
  }

  test('property: any List file, cut or altered, reads to the objects, errors and lines of its whole text', () => {
    const objects = fc.array(
      fc.record({
        apiVersion: fc.constantFrom('v1', ''),
        kind: fc.constantFrom('ConfigMap', 'List'),
        metadata: fc.record({ name: fc.constantFrom('a', 'b', ''), namespace: fc.constant('n') }),
        data: fc.dictionary(str, str, { maxKeys: 3 }),
      }),
      { maxLength: 5 },
    );
    const text = fc
      .tuple(
        objects,
        fc.constantFrom(0, 2, 4),
        fc.nat(),
        fc.nat(),
        fc.constantFrom('', ',', '}', '"', '-0', '1e400', 'x'),
      )
      .map(([items, indent, at, len, insert]) => {
        const t = JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, indent);
        if (insert === '' && len % 3 === 0) return t;
        const i = at % (t.length + 1);
        return t.slice(0, i) + insert + t.slice(i + (len % 3));
      });
    let n = 0;
    fc.assert(
      fc.property(text, (t) => {
        const file = path.join(dir, `p${n++}.json`);
        fs.writeFileSync(file, t);
        // A cut may split a surrogate pair; the file then holds U+FFFD, and so does its whole text.
        const whole = fs.readFileSync(file, 'utf8');
        expect({ t, read: fileRead(file) }).toEqual({ t, read: wholeRead(whole, file) });
      }),
      fcParams(200),
    );
  });

  test('a finding in a List read item by item is placed at its line (the file read again)', () => {
    const file = path.join(dir, 'lines.json');
    const t = JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, { kind: 'X' }],
      },
      null,
      4,
    );
    fs.writeFileSync(file, t);
    const got = fileRead(file) as { findings: Finding[] };
    expect(got.findings.map((f) => ({ message: f.message, line: f.line }))).toEqual([
      { message: 'object lacks apiVersion, metadata.name', line: t.split('\n').findIndex((l) => l.includes('"X"')) },
    ]);
    expect(got).toEqual(wholeRead(t, file));
  });
});
