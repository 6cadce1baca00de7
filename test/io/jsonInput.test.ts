/**
 * JSON input at JSON.parse speed (src/io/jsonText.ts, docs/commands/snapshot.md): a source that
 * is one JSON document reads to exactly the value js-yaml gives (and anything that could differ
 * is read by js-yaml, as before), and a finding in it is still placed at its line, found in the
 * text only when asked for.
 */
import * as fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { parseDocuments, readInputs, SourceMap } from '../../src/io/inputs';
import { countJsonKeys, JsonPositions, looksLikeJson, printableJson, sameAsYaml } from '../../src/io/jsonText';
import { FindingsError } from '../../src/k8s/diagnostics';
import { LOAD_OPTIONS, NON_PRINTABLE } from '../../src/k8s/yaml';
import { exceedsLimits, MAX_OBJECT_BYTES } from '../../src/k8s/limits';

/** Fixed runs; FC_SEED replays a failure (fast-check prints the seed). */
const fcParams = () => ({ numRuns: 200, seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined });

/** What js-yaml reads from a text (the oracle), or its error message. */
function yamlOf(text: string): unknown {
  try {
    const docs: unknown[] = [];
    jsyaml.loadAll(text, (d) => docs.push(d), LOAD_OPTIONS);
    return { docs };
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] };
  }
}

/** What parseDocuments reads, and whether it took the JSON path (the map was told so). */
function read(text: string): { value: unknown; json: boolean } {
  const sources = new SourceMap();
  let value: unknown;
  try {
    value = { docs: parseDocuments(text, 'in.json', sources) };
  } catch (e) {
    value = { error: (e as FindingsError).findings?.[0]?.message ?? String(e) };
  }
  return { value, json: (sources as unknown as { json: Map<string, unknown> }).json.has('in.json') };
}

describe('JSON sources: the same value as js-yaml', () => {
  test('a kubectl get -o json List takes the JSON path and reads to js-yaml value', () => {
    const text = JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a', labels: { x: '' } } },
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: 'c',
              namespace: 'a',
              annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"a":"b\\":","c":[1]}' },
            },
            data: { 'k:': ':v', q: 'say "hi": there', n: '\\' },
          },
        ],
        metadata: { resourceVersion: '' },
      },
      null,
      4,
    );
    const r = read(text);
    expect(r.json).toBe(true);
    expect(r.value).toEqual(yamlOf(text));
  });

  test.each([
    ['a repeated key (js-yaml refuses it)', '{"a": 1, "b": 2, "a": 3}'],
    ['a repeated key inside a list item', '{"items": [{"k": 1}, {"k": 1, "k": 2}]}'],
    ['-0 (js-yaml reads 0)', '{"a": -0}'],
    ['1e400 (js-yaml reads a string)', '{"a": 1e400}'],
    ['JSON followed by another document', '{"a": 1}\n---\n{"b": 2}\n'],
    ['a flow mapping that is YAML, not JSON', '{a: 1, b: [x, y]}'],
    ['a byte-order mark', '\ufeff{"a": [1, 2.5, true, null, "s"]}'],
    ['CRLF line ends', '{\r\n  "a": "b",\r\n  "c": {}\r\n}\r\n'],
    ['a top-level array', '[{"a": 1}, 2]'],
    ['nesting js-yaml refuses', '['.repeat(100) + ']'.repeat(100)],
    ['a raw character js-yaml refuses (DEL)', '{"a": "x\u007f"}'.replace('\\u007f', '\x7f')],
    ['a lone surrogate, raw', '{"a": "\ud800"}'.replace('\\ud800', '\ud800')],
    ['nesting just within js-yaml bound', '['.repeat(99) + ']'.repeat(99)],
  ])('%s: the same value or error as js-yaml', (_what, text) => {
    const r = read(text);
    const y = yamlOf(text) as { error?: string };
    if (y.error) expect((r.value as { error?: string }).error).toBeDefined();
    else expect(r.value).toEqual(y);
  });

  test('a repeated key, -0 and 1e400 are read by js-yaml (the JSON path declines them)', () => {
    for (const text of ['{"a": 1, "a": 2}', '{"a": -0}', '{"a": 1e400}', '{a: 1}'])
      expect({ text, json: read(text).json }).toEqual({ text, json: false });
  });

  test('property: any JSON value, written with any indentation, reads to what js-yaml reads', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.constantFrom(0, 2, 4), (v, indent) => {
        const text = JSON.stringify({ kind: 'List', items: [v] }, null, indent);
        expect(read(text).value).toEqual(yamlOf(text));
      }),
      fcParams(),
    );
  });
});

