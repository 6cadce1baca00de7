/**
 * `cozy-gw completion bash|zsh|fish`: shell completion scripts generated from the commander
 * program tree (commands, their options, option value choices, argument choices), so they stay in
 * step with the CLI without being maintained by hand.
 *
 * Options whose value is a path (`<path>`, `<file>`, `<dir>`, `<kubeconfig>`) complete file names;
 * options with choices complete those; other option values are left to the user.
 */
import { Argument, type Command, type Option } from 'commander';
import type { CliContext } from '../context';
import { VERSION } from '../version';
import { shellQuote } from '../shellWords';
import { withExamples } from './help';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export interface CompletionOption {
  short?: string;
  long?: string;
  description: string;
  /** The option takes a value (`<x>` or `[x]`). */
  takesValue: boolean;
  /** The value is a file or directory. */
  file: boolean;
  choices?: string[];
  /** May be given more than once. */
  repeatable: boolean;
}

export interface CompletionArgument {
  name: string;
  choices?: string[];
}

export interface CompletionCommand {
  name: string;
  description: string;
  options: CompletionOption[];
  args: CompletionArgument[];
  commands: CompletionCommand[];
}

const FILE_VALUE = /<(path|file|dir|directory|kubeconfig|filename)[^>]*>|\[(path|file|dir|directory)[^\]]*\]/i;

function optionOf(o: Option): CompletionOption {
  return {
    short: o.short,
    long: o.long,
    description: o.description ?? '',
    takesValue: o.required || o.optional,
    file: FILE_VALUE.test(o.flags),
    choices: o.argChoices ? [...o.argChoices] : undefined,
    repeatable: o.variadic || Array.isArray(o.defaultValue) || /repeatable/i.test(o.description ?? ''),
  };
}

const HELP: CompletionOption = {
  short: '-h',
  long: '--help',
  description: 'display help for command',
  takesValue: false,
  file: false,
  repeatable: false,
};

function isHidden(cmd: Command): boolean {
  return Boolean((cmd as unknown as { _hidden?: boolean })._hidden);
}

/** The completion model of a command and its subcommands (commander's implicit `help` included). */
export function commandTree(cmd: Command, isRoot = true): CompletionCommand {
  const options = cmd.options.filter((o) => !o.hidden).map(optionOf);
  if (!options.some((o) => o.long === '--help')) options.push(HELP);
  const commands = cmd.commands.filter((c) => !isHidden(c)).map((c) => commandTree(c, false));
  if (isRoot && commands.length && !commands.some((c) => c.name === 'help')) {
    commands.push({
      name: 'help',
      description: 'display help for command',
      options: [],
      args: [{ name: 'command', choices: commands.map((c) => c.name) }],
      commands: [],
    });
  }
  return {
    name: cmd.name(),
    description: shortDescription(cmd),
    options,
    args: cmd.registeredArguments.map((a) => ({
      name: a.name(),
      choices: a.argChoices ? [...a.argChoices] : undefined,
    })),
    commands,
  };
}

function flagsOf(o: CompletionOption): string[] {
  return [o.short, o.long].filter((f): f is string => Boolean(f));
}

