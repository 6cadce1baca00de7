/**
 * One file written all or nothing (docs/commands/snapshot.md "Writing a snapshot"): the text goes into a
 * temporary file beside the target, renamed over it once whole. The temporary file is this run's
 * own, whatever else is in the directory (a shared one, `/tmp`): a random name, created
 * exclusively (`O_EXCL`: a file or a link already at that name, another user's planted one, is
 * never opened, followed or written through; another name is tried), with the mode asked for
 * under the umask; only a file this run created is ever removed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/** How many names are tried before giving up (each a fresh random one: a clash is someone's doing). */
const ATTEMPTS = 8;

/** Creates a temporary file of its own beside `file`: its path and open descriptor. */
function createOwn(file: string, mode: number): { tmp: string; fd: number } {
  for (let i = 0; ; i++) {
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(12).toString('hex')}.tmp`);
    try {
      return { tmp, fd: fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i + 1 >= ATTEMPTS) throw e;
    }
  }
}

/**
 * Write `text` to `file` all or nothing, through a temporary file of this run's own created with
 * `mode` (under the umask); throws the system's error, having removed nothing but its own file.
 */
export function writeFileAtomically(file: string, text: string, mode = 0o666): void {
  const { tmp, fd } = createOwn(file, mode);
  try {
    try {
      fs.writeFileSync(fd, text);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
