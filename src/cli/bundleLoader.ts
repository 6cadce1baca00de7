/**
 * Loading the CLI's bundle (dist/cozy-gw.js, scripts/bundle.js) with V8's code cache, through
 * Node.js's documented `vm.Script` `cachedData` (docs/decisions.md §C13). Node.js's own compile
 * cache holds only what V8 compiles as a module loads, and nearly all of the bundle is compiled
 * later, as its functions first run; the cache written here is made when a run of a command ends
 * (`script.createCachedData()`), so it holds what that command compiled, and the next run of the
 * command starts without compiling it again (some 50 ms of a small run).
 *
 * Nothing reaches V8 unchecked. A cache file names, in full, the bundle it was made from (the
 * build's SHA-256, which scripts/bundle.js writes into the bundle's second line, and the file's
 * size, modification time and inode, so that a bundle changed in place is another bundle), the
 * Node.js, the CPU, the options node was started with and the command; it holds the length of its
 * data and its SHA-256. A file that does not match in every part, is cut short or has
 * a byte changed is not used, and the run compiles as without a cache and writes a good one at its
 * end. V8 checks what it is given once more (its version, flags and the source's length) and may
 * reject it too. The checksum guards against damage, not against an attacker: the directory is
 * the user's own, and whoever may write there may already change what the user runs. The build's
 * hash is read, not computed: the 1.5 MB of the bundle are not hashed by every run.
 *
 * The cache lives in a directory of the user's own, mode 0700 (`COZY_GW_CODE_CACHE_DIR`, else
 * `cozy-gw-code-cache-<uid>` in the system's temporary directory), never followed through a link
 * nor read when another user owns it or may write to it. `COZY_GW_CODE_CACHE=off` or Node.js's
 * `NODE_DISABLE_COMPILE_CACHE` turns it off. A cache is written only by a run that succeeded
 * (exit 0, or diff's 3), by an exclusive temporary file renamed into place; each write leaves at
 * most {@link KEEP_PER_COMMAND} files of its command, the ones used last (a cache taken is marked
 * used: {@link markUsed}), so that builds and Node.js versions gone by do not pile up while those in
 * use stay (kept by when they were written, five keys of one command in turn evicted each other
 * and every call compiled anew: docs/performance.md "Running the benchmark"). Any failure to read or write is silent and changes nothing
 * else. Where `vm.Script` cannot take a cache (Bun, the release binaries), {@link loadBundle}
 * returns undefined and bin/ requires the bundle itself.
 *
 * This module is not part of the bundle: bin/ loads it first, from tsc's output, with the one module
 * of its own it needs (src/io/makeDirectories.ts).
 */
import { createHash, hash } from 'node:crypto';
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { makeDirectories } from '../io/makeDirectories';

/** The first line of a cache file; then the key (its bundle, Node.js, CPU, options, command), then the data's length and checksum, a line each. */
const MAGIC = 'cozy-gw code cache v2';

/** The most cache files of one command a write leaves in the directory. */
export const KEEP_PER_COMMAND = 8;

/**
 * The bundle's first and last text (scripts/bundle.js writes them): one function expression,
 * called as the file loads as a CommonJS module. Compiled here without the call (a slice of the
 * source: no copy), the text evaluates to the function itself.
 */
export const BUNDLE_HEAD = '(function (exports, require, module, __filename, __dirname) {';
/** The bundle's second line: this, then the build's hex SHA-256 (scripts/bundle.js). */
export const BUILD_MARK = '// cozy-gw build ';
/**
 * The call, as the file runs when required as a module (Bun; Bun's compiled executables). The
 * bundle's requires of the files beside it (the validators' families, dist/validation/) resolve
 * from the bundle's own path: a compiled executable inlines the bundle into its entry point, whose
 * `require` resolves from elsewhere, while `createRequire(__filename)` finds the files embedded
 * beside the bundle (.goreleaser.yaml). Under Node.js it is the module's own `require`.
 */
export const BUNDLE_CALL =
  '.call(this, exports, require("node:module").createRequire(__filename), module, __filename, __dirname);\n';

/** The exit codes of a run that succeeded (diff exits 3 on differences). */
const SUCCESS = new Set([0, 3]);

