#!/usr/bin/env node
'use strict';
/**
 * A step of `npm run build`: the CLI as one file, dist/cozy-gw.js, which bin/ loads. esbuild
 * bundles dist/cli/index.js (tsc's output) and the libraries it requires, so that a run reads and
 * resolves one file instead of some 150 modules, and the package needs no dependencies installed
 * beside it (docs/decisions.md §C13). Each module of the bundle still runs only when it is first
 * required, so a command runs no more of it than before (src/cli/lateModules.ts). The vendored
 * upstream validators (dist/validation/upstreamValidators.*.generated.js: megabytes that only
 * `--validate` reads, one family at a time) stay files of their own beside it, required when
 * needed. The licences of the libraries bundled go to dist/THIRD-PARTY-LICENSES.txt.
 *
 *   node scripts/bundle.js
 */
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'cozy-gw.js');
const LICENSES = path.join(DIST, 'THIRD-PARTY-LICENSES.txt');

/** The upstream validators' family files: left out of the bundle, required from dist/validation/. */
const familyFiles = {
  name: 'upstream-validator-families',
  setup(build) {
    build.onResolve({ filter: /^\.\/upstreamValidators\.[A-Za-z]+\.generated$/ }, (args) => ({
      path: `./validation/${path.basename(args.path)}.js`,
      external: true,
    }));
  },
};

/**
 * commander requires node:child_process as it loads, for executable subcommands, which cozy-gw
 * has none of; loading it (and net, dgram and the rest it loads) is some 5-10 ms of every run's
 * start. In the bundle that require runs when commander first spawns, never at load. The build
 * fails if commander's source no longer reads as expected, rather than bundle it unchanged.
 */
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!source.includes(COMMANDER_CHILD_PROCESS))
        return { errors: [{ text: `${args.path}: "${COMMANDER_CHILD_PROCESS}" not found (commander changed)` }] };
      const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
      return { contents: source.replace(COMMANDER_CHILD_PROCESS, lazy), loader: 'js' };
    });
  },
};

/** The package directory of a bundled input under node_modules/, or undefined. */
function packageDir(input) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return m ? path.join(ROOT, m[1]) : undefined;
}

/** Every bundled library's name, version and licence text, sorted by name. */
function licences(metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const d = packageDir(input);
    if (d) dirs.add(d);
  }
  const out = [];
  for (const d of dirs) {
    const pkg = JSON.parse(fs.readFileSync(path.join(d, 'package.json'), 'utf8'));
    const file = fs.readdirSync(d).find((f) => /^(licen[cs]e|copying)(\.md|\.txt)?$/i.test(f));
    const text = file ? fs.readFileSync(path.join(d, file), 'utf8').trim() : `License: ${pkg.license ?? 'unknown'}`;
    out.push({ name: pkg.name, text: `${pkg.name} ${pkg.version} (${pkg.license ?? 'unknown'})\n\n${text}\n` });
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return (
    'The libraries bundled into dist/cozy-gw.js, and their licences.\n\n' +
    out.map((o) => o.text).join(`\n${'-'.repeat(78)}\n\n`)
  );
}

/**
 * How the bundle is made (test/cel/engine.test.ts bundles the CEL engine alone the same way).
 * Whitespace and syntax minified, names kept: a third less source for V8 to read and hold (a small
 * run's peak memory is some 4 MB lower), and a stack trace still names its functions.
 */
const OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.19',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
};

/**
 * The bundle is one function expression, called as the file loads as a CommonJS module, so that
 * src/cli/bundleLoader.ts can compile the same text without that call (a slice of the source, no
 * copy) and take the function itself from V8 with its code cache. Its first and last text are the
 * loader's (tsc's output, built before this step).
 */
function frame() {
  const { BUNDLE_HEAD, BUNDLE_CALL, BUILD_MARK } = require(path.join(DIST, 'cli', 'bundleLoader.js'));
  return { banner: { js: `${BUNDLE_HEAD}\n${BUILD_MARK}${UNSTAMPED}` }, footer: { js: `})${BUNDLE_CALL.trimEnd()}` } };
}

/**
 * The bundle's text with every character past ASCII written as a `\u` escape. esbuild escapes
 * them in strings, not in a regular expression's literal (the CEL engine's duration pattern holds
 * `µs`); one such character makes V8 hold the whole 1.9 MB source two bytes a character, in every
 * run. The escape means the same character in a string, a regular expression (with or without
 * the `u` flag: an astral character as its surrogate pair) and a name.
 */
function asciiOnly(text) {
  return text.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes, c) => {
    // After an escaping backslash the character is escaped already (`\µ`): an escape there would read otherwise.
    if (slashes.length % 2)
      throw new Error(`bundle: an escaped character past ASCII (U+${c.charCodeAt(0).toString(16)})`);
    return `${slashes}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** The second line's hash before the build is stamped: 64 zeros, the same length as the hash. */
const UNSTAMPED = '0'.repeat(64);

/**
 * The build's hash in the bundle's second line: the SHA-256 of the bundle as written with 64 zeros
 * in its place. The loader keys its code cache by it (src/cli/bundleLoader.ts), so that another
 * build's cache is never taken for this one's.
 */
function stamp(file) {
  const { BUNDLE_HEAD, BUILD_MARK } = require(path.join(DIST, 'cli', 'bundleLoader.js'));
  const text = asciiOnly(fs.readFileSync(file, 'utf8'));
  const at = BUNDLE_HEAD.length + 1 + BUILD_MARK.length;
  if (text.slice(at - BUILD_MARK.length, at + 64) !== BUILD_MARK + UNSTAMPED)
    throw new Error(`${file}: no build line to stamp`);
  const hash = require('node:crypto').createHash('sha256').update(text).digest('hex');
  fs.writeFileSync(file, text.slice(0, at) + hash + text.slice(at + 64));
}

async function main() {
  const result = await esbuild.build({
    ...OPTIONS,
    ...frame(),
    entryPoints: [path.join(DIST, 'cli', 'index.js')],
    outfile: OUT,
    metafile: true,
    logLevel: 'warning',
    plugins: [familyFiles, lazyChildProcess],
  });
  stamp(OUT);
  fs.writeFileSync(LICENSES, licences(result.metafile));
}

module.exports = { OPTIONS, asciiOnly };

if (require.main === module) main().catch(() => process.exit(1));
