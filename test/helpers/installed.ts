/**
 * The package as a user installs it: `npm pack` of the build (scripts/pack-image.js packInto, without
 * its scripts: the build is the one ensureBuilt made), installed with `npm install -g` into an empty
 * prefix of its own. The README's tour, the starter repository's test and the install test run it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureBuilt } from './kpt';

export interface Installed {
  /** The packed package file. */
  tarball: string;
  /** The prefix it is installed into; its `bin/` holds `cozy-gw` and `cozy-gw-fn`. */
  prefix: string;
  bin: string;
  /** What npm printed. */
  npmOutput: string;
}

/** Pack the build into `dir` and install it into `dir/global`; throws with npm's output when it fails. */
export function installPacked(dir: string): Installed {
  ensureBuilt();
  fs.mkdirSync(dir, { recursive: true });
  const tarball = (require('../../scripts/pack-image.js') as { packInto: (d: string) => string }).packInto(dir);
  const prefix = path.join(dir, 'global');
  const r = spawnSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--foreground-scripts', tarball],
    { encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'notice' } },
  );
  const npmOutput = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`npm install -g failed:\n${npmOutput}`);
  return { tarball, prefix, bin: path.join(prefix, 'bin'), npmOutput };
}