describe('printableJson: NON_PRINTABLE asked only of a text that could hold one', () => {
  // Every character NON_PRINTABLE finds, or could find in a pair, and the printable ones around them.
  const chars = [
    ...'\u0000\u0008\t\n\u000b\u000c\r\u001f\u007e\u007f\u0080\u0084\u0085\u0086\u009f\u00a0',
    '\ud7ff',
    '\ud800',
    '\udbff',
    '\udc00',
    '\udfff',
    '\ue000',
    '\ufffd',
    '\ufffe',
    '\uffff',
    '\ud83d\ude00',
    'a',
    ' ',
  ];
  test('each such character, raw in a JSON string: the answer NON_PRINTABLE gives', () => {
    for (const c of chars) {
      const text = `{"k": "x${c}y"}`;
      let parsed = true;
      try {
        JSON.parse(text);
      } catch {
        parsed = false;
      }
      // printableJson is asked only of a text JSON.parse accepted (a raw control character it refuses).
      if (parsed) expect({ c, printable: printableJson(text) }).toEqual({ c, printable: !NON_PRINTABLE.test(text) });
    }
    expect(printableJson('{"k": "\u007f"}')).toBe(false);
    expect(printableJson('{"k": "\ud800"}')).toBe(false);
    expect(printableJson('{"k": "\ud83d\ude00 \u0085"}')).toBe(true);
  });
  test('property: on any text JSON.parse accepts, the answer NON_PRINTABLE gives', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars), { maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), (cs, v) => {
        const text = JSON.stringify({ s: cs.join(''), v }).replace('"s":"', `"s":"${cs.join('')}`);
        let parsed = true;
        try {
          JSON.parse(text);
        } catch {
          parsed = false;
        }
        if (parsed) expect(printableJson(text)).toBe(!NON_PRINTABLE.test(text));
      }),
      fcParams(),
    );
  });
  test('a raw DEL or C1 control character sends the text to js-yaml, which refuses it at its line', () => {
    for (const c of ['\u007f', '\u0090'])
      expect({ c, json: read(`{"kind": "List", "items": ["${c}"]}`).json }).toEqual({ c, json: false });
  });
});

describe('countJsonKeys and sameAsYaml', () => {
  test('keys are counted as tokens: colons and quotes inside strings count nothing', () => {
    expect(countJsonKeys('{"a": "x\\": y", "b" :{"c":"\\\\"}, "d": ["e:", "\\"f\\":"]}')).toBe(4);
    expect(countJsonKeys('[]')).toBe(0);
  });
  test('sameAsYaml counts entries, and declines -0, non-finite numbers and nesting at the bound', () => {
    expect(sameAsYaml({ a: { b: 1, c: [{ d: 2 }] } })).toBe(4);
    // Every own key counts: integer-like keys and a `__proto__` key JSON.parse makes an own property.
    expect(sameAsYaml(JSON.parse('{"2": 1, "1": {"__proto__": {"x": 1}}, "a": []}'))).toBe(5);
    // ... walked with for-in: no array of keys made per object (the List's own keys, once).
    const list = JSON.parse('{"kind": "List", "items": [{"a": {"b": 1}}, {"c": [{"d": 2}]}]}') as object;
    const keys = jest.spyOn(Object, 'keys');
    let entries: number | undefined;
    let asked: unknown[] = [];
    try {
      entries = sameAsYaml(list);
    } finally {
      asked = keys.mock.calls.map((c) => c[0]);
      keys.mockRestore();
    }
    expect(entries).toBe(6);
    expect(asked).toEqual([list]);
    expect(sameAsYaml({ a: -0 })).toBeUndefined();
    expect(sameAsYaml([Infinity])).toBeUndefined();
    let deep: unknown = [];
    for (let i = 1; i < 100; i++) deep = [deep];
    expect(sameAsYaml(deep)).toBeUndefined();
  });
  test('sameAsYaml declines what the limits refuse: a List item, the rest of a List, or a value past 3 MiB', () => {
    const big = 'x'.repeat(MAX_OBJECT_BYTES);
    const item = (data: unknown) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data });
    // Each item on its own: two items of 2 MiB pass, one of 3 MiB does not.
    const half = 'x'.repeat(2 << 20);
    expect(sameAsYaml({ kind: 'List', items: [item({ a: half }), item({ b: half })] })).toBe(14);
    expect(sameAsYaml({ kind: 'List', items: [item({ a: 'y' }), item({ a: big })] })).toBeUndefined();
    expect(sameAsYaml({ kind: 'List', items: [], note: big })).toBeUndefined();
    expect(sameAsYaml(item({ a: big }))).toBeUndefined();
  });
  test('property: sameAsYaml counts a value exactly when the limits pass it (sizes near the bound)', () => {
    const str = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('x'.repeat(1 << 20), 'y'.repeat(3 << 19)));
    const leaf = fc.oneof(str, fc.integer(), fc.boolean(), fc.constant(null));
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    const value = fc.oneof(
      tree,
      fc.record({ kind: fc.constant('List'), items: fc.array(tree, { maxLength: 4 }), extra: tree }),
    );
    fc.assert(
      fc.property(value, (v) => {
        expect({ counted: sameAsYaml(v) !== undefined, v: JSON.stringify(v).slice(0, 80) }).toEqual({
          counted: exceedsLimits(v) === undefined,
          v: JSON.stringify(v).slice(0, 80),
        });
      }),
      { ...fcParams(), numRuns: 100 },
    );
  });
  test('a JSON List with an item past 3 MiB is refused at its line, as js-yaml reads it', () => {
    const text = JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'c', namespace: 'a' },
            data: { a: 'x'.repeat(MAX_OBJECT_BYTES) },
          },
        ],
      },
      null,
      2,
    );
    const { value, json } = read(text);
    expect(json).toBe(false);
    expect(value).toEqual({ error: expect.stringMatching(/^the YAML document expands to more than 3 MiB/) });
  });
  test('looksLikeJson: an object or an array first, after a BOM and white space', () => {
    expect(looksLikeJson('\ufeff \n {"a":1}')).toBe(true);
    expect(looksLikeJson('[1]')).toBe(true);
    expect(looksLikeJson('a: {"b": 1}')).toBe(false);
    expect(looksLikeJson('# {"a": 1}')).toBe(false);
    expect(looksLikeJson('')).toBe(false);
  });
});

