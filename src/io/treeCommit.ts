/**
 * Writing the output tree as a transaction (docs/decisions.md §12: "a failed run leaves the directory as
 * it was"; two runs never interleave; nothing is written or deleted outside DIR).
 *
 * One run, in order:
 * 1. **Lock** `DIR/.cozy-gw-lock` (src/io/treeLock.ts): a second run waits for a bounded time, then
 *    refuses naming DIR and the holder; a dead holder's lock is broken safely.
 * 2. **Recover** what an interrupted run left (its work area, below): finish its commit if its
 *    record is in place, else roll it back; a note on stderr says which.
 * 3. **Plan** against the record (src/io/treeRecord.ts): which files are added, replaced (a file of
 *    ours whose bytes differ), unchanged (left untouched) and removed (ours, no longer rendered);
 *    every refusal (a user's file in the way, a link or a file where a folder should be) at once,
 *    before anything changes.
 * 4. **Stage** in the work area `DIR/.cozy-gw-txn/`: the new files under `new/`, at their paths in
 *    the tree, the next record as `record`. Planning and staging are one walk over the files in
 *    output order: each file's content is made, its digest taken, and it is staged under `new/` only
 *    when it changes (held until 4 MB are, then written a folder at a time: stageFile), then let go
 *    (the tree's text is never held whole). DIR itself is not touched
 *    yet; an interruption here, or a refusal found on the way, leaves only the work area, which goes.
 * 5. **Journal** `DIR/.cozy-gw-txn/journal` (flushed to disk): the folders to move in whole, the
 *    files to move in (with their digests) and the files to move aside. From here on DIR changes,
 *    and the journal says how to undo it.
 * 6. **Commit**: each folder the tree lacks moved in whole from `new/` (one rename for all its
 *    files: a first write moves its folders, not its 200,000 files), each old file moved aside to
 *    `old/` and the new one moved in, the removed files moved aside, emptied folders removed, then
 *    the record renamed into place: that rename is the commit point.
 * 7. **Clean up**: the journal removed first, then the work area (the old files in it go with it).
 *
 * A failure at any step before the commit point rolls back at once, in reverse: the folders and
 * files moved in go back to `new/` (only a file whose bytes are the ones this run wrote, and a
 * folder only when it holds nothing else), the files moved aside come back, the created folders go. A run killed at any step (SIGKILL, a crash, a power cut after
 * the journal reached the disk) is recovered by the next run the same way, from the journal: its
 * record not in place means roll back, in place means finish. Recovery steps are idempotent, so a
 * recovery interrupted in turn is recovered again. SIGINT, SIGTERM and SIGHUP are caught while the
 * run holds the tree: before the commit point it rolls back, after it it finishes; then the run
 * ends with the signal's status (128 + its number).
 *
 * Every operation goes through `SafeDir` (src/io/safeDir.ts), which walks each path one component
 * at a time without following links, so a folder of the tree replaced by a link to elsewhere is
 * never written through or deleted through. Renames stay inside DIR: one file system, atomic.
 *
 * Durability: the journal and the record are flushed to disk before they count; the object files are
 * not flushed one by one (docs/performance.md "Writing a tree": a flush per file is most of the
 * cost of a large tree, and the commit's protection is against interruption, which the journal
 * covers; after a power cut a file may hold less than was written, and the next run, reading the
 * recorded digests, writes it again).
 *
 * A partial run (render into a tree whose record says which files a change touches, docs/performance.md
 * "Changed-only"): the source names the earlier files it may replace or remove and the number of
 * files of the tree; the others are kept as they are, unread, and the record the caller read must
 * still be the one in place once the lock is held (else TreeChanged, and the caller writes whole).
 *
 * Steps are enumerable for the fault-injection tests: every file-system operation that changes DIR
 * is announced to `TreeCommitOptions.step` first (tests only: a throw there is that step failing,
 * a SIGKILL there is a kill at that step). Users never set it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { error, FindingsError, warning, type Finding } from '../k8s/diagnostics';
import { NotADirectory, SafeDir } from './safeDir';
import { ReadBuffer } from './stdin';
import { acquireLock, describeHolder, LOCK, releaseLock } from './treeLock';
import { INTERRUPTING, signalStatus } from './signals';
import {
  KUSTOMIZATION,
  LineBlocks,
  linesOf,
  readRecordWith,
  RECORD,
  RECORD_COMMENT,
  recordId,
  safeRelative,
  sha256,
  type TreeRecord,
} from './treeRecord';

/** The work area of a run writing the tree (its staged files, the files it moved aside, its journal). */
export const WORK = '.cozy-gw-txn';
const JOURNAL = `${WORK}/journal`;
const NEXT_RECORD = `${WORK}/record`;
const NEW = `${WORK}/new`;
const OLD = `${WORK}/old`;

/** How long a run waits for another run's lock by default. */
export const LOCK_WAIT_MS = 60_000;
/** How often a long run lets signals in (every so many steps). */
const YIELD_EVERY = 256;
/** How many characters of changed files staging holds before writing them a folder at a time (stageFile). */
const PENDING_CHARS = 4 * 1024 * 1024;

/** Where signals come from (the process, or a test's emitter). */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
}

export interface TreeCommitOptions {
  /** The user's home directory (refused as an output directory unless it holds the record). */
  home?: string;
  /** How long to wait for another run's lock, in milliseconds (default LOCK_WAIT_MS; 0: refuse at once). */
  lockWaitMs?: number;
  /** Notes for the user (a wait for a lock, a recovered run), printed on stderr as they happen. */
  note?: (message: string) => void;
  /** The signals that interrupt the run (default: the process's). */
  signals?: SignalSource;
  /**
   * Told how many of the files this run makes are done so far (staged, or found unchanged), and how
   * many it makes (the CLI's progress line on a terminal); called as each one is done.
   */
  progress?: (done: number, files: number) => void;
  /**
   * Tests only: told of every step that changes DIR before it is taken (its ordinal from 0 and a
   * label such as `move tenant-a/secret-s.yaml`); a throw is that step failing.
   */
  step?: (n: number, label: string) => void;
}

