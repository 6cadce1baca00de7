/**
 * Writing manifests (the CLI edge). YAML goes through js-yaml, which quotes the strings a
 * YAML 1.1 reader (kubectl, sigs.k8s.io/yaml) would take for booleans or numbers (`yes`, `on`,
 * `0777`), so the output reads back with the types it was written with.
 */
import * as jsyaml from 'js-yaml';
import type { KObject } from '../model';

export function dumpYaml(value: unknown): string {
  return jsyaml.dump(value, { noRefs: true, lineWidth: -1, sortKeys: false, quotingType: '"' });
}

/** Multi-document YAML, `---` between documents; empty string for no documents. */
export function toYamlStream(objs: unknown[]): string {
  return objs.map((o) => dumpYaml(o)).join('---\n');
}

export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

export function toJsonList(objs: KObject[]): string {
  return toJson({ apiVersion: 'v1', kind: 'List', items: objs });
}
