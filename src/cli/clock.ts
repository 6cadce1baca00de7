/**
 * The clock of every command, resolved in one place at the CLI edge (decisions §8: the core takes
 * `now` as an argument and never reads a clock).
 *
 * cli-contract "Reading values and writing trees": the commands that write manifests for a
 * repository (`render --with-controller`, `fn`, `post-render`, `diff`) are reproducible by
 * default: their clock is `--now`, else `SOURCE_DATE_EPOCH` (reproducible-builds.org: whole
 * seconds since the epoch), else a fixed epoch. `reconcile` keeps the current time as its default,
 * as a live controller would.
 */
import { error, FindingsError } from '../k8s/diagnostics';

/** The fixed clock of reproducible output when neither --now nor SOURCE_DATE_EPOCH is given. */
export const FIXED_EPOCH = '1970-01-01T00:00:00Z';

/** `reproducible`: --now, SOURCE_DATE_EPOCH, the fixed epoch. `live`: --now, the current time. */
export type ClockMode = 'reproducible' | 'live';

/** An RFC 3339 time at second precision. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The clock a command runs with. `now` is the --now flag (already checked by its parser), `env`
 * the environment; `current` reads the wall clock (injected for tests). A SOURCE_DATE_EPOCH that
 * is not a whole number of seconds is an error, not a silent fallback.
 */
export function resolveNow(opts: { now?: string; env: Record<string, string | undefined>; mode: ClockMode; current?: () => Date }): string {
  if (opts.now !== undefined) return opts.now;
  if (opts.mode === 'live') return formatTime((opts.current ?? (() => new Date()))());
  const sde = opts.env.SOURCE_DATE_EPOCH;
  if (sde !== undefined && sde !== '') {
    const d = /^\d+$/.test(sde.trim()) ? new Date(Number(sde.trim()) * 1000) : undefined;
    if (!d || Number.isNaN(d.getTime())) {
      throw new FindingsError([error(`SOURCE_DATE_EPOCH=${JSON.stringify(sde)} is not a whole number of seconds since 1970-01-01`, { rule: 'input.source-date-epoch', hint: 'set it to e.g. $(git log -1 --format=%ct), or unset it; --now sets the clock directly' })]);
    }
    return formatTime(d);
  }
  return FIXED_EPOCH;
}
