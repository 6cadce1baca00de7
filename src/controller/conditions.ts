/**
 * Merging a condition into a list by type (docs/behaviour.md §5.9, §5.10; docs/decisions.md §8):
 * an existing condition of the same type is replaced in place, a new one is appended, and
 * `lastTransitionTime` moves only when the condition changed — on the status alone for the
 * TenantGateway's Ready (as metav1 SetStatusCondition does), on status, reason or message for
 * route conditions. `now` is the only clock.
 */
import { isObject } from '../k8s/model';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

export type TransitionOn = 'status' | 'status-reason-message';

/** The condition as written (field order as metav1.Condition serialises it). */
function ordered(c: Condition, lastTransitionTime: string): Record<string, unknown> {
  const o: Record<string, unknown> = { type: c.type, status: c.status };
  if (c.observedGeneration !== undefined) o.observedGeneration = c.observedGeneration;
  o.lastTransitionTime = lastTransitionTime;
  o.reason = c.reason;
  o.message = c.message;
  return o;
}

/** A new list with `cond` merged in; the input list is not modified. */
export function mergeCondition(
  list: unknown,
  cond: Condition,
  now: string,
  on: TransitionOn,
): Record<string, unknown>[] {
  const cur = Array.isArray(list) ? (list.filter(isObject) as Record<string, unknown>[]) : [];
  const i = cur.findIndex((c) => c.type === cond.type);
  if (i < 0) return [...cur, ordered(cond, now)];
  const old = cur[i];
  const changed =
    old.status !== cond.status ||
    (on === 'status-reason-message' && (old.reason !== cond.reason || old.message !== cond.message));
  const ltt =
    !changed && typeof old.lastTransitionTime === 'string' && old.lastTransitionTime ? old.lastTransitionTime : now;
  const out = [...cur];
  out[i] = ordered(cond, ltt);
  return out;
}
