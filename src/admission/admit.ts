/**
 * Offline ValidatingAdmissionPolicy evaluation (docs/commands/admit.md): each object is
 * judged as a CREATE by a given user against the policies `render` emits (src/charts/policies.ts),
 * following the Kubernetes admission semantics for ValidatingAdmissionPolicy:
 *
 * - a policy takes effect through a binding that names it (validationActions Deny denies, Warn
 *   warns, Audit only records);
 * - matchConstraints: resourceRules (apiGroups, apiVersions, resources, operations; `*` matches
 *   all), excludeResourceRules, namespaceSelector and objectSelector. The resource is the
 *   lowercase plural of the kind. A rule's versions match exactly, and under matchPolicy
 *   `Equivalent` (the default) a Gateway API resource's version also matches a rule listing another
 *   version the CRD bundle (`gatewayApiVersion`) serves of it, as the API server converts between
 *   them (docs/versions.md §X5: a TLSRoute written as v1 is judged by a rule for v1alpha2); a
 *   version the bundle does not serve never reaches admission, so it matches nothing else;
 * - matchConditions in order: any false skips the policy; an error applies failurePolicy;
 * - variables, each visible to the later ones as `variables.<name>`;
 * - validations: a false expression denies with messageExpression (falling back to message,
 *   then to "failed expression: ..."); an error applies failurePolicy (Fail denies).
 *
 * The activation: `object`, `oldObject` (null: CREATE), `request` (kind, resource, name,
 * namespace, operation, userInfo, ...), `namespaceObject` (the input Namespace named by the
 * request namespace), `params` (null) and `variables`.
 *
 * The API server always judges a namespaced object with its Namespace. Offline, a namespaced
 * object whose Namespace is not among the inputs has unknown labels: a policy that needs them (a
 * namespaceSelector, or an expression reading `namespaceObject`, once the matchConditions that do
 * not read it have passed) is never evaluated against a null Namespace, which would fail open or
 * deny for the wrong reason. Its decision is not allowed and names the missing Namespace
 * (`missingNamespace`): the caller reports it as an input error, never as an admission.
 * Pure: objects and policies in, decisions out.
 */
import { CelError, evalBool, evalCel, evalString, toCel } from '../cel/cel';
import { isNamespace, groupOf, isObject, refOf, type KObject } from '../k8s/model';
import { selectorMatches } from '../k8s/labelSelector';
import { servedEquivalent } from '../k8s/gatewayApi';
import { GROUPS } from '../k8s/store';
import type { Decision, UserInfo } from './decision';
import { pushAll } from '../k8s/arrays';

type Rule = { apiGroups?: string[]; apiVersions?: string[]; resources?: string[]; operations?: string[] };
type Named = { name: string; expression: string };
type Validation = { expression: string; message?: string; messageExpression?: string; reason?: string };

/** The lowercase plural resource of a kind, as the REST mapper names it. */
export function resourceOf(kind: string): string {
  const k = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

function versionOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? apiVersion : apiVersion.slice(i + 1);
}

const has = (list: string[] | undefined, v: string) => (list ?? []).some((x) => x === '*' || x === v);

/** Options of an admission run. */
export interface AdmitOptions {
  /** The Gateway API CRD bundle whose served versions are equivalent under matchPolicy Equivalent; default the platform's. */
  gatewayApiVersion?: string;
}

/**
 * Whether a rule matches. `equivalent` (matchPolicy Equivalent): a Gateway API resource in another
 * version the bundle serves matches too (servedEquivalent).
 */
function ruleMatches(
  r: Rule,
  req: { group: string; version: string; resource: string; op: string },
  equivalent: boolean,
  opts: AdmitOptions,
): boolean {
  if (!has(r.apiGroups, req.group) || !has(r.resources, req.resource) || !has(r.operations, req.op)) return false;
  if (has(r.apiVersions, req.version)) return true;
  return (
    equivalent &&
    req.group === GROUPS.gateway &&
    servedEquivalent(req.resource, req.version, r.apiVersions ?? [], opts.gatewayApiVersion) === true
  );
}

function errText(e: unknown): string {
  return e instanceof CelError ? e.message : e instanceof Error ? e.message : String(e);
}

interface Request {
  group: string;
  version: string;
  resource: string;
  namespace: string;
  operation: 'CREATE';
}

function buildRequest(o: KObject, user: UserInfo): { req: Request; cel: Record<string, unknown> } {
  const group = groupOf(o.apiVersion);
  const version = versionOf(o.apiVersion);
  const resource = resourceOf(o.kind);
  const namespace = o.metadata?.namespace ?? '';
  const gvk = { group, version, kind: o.kind };
  const gvr = { group, version, resource };
  const cel = {
    uid: '',
    kind: gvk,
    resource: gvr,
    subResource: '',
    requestKind: gvk,
    requestResource: gvr,
    requestSubResource: '',
    name: o.metadata?.name ?? '',
    namespace,
    operation: 'CREATE',
    userInfo: { username: user.username, uid: user.uid ?? '', groups: [...user.groups], extra: {} },
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  };
  return { req: { group, version, resource, namespace, operation: 'CREATE' }, cel };
}

