/**
 * The README's command reference and each command's `--help` name the same options: every option
 * a command's help lists is written (as `--name` or as its short `-x`) in that command's
 * README section under "Commands", or, for the options every command shares, in "Values, warnings
 * and trees (every command)". A new option without its README line fails here, naming both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildProgram, makeContext } from '../../src/cli';

const ROOT = path.resolve(__dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const ctx = () =>
  makeContext({ stdout: () => {}, stderr: () => {}, readStdin: () => '', env: {}, isTTY: false, cwd: ROOT });

/** The text of a `### ` section of README "Commands" whose heading starts with `prefix`, up to the next heading of its level. */
function section(prefix: string): string {
  const lines = README.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`### ${prefix}`));
  if (start < 0) throw new Error(`README has no section "### ${prefix}..."`);
  const end = lines.findIndex((l, i) => i > start && /^#{2,3} /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

const SHARED = section('Values, warnings and trees');
/** The README section of each command; snapshot and completion share one. */
const SECTION: Record<string, string> = {
  render: section('`cozy-gw render`'),
  reconcile: section('`cozy-gw reconcile`'),
  diff: section('`cozy-gw diff`'),
  admit: section('`cozy-gw admit`'),
  fn: section('`cozy-gw fn`'),
  'post-render': section('`cozy-gw post-render`'),
  snapshot: section('`cozy-gw snapshot`'),
  completion: section('`cozy-gw snapshot`'),
};

/** Whether `flag` is written in `text` as a flag (not as part of a longer one). */
function names(text: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w-])${escaped}(?![\\w-])`).test(text);
}

/** The flags a README code line passes to `cozy-gw <command>` (up to a pipe, redirection or comment). */
function flagsPassed(line: string, command: string): string[] {
  const m = new RegExp(`cozy-gw(?:\\.js)? ${command}((?: [^|&;<>#]*)?)`).exec(line);
  return m ? (m[1].match(/(?<=\s)--?[a-zA-Z][\w-]*/g) ?? []) : [];
}

describe("README's command reference and --help", () => {
  const program = buildProgram(ctx());

  it('covers every command the program has', () => {
    expect(program.commands.map((c) => c.name()).filter((n) => !(n in SECTION))).toEqual([]);
  });

  it('names every option of every command, in its section or the shared one', () => {
    const missing: string[] = [];
    for (const cmd of program.commands) {
      for (const opt of cmd.options) {
        if (opt.hidden) continue;
        const flags = [opt.long, opt.short].filter((f): f is string => !!f);
        const text = `${SECTION[cmd.name()] ?? ''}\n${SHARED}`;
        if (!flags.some((f) => names(text, f))) missing.push(`cozy-gw ${cmd.name()} ${opt.flags} (${opt.description})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("a flag the README names under a command exists on that command (or is another tool's)", () => {
    // Flags in a command's section that are cozy-gw's own: those written right after `cozy-gw <command>` in a code line.
    const unknown: string[] = [];
    for (const cmd of program.commands) {
      const own = new Set(cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)));
      own.add('--help');
      for (const line of (SECTION[cmd.name()] ?? '').split('\n'))
        for (const f of flagsPassed(line, cmd.name()))
          if (!own.has(f)) unknown.push(`cozy-gw ${cmd.name()} ${f}: ${line.trim()}`);
    }
    expect(unknown).toEqual([]);
  });

  it('reads the flags of a code line up to its pipe or comment', () => {
    expect(
      flagsPassed('node bin/cozy-gw.js diff --state s.yaml -o plan --no-such | head -1  # --not-this', 'diff'),
    ).toEqual(['--state', '-o', '--no-such']);
    expect(flagsPassed('kubectl get -o yaml', 'diff')).toEqual([]);
  });
});
