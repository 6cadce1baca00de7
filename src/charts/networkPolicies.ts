/**
 * `networkpolicy.yaml` of the apps/tenant chart (docs/tenant.md §2.2): 10 CiliumNetworkPolicies
 * in T and 2-5 CiliumClusterwideNetworkPolicies. The CNPs that are the same for every tenant are
 * data (templates/tenant/networkpolicy-fixed.yaml, given here as `fixed`); the CCNPs, which name
 * T and its ancestors (C-net, §2.0.4), are built here. The flags read are the tenant's own values
 * (`ingress`, `etcd`, `monitoring`), never the inherited `_namespace`. Pure.
 */
import { clone, type KObject } from '../k8s/model';
import { networkChain } from './ancestorChains';
import { truthy, type TenantRelease } from './tenantRelease';

const CILIUM_API = 'cilium.io/v2';
export const CCNP_KIND = 'CiliumClusterwideNetworkPolicy';
const POD_NS = 'k8s:io.kubernetes.pod.namespace';

/** NS(x) of §2.2. */
const ns = (x: string): Record<string, string> => ({ [POD_NS]: x });

function ccnp(name: string, spec: Record<string, unknown>): KObject {
  return { apiVersion: CILIUM_API, kind: CCNP_KIND, metadata: { name }, spec };
}

/** #3 `T-egress`: to T and its descendants, and (T ≠ tenant-root) to the C-net ancestors' vminsert, etcd and ingress. */
function egress(T: string, net: string[]): KObject {
  const rules: unknown[] = [
    { toEndpoints: [{ matchLabels: { [`k8s:io.cilium.k8s.namespace.labels.tenant.cozystack.io/${T}`]: '' } }] },
  ];
  if (net.length) {
    rules.push(
      { toEndpoints: net.map((a) => ({ matchLabels: { 'k8s:app.kubernetes.io/name': 'vminsert', ...ns(a) } })) },
      { toEndpoints: net.map((a) => ({ matchLabels: { 'k8s:app.kubernetes.io/instance': 'etcd', ...ns(a) } })) },
      { toEndpoints: net.map((a) => ({ matchLabels: { 'cozystack.io/service': 'ingress', ...ns(a) } })) },
    );
  }
  return ccnp(`${T}-egress`, { endpointSelector: { matchLabels: ns(T) }, egress: rules });
}

/** #4 `T-ingress`: from the API server, cozy system namespaces, kube-system and (T ≠ tenant-root) the C-net ancestors. */
function ingress(T: string, net: string[]): KObject {
  const rules: unknown[] = [
    { fromEntities: ['kube-apiserver'] },
    { fromEndpoints: [{ matchLabels: { 'k8s:io.cilium.k8s.namespace.labels.cozystack.io/system': 'true' } }] },
    { fromEndpoints: [{ matchLabels: ns('kube-system') }] },
  ];
  if (net.length) rules.push({ fromEndpoints: net.map((a) => ({ matchLabels: ns(a) })) });
  return ccnp(`${T}-ingress`, { endpointSelector: { matchLabels: ns(T) }, ingress: rules });
}

/** #5 `T-ingress-ingress` (own `ingress`): anyone may reach T's ingress controller. */
function ingressIngress(T: string): KObject {
  return ccnp(`${T}-ingress-ingress`, {
    endpointSelector: { matchLabels: { ...ns(T), 'cozystack.io/service': 'ingress' } },
    ingress: [{ fromEndpoints: [{}] }],
  });
}

/** #6 `T-ingress-etcd` (own `etcd`): pods allowed to etcd in namespaces whose etcd is T. */
function ingressEtcd(T: string): KObject {
  return ccnp(`${T}-ingress-etcd`, {
    endpointSelector: { matchLabels: { ...ns(T), 'cozystack.io/service': 'etcd' } },
    ingress: [
      {
        fromEndpoints: [
          {
            matchLabels: {
              'k8s:io.cilium.k8s.namespace.labels.namespace.cozystack.io/etcd': T,
              'policy.cozystack.io/allow-to-etcd': 'true',
            },
          },
        ],
      },
    ],
  });
}

/** #14 `T-egress-virt-handler` (own `monitoring`): T's vmagent to the KubeVirt virt-handlers' metrics (one rule with both fields). */
function egressVirtHandler(T: string): KObject {
  return ccnp(`${T}-egress-virt-handler`, {
    endpointSelector: { matchLabels: { ...ns(T), 'k8s:app.kubernetes.io/name': 'vmagent' } },
    egress: [
      {
        toEndpoints: [{ matchLabels: { 'k8s:kubevirt.io': 'virt-handler', ...ns('cozy-kubevirt') } }],
        toPorts: [{ ports: [{ port: '8443', protocol: 'TCP' }] }],
      },
    ],
  });
}

/**
 * §2.2: the tenant's policies (12 always; one more each for own ingress, etcd, monitoring): the
 * fixed CNPs in T, then the CCNPs (the output is sorted, docs/decisions.md §Q16, so template order
 * is not kept).
 */
export function renderNetworkPolicies(
  r: Pick<TenantRelease, 'namespace' | 'parentNamespace' | 'spec'>,
  fixed: readonly KObject[],
): KObject[] {
  const T = r.namespace;
  const net = networkChain(T, r.parentNamespace);
  const out: KObject[] = [];
  for (const o of fixed) {
    const c = clone(o);
    c.metadata.namespace = T;
    out.push(c);
  }
  out.push(egress(T, net), ingress(T, net));
  if (truthy(r.spec.ingress)) out.push(ingressIngress(T));
  if (truthy(r.spec.etcd)) out.push(ingressEtcd(T));
  if (truthy(r.spec.monitoring)) out.push(egressVirtHandler(T));
  return out;
}
