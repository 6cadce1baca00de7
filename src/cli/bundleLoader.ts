/**
 * Loading the CLI's bundle (dist/cozy-gw.js, scripts/bundle.js) with V8's code cache, through
 * Node.js's documented `vm.Script` `cachedData` (docs/decisions.md §C13). Node.js's own compile
 * cache holds only what V8 compiles as a module loads, and nearly all of the bundle is compiled
 * later, as its functions first run; the cache written here is made when a run of a command ends
 * (`script.createCachedData()`), so it holds what that command compiled, and the next run of the
 * command starts without compiling it again (some 50 ms of a small run).
 *
 * Nothing reaches V8 unchecked: a cache file names the bundle it was made from (the SHA-256 of its
 * source), the Node.js, the CPU and the command, and holds the SHA-256 of its data; a file that
 * does not match in every part, is cut short or has a byte changed is not used, and the run
 * compiles as without a cache and writes a good one at its end. V8 checks what it is given once
 * more (its version, flags and the source's length) and may reject it too.
 *
 * The cache lives in a directory of the user's own, mode 0700 (`COZY_GW_CODE_CACHE_DIR`, else
 * `cozy-gw-code-cache-<uid>` in the system's temporary directory), never followed through a link
 * nor read when another user owns it or may write to it. `COZY_GW_CODE_CACHE=off` or Node.js's
 * `NODE_DISABLE_COMPILE_CACHE` turns it off. A cache is written only by a run that succeeded
 * (exit 0, or diff's 3), by an exclusive temporary file renamed into place; any failure to read or
 * write it is silent and changes nothing else. Where `vm.Script` cannot take a cache (Bun, the
 * release binaries), {@link loadBundle} returns undefined and bin/ requires the bundle itself.
 *
 * This module is not part of the bundle: bin/ loads it first, from tsc's output.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

/** The first line of a cache file, then the hex SHA-256 of the bundle's source and of the data, a line each. */
const MAGIC = 'cozy-gw code cache v1';

/**
 * The bundle's first and last text (scripts/bundle.js writes them): one function expression,
 * called as the file loads as a CommonJS module. Compiled here without the call (a slice of the
 * source: no copy), the text evaluates to the function itself.
 */
export const BUNDLE_HEAD = '(function (exports, require, module, __filename, __dirname) {';
export const BUNDLE_CALL = '.call(this, exports, require, module, __filename, __dirname);\n';

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

/** Whether dir is a directory of this user's that no one else may write to (made so when missing). */
export function ownDirectory(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    if (!st.isDirectory()) return false;
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return false;
    return process.platform === 'win32' || (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The cache file of a bundle source, for this Node.js, CPU and command. */
export function cacheFile(dir: string, sourceHash: string, command: string): string {
  const key = sha256([sourceHash, process.version, process.arch, process.execArgv.join(' '), command].join('\n'));
  return path.join(dir, `${command.replace(/[^a-z-]/g, '') || 'run'}-${key.slice(0, 32)}.bin`);
}

/** The data of a cache file made from the source whose hash is given, or undefined when it does not check out. */
export function readCache(file: string, sourceHash: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return undefined;
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const head = `${MAGIC}\n${sourceHash}\n`;
  const headLength = head.length + 65;
  if (bytes.length <= headLength || bytes.toString('latin1', 0, head.length) !== head) return undefined;
  const data = bytes.subarray(headLength);
  return bytes.toString('latin1', head.length, head.length + 64) === sha256(data) && bytes[headLength - 1] === 0x0a
    ? data
    : undefined;
}

/** Write a cache file: an exclusive temporary file beside it, renamed into place; any failure is silent. */
export function writeCache(file: string, sourceHash: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    try {
      fs.writeSync(fd, `${MAGIC}\n${sourceHash}\n${sha256(data)}\n`);
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
  }
}

/**
 * Load the bundle through `vm.Script` with its cache (see the module comment); its exports, or
 * undefined where this cannot be done here (Bun; a bundle that cannot be read), and bin/ then
 * requires the bundle as Node.js or Bun does.
 */
export function loadBundle(o: BundleLoad): Record<string, unknown> | undefined {
  if ((process.versions as Record<string, string | undefined>).bun !== undefined) return undefined;
  let source: string;
  try {
    source = fs.readFileSync(o.bundle, 'utf8');
  } catch {
    return undefined;
  }
  if (!source.startsWith(BUNDLE_HEAD) || !source.endsWith(BUNDLE_CALL)) return undefined;
  const dir = cacheDirectory(o.env);
  const useCache = dir !== undefined && ownDirectory(dir);
  const sourceHash = useCache ? sha256(source) : '';
  const file = useCache ? cacheFile(dir, sourceHash, o.command) : '';
  const cachedData = useCache ? readCache(file, sourceHash) : undefined;
  const script = new vm.Script(source.slice(0, source.length - BUNDLE_CALL.length), { filename: o.bundle, cachedData });
  const mod = { exports: {} as Record<string, unknown>, filename: o.bundle, id: o.bundle };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(mod.exports, mod.exports, createRequire(o.bundle), mod, o.bundle, path.dirname(o.bundle));
  if (useCache && (cachedData === undefined || script.cachedDataRejected)) {
    process.on('exit', (code) => {
      if (SUCCESS.has(code)) writeCache(file, sourceHash, script.createCachedData());
    });
  }
  return mod.exports;
}
