/** The oracle of src/k8s/yaml.ts's emitter: js-yaml itself, with the same options. */
import * as jsyaml from 'js-yaml';
import { DUMP_OPTIONS } from '../../src/k8s/yaml';

export function dumpYamlReference(value: unknown): string {
  return jsyaml.dump(value, DUMP_OPTIONS);
}
