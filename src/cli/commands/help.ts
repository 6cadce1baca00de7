/**
 * Examples in every command's `--help`: one shared helper so they all read alike.
 *
 *   withExamples(cmd, ['cozy-gw render --values platform.yaml -f tenants/', '# a comment line'])
 *
 * prints, after the options:
 *
 *   Examples:
 *     $ cozy-gw render --values platform.yaml -f tenants/
 *     # a comment line
 */
import type { Command } from 'commander';

/** Add an "Examples:" section to the command's help (after the options). Lines starting with `#` are comments. */
export function withExamples(cmd: Command, examples: string[]): Command {
  const lines = examples.map((e) => (e.startsWith('#') ? `  ${e}` : `  $ ${e}`));
  return cmd.addHelpText('after', `\nExamples:\n${lines.join('\n')}`);
}
