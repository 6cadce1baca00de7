/**
 * The versions the cluster serves of each Gateway API resource, by the Gateway API CRD bundle it
 * runs (`--gateway-api-version`): what the platform's route policy matches (src/charts/policies.ts)
 * and what admission's `matchPolicy: Equivalent` converts between (src/admission/admit.ts).
 */
import coerce from 'semver/functions/coerce';
import compare from 'semver/functions/compare';
import gte from 'semver/functions/gte';
import { error, FindingsError } from '../k8s/diagnostics';

/** The served versions of each resource of one bundle. */
export type GatewayApiServed = Record<'gateways' | 'httproutes' | 'tlsroutes' | 'grpcroutes', string[]>;

/**
 * Gateway API bundle version → the versions it serves per resource. Layer 7 matches "every
 * version the vendored CRD bundle serves for each" kind; the platform vendors 1.6.1
 * (docs/behaviour.md §7: gateways and httproutes v1, v1beta1; tlsroutes v1, v1alpha2, v1alpha3;
 * grpcroutes v1). Older bundles: TLSRoute was v1alpha2 only until 1.4 added v1alpha3 and 1.5
 * promoted it to v1; GRPCRoute went v1 in 1.1 and dropped v1alpha2 in 1.2.
 */
export const GATEWAY_API_SERVED: Record<string, GatewayApiServed> = {
  '1.0': {
    gateways: ['v1', 'v1beta1'],
    httproutes: ['v1', 'v1beta1'],
    tlsroutes: ['v1alpha2'],
    grpcroutes: ['v1alpha2'],
  },
  '1.1': {
    gateways: ['v1', 'v1beta1'],
    httproutes: ['v1', 'v1beta1'],
    tlsroutes: ['v1alpha2'],
    grpcroutes: ['v1', 'v1alpha2'],
  },
  '1.2': { gateways: ['v1', 'v1beta1'], httproutes: ['v1', 'v1beta1'], tlsroutes: ['v1alpha2'], grpcroutes: ['v1'] },
  '1.3': { gateways: ['v1', 'v1beta1'], httproutes: ['v1', 'v1beta1'], tlsroutes: ['v1alpha2'], grpcroutes: ['v1'] },
  '1.4': {
    gateways: ['v1', 'v1beta1'],
    httproutes: ['v1', 'v1beta1'],
    tlsroutes: ['v1alpha2', 'v1alpha3'],
    grpcroutes: ['v1'],
  },
  '1.5': {
    gateways: ['v1', 'v1beta1'],
    httproutes: ['v1', 'v1beta1'],
    tlsroutes: ['v1', 'v1alpha2', 'v1alpha3'],
    grpcroutes: ['v1'],
  },
  '1.6': {
    gateways: ['v1', 'v1beta1'],
    httproutes: ['v1', 'v1beta1'],
    tlsroutes: ['v1', 'v1alpha2', 'v1alpha3'],
    grpcroutes: ['v1'],
  },
};

/** The bundle the platform ships ([C] feat/gateway-api-crds-1.6.1). */
export const DEFAULT_GATEWAY_API_VERSION = '1.6.1';

/**
 * The served versions of a bundle version. A release newer than the table serves what the
 * newest known one does; one older than 1.0 (or not a version) is refused.
 */
export function servedVersions(version: string = DEFAULT_GATEWAY_API_VERSION): GatewayApiServed {
  const v = coerce(version);
  if (!v) {
    throw new FindingsError([
      error(`gatewayApiVersion "${version}" is not a version`, {
        rule: 'policies.gateway-api-version',
        hint: `e.g. ${DEFAULT_GATEWAY_API_VERSION}`,
      }),
    ]);
  }
  const known = Object.keys(GATEWAY_API_SERVED).sort((a, b) => compare(`${a}.0`, `${b}.0`));
  let pick: string | undefined;
  for (const k of known) if (gte(v, `${k}.0`)) pick = k;
  if (!pick) {
    throw new FindingsError([
      error(`Gateway API ${version} is older than any bundle the policies know (${known[0]} and later)`, {
        rule: 'policies.gateway-api-version',
      }),
    ]);
  }
  return GATEWAY_API_SERVED[pick];
}
