/**
 * The size bounds and file names of the pull-request comment's parts (`diff -o markdown`, docs/commands/diff.md), apart from the comment's module so that the command's
 * options read them without loading it.
 */

/** The most characters a GitHub comment holds. */
export const COMMENT_LIMIT = 65_536;

/** The smallest `--comment-limit` that leaves room for a part's own lines and a long diff line. */
export const MIN_COMMENT_LIMIT = 4096;

/** The file name of part `i` (0-based) of `n`: comment-01.md, ..., zero-padded to at least two digits. */
export function partFileName(i: number, n: number): string {
  return `comment-${String(i + 1).padStart(Math.max(2, String(n).length), '0')}.md`;
}
