import fc from 'fast-check';
import { compileError } from '../helpers/celCompile';
import { CelError, evalBool, evalCel, evaluate, fromCel, toCel } from '../../src/cel/cel';

describe("JSON integers are CEL ints (the machine's known trap)", () => {
  it('converts whole numbers to BigInt, keeps doubles', () => {
    expect(toCel({ a: 80, b: 1.5, c: [1, { d: 2 }], e: 'x', f: null, g: true })).toEqual({
      a: 80n,
      b: 1.5,
      c: [1n, { d: 2n }],
      e: 'x',
      f: null,
      g: true,
    });
  });
  it('makes int arithmetic and comparison work', () => {
    expect(evaluate('port + 1', { port: 80 })).toBe(81);
    expect(evaluate('port == 80 && port < 443 && port % 2 == 0', { port: 80 })).toBe(true);
    expect(evaluate('self.all(a, self.exists_one(b, b.port == a.port))', { self: [{ port: 1 }, { port: 2 }] })).toBe(
      true,
    );
    expect(evaluate('string(port)', { port: 6379 })).toBe('6379');
    expect(evaluate('size(l) == 2', { l: [1, 2] })).toBe(true);
  });
  it('round-trips JSON data (property)', () => {
    const json = fc.jsonValue().filter((v) => JSON.stringify(v) === JSON.stringify(JSON.parse(JSON.stringify(v))));
    fc.assert(
      fc.property(json, (v) => {
        const norm = JSON.parse(JSON.stringify(v));
        expect(fromCel(toCel(norm))).toEqual(norm);
      }),
      { numRuns: 200 },
    );
  });
  it('int results come back as numbers', () => {
    expect(evaluate('[1, 2].size()')).toBe(2);
  });
});

describe('the strings and macros the policies use', () => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ['s.lowerAscii()', { s: 'Alice.Example.ORG' }, 'alice.example.org'],
    ['s.upperAscii()', { s: 'ab' }, 'AB'],
    ['s.startsWith("tenant-")', { s: 'tenant-a' }, true],
    ['s.endsWith(".example.org")', { s: 'a.example.org' }, true],
    ['s.trim()', { s: ' tenant-a ' }, 'tenant-a'],
    ['s.split(",")', { s: 'a,b' }, ['a', 'b']],
    ['l.join(", ")', { l: ['a', 'b'] }, 'a, b'],
    ['l.exists(g, g in ["system:masters"])', { l: ['x', 'system:masters'] }, true],
    ['l.all(h, h.endsWith(".a"))', { l: [] }, true],
    ['l.filter(h, h != "").map(h, h + "!")', { l: ['a', ''] }, ['a!']],
    ['has(m.a)', { m: { a: 1 } }, true],
    ['has(m.b)', { m: { a: 1 } }, false],
    ['"k/x" in m', { m: { 'k/x': '' } }, true],
    ['m["k/x"]', { m: { 'k/x': 'v' } }, 'v'],
    ['o == null', { o: null }, true],
    ['o != null && has(o.metadata)', { o: null }, false],
    ['string(ns).trim()', { ns: 'x ' }, 'x'],
    ['self.?a.orValue("d")', { self: {} }, 'd'],
    ['self.?a.orValue("d")', { self: { a: 'v' } }, 'v'],
  ];
  it.each(cases)('%s', (e, vars, want) => {
    expect(evaluate(e, vars)).toEqual(want);
  });
});

describe('Kubernetes library functions added to the engine', () => {
  const cases: [string, unknown][] = [
    ['"a-b-c".replace("-", "+")', 'a+b+c'],
    ['"a-b-c".replace("-", "+", 1)', 'a+b-c'],
    ['"abc".charAt(1)', 'b'],
    ['"abc".reverse()', 'cba'],
    ['"a1b22".find("[0-9]+")', '1'],
    ['"a1b22".findAll("[0-9]+")', ['1', '22']],
    ['"a1b22c3".findAll("[0-9]+", 2)', ['1', '22']],
    ['[1, 2, 3].isSorted()', true],
    ['["b", "a"].isSorted()', false],
    ['[1, 2, 3].indexOf(2)', 1],
    ['[1, 2, 1].lastIndexOf(1)', 2],
    ['[1, 2, 3].sum()', 6],
    ['[3, 1, 2].min()', 1],
    ['[3, 1, 2].max()', 3],
  ];
  it.each(cases)('%s', (e, want) => {
    expect(evaluate(e)).toEqual(want);
  });
});

describe('errors', () => {
  it('reports a missing key as a CelError, as Kubernetes does (no such key)', () => {
    expect(() => evalCel('o.spec.host', { o: toCel({}) })).toThrow(CelError);
    expect(() => evalCel('has(o.spec.host)', { o: toCel({}) })).toThrow(/No such key/i);
  });
  it('refuses a non-bool condition', () => {
    expect(() => evalBool('1 + 1', {})).toThrow(/bool/);
  });
  it('reports compile errors', () => {
    expect(compileError('a +')).toMatch(/compile error/);
    expect(compileError('a + 1')).toBeUndefined();
  });
});

describe('keys that are JavaScript property names', () => {
  it('keeps a __proto__ key as data through toCel/fromCel (fast-check counterexample)', () => {
    const v = JSON.parse('{"__proto__": 0, "a": {"__proto__": {"b": 1}}}');
    expect(JSON.stringify(fromCel(toCel(v)))).toBe(JSON.stringify(v));
  });
});
