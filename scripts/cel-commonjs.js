#!/usr/bin/env node
'use strict';
/**
 * A step of `npm run build`: the CEL engine (@marcbachmann/cel-js, an ES module package) as
 * CommonJS in dist/vendor/cel-js/, which src/cel/engine.ts loads in the built CLI.
 *
 * Why: Node.js loads an ES module through `require()` by its ES module loader (URL resolution,
 * package.json lookups, module records), about 15 ms of a small run's start-up on Node.js 20. The
 * conversion is the one the
 * tests have always run the engine through: SWC's ES module to CommonJS transform, as jest's
 * transform does (jest.config.js), so nothing about the engine's behaviour changes. Each file
 * carries the package's license and version. The package's files are read from node_modules, so
 * the copy is always the installed version's.
 *
 *   node scripts/cel-commonjs.js
 *
 * A failure leaves no copy and says why; the build goes on (the built CLI then loads the
 * package itself; test/cel/engine.test.ts fails on a build without the copy).
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist', 'vendor', 'cel-js');

function main() {
  fs.rmSync(OUT, { recursive: true, force: true });
  try {
    const pkgDir = path.join(ROOT, 'node_modules', '@marcbachmann', 'cel-js');
    const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    const license = fs.readFileSync(path.join(pkgDir, 'LICENSE'), 'utf8').trim();
    const header = `/*! ${pkg.name} ${pkg.version}, converted to CommonJS by scripts/cel-commonjs.js.\n${license}\n*/\n`;
    const { transformSync } = require('@swc/core');
    const lib = path.join(pkgDir, 'lib');
    const files = fs
      .readdirSync(lib)
      .filter((f) => f.endsWith('.js'))
      .sort();
    fs.mkdirSync(OUT, { recursive: true });
    for (const f of files) {
      const source = fs.readFileSync(path.join(lib, f), 'utf8');
      const { code } = transformSync(source, {
        filename: f,
        sourceMaps: false,
        module: { type: 'commonjs' },
        jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' },
      });
      fs.writeFileSync(path.join(OUT, f), header + code);
    }
    process.stdout.write(`cel-js ${pkg.version} as CommonJS: ${files.length} files in dist/vendor/cel-js/\n`);
  } catch (e) {
    fs.rmSync(OUT, { recursive: true, force: true });
    process.stderr.write(`cel-js as CommonJS: not written: ${e instanceof Error ? e.message : String(e)}\n`);
  }
}

main();
