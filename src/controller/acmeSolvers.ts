/**
 * The TenantGateway's certificate-source inputs, read with the CRD defaults the object may lack
 * (docs/behaviour.md §4: certMode http01, issuerName letsencrypt-prod, dns01.provider cloudflare,
 * rfc2136 tsigAlgorithm HMACSHA256), and the ACME pieces of the per-tenant Issuer built from them
 * (docs/behaviour.md §5.4). The DNS-01 provider blocks are the gateway chart's TenantGateway blocks
 * (docs/behaviour.md §3) mapped onto cert-manager's solver fields, in one table.
 */
import type { KObject } from '../k8s/model';
import { isObject, stringField } from '../k8s/model';
import { ReconcileError } from './errors';
import {
  ACME_SERVERS,
  CERT_MODES,
  DEFAULT_DNS01_PROVIDER,
  DEFAULT_ISSUER,
  DEFAULT_TSIG_ALGORITHM,
  DNS01_PROVIDERS,
  ISSUERS,
  type CertMode,
  type Dns01Provider,
} from '../platform/certificates';
import { certModeKnown, viewOf } from './tenantGatewaySpec';

function specOf(tgw: KObject): Record<string, unknown> {
  return isObject(tgw.spec) ? tgw.spec : {};
}

function where(tgw: KObject): string {
  return `TenantGateway ${tgw.metadata.namespace ?? ''}/${tgw.metadata.name}`;
}

/** spec.certMode with its CRD default (tenantGatewaySpec.ts); an unknown mode is a ReconcileError. */
export function certModeOf(tgw: KObject): CertMode {
  const v = viewOf(tgw);
  if (!certModeKnown(v))
    throw new ReconcileError(
      `${where(tgw)}: unsupported certMode "${v.certModeRaw}" (supported: ${CERT_MODES.join(', ')})`,
    );
  return v.certMode;
}

/** spec.apex; an empty apex cannot name a certificate or a redirect hostname. */
export function apexOf(tgw: KObject): string {
  const apex = viewOf(tgw).apex;
  if (!apex) throw new ReconcileError(`${where(tgw)}: spec.apex is empty`);
  return apex;
}

/**
 * The ACME directory URL for spec.issuerName (docs/behaviour.md §5.4): letsencrypt-prod (also when
 * unset or empty) or letsencrypt-stage; any other name is unsupported (supporting another ACME provider
 * means adding a branch here).
 */
export function acmeServer(tgw: KObject): { issuer: string; server: string } {
  const issuer = stringField(specOf(tgw).issuerName) || DEFAULT_ISSUER;
  const server = Object.prototype.hasOwnProperty.call(ACME_SERVERS, issuer) ? ACME_SERVERS[issuer] : undefined;
  if (!server) {
    throw new ReconcileError(`${where(tgw)}: unsupported issuerName "${issuer}" (supported: ${ISSUERS.join(', ')})`);
  }
  return { issuer, server };
}

/** The http01 solver: cert-manager's gatewayHTTPRoute on the tenant Gateway's `http` listener (§5.4). */
export function http01Solver(tgw: KObject): Record<string, unknown> {
  return {
    http01: {
      gatewayHTTPRoute: {
        parentRefs: [
          {
            group: 'gateway.networking.k8s.io',
            kind: 'Gateway',
            name: tgw.metadata.name,
            namespace: tgw.metadata.namespace,
            sectionName: 'http',
          },
        ],
      },
    },
  };
}

/** A `{name, key}` secret selector; `name` defaults to "" (docs/behaviour.md §4). */
function secretRef(
  tgw: KObject,
  block: Record<string, unknown>,
  provider: string,
  field: string,
): Record<string, string> {
  const ref = block[field];
  if (!isObject(ref)) throw new ReconcileError(`${where(tgw)}: spec.dns01.${provider}.${field} is missing`);
  const out: Record<string, string> = { name: stringField(ref.name) };
  if (typeof ref.key === 'string') out.key = ref.key;
  return out;
}

/**
 * Each provider's cert-manager dns01 block from the TenantGateway's provider block
 * (docs/behaviour.md §3.3 for the input, §5.4 for the output).
 */
const PROVIDER_BLOCKS: Record<Dns01Provider, (tgw: KObject, b: Record<string, unknown>) => Record<string, unknown>> = {
  cloudflare: (tgw, b) => ({ apiTokenSecretRef: secretRef(tgw, b, 'cloudflare', 'apiTokenSecretRef') }),
  route53: (tgw, b) => {
    // region is required; accessKeyID is omitted when empty (IRSA); the secret selector may name "".
    const out: Record<string, unknown> = { region: stringField(b.region) };
    if (stringField(b.accessKeyID)) out.accessKeyID = stringField(b.accessKeyID);
    out.secretAccessKeySecretRef = isObject(b.secretAccessKeySecretRef)
      ? secretRef(tgw, b, 'route53', 'secretAccessKeySecretRef')
      : { name: '' };
    return out;
  },
  digitalocean: (tgw, b) => ({ tokenSecretRef: secretRef(tgw, b, 'digitalocean', 'tokenSecretRef') }),
  rfc2136: (tgw, b) => ({
    nameserver: stringField(b.nameserver),
    tsigKeyName: stringField(b.tsigKeyName),
    tsigAlgorithm: stringField(b.tsigAlgorithm) || DEFAULT_TSIG_ALGORITHM,
    tsigSecretSecretRef: secretRef(tgw, b, 'rfc2136', 'tsigSecretSecretRef'),
  }),
};

/** spec.dns01.provider, defaulting to cloudflare when unset or empty. */
export function dns01ProviderOf(tgw: KObject): string {
  const dns01 = specOf(tgw).dns01;
  return (isObject(dns01) ? stringField(dns01.provider) : '') || DEFAULT_DNS01_PROVIDER;
}

/**
 * The dns01 solver (docs/behaviour.md §5.4). Errors: a missing `dns01` block, an unknown provider,
 * or a missing provider block.
 */
export function dns01Solver(tgw: KObject): { provider: Dns01Provider; solver: Record<string, unknown> } {
  const dns01 = specOf(tgw).dns01;
  if (!isObject(dns01)) throw new ReconcileError(`${where(tgw)}: certMode dns01 requires spec.dns01`);
  const provider = dns01ProviderOf(tgw);
  if (!(DNS01_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ReconcileError(
      `${where(tgw)}: unsupported dns01.provider "${provider}" (supported: ${DNS01_PROVIDERS.join(', ')})`,
    );
  }
  const p = provider as Dns01Provider;
  const block = dns01[p];
  if (!isObject(block)) {
    throw new ReconcileError(`${where(tgw)}: dns01.provider is ${p} but spec.dns01.${p} is missing`);
  }
  // The CRD's required fields (docs/behaviour.md §4), also the gateway chart's guard 7 (§3).
  if (p === 'route53' && !stringField(block.region)) {
    throw new ReconcileError(`${where(tgw)}: spec.dns01.route53.region is required`);
  }
  if (p === 'rfc2136' && !stringField(block.nameserver)) {
    throw new ReconcileError(`${where(tgw)}: spec.dns01.rfc2136.nameserver is required`);
  }
  return { provider: p, solver: { dns01: { [p]: PROVIDER_BLOCKS[p](tgw, block) } } };
}
