/**
 * The command reference (docs/commands/) and each command's `--help` say the same: every command
 * has its page, and each page's option table is the one the command's own commander definition
 * makes (test/helpers/commandReference.ts); a new or changed option without its table row fails
 * here, naming the command. `UPDATE_DOCS=1 npx jest test/cli/helpReference` rewrites the tables.
 * A flag a page (or the README) passes to `cozy-gw <command>` in a code line exists on that command.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildProgram, makeContext } from '../../src/cli';
import { COMMAND_PAGE, optionsTable, readPage, tableIn, withTable } from '../helpers/commandReference';

const ROOT = path.resolve(__dirname, '../..');
const UPDATE = Boolean(process.env.UPDATE_DOCS);
const ctx = () =>
  makeContext({ stdout: () => {}, stderr: () => {}, readStdin: () => '', env: {}, isTTY: false, cwd: ROOT });

/** Every page that may show cozy-gw's command lines: the README and every page of docs/ and ARCHITECTURE.md. */
function pages(): string[] {
  const out = ['README.md', 'ARCHITECTURE.md'];
  const walk = (dir: string) => {
    for (const e of fs
      .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out.filter((p) => fs.existsSync(path.join(ROOT, p)));
}

/** The flags a code line passes to `cozy-gw <command>` (up to a pipe, redirection or comment). */
function flagsPassed(line: string, command: string): string[] {
  const m = new RegExp(`cozy-gw(?:\\.js)? ${command}((?: [^|&;<>#]*)?)`).exec(line);
  return m ? (m[1].match(/(?<=\s)--?[a-zA-Z][\w-]*/g) ?? []) : [];
}

describe('the command reference (docs/commands/) and --help', () => {
  const program = buildProgram(ctx());

  it('has a page for every command the program has', () => {
    const missing = program.commands
      .map((c) => c.name())
      .filter((n) => !COMMAND_PAGE[n] || !fs.existsSync(path.join(ROOT, COMMAND_PAGE[n])));
    expect(missing).toEqual([]);
  });

  it("each page's option table is the one the command's definition makes", () => {
    const stale: string[] = [];
    for (const cmd of program.commands) {
      const page = COMMAND_PAGE[cmd.name()];
      const text = readPage(ROOT, page);
      const want = optionsTable(cmd);
      const have = tableIn(text, cmd.name());
      if (have === want) continue;
      if (UPDATE && have !== undefined) fs.writeFileSync(path.join(ROOT, page), withTable(text, cmd.name(), want));
      else
        stale.push(
          `${page}: ${have === undefined ? `no <!-- options:${cmd.name()} --> table` : `the table of cozy-gw ${cmd.name()} differs from its options`}`,
        );
    }
    expect(stale).toEqual([]);
  });

  it('the docs index links every command page', () => {
    const index = readPage(ROOT, 'docs/commands/README.md');
    const unlinked = [...new Set(Object.values(COMMAND_PAGE))].filter((p) => !index.includes(`(${path.basename(p)})`));
    expect(unlinked).toEqual([]);
  });

  it("a flag a page passes to cozy-gw <command> exists on that command (or is another tool's)", () => {
    const unknown: string[] = [];
    for (const page of pages()) {
      const lines = readPage(ROOT, page).split('\n');
      for (const cmd of program.commands) {
        const own = new Set(cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)));
        own.add('--help');
        lines.forEach((line, i) => {
          for (const f of flagsPassed(line, cmd.name()))
            if (!own.has(f)) unknown.push(`${page}:${i + 1}: cozy-gw ${cmd.name()} ${f}: ${line.trim()}`);
        });
      }
    }
    expect(unknown).toEqual([]);
  });

  it('reads the flags of a code line up to its pipe or comment', () => {
    expect(
      flagsPassed('node bin/cozy-gw.js diff --state s.yaml -o plan --no-such | head -1  # --not-this', 'diff'),
    ).toEqual(['--state', '-o', '--no-such']);
    expect(flagsPassed('kubectl get -o yaml', 'diff')).toEqual([]);
  });

  it('makes a table row per option, pipes escaped, choices and defaults shown', () => {
    const diff = program.commands.find((c) => c.name() === 'diff')!;
    const table = optionsTable(diff).split('\n');
    expect(table[0]).toBe('| Option | What it does | Default |');
    expect(table.find((r) => r.startsWith('| `-o, --output <format>`'))).toMatch(
      /\(one of: `diff`, `plan`, `json`, `markdown`, `html`\) \| `diff` \|$/,
    );
    expect(table.length - 2).toBe(diff.options.filter((o) => !o.hidden).length);
  });
});
