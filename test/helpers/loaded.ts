/**
 * What a run of the built CLI loaded (test/helpers/loadedModules.js preloaded): the module files
 * (require.cache, the preload left out) and the Node.js built-in modules.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ROOT } from './cli';

export function loadedBy(args: string[]): { modules: string[]; builtins: string[] } {
  const r = spawnSync(
    process.execPath,
    ['-r', path.join(ROOT, 'test/helpers/loadedModules.js'), path.join(ROOT, 'bin/cozy-gw.js'), ...args],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const m = /LOADED (.*)/.exec(r.stderr);
  const b = /BUILTINS (.*)/.exec(r.stderr);
  if (!m || !b) throw new Error(`no module list from cozy-gw ${args.join(' ')} (status ${r.status}): ${r.stderr}`);
  return {
    modules: (JSON.parse(m[1]) as string[]).filter((f) => !f.endsWith('loadedModules.js')),
    builtins: JSON.parse(b[1]) as string[],
  };
}
