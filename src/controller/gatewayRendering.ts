/**
 * The Gateway a TenantGateway renders (docs/behaviour.md §5.2, §5.3, §5.12, §5.14, §7.1): its
 * listeners in order, the 64-listener budget counted before the Gateway is written, the checks the
 * apiserver would make on the write, and the write itself with the takeover guard. A release's
 * controller gives the HTTPS and the passthrough listeners their own route kinds (docs/versions.md
 * §C1) and counts nothing itself: the Gateway CRD refuses what it must (§X8, gatewayCrd.ts).
 */
import type { KObject } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { ReconcileError } from './errors';
import { MAX_NAME_LENGTH, isValidHostname, isValidSectionName } from '../k8s/dnsNames';
import type { PassthroughListener } from './hostnameClaims';
import {
  ACME_CHALLENGE_NAMESPACE,
  LABEL_GATEWAY,
  NS_LABEL_GATEWAY,
  NS_LABEL_NAME,
  childListenerName,
  perAppCertificateName,
  perAppListenerName,
  wildcardCertificateName,
} from '../platform/names';
import { applyOwned, ownedMetadata } from './ownedObjects';
import type { TenantGatewayView } from './tenantGatewaySpec';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { gatewayWriteRefusal } from './gatewayCrd';

/** Gateway API caps Gateway.spec.listeners at 64. */
export const LISTENER_CAP = 64;

export type Listener = Record<string, unknown> & { name: string; port: number; protocol: string; hostname?: string };

/** LabelSel: namespaces labelled `namespace.cozystack.io/gateway=<tgw ns>`. */
function labelSelector(ns: string): Record<string, unknown> {
  return { from: 'Selector', selector: { matchLabels: { [NS_LABEL_GATEWAY]: ns } } };
}

/** NameSel(v): namespaces by the apiserver-written `kubernetes.io/metadata.name`, duplicates dropped. */
function nameSelector(values: string[]): Record<string, unknown> {
  const vs = values.filter((x, i) => values.indexOf(x) === i);
  return { from: 'Selector', selector: { matchExpressions: [{ key: NS_LABEL_NAME, operator: 'In', values: vs }] } };
}

/**
 * The route kinds a port-443 listener admits. K443: every one names the same kinds, HTTPRoute and
 * TLSRoute (cilium#45559). A v1.5 controller (docs/versions.md §C1) gives an HTTPS listener
 * [HTTPRoute] and a passthrough listener [TLSRoute].
 */
function kinds443(behaviour: Behaviour, protocol: 'HTTPS' | 'TLS'): Record<string, unknown>[] {
  const http = { group: GROUPS.gateway, kind: 'HTTPRoute' };
  const tls = { group: GROUPS.gateway, kind: 'TLSRoute' };
  if (behaviour.port443RouteKinds === 'by-listener') return protocol === 'HTTPS' ? [http] : [tls];
  return [http, tls];
}

function terminate(name: string, hostname: string, certName: string, ns: string, behaviour: Behaviour): Listener {
  return {
    name,
    hostname,
    port: 443,
    protocol: 'HTTPS',
    tls: { mode: 'Terminate', certificateRefs: [{ name: certName }] },
    allowedRoutes: { namespaces: labelSelector(ns), kinds: kinds443(behaviour, 'HTTPS') },
  };
}

/** The namespaces the plain-HTTP listener admits: the tenant namespace and cozy-cert-manager. */
export function plainHttpNamespaces(v: TenantGatewayView): string[] {
  return [v.namespace, ACME_CHALLENGE_NAMESPACE].filter((x, i, a) => a.indexOf(x) === i);
}

/**
 * The listeners, in order (docs/behaviour.md §5.3):
 * 1. `http` (all modes but edge): port 80, no hostname, NameSel([tgw ns, cozy-cert-manager]), no kinds;
 * 2. http01: `https-<fl>-<hex8>` per served hostname; dns01/existingSecret: `https` (*.apex),
 *    `https-apex`, `https-child-*` per child apex; edge: `edge`, `edge-apex`, `edge-child-*` on
 *    port 80 with no TLS and kinds [HTTPRoute];
 * 3. `tls-<svc>` per tlsPassthroughServices entry (443, Passthrough, LabelSel + K443);
 * 4. `tls-<name>` per tlsPassthroughListeners entry (its port, Passthrough, NameSel([tgw ns]), no kinds).
 */
