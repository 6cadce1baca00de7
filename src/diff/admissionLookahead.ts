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
 * ones given. A Secret is judged with its data masked (src/admission/admit.ts): no message shows key
 * material. Where neither the object nor its Namespace changes, only the policies the change
 * alters (a policy or its bindings) can refuse it anew, and only they are evaluated. The
 * evaluations spend at most LOOKAHEAD_BUDGET CEL cost units in all (src/cel/cost.ts: five times
 * what the API server lets one policy spend on one object, some thirty times what the platform's
 * own policies spend on every object of 24,000): a change whose policies spend more is judged
 * that far, and the result says how far. Pure.
 */
import { admitObject, type AdmitOptions } from '../admission/admit';
import type { Decision, UserInfo } from '../admission/decision';
import { RUNTIME_BUDGET } from '../cel/cost';
import { isNamespace, deepEqual, groupOf, isObject, keyOf, refOf, type KObject, type ObjRef } from '../k8s/model';
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

/** What the look-ahead finds, and where it stopped when its policies spent LOOKAHEAD_BUDGET. */
export interface Lookahead {
  objects: InadmissibleObject[];
  /** Set when the evaluations reached the bound: how many objects were judged of how many, and the cost spent. */
  stopped?: { judged: number; of: number; spent: number };
}

/** The most CEL cost the look-ahead spends in one run (see above). */
export const LOOKAHEAD_BUDGET = 5 * RUNTIME_BUDGET;

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

/** Each ValidatingAdmissionPolicy by name, with its spec and its bindings' specs (what its decisions depend on). */
function policyKeys(policies: readonly KObject[]): Map<string, string> {
  const binds = new Map<string, unknown[]>();
  for (const b of policies)
    if (b.kind === 'ValidatingAdmissionPolicyBinding' && isObject(b.spec)) {
      const name = String(b.spec.policyName);
      binds.set(name, [...(binds.get(name) ?? []), [b.metadata.name, b.spec]]);
    }
  const out = new Map<string, string>();
  for (const p of policies)
    if (p.kind === 'ValidatingAdmissionPolicy')
      out.set(p.metadata.name, JSON.stringify([p.spec, (binds.get(p.metadata.name) ?? []).sort()]));
  return out;
}

/** The policies (and their bindings) of `policies` whose name is in `names`. */
function onlyNamed(policies: readonly KObject[], names: ReadonlySet<string>): KObject[] {
  return policies.filter((p) =>
    p.kind === 'ValidatingAdmissionPolicy'
      ? names.has(p.metadata.name)
      : isObject(p.spec) && names.has(String(p.spec.policyName)),
  );
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
  opts: Pick<AdmitOptions, 'gatewayApiVersion'> = {},
): Lookahead {
  let fallback: readonly KObject[] | undefined;
  const policiesOf = (objs: readonly KObject[]) => {
    const own = objs.filter(isPolicyObject);
    return own.length ? own : (fallback ??= given().filter(isPolicyObject));
  };
  const policiesBefore = policiesOf(before);
  const policiesAfter = policiesOf(after);
  if (!policiesAfter.length) return { objects: [] };
  // The policies whose decisions can differ for an object and a Namespace that do not.
  const keysBefore = policyKeys(policiesBefore);
  const altered = new Set([...policyKeys(policiesAfter)].filter(([n, k]) => keysBefore.get(n) !== k).map(([n]) => n));
  const policiesChanged =
    altered.size > 0 ||
    c.created.some(isPolicyObject) ||
    c.deleted.some(isPolicyObject) ||
    c.changed.some((x) => isPolicyObject(x.after));
  const nsChanges = namespaceLabelChanges(c);
  if (!policiesChanged && nsChanges.size === 0) return { objects: [] };
  const alteredBefore = onlyNamed(policiesBefore, altered);
  const alteredAfter = onlyNamed(policiesAfter, altered);
  const written = new Set(c.created.map(keyOf));
  for (const x of c.changed)
    if (!deepEqual(withoutStatus(x.before), withoutStatus(x.after))) written.add(keyOf(x.after));
  const nsBefore = new Map<string, KObject>();
  const nsAfter = new Map<string, KObject>();
  for (const o of before) if (isNamespace(o)) nsBefore.set(o.metadata.name, o);
  for (const o of after) if (isNamespace(o)) nsAfter.set(o.metadata.name, o);
  const judged: { o: KObject; because: string }[] = [];
  for (const o of after) {
    const ns = o.metadata.namespace ?? '';
    const because = (ns && nsChanges.get(ns)) || (policiesChanged ? "the platform's admission policies change" : '');
    if (!because || written.has(keyOf(o)) || isPolicyObject(o) || o.kind === 'Namespace') continue;
    judged.push({ o, because });
  }
  // The baseline by key, of the objects judged (a key names its namespace).
  const was = new Map<string, KObject>();
  if (judged.length) {
    const keys = new Set(judged.map((j) => keyOf(j.o)));
    for (const x of before) if (keys.has(keyOf(x))) was.set(keyOf(x), x);
  }
  const spent = { cost: 0 };
  const admitOpts: AdmitOptions = { ...opts, spent };
  const out: InadmissibleObject[] = [];
  for (let i = 0; i < judged.length; i++) {
    if (spent.cost > LOOKAHEAD_BUDGET)
      return { objects: out, stopped: { judged: i, of: judged.length, spent: spent.cost } };
    const { o, because } = judged[i];
    const ns = o.metadata.namespace ?? '';
    const b = was.get(keyOf(o)) ?? o;
    const [nb, na] = ns ? [nsBefore.get(ns), nsAfter.get(ns)] : [undefined, undefined];
    // Neither the object nor its Namespace changes: only the altered policies can decide otherwise.
    const same =
      (b === o || deepEqual(b, o)) && (nb === na || (nb !== undefined && na !== undefined && deepEqual(nb, na)));
    const [pb, pa] = same ? [alteredBefore, alteredAfter] : [policiesBefore, policiesAfter];
    if (!pa.length) continue;
    const refusedBefore = pb.length ? denied(admitObject(b, nb, pb, NEXT_WRITER, admitOpts)) : new Map();
    for (const [id, d] of denied(admitObject(o, na, pa, NEXT_WRITER, admitOpts))) {
      if (refusedBefore.has(id)) continue;
      out.push({ object: refOf(o), policy: d.policy, binding: d.binding, message: d.messages.join('; '), because });
    }
  }
  return { objects: out };
}

/** Namespaces whose labels the change alters, with what it alters. */
function namespaceLabelChanges(c: Comparison): Map<string, string> {
  const out = new Map<string, string>();
  for (const x of c.changed)
    if (isNamespace(x.after)) {
      const words = labelChanges(x.before, x.after);
      if (words) out.set(x.after.metadata.name, `the labels of Namespace ${x.after.metadata.name} change: ${words}`);
    }
  return out;
}
