/**
 * src/k8s/yaml.ts writes multi-line strings of printable ASCII as literal block scalars itself
 * (for speed); they must stay byte for byte what js-yaml writes, at every depth, with every
 * chomping and indentation indicator.
 */
import fc from 'fast-check';
import { dumpYaml } from '../../src/k8s/yaml';
import { dumpYamlReference } from '../helpers/yamlReference';

const same = (v: unknown) => expect(dumpYaml(v)).toBe(dumpYamlReference(v));

describe('literal block scalars', () => {
  test.each([
    ['one final line break', 'a\nb\n'],
    ['none', 'a\nb'],
    ['several', 'a\nb\n\n\n'],
    ['only line breaks', '\n'],
    ['two line breaks', '\n\n'],
    ['leading empty lines then a space', '\n\n  x\ny'],
    ['a leading space', ' a\nb'],
    ['lines of spaces', 'a\n   \n\nb\n '],
    ['YAML indicators inside', '- a: b\n# c\n|d\n---\n...\n'],
    ['quotes and backslashes', 'say "hi"\nit\'s \\n\n'],
  ])('%s', (_name, s) => {
    same(s);
    same({ k: s });
    same({ a: { b: [s, { c: s }] } });
    same([[s]]);
  });

  const chars = fc.constantFrom(...'aZ0 -:#|>\'"\n\n\n'.split(''));
  const str = fc.string({ unit: chars, minLength: 1, maxLength: 16 });
  const tree = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, str, tie('arr'), tie('obj')),
    arr: fc.array(tie('value'), { maxLength: 3 }),
    obj: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
  }));
  test('generated trees of ASCII multi-line strings', () => {
    fc.assert(
      fc.property(tree.value, (v) => dumpYaml(v) === dumpYamlReference(v)),
      { numRuns: 3000 },
    );
  });
});