export interface BundleLoad {
  /** The bundle's path (dist/cozy-gw.js). */
  bundle: string;
  /** The command run (`render`, `fn`, ...): each has a cache of its own. */
  command: string;
  env: NodeJS.ProcessEnv;
}

/** The directory the cache lives in, or undefined when it is off. */
export function cacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  if (env.COZY_GW_CODE_CACHE === 'off' || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return undefined;
  if (env.COZY_GW_CODE_CACHE_DIR) return path.resolve(env.COZY_GW_CODE_CACHE_DIR);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `cozy-gw-code-cache-${uid}`);
}

/**
 * Whether dir is a directory of this user's that no one else may write to (made so when missing).
 * `parents: false` makes dir alone, in a parent that exists: the default directory is made in the
 * system's temporary directory, never the temporary directory itself where TMPDIR names one that
 * is not there (`TMPDIR=/nonexistent/x` made /nonexistent/x); a COZY_GW_CODE_CACHE_DIR the user
 * names gets its parents.
 */
export function ownDirectory(dir: string, { parents = true }: { parents?: boolean } = {}): boolean {
  try {
    if (parents || fs.existsSync(path.dirname(dir))) makeDirectories(dir, 0o700);
    const st = fs.lstatSync(dir);
    if (!st.isDirectory()) return false;
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return false;
    return process.platform === 'win32' || (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Node.js's own compile cache (`module.enableCompileCache`, Node.js 22.1 and later), for the files
 * loaded as modules after the bundle (the validators' families, which --validate reads), kept in
 * `node/` of the code cache's directory once that is known to be the user's own: never in the
 * directory Node.js would choose, which it makes with a recursive mkdir that never returns where
 * mkdir answers ENOENT under a parent that exists (TMPDIR=/proc; src/io/makeDirectories.ts).
 */
export function enableNodeCompileCache(dir: string): void {
  const enable = (nodeModule as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (typeof enable !== 'function') return;
  const own = path.join(dir, 'node');
  try {
    makeDirectories(own, 0o700);
    enable(own);
  } catch {
    // a cache not kept is a cache not kept
  }
}

/** The hex SHA-256 of bytes (node:crypto's one-shot `hash` where Node.js has it, 21.7 and later). */
export function checksum(bytes: Uint8Array | string): string {
  return typeof hash === 'function' ? hash('sha256', bytes, 'hex') : createHash('sha256').update(bytes).digest('hex');
}

/** What a bundle is known by: its build (the second line's hash) and the file as it is on disk. */
export interface BundleIdentity {
  build: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** The key of a cache: the bundle, this Node.js, CPU and node options, and the command. One line. */
export function cacheKey(bundle: BundleIdentity, command: string): string {
  return [
    `build=${bundle.build}`,
    `size=${bundle.size}`,
    `mtime=${bundle.mtimeMs}`,
    `ino=${bundle.ino}`,
    `node=${process.version}`,
    `arch=${process.arch}`,
    `options=${JSON.stringify(process.execArgv)}`,
    `command=${command}`,
  ]
    .join(' ')
    .replace(/[\r\n]/g, ' ');
}

/** The file name of a command's cache: the command's name, then the start of the key's hash. */
export function cacheFile(dir: string, key: string, command: string): string {
  return path.join(dir, `${commandStem(command)}-${checksum(key).slice(0, 32)}.bin`);
}

const commandStem = (command: string) => command.replace(/[^a-z-]/g, '') || 'run';

/** The data of a cache file made under the key given, or undefined when it does not check out. */
export function readCache(file: string, key: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return undefined;
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const head = `${MAGIC}\n${key}\n`;
  if (bytes.length <= head.length || bytes.toString('utf8', 0, head.length) !== head) return undefined;
  const end = bytes.indexOf(0x0a, head.length);
  if (end < 0) return undefined;
  const m = /^(\d+) ([0-9a-f]{64})$/.exec(bytes.toString('latin1', head.length, end));
  const data = bytes.subarray(end + 1);
  return m && Number(m[1]) === data.length && m[2] === checksum(data) ? data : undefined;
}

/**
 * Write a cache file: an exclusive temporary file beside it, renamed into place; then the command's
 * older files past {@link KEEP_PER_COMMAND} are removed, the oldest first. Any failure is silent.
 */
export function writeCache(file: string, key: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    try {
      fs.writeSync(fd, `${MAGIC}\n${key}\n${data.length} ${checksum(data)}\n`);
      fs.writeSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // nothing was made
    }
    return;
  }
  pruneCaches(path.dirname(file), path.basename(file));
}

/**
 * Mark a cache file used now (its modification time, which {@link pruneCaches} keeps by). Any
 * failure is silent: the file is then only older than it is.
 */
export function markUsed(file: string): void {
  try {
    const now = new Date();
    fs.utimesSync(file, now, now);
  } catch {
    // a cache not marked is kept by when it was written
  }
}

/** Remove the files of kept's command beyond the newest {@link KEEP_PER_COMMAND}, kept never among them. */
export function pruneCaches(dir: string, kept: string): void {
  const stem = kept.slice(0, kept.lastIndexOf('-') + 1);
  const pattern = /^[a-z-]*-[0-9a-f]{32}\.bin$/;
  try {
    const others = fs
      .readdirSync(dir)
      .filter((f) => f !== kept && f.startsWith(stem) && pattern.test(f) && !f.slice(stem.length).includes('-'))
      .map((f) => ({ f, t: fs.lstatSync(path.join(dir, f)).mtimeMs }))
      .sort((x, y) => y.t - x.t || (x.f < y.f ? -1 : 1));
    for (const { f } of others.slice(KEEP_PER_COMMAND - 1)) fs.unlinkSync(path.join(dir, f));
  } catch {
    // a cache left is a cache left: nothing else depends on it
  }
}

/** The bundle's build hash from its second line, or undefined when it has none. */
export function buildOf(source: string): string | undefined {
  const at = BUNDLE_HEAD.length + 1;
  if (source.slice(at, at + BUILD_MARK.length) !== BUILD_MARK) return undefined;
  const hash = source.slice(at + BUILD_MARK.length, at + BUILD_MARK.length + 64);
  return /^[0-9a-f]{64}$/.test(hash) ? hash : undefined;
}

/**
 * Load the bundle through `vm.Script` with its cache (see the module comment); its exports, or
 * undefined where this cannot be done here (Bun; a bundle that cannot be read), and bin/ then
 * requires the bundle as Node.js or Bun does.
 */
export function loadBundle(o: BundleLoad): Record<string, unknown> | undefined {
  if ((process.versions as Record<string, string | undefined>).bun !== undefined) return undefined;
  let source: string;
  let identity: BundleIdentity | undefined;
  try {
    // The file's identity first, then its text (read by path: Node.js decodes it without a
    // buffer of its own): a bundle changed between the two is keyed by its old identity, which
    // the next run's does not match.
    const st = fs.statSync(o.bundle);
    source = fs.readFileSync(o.bundle, 'utf8');
    const build = buildOf(source);
    identity = build === undefined ? undefined : { build, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
  } catch {
    return undefined;
  }
  if (!source.startsWith(BUNDLE_HEAD) || !source.endsWith(BUNDLE_CALL)) return undefined;
  const dir = identity === undefined ? undefined : cacheDirectory(o.env);
  const key =
    identity !== undefined && dir !== undefined && ownDirectory(dir, { parents: Boolean(o.env.COZY_GW_CODE_CACHE_DIR) })
      ? cacheKey(identity, o.command)
      : undefined;
  const useCache = key !== undefined && dir !== undefined;
  if (useCache) enableNodeCompileCache(dir);
  const file = useCache ? cacheFile(dir, key, o.command) : '';
  const cachedData = useCache ? readCache(file, key) : undefined;
  const script = new vm.Script(source.slice(0, source.length - BUNDLE_CALL.length), { filename: o.bundle, cachedData });
  const mod = { exports: {} as Record<string, unknown>, filename: o.bundle, id: o.bundle };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(mod.exports, mod.exports, nodeModule.createRequire(o.bundle), mod, o.bundle, path.dirname(o.bundle));
  if (cachedData !== undefined && !script.cachedDataRejected) markUsed(file);
  if (useCache && (cachedData === undefined || script.cachedDataRejected)) {
    process.on('exit', (code) => {
      if (SUCCESS.has(code)) writeCache(file, key, script.createCachedData());
    });
  }
  return mod.exports;
}
