/**
 * Where a platform value is set: the sources of platform values (each `--values` file, `--set`,
 * and the platform Package's `spec.components.platform.values`), in precedence order, and a
 * finding about a value placed at the source that sets it. The core names the file or the
 * object and the field; the CLI edge adds the line from the readers' source map. Pure.
 */
import type { Finding } from '../k8s/diagnostics';
import { getPath, isObject, refOf, type KObject } from '../k8s/model';
import { PACKAGE_VALUES_FIELD, packageValues } from '../platform/kinds';

/** Where a platform-values source came from: a `--values` file, or a Package object. */
export type ValuesWhere = { file: string; values: Record<string, unknown> } | { pkg: KObject };

/** The values a source holds, as written. */
export function valuesOf(where: ValuesWhere): unknown {
  return 'pkg' in where ? packageValues(where.pkg) : where.values;
}

/** The source of a platform-values field (`gateway.className`): the file or the object, and the field there. */
export function locateValue(where: ValuesWhere, field: string): Pick<Finding, 'file' | 'object' | 'field'> {
  if ('pkg' in where)
    return { object: refOf(where.pkg), field: field ? `${PACKAGE_VALUES_FIELD}.${field}` : PACKAGE_VALUES_FIELD };
  return { file: where.file, field: field || undefined };
}

/** The sources of platform values, highest precedence first (the last `--values` file wins, the Package last). */
export function valueSources(
  files: readonly { file: string; values: Record<string, unknown> }[],
  pkg?: KObject,
): ValuesWhere[] {
  const out: ValuesWhere[] = [...files].reverse();
  if (pkg) out.push({ pkg });
  return out;
}

/** Where a platform-values field was set: the highest-precedence source that sets it (else the field alone). */
export function whereSet(sources: readonly ValuesWhere[], field: string): Partial<Finding> {
  const top = field.replace(/\[\d+\]$/, '');
  for (const s of sources) {
    const values = valuesOf(s);
    if (isObject(values) && getPath(values, top) !== undefined) return locateValue(s, field);
  }
  return { field };
}

/**
 * A finding about a platform value (it names only the field) placed at the source that sets it.
 * The layer-6 guard names the list `gateway.attachedNamespaces`; it is pointed at the offending
 * entry when that can be found.
 */
export function placeValueFinding(f: Finding, sources: readonly ValuesWhere[]): Finding {
  if (!f.field || f.file) return f;
  let field = f.field;
  const entry = /"(tenant-[^"]*)"/.exec(f.message)?.[1];
  if (entry && field === 'gateway.attachedNamespaces') {
    for (const s of sources) {
      const values = valuesOf(s);
      const list = isObject(values) ? getPath(values, 'gateway.attachedNamespaces') : undefined;
      if (Array.isArray(list)) {
        const i = list.findIndex((x) => typeof x === 'string' && x.trim() === entry);
        if (i >= 0) field = `${field}[${i}]`;
        break;
      }
    }
  }
  return { ...f, ...whereSet(sources, field) };
}
