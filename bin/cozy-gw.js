#!/usr/bin/env node
'use strict';
// The bundle with V8's code cache of the command run, and Node.js's own compile cache for what loads
// after it (src/cli/bundleLoader.ts, docs/decisions.md §C13); where that cannot be done (Bun), the
// bundle as a module.
const command = process.argv.slice(2).find((a) => !a.startsWith('-')) ?? 'help';
// In a clone (src/ beside bin/; the package ships none), dist/ is what `npm run build` made of src/:
// missing or older than a source, say so and stop, instead of Node.js's stack trace or a stale run
// (scripts/ensure-built.js). The installed package never takes this branch.
const buildCheck = require('node:path').join(__dirname, '..', 'scripts', 'ensure-built.js');
if (require('node:fs').existsSync(require('node:path').join(__dirname, '..', 'src', 'cli', 'index.ts'))) {
  const problem = require(buildCheck).buildProblem();
  if (problem) {
    process.stderr.write(`cozy-gw: ${problem}\n`);
    process.exit(1);
  }
}
const loaded = require('../dist/cli/bundleLoader.js').loadBundle({
  bundle: require('node:path').join(__dirname, '..', 'dist', 'cozy-gw.js'),
  command,
  env: process.env,
});
(loaded ?? require('../dist/cozy-gw.js')).main();

/**
 * The files the bundle requires from beside itself (dist/validation/: the upstream validators'
 * families, which scripts/bundle.js leaves out of it and only --validate reads), named here for
 * bun's bundler, which embeds in a compiled executable what a static require names (the release
 * binaries, .goreleaser.yaml). Never called: Node.js reads none of them unless --validate asks.
 */
function embeddedInBinaries() {
  return [
    require('../dist/validation/upstreamValidators.certManager.generated.js'),
    require('../dist/validation/upstreamValidators.cilium.generated.js'),
    require('../dist/validation/upstreamValidators.fluxcd.generated.js'),
    require('../dist/validation/upstreamValidators.gatewayApi.generated.js'),
    require('../dist/validation/upstreamValidators.keycloak.generated.js'),
    require('../dist/validation/upstreamValidators.kubernetes.generated.js'),
  ];
}
module.exports = { embeddedInBinaries };
