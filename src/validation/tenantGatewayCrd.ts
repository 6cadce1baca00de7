/**
 * The TenantGateway CRD (schemas/tenantgateway.crd.yaml, docs/behaviour.md §4) applied offline, as
 * the apiserver applies it to a write: defaults first, then the structural schema (with ajv),
 * then the list types and the x-kubernetes-validations CEL rules (src/validation/crdRules.ts).
 * Ratcheting does not apply: every object is judged as a CREATE.
 */
import { asset } from '../assets';
import { error, type Finding } from '../k8s/diagnostics';
import { clone, refOf, type KObject } from '../k8s/model';
import { tenantGatewayValidator } from './validators.generated';
import { explainCrdError, schemaFindings } from './ajvErrors';
import { applyDefaults, crdRuleFindings, type CrdVoice } from './crdRules';
import { pushAll } from '../k8s/arrays';

export { toJsonSchema } from './crdJsonSchema';
export { applyDefaults } from './crdRules';

export const CRD_FILE = 'schemas/tenantgateway.crd.yaml';

type Schema = Record<string, unknown>;

/** The CRD object as embedded. */
export function tenantGatewayCrd(): KObject {
  return asset<KObject>(CRD_FILE);
}

/** The v1alpha1 openAPIV3Schema of the CRD (a fresh copy). */
export function tenantGatewaySchema(): Schema {
  const crd = tenantGatewayCrd() as unknown as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
  };
  return crd.spec.versions.find((v) => v.name === 'v1alpha1')!.schema.openAPIV3Schema;
}

/** The schema read once and shared by every validation here; never mutated. */
let sharedSchema: Schema | undefined;
function schema(): Schema {
  return (sharedSchema ??= tenantGatewaySchema());
}

/**
 * The validator of toJsonSchema(tenantGatewaySchema()), with the date-time format of status
 * conditions (src/validation/crdJsonSchema.ts), precompiled at build time by scripts/embed-assets.js (ajv
 * standalone code): no schema compile at run time.
 */
const ajvValidator = tenantGatewayValidator;

/** The object with the CRD's defaults applied (a copy), as the apiserver stores it. */
export function applyTenantGatewayDefaults<T extends KObject>(obj: T): T {
  return applyDefaults(clone(obj), schema()) as T;
}

const VOICE: CrdVoice = { schemaRule: 'tenantgateway.schema', celRule: 'tenantgateway.cel', kind: 'TenantGateway' };

/**
 * Validate a TenantGateway as the apiserver validates a CREATE: defaults, the openAPIV3Schema
 * (every violation, each naming its field path), the list-type semantics, then the CEL rules. Every failure is reported;
 * a rule that cannot be evaluated because the schema already failed (a value of the wrong type)
 * is not reported twice.
 */
export function validateTenantGateway(obj: KObject): Finding[] {
  const o = applyTenantGatewayDefaults(obj);
  const ref = refOf(obj);
  const findings: Finding[] = [];
  if (o.apiVersion !== 'gateway.cozystack.io/v1alpha1') {
    findings.push(
      error(`TenantGateway apiVersion must be gateway.cozystack.io/v1alpha1, got ${o.apiVersion}`, {
        rule: 'tenantgateway.schema',
        object: ref,
        field: 'apiVersion',
      }),
    );
  }
  const validate = ajvValidator();
  if (!validate(o))
    pushAll(findings, schemaFindings(validate.errors, explainCrdError, { rule: 'tenantgateway.schema', object: ref }));
  pushAll(findings, crdRuleFindings(o, schema(), obj, VOICE, findings.length > 0));
  return findings;
}
