/** src/k8s/limits.ts: the bounds of docs/decisions.md §13, measured in linear time with aliases counted as expanded. */
import {
  checkParsed,
  checkText,
  documentSpans,
  exceedsLimits,
  MAX_DEPTH,
  MAX_OBJECT_BYTES,
} from '../../src/k8s/limits';
import fc from 'fast-check';

describe('exceedsLimits', () => {
  it('counts a shared node each time it is referred to, without walking it again', () => {
    let node: unknown = ['x'.repeat(100)];
    for (let i = 0; i < 40; i++) node = [node, node]; // 2^40 leaves once expanded, 41 distinct arrays
    const t0 = Date.now();
    expect(exceedsLimits({ a: node })).toMatch(/^expands to more than 3 MiB/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
  it('lets an object under the bound through, and refuses one just over it', () => {
    expect(exceedsLimits({ a: 'x'.repeat(1000) })).toBeUndefined();
    expect(exceedsLimits({ a: 'x'.repeat(MAX_OBJECT_BYTES) })).toMatch(/expands to more than 3 MiB/);
  });
  it('refuses a cycle and a nesting past MAX_DEPTH', () => {
    const a: unknown[] = [];
    a.push(a);
    expect(exceedsLimits({ a })).toMatch(/cycle/);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_DEPTH + 1; i++) deep = [deep];
    expect(exceedsLimits(deep)).toMatch(/nested more than 100 levels deep/);
    let ok: unknown = 1;
    for (let i = 0; i < MAX_DEPTH - 1; i++) ok = [ok];
    expect(exceedsLimits(ok)).toBeUndefined();
  });
  it('measures each item of a List on its own', () => {
    const item = { kind: 'ConfigMap', data: { a: 'x'.repeat(1024 * 1024) } };
    expect(exceedsLimits({ kind: 'List', items: [item, item, item, item, item] })).toBeUndefined();
    expect(exceedsLimits({ kind: 'ConfigMap', items: [item, item, item, item, item] })).toMatch(/expands/);
  });
});

describe('documentSpans and the checks', () => {
  it('places documents at their first line, \\r, \\r\\n and \\n all ending lines', () => {
    expect(documentSpans('a: 1\r---\rb: 2\r\n---\nc: 3\n').map((s) => s.line)).toEqual([1, 2, 4]);
    expect(documentSpans('# comment\n---\na: 1\n').map((s) => s.line)).toEqual([2]);
  });
  it('checkText refuses a document longer than 32 MiB at its line, checkParsed places a parsed document', () => {
    expect(checkText('a: 1\n')).toBeUndefined();
    expect(checkText(`a: 1\n---\nb: ${'x'.repeat(33 * 1024 * 1024)}\n`)).toEqual({
      line: 2,
      message: expect.stringMatching(/^a YAML document of \d+ characters is larger than the limit of 32 MiB$/),
    });
    const big = 'x'.repeat(MAX_OBJECT_BYTES + 1);
    expect(checkParsed('a: 1\n---\nb: big\n', [{ a: 1 }, { b: big }])).toEqual({
      line: 2,
      message: expect.stringMatching(/^the YAML document expands to more than 3 MiB/),
    });
  });
});

describe('exceedsLimits on generated graphs (FC_SEED replays)', () => {
  // The measure as the module states it, written the plain way: strings their length + 2, other
  // scalars 4, a collection 2 plus each item + 2 (sequence) or key length + 4 + value (mapping),
  // a shared node counted each time it is referred to.
  const expanded = (v: unknown): number => {
    if (typeof v === 'string') return v.length + 2;
    if (v === null || typeof v !== 'object') return 4;
    if (Array.isArray(v)) return v.reduce((n: number, x) => n + expanded(x) + 2, 2);
    return Object.entries(v).reduce((n, [k, x]) => n + k.length + 4 + expanded(x), 2);
  };
  // Directed acyclic graphs: later nodes refer to earlier ones, so sharing is everywhere.
  const graph = fc
    .array(
      fc.tuple(
        fc.oneof(fc.constant('seq'), fc.constant('map')),
        fc.array(fc.oneof(fc.nat(), fc.string({ maxLength: 30 })), { minLength: 1, maxLength: 5 }),
      ),
      { minLength: 1, maxLength: 12 },
    )
    .map((spec) => {
      const nodes: unknown[] = [];
      for (const [shape, refs] of spec) {
        const kids = refs.map((r) => (typeof r === 'number' && nodes.length ? nodes[r % nodes.length] : String(r)));
        nodes.push(shape === 'seq' ? kids : Object.fromEntries(kids.map((k, i) => [`k${i}`, k])));
      }
      return nodes[nodes.length - 1];
    });
  const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
  it('refuses exactly the values whose expanded size passes the bound', () => {
    fc.assert(
      fc.property(graph, fc.integer({ min: 10, max: 5000 }), (v, max) => {
        const why = exceedsLimits(v, max, 1000);
        expect(why === undefined).toBe(expanded(v) <= max);
        if (why) expect(why).toMatch(/^expands to more than/);
      }),
      { numRuns: 300, seed },
    );
  });
});

test('the cheap walk makes no array of keys per object (for-in), and still counts every key', () => {
  const value = {
    kind: 'List',
    items: Array.from({ length: 200 }, (_, i) => ({
      metadata: { name: `n${i}`, labels: { a: 'b' } },
      data: { k: 'v' },
    })),
  };
  const keys = jest.spyOn(Object, 'keys');
  let calls = -1;
  let why: string | undefined;
  try {
    why = exceedsLimits(value);
  } finally {
    calls = keys.mock.calls.length; // read before mockRestore, which clears them
    keys.mockRestore();
  }
  expect(why).toBeUndefined();
  expect(calls).toBe(0);
  // Counted: a value whose keys alone pass the bound is refused.
  const manyKeys = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`.padEnd(100, 'x'), 1]));
  expect(exceedsLimits(manyKeys, 4000)).toMatch(/expands to more than/);
});
