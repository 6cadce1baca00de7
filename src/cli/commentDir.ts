/**
 * `diff -o markdown --comment-dir DIR` (docs/commands/diff.md): the comment's parts written as DIR/comment-01.md, comment-02.md, ... DIR is
 * made when missing; the parts an earlier run left there (`comment-NN.md` files only, nothing else
 * of DIR) are removed first, before the run reads its inputs, so that a CI step posting every file
 * in DIR never posts a stale part, not even after a run that failed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeDirectories } from '../io/makeDirectories';
import { reason } from '../io/treeCommit';
import { partFileName } from '../reports/commentParts';

/** A part's file name, as partFileName writes them. */
const PART_FILE = /^comment-\d{2,}\.md$/;

function cannotWrite(dir: string, e: unknown): Error {
  return new Error(
    `--comment-dir ${dir}: cannot write the comment's parts: ${reason(e)} (check the directory and its parent are writable)`,
  );
}

/** Remove the parts an earlier run left in DIR (nothing else of it); a DIR that does not exist is left so. */
export function removeEarlierParts(cwd: string, dir: string): void {
  const abs = path.resolve(cwd, dir);
  try {
    if (!fs.existsSync(abs)) return;
    for (const name of fs.readdirSync(abs)) if (PART_FILE.test(name)) fs.rmSync(path.join(abs, name), { force: true });
  } catch (e) {
    throw cannotWrite(dir, e);
  }
}

/** Write the parts (earlier parts removed first); returns the paths written, as the user named DIR. */
export function writeCommentParts(cwd: string, dir: string, parts: readonly string[]): string[] {
  const abs = path.resolve(cwd, dir);
  try {
    makeDirectories(abs);
  } catch (e) {
    throw cannotWrite(dir, e);
  }
  removeEarlierParts(cwd, dir);
  try {
    return parts.map((text, i) => {
      const name = partFileName(i, parts.length);
      fs.writeFileSync(path.join(abs, name), text);
      return path.join(dir, name);
    });
  } catch (e) {
    throw cannotWrite(dir, e);
  }
}