/** A policy with its bindings, read once per policy set. */
interface Prepared {
  vap: KObject;
  spec: Record<string, unknown>;
  mc: {
    resourceRules?: Rule[];
    excludeResourceRules?: Rule[];
    namespaceSelector?: unknown;
    objectSelector?: unknown;
    matchPolicy?: string;
  };
  binds: KObject[];
}

/** Prepared policy sets by the array they came from (for speed: the controller judges every write against the same set). */
const preparedSets = new WeakMap<readonly KObject[], Prepared[]>();

function prepare(policies: readonly KObject[]): Prepared[] {
  let out = preparedSets.get(policies);
  if (out) return out;
  const bindings = policies.filter((p) => p.kind === 'ValidatingAdmissionPolicyBinding');
  out = policies
    .filter((p) => p.kind === 'ValidatingAdmissionPolicy')
    .map((vap) => {
      const spec = (vap.spec ?? {}) as Record<string, unknown>;
      return {
        vap,
        spec,
        mc: (spec.matchConstraints ?? {}) as Prepared['mc'],
        binds: bindings.filter((b) => isObject(b.spec) && b.spec.policyName === vap.metadata.name),
      };
    });
  preparedSets.set(policies, out);
  return out;
}

/** CEL values of Namespaces by object: a namespaceObject is the same for every write into it (objects are never mutated). */
const celNamespaces = new WeakMap<KObject, unknown>();

function namespaceCel(ns: KObject): unknown {
  let v = celNamespaces.get(ns);
  if (v === undefined) celNamespaces.set(ns, (v = toCel(ns)));
  return v;
}

/**
 * Judge every object against every bound policy. One Decision per (object, policy) that
 * matched, in object order then policy order; allowed=false for a denial (Deny action).
 */
export function admit(objects: KObject[], policies: KObject[], user: UserInfo, opts: AdmitOptions = {}): Decision[] {
  const namespaces = new Map<string, KObject>();
  for (const o of objects) if (isNamespace(o)) namespaces.set(o.metadata.name, o);
  const out: Decision[] = [];
  for (const o of objects) {
    const ns = o.metadata?.namespace;
    pushAll(out, admitObject(o, ns ? namespaces.get(ns) : undefined, policies, user, opts));
  }
  return out;
}

/**
 * Judge one object, whose namespace is `nsObj` (undefined: not known), against every bound
 * policy: the decisions `admit` gives for it. The cheap match constraints are checked before any
 * CEL value is built, so an object no policy matches costs next to nothing.
 */
export function admitObject(
  o: KObject,
  nsObj: KObject | undefined,
  policies: readonly KObject[],
  user: UserInfo,
  opts: AdmitOptions = {},
): Decision[] {
  const out: Decision[] = [];
  const group = groupOf(o.apiVersion);
  const version = versionOf(o.apiVersion);
  const resource = resourceOf(o.kind);
  const operation = 'CREATE';
  const req = { group, version, resource, op: operation };
  const namespace = o.metadata?.namespace ?? '';
  const labels = o.metadata?.labels ?? {};
  const nsLabels = nsObj?.metadata?.labels ?? {};
  let base: Record<string, unknown> | undefined;
  for (const { vap, spec, mc, binds } of prepare(policies)) {
    const eq = (mc.matchPolicy ?? 'Equivalent') === 'Equivalent';
    if (!(mc.resourceRules ?? []).some((r) => ruleMatches(r, req, eq, opts))) continue;
    if ((mc.excludeResourceRules ?? []).some((r) => ruleMatches(r, req, eq, opts))) continue;
    if (!selectorMatches(mc.objectSelector, labels)) continue;
    // namespaceSelector applies to namespaced objects (and to a Namespace itself, by its labels).
    if (o.kind === 'Namespace' && !selectorMatches(mc.namespaceSelector, labels)) continue;
    // A namespaced object whose Namespace the inputs lack: its labels are unknown.
    const nsUnknown = namespace !== '' && o.kind !== 'Namespace' && !nsObj;
    if (namespace && !nsUnknown && !selectorMatches(mc.namespaceSelector, nsLabels)) continue;
    if (binds.length === 0) continue; // a policy without a binding has no effect
    base ??= {
      object: toCel(o),
      oldObject: null,
      request: toCel(buildRequest(o, user).cel),
      namespaceObject: nsObj ? namespaceCel(nsObj) : null,
      params: null,
    };
    const result =
      nsUnknown && isSelective(mc.namespaceSelector) ? 'namespace-unknown' : evaluatePolicy(spec, base, nsUnknown);
    if (result === 'skip') continue;
    if (result === 'namespace-unknown') {
      for (const b of binds)
        out.push({
          object: refOf(o),
          policy: vap.metadata.name,
          binding: b.metadata.name,
          actions: ((b.spec as Record<string, unknown>).validationActions as string[] | undefined) ?? [],
          allowed: false,
          messages: [`the policy reads Namespace ${namespace}, which is not among the inputs`],
          missingNamespace: namespace,
        });
      continue;
    }
    for (const b of binds) {
      const actions = ((b.spec as Record<string, unknown>).validationActions as string[] | undefined) ?? [];
      out.push({
        object: refOf(o),
        policy: vap.metadata.name,
        binding: b.metadata.name,
        actions,
        allowed: result.failures.length === 0 || !actions.includes('Deny'),
        messages: result.failures.map((f) => f.message),
        ...(result.failures.length ? { reason: result.failures[0].reason } : {}),
      });
    }
  }
  return out;
}