describe('JSON sources: lines, found only when asked for', () => {
  const list = (indent: number) =>
    JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'c', namespace: 'a' },
            data: { 'x.y': '1', z: '2' },
          },
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'a' } },
        ],
      },
      null,
      indent,
    );

  test('an object that lacks a field is reported at its line in the List', () => {
    let err: FindingsError | undefined;
    try {
      readInputs(['-'], { readStdin: () => list(4) });
    } catch (e) {
      err = e as FindingsError;
    }
    expect(err?.findings.map((f) => [f.message, f.line])).toEqual([['object lacks metadata.name', 24]]);
    const lines = list(4).split('\n');
    expect(lines[23].trim()).toBe('{');
  });

  test('lineOf a field: the line of its key, keys with dots in them and list items included', () => {
    const text = list(2);
    const { objects, sources } = readInputs(['-'], {
      readStdin: () =>
        text.replace(
          /\{\s*"apiVersion": "v1",\s*"kind": "ConfigMap",\s*"metadata": \{\s*"namespace": "a"\s*\}\s*\}/,
          '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}}',
        ),
    });
    const lines = text.split('\n');
    const lineOfText = (s: string) => lines.findIndex((l) => l.includes(s)) + 1;
    expect(sources.lineOf(objects[1], 'data.x.y')).toBe(lineOfText('"x.y"'));
    expect(sources.lineOf(objects[1], 'data.z')).toBe(lineOfText('"z"'));
    expect(sources.lineOf(objects[1], 'metadata.missing')).toBe(lineOfText('"name": "c"') - 1);
    expect(sources.lineOf(objects[0])).toBe(lineOfText('"kind": "Namespace"') - 2);
  });

  test('property: the line of any path is the one the YAML reader finds in the same text', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 5 }),
        fc.constantFrom(0, 2, 4),
        fc.array(fc.oneof(fc.nat(4), fc.constantFrom('a', 'b', 'items', 'x.y')), { maxLength: 5 }),
        (v, indent, path) => {
          const text = JSON.stringify({ items: [v], a: v }, null, indent).replace(/\n/g, indent === 4 ? '\r\n' : '\n');
          const viaJson = new SourceMap();
          viaJson.addText('f.json', text);
          viaJson.markJson('f.json');
          const viaYaml = new SourceMap();
          viaYaml.addText('f.json', text);
          const origin = { file: 'f.json', doc: 0, path };
          expect(viaJson.lineAt(origin)).toBe(viaYaml.lineAt(origin));
        },
      ),
      fcParams(),
    );
  });

  test('JsonPositions walks an array once, however many items are placed', () => {
    const text = JSON.stringify({ items: Array.from({ length: 1000 }, (_, i) => ({ i })) }, null, 2);
    const at = new JsonPositions(text);
    const items = at.member(at.root(), 'items')!.value;
    expect(at.line(at.element(items, 999)!)).toBe(2 + 999 * 3 + 1);
    expect(at.line(at.element(items, 0)!)).toBe(3);
    expect(at.element(items, 1000)).toBeUndefined();
  });
});
