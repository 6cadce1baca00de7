/**
 * The fixed names and labels of the TenantGateway controller (docs/behaviour.md §0, §5.2).
 * One place for every derived name, so listener, certificate and route status code agree.
 */
import { hash } from 'node:crypto';

export const TGW_API_VERSION = 'gateway.cozystack.io/v1alpha1';
export const TGW_KIND = 'TenantGateway';
export const TGW_NAME = 'cozystack';
export const CONTROLLER_NAME = 'gateway.cozystack.io/tenantgateway-controller';
export const DEFAULT_CLASS = 'cilium';
export const ACME_CHALLENGE_NAMESPACE = 'cozy-cert-manager';

export const LABEL_MANAGED_BY = 'cozystack.io/managed-by';
export const MANAGED_BY_VALUE = 'cozystack-controller';
export const LABEL_TENANTGATEWAY = 'cozystack.io/tenantgateway';
export const LABEL_PER_LISTENER_CERT = 'cozystack.io/per-listener-cert';
export const LABEL_GATEWAY = 'cozystack.io/gateway';
export const NS_LABEL_GATEWAY = 'namespace.cozystack.io/gateway';
export const NS_LABEL_HOST = 'namespace.cozystack.io/host';
export const NS_LABEL_INGRESS = 'namespace.cozystack.io/ingress';
export const NS_LABEL_NAME = 'kubernetes.io/metadata.name';
export const ANNOTATION_ATTACHED_BY = 'cozystack.io/gateway-attached-by';

/** First 4 bytes of sha256 over the lowercased hostname, as lowercase hex (`harbor.foo.example.com` → `760d5a8a`). */
export function hex8(hostname: string): string {
  // crypto.hash: one call, several times faster than a Hash object for a short input.
  return hash('sha256', hostname.toLowerCase(), 'hex').slice(0, 8);
}

/** The lowercased first DNS label. */
export function firstLabel(hostname: string): string {
  const h = hostname.toLowerCase();
  const i = h.indexOf('.');
  return i < 0 ? h : h.slice(0, i);
}

/** `https-<first-label>-<hex8>`: the per-app HTTPS listener under http01. */
export function perAppListenerName(hostname: string): string {
  return `https-${firstLabel(hostname)}-${hex8(hostname)}`;
}

/** `<tgw>-<first-label>-<hex8>-tls`: the per-app Certificate (and its Secret) under http01. */
export function perAppCertificateName(tgw: string, hostname: string): string {
  return `${tgw}-${firstLabel(hostname)}-${hex8(hostname)}-tls`;
}

/** `https-child-<fl>-<hex8>` (dns01, existingSecret) or `edge-child-<fl>-<hex8>` (edge) for a child apex. */
export function childListenerName(prefix: 'https' | 'edge', childApex: string): string {
  return `${prefix}-child-${firstLabel(childApex)}-${hex8(childApex)}`;
}

export const issuerName = (tgw: string) => `${tgw}-gateway`;
export const acmeAccountSecretName = (tgw: string) => `${tgw}-acme-account`;
export const wildcardCertificateName = (tgw: string) => `${tgw}-gateway-tls`;
export const redirectRouteName = (tgw: string) => `${tgw}-http-redirect`;
export const passthroughServiceListenerName = (svc: string) => `tls-${svc}`;
export const passthroughListenerName = (name: string) => `tls-${name}`;
