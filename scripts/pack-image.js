#!/usr/bin/env node
'use strict';
/**
 * GoReleaser's before hook for the container image (Dockerfile): the npm package `npm pack` makes
 * of the build (run after `npm run build`), at image/cozy-gw.tgz, the path dockers_v2's extra_files
 * names and the Dockerfile installs.
 *
 *   node scripts/pack-image.js
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'image');

fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT);
const name = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', OUT], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .trim()
  .split('\n')
  .pop();
fs.renameSync(path.join(OUT, name), path.join(OUT, 'cozy-gw.tgz'));
