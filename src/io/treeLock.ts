/**
 * The output tree's lock (docs/decisions.md §12: two runs into one DIR never interleave): the file
 * `DIR/.cozy-gw-lock`, naming its holder (process id, host, start time and a random token).
 *
 * - Taking it is atomic: the holder's line is written to a file of its own first
 *   (`.cozy-gw-lock.<token>`) and then hard-linked to the lock's name, which fails when the name
 *   exists; the lock therefore never exists half-written. On a file system without hard links
 *   (vfat, SMB) the name is created exclusively instead (a reader that finds it still empty waits).
 * - A second run waits for it, polling, for a bounded time, then refuses, naming DIR and the holder.
 * - A stale lock (its holder is a process of this host that is no longer running, or whose process
 *   id now belongs to a later process: its start time differs, whatever `kill` answers) is broken safely: the breaker links the lock to a tombstone
 *   named after the stale holder's token (`.cozy-gw-lock.break-<token>`), which only one breaker
 *   can create, checks that the tombstone holds that stale token (so the lock it is about to remove
 *   is the stale one, not a live lock taken since), removes the lock, then the tombstone. A lock
 *   of another host is never judged stale.
 * - Releasing removes the lock only while it is still this run's (its token).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { SafeDir } from './safeDir';

export const LOCK = '.cozy-gw-lock';
const TEMP_PREFIX = `${LOCK}.`;
const TOMB_PREFIX = `${LOCK}.break-`;
/** A tombstone older than this was left by a breaker that died: the break takes microseconds. */
const TOMB_STALE_MS = 10_000;

export interface LockHolder {
  pid: number;
  host: string;
  /** When the holder took the lock (ISO 8601). */
  started: string;
  token: string;
  /** The holder's start time in clock ticks since boot (Linux `/proc/<pid>/stat`), telling a reused process id. */
  since?: string;
}

export interface LockWait {
  /** How long to wait for another run's lock, in milliseconds (0: refuse at once). */
  waitMs: number;
  /** The polling interval while waiting. */
  pollMs?: number;
  /** Said once when the run starts waiting. */
  onWait?: (holder: LockHolder | undefined) => void;
  /** Checked while waiting: a true value stops the wait (a signal arrived); the thrown error is the caller's. */
  interrupted?: () => boolean;
}

export type LockOutcome =
  | { kind: 'held'; token: string; broke?: LockHolder }
  | { kind: 'busy'; holder: LockHolder | undefined }
  | { kind: 'interrupted' };

/** The holder's line (JSON) of this process. */
function holderText(token: string): string {
  const h: LockHolder = { pid: process.pid, host: os.hostname(), started: new Date().toISOString(), token };
  const since = procStart(process.pid);
  if (since) h.since = since;
  return `${JSON.stringify(h)}\n`;
}

export function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as LockHolder;
    if (Number.isInteger(h?.pid) && typeof h.host === 'string' && typeof h.token === 'string') return h;
  } catch {
    /* not a lock cozy-gw wrote */
  }
  return undefined;
}