export interface TreeCommitResult {
  /** Files in the tree (objects and kustomization.yaml). */
  written: number;
  /** Files this run added or replaced; the others already held the rendered bytes and were left untouched. */
  changed: number;
  /** Files an earlier run wrote that this one removed. */
  removed: string[];
  /** Entries in DIR cozy-gw did not write and left alone (a folder with a trailing `/`). */
  left: string[];
  /** Warnings of a run that succeeded (a work area it could not remove). */
  warnings: Finding[];
}

/** A run stopped by a signal: its finding says what became of DIR; the status to exit with is 128 + the signal's number. */
export class TreeInterrupted extends FindingsError {
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

/** The journal: how to undo the commit of run `pid` while its record is not in place. */
interface Journal {
  /** The id of the record this run commits. */
  id: string;
  pid: number;
  started: string;
  /**
   * Where the work area holds the staged and the set-aside files: 2, at their paths in the tree
   * (`new/<path>`, `old/<path>`); 1 (journals of earlier versions), by number (`new/<n>`, `old/<n>`).
   */
  layout: 1 | 2;
  /** Folders of DIR this run creates, parents first. */
  mkdirs: string[];
  /** Folders this run moves into DIR whole from `new/` (layout 2). */
  movedirs: string[];
  /** Files moved into DIR (those in a folder moved whole too), with the digest of the bytes this run wrote. */
  moves: [string, string][];
  /** Files of the earlier tree moved aside (replaced or removed). */
  aside: string[];
}

/** Where a journal's run staged the n-th file it moves in, and set aside the n-th file it moves aside. */
function stagedAt(j: Journal, rel: string, n: number): string {
  return j.layout === 2 ? `${NEW}/${rel}` : `${NEW}/${n}`;
}
function asideAt(j: Journal, rel: string, n: number): string {
  return j.layout === 2 ? `${OLD}/${rel}` : `${OLD}/${n}`;
}

/**
 * The journal as bytes, a line each (treeRecord.ts: a tree of millions of files has a journal longer
 * than the longest string): a header `{"id","pid","started","layout"}`, then `["mkdir",folder]`,
 * `["movedir",folder]`, `["move",path,digest]` and `["aside",path]`, in the journal's order.
 */
function journalBytes(j: Journal): Buffer[] {
  const lines = new LineBlocks();
  lines.add(JSON.stringify({ id: j.id, pid: j.pid, started: j.started, layout: j.layout }));
  for (const f of j.mkdirs) lines.add(JSON.stringify(['mkdir', f]));
  for (const f of j.movedirs) lines.add(JSON.stringify(['movedir', f]));
  for (const [rel, digest] of j.moves) lines.add(JSON.stringify(['move', rel, digest]));
  for (const rel of j.aside) lines.add(JSON.stringify(['aside', rel]));
  return lines.done().blocks;
}

/** A journal's lines read back; the one-object form of earlier versions (the header holding the lists) too. */
function journalOf(bytes: Buffer): Journal | undefined {
  const lines = linesOf(bytes);
  const head = JSON.parse(lines.next().value ?? '');
  if (!head || typeof head !== 'object') return undefined;
  if ('moves' in head) return { movedirs: [], ...head, layout: 1 };
  const j: Journal = { ...head, layout: head.layout === 2 ? 2 : 1, mkdirs: [], movedirs: [], moves: [], aside: [] };
  for (const line of lines) {
    if (!line) continue;
    const e: unknown = JSON.parse(line);
    if (!Array.isArray(e)) return undefined;
    if (e[0] === 'mkdir' && e.length === 2) j.mkdirs.push(e[1]);
    else if (e[0] === 'movedir' && e.length === 2) j.movedirs.push(e[1]);
    else if (e[0] === 'move' && e.length === 3) j.moves.push([e[1], e[2]]);
    else if (e[0] === 'aside' && e.length === 2) j.aside.push(e[1]);
    else return undefined;
  }
  return j;
}

function parseJournal(bytes: Buffer): Journal | undefined {
  let j: Journal | undefined;
  try {
    j = journalOf(bytes);
  } catch {
    return undefined;
  }
  const paths = (xs: unknown): xs is string[] => Array.isArray(xs) && xs.every((x) => safeRelative(x as string));
  if (
    !j ||
    typeof j.id !== 'string' ||
    !paths(j.mkdirs) ||
    !paths(j.movedirs) ||
    !paths(j.aside) ||
    !Array.isArray(j.moves) ||
    !j.moves.every((m) => Array.isArray(m) && safeRelative(m[0]) && typeof m[1] === 'string')
  )
    return undefined;
  return j;
}

/** One file of the tree a run writes: its path, and its content, made when the writer reaches it. */
export interface TreeEntry {
  path: string;
  content(): string;
}

/** What a run writes: the files in output order, and the record once their digests are known. */
export interface TreeSource {
  /** The files this run makes, in output order, kustomization.yaml last: every file of the tree, or (partial) those a change touches. */
  files: readonly TreeEntry[];
  /** The record of the tree, given each file's digest (of the files this run makes): its bytes, or its bytes in parts (treeRecord.ts recordParts). */
  record(digestOf: (path: string) => string): Buffer | readonly Buffer[];
  /**
   * A partial run: the earlier files it may replace or remove (path → recorded digest), how many
   * files the tree holds once it is done, and the id of the record the caller read them from.
   */
  partial?: {
    prev: ReadonlyMap<string, string | undefined>;
    total: number;
    recordId: string;
    /** Every file of the tree once the run is done (those kept as they are among them): none is an entry left. */
    held: PathLookup;
  };
}

/** A set of the tree's paths, as far as asking goes (a Set, or the paths a folder at a time). */
export interface PathLookup {
  has(path: string): boolean;
}

/** A partial run found another record in place than the one it was planned against: write the tree whole. */
export class TreeChanged extends Error {}

interface Plan {
  /** New files to move in, in output order (those in a folder moved whole included). */
  moves: string[];
  /** Of those, the ones an earlier file of ours stands at (moved aside first). */
  replace: Set<string>;
  /** Earlier files of ours no longer rendered. */
  remove: string[];
  /** Folders of DIR the tree lacks, moved in whole from the work area (none inside another). */
  movedirs: string[];
  /** Folders the removal may empty, deepest first. */
  rmdirs: string[];
  /** Whether the record changes (else, with nothing to move or remove, there is nothing to commit). */
  recordChanges: boolean;
  /** The record to commit: its bytes in parts (written in turn, never assembled). */
  record: readonly Buffer[];
  /** Folders of the work area made so far (`new/...`, `old/...`). */
  staged: Set<string>;
  /** Changed files not staged yet, by their folder (stageFile: written a folder at a time). */
  pending: Map<string, { rel: string; content: string }[]>;
  /** The characters `pending` holds. */
  pendingChars: number;
}

class Stop extends Error {}

function errCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

/** The one-line reason of a file-system error: `permission denied (EACCES)`. */
export function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const text: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on device',
    EEXIST: 'a file is in the way',
    ENOTDIR: 'a file is in the way of a directory',
    EISDIR: 'a directory is in the way of a file',
    EBUSY: 'busy (a mount point?)',
    ENAMETOOLONG: 'name too long',
    EDQUOT: 'disk quota exceeded',
    EXDEV: 'another file system is mounted inside the tree',
    EIO: 'input/output error',
    ERR_ACCESS_DENIED: "not allowed by Node.js's permission model (grant DIR/* with --allow-fs-write)",
  };
  return err && err.code
    ? `${text[err.code] ?? err.message.replace(/^[A-Z]+: /, '').split(',')[0]} (${err.code})`
    : String((e as Error)?.message ?? e);
}

