/**
 * What the API server writes into an object it stores where a field is absent (docs/commands/diff.md
 * "A live snapshot is compared as it will be applied"): the schema's defaults (a CRD's, and the
 * Gateway API's, applySchema.ts), and the built-in kinds' defaulting the platform's objects meet:
 * a Secret's type, a Namespace's name label, a Service's type, session affinity and ports, a
 * binding's subject API group, an admission policy's failure and match policy, selectors and rule
 * scope, a NetworkPolicy's policy types and port protocol, a LimitRange's container defaults. A
 * list server-side apply replaces whole is written again by the applier, and defaulted again, so
 * that what the server added inside it before is added again, not taken for a change. Pure.
 */
import { clone, deepEqual, groupOf, isObject, type KObject } from '../k8s/model';
import { applyDefaults } from './crdRules';
import type { ApplySchema } from './applySchema';

type Obj = Record<string, unknown>;

const objects = (x: unknown): Obj[] => (Array.isArray(x) ? x.filter(isObject) : []);
const child = (o: Obj, k: string): Obj | undefined => (isObject(o[k]) ? o[k] : undefined);

/** A rule of admission's match (NamedRuleWithOperations): every scope unless given. */
function matchResources(m: Obj | undefined): void {
  if (!m) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of [...objects(m.resourceRules), ...objects(m.excludeResourceRules)]) r.scope ??= '*';
}

function service(spec: Obj): void {
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  for (const p of objects(spec.ports)) {
    p.protocol ??= 'TCP';
    if ((p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') && p.port !== undefined)
      p.targetPort = p.port;
  }
}

function networkPolicy(spec: Obj): void {
  if (spec.policyTypes === undefined)
    spec.policyTypes = objects(spec.egress).length ? ['Ingress', 'Egress'] : ['Ingress'];
  for (const rule of [...objects(spec.ingress), ...objects(spec.egress)])
    for (const p of objects(rule.ports)) p.protocol ??= 'TCP';
}

/** A container limit: its default from max, its default request from default, then min. */
function limitRange(spec: Obj): void {
  for (const l of objects(spec.limits)) {
    if (l.type !== 'Container') continue;
    const d: Obj = { ...(child(l, 'default') ?? {}) };
    const r: Obj = { ...(child(l, 'defaultRequest') ?? {}) };
    for (const [k, v] of Object.entries(child(l, 'max') ?? {})) d[k] ??= v;
    for (const [k, v] of Object.entries(d)) r[k] ??= v;
    for (const [k, v] of Object.entries(child(l, 'min') ?? {})) r[k] ??= v;
    if (Object.keys(d).length || l.default !== undefined) l.default = d;
    if (Object.keys(r).length || l.defaultRequest !== undefined) l.defaultRequest = r;
  }
}

/** The built-in defaulting of one object, in place. */
function builtIn(o: KObject & Obj): void {
  const spec = child(o, 'spec');
  switch (`${groupOf(o.apiVersion)}/${o.kind}`) {
    case '/Secret':
      o.type ??= 'Opaque';
      break;
    case '/Namespace':
      o.metadata.labels = { ...(o.metadata.labels ?? {}), 'kubernetes.io/metadata.name': o.metadata.name };
      break;
    case '/Service':
      if (spec) service(spec);
      break;
    case 'rbac.authorization.k8s.io/RoleBinding':
    case 'rbac.authorization.k8s.io/ClusterRoleBinding':
      for (const s of objects(o.subjects))
        if (s.kind === 'User' || s.kind === 'Group') s.apiGroup ??= 'rbac.authorization.k8s.io';
      break;
    case 'admissionregistration.k8s.io/ValidatingAdmissionPolicy':
      if (spec) {
        spec.failurePolicy ??= 'Fail';
        matchResources(child(spec, 'matchConstraints'));
      }
      break;
    case 'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding':
      if (spec) matchResources(child(spec, 'matchResources'));
      break;
    case 'networking.k8s.io/NetworkPolicy':
      if (spec) networkPolicy(spec);
      break;
    case '/LimitRange':
      if (spec) limitRange(spec);
      break;
  }
}

/**
 * A copy of the object that defaulting may write into: every member copied but its status and its
 * managedFields (which defaulting never writes), shared with the object.
 */
function writable(o: KObject): KObject & Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'metadata' && isObject(v)) {
      const metadata: Obj = {};
      for (const [m, x] of Object.entries(v)) metadata[m] = m === 'managedFields' ? x : clone(x);
      out[k] = metadata;
    } else out[k] = k === 'status' ? v : clone(v);
  }
  return out as KObject & Obj;
}

/**
 * The object as the API server stores it: its defaults written where absent; the object itself
 * when it has them all. `schema` is the kind's apply schema (no `status`: defaulting of what
 * server-side apply writes never touches the status).
 */
export function withServerDefaults(o: KObject, schema: ApplySchema): KObject {
  const out = writable(o);
  applyDefaults(out, schema as Obj);
  builtIn(out);
  return deepEqual(out, o) ? o : out;
}
