import type { Command } from 'commander';
import type { CliContext } from '../cli';

export function register(program: Command, ctx: CliContext): Command {
  return program.command('render').description('(in progress)').action(() => {
    ctx.io.stderr('error: render is not implemented yet\n');
    ctx.exitCode = 1;
  });
}