function ancestors(rel: string): string[] {
  const out: string[] = [];
  for (let i = rel.indexOf('/'); i >= 0; i = rel.indexOf('/', i + 1)) out.push(rel.slice(0, i));
  return out;
}

function depth(rel: string): number {
  let n = 0;
  for (let i = rel.indexOf('/'); i >= 0; i = rel.indexOf('/', i + 1)) n++;
  return n;
}

/** cozy-gw's own names at the top of DIR: the record, the lock (and its helpers), the work area. */
function isOwnName(name: string): boolean {
  return name === RECORD || name === WORK || name === LOCK || name.startsWith(`${LOCK}.`);
}

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One run writing one tree. */
class TreeRun {
  private readonly dir: string;
  private d!: SafeDir;
  private n = 0;
  private signal: NodeJS.Signals | undefined;
  private committed = false;
  /** Whether a signal stops the run at its next step (staging and committing; never while undoing or recovering). */
  private stoppable = false;
  private sinceYield = 0;
  /** Folders outside the tree this run created for DIR (DIR itself included), parents first. */
  private readonly createdOutside: string[] = [];
  private readonly warnings: Finding[] = [];
  /** The digest of each file this run makes. */
  private readonly digests = new Map<string, string>();
  /** The lock's token while this run holds it. */
  private token: string | undefined;

  constructor(
    private readonly label: string,
    cwd: string,
    private readonly opts: TreeCommitOptions,
  ) {
    this.dir = path.resolve(cwd, label);
    this.cwd = path.resolve(cwd);
  }
  private readonly cwd: string;

  private fail(message: string, hint?: string): never {
    throw new FindingsError([error(`--output-dir ${this.label}${message}`, { rule: 'output.dir', hint })]);
  }

  /** Announce a step that changes DIR; a signal that arrived stops the run here (until the commit point). */
  private step(label: string): void {
    this.opts.step?.(this.n++, label);
    if (this.signal && this.stoppable) throw new Stop();
  }

  /** Let signals in now and then during a long stage or commit. */
  private async breathe(): Promise<void> {
    if (++this.sinceYield < YIELD_EVERY) return;
    this.sinceYield = 0;
    await tick();
    if (this.signal && this.stoppable) throw new Stop();
  }

  /**
   * Whether the file at rel holds exactly `content`'s bytes: read into one buffer and encoded into
   * another, both reused from file to file (a Buffer per file of a tree of millions is memory
   * outside the heap that V8 answers with full collections; src/io/stdin.ts, ReadBuffer).
   */
  private sameBytes(rel: string, content: string): boolean {
    const onDisk = this.d.readInto(rel, this.readBuffer);
    const n = Buffer.byteLength(content, 'utf8');
    if (n !== onDisk.length) return false;
    const mine = this.encodeBuffer.take(n);
    mine.write(content, 0, 'utf8');
    return onDisk.equals(mine);
  }
  private readonly readBuffer = new ReadBuffer();
  private readonly encodeBuffer = new ReadBuffer();

  /** Whether a regular file stands at rel; a folder on its way that is a link or a file now: none. */
  private isFileAt(rel: string): boolean {
    try {
      return this.d.lstat(rel)?.isFile() ?? false;
    } catch (e) {
      if (e instanceof NotADirectory) return false;
      throw e;
    }
  }

  private readBytes(rel: string): Buffer | undefined {
    return this.isFileAt(rel) ? this.d.read(rel) : undefined;
  }

