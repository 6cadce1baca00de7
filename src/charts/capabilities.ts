/**
 * `.Capabilities.APIVersions` offline (docs/decisions.md §Q2, Q3): which API group-versions the
 * templates may take as served. `--api-versions` (repeatable, as helm's) lists them; without it
 * each template that depends on one has its ruling. Computed once per render from the inputs.
 * Pure.
 */
import type { KObject } from '../k8s/model';
import { isPackage } from '../platform/kinds';
import { KEYCLOAK_API_VERSION, oidcEnabled } from './keycloakGroups';

export const COZYSTACK_API_VERSION = 'cozystack.io/v1alpha1';
/** The Package the computeplane guard looks up (docs/tenant.md §2.5.3). */
export const COMPUTEPLANE_PACKAGE = 'cozystack.computeplane-application';

export interface Capabilities {
  /** `--api-versions`, when given. */
  apiVersions?: ReadonlySet<string>;
  /** Whether any input object is a `cozystack.io/v1alpha1` one (the platform Package counts). */
  cozystackInInputs: boolean;
  /** The names of the `cozystack.io/v1alpha1` Packages among the inputs. */
  packages: ReadonlySet<string>;
}

export function capabilitiesOf(objects: readonly KObject[], apiVersions?: readonly string[]): Capabilities {
  const packages = new Set<string>();
  let cozystackInInputs = false;
  for (const o of objects) {
    if (o.apiVersion !== COZYSTACK_API_VERSION) continue;
    cozystackInInputs = true;
    if (isPackage(o)) packages.add(o.metadata.name);
  }
  return { apiVersions: apiVersions && new Set(apiVersions), cozystackInInputs, packages };
}

/**
 * Q3: `v1.edp.epam.com/v1` (the keycloak-operator's API) is served iff `_cluster.oidc-enabled` is
 * "true" (the platform installs the operator with OIDC on), unless `--api-versions` is given, in
 * which case only the listed versions count.
 */
export function keycloakServed(caps: Capabilities, cluster: Record<string, unknown> | undefined): boolean {
  if (caps.apiVersions) return caps.apiVersions.has(KEYCLOAK_API_VERSION);
  try {
    return oidcEnabled(cluster);
  } catch {
    return false; // the template itself reports the flag (keycloakGroups.ts)
  }
}

/** Q2: `cozystack.io/v1alpha1` is served iff an input object is of it or `--api-versions` names it. */
export function cozystackServed(caps: Capabilities): boolean {
  return caps.cozystackInInputs || (caps.apiVersions?.has(COZYSTACK_API_VERSION) ?? false);
}
