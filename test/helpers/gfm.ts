/**
 * A pull-request comment read as GitHub Flavored Markdown (markdown-it, with raw HTML and GFM's
 * bare links on, as GitHub reads a comment), and what a comment's structure must be: every table
 * row as many cells as its header, every cell's text from our own escaping, every fence closed
 * where we close it (one `diff` fence per `<details>` section, each holding diff lines only), no
 * link, image, heading or emphasis that we did not write. Returns the problems, each naming the
 * part and what broke, and what the comment shows (cells, fences).
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: true, linkify: true });

export interface GfmReading {
  problems: string[];
  /** The text of each table cell (entities decoded, tags dropped), row by row. */
  rows: string[][];
  /** The content of each fence, with its info string. */
  fences: { info: string; content: string }[];
}

/** Our own strong text (the comment's labels); anything else in bold came from input. */
const OWN_STRONG =
  /^(Hostnames:|Findings|The tenant tree|The change as given:|error|warning|info|Inadmissible on their next write|Cut to fit .*)$/;

/** Our own emphasis (the parts' continuation lines). */
const OWN_EM = /^(The hostname table(, continued:| continues in the next part\.)|Continued in part \d+ of \d+\.)$/;

/** A line of a unified diff as unifiedDiff.ts prints it: a header, a hunk, or a line with its mark. */
const DIFF_LINE = /^([ +-]|@@ |--- |\+\+\+ |↪|[A-Z][A-Za-z0-9]* \S)/;

export function readGfm(text: string, name: string): GfmReading {
  const problems: string[] = [];
  const rows: string[][] = [];
  const fences: { info: string; content: string }[] = [];
  const tokens = md.parse(text, {});
  let header = 0;
  let row: string[] | undefined;
  let details = 0;
  let closes = 0;
  let headings = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'thead_open') header = -1;
    if (t.type === 'tr_open') row = [];
    if ((t.type === 'td_open' || t.type === 'th_open') && tokens[i + 1]?.type === 'inline') {
      const children = tokens[i + 1].children ?? [];
      row!.push(
        children
          .filter((c) => c.type === 'text' || c.type === 'text_special' || c.type === 'code_inline')
          .map((c) => c.content)
          .join(''),
      );
    }
    if (t.type === 'tr_close') {
      if (header === -1) header = row!.length;
      else {
        if (row!.length !== header)
          problems.push(`${name}: a table row of ${row!.length} cells under ${header}: ${row!.join(' | ')}`);
        rows.push(row!);
      }
      row = undefined;
    }
    if (t.type === 'heading_open') headings++;
    if (t.type === 'fence') {
      fences.push({ info: t.info, content: t.content });
      if (t.info === 'diff')
        for (const l of t.content.split('\n').slice(0, -1))
          if (!DIFF_LINE.test(l))
            problems.push(`${name}: a line in a diff fence that is no diff line: ${JSON.stringify(l)}`);
    }
    if (t.type === 'html_block') {
      if (/^<details>/.test(t.content)) details++;
      if (/^<\/details>/.test(t.content)) closes++;
      if (
        !/^(<details><summary>.*<\/summary>|<\/details>|<!-- cozy-gw diff comment \d+\/\d+ -->)\n?$/.test(
          t.content.trimEnd() + '\n',
        )
      )
        problems.push(`${name}: an HTML block we did not write: ${JSON.stringify(t.content.slice(0, 120))}`);
    }
    if (t.type === 'inline')
      for (let j = 0; j < (t.children ?? []).length; j++) {
        const c = t.children![j];
        if (c.type === 'link_open' || c.type === 'image')
          problems.push(`${name}: a ${c.type} in ${JSON.stringify(t.content.slice(0, 120))}`);
        if (c.type === 's_open')
          problems.push(`${name}: strikethrough from input in ${JSON.stringify(t.content.slice(0, 120))}`);
        if (c.type === 'em_open' && !OWN_EM.test(t.children![j + 1]?.content ?? ''))
          problems.push(`${name}: emphasis from input in ${JSON.stringify(t.content.slice(0, 120))}`);
        if (c.type === 'strong_open') {
          const inner = t.children![j + 1]?.content ?? '';
          if (!OWN_STRONG.test(inner)) problems.push(`${name}: bold text we did not write: ${JSON.stringify(inner)}`);
        }
        if (c.type === 'html_inline' && !/^<\/?(code|br\/?)>$/.test(c.content))
          problems.push(`${name}: inline HTML we did not write: ${JSON.stringify(c.content)}`);
      }
  }
  if (headings > 1) problems.push(`${name}: ${headings} headings (one is ours)`);
  const diffFences = fences.filter((f) => f.info === 'diff').length;
  if (details !== closes || details !== diffFences)
    problems.push(`${name}: ${details} <details>, ${closes} </details> and ${diffFences} diff fences`);
  return { problems, rows, fences };
}