  private readRecord(): Omit<TreeRecord, 'unfinished'> | undefined {
    return readRecordWith((rel) => this.readBytes(rel));
  }

  async run(source: TreeSource): Promise<TreeCommitResult> {
    this.makeDir();
    const onSignal = (sig: NodeJS.Signals) => () => {
      this.signal ??= sig;
    };
    const listeners = INTERRUPTING.map((s) => [s, onSignal(s)] as const);
    const signals = this.opts.signals ?? process;
    for (const [s, l] of listeners) signals.on(s, l);
    let result: TreeCommitResult;
    try {
      result = await this.transact(source);
    } catch (e) {
      if (e instanceof Stop || (this.signal && !(e instanceof FindingsError) && !(e instanceof TreeChanged)))
        throw this.interrupted(`nothing in it was changed`);
      if (e instanceof FindingsError || e instanceof TreeChanged) throw e;
      this.fail(`: cannot write the tree: ${reason(e)}`, 'check the directory is writable and has room');
    } finally {
      if (this.token) this.quietly(() => releaseLock(this.d, this.token!));
      // this.d is unset when DIR could not be opened.
      (this.d as SafeDir | undefined)?.close();
      // A signal that came in while the lock was released is heard before the listeners go.
      await tick();
      for (const [s, l] of listeners) signals.off(s, l);
      if (!this.committed) this.removeCreatedDir();
    }
    // Finished after the commit point: the signal still ends the run with its status.
    if (this.signal) throw this.interrupted('the new tree is in place (the signal came after the commit)');
    return result;
  }

  private interrupted(outcome: string): TreeInterrupted {
    const signal = this.signal ?? 'SIGTERM';
    return new TreeInterrupted(
      signal,
      error(`--output-dir ${this.label}: interrupted by ${signal}: ${outcome}`, { rule: 'output.dir' }),
    );
  }

  /** DIR opened and locked, with what an interrupted run left recovered. */
  private async lockAndRecover(): Promise<void> {
    try {
      this.d = new SafeDir(this.dir);
    } catch (e) {
      if (e instanceof NotADirectory) this.fail(' is not a directory', 'name a directory, new or written by cozy-gw');
      throw e;
    }
    this.refuseForeign(true);
    const waitMs = this.opts.lockWaitMs ?? LOCK_WAIT_MS;
    const seconds = `${Math.round(waitMs / 100) / 10} s`;
    const lock = await acquireLock(this.d, {
      waitMs,
      interrupted: () => this.signal !== undefined,
      onWait: (h) =>
        this.opts.note?.(
          `--output-dir ${this.label} is being written by another cozy-gw run (${describeHolder(h)}): waiting up to ${seconds}`,
        ),
    });
    if (lock.kind === 'interrupted') throw new Stop();
    if (lock.kind === 'busy')
      this.fail(
        ` is being written by another cozy-gw run (${describeHolder(lock.holder)}); refusing${waitMs ? ` after waiting ${seconds}` : ''}`,
        `let that run finish and run again (--lock-timeout waits longer); if no such run is going on, remove ${path.join(this.label, LOCK)}`,
      );
    this.token = lock.token;
    if (lock.broke)
      this.opts.note?.(
        `--output-dir ${this.label}: removed the lock of a cozy-gw run that is no longer running (${describeHolder(lock.broke)})`,
      );
    this.recover();
  }

  /** Lock, recover, plan and stage, journal, commit, clean up (the module comment). */
  private async transact(source: TreeSource): Promise<TreeCommitResult> {
    await this.lockAndRecover();
    const prev = source.partial ? this.partialPrev(source.partial) : this.refuseForeign(false);
    this.stoppable = true;
    let plan: Plan;
    try {
      plan = await this.planAndStage(source, prev);
    } catch (e) {
      this.stoppable = false;
      this.quietly(() => this.d.removeAll(WORK));
      throw e;
    }
    if (!plan.moves.length && !plan.remove.length && !plan.recordChanges) {
      this.stoppable = false;
      if (plan.staged.size) this.d.removeAll(WORK, (l) => this.step(`cleanup ${l}`));
      return this.result(source, prev, plan, 0);
    }
    const journal: Journal = {
      id: (plan.record.length ? recordId(plan.record[0]) : undefined) ?? '',
      pid: process.pid,
      started: new Date().toISOString(),
      layout: 2,
      mkdirs: [],
      movedirs: plan.movedirs,
      moves: plan.moves.map((rel) => [rel, this.digests.get(rel)!]),
      aside: [...plan.replace, ...plan.remove],
    };
    try {
      this.step('journal');
      this.d.create(JOURNAL, journalBytes(journal), true);
      await this.commit(plan);
    } catch (e) {
      this.stoppable = false;
      if (this.committed) throw e;
      const outcome = this.rollBackNow(journal);
      if (e instanceof Stop) throw this.interrupted(outcome);
      if (e instanceof FindingsError) throw e;
      this.fail(`: cannot write the tree: ${reason(e)}; ${outcome}`, 'check the directory is writable and has room');
    }
    this.cleanUp();
    return this.result(source, prev, plan, plan.moves.length);
  }

  /** A partial run's earlier files, once the record it was planned against is found in place. */
  private partialPrev(p: NonNullable<TreeSource['partial']>): ReadonlyMap<string, string | undefined> {
    const start = this.recordStart();
    if (start === undefined || recordId(Buffer.from(start)) !== p.recordId) throw new TreeChanged();
    return p.prev;
  }

  private quietly(f: () => void): void {
    try {
      f();
    } catch {
      /* best effort: what is left is recovered by the next run */
    }
  }

