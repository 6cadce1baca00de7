#!/usr/bin/env node
'use strict';
// The bundle with V8's code cache of the command run, and Node.js's own compile cache for what loads
// after it (src/cli/bundleLoader.ts, docs/decisions.md §C13); where that cannot be done (Bun), the
// bundle as a module.
const command = process.argv.slice(2).find((a) => !a.startsWith('-')) ?? 'help';
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
