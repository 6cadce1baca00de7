/** Two input objects with one identity (group, kind, namespace, name) cannot both be the cluster state. Pure. */
import { error, type Finding } from './diagnostics';
import { describe, keyOf, refOf, type KObject } from './model';

export function duplicateFindings(objects: KObject[]): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const o of objects) {
    const k = keyOf(o);
    if (seen.has(k))
      out.push(
        error(`${describe(o)} is given more than once in the inputs`, {
          rule: 'input.duplicate',
          object: refOf(o),
          hint: 'keep one copy of each object',
        }),
      );
    else seen.add(k);
  }
  return out;
}
