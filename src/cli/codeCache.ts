/**
 * Start-up: V8's code cache for the package's own CommonJS modules (dist/ and its dependencies
 * under node_modules/), written once by `npm run build` (scripts/code-cache.js) and read by
 * bin/cozy-gw.js before anything else loads.
 *
 * Without it every run parses each module's source again and compiles each function the first
 * time it is called: about 30 ms of a small run's 350 (README "Performance"). With it, V8 takes
 * the bytecode the build's training runs left behind, and each relative request a cached module
 * makes (`./x`, `../y/z`) goes to the file the build resolved it to, without Node.js's search
 * (installResolver).
 *
 * What keeps it safe:
 * - One folder per Node.js build (`process.version`, the V8 version and the architecture in its
 *   name), one file per command in it: another Node.js finds no file and runs as if there were
 *   none, and a command the build did not train (`--help`, `completion`) loads as usual.
 * - Each entry carries the SHA-1 of the source it was made from, and a module whose text differs
 *   (a rebuild without the cache step, an edited file) is compiled as usual; V8 itself refuses a
 *   cache made under other flags. A missing, unreadable or malformed file is no cache at all.
 * - Only modules with an entry go through here: ES modules, JSON and any file the training runs
 *   did not load are loaded by Node.js itself, untouched.
 * - A request is resolved from the record only when it is relative and made by a module whose
 *   SHA-1 matched (its text makes the same requests), and a file under node_modules/ only while it
 *   is still there; a package name is always Node.js's to resolve.
 * - Nothing is written at run time: the cache is read, never made, outside the build.
 * - `COZY_GW_CODE_CACHE=off` leaves Node.js's loader alone (a reviewer comparing, a debugger).
 *   bun's standalone executables (.goreleaser.yaml) have no such loader: installing is a no-op.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';

/** The package root: this file is dist/cli/codeCache.js. */
const ROOT = path.resolve(__dirname, '..', '..');
const MAGIC = 'cozy-gw code cache 2\n';

/**
 * One module's cached bytecode: its path under the package root and the SHA-1 of its source; and
 * `requires`, the relative requests (`./x`, `../y/z`) it made in the training runs, each with the
 * file Node.js resolved it to, under the package root too.
 */
export interface CacheEntry {
  file: string;
  sha1: string;
  data: Uint8Array;
  requires?: Readonly<Record<string, string>>;
}

/** A decoded entry: `requires` by request. */
export interface CachedModule {
  sha1: string;
  data: Buffer;
  requires: ReadonlyMap<string, string>;
}

/** The folder of this Node.js build's cache files, one per command, under dist/. */
export function cacheDir(
  root: string = ROOT,
  versions: { node: string; v8: string; arch: string } = {
    node: process.version,
    v8: process.versions.v8,
    arch: process.arch,
  },
): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  return path.join(
    root,
    'dist',
    'code-cache',
    `node-${safe(versions.node)}-v8-${safe(versions.v8)}-${safe(versions.arch)}`,
  );
}

/**
 * The command a run's arguments name (the first that is not an option), whose cache it reads:
 * each command's file holds what that command compiles, and V8 reads a module's whole entry
 * whether its functions run or not.
 */
export function commandOf(args: readonly string[]): string | undefined {
  const c = args.find((a) => !a.startsWith('-'));
  return c !== undefined && /^[a-z][a-z-]*$/.test(c) ? c : undefined;
}

/** The source's SHA-1, as the entries record it. */
export function sourceHash(source: string): string {
  // Loaded here, not at the top: `--help` and `--version` hash nothing.
  const crypto = require('node:crypto') as typeof import('node:crypto') & {
    hash?: (algorithm: string, data: string, encoding: 'base64') => string;
  };
  // The one-shot form (Node.js >= 20.12) where there is one: no Hash object per module.
  return crypto.hash
    ? crypto.hash('sha1', source, 'base64')
    : crypto.createHash('sha1').update(source).digest('base64');
}

