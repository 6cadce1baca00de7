/**
 * CEL runtime cost as the Kubernetes API server counts it (docs/commands/admit.md "CEL cost"):
 * every evaluation is charged in cel-go's cost units and cancelled past the per-call limit; the
 * admission layer holds the budget each policy evaluation gets (src/admission/admit.ts).
 *
 * The API server's limits (k8s.io/apiserver/pkg/apis/cel):
 * - PER_CALL_LIMIT: one expression's evaluation is cancelled past 1,000,000 units
 *   (`operation cancelled: actual cost limit exceeded`);
 * - RUNTIME_BUDGET: the expressions of one policy evaluation (one binding, one object) share
 *   10,000,000 units; past them the rest is not run (`validation failed due to running out of cost
 *   budget, no further validation rules will be run`).
 * A ValidatingAdmissionPolicy is not refused at creation for its estimated cost (its `object` is
 * dynamic, so an estimate would be unbounded): the runtime limits are the whole bound.
 *
 * The model, cel-go's runtime cost closely enough (the engine here is another interpreter): each
 * node evaluated costs what cel-go charges for it, a constant 0, a variable or a field selection 1,
 * an operator or a function call 1, a list literal 10, a map literal 30, `&&`, `||` and a
 * comprehension itself 0; a comprehension's iteration costs what cel-go's loop charges (its
 * condition and accumulator: 3 for `all`, `exists`, `exists_one` and `filter`, 12 more for each
 * element `map` or `filter` appends); what runs over a string or a list costs its traversal, as
 * cel-go charges it: a tenth of a unit per character or element of the operands (equality and
 * ordering of strings by the shorter, concatenation by both, the string and list functions by
 * their operands, `contains` by the product, `matches` by the string times a quarter unit per
 * character of the pattern, `in` by the list's size), and a call that returns a string or a list
 * its result's tenth (so a string doubled over and over is charged as it grows; `size()` is 1). Concatenated lists are charged by their size (cel-go's are
 * lazy, this engine copies them). Pure, given the values.
 */

/** cel-go's cancellation of one evaluation past its limit, as the API server reports it. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';
/** k8s.io/apiserver/pkg/apis/cel PerCallLimit: one expression's evaluation. */
export const PER_CALL_LIMIT = 1_000_000;
/** k8s.io/apiserver/pkg/apis/cel RuntimeCELCostBudget: one policy evaluation (per binding and object). */
export const RUNTIME_BUDGET = 10_000_000;
/** The API server's error when a policy evaluation's expressions have spent the budget. */
export const OUT_OF_BUDGET =
  'validation failed due to running out of cost budget, no further validation rules will be run';

/** A tenth of a unit per character or element (cel-go's StringTraversalCostFactor). */
const TRAVERSAL = 0.1;
/** A quarter of a unit per character of a regular expression (cel-go's RegexStringLengthCostFactor). */
const REGEX = 0.25;

/** The size of a value as cel-go measures it for traversal: characters, bytes or elements. */
function sizeOf(v: unknown): number {
  if (typeof v === 'string' || Array.isArray(v)) return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof Map) return v.size;
  return 0;
}

const traverse = (n: number) => Math.ceil(n * TRAVERSAL);

/** The functions that match a regular expression: the string's traversal times the pattern's. */
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);
/**
 * The functions whose cost is their operands' traversal (cel-go's strings and the Kubernetes
 * libraries' strings and lists); any other costs 1 and what it makes (a string or a list).
 */
const TRAVERSING = new Set([
  'startsWith',
  'endsWith',
  'lowerAscii',
  'upperAscii',
  'trim',
  'replace',
  'split',
  'join',
  'substring',
  'indexOf',
  'lastIndexOf',
  'charAt',
  'reverse',
  'format',
  'quote',
  'isSorted',
  'sum',
  'min',
  'max',
  'sort',
  'distinct',
  'flatten',
  'slice',
  'string',
  'bytes',
]);

/** A call's cost by its function's name, given its operands `args[from..to)` (receiver first) and its result. */
function callCost(name: string, args: readonly unknown[], from: number, to: number, result: unknown): number {
  const n = to - from;
  if (name === 'contains' && n === 2) return 1 + traverse(sizeOf(args[from])) * traverse(sizeOf(args[from + 1]));
  if (REGEX_FUNCTIONS.has(name) && n >= 2)
    return 1 + Math.ceil((1 + sizeOf(args[from])) * TRAVERSAL) * Math.ceil(sizeOf(args[from + 1]) * REGEX);
  let size = 0;
  if (TRAVERSING.has(name)) for (let i = from; i < to; i++) size += sizeOf(args[i]);
  return 1 + traverse(size) + (typeof result === 'string' || Array.isArray(result) ? traverse(sizeOf(result)) : 0);
}

/** An operator's cost, given its operands `args[from..to)` and its result. */
function operatorCost(op: string, args: readonly unknown[], from: number, to: number, result: unknown): number {
  const two = to - from === 2;
  switch (op) {
    case '+':
      return 1 + (typeof result === 'string' || Array.isArray(result) ? traverse(sizeOf(result)) : 0);
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return two ? 1 + traverse(Math.min(sizeOf(args[from]), sizeOf(args[from + 1]))) : 1;
    case 'in':
      // Membership in a list is a traversal of it; in a map, a lookup.
      return two && Array.isArray(args[from + 1]) ? 1 + (args[from + 1] as unknown[]).length : 1;
    default:
      return 1;
  }
}

/**
 * A node's cost: `op` its operator, `name` the function a call names (undefined for a macro, whose
 * parts are charged as they run), `args[from..to)` the values its operands evaluated to, `result`
 * its value.
 */
export function nodeCost(
  op: string,
  name: string | undefined,
  args: readonly unknown[],
  from: number,
  to: number,
  result: unknown,
): number {
  switch (op) {
    case 'value':
    case '&&':
    case '||':
    case 'comprehension':
      return 0;
    case 'id':
    case '.':
    case '.?':
    case '[]':
    case '[?]':
    case 'accuValue':
    case 'accuInc':
      return 1;
    // A comprehension's step: the loop's condition and accumulator.
    case '?:':
      return 3;
    case 'call':
    case 'rcall':
      return name === undefined ? 0 : callCost(name, args, from, to, result);
    case 'list':
      return 10;
    case 'map':
      return 30;
    // An element appended by `map` or `filter`: a list of one made and added to the accumulator.
    case 'accuPush':
      return 12;
    default:
      return operatorCost(op, args, from, to, result);
  }
}
