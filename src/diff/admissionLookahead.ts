/**
 * Admission, looked ahead (docs/commands/diff.md: "Objects that the change would make
 * inadmissible on their next write ... are listed in the plan and the JSON, judged by the
 * platform's own admission policies"). An object the change leaves in place is not written now,
 * so nothing refuses it today; but the policies read its Namespace's labels (and their own
 * values), and a change to those can make the next update of the object fail: bob's host moves to
 * `bob.customer1.io`, and his route `shop.bob.example.org`, served today, can no longer be
 * updated. Each object left in place (not created, its spec and metadata unchanged) whose
 * Namespace or whose policies the change alters is judged before and after the change as the
 * write of an ordinary user of the tenant (the apiserver's CREATE and UPDATE run the same
 * validations here); a denial after that was no denial before is listed. The policies are the ones
 * each side holds (the ValidatingAdmissionPolicies render emits and the state carries), else the
 * ones given. Pure.
 */
import { admitObject } from '../admission/admit';
import type { Decision, UserInfo } from '../admission/decision';
import { isNamespace, deepEqual, groupOf, keyOf, refOf, type KObject, type ObjRef } from '../k8s/model';
import type { Comparison } from './comparison';

/** Who writes an object the change leaves in place next: an ordinary user of the tenant (no trusted group). */
export const NEXT_WRITER: UserInfo = { username: 'tenant-user', groups: ['system:authenticated'] };

export interface InadmissibleObject {
  object: ObjRef;
  /** The ValidatingAdmissionPolicy that would refuse it, and its binding. */
  policy: string;
  binding: string;
  /** The policy's message, as the apiserver would return it. */
  message: string;
  /** What the change altered that the policy reads. */
  because: string;
}

const POLICY_GROUP = 'admissionregistration.k8s.io';

function isPolicyObject(o: KObject): boolean {
  return (
    groupOf(o.apiVersion) === POLICY_GROUP &&
    (o.kind === 'ValidatingAdmissionPolicy' || o.kind === 'ValidatingAdmissionPolicyBinding')
  );
}

function withoutStatus(o: KObject): KObject {
  if (o.status === undefined) return o;
  const out = { ...o };
  delete out.status;
  return out;
}

function labelChanges(before: KObject, after: KObject): string {
  const b = before.metadata.labels ?? {};
  const a = after.metadata.labels ?? {};
  const parts: string[] = [];
  for (const k of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) {
    if (b[k] === a[k]) continue;
    if (b[k] === undefined) parts.push(`${k} is added (${JSON.stringify(a[k])})`);
    else if (a[k] === undefined) parts.push(`${k} is removed (was ${JSON.stringify(b[k])})`);
    else parts.push(`${k} changes from ${JSON.stringify(b[k])} to ${JSON.stringify(a[k])}`);
  }
  return parts.join(', ');
}

function denied(ds: Decision[]): Map<string, Decision> {
  const m = new Map<string, Decision>();
  for (const d of ds) if (!d.allowed && !m.has(`${d.policy}/${d.binding}`)) m.set(`${d.policy}/${d.binding}`, d);
  return m;
}

/**
 * The objects of `after` the change leaves in place that its policies would refuse on their next
 * write while the baseline's would not. `given` gives the policies to use where a side holds none.
 */
export function inadmissibleAfter(
  before: readonly KObject[],
  after: readonly KObject[],
  c: Comparison,
  given: () => readonly KObject[] = () => [],
): InadmissibleObject[] {
  let fallback: readonly KObject[] | undefined;
  const policiesOf = (objs: readonly KObject[]) => {
    const own = objs.filter(isPolicyObject);
    return own.length ? own : (fallback ??= given().filter(isPolicyObject));
  };
  const policiesBefore = policiesOf(before);
  const policiesAfter = policiesOf(after);
  if (!policiesAfter.length) return [];
  const policiesChanged =
    policiesBefore.length !== policiesAfter.length ||
    c.created.some(isPolicyObject) ||
    c.deleted.some(isPolicyObject) ||
    c.changed.some((x) => isPolicyObject(x.after));
  // Namespaces whose labels the change alters, with what it alters.
  const nsChanges = new Map<string, string>();
  for (const x of c.changed)
    if (isNamespace(x.after)) {
      const words = labelChanges(x.before, x.after);
      if (words)
        nsChanges.set(x.after.metadata.name, `the labels of Namespace ${x.after.metadata.name} change: ${words}`);
    }
  if (!policiesChanged && nsChanges.size === 0) return [];
  const written = new Set(c.created.map(keyOf));
  for (const x of c.changed)
    if (!deepEqual(withoutStatus(x.before), withoutStatus(x.after))) written.add(keyOf(x.after));
  const nsBefore = new Map<string, KObject>();
  const nsAfter = new Map<string, KObject>();
  for (const o of before) if (isNamespace(o)) nsBefore.set(o.metadata.name, o);
  for (const o of after) if (isNamespace(o)) nsAfter.set(o.metadata.name, o);
  // The baseline by key, built when the first object needs it: without a policy change only the
  // objects of Namespaces whose labels change are judged, so only theirs (a key names its namespace).
  let was: Map<string, KObject> | undefined;
  const out: InadmissibleObject[] = [];
  for (const o of after) {
    const ns = o.metadata.namespace ?? '';
    const because = (ns && nsChanges.get(ns)) || (policiesChanged ? "the platform's admission policies change" : '');
    if (!because) continue;
    const k = keyOf(o);
    if (written.has(k) || isPolicyObject(o) || o.kind === 'Namespace') continue;
    if (!was) {
      was = new Map();
      for (const x of before) if (policiesChanged || nsChanges.has(x.metadata.namespace ?? '')) was.set(keyOf(x), x);
    }
    const b = was.get(k) ?? o;
    const refusedBefore = denied(admitObject(b, ns ? nsBefore.get(ns) : undefined, policiesBefore, NEXT_WRITER));
    for (const [id, d] of denied(admitObject(o, ns ? nsAfter.get(ns) : undefined, policiesAfter, NEXT_WRITER))) {
      if (refusedBefore.has(id)) continue;
      out.push({ object: refOf(o), policy: d.policy, binding: d.binding, message: d.messages.join('; '), because });
    }
  }
  return out;
}
