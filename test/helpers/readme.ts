/**
 * The README is a promise: every command it shows runs in a test, and the output it shows is what
 * the tool prints. This module reads the README's shell blocks and compares outputs; the test that
 * runs them is test/e2e/readme.test.ts.
 *
 * - A ```console block holds commands after `$ ` (a trailing `\` or `|` continues a command on the
 *   next line) and, after each, the output it prints (stdout and stderr, in order). A line that is
 *   only `...` (indentation allowed) stands for any number of lines, none included.
 * - A ```sh block holds commands only (comments after `#` allowed); each must exit 0.
 * - `<!-- readme-test: skip REASON -->` on the line before a block skips it, visibly, with the
 *   reason (a live cluster, a client this machine cannot install).
 * - `<!-- readme-test: needs TOOL[,TOOL] -->` before a block: the block runs only where every TOOL
 *   is on PATH, and is skipped, visibly, elsewhere.
 */

export interface ReadmeCommand {
  /** The command as bash runs it (continuations joined with newlines, as typed). */
  command: string;
  /** The output the README shows (console blocks); undefined for sh blocks. */
  expected?: string[];
  line: number;
}

export interface ReadmeBlock {
  kind: 'console' | 'sh';
  line: number;
  commands: ReadmeCommand[];
  skip?: string;
  needs: string[];
  /** The heading the block sits under, for test names. */
  section: string;
}

const FENCE = /^```(\w*)\s*$/;

export function parseReadme(text: string): ReadmeBlock[] {
  const lines = text.split('\n');
  const blocks: ReadmeBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,4}\s+(.*)$/.exec(lines[i]);
    if (heading) section = heading[1].trim();
    const m = FENCE.exec(lines[i]);
    if (!m) continue;
    const lang = m[1];
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    const body = lines.slice(i + 1, end);
    if (lang === 'console' || lang === 'sh') {
      const prev = i > 0 ? lines[i - 1] : '';
      const skip = /<!--\s*readme-test:\s*skip\s+(.*?)\s*-->/.exec(prev)?.[1];
      const needs = /<!--\s*readme-test:\s*needs\s+(.*?)\s*-->/.exec(prev)?.[1];
      blocks.push({
        kind: lang,
        line: i + 1,
        commands: lang === 'console' ? consoleCommands(body, i + 2) : shCommands(body, i + 2),
        skip,
        needs: needs
          ? needs
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [],
        section,
      });
    }
    i = end;
  }
  return blocks;
}

/** Whether a command goes on to the next line: a trailing `\\` or `|`, or a quote still open. */
function continues(text: string): boolean {
  if (/(\\|\|)\s*$/.test(text)) return true;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = '';
      else if (ch === '\\' && quote === '"') i++;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '\\') i++;
    else if (ch === '#' && (i === 0 || /\s/.test(text[i - 1]))) break;
  }
  return quote !== '';
}

function consoleCommands(body: string[], firstLine: number): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  let cur: ReadmeCommand | undefined;
  for (let j = 0; j < body.length; j++) {
    const l = body[j];
    if (l.startsWith('$ ')) {
      const parts = [l.slice(2)];
      const line = firstLine + j;
      while (continues(parts.join('\n')) && j + 1 < body.length) parts.push(body[++j]);
      cur = { command: parts.join('\n'), expected: [], line };
      out.push(cur);
    } else if (cur) {
      cur.expected!.push(l);
    }
  }
  return out;
}

function shCommands(body: string[], firstLine: number): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  for (let j = 0; j < body.length; j++) {
    const l = body[j];
    if (!l.trim() || l.trim().startsWith('#')) continue;
    const parts = [l];
    const line = firstLine + j;
    while (continues(parts.join('\n')) && j + 1 < body.length) parts.push(body[++j]);
    out.push({ command: parts.join('\n'), line });
  }
  return out;
}

/** Output lines as the README would show them: trailing blanks dropped, durations made stable. */
export function normalise(lines: string[]): string[] {
  const out = lines.map((l) => l.replace(/\s+$/, '').replace(/\bin \d+(\.\d+)?(ms|s)\b/g, 'in <duration>'));
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

const isGap = (l: string) => l.trim() === '...';

/**
 * Whether `actual` matches `expected`, where a `...` line stands for any run of lines. Returns
 * undefined on a match, else a message saying which expected line was not found.
 */
export function matchOutput(expected: string[], actual: string[]): string | undefined {
  const exp = normalise(expected);
  const act = normalise(actual);
  // Split the expectation into segments between gaps.
  const segments: string[][] = [[]];
  for (const l of exp) {
    if (isGap(l)) segments.push([]);
    else segments[segments.length - 1].push(l);
  }
  const anchoredStart = exp.length === 0 || !isGap(exp[0]);
  const anchoredEnd = exp.length === 0 || !isGap(exp[exp.length - 1]);
  const at = (seg: string[], pos: number) => seg.every((l, k) => act[pos + k] === l);
  let pos = 0;
  for (let s = 0; s < segments.length; s++) {
    const seg = segments[s];
    const last = s === segments.length - 1;
    if (seg.length === 0) continue;
    if (s === 0 && anchoredStart) {
      if (!at(seg, 0)) return mismatch(seg, act, 0);
      pos = seg.length;
      if (last && anchoredEnd && pos !== act.length)
        return `output goes on after the last line the README shows:\n  ${act.slice(pos, pos + 3).join('\n  ')}`;
      continue;
    }
    if (last && anchoredEnd) {
      const start = act.length - seg.length;
      if (start < pos || !at(seg, start)) return mismatch(seg, act, pos);
      pos = act.length;
      continue;
    }
    let found = -1;
    for (let p = pos; p + seg.length <= act.length; p++) {
      if (at(seg, p)) {
        found = p;
        break;
      }
    }
    if (found < 0) return mismatch(seg, act, pos);
    pos = found + seg.length;
  }
  if (segments.length === 1 && segments[0].length === 0 && act.length > 0)
    return `the README shows no output, the command printed:\n  ${act.slice(0, 3).join('\n  ')}`;
  return undefined;
}

function mismatch(seg: string[], act: string[], from: number): string {
  // Name the first line of the segment that cannot be found in order.
  for (let k = 0; k < seg.length; k++) {
    if (!act.slice(from).includes(seg[k]))
      return `the README shows a line the command does not print (after line ${from + 1} of its output):\n  ${seg[k]}`;
  }
  return `the README shows these lines together, the command prints them apart or in another order:\n  ${seg.join('\n  ')}`;
}

/** The commands of a page's `sh` blocks that are not skipped, in order, comments after `#` left out. */
export function readmeShCommands(text: string): string[] {
  return parseReadme(text)
    .filter((b) => b.kind === 'sh' && !b.skip)
    .flatMap((b) => b.commands.map((c) => c.command.replace(/\s+#[^'"\n]*$/, '')));
}
