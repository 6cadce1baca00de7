/**
 * Progress on long runs (docs/commands/README.md "Progress"): one line on standard error,
 * rewritten in place, naming the phase and its count (`read 12,004 objects`, `rendered 1,200
 * tenants`, `wrote 300 of 2,001 files`), as helm and kpt show it. Only on a terminal: never when
 * standard error is a pipe or a file, never in CI (`CI` set, as CI services set it), never with
 * `TERM=dumb`, never with `-q`; never on standard output. The line is cleared before any other
 * line is written (a note, a finding) and when the run ends, so what stays on the screen is what
 * a run without progress prints.
 *
 * The core never prints: it is handed the counting callbacks (render's `progress`, the tree
 * writer's), and this module, at the edge, turns them into the line.
 */
import { printable } from '../k8s/printable';

/** What a progress line needs of the command's streams (context.ts's CliIO has it: declared here, so the two modules do not import each other). */
export interface ProgressIO {
  isTTY: boolean;
  env: Record<string, string | undefined>;
  stderr: (s: string) => void;
}

export interface Progress {
  /** A phase starts (`reading inputs`): shown at once. */
  phase(text: string): void;
  /** A count within the phase (`rendered`, 1200, undefined, `tenants`); shown at most every `interval` ms, and always the last. */
  count(verb: string, done: number, total: number | undefined, noun: string): void;
  /** Clear the line (another line is about to be written, or the run is over). */
  clear(): void;
}

/** A run that shows no progress. */
export const NO_PROGRESS: Progress = { phase: () => undefined, count: () => undefined, clear: () => undefined };

/** How often a count is redrawn at most, in milliseconds. */
const INTERVAL_MS = 100;

/** Whether a run with this I/O shows progress: standard error a terminal, not CI, not TERM=dumb, not quiet. */
export function showsProgress(io: Pick<ProgressIO, 'isTTY' | 'env'>, quiet: boolean | undefined): boolean {
  const ci = io.env.CI;
  return (
    io.isTTY && !quiet && io.env.TERM !== 'dumb' && !(ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0')
  );
}

/** A number as a reader takes it in at a glance: thousands grouped with commas. */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * The progress line of a run: writes to `io.stderr` only when showsProgress; `now` is the clock
 * the redraws are paced by (the edge's, injected for tests).
 */
export function progressLine(io: ProgressIO, quiet: boolean | undefined, now: () => number = Date.now): Progress {
  if (!showsProgress(io, quiet)) return NO_PROGRESS;
  let shown = false;
  let last = -Infinity;
  const draw = (text: string) => {
    io.stderr(`\r\u001b[K${printable(text)}`);
    shown = true;
  };
  return {
    phase(text) {
      draw(text);
      last = now();
    },
    count(verb, done, total, noun) {
      const t = now();
      if (t - last < INTERVAL_MS && done !== total) return;
      last = t;
      draw(`${verb} ${grouped(done)}${total === undefined ? '' : ` of ${grouped(total)}`} ${noun}`);
    },
    clear() {
      if (!shown) return;
      io.stderr('\r\u001b[K');
      shown = false;
    },
  };
}
