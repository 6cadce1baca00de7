/**
 * js-yaml as the oracle of what a YAML stream holds (core schema, as src/k8s/yaml.ts LOAD_OPTIONS
 * reads inputs), and the comparison the fast reader is held to: the same values (-0 and NaN told
 * apart as isDeepStrictEqual does) with the keys in the same order.
 */
import { isDeepStrictEqual } from 'node:util';
import * as jsyaml from 'js-yaml';
import { LOAD_OPTIONS } from '../../src/k8s/yaml';

export function jsYamlAll(text: string): { docs: unknown[] } | { error: string } {
  try {
    const docs: unknown[] = [];
    jsyaml.loadAll(text, (d) => docs.push(d), LOAD_OPTIONS);
    return { docs };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export function sameDocs(a: unknown[], b: unknown[]): boolean {
  return isDeepStrictEqual(a, b) && JSON.stringify(a) === JSON.stringify(b);
}
