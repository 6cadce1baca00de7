/**
 * CEL runtime cost (src/cel/cost.ts, docs/commands/admit.md "CEL cost"): what an evaluation is
 * charged, the cancellation past the per-call limit in the API server's words, and evaluations
 * nested in one another counted each on its own.
 */
import { CelError, evalCel, toCel, type CostMeter } from '../../src/cel/cel';
import { COST_LIMIT_EXCEEDED, PER_CALL_LIMIT } from '../../src/cel/cost';

const costOf = (expression: string, vars: Record<string, unknown> = {}): number => {
  const m: CostMeter = { cost: 0 };
  const act: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vars)) act[k] = toCel(v);
  evalCel(expression, act, m);
  return m.cost;
};

describe('what an evaluation costs', () => {
  it.each([
    // A constant is free, a variable and a field selection 1 each, an operator 1.
    ['true', {}, 0],
    ['x', { x: 1 }, 1],
    ['x.a == 1', { x: { a: 1 } }, 3],
    // A list literal 10; each iteration of `all` 3 (its loop), its predicate as it runs.
    ['[1, 2, 3].all(v, v > 0)', {}, 10 + 3 * (3 + 2)],
    // `size()` is 1, whatever the size.
    ['s.size()', { s: 'x'.repeat(10_000) }, 2],
    // Concatenation: 1 and a tenth of the result.
    ['s + s', { s: 'x'.repeat(1000) }, 2 + 1 + 200],
    // `contains`: the product of both operands' tenths.
    ['s.contains(s)', { s: 'x'.repeat(1000) }, 2 + 1 + 100 * 100],
    // Equality of strings: a tenth of the shorter.
    ['s == t', { s: 'x'.repeat(1000), t: 'y'.repeat(10) }, 2 + 1 + 1],
  ] as [string, Record<string, unknown>, number][])(
    '%s (case %#) costs what cel-go charges',
    (expression, vars, cost) => {
      expect([expression, costOf(expression, vars)]).toEqual([expression, cost]);
    },
  );
});

describe('the per-call limit', () => {
  it('cancels an evaluation past it in the API server words, whatever was left to do', () => {
    const list = `[${Array.from({ length: 12 }, (_, i) => i).join(',')}]`;
    let e = 'true';
    for (const v of 'abcdefgh') e = `${list}.all(${v}, ${e})`;
    const m: CostMeter = { cost: 0 };
    const t0 = Date.now();
    let err: unknown;
    try {
      evalCel(e, {}, m);
    } catch (x) {
      err = x;
    }
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(err).toBeInstanceOf(CelError);
    expect([(err as CelError).message, (err as CelError).costExceeded]).toEqual([COST_LIMIT_EXCEEDED, true]);
    expect(m.cost).toBeGreaterThan(PER_CALL_LIMIT);
    expect(m.cost).toBeLessThan(PER_CALL_LIMIT + 100);
  });
  it('an error swallowed by || does not hide the cancellation', () => {
    const e = `[${Array.from({ length: 1000 }, (_, i) => i).join(',')}].all(a, [${Array.from({ length: 1000 }, (_, i) => i).join(',')}].all(b, true)) || true`;
    expect(() => evalCel(e, {})).toThrow(COST_LIMIT_EXCEEDED);
  });
  it('an evaluation inside another (a variable read) is counted on its own and the outer one goes on', () => {
    const inner: CostMeter = { cost: 0 };
    const outer: CostMeter = { cost: 0 };
    const act: Record<string, unknown> = {};
    Object.defineProperty(act, 'v', { enumerable: true, get: () => evalCel('[1, 2].all(x, x > 0)', {}, inner) });
    expect(evalCel('v && true', act, outer)).toBe(true);
    expect([inner.cost, outer.cost]).toEqual([10 + 2 * (3 + 2), 1]);
  });
});