function fnName(name: string): string {
  return `_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** What a shell shows beside a command: its summary, else the first sentence of its description, at most 80 characters. */
function shortDescription(cmd: Command): string {
  const text = oneLine(cmd.summary() || cmd.description());
  const first = /^(.*?[.:])(\s|$)/.exec(text)?.[1] ?? text;
  const s = first.replace(/[.:]$/, '');
  return s.length <= 80 ? s : `${s.slice(0, s.lastIndexOf(' ', 77))}...`;
}

// ---------------------------------------------------------------------------------------- bash

function bashWords(words: string[]): string {
  return words.join(' ').replace(/[^A-Za-z0-9 ._:/=,@+-]/g, '');
}

function bashCase(c: CompletionCommand, indent: string): string {
  const valued = c.options.filter((o) => o.takesValue);
  const lines: string[] = [];
  if (valued.length) {
    lines.push(`${indent}case "$prev" in`);
    for (const o of valued) {
      const action = o.choices
        ? `COMPREPLY=( $(compgen -W "${bashWords(o.choices)}" -- "$cur") )`
        : o.file
          ? `_cozy_gw_files`
          : `COMPREPLY=()`;
      lines.push(`${indent}  ${flagsOf(o).join('|')}) ${action}; return 0 ;;`);
    }
    lines.push(`${indent}esac`);
  }
  const opts = bashWords(c.options.flatMap(flagsOf));
  const positional = c.commands.length ? c.commands.map((s) => s.name) : c.args.flatMap((a) => a.choices ?? []);
  lines.push(`${indent}if [[ "$cur" == -* ]]; then`);
  lines.push(`${indent}  COMPREPLY=( $(compgen -W "${opts}" -- "$cur") )`);
  if (positional.length) {
    lines.push(`${indent}else`);
    lines.push(`${indent}  COMPREPLY=( $(compgen -W "${bashWords(positional)}" -- "$cur") )`);
  }
  lines.push(`${indent}fi`);
  return lines.join('\n');
}

export function bashScript(tree: CompletionCommand): string {
  const fn = fnName(tree.name);
  const rootValued = tree.options.filter((o) => o.takesValue).flatMap(flagsOf);
  const out: string[] = [];
  out.push(
    `# bash completion for ${tree.name}, generated by \`${tree.name} completion bash\` (${tree.name} ${VERSION}).`,
  );
  out.push(`# Load it in the current shell:   source <(${tree.name} completion bash)`);
  out.push(
    `# or for every shell:             ${tree.name} completion bash > ~/.local/share/bash-completion/completions/${tree.name}`,
  );
  out.push('');
  out.push('_cozy_gw_files() {');
  out.push("  local IFS=$'\\n'");
  out.push('  COMPREPLY=( $(compgen -f -- "$cur") )');
  out.push('  compopt -o filenames 2>/dev/null');
  out.push('}');
  out.push('');
  out.push(`${fn}() {`);
  out.push('  local cur prev cmd i w');
  out.push('  cur="${COMP_WORDS[COMP_CWORD]}"');
  out.push('  prev=""');
  out.push('  (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"');
  out.push('  cmd=""');
  out.push('  for (( i = 1; i < COMP_CWORD; i++ )); do');
  out.push('    w="${COMP_WORDS[i]}"');
  out.push('    case "$w" in');
  if (rootValued.length) out.push(`      ${rootValued.join('|')}) (( i++ )) ;;`);
  out.push('      -*) ;;');
  out.push('      *) cmd="$w"; break ;;');
  out.push('    esac');
  out.push('  done');
  out.push('  case "$cmd" in');
  out.push('    "")');
  out.push(bashCase(tree, '      '));
  out.push('      ;;');
  for (const c of tree.commands) {
    out.push(`    ${c.name})`);
    out.push(bashCase(c, '      '));
    out.push('      ;;');
  }
  out.push('  esac');
  out.push('  return 0');
  out.push('}');
  out.push('');
  out.push(`complete -o bashdefault -o default -F ${fn} ${tree.name}`);
  return out.join('\n') + '\n';
}

// ----------------------------------------------------------------------------------------- zsh

function zshDesc(s: string): string {
  return oneLine(s).replace(/\\/g, '\\\\').replace(/\[/g, '\\[').replace(/\]/g, '\\]');
}

function zshOptionSpecs(c: CompletionCommand): string[] {
  const specs: string[] = [];
  for (const o of c.options) {
    const flags = flagsOf(o);
    const excl = o.repeatable ? '*' : flags.length > 1 ? `(${flags.join(' ')})` : '';
    let value = '';
    if (o.takesValue) {
      const action = o.choices ? `(${o.choices.join(' ')})` : o.file ? '_files' : ' ';
      value = `:${o.long ? o.long.replace(/^--/, '') : 'value'}:${action}`;
    }
    for (const f of flags) specs.push(shellQuote(`${excl}${f}[${zshDesc(o.description)}]${value}`));
  }
  return specs;
}

