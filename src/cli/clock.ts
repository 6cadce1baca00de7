/**
 * The clock, read at the edge only (decisions §8): the current time for `reconcile` and
 * `render --with-controller`, SOURCE_DATE_EPOCH or the epoch for the reproducible commands (fn,
 * post-render), and the one parser of a `--now` value.
 */
import { InvalidArgumentError } from 'commander';
import { EPOCH, isRfc3339, RFC3339_EXAMPLE, rfc3339Seconds } from '../k8s/time';

/** The current time at second precision. */
export function currentTime(): string {
  return rfc3339Seconds(new Date());
}

/** The clock when none is given: SOURCE_DATE_EPOCH (reproducible builds) or the epoch. */
export function defaultNow(env: Record<string, string | undefined>): string {
  const s = env.SOURCE_DATE_EPOCH;
  if (s && /^\d+$/.test(s)) return rfc3339Seconds(new Date(Number(s) * 1000));
  return EPOCH;
}

/** `--now`: a malformed value is a usage error (exit 2), as commander reports any other. */
export function parseNow(v: string): string {
  if (!isRfc3339(v)) throw new InvalidArgumentError(`"${v}" is not an RFC 3339 time (e.g. ${RFC3339_EXAMPLE})`);
  return v;
}
