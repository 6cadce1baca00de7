/** Output trees as data, for tests that compare a directory before and after a run. */
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Every entry below `root`, links as links (never followed): path → its bytes (latin1), `dir`
 * for a folder (with a trailing `/`), or `link -> target`. Hidden entries included, so a lock, a
 * work area or a temporary file left behind shows.
 */
export function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const dirs = [''];
  for (let i = 0; i < dirs.length; i++) {
    for (const e of fs.readdirSync(path.join(root, dirs[i]), { withFileTypes: true })) {
      const rel = dirs[i] ? `${dirs[i]}/${e.name}` : e.name;
      const p = path.join(root, rel);
      if (e.isSymbolicLink()) out[rel] = `link -> ${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) {
        out[`${rel}/`] = 'dir';
        dirs.push(rel);
      } else out[rel] = fs.readFileSync(p, 'latin1');
    }
  }
  return out;
}

/** Which of `candidates` (name → snapshot) `actual` equals, byte for byte; undefined when none. */
export function whichTree(
  actual: Record<string, string>,
  candidates: Record<string, Record<string, string>>,
): string | undefined {
  const text = JSON.stringify(Object.entries(actual).sort());
  return Object.keys(candidates).find((k) => JSON.stringify(Object.entries(candidates[k]).sort()) === text);
}
