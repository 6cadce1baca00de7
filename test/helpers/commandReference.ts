/**
 * The command reference's option tables (docs/commands/<command>.md), made from the commands' own
 * commander definitions: each page holds, between `<!-- options:NAME -->` and
 * `<!-- /options:NAME -->`, the table `optionsTable` makes for command NAME. The test that keeps
 * them equal is test/cli/helpReference.test.ts; `UPDATE_DOCS=1 npx jest test/cli/helpReference`
 * rewrites the tables that differ.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command, Option } from 'commander';

/** The docs page of each command: snapshot and completion share one. */
export const COMMAND_PAGE: Record<string, string> = {
  init: 'docs/commands/init.md',
  render: 'docs/commands/render.md',
  reconcile: 'docs/commands/reconcile.md',
  diff: 'docs/commands/diff.md',
  admit: 'docs/commands/admit.md',
  fn: 'docs/commands/fn.md',
  'post-render': 'docs/commands/post-render.md',
  snapshot: 'docs/commands/snapshot.md',
  completion: 'docs/commands/snapshot.md',
};

/** A table cell of code: pipes escaped, line ends joined. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** A table cell of prose: as cell, and what markdown would read as markup (`<x>`, `*`, `_`) escaped. */
function prose(s: string): string {
  return cell(s)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([*_])/g, '\\$1');
}

/** What an option's default is, as the table shows it (nothing for none, an empty list, false). */
function defaultOf(o: Option): string {
  const d: unknown = o.defaultValue;
  if (d === undefined || d === false || (Array.isArray(d) && d.length === 0)) return '';
  return `\`${Array.isArray(d) ? d.join(',') : String(d)}\``;
}

/** The option table of one command: every option its --help lists, in its order. */
export function optionsTable(cmd: Command): string {
  const rows = ['| Option | What it does | Default |', '| --- | --- | --- |'];
  for (const o of cmd.options) {
    if (o.hidden) continue;
    const choices = o.argChoices?.length ? ` (one of: ${o.argChoices.map((c) => `\`${c}\``).join(', ')})` : '';
    rows.push(`| \`${cell(o.flags)}\` | ${prose(o.description)}${choices} | ${defaultOf(o)} |`);
  }
  if (cmd.registeredArguments.length) {
    for (const a of cmd.registeredArguments)
      rows.push(`| \`${a.required ? `<${a.name()}>` : `[${a.name()}]`}\` | ${prose(a.description || 'argument')} | |`);
  }
  return rows.join('\n');
}

const begin = (name: string) => `<!-- options:${name} -->`;
const end = (name: string) => `<!-- /options:${name} -->`;

/** The table a page holds for command `name`, or undefined when it has no such markers. */
export function tableIn(text: string, name: string): string | undefined {
  const a = text.indexOf(begin(name));
  const b = text.indexOf(end(name));
  if (a < 0 || b < a) return undefined;
  return text.slice(a + begin(name).length, b).trim();
}

/** The page with the table for `name` replaced by `table`. */
export function withTable(text: string, name: string, table: string): string {
  const a = text.indexOf(begin(name));
  const b = text.indexOf(end(name));
  return `${text.slice(0, a + begin(name).length)}\n${table}\n${text.slice(b)}`;
}

export function readPage(root: string, page: string): string {
  const file = path.join(root, page);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}
