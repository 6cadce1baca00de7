/**
 * A directory and its missing parents, made one at a time, parents first: what
 * `fs.mkdirSync(dir, { recursive: true })` does, without its loop. Node.js's recursive mkdir tries a
 * component again for as long as mkdir(2) answers ENOENT under a parent that exists, which is what
 * a directory under /proc answers: `TMPDIR=/proc cozy-gw --version` (the code cache's directory)
 * and `diff --comment-dir /proc/x` spun at full CPU and never ended, on Node.js 20, 22 and 24.
 * Here each mkdir is tried once and its error is the caller's.
 *
 * Links are followed, as mkdir -p follows them (the system's temporary directory is a link on
 * macOS). The output tree has its own walk, which refuses them (src/io/treeCommit.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException)?.code;

/**
 * Make `dir` and the parents it lacks, each with `mode` (before the umask); returns the
 * directories made, outermost first. Throws the error of the first that could not be made, or
 * ENOTDIR when something other than a directory stands on the path.
 */
export function makeDirectories(dir: string, mode = 0o777): string[] {
  const missing: string[] = [];
  for (let cur = path.resolve(dir); ; cur = path.dirname(cur)) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(cur);
    } catch (e) {
      if (codeOf(e) !== 'ENOENT') throw e;
    }
    if (st) {
      if (st.isDirectory()) break;
      const err = new Error(`ENOTDIR: not a directory, mkdir '${cur}'`) as NodeJS.ErrnoException;
      Object.assign(err, { code: 'ENOTDIR', errno: -20, syscall: 'mkdir', path: cur });
      throw err;
    }
    missing.unshift(cur);
    if (path.dirname(cur) === cur) break;
  }
  const made: string[] = [];
  for (const p of missing) {
    try {
      fs.mkdirSync(p, { mode });
      made.push(p);
    } catch (e) {
      // Another process made it in the meantime: as good as made here.
      if (codeOf(e) !== 'EEXIST' || !fs.statSync(p, { throwIfNoEntry: false })?.isDirectory()) throw e;
    }
  }
  return made;
}
