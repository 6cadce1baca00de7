/**
 * `diff -o markdown --comment-dir DIR` (docs/commands/diff.md): the comment's parts written as DIR/comment-01.md, comment-02.md, ... DIR is
 * made when missing; the parts an earlier run left there (`comment-NN.md` files only, nothing else
 * of DIR) are removed first, so that a CI step posting every file in DIR never posts a stale part.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeDirectories } from '../io/makeDirectories';
import { reason } from '../io/treeCommit';
import { partFileName } from '../reports/commentParts';

/** A part's file name, as partFileName writes them. */
const PART_FILE = /^comment-\d{2,}\.md$/;

/** Write the parts; returns the paths written, as the user named DIR. */
export function writeCommentParts(cwd: string, dir: string, parts: readonly string[]): string[] {
  const abs = path.resolve(cwd, dir);
  try {
    makeDirectories(abs);
    for (const name of fs.readdirSync(abs)) if (PART_FILE.test(name)) fs.rmSync(path.join(abs, name), { force: true });
    return parts.map((text, i) => {
      const name = partFileName(i, parts.length);
      fs.writeFileSync(path.join(abs, name), text);
      return path.join(dir, name);
    });
  } catch (e) {
    throw new Error(
      `--comment-dir ${dir}: cannot write the comment's parts: ${reason(e)} (check the directory and its parent are writable)`,
    );
  }
}