export function renderListeners(
  v: TenantGatewayView,
  served: readonly string[],
  children: readonly string[],
  passthrough: readonly PassthroughListener[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): Listener[] {
  const ns = v.namespace;
  const out: Listener[] = [];
  if (v.certMode === 'edge') {
    const edge = (name: string, hostname: string): Listener => ({
      name,
      hostname,
      port: 80,
      protocol: 'HTTP',
      allowedRoutes: { namespaces: labelSelector(ns), kinds: [{ group: GROUPS.gateway, kind: 'HTTPRoute' }] },
    });
    out.push(edge('edge', `*.${v.apex}`), edge('edge-apex', v.apex));
    for (const c of children) out.push(edge(childListenerName('edge', c), `*.${c}`));
    return out;
  }
  out.push({
    name: 'http',
    port: 80,
    protocol: 'HTTP',
    allowedRoutes: { namespaces: nameSelector(plainHttpNamespaces(v)) },
  });
  if (v.certMode === 'http01') {
    for (const h of served)
      out.push(terminate(perAppListenerName(h), h, perAppCertificateName(v.name, h), ns, behaviour));
  } else {
    let cert: string;
    if (v.certMode === 'dns01') cert = wildcardCertificateName(v.name);
    else {
      cert = v.wildcardSecretName;
      if (!cert) throw new ReconcileError('certMode existingSecret needs spec.wildcardSecretRef.name, and it is empty');
    }
    out.push(
      terminate('https', `*.${v.apex}`, cert, ns, behaviour),
      terminate('https-apex', v.apex, cert, ns, behaviour),
    );
    for (const c of children) out.push(terminate(childListenerName('https', c), `*.${c}`, cert, ns, behaviour));
  }
  for (const p of passthrough) {
    if (!p.native) {
      out.push({
        name: p.listenerName,
        hostname: p.hostname,
        port: 443,
        protocol: 'TLS',
        tls: { mode: 'Passthrough' },
        allowedRoutes: { namespaces: labelSelector(ns), kinds: kinds443(behaviour, 'TLS') },
      });
    }
  }
  for (const p of passthrough) {
    if (p.native) {
      out.push({
        name: p.listenerName,
        hostname: p.hostname,
        port: p.port,
        protocol: 'TLS',
        tls: { mode: 'Passthrough' },
        allowedRoutes: { namespaces: nameSelector([ns]) },
      });
    }
  }
  return out;
}

/**
 * Before the Gateway is written: the budget ("the controller catches the assembled total before
 * submitting the Gateway and reports it as Ready=False naming the budget"), then what the
 * apiserver would refuse in the write — a listener name that is not a SectionName, a hostname
 * that is not a lowercase DNS name or runs past 253 characters (a mixed-case apex composes such
 * hostnames: "admitted it is Ready=False on the one Gateway"). A release's controller (no
 * controller validation) checks none of it: the Gateway CRD's refusal is what stops the pass.
 */
export function checkListeners(
  v: TenantGatewayView,
  listeners: readonly Listener[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
  gatewayExists = false,
): void {
  if (!behaviour.controllerValidation) {
    // docs/versions.md §X8: no check of the controller's own; the Gateway CRD refuses the write.
    const refusal = gatewayWriteRefusal(v.name, listeners, gatewayExists);
    if (refusal !== undefined) throw new ReconcileError(refusal);
    return;
  }
  if (listeners.length > LISTENER_CAP) {
    const hint =
      v.certMode === 'http01'
        ? 'reduce the published hostnames or the passthrough entries, or switch to certMode dns01, which collapses every hostname under the apex into one wildcard listener'
        : 'reduce the inheriting child apexes or the passthrough entries';
    throw new ReconcileError(
      `Gateway ${v.id} would have ${listeners.length} listeners, over the Gateway API budget of ${LISTENER_CAP}: ${hint}`,
    );
  }
  const bad: string[] = [];
  for (const l of listeners) {
    if (!isValidSectionName(l.name)) bad.push(`listener name ${JSON.stringify(l.name)} is not a valid SectionName`);
    if (l.hostname !== undefined && !isValidHostname(l.hostname)) {
      bad.push(
        `listener ${l.name} hostname ${JSON.stringify(l.hostname)} is not a lowercase DNS name of at most ${MAX_NAME_LENGTH} characters`,
      );
    }
  }
  if (bad.length > 0) throw new ReconcileError(`Gateway ${v.id} cannot be written: ${bad.join('; ')}`);
}

/**
 * Write the Gateway (docs/behaviour.md §5.2): class from the spec or cilium; labels
 * `cozystack.io/gateway: <tgw ns>` plus the controller's, merged over foreign labels; the spec
 * replaced; an existing Gateway of that name that the TenantGateway does not own stops the pass.
 */
export function reconcileGateway(
  store: Store,
  v: TenantGatewayView,
  listeners: readonly Listener[],
  why = '',
): KObject {
  const desired: KObject = {
    apiVersion: `${GROUPS.gateway}/v1`,
    kind: 'Gateway',
    // docs/behaviour.md §5.2: the Gateway carries cozystack.io/gateway and managed-by; the
    // tenantgateway label only when the TenantGateway has no uid (docs/decisions.md §4).
    metadata: ownedMetadata(v.obj, v.name, { [LABEL_GATEWAY]: v.namespace }, { tenantGatewayLabel: false }),
    spec: { gatewayClassName: v.gatewayClassName, listeners: listeners.map((l) => ({ ...l })) },
  };
  applyOwned(
    store,
    v.obj,
    desired,
    why || `Gateway for TenantGateway ${v.id} (${v.certMode}, ${listeners.length} listeners)`,
  );
  return store.get(GROUPS.gateway, 'Gateway', v.namespace, v.name)!;
}
