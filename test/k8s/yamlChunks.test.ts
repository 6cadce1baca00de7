/** yamlStreamChunks (reconcile writes its YAML stream in pieces): the pieces joined are toYamlStream's text. */
import fc from 'fast-check';
import { toYamlStream, yamlStreamChunks } from '../../src/k8s/yaml';

const doc = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constantFrom('ConfigMap', 'Secret'),
  metadata: fc.record({ name: fc.string({ minLength: 1 }) }),
  data: fc.dictionary(fc.string(), fc.string()),
});

test('the chunks joined equal toYamlStream, for any chunk size', () => {
  fc.assert(
    fc.property(fc.array(doc, { maxLength: 12 }), fc.integer({ min: 1, max: 400 }), (objs, size) => {
      const chunks = [...yamlStreamChunks(objs, size)];
      expect(chunks.join('')).toBe(toYamlStream(objs));
      expect(chunks.flatMap((c, i) => (c.length === 0 ? [`chunk ${i} is empty`] : []))).toEqual([]);
    }),
  );
});

test('no documents, no chunks; small streams come as one piece', () => {
  expect([...yamlStreamChunks([])]).toEqual([]);
  expect([...yamlStreamChunks([{ a: 1 }, { b: 2 }])]).toEqual(['a: 1\n---\nb: 2\n']);
});

test('by default every piece stays below V8 large-object size (128 KiB), past one document', () => {
  // 3,000 documents of about 600 characters: 1.8 MB of text, in pieces of about 64 Ki characters.
  const objs = Array.from({ length: 3000 }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'tenant-a' },
    data: { text: 'x'.repeat(500) },
  }));
  const chunks = [...yamlStreamChunks(objs)];
  expect(chunks.join('')).toBe(toYamlStream(objs));
  expect(chunks.length).toBeGreaterThan(20);
  const big = chunks.flatMap((c, i) => (c.length + 700 > 128 * 1024 ? [`chunk ${i}: ${c.length} characters`] : []));
  expect(big).toEqual([]);
});

test('writing makes no array of keys per object, and a value written on the lines below still gets `key:` alone', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', labels: { x: 'y' }, annotations: {} },
    data: { empty: [], list: [{ a: 1 }, [1, [2]], []], gone: { only: undefined }, nested: { deeper: { k: 'v' } } },
  };
  const keys = jest.spyOn(Object, 'keys');
  let calls = -1;
  let text = '';
  try {
    text = toYamlStream([obj]);
  } finally {
    calls = keys.mock.calls.length; // read before mockRestore, which clears them
    keys.mockRestore();
  }
  expect(calls).toBe(0);
  expect(text).toBe(
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: a',
      '  labels:',
      '    x: "y"',
      '  annotations: {}',
      'data:',
      '  empty: []',
      '  list:',
      '    - a: 1',
      '    - - 1',
      '      - - 2',
      '    - []',
      '  gone: {}',
      '  nested:',
      '    deeper:',
      '      k: v',
      '',
    ].join('\n'),
  );
});
