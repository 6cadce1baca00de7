/**
 * Offline ValidatingAdmissionPolicy evaluation (docs/commands/admit.md "How a policy is
 * evaluated"): each object is judged as a CREATE by a given user against the policies it is given
 * (`render`'s, src/charts/policies.ts, or a state's), following the Kubernetes admission semantics
 * for ValidatingAdmissionPolicy:
 *
 * - a policy takes effect through a binding that names it (validationActions Deny denies, Warn
 *   warns, Audit only records);
 * - matchConstraints: resourceRules (apiGroups, apiVersions, resources, operations,
 *   resourceNames; `*` matches all), excludeResourceRules, namespaceSelector and objectSelector.
 *   The resource is the lowercase plural of the kind. Under matchPolicy Equivalent (the default) a
 *   rule's version also matches the other versions the cluster serves of the resource, the object
 *   converted to the version named (src/platform/gatewayApiVersions.ts); Exact matches as named;
 * - matchConditions, all evaluated: any false skips the policy; else an error applies
 *   failurePolicy;
 * - variables, each evaluated when an expression first reads it;
 * - validations: a false expression denies with messageExpression (falling back to message,
 *   then to "failed expression: ..."); an error applies failurePolicy (Fail denies);
 * - CEL cost as the API server bounds it (src/cel/cost.ts): one expression cancelled past the
 *   per-call limit, the expressions of one phase sharing one budget; a breach applies
 *   failurePolicy, in the API server's words.
 *
 * A Secret is judged with its data masked (judgedSecret, src/k8s/secretMasking.ts): whoever wrote
 * the policy, no message, error or verdict is built from key material.
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
import { CelError, evalBool, evalCel, toCel, type CostMeter } from '../cel/cel';
import { OUT_OF_BUDGET, RUNTIME_BUDGET } from '../cel/cost';
import { isNamespace, groupOf, isObject, refOf, type KObject } from '../k8s/model';
import { selectorMatches } from '../k8s/labelSelector';
import { judgedSecret } from '../k8s/secretMasking';
import { DEFAULT_GATEWAY_API_VERSION, servedVersions } from '../platform/gatewayApiVersions';
import type { Decision, UserInfo } from './decision';
import { pushAll } from '../k8s/arrays';

type Rule = {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  resourceNames?: string[];
};
type Named = { name: string; expression: string };
type Validation = { expression: string; message?: string; messageExpression?: string; reason?: string };

/** What admission is told beyond the objects and policies. */
export interface AdmitOptions {
  /** The Gateway API CRD bundle the cluster serves (matchPolicy Equivalent converts between its versions); default the platform's. */
  gatewayApiVersion?: string;
  /** What the evaluations spent in all, in CEL cost units (src/cel/cost.ts): each adds its own. */
  spent?: CostMeter;
}

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

/** What a rule is matched against: the request's group, version, resource, operation and the object's name. */
interface Target {
  group: string;
  version: string;
  resource: string;
  op: string;
  name: string;
}

function ruleMatches(r: Rule, t: Target, version = t.version): boolean {
  if (!isObject(r)) return false;
  if (!(has(r.apiGroups, t.group) && has(r.apiVersions, version) && has(r.resources, t.resource))) return false;
  if (!has(r.operations, t.op)) return false;
  // resourceNames, when given, name the objects the rule applies to.
  return !Array.isArray(r.resourceNames) || r.resourceNames.length === 0 || r.resourceNames.includes(t.name);
}

/** The versions of the cluster's Gateway API bundle, per resource (gatewayclasses are served as gateways are). */
const servedByBundle = new Map<string, Record<string, string[]>>();

/**
 * The other versions the cluster serves of a resource, which matchPolicy Equivalent matches
 * through: the Gateway API kinds of the bundle the cluster runs (src/platform/gatewayApiVersions.ts).
 * Every other kind the platform reaches is served at one version (core and RBAC kinds, cert-manager,
 * Flux, Cilium, the platform's own CRDs as vendored).
 */
function equivalentVersions(group: string, resource: string, bundle: string): readonly string[] {
  if (group !== 'gateway.networking.k8s.io') return [];
  let table = servedByBundle.get(bundle);
  if (!table) {
    const served = servedVersions(bundle);
    table = { ...served, gatewayclasses: served.gateways };
    servedByBundle.set(bundle, table);
  }
  return table[resource] ?? [];
}

/**
 * The version a policy's match constraints take the request at (docs/commands/admit.md
 * "matchPolicy"): its own when a rule names it; else, under matchPolicy Equivalent (the API
 * server's default), the first other version the cluster serves of the resource that a rule names,
 * the object converted to it; undefined when the policy does not apply (an exclude rule matching
 * either way wins).
 */
