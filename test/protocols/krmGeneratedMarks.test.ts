/** The annotations a new fn item gets (src/protocols/krm/items.ts generatedMarks, annotateGenerated). */
import {
  GENERATED_ANNOTATION,
  INDEX_ANNOTATION,
  LEGACY_INDEX_ANNOTATION,
  LEGACY_PATH_ANNOTATION,
  PATH_ANNOTATION,
  annotateGenerated,
  generatedMarks,
} from '../../src/protocols/krm/items';
import type { KObject } from '../../src/k8s/model';

const cm = (name: string, annotations?: Record<string, string>): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: annotations
    ? { name, namespace: 'tenant-a', annotations, labels: { a: 'b' } }
    : { name, namespace: 'tenant-a' },
  data: { k: 'v' },
});

describe('generatedMarks', () => {
  test('its literal keys are the annotation constants, in the order kpt reads them', () => {
    expect(generatedMarks('cozy-gw/tenant-a/configmap-x.yaml', 2)).toEqual({
      [GENERATED_ANNOTATION]: 'true',
      [PATH_ANNOTATION]: 'cozy-gw/tenant-a/configmap-x.yaml',
      [INDEX_ANNOTATION]: '2',
      [LEGACY_PATH_ANNOTATION]: 'cozy-gw/tenant-a/configmap-x.yaml',
      [LEGACY_INDEX_ANNOTATION]: '2',
    });
    expect(Object.keys(generatedMarks('p', 0))).toEqual([
      GENERATED_ANNOTATION,
      PATH_ANNOTATION,
      INDEX_ANNOTATION,
      LEGACY_PATH_ANNOTATION,
      LEGACY_INDEX_ANNOTATION,
    ]);
    expect(generatedMarks()).toEqual({ [GENERATED_ANNOTATION]: 'true' });
  });

  test('annotateGenerated: the object own annotations first, in place, then the marks; the input untouched; a second object of one file gets the next index', () => {
    const a = cm('x', { 'example.org/note': 'n', [PATH_ANNOTATION]: 'old' });
    const before = JSON.stringify(a);
    const [out, again] = annotateGenerated([a, cm('x')], true);
    expect(JSON.stringify(a)).toBe(before);
    expect(Object.keys(out.metadata)).toEqual(['name', 'namespace', 'annotations', 'labels']);
    expect(Object.entries(out.metadata.annotations!)).toEqual([
      ['example.org/note', 'n'],
      [PATH_ANNOTATION, 'cozy-gw/tenant-a/configmap-x.yaml'],
      [GENERATED_ANNOTATION, 'true'],
      [INDEX_ANNOTATION, '0'],
      [LEGACY_PATH_ANNOTATION, 'cozy-gw/tenant-a/configmap-x.yaml'],
      [LEGACY_INDEX_ANNOTATION, '0'],
    ]);
    expect(out.data).toBe(a.data);
    expect(again.metadata.annotations![INDEX_ANNOTATION]).toBe('1');
    expect(Object.keys(again.metadata)).toEqual(['name', 'namespace', 'annotations']);
    expect(annotateGenerated([cm('y')], false)[0].metadata.annotations).toEqual({ [GENERATED_ANNOTATION]: 'true' });
  });
});
