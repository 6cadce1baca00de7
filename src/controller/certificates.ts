/**
 * The TenantGateway's ACME objects: the per-tenant Issuer, the DNS-01 wildcard Certificate and the
 * HTTP-01 per-listener Certificates, with the garbage collection a cert-mode switch implies
 * (docs/behaviour.md §5.12, §5.4, §5.5). Deletions touch only objects this TenantGateway owns
 * (§5.2); issued TLS Secrets are never deleted (cert-manager runs with
 * enableCertificateOwnerRef: false, §5.5).
 */
import type { KObject } from '../k8s/model';
import { labelsOf } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { acmeServer, apexOf, certModeOf, dns01Solver, http01Solver } from './acmeSolvers';
import {
  LABEL_MANAGED_BY,
  LABEL_PER_LISTENER_CERT,
  MANAGED_BY_VALUE,
  acmeAccountSecretName,
  issuerName,
  perAppCertificateName,
  wildcardCertificateName,
} from '../platform/names';
import { applyOwned, deleteOwned, guardTakeover, ownedMetadata } from './ownedObjects';
import { isOwnedBy } from './ownership';

const CERT_MANAGER_API = 'cert-manager.io/v1';

function nsOf(tgw: KObject): string {
  return tgw.metadata.namespace ?? '';
}

/** `issuerRef {kind: Issuer, name: <tgw>-gateway}`, no group (docs/behaviour.md §5.5). */
function issuerRef(tgw: KObject): Record<string, string> {
  return { kind: 'Issuer', name: issuerName(tgw.metadata.name) };
}

function certificate(
  tgw: KObject,
  name: string,
  dnsNames: string[],
  labels: Record<string, string>,
  tgwLabel: boolean,
): KObject {
  return {
    apiVersion: CERT_MANAGER_API,
    kind: 'Certificate',
    metadata: ownedMetadata(tgw, name, labels, { tenantGatewayLabel: tgwLabel }),
    // secretName = the Certificate's own name (docs/behaviour.md §0).
    spec: { secretName: name, issuerRef: issuerRef(tgw), dnsNames },
  };
}

/**
 * The Issuer `<tgw>-gateway` (docs/behaviour.md §5.4). http01 and dns01 mint it: ACME server by
 * issuerName, account key `<tgw>-acme-account`, one solver (HTTP-01 on the Gateway's http
 * listener, or the configured DNS-01 provider). existingSecret and edge mint none, and delete
 * an owned one ("Switching into this mode ... garbage-collects the now-unused per-tenant Issuer").
 */
export function reconcileIssuer(store: Store, tgw: KObject): void {
  const mode = certModeOf(tgw);
  const name = issuerName(tgw.metadata.name);
  if (mode === 'existingSecret' || mode === 'edge') {
    const existing = store.get(GROUPS.certManager, 'Issuer', nsOf(tgw), name);
    deleteOwned(store, tgw, existing, `garbage-collected: mode switched to ${mode}, which mints no Issuer`);
    return;
  }
  const { issuer, server } = acmeServer(tgw);
  let solver: Record<string, unknown>;
  let reason: string;
  if (mode === 'http01') {
    solver = http01Solver(tgw);
    reason = `ACME issuer (${issuer}) with an HTTP-01 solver on listener http (http01)`;
  } else {
    const d = dns01Solver(tgw);
    solver = d.solver;
    reason = `ACME issuer (${issuer}) with a DNS-01 solver via ${d.provider} (dns01)`;
  }
  const desired: KObject = {
    apiVersion: CERT_MANAGER_API,
    kind: 'Issuer',
    metadata: ownedMetadata(tgw, name, {}, { tenantGatewayLabel: false }),
    spec: {
      acme: {
        server,
        privateKeySecretRef: { name: acmeAccountSecretName(tgw.metadata.name) },
        solvers: [solver],
      },
    },
  };
  applyOwned(store, tgw, desired, reason);
}

