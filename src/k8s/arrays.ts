/**
 * Arrays as large as the input (every object of a file, every route of a plan): appended to one
 * element at a time. A spread into a call (`xs.push(...big)`, `Math.max(...big)`) passes every
 * element as an argument and overflows the stack beyond about 100,000 of them; the lint rule
 * in eslint.config.mjs forbids it in src/. Pure.
 */

/** Append every item to `into` (in order); returns `into`. */
export function pushAll<T>(into: T[], items: Iterable<T>): T[] {
  for (const x of items) into.push(x);
  return into;
}
