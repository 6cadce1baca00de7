/**
 * Metadata of the shape the API server accepts: `metadata.namespace` a string naming a namespace
 * (a DNS-1123 label: never `..`, which a path built from it would climb out of its folder with),
 * `labels` and `annotations` maps of strings. Anything else (`annotations: "abc"`, `labels: [a, b]`, a number
 * as a label value) is an input error naming the field, never read as something else. Pure.
 */
import { error, type Finding } from './diagnostics';
import { isObject, refOf, type KObject } from './model';
import { isDns1123Label, notANamespaceName } from './dnsNames';

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (isObject(v)) return 'a mapping';
  return `a ${typeof v}`;
}

/** The findings of one object's metadata (empty when it is well formed). */
export function metadataFindings(o: KObject): Finding[] {
  const out: Finding[] = [];
  const md = o.metadata as unknown;
  if (!isObject(md)) return out; // the reader already refused an object without metadata
  // Nothing is built for a well-formed object (every real one): the reference only with a finding.
  const at = (field: string, message: string, hint?: string) => {
    const ref =
      typeof md.namespace === 'string'
        ? { ...refOf(o) }
        : { apiVersion: String(o.apiVersion), kind: String(o.kind), name: typeof md.name === 'string' ? md.name : '' };
    out.push(
      error(message, {
        object: ref,
        instance: o,
        field,
        rule: 'input.metadata',
        hint:
          hint ??
          (field === 'metadata.namespace'
            ? "write the namespace's name as a string, e.g. namespace: tenant-root"
            : 'labels and annotations map string keys to string values: quote a value YAML would read as a number or a boolean, e.g. "1" or "true"'),
      }),
    );
  };
  if (md.namespace !== undefined && md.namespace !== null && typeof md.namespace !== 'string')
    at('metadata.namespace', `must be a string, got ${kindOf(md.namespace)}`);
  else if (typeof md.namespace === 'string' && md.namespace !== '' && !isDns1123Label(md.namespace))
    at(
      'metadata.namespace',
      notANamespaceName(md.namespace),
      'name the namespace the object lives in, e.g. namespace: tenant-root',
    );
  for (const f of ['labels', 'annotations'] as const) {
    const v = md[f];
    if (v === undefined || v === null) continue;
    if (!isObject(v)) {
      at(`metadata.${f}`, `must be a map of strings, got ${kindOf(v)}`);
      continue;
    }
    for (const k in v)
      if (Object.prototype.hasOwnProperty.call(v, k) && typeof v[k] !== 'string')
        at(`metadata.${f}.${k}`, `must be a string, got ${kindOf(v[k])}`);
  }
  return out;
}

/** The findings of every object's metadata. */
export function metadataFindingsOf(objects: KObject[]): Finding[] {
  return objects.flatMap(metadataFindings);
}
