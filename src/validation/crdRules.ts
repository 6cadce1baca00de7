/**
 * What the apiserver applies to a write of a custom resource beyond its structural schema, for any
 * CRD cozy-gw knows (its own TenantGateway, docs/behaviour.md §4, and the vendored upstream CRDs of
 * src/validation/publishedSchemas.ts): the schema's defaults, the list-type semantics
 * (`x-kubernetes-list-type` map and set) and the `x-kubernetes-validations` CEL rules (with
 * src/cel/cel.ts; `self` is the node the rule sits on). Ratcheting does not apply: every object is
 * judged as a CREATE. Pure.
 */
import { CelError, evalBool, evalString, toCel } from '../cel/cel';
import { error, type Finding } from '../k8s/diagnostics';
import { clone, isObject, refOf, type KObject } from '../k8s/model';
import { fieldOf } from './ajvErrors';

type Schema = Record<string, unknown>;

interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
}

/** Whose rules these are: the finding rules to report under, and the CRD's kind for hints. */
export interface CrdVoice {
  /** e.g. `tenantgateway.schema` */
  schemaRule: string;
  /** e.g. `tenantgateway.cel` */
  celRule: string;
  /** e.g. `TenantGateway` */
  kind: string;
}

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

/** Every x-kubernetes-validations rule on a node that is present, with `self` = that node. */
export function celFindings(
  value: unknown,
  s: Schema,
  path: (string | number)[],
  obj: KObject,
  out: Finding[],
  voice: CrdVoice,
): void {
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
            rule: voice.celRule,
            object: refOf(obj),
            field: field.replace(/^\./, ''),
            hint: `the ${voice.kind} CRD rule ${r.rule} refuses it: change ${field.replace(/^\./, '') || 'the object'} so the rule holds`,
          }),
        );
      } catch (e) {
        const m = e instanceof CelError ? e.message : String(e);
        out.push(
          error(`rule ${r.rule} could not be evaluated: ${m}`, {
            rule: voice.celRule,
            object: refOf(obj),
            field: fieldOf(path),
          }),
        );
      }
    }
  }
  forEachChild(value, s, path, (v, cs, p) => celFindings(v, cs, p, obj, out, voice));
}

/** Each child of a node with its schema and path: an object's properties, a list's items. */
function forEachChild(
  value: unknown,
  s: Schema,
  path: (string | number)[],
  visit: (value: unknown, s: Schema, path: (string | number)[]) => void,
): void {
  if (isObject(value) && isObject(s.properties)) {
    for (const [k, ps] of Object.entries(s.properties as Record<string, Schema>)) visit(value[k], ps, [...path, k]);
  } else if (Array.isArray(value) && isObject(s.items)) {
    value.forEach((x, i) => visit(x, s.items as Schema, [...path, i]));
  }
}

/**
 * The list-type semantics of a structural schema (for the TenantGateway, docs/behaviour.md §4:
 * tlsPassthroughListeners is a list-map keyed by `name`; status conditions by `type`, status
 * listeners by `name`): the apiserver refuses two items of a `map` list with the same key values,
 * and two equal items of a `set` list, as `Duplicate value`. ajv knows neither keyword, so they are
 * checked here.
 */
export function listTypeFindings(
  value: unknown,
  s: Schema,
  path: (string | number)[],
  obj: KObject,
  out: Finding[],
  voice: CrdVoice,
): void {
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
              rule: voice.schemaRule,
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
  }
  forEachChild(value, s, path, (v, cs, p) => listTypeFindings(v, cs, p, obj, out, voice));
}
