import { goQuote, goSprint } from '../../src/k8s/goText';

describe("Go's %v and %q (src/k8s/goText.ts)", () => {
  it.each([
    [null, '<nil>'],
    ['text', 'text'],
    [1000000, '1e+06'],
    [0.5, '0.5'],
    [true, 'true'],
    [['a', 1, ['b']], '[a 1 [b]]'],
    [{ z: 1, a: 'x' }, 'map[a:x z:1]'],
  ])('%%v of %j is %s', (v, want) => {
    expect(goSprint(v)).toBe(want);
  });
  it.each([
    ['example.org', '"example.org"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\x07\b\f\n\r\t\v', '"\\a\\b\\f\\n\\r\\t\\v"'],
    ['\x00\x7f', '"\\x00\\x7f"'],
    ['é☃', '"é☃"'],
    ['\u00a0\u2028', '"\\u00a0\\u2028"'],
    ['\u{1F600}', '"\u{1F600}"'],
    ['\u{E0001}', '"\\U000e0001"'],
  ])('%%q of %j is %s', (s, want) => {
    expect(goQuote(s)).toBe(want);
  });
});
