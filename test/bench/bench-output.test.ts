/**
 * src/k8s/yaml.ts writes YAML with its own emitter for speed; it must stay byte for
 * byte what js-yaml writes with the same options, YAML-1.1-safe quoting included.
 */
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { generate } from '../../bench/generate.js';
import { dumpYaml, toYamlStream } from '../../src/k8s/yaml';
import { dumpYamlReference } from '../helpers/yamlReference';

const same = (v: unknown) => expect(dumpYaml(v)).toBe(dumpYamlReference(v));

describe('dumpYaml is js-yaml, byte for byte', () => {
  test.each([
    [
      'scalars that read as other types',
      {
        a: 'true',
        b: 'yes',
        c: 'on',
        d: 'Off',
        e: 'y',
        f: 'N',
        g: 'null',
        h: '~',
        i: '0777',
        j: '1.0',
        k: '1e3',
        l: '0x1F',
        m: '1:20',
        n: '2026-01-01',
        o: '2026-01-01T00:00:00Z',
        p: '.inf',
        q: '-.nan',
        r: '<<',
        s: '',
      },
    ],
    [
      'indicators and spaces',
      {
        a: '*.example.org',
        b: '- x',
        c: 'a: b',
        d: 'a #b',
        e: 'a#b',
        f: 'trailing ',
        g: ' leading',
        h: 'x:',
        i: '@x',
        j: '`x',
        k: '%x',
        l: 'a,b',
        m: '[x]',
        n: '{x}',
        o: 'a [b] {c}',
        p: 'say "hi"',
        q: "it's",
        r: '!tag',
        s: '&a',
        t: '|x',
        u: '>x',
        v: '?x',
        w: 'x?',
      },
    ],
    [
      'numbers and other values',
      {
        a: 0,
        b: -0,
        c: 1.5,
        d: -2,
        e: 1e21,
        f: NaN,
        g: Infinity,
        h: -Infinity,
        i: true,
        j: false,
        k: null,
        l: undefined,
        m: 2 ** 53,
        n: 0.1,
      },
    ],
    [
      'multi-line strings at every depth',
      {
        a: 'one\ntwo',
        b: { c: 'x\n\n y\n', d: [{ e: 'p\nq\n\n' }, 'r\ns'] },
        f: '\nlead',
        g: ' indented\nnext',
        h: 'tab\tand\nctrl\u0001',
      },
    ],
    [
      'empty and nested collections',
      {
        a: {},
        b: [],
        c: [[]],
        d: [{}],
        e: [[1, [2, { x: [] }]]],
        f: { g: { h: { i: [] } } },
        j: [undefined, null],
        k: { u: undefined },
      },
    ],
    ['keys that need quoting', { 'a b': 1, 'x: y': 2, '': 3, true: 4, '1': 5, '-k': 6, 'k#': 7, é: 8, 'tab\t': 9 }],
    ['unicode', { a: 'héllo wörld', b: '日本語', c: '\u2028', d: 'emoji 😀', e: '\ufeffbom' }],
    ['a key over 1024 characters, a multi-line key', { ['k'.repeat(1100)]: 1, 'two\nlines': 2 }],
    ['top-level values', 'plain'],
    ['top-level sequence', [1, 'two', { three: 3 }]],
    ['undefined', undefined],
    ['a Date falls back to js-yaml', { when: new Date(0) }],
  ])('%s', (_name, v) => same(v));

  test('the objects of a generated platform', () => {
    const g = generate('S', 3, { tops: 4 });
    for (const o of [...g.tenants, ...g.snapshot]) same(o);
    expect(toYamlStream(g.snapshot)).toBe(
      g.snapshot.map((o) => jsyaml.dump(o, { noRefs: true, lineWidth: -1, quotingType: '"' })).join('---\n'),
    );
  });

  test('errors are js-yaml errors', () => {
    expect(() => dumpYaml({ f: () => 1 })).toThrow(/unacceptable kind/);
  });

  // Strings from an alphabet rich in YAML's special characters, in every position of a tree.
  const chars = fc.constantFrom(...'aAzZ09 .-_/:#,[]{}!&*|>\'"%@`?=~\n\t\\\u0001éy'.split(''));
  const str = fc.oneof(
    fc.string({ unit: chars, maxLength: 12 }),
    fc.constantFrom(
      'yes',
      'no',
      'on',
      'off',
      'true',
      'null',
      '1',
      '0o7',
      '0x1',
      '1_000',
      '1:2',
      '.5',
      '+1',
      '-',
      '---',
      '...',
      '<<',
      '=',
      'y',
      'n',
    ),
  );
  const tree = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      str,
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      tie('arr'),
      tie('obj'),
    ),
    arr: fc.array(tie('value'), { maxLength: 4 }),
    obj: fc.dictionary(str, tie('value'), { maxKeys: 4 }),
  }));

  test('generated trees', () => {
    fc.assert(
      fc.property(tree.value, (v) => dumpYaml(v) === dumpYamlReference(v)),
      { numRuns: 3000 },
    );
  });
});
