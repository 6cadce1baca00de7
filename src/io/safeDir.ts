/**
 * A directory whose insides are reached without ever following a link (docs/decisions.md §12: the
 * output tree never writes or deletes outside DIR). Every path below the root is walked one
 * component at a time, each directory opened with `O_DIRECTORY | O_NOFOLLOW` from its parent's
 * descriptor, and every operation acts on one name inside a directory opened that way: a link, or
 * a folder replaced by a link (`ln -s ../outside DIR/tenant-bob`), stops the walk with
 * `NotADirectory` instead of leading outside. Never a string-prefix check.
 *
 * Node has no `openat(2)`; on Linux `/proc/self/fd/N/name` resolves `name` inside the directory of
 * descriptor N, so the walk is openat's: a directory checked once cannot be swapped for a link
 * under the walk. Where there is no `/proc/self/fd` (macOS), each component is checked with
 * `lstat` before it is used instead (a link standing in the tree is refused the same way; only a
 * link swapped in between the check and the use, by another process writing DIR at that instant,
 * is not); so it is under Node.js's permission model, which does not let a write through /proc
 * reach DIR (writableThrough).
 *
 * Descriptors of the directories walked are cached (a few: the tree is two levels deep and written
 * in order, so the cache stays small) and closed by `close()`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ReadBuffer } from './stdin';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
const OPEN_DIR = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
/**
 * Directory descriptors kept open at once. The least recently used goes first, so the few folders
 * one operation walks (two paths, a handful of components) are never closed under it.
 */
const CACHE = 64;
/** What the cache holds after the process ran out of descriptors once (EMFILE): still more than the few folders one operation walks (two paths, a handful of components), which must stay open under it. */
const CACHE_SHED = 16;

/** A path component that is a link or not a directory: the walk stops there. */
export class NotADirectory extends Error {
  constructor(
    /** The component, relative to the root. */
    readonly rel: string,
    /** Whether it is a symbolic link (else a file or another kind of entry). */
    readonly link: boolean,
  ) {
    super(`${rel} is not a directory${link ? ' (a symbolic link)' : ''}`);
  }
}

/**
 * Whether Node.js lets this process write through `proc` (/proc/self/fd/N). Its permission model
 * (`node --permission --allow-fs-write=DIR`) grants paths as they are written, and a write to
 * /proc/self/fd/N/name is a write under /proc, which granting DIR does not grant: the tree was
 * refused (ERR_ACCESS_DENIED) whatever DIR was allowed. There the walk checks each component with
 * lstat, as where there is no /proc.
 */
function writableThrough(proc: string): boolean {
  const permission = (process as { permission?: { has(scope: string, reference?: string): boolean } }).permission;
  return permission === undefined || permission.has('fs.write', `${proc}/`);
}

/**
 * Flush a file to disk. Node.js's permission model disables fsync altogether (ERR_ACCESS_DENIED
 * whatever is granted, Node.js 20 to 24): there the file is written and renamed into place as
 * everywhere, and only its flush before the rename, which guards against a power cut, is left out.
 */
