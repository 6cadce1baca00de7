import type { Command } from 'commander';
import type { CliContext } from '../cli';

export function register(program: Command, ctx: CliContext): Command {
  return program.command('fn').description('(in progress)').action(() => {
    ctx.io.stderr('error: fn is not implemented yet\n');
    ctx.exitCode = 1;
  });
}
