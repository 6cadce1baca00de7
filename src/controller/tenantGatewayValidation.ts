/**
 * Controller-side validation of a TenantGateway spec (docs/behaviour.md §5.11, §5.13): the rules the
 * controller checks rather than admission, each of which makes the pass stop with Ready=False /
 * ReconcileError. The listener budget (64) is counted later, on the assembled listeners
 * (gatewayRendering.ts). Returns every problem found, in spec order; an empty list means the spec is
 * acceptable. A release's controller validates nothing (docs/versions.md §X8): what it cannot write,
 * the API server refuses at the write.
 */
import { hostnamesOverlap } from '../k8s/gatewayApi';
import { MAX_NAME_LENGTH, isDns1123Label, isDns1123Subdomain, isValidHostname } from '../k8s/dnsNames';
import { passthroughListenerName, passthroughServiceListenerName } from '../platform/names';
import { certModeKnown, type TenantGatewayView } from './tenantGatewaySpec';
import { CERT_MODES } from '../platform/certificates';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

function q(x: unknown): string {
  return JSON.stringify(x);
}

export function tenantGatewayProblems(v: TenantGatewayView, behaviour: Behaviour = MAIN_VERSION.behaviour): string[] {
  if (!behaviour.controllerValidation) return [];
  // certMode is an enum on the CRD; a value the controller does not know cannot be rendered.
  if (!certModeKnown(v)) return [`unsupported certMode ${q(v.certModeRaw)} (supported: ${CERT_MODES.join(', ')})`];
  const problems: string[] = [];
  // apex is required: every listener hostname and certificate is composed from it.
  if (!v.apex) problems.push('spec.apex is empty');

  // The cert-mode rule (docs/behaviour.md §4.2 rule 5): tlsPassthroughListeners is refused
  // under edge, which renders no TLS listener for a passthrough entry to sit beside.
  if (v.certMode === 'edge' && v.passthroughListeners.length > 0) {
    problems.push(
      'tlsPassthroughListeners is not supported under certMode edge: an edge-terminated class renders no TLS listener; remove the entries before moving to edge',
    );
    return problems;
  }
  // Under edge tlsPassthroughServices are not rendered at all, so nothing more to judge.
  if (v.certMode === 'edge') return problems;

  const services = passthroughServiceProblems(v, problems);
  passthroughListenerProblems(v, services, problems);
  if (problems.length > 0) return problems;
  sniOverlapProblems(v, problems);
  return problems;
}

/**
 * tlsPassthroughServices: a repeated entry, a non-DNS-1123-subdomain entry, and an entry whose
 * composed listener name (tls-<svc>) or hostname (<svc>.<apex>) runs past 253 characters. Returns
 * the entries seen, for the listeners' name clash.
 */
function passthroughServiceProblems(v: TenantGatewayView, problems: string[]): Set<string> {
  const seenSvc = new Set<string>();
  for (const svc of v.passthroughServices) {
    if (seenSvc.has(svc)) {
      problems.push(`tlsPassthroughServices entry ${q(svc)} is repeated`);
      continue;
    }
    seenSvc.add(svc);
    if (!isDns1123Subdomain(svc)) {
      problems.push(`tlsPassthroughServices entry ${q(svc)} is not a DNS-1123 subdomain`);
      continue;
    }
    const ln = passthroughServiceListenerName(svc);
    if (ln.length > MAX_NAME_LENGTH)
      problems.push(
        `tlsPassthroughServices entry ${q(svc)}: listener name ${ln} is longer than ${MAX_NAME_LENGTH} characters`,
      );
    const host = `${svc}.${v.apex}`;
    if (host.length > MAX_NAME_LENGTH)
      problems.push(
        `tlsPassthroughServices entry ${q(svc)}: hostname ${host} is longer than ${MAX_NAME_LENGTH} characters`,
      );
  }
  return seenSvc;
}

/** tlsPassthroughListeners: the apex they sit within, and each entry's name, port and hostname. */
function passthroughListenerProblems(v: TenantGatewayView, services: Set<string>, problems: string[]): void {
  const listeners = v.passthroughListeners;
  if (listeners.length === 0) return;
  // "An apex no listener hostname can sit within is checked by the controller as well."
  if (v.apex && !isDns1123Subdomain(v.apex)) {
    problems.push(
      `apex ${q(v.apex)} is not a lowercase DNS-1123 subdomain, so no tlsPassthroughListeners hostname can sit within it`,
    );
  }
  const names = new Set<string>();
  const ports = new Set<number>();
  listeners.forEach((l, i) => {
    const at = `tlsPassthroughListeners[${i}]`;
    if (typeof l.name !== 'string' || !isDns1123Label(l.name)) {
      problems.push(`${at}: name ${q(l.name)} is not a DNS-1123 label (1-63 characters)`);
    } else {
      if (names.has(l.name)) problems.push(`${at}: name ${q(l.name)} is repeated`);
      names.add(l.name);
      if (services.has(l.name))
        problems.push(
          `${at}: name ${q(l.name)} clashes with the tlsPassthroughServices entry of the same name (both render listener ${passthroughListenerName(l.name)})`,
        );
    }
    const port = l.port;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      problems.push(`${at}: port ${q(port)} is out of range (1-65535)`);
    } else if (port === 80 || port === 443) {
      problems.push(`${at}: port ${port} belongs to the Gateway's own listeners`);
    } else {
      if (ports.has(port)) problems.push(`${at}: port ${port} is used by another entry`);
      ports.add(port);
    }
    if (typeof l.hostname !== 'string' || !isValidHostname(l.hostname)) {
      problems.push(`${at}: hostname ${q(l.hostname)} is not a lowercase DNS name with an optional leading "*."`);
    } else if (v.apex && !(l.hostname === v.apex || l.hostname.endsWith(`.${v.apex}`))) {
      problems.push(`${at}: hostname ${l.hostname} is outside the apex ${v.apex}`);
    }
  });
}

/**
 * No two passthrough listeners may match the same SNI, wildcards included (services first, then
 * listeners; both are named).
 */
function sniOverlapProblems(v: TenantGatewayView, problems: string[]): void {
  const pts: { listener: string; hostname: string }[] = [
    ...v.passthroughServices.map((s) => ({ listener: passthroughServiceListenerName(s), hostname: `${s}.${v.apex}` })),
    ...v.passthroughListeners.map((l) => ({
      listener: passthroughListenerName(String(l.name)),
      hostname: String(l.hostname),
    })),
  ];
  for (let i = 0; i < pts.length; i++) {
    for (let j = i + 1; j < pts.length; j++) {
      if (hostnamesOverlap(pts[i].hostname, pts[j].hostname)) {
        problems.push(
          `passthrough listeners ${pts[i].listener} (${pts[i].hostname}) and ${pts[j].listener} (${pts[j].hostname}) overlap by SNI; no two passthrough listeners may match the same SNI`,
        );
      }
    }
  }
}