  /** DIR, created (with its missing parents) when it does not exist; a file or a link there is refused. */
  private makeDir(): void {
    const missing: string[] = [];
    for (let cur = this.dir; ; cur = path.dirname(cur)) {
      let st: fs.Stats | undefined;
      try {
        st = fs.lstatSync(cur);
      } catch (e) {
        // ENOTDIR: a file stands where a parent should; the walk up names it.
        if (errCode(e) !== 'ENOENT' && errCode(e) !== 'ENOTDIR')
          this.fail(`: cannot write the tree: ${reason(e)}`, 'check the directory and its parent are readable');
      }
      if (st) {
        if (!st.isDirectory()) {
          if (cur === this.dir) this.fail(' is not a directory', 'name a directory, new or written by cozy-gw');
          this.fail(`: ${path.relative(this.cwd, cur) || cur} is not a directory; refusing to write through it`);
        }
        break;
      }
      missing.unshift(cur);
      if (path.dirname(cur) === cur) break;
    }
    for (const p of missing) {
      try {
        fs.mkdirSync(p);
      } catch (e) {
        this.removeCreatedDir();
        this.fail(`: cannot write the tree: ${reason(e)}`, 'check the directory and its parent are writable');
      }
      this.createdOutside.push(p);
    }
  }

  private removeCreatedDir(): void {
    for (const p of [...this.createdOutside].reverse()) {
      try {
        fs.rmdirSync(p);
      } catch {
        break;
      }
    }
    this.createdOutside.length = 0;
  }

  /**
   * DIR must be cozy-gw's or empty. Before the lock (`early`), a work area counts as cozy-gw's (an
   * interrupted first run); after recovery, only the record does. Returns the earlier tree's files.
   */
  private refuseForeign(early: boolean): Map<string, string | undefined> {
    // Before the lock only whether DIR is cozy-gw's is asked: its record's first line says so.
    if (early ? this.recordStart()?.startsWith(RECORD_COMMENT) : false) return new Map();
    const rec = this.readRecord();
    if (rec) return new Map(rec.files.map((f) => [f.path, f.sha256]));
    if (early && this.d.lstat(WORK)?.isDirectory()) return new Map();
    const special =
      this.dir === this.cwd
        ? 'the working directory'
        : this.opts.home !== undefined && this.dir === path.resolve(this.opts.home)
          ? 'the home directory'
          : this.dir === path.parse(this.dir).root
            ? 'the root directory'
            : undefined;
    if (special)
      this.fail(
        ` is ${special}, and cozy-gw has not written a tree there; refusing to write into it`,
        'name a new or empty directory, or one an earlier cozy-gw render wrote',
      );
    if (this.d.list('').some((e) => !isOwnName(e.name)))
      this.fail(
        ` holds files cozy-gw did not write (no ${RECORD} record); refusing to write into it`,
        'name a new or empty directory, or one an earlier cozy-gw render wrote',
      );
    return new Map();
  }

  /** The record's first bytes (its header lines), when a regular file stands there. */
  private recordStart(): string | undefined {
    return this.isFileAt(RECORD) ? this.d.readRange(RECORD, 0, 4096).toString('utf8') : undefined;
  }

  /** The state of each folder of the tree, looked up once: present, missing, or the component that is in the way. */
  private folderLookup(): (rel: string) => 'dir' | 'missing' | NotADirectory {
    const folders = new Map<string, 'dir' | 'missing'>();
    // DIR's own entries, listed once: a folder whose first component is not among them is missing,
    // known without a failed open each (8,000 of them in a first write at XL, 0.3 s). One that
    // appears after the listing is met by the commit, whose rename in whole refuses to replace it.
    let top: Set<string> | undefined;
    return (rel) => {
      const known = folders.get(rel);
      if (known) return known;
      top ??= new Set(this.d.list('').map((e) => e.name));
      if (rel !== '' && !top.has(rel.split('/', 1)[0])) {
        folders.set(rel, 'missing');
        return 'missing';
      }
      try {
        const st = this.d.dir(rel) === undefined ? 'missing' : 'dir';
        folders.set(rel, st);
        return st;
      } catch (e) {
        if (e instanceof NotADirectory) return e;
        throw e;
      }
    };
  }

  /** What an earlier run wrote and this one does not: the files to remove, and the folders they leave empty. */
  private removals(
    made: ReadonlySet<string>,
    prev: ReadonlyMap<string, string | undefined>,
  ): { remove: string[]; rmdirs: Set<string> } {
    const remove: string[] = [];
    const keep = new Set<string>();
    for (const rel of made) for (const a of ancestors(rel)) keep.add(a);
    const rmdirs = new Set<string>();
    for (const rel of [...prev.keys()].sort()) {
      if (made.has(rel) || rel === RECORD) continue;
      // Not a file, or its folder is a link or a file now: not what cozy-gw wrote; left alone (and named in the note).
      if (!this.isFileAt(rel)) continue;
      remove.push(rel);
      for (const a of ancestors(rel)) if (!keep.has(a)) rmdirs.add(a);
    }
    return { remove, rmdirs };
  }

