/**
 * The one escaping rule for text from input in Markdown (docs/commands/diff.md): whatever came from input (a name, a hostname, a
 * message, a file name) is printed as `<code>` HTML whose every ASCII punctuation character that
 * Markdown or HTML could read inline is a numeric character reference (ASCII_PUNCTUATION), after
 * its control characters are escaped (k8s/printable.ts). No input can leave it:
 * - no `|` and no `\` is left for a GFM table to split a cell on (GFM splits on `|` even inside a
 *   code span, and a `\|` from input would end its cell), so the same text is safe in a cell, a
 *   list item and a `<summary>`;
 * - no backtick, `<`, `>`, `&` or quote is left to end the `<code>` element, open a tag or a code
 *   span, or start an entity of its own;
 * - no `*`, `_`, `~`, `[`, `]`, `(`, `)`, `!`, `#`, `@`, `:`, `.`, `$`, `^` or brace is left for
 *   emphasis, a link, an image, a mention, an emoji short code, math or GFM's bare `www.`/`https:`
 *   links (a character reference is text, never Markdown syntax);
 * - no newline, carriage return, bidirectional control or invisible character is left to forge a
 *   line or reorder text (escapeControl).
 * Blocks of text from input (the unified diffs) go in a fence longer than any backtick run they
 * hold, their lines escaped the same way (escapeControl). Pure.
 */
import { escapeControl } from '../k8s/printable';

/**
 * Every ASCII punctuation character but those that are Markdown syntax only at the start of a line
 * (`-`, `+`, `=`), which inline text never is at (it holds no newline), and those that are never
 * syntax (`,`, `/`, `;`, `?`, `%`): kept as they are, a name stays readable in the raw comment.
 */
const ASCII_PUNCTUATION = /[!"#$&'()*.:<>@[\\\]^_`{|}~]/g;

/** Text as character references wherever Markdown or HTML could read it as syntax. */
export function entities(s: string): string {
  return escapeControl(s).replace(ASCII_PUNCTUATION, (c) => `&#${c.charCodeAt(0)};`);
}

/** Inline text from input, for a table cell, a list item or a `<summary>`: nothing in it is Markdown or HTML. */
export function code(s: string): string {
  return `<code>${entities(s)}</code>`;
}

/** Text from input in HTML outside `<code>` (the same rule, without the element). */
export function html(s: string): string {
  return entities(s);
}

/** The fence for a block of text: backticks, longer than any run of backticks the text holds (3 at least). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** A fenced block: each line escaped (escapeControl), in a fence that nothing in it closes. */
export function fenced(text: string, info: string, fence = fenceFor(text)): string {
  const body = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').map(escapeControl).join('\n');
  return `${fence}${info}\n${body}\n${fence}\n`;
}