/**
 * The wildcard Certificate's dnsNames (docs/behaviour.md §5.5): apex, *.apex, then c, *.c per
 * sorted child apex, duplicates and empties skipped (a child whose host equals the apex adds
 * nothing).
 */
export function wildcardDnsNames(apex: string, childApexes: string[]): string[] {
  const out: string[] = [];
  const add = (h: string) => {
    if (h && !out.includes(h)) out.push(h);
  };
  for (const a of [apex, ...[...childApexes].filter((c) => c).sort()]) {
    add(a);
    add(`*.${a}`);
  }
  return out;
}

/**
 * The wildcard Certificate `<tgw>-gateway-tls` (dns01 only; docs/behaviour.md §5.5:
 * one Certificate covering <apex> and *.<apex>, extended with <child-apex> and *.<child-apex> per
 * inheriting child). Any other mode deletes an owned one.
 */
export function reconcileWildcardCertificate(store: Store, tgw: KObject, childApexes: string[]): void {
  const mode = certModeOf(tgw);
  const name = wildcardCertificateName(tgw.metadata.name);
  if (mode !== 'dns01') {
    const existing = store.get(GROUPS.certManager, 'Certificate', nsOf(tgw), name);
    deleteOwned(store, tgw, existing, `garbage-collected: mode switched to ${mode}, which has no wildcard certificate`);
    return;
  }
  const apex = apexOf(tgw);
  const dnsNames = wildcardDnsNames(apex, childApexes);
  const children = dnsNames.length / 2 - 1;
  const reason =
    `wildcard certificate for ${apex} and *.${apex}` +
    (children > 0 ? ` plus ${children} child apex${children === 1 ? '' : 'es'}` : '') +
    ' (dns01)';
  applyOwned(store, tgw, certificate(tgw, name, dnsNames, {}, false), reason);
}

/**
 * Per-listener Certificates (docs/behaviour.md §5.5, §5.8: one
 * per unique hostname that earns a listener, dnsNames exactly that hostname). GC runs in every
 * mode: a Certificate in the TenantGateway's namespace labelled managed-by, other than the
 * wildcard, that this TenantGateway owns and no longer wants is deleted; its TLS Secret is kept.
 */
export function reconcilePerListenerCertificates(store: Store, tgw: KObject, servedHostnames: string[]): void {
  const mode = certModeOf(tgw);
  const tgwName = tgw.metadata.name;
  const hostnames = mode === 'http01' ? [...new Set(servedHostnames.filter((h) => h))] : [];
  const desired = hostnames.map((h) => ({
    host: h,
    obj: certificate(tgw, perAppCertificateName(tgwName, h), [h], { [LABEL_PER_LISTENER_CERT]: 'true' }, true),
  }));
  // The takeover guard for every wanted name before anything is written.
  for (const d of desired) guardTakeover(store, tgw, d.obj);
  for (const d of desired) applyOwned(store, tgw, d.obj, `per-listener certificate for ${d.host} (http01)`);

  const wanted = new Set(desired.map((d) => d.obj.metadata.name));
  const wildcard = wildcardCertificateName(tgwName);
  for (const c of store.list(GROUPS.certManager, 'Certificate', nsOf(tgw))) {
    const name = c.metadata.name;
    if (labelsOf(c)[LABEL_MANAGED_BY] !== MANAGED_BY_VALUE || name === wildcard || wanted.has(name)) continue;
    if (!isOwnedBy(c, tgw)) continue; // unowned: never touched
    const spec = (c.spec ?? {}) as { dnsNames?: unknown };
    const host = Array.isArray(spec.dnsNames) && typeof spec.dnsNames[0] === 'string' ? spec.dnsNames[0] : name;
    const reason =
      mode === 'http01'
        ? `garbage-collected: no route claims ${host} any more`
        : `garbage-collected: mode switched to ${mode}, which has no per-listener certificates`;
    deleteOwned(store, tgw, c, reason);
  }
}
