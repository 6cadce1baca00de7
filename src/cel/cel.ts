/**
 * CEL as Kubernetes evaluates it (ValidatingAdmissionPolicy expressions and CRD
 * x-kubernetes-validations), on top of @marcbachmann/cel-js.
 *
 * Two differences from the bare engine matter here:
 * - JSON data reaches the engine with integers as JS numbers, which it reads as doubles, so
 *   `port + 1` fails and `port == 80` compares a double. Kubernetes decodes whole JSON numbers
 *   as int64: `toCel` converts every whole number to a BigInt (a CEL int) before evaluating.
 * - Kubernetes adds its CEL libraries (strings, lists, regex); the engine has most of the
 *   strings ones (lowerAscii, upperAscii, trim, split, join, indexOf, substring, ...) and the
 *   standard macros (has, all, exists, exists_one, map, filter). The ones it lacks and the
 *   platform's expressions or users may reach for are registered below.
 *
 * Pure: compiled programs are cached per expression text, nothing else is kept.
 */
import { Environment } from './engine';
import { COST_LIMIT_EXCEEDED, nodeCost, PER_CALL_LIMIT } from './cost';

export class CelError extends Error {
  constructor(
    message: string,
    readonly expression: string,
    /** The evaluation was cancelled for spending more than the per-call limit (cost.ts). */
    readonly costExceeded = false,
  ) {
    super(message);
    this.name = 'CelError';
  }
}

/** JSON data → CEL values: whole numbers become ints (BigInt); undefined members are dropped. */
export function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (v === null || typeof v !== 'object') return v;
  // Plain loops rather than entries/map/fromEntries (for speed: every controller write a policy
  // matches is converted, a Gateway with all its listeners).
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = toCel(v[i]);
    return out;
  }
  if (v instanceof Uint8Array || v instanceof Date || v instanceof Map) return v;
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // for-in: no array of keys per object (JSON data inherits no enumerable key).
  for (const k in src) {
    const x = src[k];
    if (x === undefined) continue;
    // defineProperty for `__proto__`: it stays a key (an assignment would set the prototype).
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: toCel(x), enumerable: true, writable: true, configurable: true });
    else out[k] = toCel(x);
  }
  return out;
}

/** CEL values → JSON data: ints back to numbers (safe range), lists and maps recursively. */
export function fromCel(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), fromCel(x)]));
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof Date)) {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromCel(x)]));
  }
  return v;
}

type Handler = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

function listOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function cmpCel(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = typeof a === 'bigint' ? a : BigInt(Math.trunc(Number(a)));
  const y = typeof b === 'bigint' ? b : BigInt(Math.trunc(Number(b)));
  if (typeof a === 'number' || typeof b === 'number') return Number(a) - Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function celEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'bigint' || typeof b === 'bigint') return typeof a === typeof b ? a === b : Number(a) === Number(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Kubernetes CEL library functions the engine lacks (k8s.io/apiserver/pkg/cel/library, cel-go ext). */
const EXTRA_FUNCTIONS: [string, Handler][] = [
  // strings ext
  [
    'string.charAt(int): string',
    (s: string, i: bigint) => {
      const n = Number(i);
      if (n < 0 || n > s.length) throw new Error(`index out of range: ${n}`);
      return s.charAt(n);
    },
  ],
  ['string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b)],
  [
    'string.replace(string, string, int): string',
    (s: string, a: string, b: string, n: bigint) => {
      let left = Number(n);
      if (left < 0) return s.split(a).join(b);
      let out = '';
      let rest = s;
      while (left > 0) {
        const i = rest.indexOf(a);
        if (i < 0) break;
        out += rest.slice(0, i) + b;
        rest = rest.slice(i + a.length);
        left--;
        if (a === '') break;
      }
      return out + rest;
    },
  ],
  ['string.reverse(): string', (s: string) => [...s].reverse().join('')],
  // regex library
  ['string.find(string): string', (s: string, re: string) => new RegExp(re).exec(s)?.[0] ?? ''],
  [
    'string.findAll(string): list<string>',
    (s: string, re: string) => [...s.matchAll(new RegExp(re, 'g'))].map((m) => m[0]),
  ],
  [
    'string.findAll(string, int): list<string>',
    (s: string, re: string, n: bigint) => {
      const all = [...s.matchAll(new RegExp(re, 'g'))].map((m) => m[0]);
      return Number(n) < 0 ? all : all.slice(0, Number(n));
    },
  ],
  // lists library
  ['list.isSorted(): bool', (l: unknown[]) => listOf(l).every((x, i, a) => i === 0 || cmpCel(a[i - 1], x) <= 0)],
  ['list.indexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(listOf(l).findIndex((y) => celEquals(x, y)))],
  [
    'list.lastIndexOf(dyn): int',
    (l: unknown[], x: unknown) => {
      const a = listOf(l);
      for (let i = a.length - 1; i >= 0; i--) if (celEquals(x, a[i])) return BigInt(i);
      return -1n;
    },
  ],
  [
    'list.sum(): dyn',
    (l: unknown[]) => {
      const a = listOf(l);
      if (a.length === 0) return 0n;
      return a.reduce((s: unknown, x) =>
        typeof s === 'bigint' && typeof x === 'bigint' ? s + x : Number(s) + Number(x),
      );
    },
  ],
  [
    'list.min(): dyn',
    (l: unknown[]) => {
      const a = listOf(l);
      if (a.length === 0) throw new Error('min called on empty list');
      return a.reduce((m, x) => (cmpCel(x, m) < 0 ? x : m));
    },
  ],
  [
    'list.max(): dyn',
    (l: unknown[]) => {
      const a = listOf(l);
      if (a.length === 0) throw new Error('max called on empty list');
      return a.reduce((m, x) => (cmpCel(x, m) > 0 ? x : m));
    },
  ],
];

/**
 * The engine's evaluator, found once: every node of an expression is evaluated through its `run`
 * (macros' iterations and short-circuits included), which is where the cost is counted (cost.ts).
 * A registered function is called with the evaluator as `this`; one is called once to find it.
 */
interface AstNode {
  op: string;
  args: unknown;
  readonly meta: { alternate?: unknown; macro?: unknown };
  evaluate(ev: unknown, ast: AstNode, ctx: unknown): unknown;
}
interface Evaluator {
  run(ast: AstNode, ctx: unknown): unknown;
}

/** One evaluation's spending so far and its limit. */
interface Tracker {
  cost: number;
  limit: number;
}
let tracker: Tracker | undefined;
/**
 * The values the nodes under evaluation have produced, innermost last: when a node is done, the
 * ones above the mark it took are its operands' (its descendants' were taken off by its operands).
 */
const operands: unknown[] = [];
let top = 0;

/** Thrown inside the engine to unwind an evaluation that spent its limit (reported as CelError by evalCel). */
class Cancelled extends Error {}

/** The function a call node names; undefined for a macro (its parts are charged as they run). */
function calledName(ast: AstNode): string | undefined {
  if (ast.op !== 'call' && ast.op !== 'rcall') return undefined;
  const meta = ast.meta;
  return meta.alternate !== undefined || meta.macro !== undefined ? undefined : ((ast.args as unknown[])[0] as string);
}

/** The evaluator's `run`, counting: each node's cost charged when it is done, the limit checked before and after. */
function countingRun(this: Evaluator, ast: AstNode, ctx: unknown): unknown {
  const t = tracker;
  if (t === undefined) return ast.evaluate(this, ast, ctx);
  if (t.cost > t.limit) throw new Cancelled(COST_LIMIT_EXCEEDED);
  const mark = top;
  const v = ast.evaluate(this, ast, ctx);
  t.cost += nodeCost(ast.op, calledName(ast), operands, mark, top, v);
  top = mark;
  operands[top++] = v;
  if (t.cost > t.limit) throw new Cancelled(COST_LIMIT_EXCEEDED);
  return v;
}

function instrument(e: Environment): void {
  let found: Evaluator | undefined;
  e.registerFunction('cozyGwEvaluator(): bool', function (this: Evaluator) {
    found = this; // eslint-disable-line @typescript-eslint/no-this-alias -- the evaluator is what is looked for
    return true;
  } as never);
  e.parse('cozyGwEvaluator()')({});
  if (!found || typeof found.run !== 'function') throw new Error('the CEL engine has no evaluator to count cost on');
  found.run = countingRun;
}

function buildEnv(): Environment {
  const env = new Environment({
    unlistedVariablesAreDyn: true,
    homogeneousAggregateLiterals: false,
    enableOptionalTypes: true,
  });
  for (const [sig, fn] of EXTRA_FUNCTIONS) {
    try {
      env.registerFunction(sig, fn as never);
    } catch {
      // The engine already provides this overload (newer releases): keep its own.
    }
  }
  instrument(env);
  return env;
}

let ENV: Environment | undefined;
function env(): Environment {
  if (!ENV) ENV = buildEnv();
  return ENV;
}

/** A parsed expression: the engine's evaluation of it, and its syntax tree. */
type Program = ((ctx: Record<string, unknown>) => unknown) & { ast?: AstNode };
const cache = new Map<string, Program>();

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0];
}

/** Parse (and cache) an expression. Throws CelError for a syntax error. */
export function compile(expression: string): Program {
  let p = cache.get(expression);
  if (!p) {
    try {
      p = env().parse(expression) as unknown as Program;
    } catch (e) {
      throw new CelError(`compile error: ${firstLine(e)}`, expression);
    }
    cache.set(expression, p);
  }
  return p;
}

/** What evaluations spent, in the API server's cost units (cost.ts): each adds its own. */
export interface CostMeter {
  cost: number;
}

/**
 * Evaluate an expression over an activation whose values are already CEL values (see toCel).
 * Throws CelError for a compile or an evaluation error (no such key, no such overload, ...), and
 * for an evaluation that spends more than the per-call limit (cost.ts: `operation cancelled:
 * actual cost limit exceeded`, `costExceeded` set). What it spent is added to `meter`. Re-entrant:
 * an activation's value may evaluate another expression (a policy's variables), which is counted
 * on its own.
 */
export function evalCel(expression: string, activation: Record<string, unknown>, meter?: CostMeter): unknown {
  const p = compile(expression);
  const outer = tracker;
  const mark = top;
  const t: Tracker = { cost: 0, limit: PER_CALL_LIMIT };
  tracker = t;
  try {
    const v = p(activation);
    // The root is evaluated by the engine itself, not through `run`: its own cost is charged here.
    const root = p.ast;
    if (root) t.cost += nodeCost(root.op, calledName(root), operands, mark, top, v);
    if (t.cost > t.limit) throw new Cancelled(COST_LIMIT_EXCEEDED);
    return v;
  } catch (e) {
    if (t.cost > t.limit) throw new CelError(COST_LIMIT_EXCEEDED, expression, true);
    throw e instanceof CelError ? e : new CelError(firstLine(e), expression);
  } finally {
    tracker = outer;
    top = mark;
    // Nothing an evaluation made is kept past it.
    if (outer === undefined) operands.length = 0;
    if (meter) meter.cost += t.cost;
  }
}

/** Evaluate an expression over JSON data (converted with toCel); the result as JSON data. */
export function evaluate(expression: string, vars: Record<string, unknown> = {}): unknown {
  const act: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vars)) act[k] = toCel(v);
  return fromCel(evalCel(expression, act));
}

/** A result of the type the expression must have; any other is an error, as in Kubernetes. */
function expectType<T extends 'boolean' | 'string'>(
  v: unknown,
  type: T,
  what: string,
  expression: string,
): T extends 'boolean' ? boolean : string {
  if (typeof v !== type)
    throw new CelError(
      `${what} must evaluate to a ${type === 'boolean' ? 'bool' : type}, got ${typeof v === 'bigint' ? 'int' : typeof v}`,
      expression,
    );
  return v as T extends 'boolean' ? boolean : string;
}

/** Evaluate a boolean expression; a non-bool result is an error, as in Kubernetes. */
export function evalBool(expression: string, activation: Record<string, unknown>, meter?: CostMeter): boolean {
  return expectType(evalCel(expression, activation, meter), 'boolean', 'expression', expression);
}

/** Evaluate a string expression (messageExpression); a non-string result is an error. */
export function evalString(expression: string, activation: Record<string, unknown>, meter?: CostMeter): string {
  return expectType(evalCel(expression, activation, meter), 'string', 'messageExpression', expression);
}
