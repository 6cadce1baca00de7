/**
 * The certificate vocabulary the gateway chart and the controller share (docs/behaviour.md §3,
 * §4.1, §5.4, §5.12): the cert modes a TenantGateway takes, the ACME solvers and DNS-01 providers the platform
 * supports, the issuers and their ACME directories, and the defaults of each, defined once.
 */

export type CertMode = 'http01' | 'dns01' | 'existingSecret' | 'edge';
/** The CRD's certMode enum; http01 is its default. */
export const CERT_MODES: readonly CertMode[] = ['http01', 'dns01', 'existingSecret', 'edge'];
export const DEFAULT_CERT_MODE: CertMode = 'http01';

/** The ACME solvers publishing.certificates.solver may name; http01 when unset. */
export const SOLVERS: readonly string[] = ['http01', 'dns01'];
export const DEFAULT_SOLVER = 'http01';

export const DNS01_PROVIDERS = ['cloudflare', 'route53', 'digitalocean', 'rfc2136'] as const;
export type Dns01Provider = (typeof DNS01_PROVIDERS)[number];
export const DEFAULT_DNS01_PROVIDER: Dns01Provider = 'cloudflare';
/** rfc2136's tsigAlgorithm when none is given. */
export const DEFAULT_TSIG_ALGORITHM = 'HMACSHA256';

/** The issuers a TenantGateway may name, each with its ACME directory. */
export const ACME_SERVERS: Readonly<Record<string, string>> = {
  'letsencrypt-prod': 'https://acme-v02.api.letsencrypt.org/directory',
  'letsencrypt-stage': 'https://acme-staging-v02.api.letsencrypt.org/directory',
};
export const ISSUERS: readonly string[] = Object.keys(ACME_SERVERS);
export const DEFAULT_ISSUER = 'letsencrypt-prod';
