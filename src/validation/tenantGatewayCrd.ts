/**
 * The TenantGateway CRD (schemas/tenantgateway.crd.yaml, docs/behaviour.md §4) applied offline, as
 * the apiserver applies it to a write: defaults first, then the structural schema (with ajv),
 * then the list types and the x-kubernetes-validations CEL rules (src/validation/crdRules.ts).
 * Ratcheting does not apply: every object is judged as a CREATE. Under a release the releases' CRD
 * applies instead (schemas/tenantgateway.releases.crd.yaml, docs/versions.md §9).
 */
import { asset } from '../assets';
import { error, warning, type Finding } from '../k8s/diagnostics';
import { clone, isObject, refOf, type KObject } from '../k8s/model';
import { tenantGatewayReleasesValidator, tenantGatewayValidator, type Validate } from './validators.generated';
import { explainCrdError, schemaFindings } from './ajvErrors';
import { applyDefaults, crdRuleFindings, type CrdVoice } from './crdRules';
import { pushAll } from '../k8s/arrays';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

export { toJsonSchema } from './crdJsonSchema';
export { applyDefaults } from './crdRules';

export const CRD_FILE = 'schemas/tenantgateway.crd.yaml';
/** The CRD every release ships (docs/versions.md §9). */
export const RELEASES_CRD_FILE = 'schemas/tenantgateway.releases.crd.yaml';

type Schema = Record<string, unknown>;
type Variant = Behaviour['tenantGatewayCrd'];

/**
 * Per CRD: its file and the validator of toJsonSchema(its schema), with the date-time format of
 * status conditions (src/validation/crdJsonSchema.ts), precompiled at build time by
 * scripts/embed-assets.js (ajv standalone code): no schema compile at run time.
 */
const VARIANTS: Record<Variant, { file: string; validator: () => Validate }> = {
  pack: { file: CRD_FILE, validator: tenantGatewayValidator },
  releases: { file: RELEASES_CRD_FILE, validator: tenantGatewayReleasesValidator },
};

/** The CRD object as embedded: the version's (default main's, the pack's). */
export function tenantGatewayCrd(behaviour: Behaviour = MAIN_VERSION.behaviour): KObject {
  return asset<KObject>(VARIANTS[behaviour.tenantGatewayCrd].file);
}

/** The v1alpha1 openAPIV3Schema of the version's CRD (a fresh copy). */
export function tenantGatewaySchema(behaviour: Behaviour = MAIN_VERSION.behaviour): Schema {
  const crd = tenantGatewayCrd(behaviour) as unknown as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
  };
  return crd.spec.versions.find((v) => v.name === 'v1alpha1')!.schema.openAPIV3Schema;
}

/** Each CRD's schema, read once and shared by every validation here; never mutated. */
const sharedSchemas = new Map<Variant, Schema>();
function schema(behaviour: Behaviour): Schema {
  const variant = behaviour.tenantGatewayCrd;
  let s = sharedSchemas.get(variant);
  if (!s) sharedSchemas.set(variant, (s = tenantGatewaySchema(behaviour)));
  return s;
}

/** The object with the version's CRD defaults applied (a copy), as the apiserver stores it. */
export function applyTenantGatewayDefaults<T extends KObject>(
  obj: T,
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): T {
  return applyDefaults(clone(obj), schema(behaviour)) as T;
}

const VOICE: CrdVoice = { schemaRule: 'tenantgateway.schema', celRule: 'tenantgateway.cel', kind: 'TenantGateway' };

/**
 * docs/versions.md §X9: the releases' CRD has no `spec.tlsPassthroughListeners`. The API server
 * prunes a field its structural schema does not know from a write, so the object (a copy) is
 * judged, as it is stored, without it, with a warning that it is dropped.
 */
function pruneReleaseUnknownFields(o: KObject, behaviour: Behaviour, findings: Finding[]): void {
  if (behaviour.tenantGatewayCrd !== 'releases' || !isObject(o.spec) || !('tlsPassthroughListeners' in o.spec)) return;
  delete o.spec.tlsPassthroughListeners;
  findings.push(
    warning(
      "spec.tlsPassthroughListeners is not a field of this Cozystack version's TenantGateway CRD: the API server prunes it on write, and the controller renders no native-port listener for it",
      {
        rule: 'tenantgateway.pruned-field',
        object: refOf(o),
        field: 'spec.tlsPassthroughListeners',
        hint: 'remove spec.tlsPassthroughListeners, or reproduce a version that has it (--cozystack-version main)',
      },
    ),
  );
}

/**
 * Validate a TenantGateway as the apiserver validates a CREATE: defaults, the openAPIV3Schema
 * (every violation, each naming its field path), the list-type semantics, then the CEL rules. Every failure is reported;
 * a rule that cannot be evaluated because the schema already failed (a value of the wrong type)
 * is not reported twice.
 */
export function validateTenantGateway(obj: KObject, behaviour: Behaviour = MAIN_VERSION.behaviour): Finding[] {
  const ref = refOf(obj);
  const findings: Finding[] = [];
  const o = applyTenantGatewayDefaults(obj, behaviour);
  pruneReleaseUnknownFields(o, behaviour, findings);
  if (o.apiVersion !== 'gateway.cozystack.io/v1alpha1') {
    findings.push(
      error(`TenantGateway apiVersion must be gateway.cozystack.io/v1alpha1, got ${o.apiVersion}`, {
        rule: 'tenantgateway.schema',
        object: ref,
        field: 'apiVersion',
      }),
    );
  }
  const validate = VARIANTS[behaviour.tenantGatewayCrd].validator();
  if (!validate(o))
    pushAll(findings, schemaFindings(validate.errors, explainCrdError, { rule: 'tenantgateway.schema', object: ref }));
  const schemaFailed = findings.some((f) => f.severity === 'error');
  pushAll(findings, crdRuleFindings(o, schema(behaviour), obj, VOICE, schemaFailed));
  return findings;
}
