/**
 * Tests that cannot run here skip visibly, and say why in one form: the skipped test's title (or
 * its describe block's) ends with `(skipped: REASON)`. `npm test` ends by listing every skipped
 * test with its reason (test/reporters/skipped.js reads that form).
 */
import { which } from './kpt';

/** `title (skipped: reason)`: the title of a test or describe block that skips, with why. */
export function skippedTitle(title: string, reason: string): string {
  return `${title} (skipped: ${reason})`;
}

/** Why a test that needs `tools` cannot run here (`needs kpt: not on PATH`), or undefined when it can. */
export function needs(...tools: string[]): string | undefined {
  const absent = tools.filter((t) => !which(t));
  if (!absent.length) return undefined;
  const list = (xs: string[]) => (xs.length === 1 ? xs[0] : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);
  return `needs ${list(tools)}: ${list(absent)} not on PATH`;
}

/** `test`, or where `missing` names what this machine lacks, a test skipped with that reason in its title. */
export function testUnless(
  missing: string | undefined,
): (title: string, fn: jest.ProvidesCallback, timeout?: number) => void {
  return missing ? (title, fn, timeout) => test.skip(skippedTitle(title, missing), fn, timeout) : test;
}
