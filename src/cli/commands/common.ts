/** Options shared by the commands that read inputs and platform values. */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_GATEWAY_API_VERSION, servedVersions } from '../../charts/policies';
import type { CliContext } from '..';
import { readInputs, readValuesFiles } from '../../io/inputs';
import type { KObject } from '../../k8s/model';
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
  const { objects, sources } = readInputs(opts.filename ?? [], ro);
  const { values } = readValuesFiles(opts.values ?? [], { ...ro, sources });
  ctx.sources = sources;
  const bad = metadataFindingsOf(objects);
  if (bad.length) throw new FindingsError(bad);
  return { objects, values };
}

/**
 * `--gateway-api-version`: a version (`1.6.1`, `v1.2`) of a bundle the policies know (1.0 and
 * later). Anything else is a usage error (exit 2), as commander reports any other bad flag value.
 */
export function gatewayApiVersionArg(v: string): string {
  if (!/^v?\d+(\.\d+){0,2}([-+][0-9A-Za-z.+-]*)?$/.test(v)) throw new InvalidArgumentError(`${JSON.stringify(v.slice(0, 80))} is not a version (e.g. ${DEFAULT_GATEWAY_API_VERSION})`);
  try {
    servedVersions(v);
  } catch (e) {
    if (e instanceof FindingsError) throw new InvalidArgumentError(e.findings.map((f) => f.message).join('; '));
    throw e;
  }
  return v;
}
