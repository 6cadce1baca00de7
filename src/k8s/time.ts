/**
 * Time as the core sees it: an RFC 3339 string given to it (docs/decisions.md §8: `--now` is the only
 * clock in the core; the CLI edge reads the real one, src/cli/clock.ts). One check of such a
 * string and one way to write an instant at second precision.
 */

/** The fixed clock of reproducible output when neither --now nor SOURCE_DATE_EPOCH is given. */
export const EPOCH = '1970-01-01T00:00:00Z';

/** The example every message about a malformed time gives. */
export const RFC3339_EXAMPLE = '2026-01-01T00:00:00Z';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 date-time (a date, a T, a time, a zone) that names a real instant. */
export function isRfc3339(s: string): boolean {
  return RFC3339.test(s) && !Number.isNaN(Date.parse(s));
}

/** An instant as RFC 3339 in UTC at second precision (`2026-01-01T00:00:00Z`). */
export function rfc3339Seconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
