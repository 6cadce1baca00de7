/**
 * A read-only view of a TenantGateway's spec with the CRD defaults applied (docs/behaviour.md §4):
 * certMode http01, gatewayClassName cilium, metadata.generation 1 when missing (docs/decisions.md §8).
 * Reading never throws: malformed values are kept as they are and judged by
 * tenantGatewayValidation.ts, so the pass reports them as Ready=False instead of crashing.
 * Read for a release (docs/versions.md §X1, §X9), `edge` is no certMode the controller knows and
 * `tlsPassthroughListeners` is no field (the API server pruned it).
 */
import type { KObject } from '../k8s/model';
import { isObject, stringField } from '../k8s/model';
import { DEFAULT_CLASS } from '../platform/names';

import { CERT_MODES, DEFAULT_CERT_MODE, type CertMode } from '../platform/certificates';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

/** One tlsPassthroughListeners entry, as written (validation checks the types). */
export interface NativeListenerSpec {
  name: unknown;
  port: unknown;
  hostname: unknown;
}

export interface TenantGatewayView {
  obj: KObject;
  name: string;
  namespace: string;
  /** `<namespace>/<name>`, as messages name the TenantGateway. */
  id: string;
  apex: string;
  /** The raw certMode ('' when unset means http01). */
  certModeRaw: string;
  /** The mode the pass renders: the raw one, or http01 for one the version does not know. */
  certMode: CertMode;
  /** Whether the version's controller knows the raw mode (a release knows no edge). */
  certModeKnown: boolean;
  gatewayClassName: string;
  wildcardSecretName: string;
  /** Non-empty attachedNamespaces entries, de-duplicated, in spec order. */
  attachedNamespaces: string[];
  /** tlsPassthroughServices as written (strings only; duplicates kept so that validation can name them). */
  passthroughServices: string[];
  passthroughListeners: NativeListenerSpec[];
  generation: number;
}

export function viewOf(tgw: KObject, behaviour: Behaviour = MAIN_VERSION.behaviour): TenantGatewayView {
  const spec = isObject(tgw.spec) ? tgw.spec : {};
  const namespace = tgw.metadata.namespace ?? '';
  const certModeRaw = stringField(spec.certMode);
  const mode = certModeRaw || 'http01';
  const known = (CERT_MODES as readonly string[]).includes(mode) && (behaviour.gatewayClasses || mode !== 'edge');
  const attached: string[] = [];
  for (const n of Array.isArray(spec.attachedNamespaces) ? spec.attachedNamespaces : []) {
    const s = stringField(n).trim();
    if (s && !attached.includes(s)) attached.push(s);
  }
  const services = (Array.isArray(spec.tlsPassthroughServices) ? spec.tlsPassthroughServices : []).map((s) =>
    typeof s === 'string' ? s : String(s),
  );
  const written = behaviour.nativePassthroughListeners ? spec.tlsPassthroughListeners : undefined;
  const listeners = (Array.isArray(written) ? written : []).map((l) =>
    isObject(l)
      ? { name: l.name, port: l.port, hostname: l.hostname }
      : { name: undefined, port: undefined, hostname: undefined },
  );
  const wsr = isObject(spec.wildcardSecretRef) ? spec.wildcardSecretRef : {};
  const gen = tgw.metadata.generation;
  return {
    obj: tgw,
    name: tgw.metadata.name,
    namespace,
    id: `${namespace}/${tgw.metadata.name}`,
    apex: stringField(spec.apex),
    certModeRaw,
    certMode: (known ? mode : DEFAULT_CERT_MODE) as CertMode,
    certModeKnown: known,
    gatewayClassName: stringField(spec.gatewayClassName).trim() || DEFAULT_CLASS,
    wildcardSecretName: stringField(wsr.name),
    attachedNamespaces: attached,
    passthroughServices: services,
    passthroughListeners: listeners,
    generation: typeof gen === 'number' && Number.isFinite(gen) ? gen : 1,
  };
}

/** Whether the raw certMode is one the controller knows. */
export function certModeKnown(v: TenantGatewayView): boolean {
  return v.certModeKnown;
}
