/**
 * src/k8s/yaml.ts writes some single-line strings between double quotes itself, without asking
 * js-yaml: printable ASCII with nothing to escape that js-yaml cannot write plain (a `*` first, a
 * `: ` inside). They must stay byte for byte what js-yaml writes, as values and as keys, and
 * every string near them (a tab, a quote, a backslash, `:` without a space) must still be
 * js-yaml's.
 */
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { dumpYaml } from '../../src/k8s/yaml';
import { dumpYamlReference } from '../helpers/yamlReference';
import { FC_SEED } from '../helpers/tenantTreeArbitrary';

const same = (v: unknown) => expect(dumpYaml(v)).toBe(dumpYamlReference(v));

describe('double-quoted scalars written without js-yaml', () => {
  test.each([
    ['a wildcard hostname', '*.tenant-a.example.org', '"*.tenant-a.example.org"'],
    [
      'a status message',
      'On TenantGateway t/g: listener http admits routes',
      '"On TenantGateway t/g: listener http admits routes"',
    ],
    ['a colon and a space only', ': ', '": "'],
    ['a star only', '*', '"*"'],
    ['a trailing colon and space', 'key: ', '"key: "'],
  ])('%s', (_name, s, quoted) => {
    expect(dumpYaml({ k: s })).toBe(`k: ${quoted}\n`);
    expect(jsyaml.load(dumpYaml({ k: s }))).toEqual({ k: s });
    same({ k: s });
    same({ [s]: [s, { [s]: s }] });
  });

  test.each([
    ['a colon without a space (plain)', 'http://x:80/a'],
    ['a tab after the colon', 'a:\tb'],
    ['a quote', '*say "hi"'],
    ['a backslash', 'a: b\\c'],
    ['a character past ASCII', '*.bücher.example'],
    ['a star inside (plain)', 'a*b'],
    ['a line break', '*a\nb: c'],
  ])('%s: what js-yaml writes', (_name, s) => {
    same({ k: s });
    same({ [s.replace(/\n/g, ' ')]: s });
  });

  const chars = fc.constantFrom(...'aZ0 :*#-"\\\t,[]{}\'!&|>%@`'.split(''));
  const str = fc.string({ unit: chars, minLength: 1, maxLength: 12 });
  test('generated strings of YAML indicators, as values and as keys', () => {
    fc.assert(
      fc.property(str, (s) => dumpYaml({ k: s, [s]: [s] }) === dumpYamlReference({ k: s, [s]: [s] })),
      { numRuns: 5000, seed: FC_SEED },
    );
  });
});
