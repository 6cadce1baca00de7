/** src/k8s/limits.ts: the bounds of decisions §13, measured in linear time with aliases counted as expanded. */
import { checkParsed, checkText, documentSpans, exceedsLimits, MAX_DEPTH, MAX_OBJECT_BYTES } from '../../src/k8s/limits';

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
    expect(checkText(`a: 1\n---\nb: ${'x'.repeat(33 * 1024 * 1024)}\n`)).toEqual({ line: 2, message: expect.stringMatching(/^a YAML document of \d+ characters is larger than the limit of 32 MiB$/) });
    const big = 'x'.repeat(MAX_OBJECT_BYTES + 1);
    expect(checkParsed('a: 1\n---\nb: big\n', [{ a: 1 }, { b: big }])).toEqual({ line: 2, message: expect.stringMatching(/^the YAML document expands to more than 3 MiB/) });
  });
});