interface Failure {
  message: string;
  reason: string;
}

/** A namespaceSelector that selects (not absent, not empty): matching it needs the Namespace's labels. */
function isSelective(sel: unknown): boolean {
  if (!isObject(sel)) return sel !== undefined && sel !== null;
  const labels = isObject(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0;
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0;
  return labels + exprs > 0;
}

const READS_NAMESPACE = /\bnamespaceObject\b/;

/** Whether any expression of the list (or its message expression) reads namespaceObject. */
function readsNamespace(xs: unknown): boolean {
  if (!Array.isArray(xs)) return false;
  return xs.some(
    (x) =>
      isObject(x) &&
      ((typeof x.expression === 'string' && READS_NAMESPACE.test(x.expression)) ||
        (typeof x.messageExpression === 'string' && READS_NAMESPACE.test(x.messageExpression))),
  );
}

/**
 * One policy against one object. `nsUnknown`: the object's Namespace is not among the inputs; the
 * matchConditions that do not read it still decide whether the policy applies, and a policy that
 * applies and reads it is 'namespace-unknown' (never judged against a null Namespace).
 */
function evaluatePolicy(
  spec: Record<string, unknown>,
  base: Record<string, unknown>,
  nsUnknown = false,
): 'skip' | 'namespace-unknown' | { failures: Failure[] } {
  const failClosed = (spec.failurePolicy ?? 'Fail') === 'Fail';
  const fail = (message: string): 'skip' | { failures: Failure[] } =>
    failClosed ? { failures: [{ message, reason: 'Forbidden' }] } : 'skip';
  const conditions = (spec.matchConditions ?? []) as Named[];
  if (nsUnknown && readsNamespace(conditions)) return 'namespace-unknown';
  // matchConditions: all must be true; false skips; an error applies failurePolicy.
  for (const c of conditions) {
    try {
      if (!evalBool(c.expression, { ...base, variables: {} })) return 'skip';
    } catch (e) {
      return fail(`matchCondition '${c.name}' resulted in error: ${errText(e)}`);
    }
  }
  if (nsUnknown && (readsNamespace(spec.variables) || readsNamespace(spec.validations))) return 'namespace-unknown';
  // variables, in order; a failed one is an error wherever a later expression reads it.
  const variables: Record<string, unknown> = {};
  const failedVars = new Map<string, string>();
  for (const v of (spec.variables ?? []) as Named[]) {
    try {
      variables[v.name] = evalCel(v.expression, { ...base, variables });
    } catch (e) {
      failedVars.set(v.name, errText(e));
    }
  }
  const act = { ...base, variables };
  const failures: Failure[] = [];
  for (const val of (spec.validations ?? []) as Validation[]) {
    const reason = val.reason ?? 'Invalid';
    const broken = [...failedVars.entries()].find(([n]) => new RegExp(`\\bvariables\\.${n}\\b`).test(val.expression));
    let ok: boolean;
    try {
      if (broken) throw new CelError(`variable '${broken[0]}' resulted in error: ${broken[1]}`, val.expression);
      ok = evalBool(val.expression, act);
    } catch (e) {
      if (failClosed)
        failures.push({ message: `expression '${val.expression}' resulted in error: ${errText(e)}`, reason });
      continue;
    }
    if (ok) continue;
    let message = '';
    if (val.messageExpression) {
      try {
        message = evalString(val.messageExpression, act).trim();
      } catch {
        message = '';
      }
    }
    if (!message) message = val.message ?? `failed expression: ${val.expression}`;
    failures.push({ message, reason });
  }
  return { failures };
}