  /**
   * What one file of the new tree needs, decided against DIR and the earlier record: a refusal (a
   * folder on its way that is not one, something else in its place, a user's file), nothing (it
   * already holds these bytes), or a move in (replacing an earlier file of ours, or not).
   */
  private decide(
    rel: string,
    digest: () => string,
    content: () => string,
    prev: ReadonlyMap<string, string | undefined>,
    folder: (rel: string) => 'dir' | 'missing' | NotADirectory,
  ): 'new' | 'replace' | 'same' | { problem: string; hint: string; folder?: string } {
    const slash = rel.lastIndexOf('/');
    const f = folder(slash < 0 ? '' : rel.slice(0, slash));
    if (f instanceof NotADirectory)
      return {
        problem: `${f.rel} is not a directory${f.link ? ' (a symbolic link)' : ''}; refusing to write through it`,
        hint: 'move it away, or name another directory',
        folder: f.rel,
      };
    if (f === 'missing') return 'new';
    const st = this.d.lstat(rel);
    if (!st) return 'new';
    if (!st.isFile())
      return {
        problem: `${rel} is in the way (${st.isDirectory() ? 'a directory' : st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}); refusing to replace it`,
        hint: 'move it away, or name another directory',
      };
    if (!prev.has(rel))
      return {
        problem: `${rel} exists and cozy-gw did not write it; refusing to replace it`,
        hint: 'move the file away, or name another directory',
      };
    // A file whose recorded digest differs is replaced unread; one recorded as these bytes is read,
    // in case someone edited it since.
    const recorded = prev.get(rel);
    return (recorded !== undefined && recorded !== digest()) || !this.sameBytes(rel, content()) ? 'replace' : 'same';
  }

  /**
   * Every decision and every refusal, file by file in output order, each changed file staged as it
   * is decided (the work area only: DIR is not touched); the refusals all at once at the end, the
   * work area then removed by the caller.
   */
  private async planAndStage(source: TreeSource, prev: ReadonlyMap<string, string | undefined>): Promise<Plan> {
    const problems: Finding[] = [];
    const broken = new Set<string>();
    const folder = this.folderLookup();
    const plan: Plan = {
      moves: [],
      replace: new Set(),
      remove: [],
      movedirs: [],
      rmdirs: [],
      recordChanges: false,
      record: [],
      staged: new Set(),
      pending: new Map(),
      pendingChars: 0,
    };
    const made = new Set<string>();
    const missing = new Set<string>();
    let done = 0;
    for (const f of source.files) {
      const rel = f.path;
      made.add(rel);
      let text: string | undefined;
      const content = () => (text ??= f.content());
      const digest = () => {
        let d = this.digests.get(rel);
        if (d === undefined) this.digests.set(rel, (d = sha256(content())));
        return d;
      };
      const what = this.decide(rel, digest, content, prev, folder);
      if (typeof what === 'object') {
        if (!what.folder || !broken.has(what.folder))
          problems.push(error(`--output-dir ${this.label}: ${what.problem}`, { rule: 'output.dir', hint: what.hint }));
        if (what.folder) broken.add(what.folder);
        continue;
      }
      digest();
      if (what !== 'same' && !problems.length) {
        if (what === 'new') for (const a of ancestors(rel)) if (folder(a) === 'missing') missing.add(a);
        if (what === 'replace') plan.replace.add(rel);
        plan.moves.push(rel);
        this.stageFile(plan, rel, content());
      }
      this.opts.progress?.(++done, source.files.length);
      await this.breathe();
    }
    const recSt = this.d.lstat(RECORD);
    if (recSt && !recSt.isFile() && !recSt.isSymbolicLink())
      problems.push(
        error(`--output-dir ${this.label}: ${RECORD} is in the way (not a regular file); refusing to replace it`, {
          rule: 'output.dir',
        }),
      );
    if (problems.length) throw new FindingsError(problems);
    this.stagePending(plan);
    return this.finishPlan(source, prev, plan, made, missing);
  }

