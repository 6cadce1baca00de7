/**
 * The name grammars Kubernetes and Gateway API enforce, in one place: DNS-1123 labels
 * (Namespace names, listener names), DNS-1123 subdomains (object names, tlsPassthroughServices
 * entries), Gateway API hostnames (an optional leading `*.`, then a lowercase DNS name) and
 * Gateway API section names (listener names).
 */
export const MAX_NAME_LENGTH = 253;

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A DNS-1123 label: lowercase alphanumerics and `-`, at most 63 characters. */
export function isDns1123Label(s: string): boolean {
  return s.length >= 1 && s.length <= 63 && LABEL.test(s);
}

/**
 * The words for a value that is no namespace name, the one wording for every caller (each names
 * its key or flag before it): the value quoted, its first 80 characters, then what a namespace name is.
 */
export function notANamespaceName(value: string): string {
  return `${JSON.stringify(value.slice(0, 80))} is not a namespace name (a DNS-1123 label: lowercase letters, digits and "-", at most 63 characters)`;
}

/** A DNS-1123 subdomain: dot-separated labels of at most 63 characters, at most 253 in all. */
export function isDns1123Subdomain(s: string): boolean {
  return s.length >= 1 && s.length <= MAX_NAME_LENGTH && SUBDOMAIN.test(s) && s.split('.').every((l) => l.length <= 63);
}

/** Gateway API's SectionName: the subdomain pattern, at most 253 characters, no per-label limit (no `*`). */
export function isValidSectionName(s: string): boolean {
  return s.length >= 1 && s.length <= MAX_NAME_LENGTH && SUBDOMAIN.test(s);
}

export function isWildcardHostname(h: string): boolean {
  return h.startsWith('*.');
}

/** Gateway API's Hostname: an optional leading `*.` then a lowercase DNS name, at most 253 characters. */
export function isValidHostname(h: string): boolean {
  if (h.length === 0 || h.length > MAX_NAME_LENGTH) return false;
  return isDns1123Subdomain(isWildcardHostname(h) ? h.slice(2) : h);
}