function flush(fd: number): void {
  try {
    fs.fsyncSync(fd);
  } catch (e) {
    if (code(e) !== 'ERR_ACCESS_DENIED') throw e;
  }
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

export class SafeDir {
  private readonly fds = new Map<string, { fd: number; base: string }>();
  /** How many directories the cache keeps open: CACHE, or CACHE_SHED once the process ran out. */
  private limit = CACHE;
  private readonly viaProc: boolean;
  private readonly rootFd: number;

  /**
   * Open `root`, which must be a directory itself (a link to one is refused: NotADirectory of '').
   * `throughProc: false` walks with lstat checks even where /proc/self/fd could be used, as under
   * Node.js's permission model (writableThrough): the same refusals, tested both ways.
   */
  constructor(
    readonly root: string,
    o: { throughProc?: boolean } = {},
  ) {
    let fd: number;
    try {
      fd = fs.openSync(root, OPEN_DIR);
    } catch (e) {
      if (code(e) === 'ENOTDIR' || code(e) === 'ELOOP') throw new NotADirectory('', isLink(root));
      throw e;
    }
    this.rootFd = fd;
    const proc = `/proc/self/fd/${fd}`;
    let viaProc = false;
    try {
      viaProc = o.throughProc !== false && fs.statSync(proc).ino === fs.fstatSync(fd).ino && writableThrough(proc);
    } catch {
      /* no /proc: lstat checks */
    }
    this.viaProc = viaProc;
    this.fds.set('', { fd, base: viaProc ? proc : root });
  }

  close(): void {
    for (const { fd } of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }

  /**
   * The base path of directory `rel` ('' is the root), through which a name inside it is reached
   * without following links; undefined when a component is missing. Throws NotADirectory at the
   * first component that is a link or not a directory.
   */
  dir(rel: string): string | undefined {
    const hit = this.fds.get(rel);
    if (hit) {
      // Most recently used last.
      this.fds.delete(rel);
      this.fds.set(rel, hit);
      return hit.base;
    }
    const slash = rel.lastIndexOf('/');
    const parentRel = slash < 0 ? '' : rel.slice(0, slash);
    const parent = this.dir(parentRel);
    if (parent === undefined) return undefined;
    const p = `${parent}/${rel.slice(slash + 1)}`;
    let fd: number;
    try {
      fd = this.retried(p, () => fs.openSync(p, OPEN_DIR));
    } catch (e) {
      if (code(e) === 'ENOENT') return undefined;
      if (code(e) === 'ENOTDIR' || code(e) === 'ELOOP') throw new NotADirectory(rel, isLink(p));
      throw e;
    }
    const base = this.viaProc ? `/proc/self/fd/${fd}` : p;
    if (!this.viaProc && isLink(p)) {
      fs.closeSync(fd);
      throw new NotADirectory(rel, true);
    }
    this.fds.set(rel, { fd, base });
    if (this.fds.size > this.limit) {
      for (const [k, v] of this.fds) {
        if (k === '' || k === rel) continue;
        fs.closeSync(v.fd);
        this.fds.delete(k);
        break;
      }
    }
    return base;
  }

  /**
   * `op` on the path `p`, run once more when the process is out of descriptors (EMFILE, ENFILE: a
   * low `ulimit -n`, 80 and less, where node's own twenty and the cache's 64 did not fit, and a tree
   * of a hundred tenants failed halfway). Before that the cache closes its least recently used
   * directories down to half of CACHE_SHED, never the root, the directory `p` is reached through,
   * nor the most recent (an operation on two paths, rename or link, holds the first while it walks
   * to the second); it keeps CACHE_SHED from then on.
   */
  private retried<T>(p: string, op: () => T): T {
    try {
      return op();
    } catch (e) {
      if (code(e) !== 'EMFILE' && code(e) !== 'ENFILE') throw e;
      this.limit = CACHE_SHED;
      const closable = [...this.fds].filter(([k, v]) => k !== '' && !p.startsWith(`${v.base}/`));
      for (const [k, v] of closable.slice(0, Math.max(0, this.fds.size - CACHE_SHED / 2))) {
        fs.closeSync(v.fd);
        this.fds.delete(k);
      }
      return op();
    }
  }

  /** `rel`'s place: its directory's base path and its own name; undefined when a parent is missing. */
  private at(rel: string): string | undefined {
    const slash = rel.lastIndexOf('/');
    const base = this.dir(slash < 0 ? '' : rel.slice(0, slash));
    return base === undefined ? undefined : `${base}/${rel.slice(slash + 1)}`;
  }

  private must(rel: string): string {
    const p = this.at(rel);
    if (p === undefined) {
      const err = new Error(`ENOENT: no such file or directory, ${rel}`) as NodeJS.ErrnoException;
      err.code = 'ENOENT';
      throw err;
    }
    return p;
  }

  /** The entry at `rel` itself (a link is a link), or undefined when it or a parent is missing. */
  lstat(rel: string): fs.Stats | undefined {
    const p = this.at(rel);
    if (p === undefined) return undefined;
    try {
      return fs.lstatSync(p);
    } catch (e) {
      if (code(e) === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** The bytes of the regular file at `rel` (a link is refused: ELOOP). */
  read(rel: string): Buffer {
    const p = this.must(rel);
    const fd = this.retried(p, () => fs.openSync(p, O_RDONLY | O_NOFOLLOW));
    try {
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * `length` bytes of the regular file at `rel` from `offset` (fewer where it ends sooner; a link
   * is refused: ELOOP): a part of a large file, read without the rest.
   */
  readRange(rel: string, offset: number, length: number): Buffer {
    const p = this.must(rel);
    const fd = this.retried(p, () => fs.openSync(p, O_RDONLY | O_NOFOLLOW));
    try {
      const buf = Buffer.allocUnsafe(length);
      let n = 0;
      for (let r = -1; r !== 0 && n < length; n += r) r = fs.readSync(fd, buf, n, length - n, offset + n);
      return buf.subarray(0, n);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * The bytes of the regular file at `rel` (a link is refused: ELOOP), read into `into`: they hold
   * until its next read (src/io/stdin.ts, ReadBuffer: no buffer made per file).
   */
  readInto(rel: string, into: ReadBuffer): Buffer {
    const p = this.must(rel);
    const fd = this.retried(p, () => fs.openSync(p, O_RDONLY | O_NOFOLLOW));
    try {
      // Its size and a byte more: a read that fills that, the file grew since, reads the rest anew.
      const buf = into.take(fs.fstatSync(fd).size + 1);
      let n = 0;
      for (let r = -1; r !== 0 && n < buf.length; n += r) r = fs.readSync(fd, buf, n, buf.length - n, null);
      return n < buf.length ? buf.subarray(0, n) : Buffer.concat([buf, fs.readFileSync(fd)]);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Create the file `rel` (it must not exist; never through a link) holding `content`, with `mode`
   * before the umask; `sync` flushes it to disk. A string is encoded by the write itself, not into a Buffer first: a tree of
   * millions of files made a Buffer each, memory outside the heap that V8 answers with full
   * collections (src/io/stdin.ts, ReadBuffer).
   */
  create(rel: string, content: string | Buffer | readonly Buffer[], sync = false, mode = 0o666): void {
    const p = this.must(rel);
    const fd = this.retried(p, () => fs.openSync(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode));
    try {
      if (typeof content === 'string') writeString(fd, content);
      else if (Buffer.isBuffer(content)) fs.writeFileSync(fd, content);
      else writeParts(fd, content);
      if (sync) flush(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  mkdir(rel: string): void {
    fs.mkdirSync(this.must(rel));
  }

  /** Remove the empty directory `rel`; false when it is not empty (or gone). */
  rmdir(rel: string): boolean {
    this.forget(rel);
    try {
      fs.rmdirSync(this.must(rel));
      return true;
    } catch (e) {
      if (['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes(code(e) ?? '')) return false;
      throw e;
    }
  }

  /** Rename the entry `from` to `to` (both inside the root; a link is moved as a link, never followed). */
  rename(from: string, to: string): void {
    this.forget(from);
    fs.renameSync(this.must(from), this.must(to));
  }

  /** A second name `to` for the file `from`; EEXIST when `to` exists. */
  link(from: string, to: string): void {
    fs.linkSync(this.must(from), this.must(to));
  }

  /** Remove the entry `rel` (a link is removed, never followed). */
  unlink(rel: string): void {
    fs.unlinkSync(this.must(rel));
  }

  /** The entries of directory `rel`. */
  list(rel: string): fs.Dirent[] {
    const base = this.dir(rel);
    return base === undefined ? [] : this.retried(`${base}/`, () => fs.readdirSync(base, { withFileTypes: true }));
  }

  /** A file-system path for messages and for tools that need one (the walk's own paths are not for people). */
  display(rel: string): string {
    return rel ? path.join(this.root, rel) : this.root;
  }

  /** Drop cached descriptors of `rel` and below (it is being removed or moved). */
  private forget(rel: string): void {
    for (const [k, v] of this.fds) {
      if (k !== '' && (k === rel || k.startsWith(`${rel}/`))) {
        fs.closeSync(v.fd);
        this.fds.delete(k);
      }
    }
  }

  /**
   * Remove `rel` and everything below it, links as links (never followed), without recursion:
   * a work list of directories, emptied and removed deepest first.
   */
  removeAll(rel: string, before?: (label: string) => void): void {
    const st = this.lstat(rel);
    if (!st) return;
    if (!st.isDirectory()) {
      before?.(`unlink ${rel}`);
      this.unlink(rel);
      return;
    }
    const dirs = [rel];
    for (let i = 0; i < dirs.length; i++) {
      for (const e of this.list(dirs[i])) {
        const r = `${dirs[i]}/${e.name}`;
        if (e.isDirectory()) dirs.push(r);
        else {
          before?.(`unlink ${r}`);
          this.unlink(r);
        }
      }
    }
    for (let i = dirs.length - 1; i >= 0; i--) {
      before?.(`rmdir ${dirs[i]}`);
      this.forget(dirs[i]);
      fs.rmdirSync(this.must(dirs[i]));
    }
  }

  /** The root's own descriptor (for tests that check nothing leaks). */
  get fd(): number {
    return this.rootFd;
  }
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Buffers written in turn, IOV_MAX at a time (writev), each written whole however the writes fall short. */
function writeParts(fd: number, parts: readonly Buffer[]): void {
  for (let i = 0; i < parts.length; i += WRITEV_MAX) {
    const batch = parts.slice(i, i + WRITEV_MAX);
    let n = fs.writevSync(fd, batch);
    for (const b of batch) {
      if (n >= b.length) n -= b.length;
      else {
        fs.writeFileSync(fd, b.subarray(n));
        n = 0;
      }
    }
  }
}
/** The most buffers one writev takes (Linux's IOV_MAX). */
const WRITEV_MAX = 1024;

/** All of `s`, UTF-8, written at the descriptor's offset: encoded by the write (a short write, rare, finishes from its bytes). */
function writeString(fd: number, s: string): void {
  const n = fs.writeSync(fd, s);
  const total = Buffer.byteLength(s, 'utf8');
  if (n < total) fs.writeFileSync(fd, Buffer.from(s, 'utf8').subarray(n));
}
