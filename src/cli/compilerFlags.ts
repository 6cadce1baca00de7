/**
 * Start-up: how V8's optimising compiler (TurboFan) treats the package's code (README
 * "Performance", bench/RESULTS.md rounds 37 and 39). Both executables in bin/ set it before anything else loads.
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
 * - A flag given to node itself for the same setting (`node --turbo-inlining bin/cozy-gw.js`) is
 *   kept (NODE_OPTIONS admits neither).
 * - Under Bun (the release binaries: JavaScriptCore, no V8) nothing is set.
 */

/**
 * The flags set, each with the pattern of node's own options that set the same thing (then node's
 * is kept, and this one not set):
 * - TurboFan without inlining;
 * - an interrupt budget 8 times V8's 67,584 bytes of bytecode: a function is optimised after eight
 *   times as much of it has run. Most of a pass's functions are hot for a moment, and TurboFan
 *   compiled 231 of them in a TL run, 0.43 s of CPU; 88 now (bench/RESULTS.md round 39). Runs of
 *   the same functions for seconds pay for the later start: `fn` over 20,000 tenants, up to 5%.
 */
const FLAGS: readonly { flag: string; given: RegExp }[] = [
  { flag: '--no-turbo-inlining', given: /^--(no-?)?turbo[-_]inlining\b|^--max[-_]inlined/ },
  { flag: '--interrupt-budget=540672', given: /^--interrupt[-_]budget(=|$)/ },
];

/** Every flag this module may set, as one string (V8's setFlagsFromString reads several). */
export const COMPILER_FLAGS = FLAGS.map((f) => f.flag).join(' ');

/** The flags to set: on V8, each one that node's own options say nothing of. */
export function compilerFlags(execArgv: readonly string[], versions: NodeJS.ProcessVersions): string[] {
  if (versions.bun !== undefined || versions.v8 === undefined) return [];
  return FLAGS.filter((f) => !execArgv.some((a) => f.given.test(a))).map((f) => f.flag);
}

/** Set the flags for this process (the edge: node:v8). Returns whether they were set. */
export function tuneCompiler(
  execArgv: readonly string[] = process.execArgv,
  versions: NodeJS.ProcessVersions = process.versions,
): boolean {
  const flags = compilerFlags(execArgv, versions);
  if (flags.length === 0) return false;
  try {
    (require('node:v8') as typeof import('node:v8')).setFlagsFromString(flags.join(' '));
    return true;
  } catch {
    // A runtime whose node:v8 cannot set flags runs with its defaults.
    return false;
  }
}
