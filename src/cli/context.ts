/**
 * What a command is given: the I/O it may touch (injected, so tests run in-process), the exit
 * code it sets, and how findings are reported: placed at file and line from the readers' source
 * map (locate, the one place that does), coloured on a terminal, on standard error.
 */
import { formatFinding, type Finding } from '../k8s/diagnostics';
import { printable } from '../k8s/printable';
import type { SourceMap } from '../io/sourceMap';
import type { KObject } from '../k8s/model';
import type { Exec } from '../io/exec';
import type { Progress } from './progress';

/** Everything a command may touch outside the core; injected so tests run in-process. */
export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => string;
  env: Record<string, string | undefined>;
  /** Whether stderr is a terminal (colour is used only then, and never with NO_COLOR). */
  isTTY: boolean;
  cwd: string;
  /** Runs another program (kubectl); the real runner when absent (src/io/exec.ts). */
  exec?: Exec;
  /**
   * Runs this command again with `extra` arguments added, in a process with the larger heap its
   * inputs then ask for (src/cli/heapLimit.ts): its exit status; undefined where it is to run here
   * (the inputs ask for no more, or this run is one started so). The process's own IO only.
   */
  runAgainWith?: (extra: string[]) => Promise<number | undefined>;
}

export interface CliContext {
  io: CliIO;
  exitCode: number;
  /** Print findings on stderr, errors and warnings alike. */
  report: (findings: Finding[]) => void;
  /** Print one note line on stderr, printable (k8s/printable.ts): names in it cannot forge a line. */
  note: (line: string) => void;
  color: boolean;
  /** Where the inputs were read (the readers' source map), so that a finding gets its file and line. */
  sources?: SourceMap;
  /** The progress line of a long run (src/cli/progress.ts; none unless a command sets it): cleared before every other line. */
  progress: Progress;
  /** The command ran again in another process (CliIO.runAgainWith), which wrote everything it writes. */
  ranAgain?: boolean;
}

/**
 * A finding placed at file and line, from the readers' source map: the core names objects,
 * values files and fields, never lines. A finding about an input object gets the object's file
 * and the line of its field; one about a `--values` file the line of the field in it; a finding
 * about a platform value also says where that value is set.
 */
export function locate(f: Finding, sources: SourceMap | undefined): Finding {
  if (!sources) return f;
  let out = f;
  if (f.line === undefined) {
    if (f.object && !f.file) {
      const o = f.instance && sources.originOf(f.instance) ? (f.instance as KObject) : sources.objectOf(f.object);
      const origin = o && sources.originOf(o);
      if (o && origin) out = { ...f, file: origin.file, line: sources.lineOf(o, f.field) };
    } else if (f.file && !f.object) {
      const values = sources.valuesOf(f.file);
      if (values) out = { ...f, line: sources.lineOf(values, f.field) };
    }
  }
  const at = f.valueAt;
  if (at && at.line === undefined) {
    if (at.object) {
      const o = sources.objectOf(at.object);
      const origin = o && sources.originOf(o);
      if (o && origin) out = { ...out, valueAt: { ...at, file: origin.file, line: sources.lineOf(o, at.field) } };
    } else if (at.file) {
      const values = sources.valuesOf(at.file);
      if (values) out = { ...out, valueAt: { ...at, line: sources.lineOf(values, at.field) } };
    }
  }
  return out;
}

function paint(ctx: CliContext, code: string, s: string): string {
  return ctx.color ? `\u001b[${code}m${s}\u001b[0m` : s;
}

/** No progress line (a command that shows one sets its own, src/cli/progress.ts). */
const NO_PROGRESS: Progress = { phase: () => undefined, count: () => undefined, clear: () => undefined };

export function makeContext(io: CliIO): CliContext {
  const ctx: CliContext = {
    // What goes to standard output clears the progress line first (both may be one terminal). The
    // rest is io's own, read through it when asked (processIO reads the working directory then).
    io: Object.assign(Object.create(io) as CliIO, {
      stdout: (s: string) => {
        ctx.progress.clear();
        io.stdout(s);
      },
    }),
    exitCode: 0,
    color: io.isTTY && !io.env.NO_COLOR && io.env.TERM !== 'dumb',
    progress: NO_PROGRESS,
    report: (findings) => {
      if (findings.length) ctx.progress.clear();
      for (const f of findings.map((x) => locate(x, ctx.sources))) {
        const line = formatFinding(f);
        const colored =
          f.severity === 'error'
            ? line.replace(/^error/, paint(ctx, '31', 'error'))
            : line.replace(/^warning/, paint(ctx, '33', 'warning'));
        io.stderr(colored + '\n');
      }
    },
    note: (line) => {
      ctx.progress.clear();
      io.stderr(printable(line) + '\n');
    },
  };
  return ctx;
}

/** Send console.log/info/debug to stderr while a protocol owns stdout (fn, post-render); returns the undo. */
export function rebindConsole(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  return () => Object.assign(console, saved);
}
