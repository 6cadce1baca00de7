/**
 * What a run of the built CLI loaded (test/helpers/loadedModules.js preloaded): the module files
 * (require.cache, the preload left out) and the Node.js built-in modules. It runs tsc's modules
 * (dist/cli/index.js, as bin/cozy-gw.js runs their bundle, scripts/bundle.js), so that what a
 * command loads shows module by module; the bundle runs each of them only when it is required, as
 * Node.js does. `bundle` runs bin/cozy-gw.js itself: one module, and the built-ins it loads.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ROOT } from './cli';

export function loadedBy(
  args: string[],
  entry: 'modules' | 'bundle' = 'modules',
): { modules: string[]; builtins: string[] } {
  const run =
    entry === 'bundle'
      ? [path.join(ROOT, 'bin/cozy-gw.js')]
      : ['-e', `require(${JSON.stringify(path.join(ROOT, 'dist/cli/index.js'))}).main(process.argv.slice(1))`, '--'];
  const r = spawnSync(process.execPath, ['-r', path.join(ROOT, 'test/helpers/loadedModules.js'), ...run, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const m = /LOADED (.*)/.exec(r.stderr);
  const b = /BUILTINS (.*)/.exec(r.stderr);
  if (!m || !b) throw new Error(`no module list from cozy-gw ${args.join(' ')} (status ${r.status}): ${r.stderr}`);
  return {
    modules: (JSON.parse(m[1]) as string[]).filter((f) => !f.endsWith('loadedModules.js')),
    builtins: JSON.parse(b[1]) as string[],
  };
}