  /** The plan's last parts: the record, what goes, and which folders move in whole. */
  private finishPlan(
    source: TreeSource,
    prev: ReadonlyMap<string, string | undefined>,
    plan: Plan,
    made: ReadonlySet<string>,
    missing: ReadonlySet<string>,
  ): Plan {
    const record = source.record((rel) => this.digests.get(rel)!);
    plan.record = Buffer.isBuffer(record) ? [record] : record;
    const { remove, rmdirs } = this.removals(made, prev);
    plan.remove = remove;
    plan.rmdirs = [...rmdirs].sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : 1));
    // A missing folder whose parent is not missing moves in whole (the folders inside it with it).
    plan.movedirs = [...missing].filter((f) => !ancestors(f).some((a) => missing.has(a))).sort();
    // A record of another size differs, unread (a re-render's record is the whole tree's: 39 MB at XL).
    const was = this.d.lstat(RECORD);
    const size = plan.record.reduce((n, b) => n + b.length, 0);
    plan.recordChanges = !was?.isFile() || was.size !== size || !sameBytes(this.readBytes(RECORD), plan.record);
    if (plan.moves.length || plan.remove.length || plan.recordChanges) {
      if (plan.replace.size || plan.remove.length) this.workFolder(plan, OLD);
      for (const rel of [...plan.replace, ...plan.remove]) this.workFolder(plan, parentOf(`${OLD}/${rel}`));
      this.workFolder(plan, WORK);
      this.step('stage record');
      this.d.create(NEXT_RECORD, plan.record, true);
    }
    return plan;
  }

  /** A folder of the work area, made (with the ones above it) the first time it is needed. */
  private workFolder(plan: Plan, rel: string): void {
    if (plan.staged.has(rel)) return;
    const slash = rel.lastIndexOf('/');
    if (slash > 0) this.workFolder(plan, rel.slice(0, slash));
    plan.staged.add(rel);
    this.step(`mkdir ${rel}`);
    this.d.mkdir(rel);
  }

  /**
   * A changed file, staged at its path under `new/`: held with the others of its folder and written
   * a folder at a time, once PENDING_CHARS are held and at the end. Output order goes back and forth
   * between a tenant's folder and `_cluster` (its cluster-scoped objects); creating files in that
   * order cost the file system four times what creating them a folder at a time costs (ext4: 23 s
   * against 5 s for the 170,000 files of the bench's XL tree; docs/performance.md "Writing a tree").
   */
  private stageFile(plan: Plan, rel: string, content: string): void {
    const folder = parentOf(rel);
    let files = plan.pending.get(folder);
    if (!files) plan.pending.set(folder, (files = []));
    files.push({ rel, content });
    plan.pendingChars += content.length;
    if (plan.pendingChars >= PENDING_CHARS) this.stagePending(plan);
  }

  /** The held files, a folder at a time (folders in the order first met, files in output order). */
  private stagePending(plan: Plan): void {
    for (const files of plan.pending.values())
      for (const { rel, content } of files) {
        const at = `${NEW}/${rel}`;
        this.workFolder(plan, parentOf(at));
        this.step(`stage ${rel}`);
        this.d.create(at, content);
      }
    plan.pending.clear();
    plan.pendingChars = 0;
  }

  /** DIR changes: folders in whole, files in (old ones aside), removed files aside, emptied folders, then the record. */
  private async commit(plan: Plan): Promise<void> {
    const moved = new Set(plan.movedirs);
    for (const f of plan.movedirs) {
      this.step(`movedir ${f}`);
      this.d.rename(`${NEW}/${f}`, f);
    }
    for (const rel of plan.moves) {
      if (ancestors(rel).some((a) => moved.has(a))) continue;
      if (plan.replace.has(rel)) {
        this.step(`aside ${rel}`);
        this.d.rename(rel, `${OLD}/${rel}`);
      }
      this.step(`move ${rel}`);
      this.d.rename(`${NEW}/${rel}`, rel);
      await this.breathe();
    }
    for (const rel of plan.remove) {
      this.step(`aside ${rel}`);
      this.d.rename(rel, `${OLD}/${rel}`);
      await this.breathe();
    }
    for (const f of plan.rmdirs) {
      this.step(`rmdir ${f}`);
      this.d.rmdir(f);
    }
    // A signal that came in during the moves is heard before the commit point (and rolls back).
    await tick();
    this.step('commit record');
    this.d.rename(NEXT_RECORD, RECORD);
    this.committed = true;
    this.stoppable = false;
  }

  /** After the commit point: the journal goes first (so nothing undoes the commit), then the work area. */
  private cleanUp(): void {
    try {
      this.step('cleanup journal');
      this.d.unlink(JOURNAL);
      this.d.removeAll(WORK, (l) => this.step(`cleanup ${l}`));
    } catch (e) {
      this.warnings.push(
        warning(
          `--output-dir ${this.label}: the new tree is in place, but its work area ${WORK} could not be removed (${reason(e)}); the next run removes it`,
          { rule: 'output.dir' },
        ),
      );
    }
  }

  /** A failure before the commit point: undo at once; say what became of DIR. */
  private rollBackNow(j: Journal): string {
    try {
      this.rollBack(j);
      return 'rolled back, it is as it was';
    } catch (e) {
      return `it could not be rolled back (${reason(e)}); the next run restores it`;
    }
  }

  /**
   * Undo a commit from its journal (idempotent: a rollback interrupted in turn is rolled back
   * again): folders and files moved in go back to the work area (a file only when it holds the
   * bytes the run wrote, a folder only when it holds nothing else), files moved aside come back,
   * created folders go, then the journal and the work area.
   */
  private rollBack(j: Journal): number {
    this.unmoveFolders(j);
    for (const [i, [rel, digest]] of j.moves.entries()) {
      const staged = stagedAt(j, rel, i);
      if (this.lstatQuiet(staged)) continue;
      if (!this.isFileAt(rel) || sha256(this.d.read(rel)) !== digest) continue;
      this.ensureFolders(NEW, j.layout === 2 ? rel : String(i));
      this.step(`unmove ${rel}`);
      this.d.rename(rel, staged);
    }
    for (const f of [...j.movedirs].sort((a, b) => depth(b) - depth(a))) this.removeEmptyFolders(f);
    let restored = 0;
    for (const [i, rel] of j.aside.entries()) {
      const aside = asideAt(j, rel, i);
      if (!this.lstatQuiet(aside)?.isFile()) continue;
      try {
        this.ensureFolders('', rel);
        if (this.d.lstat(rel)) continue;
      } catch (e) {
        if (e instanceof NotADirectory) continue;
        throw e;
      }
      this.step(`restore ${rel}`);
      this.d.rename(aside, rel);
      restored++;
    }
    for (const f of [...j.mkdirs].reverse()) {
      this.step(`rmdir ${f}`);
      this.d.rmdir(f);
    }
    if (this.d.lstat(JOURNAL)) {
      this.step('cleanup journal');
      this.d.unlink(JOURNAL);
    }
    this.d.removeAll(WORK, (l) => this.step(`cleanup ${l}`));
    return restored;
  }

  /** lstat that reads a path whose folders may be missing or not folders as absent. */
  private lstatQuiet(rel: string): fs.Stats | undefined {
    try {
      return this.d.lstat(rel);
    } catch (e) {
      if (e instanceof NotADirectory) return undefined;
      throw e;
    }
  }

  /**
   * The folders a journal's run moved in whole, moved back to `new/` when each holds only the files
   * the run moved into it, with the bytes it wrote (else its files go back one by one, below).
   */
  private unmoveFolders(j: Journal): void {
    if (!j.movedirs.length) return;
    const ours = new Map(j.moves);
    for (const f of j.movedirs) {
      const staged = `${NEW}/${f}`;
      if (this.lstatQuiet(staged) || !this.lstatQuiet(f)?.isDirectory()) continue;
      if (!this.holdsOnly(f, ours)) continue;
      this.ensureFolders(NEW, f);
      this.step(`unmovedir ${f}`);
      this.d.rename(f, staged);
    }
  }

  /** Whether folder `f` (and every folder in it) holds only files of `ours`, with the digests recorded there. */
  private holdsOnly(f: string, ours: ReadonlyMap<string, string>): boolean {
    for (const e of this.d.list(f)) {
      const rel = `${f}/${e.name}`;
      if (e.isDirectory()) {
        if (!this.holdsOnly(rel, ours)) return false;
      } else if (!e.isFile() || ours.get(rel) === undefined || sha256(this.d.read(rel)) !== ours.get(rel)) return false;
    }
    return true;
  }

  /** A folder a run moved in whole and whose files went back one by one: removed, deepest first, where empty. */
  private removeEmptyFolders(f: string): void {
    let entries: fs.Dirent[];
    try {
      if (!this.lstatQuiet(f)?.isDirectory()) return;
      entries = this.d.list(f);
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory()) this.removeEmptyFolders(`${f}/${e.name}`);
    if (this.d.list(f).length) return;
    this.step(`rmdir ${f}`);
    this.d.rmdir(f);
  }

  /** The missing folders of `rel` below `under` ('' for DIR), made. */
  private ensureFolders(under: string, rel: string): void {
    for (const a of [...(under ? ancestors(under) : []), ...(under ? [under] : [])]) {
      if (this.d.dir(a) === undefined) {
        this.step(`mkdir ${a}`);
        this.d.mkdir(a);
      }
    }
    for (const a of ancestors(rel)) {
      const f = under ? `${under}/${a}` : a;
      if (this.d.dir(f) === undefined) {
        this.step(`mkdir ${f}`);
        this.d.mkdir(f);
      }
    }
  }

  /** What an interrupted run left: its work area, recovered (finished or rolled back) with a note. */
  private recover(): void {
    const st = this.d.lstat(WORK);
    if (!st) return;
    const say = (what: string) => this.opts.note?.(`--output-dir ${this.label}: ${what}`);
    if (!st.isDirectory()) {
      this.step(`unlink ${WORK}`);
      this.d.unlink(WORK);
      say(
        `removed ${WORK}, which was not a work area cozy-gw made (${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'})`,
      );
      return;
    }
    const bytes = this.readBytes(JOURNAL);
    const j = bytes === undefined ? undefined : parseJournal(bytes);
    if (!j) {
      this.d.removeAll(WORK, (l) => this.step(`cleanup ${l}`));
      say('removed the work area of an interrupted cozy-gw run, which had not changed the tree yet');
      return;
    }
    const who = `pid ${j.pid}, started ${j.started}`;
    if (!this.d.lstat(NEXT_RECORD) && recordId(Buffer.from(this.recordStart() ?? '')) === j.id) {
      this.step('cleanup journal');
      this.d.unlink(JOURNAL);
      this.d.removeAll(WORK, (l) => this.step(`cleanup ${l}`));
      say(`an interrupted cozy-gw run (${who}) had committed its tree; finished it (removed its work area)`);
      return;
    }
    const restored = this.rollBack(j);
    say(
      `rolled back an interrupted cozy-gw run (${who}): the tree is as it was before it (${restored} file${restored === 1 ? '' : 's'} restored)`,
    );
  }

  /**
   * The result, with the entries cozy-gw did not write (a folder with a trailing `/`), from the tree
   * as it now is: DIR's own entries, and those of the folders an earlier run wrote into (a folder
   * this run moved in whole holds only its files). A partial run looks into the folders it changed
   * only, and takes DIR's other folders for the tree's.
   */
  private result(
    source: TreeSource,
    prev: ReadonlyMap<string, string | undefined>,
    plan: Plan,
    changed: number,
  ): TreeCommitResult {
    const made = new Set(source.files.map((f) => f.path));
    const wholly = new Set(plan.movedirs);
    const inner = new Set<string>();
    for (const rel of [...made, ...prev.keys()]) for (const a of ancestors(rel)) if (!wholly.has(a)) inner.add(a);
    const left: string[] = [];
    const queue = [''];
    for (let i = 0; i < queue.length; i++) {
      let entries: fs.Dirent[];
      try {
        entries = this.d.list(queue[i]);
      } catch {
        continue;
      }
      for (const e of entries) {
        const rel = queue[i] ? `${queue[i]}/${e.name}` : e.name;
        // What this run wrote is its own; an earlier file still here was not removed (not a regular file now): left.
        if ((queue[i] === '' && isOwnName(e.name)) || made.has(rel) || wholly.has(rel)) continue;
        if (source.partial?.held.has(rel)) continue;
        if (e.isDirectory() && inner.has(rel)) queue.push(rel);
        else if (!(e.isDirectory() && source.partial)) left.push(e.isDirectory() ? `${rel}/` : rel);
      }
    }
    const written = source.partial ? source.partial.total : made.size;
    return { written, changed, removed: plan.remove, left: left.sort(), warnings: this.warnings };
  }
}

/** Whether `bytes` are the parts, in order. */
function sameBytes(bytes: Buffer | undefined, parts: readonly Buffer[]): boolean {
  if (!bytes) return false;
  let at = 0;
  for (const p of parts) {
    if (at + p.length > bytes.length || !p.equals(bytes.subarray(at, at + p.length))) return false;
    at += p.length;
  }
  return at === bytes.length;
}

/** The folder a path is in ('' for DIR). */
function parentOf(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? '' : rel.slice(0, slash);
}

/** Write the tree `source` gives (its files in output order, kustomization.yaml last) with its record into DIR as one transaction. */
export function commitTree(
  label: string,
  cwd: string,
  source: TreeSource,
  opts: TreeCommitOptions = {},
): Promise<TreeCommitResult> {
  const last = source.files[source.files.length - 1];
  if (!source.partial && last?.path !== KUSTOMIZATION) throw new Error('a tree has a kustomization.yaml');
  return new TreeRun(label, cwd, opts).run(source);
}
