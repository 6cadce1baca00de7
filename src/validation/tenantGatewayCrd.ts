/**
 * The TenantGateway CRD (schemas/tenantgateway.crd.yaml, docs/behaviour.md §4) applied offline, as
 * the apiserver applies it to a write: defaults first, then the structural schema (with ajv),
 * then the x-kubernetes-validations CEL rules (with src/cel/cel.ts; `self` is the node the rule sits
 * on). Ratcheting does not apply: every object is judged as a CREATE.
 */
import { asset } from '../assets';
import { CelError, evalBool, evalString, toCel } from '../cel/cel';
import { error, type Finding } from '../k8s/diagnostics';
import { clone, isObject, refOf, type KObject } from '../k8s/model';
import { tenantGatewayValidator } from './validators.generated';
import { explainCrdError, fieldOf, schemaFindings } from './ajvErrors';

export { toJsonSchema } from './crdJsonSchema';

export const CRD_FILE = 'schemas/tenantgateway.crd.yaml';

type Schema = Record<string, unknown>;

interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
}

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

/** CRD defaults (`default:` in the schema) applied to absent fields of present objects, recursively. */
export function applyDefaults(value: unknown, s: Schema): unknown {
  if (isObject(value) && isObject(s.properties)) {
    for (const [k, ps] of Object.entries(s.properties as Record<string, Schema>)) {
      if (value[k] === undefined && ps.default !== undefined) value[k] = clone(ps.default);
      if (value[k] !== undefined) value[k] = applyDefaults(value[k], ps);
    }
  } else if (Array.isArray(value) && isObject(s.items)) {
    for (let i = 0; i < value.length; i++) value[i] = applyDefaults(value[i], s.items as Schema);
  }
  return value;
}

/** The object with the CRD's defaults applied (a copy), as the apiserver stores it. */
export function applyTenantGatewayDefaults<T extends KObject>(obj: T): T {
  return applyDefaults(clone(obj), schema()) as T;
}

/** Every x-kubernetes-validations rule on a node that is present, with `self` = that node. */
function celFindings(value: unknown, s: Schema, path: (string | number)[], obj: KObject, out: Finding[]): void {
  if (value === undefined || value === null) return;
  const rules = (s['x-kubernetes-validations'] ?? []) as CelRule[];
  if (rules.length) {
    const act = { self: toCel(value) };
    for (const r of rules) {
      const field = fieldOf(path) + (r.fieldPath ?? '');
      try {
        if (evalBool(r.rule, act)) continue;
        let message = r.message ?? `failed rule: ${r.rule}`;
        if (r.messageExpression) {
          try {
            message = evalString(r.messageExpression, act);
          } catch {
            // Kubernetes falls back to message (or the rule) when messageExpression fails.
          }
        }
        out.push(
          error(message, {
            rule: 'tenantgateway.cel',
            object: refOf(obj),
            field: field.replace(/^\./, ''),
            hint: `the TenantGateway CRD rule ${r.rule} refuses it: change ${field.replace(/^\./, '') || 'the object'} so the rule holds`,
          }),
        );
      } catch (e) {
        const m = e instanceof CelError ? e.message : String(e);
        out.push(
          error(`rule ${r.rule} could not be evaluated: ${m}`, {
            rule: 'tenantgateway.cel',
            object: refOf(obj),
            field: fieldOf(path),
          }),
        );
      }
    }
  }
  if (isObject(value) && isObject(s.properties)) {
    for (const [k, ps] of Object.entries(s.properties as Record<string, Schema>))
      celFindings(value[k], ps, [...path, k], obj, out);
  } else if (Array.isArray(value) && isObject(s.items)) {
    value.forEach((x, i) => celFindings(x, s.items as Schema, [...path, i], obj, out));
  }
}

/**
 * The list-type semantics of the structural schema (docs/behaviour.md §4: tlsPassthroughListeners
 * is a list-map keyed by `name`; status conditions by `type`, status listeners by `name`): the
 * apiserver refuses two items of a `map` list with the same key values, and two equal items of a
 * `set` list, as `Duplicate value`. ajv knows neither keyword, so they are checked here.
 */
function listTypeFindings(value: unknown, s: Schema, path: (string | number)[], obj: KObject, out: Finding[]): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    const type = s['x-kubernetes-list-type'];
    const keys = (s['x-kubernetes-list-map-keys'] ?? []) as string[];
    if (type === 'map' || type === 'set') {
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const id = type === 'map' ? (isObject(item) ? Object.fromEntries(keys.map((k) => [k, item[k]])) : item) : item;
        const key = JSON.stringify(id);
        if (type === 'map' && isObject(item) && keys.some((k) => item[k] === undefined)) return; // a missing key is the schema's "Required value"
        if (seen.has(key)) {
          const field = fieldOf([...path, i]);
          out.push(
            error(`Duplicate value: ${key}`, {
              rule: 'tenantgateway.schema',
              object: refOf(obj),
              field,
              hint:
                type === 'map'
                  ? `${fieldOf(path)} is a list-map keyed by ${keys.join(', ')}: give each item its own ${keys.join(' and ')}`
                  : `${fieldOf(path)} is a set: remove the repeated item`,
            }),
          );
        }
        seen.add(key);
      });
    }
    if (isObject(s.items)) value.forEach((x, i) => listTypeFindings(x, s.items as Schema, [...path, i], obj, out));
  } else if (isObject(value) && isObject(s.properties)) {
    for (const [k, ps] of Object.entries(s.properties as Record<string, Schema>))
      listTypeFindings(value[k], ps, [...path, k], obj, out);
  }
}

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
    findings.push(...schemaFindings(validate.errors, explainCrdError, { rule: 'tenantgateway.schema', object: ref }));
  listTypeFindings(o, schema(), [], obj, findings);
  const cel: Finding[] = [];
  celFindings(o, schema(), [], obj, cel);
  const schemaFailed = findings.length > 0;
  findings.push(...cel.filter((f) => !(schemaFailed && f.message.includes('could not be evaluated'))));
  return findings;
}
