/**
 * The clock, read at the edge only (docs/decisions.md §8), resolved in one place for every command, and
 * the one parser of a `--now` value.
 *
 * docs/commands/README.md "Values, warnings and trees": the commands that write manifests for a
 * repository (`render --with-controller`, `fn`, `post-render`, `diff`) are reproducible by
 * default: their clock is `--now`, else `SOURCE_DATE_EPOCH` (reproducible-builds.org: whole
 * seconds since the epoch), else a fixed epoch. `reconcile` keeps the current time as its
 * default, as a live controller would.
 */
import { InvalidArgumentError } from 'commander';
import { error, FindingsError } from '../k8s/diagnostics';
import { EPOCH, isRfc3339, RFC3339_EXAMPLE, rfc3339Seconds } from '../k8s/time';

/** The current time at second precision. */
export function currentTime(): string {
  return rfc3339Seconds(new Date());
}

/** 9999-12-31T23:59:59Z: RFC 3339 writes four-digit years only. */
const LAST_RFC3339_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/** `reproducible`: --now, SOURCE_DATE_EPOCH, the fixed epoch. `live`: --now, the current time. */
export type ClockMode = 'reproducible' | 'live';

/**
 * The clock a command runs with. `now` is the --now flag (already checked by parseNow), `env`
 * the environment; `current` reads the wall clock (injected for tests). A SOURCE_DATE_EPOCH that
 * is not a whole number of seconds is an error, not a silent fallback.
 */
export function resolveNow(opts: {
  now?: string;
  env: Record<string, string | undefined>;
  mode: ClockMode;
  current?: () => Date;
}): string {
  if (opts.now !== undefined) return opts.now;
  if (opts.mode === 'live') return opts.current ? rfc3339Seconds(opts.current()) : currentTime();
  const sde = opts.env.SOURCE_DATE_EPOCH;
  if (sde !== undefined && sde !== '') {
    const whole = /^\d+$/.test(sde.trim());
    const d = whole ? new Date(Number(sde.trim()) * 1000) : undefined;
    // Past year 9999 the timestamp has no RFC 3339 form: SOURCE_DATE_EPOCH's fault, not --now's.
    if (!d || Number.isNaN(d.getTime()) || d.getTime() > LAST_RFC3339_MS) {
      throw new FindingsError([
        error(
          whole
            ? `SOURCE_DATE_EPOCH=${JSON.stringify(sde)} is past 9999-12-31T23:59:59Z, the last time an RFC 3339 timestamp can hold`
            : `SOURCE_DATE_EPOCH=${JSON.stringify(sde)} is not a whole number of seconds since 1970-01-01`,
          {
            rule: 'input.source-date-epoch',
            hint: 'set it to e.g. $(git log -1 --format=%ct), or unset it; --now sets the clock directly',
          },
        ),
      ]);
    }
    return rfc3339Seconds(d);
  }
  return EPOCH;
}

/** The clock of the reproducible commands when none is given: SOURCE_DATE_EPOCH or the epoch. */
export function defaultNow(env: Record<string, string | undefined>): string {
  return resolveNow({ env, mode: 'reproducible' });
}

/** `--now`: a malformed value is a usage error (exit 2), as commander reports any other. */
export function parseNow(v: string): string {
  if (!isRfc3339(v)) throw new InvalidArgumentError(`"${v}" is not an RFC 3339 time (e.g. ${RFC3339_EXAMPLE})`);
  return v;
}
