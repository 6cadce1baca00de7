/**
 * kustomization.yaml's text (src/io/outputDir.ts kustomizationText): js-yaml's, byte for byte,
 * whatever the paths; the plain paths every tree holds are listed without asking the YAML writer.
 */
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { kustomizationText, PLAIN_PATH, treePaths } from '../../src/io/outputDir';
import { MARKER } from '../../src/io/treeFiles';
import type { KObject } from '../../src/k8s/model';
import { DUMP_OPTIONS, dumpYaml } from '../../src/k8s/yaml';

// The YAML writer, watched: whether kustomizationText asked it.
jest.mock('../../src/k8s/yaml', () => {
  const actual = jest.requireActual<typeof import('../../src/k8s/yaml')>('../../src/k8s/yaml');
  return { ...actual, dumpYaml: jest.fn(actual.dumpYaml) };
});

const obj = (kind: string, name: string, namespace?: string): KObject =>
  ({ apiVersion: 'v1', kind, metadata: { name, ...(namespace !== undefined ? { namespace } : {}) } }) as KObject;

describe('kustomization.yaml', () => {
  const oracle = (paths: string[]) =>
    `${MARKER}\n${jsyaml.dump({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: paths }, DUMP_OPTIONS)}`;

  it('lists the paths treePaths makes as js-yaml writes them, for any names (plain ones a line each)', () => {
    const name = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom(
        'yes',
        'no',
        'null',
        '~',
        '1e5',
        '0777',
        '2024-05-01',
        '_x',
        '-',
        '.',
        'a:b',
        'a #b',
        'x'.repeat(300),
      ),
    );
    let plain = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('Secret', 'a-b', 'ConfigMap'), name, fc.option(name, { nil: undefined })), {
          minLength: 1,
          maxLength: 12,
        }),
        (specs) => {
          const paths = treePaths(specs.map(([k, n, ns]) => obj(k, n, ns)));
          if (paths.every((p) => PLAIN_PATH.test(p))) plain++;
          expect(kustomizationText(paths)).toBe(oracle(paths));
        },
      ),
      { numRuns: 300, seed: Number(process.env.FC_SEED ?? 11) },
    );
    // The direct list was taken, not the writer's every time (the names above are mostly plain).
    expect(plain).toBeGreaterThan(30);
  });

  it('plain paths are listed without the YAML writer (170,000 of them at XL); others are its', () => {
    const writer = jest.mocked(dumpYaml);
    writer.mockClear();
    kustomizationText(['_cluster/namespace-a.yaml', 'a/secret-s.yaml']);
    expect(writer).not.toHaveBeenCalled();
    kustomizationText(['_cluster/namespace-a.yaml', 'a/yes: no.yaml']);
    expect(writer).toHaveBeenCalledTimes(1);
  });

  it("a path the writer would quote is the writer's, whatever the others are", () => {
    for (const paths of [['_cluster/a.yaml', 'x/yes: no.yaml'], ['a/b.yaml', '-/b.yaml'], []]) {
      expect([paths, kustomizationText(paths)]).toEqual([paths, oracle(paths)]);
    }
    expect(kustomizationText(['_cluster/a.yaml', 'x/b~c.yaml'])).toBe(
      `${MARKER}\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - _cluster/a.yaml\n  - x/b~c.yaml\n`,
    );
  });
});
