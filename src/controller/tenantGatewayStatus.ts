/**
 * TenantGateway status (docs/behaviour.md §5.10, §5.1; docs/decisions.md §8): one `listeners` entry per
 * Gateway spec listener, readiness from the live Gateway's status, the Ready condition (first match
 * wins: GatewayNotAccepted, GatewayNotProgrammed, ListenersNotReady, else Reconciled) carrying
 * observedGeneration, and `status.observedGeneration`. A pass stopped by an error reads
 * Ready=False / ReconcileError with the error text and keeps the listener entries it had.
 */
import type { KObject } from '../k8s/model';
import { clone, isObject } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { mergeCondition, type Condition } from './conditions';
import type { Listener } from './gatewayRendering';
import type { TenantGatewayView } from './tenantGatewaySpec';

function conditionStatus(conds: unknown, type: string): string | undefined {
  if (!Array.isArray(conds)) return undefined;
  const c = conds.find((x) => isObject(x) && x.type === type) as Record<string, unknown> | undefined;
  return c ? String(c.status) : undefined;
}

export interface ListenerStatusEntry {
  name: string;
  hostname?: string;
  ready: boolean;
  certificateName?: string;
  reason?: string;
}

/**
 * Per listener: ready when the live Gateway's listener status has Accepted=True and
 * Programmed=True; otherwise reason Pending (no listener status), NotAccepted or NotProgrammed.
 * A ready listener carries no reason.
 */
export function listenerEntries(listeners: readonly Listener[], gateway: KObject | undefined): ListenerStatusEntry[] {
  const st = gateway && isObject(gateway.status) ? gateway.status : {};
  const live = new Map<string, Record<string, unknown>>();
  for (const l of Array.isArray(st.listeners) ? st.listeners : [])
    if (isObject(l) && typeof l.name === 'string') live.set(l.name, l);
  return listeners.map((l) => {
    const e: ListenerStatusEntry = { name: l.name, ready: false };
    if (l.hostname !== undefined) e.hostname = l.hostname;
    const refs = isObject(l.tls) && Array.isArray(l.tls.certificateRefs) ? l.tls.certificateRefs : [];
    const first = refs[0];
    // Field order as the status type lists it: name, hostname, ready, certificateName, reason.
    const ls = live.get(l.name);
    let reason = '';
    if (!ls) reason = 'Pending';
    else if (conditionStatus(ls.conditions, 'Accepted') !== 'True') reason = 'NotAccepted';
    else if (conditionStatus(ls.conditions, 'Programmed') !== 'True') reason = 'NotProgrammed';
    e.ready = reason === '';
    if (isObject(first) && typeof first.name === 'string') e.certificateName = first.name;
    if (reason) e.reason = reason;
    return e;
  });
}

/** The Ready condition from the live Gateway and the listener entries (first match wins). */
export function readyCondition(
  v: TenantGatewayView,
  gateway: KObject | undefined,
  entries: readonly ListenerStatusEntry[],
): Condition {
  const st = gateway && isObject(gateway.status) ? gateway.status : {};
  const gw = `Gateway ${v.id}`;
  const ready = (status: 'True' | 'False', reason: string, message: string): Condition => ({
    type: 'Ready',
    status,
    observedGeneration: v.generation,
    reason,
    message,
  });
  if (conditionStatus(st.conditions, 'Accepted') !== 'True')
    return ready('False', 'GatewayNotAccepted', `${gw} is not Accepted by its GatewayClass controller yet`);
  if (conditionStatus(st.conditions, 'Programmed') !== 'True')
    return ready('False', 'GatewayNotProgrammed', `${gw} is not Programmed yet`);
  const notReady = entries.filter((e) => !e.ready);
  if (notReady.length > 0) {
    const list = notReady.map((e) => `${e.name} (${e.reason})`).join(', ');
    return ready('False', 'ListenersNotReady', `${notReady.length} of ${entries.length} listeners not ready: ${list}`);
  }
  return ready('True', 'Reconciled', `${gw} reconciled with ${entries.length} listeners`);
}

/**
 * Write status onto the TenantGateway: observedGeneration, the Ready condition merged by type
 * (lastTransitionTime moves only when the status does), and the listener entries when given
 * (undefined keeps the ones it has, as a stopped pass does).
 */
export function writeTenantGatewayStatus(
  store: Store,
  v: TenantGatewayView,
  ready: Condition,
  listeners: ListenerStatusEntry[] | undefined,
  now: string,
): void {
  const cur = store.get(GROUPS.cozyGateway, 'TenantGateway', v.namespace, v.name) ?? v.obj;
  const next = clone(cur);
  const st = isObject(next.status) ? next.status : {};
  const status: Record<string, unknown> = {
    ...st,
    observedGeneration: v.generation,
    conditions: mergeCondition(st.conditions, ready, now, 'status'),
  };
  if (listeners !== undefined) status.listeners = listeners;
  // Stable key order: observedGeneration, conditions, listeners, then anything else it had.
  const ordered: Record<string, unknown> = {
    observedGeneration: status.observedGeneration,
    conditions: status.conditions,
  };
  if (status.listeners !== undefined) ordered.listeners = status.listeners;
  for (const [k, x] of Object.entries(status)) if (!(k in ordered)) ordered[k] = x;
  next.status = ordered;
  store.put(next, `status: Ready=${ready.status} (${ready.reason})`);
}
