/**
 * Which kinds are cluster-scoped. Offline there is no discovery to ask, so the kinds cozy-gw
 * meets and the core Kubernetes ones are listed here by API group and kind; any other kind is
 * taken as namespaced, as most custom resources are. Pure.
 */
import { groupOf, type KObject } from './model';

const CLUSTER_SCOPED = new Set([
  '|Namespace',
  '|Node',
  '|PersistentVolume',
  '|ComponentStatus',
  'rbac.authorization.k8s.io|ClusterRole',
  'rbac.authorization.k8s.io|ClusterRoleBinding',
  'apiextensions.k8s.io|CustomResourceDefinition',
  'apiregistration.k8s.io|APIService',
  'admissionregistration.k8s.io|ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io|ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io|MutatingAdmissionPolicy',
  'admissionregistration.k8s.io|MutatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io|ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io|MutatingWebhookConfiguration',
  'storage.k8s.io|StorageClass',
  'storage.k8s.io|CSIDriver',
  'storage.k8s.io|CSINode',
  'storage.k8s.io|VolumeAttachment',
  'scheduling.k8s.io|PriorityClass',
  'node.k8s.io|RuntimeClass',
  'networking.k8s.io|IngressClass',
  'certificates.k8s.io|CertificateSigningRequest',
  'flowcontrol.apiserver.k8s.io|FlowSchema',
  'flowcontrol.apiserver.k8s.io|PriorityLevelConfiguration',
  'gateway.networking.k8s.io|GatewayClass',
  'cert-manager.io|ClusterIssuer',
  'cozystack.io|Package',
  'cozystack.io|PackageSource',
  'cilium.io|CiliumClusterwideNetworkPolicy',
  'cilium.io|CiliumNode',
  'cilium.io|CiliumIdentity',
]);

/** Whether objects of this kind live outside any namespace. */
export function isClusterScoped(o: Pick<KObject, 'apiVersion' | 'kind'>): boolean {
  return CLUSTER_SCOPED.has(`${groupOf(o.apiVersion)}|${o.kind}`);
}

/** An input object placed in another namespace than it names: a namespaced object without one. */
export interface Placement {
  original: KObject;
  placed: KObject;
}

/**
 * A namespaced object without `metadata.namespace` is created, as the API server would, in the
 * namespace the request names (`admit -n`, default `default`; `post-render`: Helm's release
 * namespace); a cluster-scoped one, or one naming its namespace, stays as it is.
 */
export function placeInNamespace(objects: KObject[], namespace: string): { objects: KObject[]; placed: Placement[] } {
  const placed: Placement[] = [];
  const out = objects.map((o) => {
    if (o.metadata.namespace || isClusterScoped(o)) return o;
    const p = { ...o, metadata: { ...o.metadata, namespace } };
    placed.push({ original: o, placed: p });
    return p;
  });
  return { objects: out, placed };
}
