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

type Path = (string | number)[];

/** Where the findings of one object go: the object, whose rules, and the list they are added to. */
interface Judged {
  obj: KObject;
  voice: CrdVoice;
  out: Finding[];
  /** The findings of rules that could not be evaluated (moot where the schema refused the object). */
  unevaluated: Set<Finding>;
}

/**
 * The rules beyond the structural schema over an object: its list-type findings, then those of
 * its CEL rules. `schemaFailed`: the structural schema refused it; then (as when a list-type
 * rule refuses it) a CEL rule that could not be evaluated over it is moot and left out.
 */
export function crdRuleFindings(
  value: unknown,
  s: Schema,
  obj: KObject,
  voice: CrdVoice,
  schemaFailed: boolean,
): Finding[] {
  const lists: Judged = { obj, voice, out: [], unevaluated: new Set() };
  forEachNode(value, s, [], (v, ns, p) => listTypeNode(v, ns, p, lists));
  const cel: Judged = { obj, voice, out: [], unevaluated: new Set() };
  forEachNode(value, s, [], (v, ns, p) => celNode(v, ns, p, cel));
  const moot = schemaFailed || lists.out.length > 0;
  return lists.out.concat(moot ? cel.out.filter((f) => !cel.unevaluated.has(f)) : cel.out);
}

/** Every present node (not undefined, not null) with its schema and path, each before its children. */
function forEachNode(
  value: unknown,
  s: Schema,
  path: Path,
  visit: (value: unknown, s: Schema, path: Path) => void,
): void {
  if (value === undefined || value === null) return;
  visit(value, s, path);
  if (isObject(value) && isObject(s.properties)) {
    for (const [k, ps] of Object.entries(s.properties as Record<string, Schema>))
      forEachNode(value[k], ps, [...path, k], visit);
  } else if (Array.isArray(value) && isObject(s.items)) {
    value.forEach((x, i) => forEachNode(x, s.items as Schema, [...path, i], visit));
  }
}

/** Every x-kubernetes-validations rule on a node, with `self` = that node. */
function celNode(value: unknown, s: Schema, path: Path, { obj, voice, out, unevaluated }: Judged): void {
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
        const f = error(`rule ${r.rule} could not be evaluated: ${m}`, {
          rule: voice.celRule,
          object: refOf(obj),
          field: fieldOf(path),
        });
        out.push(f);
        unevaluated.add(f);
      }
    }
  }
}

/**
 * The list-type semantics of a structural schema (for the TenantGateway, docs/behaviour.md §4:
 * tlsPassthroughListeners is a list-map keyed by `name`; status conditions by `type`, status
 * listeners by `name`): the apiserver refuses two items of a `map` list with the same key values,
 * and two equal items of a `set` list, as `Duplicate value`. ajv knows neither keyword, so they are
 * checked here.
 */
function listTypeNode(value: unknown, s: Schema, path: Path, { obj, voice, out }: Judged): void {
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
}
