#!/usr/bin/env node
'use strict';
/**
 * GoReleaser's before hook for the container image (Dockerfile): the npm package `npm pack` makes
 * of the build (run after `npm run build`), at image/cozy-gw.tgz, the path dockers_v2's extra_files
 * names and the Dockerfile installs. `packInto` is the one `npm pack` of the build: the bench
 * (bench/run.js) and the install test (test/release/install.test.ts) pack with it too.
 *
 *   node scripts/pack-image.js
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/**
 * `npm pack` of the current build into dir, without its scripts (prepack would build dist/ again
 * under whoever runs from it); the tarball's path.
 */
function packInto(dir) {
  const name = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  return path.join(dir, name);
}

module.exports = { packInto };

if (require.main === module) {
  const out = path.join(ROOT, 'image');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out);
  fs.renameSync(packInto(out), path.join(out, 'cozy-gw.tgz'));
}