/** The file's bytes: the magic line, the index's length, the index (JSON), then the data. */
export function encodeCache(entries: readonly CacheEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  let offset = 0;
  const index = sorted.map((e) => {
    const requires = Object.fromEntries(Object.entries(e.requires ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
    const row: [string, string, number, number, Record<string, string>] = [
      e.file,
      e.sha1,
      offset,
      e.data.length,
      requires,
    ];
    offset += e.data.length;
    return row;
  });
  const head = Buffer.from(JSON.stringify(index), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length, 0);
  return Buffer.concat([Buffer.from(MAGIC, 'utf8'), len, head, ...sorted.map((e) => e.data)]);
}

/** The entries of a cache file's bytes by path, or undefined when they are not one (never throws). */
export function decodeCache(bytes: Buffer): Map<string, CachedModule> | undefined {
  const magic = Buffer.from(MAGIC, 'utf8');
  if (bytes.length < magic.length + 4 || !bytes.subarray(0, magic.length).equals(magic)) return undefined;
  const len = bytes.readUInt32LE(magic.length);
  const start = magic.length + 4 + len;
  if (start > bytes.length) return undefined;
  let index: unknown;
  try {
    index = JSON.parse(bytes.subarray(magic.length + 4, start).toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(index)) return undefined;
  const out = new Map<string, CachedModule>();
  for (const row of index as unknown[]) {
    if (!Array.isArray(row) || row.length !== 5) return undefined;
    const [file, sha1, offset, length, table] = row as unknown[];
    if (typeof file !== 'string' || typeof sha1 !== 'string') return undefined;
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length)) return undefined;
    const from = start + (offset as number);
    const to = from + (length as number);
    if ((offset as number) < 0 || (length as number) < 0 || to > bytes.length) return undefined;
    const requires = requiresOf(table);
    if (!requires) return undefined;
    out.set(file, { sha1, data: bytes.subarray(from, to), requires });
  }
  return out;
}

/** An index row's requests and files (an object of strings), or undefined. */
function requiresOf(table: unknown): Map<string, string> | undefined {
  if (typeof table !== 'object' || table === null || Array.isArray(table)) return undefined;
  const out = new Map<string, string>();
  for (const [request, file] of Object.entries(table)) {
    if (typeof file !== 'string') return undefined;
    out.set(request, file);
  }
  return out;
}

/** A request resolved the same way wherever the package is: relative to the module that makes it. */
function isRelativeRequest(request: string): boolean {
  return request.startsWith('./') || request.startsWith('../');
}

type Compile = (this: NodeJS.Module, content: string, filename: string, format?: string) => unknown;
interface ModuleStatics {
  prototype: { _compile: Compile; require: (id: string) => unknown };
  wrap: (source: string) => string;
  _resolveFilename: (request: string, parent: NodeJS.Module, isMain: boolean, options?: unknown) => string;
  _resolveLookupPaths?: (request: string, parent: NodeJS.Module) => string[] | null;
  _cache: unknown;
  _extensions: unknown;
}

/** What the training runs (scripts/code-cache.js) read back: each module compiled through here. */
export interface Recorder {
  record: (file: string, sha1: string, script: vm.Script) => void;
  /** A relative request a module made, and the file it resolved to (both under the package root). */
  resolved?: (file: string, request: string, target: string) => void;
}

/** Told of each module compiled through here, and whether V8 took its cached bytecode (tests). */
export type Observer = (file: string, fromCache: boolean) => void;

/** Marks the loader's compile function once installed: a second install is a no-op. */
const INSTALLED = Symbol.for('cozy-gw.codeCache');

/** Whether the loader is left alone: bun, the off switch, or a Node.js whose loader is not this one. */
function leftAlone(env: NodeJS.ProcessEnv, Module: ModuleStatics): boolean {
  if (process.versions.bun !== undefined || env.COZY_GW_CODE_CACHE === 'off') return true;
  const compile = Module.prototype._compile as Compile & { [INSTALLED]?: true };
  return typeof compile !== 'function' || typeof Module.wrap !== 'function' || compile[INSTALLED] === true;
}

/**
 * Install the cache: modules with an entry whose source still matches are compiled from it.
 * `recorder` (the build's training runs only) compiles every module of the package through here
 * and hands each script over, so that its bytecode can be written once the run ends.
 * Returns whether Node.js's loader now goes through here.
 */
export function installCodeCache(
  options: {
    /** The command run (its file); absent, the one `args` name (commandOf). */
    command?: string;
    args?: readonly string[];
    env?: NodeJS.ProcessEnv;
    recorder?: Recorder;
    observer?: Observer;
    root?: string;
  } = {},
): boolean {
  const Module = require('node:module') as unknown as ModuleStatics;
  if (leftAlone(options.env ?? process.env, Module)) return false;
  const root = options.root ?? ROOT;
  let entries: Map<string, CachedModule> | undefined;
  if (!options.recorder) {
    const command = options.command ?? commandOf(options.args ?? process.argv.slice(2));
    if (command === undefined) return false;
    try {
      entries = decodeCache(fs.readFileSync(path.join(cacheDir(root), `${command}.bin`)));
    } catch {
      return false;
    }
    if (!entries) return false;
  }
  // The resolutions of the modules taken from the cache, by their file names.
  const tables = new Map<string, ReadonlyMap<string, string>>();
  installResolver(Module, root, tables, options.recorder);
  const original = Module.prototype._compile;
  Module.prototype._compile = function compile(this: NodeJS.Module, content, filename, format) {
    const file = cacheable(root, filename, format, content);
    const entry = file === undefined ? undefined : entries?.get(file);
    if (file === undefined || (!entry && !options.recorder)) return original.call(this, content, filename, format);
    const sha1 = sourceHash(content);
    const cachedData = entry && entry.sha1 === sha1 ? entry.data : undefined;
    if (!cachedData && !options.recorder) return original.call(this, content, filename, format);
    if (cachedData && entry!.requires.size > 0) tables.set(filename, entry!.requires);
    let script: vm.Script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, cachedData, importModuleDynamically: dynamicImport() });
    } catch {
      // Not CommonJS after all (Node.js reads some as ES modules): Node.js's own path decides.
      return original.call(this, content, filename, format);
    }
    options.recorder?.record(file, sha1, script);
    options.observer?.(file, cachedData !== undefined && !script.cachedDataRejected);
    return run(Module, this, script, filename);
  };
  Object.defineProperty(Module.prototype._compile, INSTALLED, { value: true });
  return true;
}

