/**
 * `cozy-gw init DIR` (docs/commands/init.md): the starting repository written into DIR with the
 * safety of `render --output-dir` (docs/decisions.md §12):
 * - nothing outside DIR: every path is one of the starter's own (fixed, relative, no `..`), and each
 *   is walked from DIR one component at a time without following a link (src/io/safeDir.ts), so a
 *   folder of DIR replaced by a link to elsewhere is refused, never written through;
 * - DIR is made with its missing parents when it does not exist; an existing DIR must be empty,
 *   unless `force`, and even then no file is ever replaced: one that stands where the starter
 *   writes a file and holds other bytes is refused (the same bytes are left as they are);
 * - every refusal at once, before anything is written; then all or nothing: a failure while
 *   writing, or a signal (SIGINT, SIGTERM, SIGHUP, caught while it writes), removes what this run
 *   made (its files, its folders, DIR itself when it made it), and DIR is as it was.
 * The process umask decides the modes; a script is written executable.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { error, FindingsError, type Finding } from '../k8s/diagnostics';
import { NotADirectory, SafeDir } from './safeDir';
import { makeDirectories } from './makeDirectories';
import { reason, type SignalSource } from './treeCommit';
import { INTERRUPTING, signalStatus } from './signals';

export interface StarterWrite {
  /** Files written. */
  written: string[];
  /** Files that already held the same bytes (with `force`), left as they are. */
  kept: string[];
}

export interface StarterOptions {
  /** Write into a directory that holds other files (none is replaced). */
  force?: boolean;
  /** The signals that interrupt the run (default: the process's). */
  signals?: SignalSource;
  /** Tests only: told of every file before it is written; a throw is that write failing. */
  step?: (rel: string) => void;
}

/** A run stopped by a signal: what became of DIR, and the status to exit with (128 + its number). */
export class StarterInterrupted extends FindingsError {
  constructor(
    readonly signal: NodeJS.Signals,
    finding: Finding,
  ) {
    super([finding]);
  }
  get exitCode(): number {
    return signalStatus(this.signal);
  }
}

function refusal(label: string, message: string, hint?: string): Finding {
  return error(`init ${label}: ${message}`, { rule: 'init.dir', hint });
}

const parents = (rel: string): string[] =>
  rel
    .split('/')
    .slice(0, -1)
    .map((_, i, a) => a.slice(0, i + 1).join('/'));

/** What the run will do: the files to write, those already there, and every refusal. */
function plan(d: SafeDir, label: string, files: readonly { path: string; text: string }[], force: boolean) {
  const problems: Finding[] = [];
  const entries = d.list('');
  if (!force && entries.length)
    problems.push(
      refusal(
        label,
        `not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}); refusing to write into it`,
        'name a new or empty directory, or give --force to add the starting files beside what is there; init replaces no file',
      ),
    );
  const write: { path: string; text: string; executable?: boolean }[] = [];
  const kept: string[] = [];
  for (const f of problems.length ? [] : files) {
    let st: fs.Stats | undefined;
    try {
      st = d.lstat(f.path);
    } catch (e) {
      if (!(e instanceof NotADirectory)) throw e;
      problems.push(
        refusal(
          label,
          `${e.rel} is not a directory${e.link ? ' (a symbolic link)' : ''}; refusing to write through it`,
          'move it away, or name another directory',
        ),
      );
      continue;
    }
    if (!st) write.push(f);
    else if (st.isFile() && d.read(f.path).equals(Buffer.from(f.text, 'utf8'))) kept.push(f.path);
    else
      problems.push(
        refusal(
          label,
          `${f.path} exists${st.isFile() ? ' with other content' : ''}; refusing to replace it`,
          'move it away, or name another directory',
        ),
      );
  }
  const unique = problems.filter((p, i) => problems.findIndex((q) => q.message === p.message) === i);
  if (unique.length) throw new FindingsError(unique);
  return { write, kept };
}

/** Write the starter's `files` into DIR (`dirArg`, relative to `cwd`): see the module comment. */
export function writeStarter(
  dirArg: string,
  cwd: string,
  files: readonly { path: string; text: string; executable?: boolean }[],
  opts: StarterOptions = {},
): StarterWrite {
  const dir = path.resolve(cwd, dirArg);
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (st && !st.isDirectory())
    throw new FindingsError([
      refusal(
        dirArg,
        `not a directory${st.isSymbolicLink() ? ' (a symbolic link)' : ''}`,
        'name a new or empty directory',
      ),
    ]);
  let madeOutside: string[] = [];
  try {
    madeOutside = makeDirectories(dir);
  } catch (e) {
    throw new FindingsError([refusal(dirArg, `cannot make it: ${reason(e)}`, 'check its parent is writable')]);
  }
  let signal: NodeJS.Signals | undefined;
  const listeners = INTERRUPTING.map((s) => [s, () => void (signal ??= s)] as const);
  const signals = opts.signals ?? process;
  for (const [s, l] of listeners) signals.on(s, l);
  let done = false;
  const d = new SafeDir(dir);
  try {
    const { write, kept } = plan(d, dirArg, files, Boolean(opts.force));
    const made = writeAll(d, dirArg, write, opts);
    if (signal) {
      undo(d, made);
      throw new StarterInterrupted(signal, refusal(dirArg, `interrupted by ${signal}: nothing of it was left`));
    }
    done = true;
    return { written: write.map((f) => f.path), kept };
  } finally {
    d.close();
    for (const [s, l] of listeners) signals.off(s, l);
    // DIR and the parents this run made go with a run that failed.
    if (!done)
      for (const p of [...madeOutside].reverse())
        try {
          fs.rmdirSync(p);
        } catch {
          break;
        }
  }
}

/**
 * The files written, and the folders they need; returns what was made (a folder's path ends in
 * `/`), in order. On a failure what was made is removed, and the failure said.
 */
function writeAll(
  d: SafeDir,
  label: string,
  write: readonly { path: string; text: string; executable?: boolean }[],
  opts: StarterOptions,
): string[] {
  const made: string[] = [];
  try {
    for (const f of write) {
      for (const p of parents(f.path))
        if (d.dir(p) === undefined) {
          d.mkdir(p);
          made.push(`${p}/`);
        }
      opts.step?.(f.path);
      d.create(f.path, f.text, false, f.executable ? 0o777 : 0o666);
      made.push(f.path);
    }
  } catch (e) {
    undo(d, made);
    throw new FindingsError([
      refusal(
        label,
        `cannot write the starting files: ${reason(e)}; nothing of them was left`,
        'check the directory is writable and has room',
      ),
    ]);
  }
  return made;
}

/** Remove what this run made, last first: its files, and the folders it made (a path ending in `/`). */
function undo(d: SafeDir, made: readonly string[]): void {
  for (const rel of [...made].reverse()) {
    try {
      if (rel.endsWith('/')) d.rmdir(rel.slice(0, -1));
      else d.unlink(rel);
    } catch {
      /* best effort: a file someone else removed meanwhile */
    }
  }
}