function matchedVersion(mc: Prepared['mc'], t: Target, bundle: string): string | undefined {
  const any = (rules: Rule[] | undefined, version: string) =>
    Array.isArray(rules) && rules.some((r) => ruleMatches(r, t, version));
  // Equivalent versions are those of a served resource: a version the cluster does not serve has none.
  const served = mc.matchPolicy === 'Exact' ? [] : equivalentVersions(t.group, t.resource, bundle);
  const others = served.length > 1 && served.includes(t.version) ? served.filter((v) => v !== t.version) : [];
  if (mc.excludeResourceRules !== undefined) {
    if (any(mc.excludeResourceRules, t.version) || others.some((v) => any(mc.excludeResourceRules, v)))
      return undefined;
  }
  if (any(mc.resourceRules, t.version)) return t.version;
  return others.find((v) => any(mc.resourceRules, v));
}

function errText(e: unknown): string {
  return e instanceof CelError ? e.message : e instanceof Error ? e.message : String(e);
}

/** The request as CEL sees it: `kind` and `resource` at the version the policy matched, `requestKind` and `requestResource` as asked. */
function requestCel(o: KObject, user: UserInfo, t: Target, matched: string): Record<string, unknown> {
  const namespace = o.metadata?.namespace ?? '';
  return {
    uid: '',
    kind: { group: t.group, version: matched, kind: o.kind },
    resource: { group: t.group, version: matched, resource: t.resource },
    subResource: '',
    requestKind: { group: t.group, version: t.version, kind: o.kind },
    requestResource: { group: t.group, version: t.version, resource: t.resource },
    requestSubResource: '',
    name: o.metadata?.name ?? '',
    namespace,
    operation: 'CREATE',
    userInfo: { username: user.username, uid: user.uid ?? '', groups: [...user.groups], extra: {} },
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  };
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
    matchPolicy?: unknown;
  };
  binds: KObject[];
  /** The well-formed entries of its lists (a hostile policy's others are not evaluated). */
  conditions: Named[];
  validations: Validation[];
  /** Its variables by name (the first of a name). */
  variables: Map<string, Named>;
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
      const spec = (isObject(vap.spec) ? vap.spec : {}) as Record<string, unknown>;
      const variables = new Map<string, Named>();
      for (const v of entries<Named>(spec.variables))
        if (typeof v.name === 'string' && !variables.has(v.name)) variables.set(v.name, v);
      return {
        vap,
        spec,
        mc: (isObject(spec.matchConstraints) ? spec.matchConstraints : {}) as Prepared['mc'],
        binds: bindings.filter((b) => isObject(b.spec) && b.spec.policyName === vap.metadata.name),
        conditions: entries<Named>(spec.matchConditions),
        validations: entries<Validation>(spec.validations),
        variables,
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

/** The decisions of one policy's bindings: `failures` the policy's, or the Namespace it could not read. */
function bindingDecisions(
  o: KObject,
  vap: KObject,
  binds: KObject[],
  result: { failures: Failure[] } | 'namespace-unknown',
): Decision[] {
  const namespace = o.metadata?.namespace ?? '';
  return binds.map((b): Decision => {
    const actions = ((b.spec as Record<string, unknown>).validationActions as string[] | undefined) ?? [];
    const object = refOf(o);
    const [policy, binding] = [vap.metadata.name, b.metadata.name];
    if (result === 'namespace-unknown') {
      const messages = [`the policy reads Namespace ${namespace}, which is not among the inputs`];
      return { object, policy, binding, actions, allowed: false, messages, missingNamespace: namespace };
    }
    const allowed = result.failures.length === 0 || !actions.includes('Deny');
    const messages = result.failures.map((f) => f.message);
    if (!result.failures.length) return { object, policy, binding, actions, allowed, messages };
    return { object, policy, binding, actions, allowed, messages, reason: result.failures[0].reason };
  });
}

/**
 * Judge one object, whose namespace is `nsObj` (undefined: not known), against every bound
 * policy: the decisions `admit` gives for it. The cheap match constraints are checked before any
 * CEL value is built, so an object no policy matches costs next to nothing. A Secret is judged
 * with its data masked (judgedSecret, docs/security.md): no policy's message, error or verdict is
 * built from key material.
 */
export function admitObject(
  o: KObject,
  nsObj: KObject | undefined,
  policies: readonly KObject[],
  user: UserInfo,
  opts: AdmitOptions = {},
): Decision[] {
  const out: Decision[] = [];
  const t: Target = {
    group: groupOf(o.apiVersion),
    version: versionOf(o.apiVersion),
    resource: resourceOf(o.kind),
    op: 'CREATE',
    name: o.metadata?.name ?? '',
  };
  const bundle = opts.gatewayApiVersion ?? DEFAULT_GATEWAY_API_VERSION;
  const namespace = o.metadata?.namespace ?? '';
  const labels = o.metadata?.labels ?? {};
  const nsLabels = nsObj?.metadata?.labels ?? {};
  // The activation at each version a policy matched (the object converted: a Gateway API kind's
  // versions differ by apiVersion alone, its CRDs convert with strategy None).
  const bases = new Map<string, Record<string, unknown>>();
  const baseAt = (matched: string) => {
    let base = bases.get(matched);
    if (!base) {
      const judged = judgedSecret(o);
      const converted = matched === t.version ? judged : { ...judged, apiVersion: `${t.group}/${matched}` };
      base = {
        object: toCel(converted),
        oldObject: null,
        request: toCel(requestCel(o, user, t, matched)),
        namespaceObject: nsObj ? namespaceCel(nsObj) : null,
        params: null,
        // A policy without variables (and every matchCondition) sees none.
        variables: {},
      };
      bases.set(matched, base);
    }
    return base;
  };
  for (const pp of prepare(policies)) {
    const { vap, mc, binds } = pp;
    const matched = matchedVersion(mc, t, bundle);
    if (matched === undefined) continue;
    if (!selectorMatches(mc.objectSelector, labels)) continue;
    // namespaceSelector applies to namespaced objects (and to a Namespace itself, by its labels).
    if (o.kind === 'Namespace' && !selectorMatches(mc.namespaceSelector, labels)) continue;
    // A namespaced object whose Namespace the inputs lack: its labels are unknown.
    const nsUnknown = namespace !== '' && o.kind !== 'Namespace' && !nsObj;
    if (namespace && !nsUnknown && !selectorMatches(mc.namespaceSelector, nsLabels)) continue;
    if (binds.length === 0) continue; // a policy without a binding has no effect
    const result =
      nsUnknown && isSelective(mc.namespaceSelector)
        ? 'namespace-unknown'
        : evaluatePolicy(pp, baseAt(matched), nsUnknown, opts.spent);
    if (result !== 'skip') pushAll(out, bindingDecisions(o, vap, binds, result));
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

/** The expressions of a list that are well formed (a hostile policy's other entries are not evaluated). */
function entries<T extends { expression: string }>(xs: unknown): T[] {
  return Array.isArray(xs) ? (xs.filter((x) => isObject(x) && typeof x.expression === 'string') as T[]) : [];
}

/** Thrown when a phase's expressions have spent its budget (OUT_OF_BUDGET). */
class OutOfBudget extends Error {}

/**
 * One phase of a policy evaluation (the API server's ForInput): its matchConditions, its
 * validations or its message expressions, sharing one cost budget (cost.ts). The variables an
 * expression reads are evaluated before it, once per phase, their cost charged with it (the API
 * server evaluates them lazily, as they are read).
 */
interface Phase {
  remaining: number;
  /** What the variables evaluated since the last expression's charge cost. */
  composed: CostMeter;
  /** The phase's variables (none for matchConditions, which cannot read them). */
  vars?: PhaseVariables;
  /** Where the caller adds up what every phase spent (AdmitOptions.spent). */
  spent?: CostMeter;
}

const newPhase = (budget = RUNTIME_BUDGET, spent?: CostMeter): Phase => ({
  remaining: budget,
  composed: { cost: 0 },
  spent,
});

/**
 * One expression of a phase, `f` evaluating it over `act`: its value or its error, its cost (and
 * the variables' it read) taken from the budget, as the API server charges it; throws OutOfBudget
 * past the budget.
 */
function evalIn<T>(
  phase: Phase,
  expression: string,
  f: (m: CostMeter) => T,
): { value: T; error?: undefined } | { error: string } {
  const m: CostMeter = { cost: 0 };
  let value: T | undefined;
  let error: string | undefined;
  const broken = phase.vars?.prepare(expression);
  try {
    value = f(m);
  } catch (e) {
    error = broken ?? errText(e);
  }
  const composed = phase.composed.cost;
  phase.composed.cost = 0;
  if (phase.spent) phase.spent.cost += composed + m.cost;
  if (composed > phase.remaining) throw new OutOfBudget(OUT_OF_BUDGET);
  phase.remaining -= composed;
  if (m.cost > phase.remaining) throw new OutOfBudget(OUT_OF_BUDGET);
  phase.remaining -= m.cost;
  return error === undefined ? { value: value as T } : { error };
}

/** The variables an expression names (`variables.x`, `variables.?x`, `variables['x']`), or 'all' where it reaches them otherwise. */
const referenceCache = new Map<string, ReadonlySet<string> | 'all'>();
const VARIABLE_REF = /\bvariables\b(\s*\.\??\s*([A-Za-z_][A-Za-z0-9_]*)|\s*\[\s*(['"])([^'"\\]*)\3\s*\])?/g;

function variableRefs(expression: string): ReadonlySet<string> | 'all' {
  let refs = referenceCache.get(expression);
  if (refs === undefined) {
    const names = new Set<string>();
    let all = false;
    for (const m of expression.matchAll(VARIABLE_REF)) {
      const name = m[2] ?? m[4];
      if (name === undefined) all = true;
      else names.add(name);
    }
    refs = all ? 'all' : names;
    referenceCache.set(expression, refs);
  }
  return refs;
}

/**
 * A policy's variables in one phase: each evaluated, with the per-call limit of its own and the
 * variables it names before it, when the first expression that names it is about to run (its cost
 * charged with that expression); a failed one fails, in the API server's words, the expressions
 * that read it.
 */
class PhaseVariables {
  readonly act: Record<string, unknown>;
  private readonly values: Record<string, unknown> = {};
  private failed: Map<string, string> | undefined;
  private readonly done = new Set<string>();

  constructor(
    private readonly byName: ReadonlyMap<string, Named>,
    base: Record<string, unknown>,
    private readonly phase: Phase,
  ) {
    this.act = { ...base, variables: this.values };
  }

  /** Evaluate the variables `expression` names; the error it gets if it fails reading a failed one. */
  prepare(expression: string): string | undefined {
    if (this.byName.size === 0) return undefined;
    const refs = variableRefs(expression);
    let broken: string | undefined;
    for (const n of refs === 'all' ? this.byName.keys() : refs) {
      if (!this.byName.has(n)) continue;
      this.evaluate(n);
      const e = this.failed?.get(n);
      if (e !== undefined) broken ??= `composited variable "${n}" fails to evaluate: ${e}`;
    }
    return broken;
  }

  private evaluate(name: string): void {
    if (this.done.has(name)) return;
    this.done.add(name);
    const v = this.byName.get(name)!;
    const broken = this.prepare(v.expression);
    try {
      if (broken !== undefined) throw new CelError(broken, v.expression);
      const value = evalCel(v.expression, this.act, this.phase.composed);
      // defineProperty for `__proto__`: it stays a key (an assignment would set the prototype).
      if (name === '__proto__')
        Object.defineProperty(this.values, name, { value, enumerable: true, writable: true, configurable: true });
      else this.values[name] = value;
    } catch (e) {
      (this.failed ??= new Map()).set(name, errText(e));
    }
  }
}

/** A phase whose expressions may read the policy's variables. */
function phaseWithVariables(pp: Prepared, base: Record<string, unknown>, spent?: CostMeter, budget?: number) {
  const phase = newPhase(budget, spent);
  if (pp.variables.size === 0) return { phase, act: base };
  phase.vars = new PhaseVariables(pp.variables, base, phase);
  return { phase, act: phase.vars.act };
}

/** The API server's bound on a message an expression builds (MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_BYTES = 5 * 1024;

/**
 * The matchConditions, evaluated all (one phase, one budget): any false skips the policy; else an
 * error, or the budget spent, applies failurePolicy (Fail: the errors deny, as the API server
 * aggregates them).
 */
function matchOutcome(pp: Prepared, base: Record<string, unknown>, spent?: CostMeter): 'match' | 'skip' | string {
  if (pp.conditions.length === 0) return 'match';
  const phase = newPhase(RUNTIME_BUDGET, spent);
  const act = base;
  const errors: string[] = [];
  let fals = false;
  try {
    for (const c of pp.conditions) {
      const r = evalIn(phase, c.expression, (m) => evalBool(c.expression, act, m));
      if ('error' in r) errors.push(`expression '${c.expression}' resulted in error: ${r.error}`);
      else if (!r.value) fals = true;
    }
  } catch (e) {
    if (e instanceof OutOfBudget) return OUT_OF_BUDGET;
    throw e;
  }
  if (fals) return 'skip';
  if (errors.length) return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
  return 'match';
}

/** A messageExpression's result as the API server takes it: a string, trimmed, of one line and at most 5 KiB; else none. */
function messageOf(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = v.trim();
  if (!m || m.includes('\n') || Buffer.byteLength(m, 'utf8') > MAX_MESSAGE_BYTES) return undefined;
  return m;
}

/**
 * The message expressions, evaluated all with what the validations left of the budget (one phase):
 * each one's message (undefined where it failed or gave none), or the error every validation gets
 * when the budget runs out (`failed messageExpression: ...`).
 */
function messagesOf(
  pp: Prepared,
  base: Record<string, unknown>,
  remaining: number,
  spent?: CostMeter,
): (string | undefined)[] | string {
  const { phase, act } = phaseWithVariables(pp, base, spent, remaining);
  const out: (string | undefined)[] = [];
  try {
    for (const v of pp.validations) {
      const expr = v.messageExpression;
      const r = typeof expr === 'string' && expr ? evalIn(phase, expr, (m) => evalCel(expr, act, m)) : undefined;
      out.push(r && !('error' in r) ? messageOf(r.value) : undefined);
    }
  } catch (e) {
    if (e instanceof OutOfBudget) return `failed messageExpression: ${OUT_OF_BUDGET}`;
    throw e;
  }
  return out;
}

/**
 * The validations (one phase, one budget): each one's outcome, or the budget spent (OutOfBudget).
 */
function validationResults(pp: Prepared, base: Record<string, unknown>, spent?: CostMeter) {
  const { phase, act } = phaseWithVariables(pp, base, spent);
  const results: ({ ok: boolean } | { error: string })[] = [];
  for (const v of pp.validations) {
    const r = evalIn(phase, v.expression, (m) => evalBool(v.expression, act, m));
    results.push(
      'error' in r ? { error: `expression '${v.expression}' resulted in error: ${r.error}` } : { ok: r.value },
    );
  }
  return { results, remaining: phase.remaining };
}

/**
 * One policy against one object, as the API server evaluates it (docs/commands/admit.md "CEL
 * cost"): the matchConditions, then the validations (one budget, the variables evaluated as they
 * are read), then the message expressions with what is left (cost.ts: each expression cancelled
 * past the per-call limit). An error, a cancellation or a spent budget applies failurePolicy: Fail
 * denies with the API server's words, Ignore admits. The message expressions are evaluated where a
 * validation fails (the API server evaluates them where all pass too, to no effect but on a
 * budget they would spend). `nsUnknown`: the object's Namespace is not among the inputs; the
 * matchConditions that do not read it still decide whether the policy applies, and a policy that
 * applies and reads it is 'namespace-unknown' (never judged against a null Namespace).
 */
function evaluatePolicy(
  pp: Prepared,
  base: Record<string, unknown>,
  nsUnknown: boolean,
  spent: CostMeter | undefined,
): 'skip' | 'namespace-unknown' | { failures: Failure[] } {
  const spec = pp.spec;
  const failClosed = (spec.failurePolicy ?? 'Fail') !== 'Ignore';
  const fail = (message: string): 'skip' | { failures: Failure[] } =>
    failClosed ? { failures: [{ message, reason: 'Forbidden' }] } : 'skip';
  if (nsUnknown && readsNamespace(spec.matchConditions)) return 'namespace-unknown';
  const matched = matchOutcome(pp, base, spent);
  if (matched === 'skip') return 'skip';
  if (matched !== 'match') return fail(matched);
  if (nsUnknown && (readsNamespace(spec.variables) || readsNamespace(spec.validations))) return 'namespace-unknown';
  let judged: ReturnType<typeof validationResults>;
  try {
    judged = validationResults(pp, base, spent);
  } catch (e) {
    if (e instanceof OutOfBudget) return fail(OUT_OF_BUDGET);
    throw e;
  }
  const { results } = judged;
  if (results.every((r) => 'ok' in r && r.ok)) return { failures: [] };
  const messages = messagesOf(pp, base, judged.remaining, spent);
  const failures: Failure[] = [];
  pp.validations.forEach((v, i) => {
    const reason = typeof v.reason === 'string' && v.reason ? v.reason : 'Invalid';
    const r = results[i];
    if ('error' in r || typeof messages === 'string') {
      if (failClosed) failures.push({ message: 'error' in r ? r.error : (messages as string), reason });
    } else if (!r.ok) {
      const fallback = typeof v.message === 'string' ? v.message.trim() : '';
      failures.push({ message: messages[i] ?? (fallback || `failed expression: ${v.expression.trim()}`), reason });
    }
  });
  return { failures };
}
