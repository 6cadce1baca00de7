/**
 * `cozy-gw init [DIR]` (docs/commands/init.md): a starting platform repository written into DIR
 * (default the working directory), in the spirit of `helm create` and `kpt pkg init`: the platform
 * values, a few Tenants, the cluster state, a kpt package and the CI workflows, copies of the
 * examples the package embeds (src/assets/starter.ts). DIR must be new or empty unless `--force`,
 * and no file is ever replaced; written all or nothing (src/io/starterDir.ts). The same bytes every
 * time: the files are fixed, only the umask decides the modes.
 */
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { withExamples } from './help';
import { pathArg } from './common';
import { shellWord } from '../shellWords';

interface InitCliOptions {
  force?: boolean;
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('init')
    .argument('[dir]', 'the directory to write into (made when missing; default: the working directory)', pathArg)
    .description(
      'Write a starting platform repository into DIR: platform values, a few Tenants and the cluster state (platform/), ' +
        'the same as a kpt package (platform/Kptfile), and CI workflows that render every push and preview every pull ' +
        'request (.github/workflows/, ci/). DIR must be new or empty; no file is ever replaced.',
    )
    .option(
      '--force',
      'write into a directory that already holds files (a fresh clone, say): they stay, and a file init would write that exists with other content is refused',
    );
  withExamples(cmd, [
    'cozy-gw init my-platform && cd my-platform',
    'cozy-gw render --values platform/values.yaml -f platform/tenants --output-dir deploy/platform',
  ]);
  cmd.action((dir: string | undefined, opts: InitCliOptions) => initAction(ctx, dir ?? '.', opts));
  return cmd;
}

function initAction(ctx: CliContext, dir: string, opts: InitCliOptions): void {
  const { writeStarter, StarterInterrupted } = require('../../io/starterDir') as typeof import('../../io/starterDir');
  const { starterFiles } = require('../../assets/starter') as typeof import('../../assets/starter');
  let w;
  try {
    w = writeStarter(dir, ctx.io.cwd, starterFiles(), { force: opts.force });
  } catch (e) {
    if (!(e instanceof StarterInterrupted)) throw e;
    ctx.report(e.findings);
    ctx.exitCode = e.exitCode;
    return;
  }
  const n = w.written.length;
  ctx.note(
    `wrote ${n} file${n === 1 ? '' : 's'} to ${dir}${w.kept.length ? ` (${w.kept.length} already there with the same content, left as they were)` : ''}: platform/ (values, Tenants, cluster state, a kpt package), ci/ and .github/workflows/ (render every push, preview every pull request)`,
  );
  const cd = dir === '.' ? '' : `cd ${shellWord(dir)} && `;
  ctx.note(`next: ${cd}cozy-gw render --values platform/values.yaml -f platform/tenants --output-dir deploy/platform`);
}
