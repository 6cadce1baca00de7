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
