/** Options shared by the commands that read inputs and platform values. */
import type { Command } from 'commander';
import type { CliContext } from '..';
import { readInputs, readValuesFiles } from '../../io/inputs';
import { keyOf, type KObject } from '../../k8s/model';
import { FindingsError } from '../../k8s/diagnostics';
import { metadataFindingsOf } from '../../k8s/metadataShape';

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

/** Read -f and --values. Throws FindingsError (every problem at once) on bad input. */
export function loadInputs(opts: InputOptions, ctx: CliContext): LoadedInputs {
  const ro = { readStdin: ctx.io.readStdin, cwd: ctx.io.cwd };
  const objects = readInputs(opts.filename ?? [], ro);
  const values = readValuesFiles(opts.values ?? [], ro);
  ctx.sources = new Map(objects.map((o) => [keyOf(o), o]));
  const bad = metadataFindingsOf(objects);
  if (bad.length) throw new FindingsError(bad);
  return { objects, values };
}