export function zshScript(tree: CompletionCommand): string {
  const fn = fnName(tree.name);
  const out: string[] = [];
  out.push(`#compdef ${tree.name}`);
  out.push(
    `# zsh completion for ${tree.name}, generated by \`${tree.name} completion zsh\` (${tree.name} ${VERSION}).`,
  );
  out.push(`# Load it in the current shell:   source <(${tree.name} completion zsh)`);
  out.push(`# or for every shell:             ${tree.name} completion zsh > "\${fpath[1]}/_${tree.name}"`);
  out.push('');
  out.push(`${fn}() {`);
  out.push('  local curcontext="$curcontext" state line ret=1');
  out.push('  local -a commands');
  out.push('  commands=(');
  for (const c of tree.commands)
    out.push(`    ${shellQuote(`${c.name.replace(/:/g, '\\:')}:${oneLine(c.description)}`)}`);
  out.push('  )');
  out.push('  _arguments -C \\');
  for (const s of zshOptionSpecs(tree)) out.push(`    ${s} \\`);
  out.push(`    '1: :->command' \\`);
  out.push(`    '*:: :->args' && ret=0`);
  out.push('  case $state in');
  out.push('    command)');
  out.push(`      _describe -t commands ${shellQuote(`${tree.name} command`)} commands && ret=0`);
  out.push('      ;;');
  out.push('    args)');
  out.push('      case $words[1] in');
  for (const c of tree.commands) {
    out.push(`        ${c.name})`);
    const specs = zshOptionSpecs(c);
    c.args.forEach((a, i) => {
      const action = a.choices ? `(${a.choices.join(' ')})` : '_files';
      specs.push(shellQuote(`${i + 1}:${a.name}:${action}`));
    });
    out.push(`          _arguments ${specs.join(' ')} && ret=0`);
    out.push('          ;;');
  }
  out.push('      esac');
  out.push('      ;;');
  out.push('  esac');
  out.push('  return ret');
  out.push('}');
  out.push('');
  out.push('if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then');
  out.push(`  ${fn} "$@"`);
  out.push('else');
  out.push(`  compdef ${fn} ${tree.name}`);
  out.push('fi');
  return out.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------- fish

function fq(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function fishOption(prog: string, cond: string, o: CompletionOption): string {
  const parts = [`complete -c ${prog} -n ${fq(cond)}`];
  if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
  if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
  if (o.takesValue) {
    if (o.choices) parts.push(`-x -a ${fq(o.choices.join(' '))}`);
    else if (o.file) parts.push('-r -F');
    else parts.push('-x');
  }
  parts.push(`-d ${fq(oneLine(o.description))}`);
  return parts.join(' ');
}

export function fishScript(tree: CompletionCommand): string {
  const p = tree.name;
  const names = tree.commands.map((c) => c.name).join(' ');
  const out: string[] = [];
  out.push(`# fish completion for ${p}, generated by \`${p} completion fish\` (${p} ${VERSION}).`);
  out.push(`# Load it in the current shell:   ${p} completion fish | source`);
  out.push(`# or for every shell:             ${p} completion fish > ~/.config/fish/completions/${p}.fish`);
  out.push('');
  out.push(`complete -c ${p} -f`);
  const top = `not __fish_seen_subcommand_from ${names}`;
  for (const o of tree.options) out.push(fishOption(p, top, o));
  for (const c of tree.commands)
    out.push(`complete -c ${p} -n ${fq(top)} -a ${c.name} -d ${fq(oneLine(c.description))}`);
  for (const c of tree.commands) {
    const cond = `__fish_seen_subcommand_from ${c.name}`;
    for (const o of c.options) out.push(fishOption(p, cond, o));
    const choices = c.args.flatMap((a) => a.choices ?? []);
    if (choices.length) out.push(`complete -c ${p} -n ${fq(cond)} -a ${fq(choices.join(' '))}`);
    else if (c.args.length) out.push(`complete -c ${p} -n ${fq(cond)} -F`);
  }
  return out.join('\n') + '\n';
}

export function completionScript(program: Command, shell: Shell): string {
  const tree = commandTree(program);
  return shell === 'bash' ? bashScript(tree) : shell === 'zsh' ? zshScript(tree) : fishScript(tree);
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish) for cozy-gw')
    .addArgument(new Argument('<shell>', 'the shell to complete for').choices([...SHELLS]))
    .action((shell: Shell) => {
      ctx.io.stdout(completionScript(program, shell));
    });
  return withExamples(cmd, [
    'source <(cozy-gw completion bash)',
    'cozy-gw completion bash > ~/.local/share/bash-completion/completions/cozy-gw',
    'cozy-gw completion zsh > "${fpath[1]}/_cozy-gw"',
    'cozy-gw completion fish > ~/.config/fish/completions/cozy-gw.fish',
  ]);
}
