/**
 * Objects given more than once: two input objects with one identity (group, kind, namespace, name)
 * cannot both be the cluster state, nor two Tenants one tenant. One rule for every reader of inputs
 * (render's Tenants, reconcile, admit, diff's state). Every copy gets a finding, in reading order,
 * placed at that copy (`instance`), so each is located. Pure.
 */
import { error, type Finding } from './diagnostics';
import { keyOf, refOf, type KObject } from './model';

/** `what`: where they were given (`inputs`, `state (--state)`); `flag`: the option that reads directories. */
export function duplicateFindings(objects: readonly KObject[], what = 'inputs', flag = '-f'): Finding[] {
  // One identity per object, computed once; most inputs have no duplicate, and then nothing more is done.
  const keys = objects.map(keyOf);
  const once = new Set<string>();
  let repeated = false;
  for (const k of keys) {
    if (once.has(k)) repeated = true;
    else once.add(k);
  }
  const out: Finding[] = [];
  if (!repeated) return out;
  const count = new Map<string, number>();
  for (const k of keys) count.set(k, (count.get(k) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (let j = 0; j < objects.length; j++) {
    const k = keys[j];
    const n = count.get(k)!;
    if (n < 2) continue;
    const o = objects[j];
    const i = (seen.get(k) ?? 0) + 1;
    seen.set(k, i);
    out.push(
      error(`given ${n} times in the ${what}; this is copy ${i} of ${n}`, {
        rule: 'input.duplicate',
        object: refOf(o),
        instance: o,
        hint: `keep one copy; a directory given with ${flag} is read recursively, so check that no file is given twice`,
      }),
    );
  }
  return out;
}
