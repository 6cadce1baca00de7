/**
 * Writing and deleting the objects a TenantGateway owns (docs/behaviour.md §5.2; docs/decisions.md §4):
 * the takeover guard, spec-only updates with labels re-asserted, no write when nothing changed,
 * and deletions that touch owned objects only.
 */
import type { KObject } from '../k8s/model';
import { clone, deepEqual, groupOf, refOf } from '../k8s/model';
import type { Store } from '../k8s/store';
import { ReconcileError } from './errors';
import { LABEL_MANAGED_BY, LABEL_TENANTGATEWAY, MANAGED_BY_VALUE } from '../platform/names';
import { controllerMetadata, isOwnedBy, takeoverMessage } from './ownership';

/**
 * Metadata for a new object. Labels per docs/behaviour.md §5.2: the Issuer and the wildcard
 * Certificate carry managed-by only when the TenantGateway has a uid (the ownerReference then
 * says whose they are); without a uid every object also carries `cozystack.io/tenantgateway`,
 * since the labels are then the only mark of ownership (docs/decisions.md §4).
 */
export function ownedMetadata(
  tgw: KObject,
  name: string,
  labels: Record<string, string> = {},
  opts: { tenantGatewayLabel: boolean } = { tenantGatewayLabel: true },
): KObject['metadata'] {
  const md = controllerMetadata(tgw, name, labels);
  // The controller's own labels first, then the object's (the order they print in).
  const ordered: Record<string, string> = { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE };
  if (opts.tenantGatewayLabel || !tgw.metadata.uid) ordered[LABEL_TENANTGATEWAY] = tgw.metadata.name;
  for (const [k, v] of Object.entries(md.labels ?? {}))
    if (!(k in ordered) && k !== LABEL_TENANTGATEWAY) ordered[k] = v;
  md.labels = ordered;
  return md;
}

/** The object currently stored under the desired object's identity. */
function existingFor(store: Store, desired: KObject): KObject | undefined {
  return store.get(groupOf(desired.apiVersion), desired.kind, desired.metadata.namespace, desired.metadata.name);
}

/**
 * The takeover guard (docs/behaviour.md §5.2): an existing object with the derived name that the
 * TenantGateway does not own stops the pass; it is never overwritten.
 */
export function guardTakeover(store: Store, tgw: KObject, desired: KObject): void {
  const existing = existingFor(store, desired);
  if (existing && !isOwnedBy(existing, tgw)) throw new ReconcileError(takeoverMessage(existing, tgw));
}

/**
 * Create the desired object, or replace only the spec of the owned one that exists (its other
 * metadata and its status are kept; the controller's labels are re-asserted over foreign ones).
 * Store.put records nothing when the result equals what is there. Returns whether it wrote.
 */
export function applyOwned(store: Store, tgw: KObject, desired: KObject, reason: string): boolean {
  const existing = existingFor(store, desired);
  if (!existing) {
    store.admit(desired);
    return store.put(desired, reason);
  }
  if (!isOwnedBy(existing, tgw)) throw new ReconcileError(takeoverMessage(existing, tgw));
  // A copy of the changed path only (for speed: copying whole stored objects was most of the
  // pass's clone time): the rest is shared with the stored object, which nothing mutates.
  const next: KObject = {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...(existing.metadata.labels ?? {}), ...(desired.metadata.labels ?? {}) },
    },
    spec: clone(desired.spec),
  };
  if (deepEqual(next, existing)) return false; // no write, nothing for admission to judge
  store.admit(next);
  return store.put(next, reason);
}

/**
 * Delete an object only when the TenantGateway owns it (docs/behaviour.md §5.2: deletions touch
 * owned objects; unowned ones are skipped silently). Returns whether it deleted.
 */
export function deleteOwned(store: Store, tgw: KObject, existing: KObject | undefined, reason: string): boolean {
  if (!existing || !isOwnedBy(existing, tgw)) return false;
  return store.delete(refOf(existing), reason);
}