/**
 * Relative requests resolved as the build resolved them (each Node.js resolution stats files and
 * walks their real paths: some 25 ms of a small run's start-up, README "Performance"). Only for
 * a module taken from the cache, whose text is the one that made the request when the cache was
 * written. A file under node_modules/ is taken only while it is still there: a reinstalled package
 * may have moved it while the module requiring it kept its text. dist/ is the build's own output,
 * written with the cache, and tsc never deletes a file there. Anything else, a package name and a
 * request with options or from the main module included, is resolved by Node.js. Recording (the
 * training runs), every such resolution Node.js makes is handed to the recorder.
 */
function installResolver(
  Module: ModuleStatics,
  root: string,
  tables: ReadonlyMap<string, ReadonlyMap<string, string>>,
  recorder: Recorder | undefined,
): void {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function resolveFilename(this: unknown, request, parent, isMain, opts) {
    const from = parent?.filename;
    if (isMain || opts !== undefined || typeof from !== 'string' || !isRelativeRequest(request))
      return resolve.call(this, request, parent, isMain, opts);
    const known = tables.get(from)?.get(request);
    if (known !== undefined) {
      const target = path.join(root, known);
      if (known.startsWith('dist/') || fs.existsSync(target)) return target;
    }
    const target = resolve.call(this, request, parent, isMain, opts);
    if (recorder?.resolved) {
      const file = packagePath(root, from);
      const to = packagePath(root, target);
      if (file !== undefined && to !== undefined) recorder.resolved(file, request, to);
    }
    return target;
  };
}

/** The module's path under the package root when it may be cached: CommonJS in dist/ or node_modules/. */
function cacheable(root: string, filename: string, format: string | undefined, content: string): string | undefined {
  if (format !== undefined && format !== 'commonjs') return undefined;
  return content.startsWith('#!') ? undefined : packagePath(root, filename);
}

/** A JavaScript file's path under the package root (`/`-separated), when it is in dist/ or node_modules/. */
function packagePath(root: string, filename: string): string | undefined {
  const rel = path.relative(root, filename);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const file = rel.split(path.sep).join('/');
  if (!file.startsWith('dist/') && !file.startsWith('node_modules/')) return undefined;
  return file.endsWith('.js') || file.endsWith('.cjs') ? file : undefined;
}

/** `import()` inside a cached module behaves as in any other (Node.js >= 20.12). */
function dynamicImport(): vm.ScriptOptions['importModuleDynamically'] {
  const c = (vm as unknown as { constants?: { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } }).constants;
  return c?.USE_MAIN_CONTEXT_DEFAULT_LOADER as vm.ScriptOptions['importModuleDynamically'];
}

/** Run a compiled module wrapper as Node.js's loader does, with the module's own `require`. */
function run(Module: ModuleStatics, mod: NodeJS.Module, script: vm.Script, filename: string): unknown {
  const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
  const require = ((id: string) => Module.prototype.require.call(mod, id)) as NodeJS.Require;
  const resolve = ((request: string, opts?: unknown) =>
    Module._resolveFilename(request, mod, false, opts)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => Module._resolveLookupPaths?.(request, mod) ?? null;
  require.resolve = resolve;
  require.main = process.mainModule;
  require.cache = Module._cache as NodeJS.Require['cache'];
  require.extensions = Module._extensions as NodeJS.Require['extensions'];
  return wrapper.call(mod.exports, mod.exports, require, mod, filename, path.dirname(filename));
}
