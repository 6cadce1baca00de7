/**
 * What changed in an object's own status between two states, in words (docs/commands/diff.md:
 * the plan's reasons are the real change). A condition of `status.conditions` (a
 * TenantGateway's Ready) is named only when it changed (its status, reason or message; a new
 * lastTransitionTime alone is a field change, not a new verdict); any other status field that
 * changed is named by its key. A route's `status.parents` are left to the pass, which says what it
 * wrote for each parent. Pure.
 */
import { isObject, type KObject } from '../k8s/model';

type Conditions = Map<string, Record<string, unknown>>;

function conditions(x: unknown): Conditions {
  const m: Conditions = new Map();
  if (Array.isArray(x)) for (const c of x) if (isObject(c) && typeof c.type === 'string') m.set(c.type, c);
  return m;
}

function verdict(c: Record<string, unknown>): string {
  return `${String(c.status)}${c.reason ? ` (${String(c.reason)})` : ''}`;
}

/** One line per condition whose status, reason or message changed. */
function conditionChanges(before: unknown, after: unknown, where: string): string[] {
  const b = conditions(before);
  const a = conditions(after);
  const out: string[] = [];
  for (const t of [...new Set([...b.keys(), ...a.keys()])].sort()) {
    const x = b.get(t);
    const y = a.get(t);
    if (!x) out.push(`${where}${t}=${verdict(y!)} (new condition)`);
    else if (!y) out.push(`${where}${t} condition removed (was ${verdict(x)})`);
    else if (x.status !== y.status || x.reason !== y.reason) out.push(`${where}${t} ${verdict(x)} -> ${verdict(y)}`);
    else if (x.message !== y.message)
      out.push(`${where}${t}=${verdict(y)}, message changed: ${String(y.message ?? '')}`);
  }
  return out;
}

/** The status changes of one object, in words; empty when its status is the same. */
export function statusChanges(before: KObject, after: KObject): string[] {
  const b = isObject(before.status) ? before.status : {};
  const a = isObject(after.status) ? after.status : {};
  if (JSON.stringify(b) === JSON.stringify(a)) return [];
  const out: string[] = conditionChanges(b.conditions, a.conditions, 'status: ');
  const other = new Set<string>();
  // A route's parents are the controllers' verdicts: the pass says what it wrote there.
  for (const k of new Set([...Object.keys(b), ...Object.keys(a)]))
    if (k !== 'conditions' && k !== 'parents' && JSON.stringify(b[k]) !== JSON.stringify(a[k])) other.add(k);
  if (other.size) out.push(`status: ${[...other].sort().join(', ')} changed`);
  return out;
}

/**
 * Whether a reason a pass gave is its summary of an object's own status (`status: Ready=...`),
 * which a diff replaces by statusChanges. A route's status reasons say what the pass wrote for
 * one parent, relative to the state it started from, and stay.
 */
export function isStatusReason(reason: string): boolean {
  return reason.startsWith('status: ');
}