/** A process's start time (Linux: field 22 of /proc/<pid>/stat); undefined elsewhere or when it is gone. */
function procStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder is a process of this host that no longer runs, or whose process id a later
 * process took: its start time (where the system tells it) differs from the one the lock records,
 * whatever `kill` answers (EPERM means only that the id belongs to a process of another user, the
 * recorded holder's or not). Without start times, `kill`'s ESRCH alone says the process is gone.
 */
export function isStale(h: LockHolder, kill: (pid: number) => void = (pid) => process.kill(pid, 0)): boolean {
  if (h.host !== os.hostname()) return false;
  if (h.since !== undefined && procStart(process.pid) !== undefined) {
    // This system tells start times: the holder is alive only as the process that started then.
    return procStart(h.pid) !== h.since;
  }
  try {
    kill(h.pid);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
  return false;
}

function readHolder(d: SafeDir, rel: string): LockHolder | undefined {
  try {
    return parseHolder(d.read(rel).toString('utf8'));
  } catch {
    return undefined;
  }
}

function errCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

/**
 * link() refused because the file system has no hard links (vfat answers EPERM, SMB and others
 * ENOTSUP or EOPNOTSUPP): the lock is then taken by creating its name exclusively instead.
 */
function noHardLinks(e: unknown): boolean {
  return ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(errCode(e) ?? '');
}

/** One attempt: take the lock, or say who holds it. */
function attempt(d: SafeDir, token: string): LockHolder | undefined | 'held' {
  const temp = `${TEMP_PREFIX}${token}`;
  const text = holderText(token);
  d.create(temp, text);
  let held = false;
  let linkless = false;
  try {
    d.link(temp, LOCK);
    held = true;
  } catch (e) {
    // ENOENT: the own file went (a holder cleaning debris judged it); try again.
    linkless = noHardLinks(e);
    if (!linkless && errCode(e) !== 'EEXIST' && errCode(e) !== 'ENOENT') {
      d.unlink(temp);
      throw e;
    }
  }
  try {
    d.unlink(temp);
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw e;
  }
  if (linkless) {
    // Created exclusively, the lock exists for a moment before its line is written: a reader
    // meanwhile cannot read a holder, so it waits (an unreadable holder is never judged stale).
    try {
      d.create(LOCK, text, true);
      held = true;
    } catch (e) {
      if (errCode(e) !== 'EEXIST') throw e;
    }
  }
  if (held) return 'held';
  return readHolder(d, LOCK);
}

/** Break the stale lock of `stale`; true when this call removed it (or it was gone already). */
function breakStale(d: SafeDir, stale: LockHolder): boolean {
  const tomb = `${TOMB_PREFIX}${stale.token.replace(/[^0-9a-f]/g, '')}`;
  try {
    d.link(LOCK, tomb);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return true;
    if (noHardLinks(e)) return breakStaleWithoutLinks(d, stale, tomb);
    if (errCode(e) !== 'EEXIST') throw e;
    // Another breaker is at it, or died at it.
    const st = d.lstat(tomb);
    if (st && Date.now() - st.ctimeMs > TOMB_STALE_MS) d.unlink(tomb);
    return false;
  }
  try {
    if (readHolder(d, tomb)?.token !== stale.token) return false;
    d.unlink(LOCK);
    return true;
  } finally {
    d.unlink(tomb);
  }
}

/**
 * breakStale where hard links are refused: the lock is moved to the tombstone (one mover wins),
 * and moved back at once when it proves to be a live lock taken since the stale one was read.
 */
function breakStaleWithoutLinks(d: SafeDir, stale: LockHolder, tomb: string): boolean {
  if (d.lstat(tomb)) return false; // another breaker is at it
  try {
    d.rename(LOCK, tomb);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return true;
    throw e;
  }
  if (readHolder(d, tomb)?.token === stale.token) {
    d.unlink(tomb);
    return true;
  }
  d.rename(tomb, LOCK);
  return false;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Take DIR's lock, waiting as `wait` says; the outcome names the holder when it stays busy. */
export async function acquireLock(d: SafeDir, wait: LockWait): Promise<LockOutcome> {
  const token = crypto.randomBytes(16).toString('hex');
  const deadline = Date.now() + wait.waitMs;
  let broke: LockHolder | undefined;
  let waited = false;
  for (;;) {
    const got = attempt(d, token);
    if (got === 'held') {
      cleanDebris(d, token);
      return { kind: 'held', token, ...(broke ? { broke } : {}) };
    }
    if (got && isStale(got) && breakStale(d, got)) {
      broke = got;
      continue;
    }
    if (wait.interrupted?.()) return { kind: 'interrupted' };
    if (Date.now() >= deadline) return { kind: 'busy', holder: got };
    if (!waited) wait.onWait?.(got);
    waited = true;
    await sleep(Math.min(wait.pollMs ?? 100, Math.max(1, deadline - Date.now())));
  }
}

/**
 * Holding the lock: the leftovers of runs killed while taking or breaking it (a holder's own file
 * whose process is gone, a tombstone older than a break takes) go.
 */
function cleanDebris(d: SafeDir, token: string): void {
  for (const e of d.list('')) {
    if (!e.name.startsWith(TEMP_PREFIX) || e.name === `${TEMP_PREFIX}${token}`) continue;
    try {
      if (e.name.startsWith(TOMB_PREFIX)) {
        const st = d.lstat(e.name);
        if (st && Date.now() - st.ctimeMs > TOMB_STALE_MS) d.unlink(e.name);
      } else if (e.isFile()) {
        // A taker's own file is written just before it is linked: one that does not parse yet may
        // be a live taker's, and goes only once it is old.
        const h = readHolder(d, e.name);
        const st = d.lstat(e.name);
        if (h ? isStale(h) : st !== undefined && Date.now() - st.mtimeMs > TOMB_STALE_MS) d.unlink(e.name);
      }
    } catch {
      /* gone already, or not ours to judge: left */
    }
  }
}

/** Release the lock if it is still this run's. */
export function releaseLock(d: SafeDir, token: string): void {
  if (readHolder(d, LOCK)?.token === token) d.unlink(LOCK);
}

/** The holder in a message: `pid 123 on host ci-4, since 2026-01-01T00:00:00.000Z`. */
export function describeHolder(h: LockHolder | undefined): string {
  return h ? `pid ${h.pid} on host ${h.host}${h.started ? `, since ${h.started}` : ''}` : 'a holder it cannot read';
}
