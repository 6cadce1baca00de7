import * as jsyaml from 'js-yaml';
import { dumpYaml, isAmbiguousWord } from '../../src/k8s/yaml';

// The words js-yaml (and a YAML 1.1 reader) takes for null or a boolean: written quoted.
const WORDS = 'null Null NULL true True TRUE false False FALSE y Y yes Yes YES n N no No NO on On ON off Off OFF'.split(
  ' ',
);

describe('isAmbiguousWord (src/k8s/yaml.ts)', () => {
  test.each(WORDS)('%s is one, and is written quoted as a value and as a key', (w) => {
    expect(isAmbiguousWord(w)).toBe(true);
    const text = dumpYaml({ [w]: w });
    expect(text).toBe(`"${w}": "${w}"\n`);
    expect(jsyaml.load(text)).toEqual({ [w]: w });
  });

  test('no word is longer than the length the check stops at, and longer look-alikes are plain', () => {
    const long = WORDS.filter((w) => w.length > 5);
    expect(long).toEqual([]);
    for (const s of ['nullable', 'yesterday', 'onion', 'offset', 'trueish', 'Falsehood'])
      expect([s, isAmbiguousWord(s), dumpYaml({ k: s })]).toEqual([s, false, `k: ${s}\n`]);
  });
});
