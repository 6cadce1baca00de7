/**
 * Ownership of controller-created objects (docs/decisions.md §4; docs/behaviour.md §5.2).
 * An object is owned by a TenantGateway when it carries a controller ownerReference to it
 * (same kind and name, same uid where both sides have one). A TenantGateway without a uid
 * (rendered, never applied) gives its objects no ownerReference; they are recognised by the
 * controller's labels instead, which every controller-created object carries.
 */
import type { KObject, OwnerReference } from '../k8s/model';
import { describe } from '../k8s/model';
import { LABEL_MANAGED_BY, LABEL_TENANTGATEWAY, MANAGED_BY_VALUE, TGW_API_VERSION, TGW_KIND } from '../platform/names';

/** The controller ownerReference to the TenantGateway, or none when it has no uid. */
export function ownerReferences(tgw: KObject): OwnerReference[] | undefined {
  if (!tgw.metadata.uid) return undefined;
  return [
    {
      apiVersion: TGW_API_VERSION,
      kind: TGW_KIND,
      name: tgw.metadata.name,
      uid: tgw.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}

/** The labels every controller-created object carries, plus the object's own. */
export function controllerLabels(tgw: KObject, extra: Record<string, string> = {}): Record<string, string> {
  return { ...extra, [LABEL_MANAGED_BY]: MANAGED_BY_VALUE, [LABEL_TENANTGATEWAY]: tgw.metadata.name };
}

/** Metadata for an object the controller creates in the TenantGateway's namespace. */
export function controllerMetadata(
  tgw: KObject,
  name: string,
  labels: Record<string, string> = {},
): KObject['metadata'] {
  const md: KObject['metadata'] = { name, namespace: tgw.metadata.namespace, labels: controllerLabels(tgw, labels) };
  const refs = ownerReferences(tgw);
  if (refs) md.ownerReferences = refs;
  return md;
}

function controllerRef(o: KObject): OwnerReference | undefined {
  return (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
}

export function isOwnedBy(o: KObject, tgw: KObject): boolean {
  const ref = controllerRef(o);
  if (ref) {
    if (ref.kind !== TGW_KIND || ref.name !== tgw.metadata.name) return false;
    if (ref.apiVersion && !ref.apiVersion.startsWith('gateway.cozystack.io/')) return false;
    return !(ref.uid && tgw.metadata.uid && ref.uid !== tgw.metadata.uid);
  }
  if (tgw.metadata.uid) return false;
  const l = o.metadata.labels ?? {};
  return l[LABEL_MANAGED_BY] === MANAGED_BY_VALUE && l[LABEL_TENANTGATEWAY] === tgw.metadata.name;
}

/** The takeover guard: the message for an existing object of a derived name that the TGW does not own. */
export function takeoverMessage(existing: KObject, tgw: KObject): string {
  return `${describe(existing)} exists and is not owned by TenantGateway ${tgw.metadata.name}; refusing to take it over`;
}
