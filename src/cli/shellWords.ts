/**
 * Words as a POSIX shell reads them back: the one quoting rule for a command line cozy-gw prints
 * (diff's rerun line) and the words a completion script holds.
 */

/** Always single-quoted, a `'` inside written as `'\''`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Quoted only when it holds anything but plain characters. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : shellQuote(s);
}
