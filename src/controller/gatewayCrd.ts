/**
 * What the Gateway API CRD refuses in a Gateway write, in the API server's words, for a release's
 * controller (docs/versions.md §X8): it checks nothing itself, so a listener its spec composes
 * badly (a repeated tlsPassthroughServices entry, an invalid or over-long name, a wildcard route
 * hostname's `https-*-<hex8>`, more than 64 listeners) reaches the write, which the API server
 * refuses whole. The rules are those of the `gateways.gateway.networking.k8s.io` v1 CRD the releases
 * ship (Gateway API v1.5.1) over `spec.listeners`: at most 64 items, a list-map keyed by name,
 * name and hostname patterns and lengths, and the CEL rules on unique names and unique
 * (port, protocol, hostname). Offline the wording cannot match the API server byte for byte;
 * the fields, values and rules it names are the API server's. Pure.
 */
import { pushAll } from '../k8s/arrays';

/** What the CRD's rules read of a listener. */
interface Listener {
  name: string;
  port: number;
  protocol: string;
  hostname?: string;
}

export const GATEWAY_LISTENER_CAP = 64;
const MAX_LENGTH = 253;
/** SectionName: a DNS-1123 subdomain. */
const NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** Hostname: a DNS-1123 subdomain with an optional leading `*.`. */
const HOSTNAME_PATTERN = '^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const NAME_RE = new RegExp(NAME_PATTERN);
const HOSTNAME_RE = new RegExp(HOSTNAME_PATTERN);

/** Go's %q of a string, as field errors quote values (ASCII text: JSON's quoting is the same). */
function quoted(s: string): string {
  return JSON.stringify(s);
}

/** One string field against its length bounds (1 to 253) and pattern, as the OpenAPI validator words it. */
function stringFieldErrors(path: string, value: string, pattern: string, re: RegExp): string[] {
  if (value.length === 0) return [`${path}: Invalid value: "": ${path} in body should be at least 1 chars long`];
  const out: string[] = [];
  if (value.length > MAX_LENGTH) out.push(`${path}: Too long: may not be more than ${MAX_LENGTH} bytes`);
  if (!re.test(value)) out.push(`${path}: Invalid value: ${quoted(value)}: ${path} in body should match '${pattern}'`);
  return out;
}

/** The CEL rules on `spec.listeners` that a controller's listeners can break. */
function celErrors(listeners: readonly Listener[]): string[] {
  const out: string[] = [];
  const count = (key: (l: Listener) => string) => {
    const n = new Map<string, number>();
    for (const l of listeners) n.set(key(l), (n.get(key(l)) ?? 0) + 1);
    return listeners.some((l) => n.get(key(l))! > 1);
  };
  if (count((l) => l.name))
    out.push('spec.listeners: Invalid value: "array": Listener name must be unique within the Gateway');
  if (count((l) => JSON.stringify([l.port, l.protocol, l.hostname ?? null])))
    out.push(
      'spec.listeners: Invalid value: "array": Combination of port, protocol and hostname must be unique for each listener',
    );
  return out;
}

/**
 * The field errors the API server returns for a Gateway with these listeners, in its order: the
 * OpenAPI schema (the list's size, then each listener's hostname and name), the list-map's
 * duplicate keys, then the CEL rules. Empty when the write is admitted by the CRD.
 */
export function gatewayListenerErrors(listeners: readonly Listener[]): string[] {
  const out: string[] = [];
  if (listeners.length > GATEWAY_LISTENER_CAP)
    out.push(`spec.listeners: Too many: ${listeners.length}: must have at most ${GATEWAY_LISTENER_CAP} items`);
  listeners.forEach((l, i) => {
    const at = `spec.listeners[${i}]`;
    if (l.hostname !== undefined)
      pushAll(out, stringFieldErrors(`${at}.hostname`, l.hostname, HOSTNAME_PATTERN, HOSTNAME_RE));
    pushAll(out, stringFieldErrors(`${at}.name`, l.name, NAME_PATTERN, NAME_RE));
  });
  const seen = new Set<string>();
  listeners.forEach((l, i) => {
    if (seen.has(l.name))
      out.push(`spec.listeners[${i}]: Duplicate value: map[string]interface {}{"name":${quoted(l.name)}}`);
    seen.add(l.name);
  });
  pushAll(out, celErrors(listeners));
  return out;
}

/**
 * The API server's refusal of the write (`Gateway.gateway.networking.k8s.io "<name>" is invalid:
 * ...`, several errors in brackets, as apimachinery aggregates them), as a release's controller
 * reports it: prefixed by the step, `create Gateway: ` or `update Gateway: `. Undefined when admitted.
 */
export function gatewayWriteRefusal(name: string, listeners: readonly Listener[], exists: boolean): string | undefined {
  const errors = [...new Set(gatewayListenerErrors(listeners))];
  if (errors.length === 0) return undefined;
  const list = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
  return `${exists ? 'update' : 'create'} Gateway: Gateway.gateway.networking.k8s.io ${quoted(name)} is invalid: ${list}`;
}
