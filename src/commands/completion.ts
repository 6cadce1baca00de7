import type { Command } from 'commander';
import type { CliContext } from '../cli';

export function register(program: Command, ctx: CliContext): Command {
  return program.command('completion').description('(in progress)').action(() => {
    ctx.io.stderr('error: completion is not implemented yet\n');
    ctx.exitCode = 1;
  });
}
