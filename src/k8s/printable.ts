/**
 * The one rule for text printed for a reader (docs/decisions.md §13): whatever came from input (a name, a
 * hostname, a condition message, a file name) is printed with its control characters escaped, on
 * standard output as on standard error: the plans, the unified diffs, the hostname table, notes,
 * findings and admission verdicts. A value holding a newline, a carriage return, an ANSI escape
 * sequence or a bidirectional override can then neither forge another line (`  + create Gateway
 * evil/evil`) nor hide or reorder text on a terminal. Output meant for programs (YAML and JSON
 * objects) keeps values as they are. Pure.
 */

/** The longest run of non-blank characters a message echoes; longer ones are cut (docs/decisions.md §13). */
export const ECHO_LIMIT = 200;

/**
 * What is escaped: C0 and C1 controls (newlines, carriage return, escape, NEL), the line and
 * paragraph separators, the bidirectional embeddings, overrides, isolates and marks, and the
 * invisible characters that hide text (soft hyphen, zero-width space and joiners, word joiner,
 * invisible operators, byte-order mark, interlinear annotation marks).
 */
const UNPRINTABLE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/**
 * CI workflow commands a log line could carry (docs/security.md "Printed text never forges a
 * line"): GitHub's legacy `##[command]`, which its runner reads anywhere in a line, and `::command`
 * at the start of one (after blanks).
 */
const LEGACY_COMMAND = /##\[/g;

/**
 * The text with every character UNPRINTABLE holds escaped (`\n`, `\r`, `\t`, `\e`, else
 * `\uXXXX`), and no workflow command left in it: `##[` written `#\u0023[` wherever it is, a
 * leading `::` written `\u003a:`. Idempotent.
 */
export function escapeControl(s: string): string {
  const out = s.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (out.indexOf('##[') < 0 && out.indexOf('::') < 0) return out;
  return out.replace(LEGACY_COMMAND, '#\\u0023[').replace(/^(\s*)::/, '$1\\u003a:');
}

const LONG_RUN = new RegExp(`[^\\s]{${ECHO_LIMIT + 1},}`, 'g');

/**
 * A message line safe to print: escaped (escapeControl), and any run of more than ECHO_LIMIT
 * non-blank characters cut, saying how much was left out. For messages that echo what a user
 * wrote (findings, notes, admission verdicts); a listing of objects (a plan, a diff) escapes
 * without cutting, so every name stays whole.
 */
export function printable(s: string): string {
  return escapeControl(s).replace(
    LONG_RUN,
    (w) => `${w.slice(0, ECHO_LIMIT)}…(${w.length - ECHO_LIMIT} more characters)`,
  );
}

/**
 * Lines for a reader (a plan, a table, a diff) as one text: every line escaped, each ended by a
 * newline. A line that holds a newline from input stays one line.
 */
export function textOf(lines: Iterable<string>): string {
  let out = '';
  for (const l of lines) out += escapeControl(l) + '\n';
  return out;
}
