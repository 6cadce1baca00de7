/** Options shared by the commands that read inputs and platform values. */
import type { Command } from 'commander';
import type { CliContext } from '..';
import { readInputs, readValuesFiles, type SourceMap } from '../../io/inputs';
import type { KObject } from '../../k8s/model';

export function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

export function addInputOptions(cmd: Command): Command {
  return cmd
    .option('-f, --filename <path>', 'input file, directory (recursive: *.yaml, *.yml, *.json) or - for stdin; repeatable', collect, [])
    .option('--values <file>', 'platform values file (publishing.*, gateway.*); repeatable, merged left to right like helm -f', collect, []);
}

export interface InputOptions {
  filename: string[];
  values: string[];
}

export interface LoadedInputs {
  objects: KObject[];
  values: { file: string; values: Record<string, unknown> }[];
}

/**
 * Read -f and --values. Throws FindingsError (every problem at once) on bad input. `into`: a
 * source map that already holds other inputs of the run (diff's --state), added to.
 */
export function loadInputs(opts: InputOptions, ctx: CliContext, into?: SourceMap): LoadedInputs {
  const ro = { readStdin: ctx.io.readStdin, cwd: ctx.io.cwd };
  const { objects, sources } = readInputs(opts.filename ?? [], { ...ro, sources: into });
  const { values } = readValuesFiles(opts.values ?? [], { ...ro, sources });
  ctx.sources = sources;
  return { objects, values };
}
