/**
 * Start-up: how V8's optimising compiler (TurboFan) treats the package's code (README
 * "Performance", bench/RESULTS.md round 37). Both executables in bin/ set it before anything else loads.
 *
 * A pass is a few hundred functions, each hot for a short while, and TurboFan compiles each with
 * every small function it calls inlined: compilations of 50 to 130 ms each for the largest
 * (decideHostnames, the YAML reader's line loop), on a second core, about a third of a TL run's
 * CPU. Without inlining the same functions compile in a fraction of that, and the compiled code is
 * barely slower (the main thread's CPU within 1-3%): TL's CPU falls by 0.2-0.35 s, its wall time
 * by 40-190 ms, and TS's by 15-20 ms. The longest runs gain nothing: `fn` over 20,000 tenants, ten
 * seconds of the same functions, is 2% slower.
 *
 * What keeps it safe:
 * - V8's flags change how code is compiled, never what it computes (the output is byte for byte
 *   the same; test/cli/compilerFlags.test.ts).
 * - It is set before the code cache is read (src/cli/codeCache.ts): V8 checks the flags a cache
 *   was made under, and the build's training runs (scripts/code-cache.js) go through this same
 *   bin, so their cache is made under them.
 * - A flag about inlining given to node itself (`node --turbo-inlining bin/cozy-gw.js`) is kept.
 * - Under Bun (the release binaries: JavaScriptCore, no V8) nothing is set.
 */

/** The flags set: TurboFan without inlining. */
export const COMPILER_FLAGS = '--no-turbo-inlining';

/** Whether to set the flags: on V8, and only where node's own options say nothing of inlining. */
export function wantsCompilerFlags(execArgv: readonly string[], versions: NodeJS.ProcessVersions): boolean {
  if (versions.bun !== undefined || versions.v8 === undefined) return false;
  return !execArgv.some((a) => /^--(no-?)?turbo[-_]inlining\b|^--max[-_]inlined/.test(a));
}

/** Set the flags for this process (the edge: node:v8). Returns whether they were set. */
export function tuneCompiler(
  execArgv: readonly string[] = process.execArgv,
  versions: NodeJS.ProcessVersions = process.versions,
): boolean {
  if (!wantsCompilerFlags(execArgv, versions)) return false;
  try {
    (require('node:v8') as typeof import('node:v8')).setFlagsFromString(COMPILER_FLAGS);
    return true;
  } catch {
    // A runtime whose node:v8 cannot set flags runs with its defaults.
    return false;
  }
}
