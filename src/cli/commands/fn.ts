/**
 * `cozy-gw fn`: the KRM function edge (docs/commands/fn.md). Reads standard input,
 * writes standard output, prints findings on standard error. The protocol is src/protocols/krm/.
 *
 * Two protocols:
 * - ResourceList (kpt fn eval --exec / kpt fn render --allow-exec, kustomize --enable-exec):
 *   `cozy-gw fn`, a ResourceList in and out; the output is written even on failure.
 * - kustomize's legacy exec plugin (what `kubectl kustomize --enable-alpha-plugins` runs):
 *   `cozy-gw fn CONFIG` or `cozy-gw fn --kustomize-plugin CONFIG`, the plugin's config file as
 *   the argument and a manifest stream on stdin and stdout; nothing on stdout on failure.
 * Standard output carries the protocol alone: console output is sent to stderr meanwhile.
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { rebindConsole, type CliContext } from '../context';
import { defaultNow } from '../clock';
import { COZYSTACK_VERSION_ENV, usageError } from './common';
import { error, FindingsError } from '../../k8s/diagnostics';
import { processKustomizeStream, processResourceListText, type TextRun } from '../../protocols/krm';
import { readFileBounded, SourceRefused, tooLargeError } from '../../io/stdin';
import { withExamples } from './help';

interface FnOpts {
  kustomizePlugin?: string;
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('fn')
    .description(
      'A KRM function: reads a config.kubernetes.io/v1 ResourceList on stdin and writes it back with the rendered objects added ' +
        '(and, with reconcile, the objects the controller creates). Items that came in pass through unchanged.\n\n' +
        'functionConfig: a fn.cozystack.io/v1alpha1 CozyGateway (spec.values: the platform values; spec.reconcile, spec.now, ' +
        'spec.gatewayApiVersion, spec.ciliumVersion, spec.includeSecretData), or a ConfigMap as `kpt fn eval -- key=value` makes one: ' +
        'dotted keys are platform values (publishing.host=example.org, read as YAML), `values` holds a YAML document, ' +
        'and the option names are the same.\n\n' +
        'With a CONFIG argument it runs as a kustomize legacy exec plugin: CONFIG is the plugin config, manifests on stdin and stdout.',
    )
    .argument('[config]', 'kustomize exec plugin mode: the plugin config file kustomize passes')
    .argument('[args...]', 'further plugin arguments (ignored)')
    .option('--kustomize-plugin <config>', 'kustomize exec plugin mode with this config file');
  withExamples(cmd, [
    'cozy-gw fn < resource-list.yaml > out.yaml   # the ResourceList protocol by hand; cozy-gw-fn is the same as one executable',
    'kpt fn eval ./pkg --exec cozy-gw-fn -- publishing.host=example.org gateway.enabled=true reconcile=true',
    'kpt fn render ./pkg --allow-exec        # Kptfile: pipeline.mutators[].exec: cozy-gw-fn, configPath: cozygateway.yaml',
    'kpt fn eval ./pkg --image ghcr.io/cozystack/cozy-gw:VERSION -- publishing.host=example.org   # the container image',
    'kubectl kustomize --enable-alpha-plugins ./overlay   # transformer config kind CozyGateway, plugin runs `cozy-gw-fn --kustomize-plugin CONFIG`',
  ]);
  return cmd.action((config: string | undefined, _args: string[], opts: FnOpts, cmd: Command) => {
    const restore = rebindConsole();
    try {
      const now = defaultNow(ctx.io.env);
      if (opts.kustomizePlugin !== undefined && config !== undefined)
        usageError(
          cmd,
          `give the plugin config once: either CONFIG (${config}) or --kustomize-plugin (${opts.kustomizePlugin})`,
        );
      const pluginConfig = opts.kustomizePlugin ?? config;
      let run: TextRun;
      if (pluginConfig !== undefined || ctx.io.env.KUSTOMIZE_PLUGIN_CONFIG_STRING !== undefined) {
        let configText: string;
        if (pluginConfig !== undefined) {
          try {
            configText = readFileBounded(path.resolve(ctx.io.cwd, pluginConfig));
          } catch (e) {
            if (e instanceof SourceRefused) throw tooLargeError(pluginConfig, e);
            throw new FindingsError([
              error(`cannot read plugin config ${pluginConfig}`, {
                file: pluginConfig,
                rule: 'fn.config',
                hint: 'kustomize passes the transformer config file as the first argument',
              }),
            ]);
          }
        } else configText = ctx.io.env.KUSTOMIZE_PLUGIN_CONFIG_STRING ?? '';
        run = processKustomizeStream(ctx.io.readStdin(), configText, {
          defaultNow: now,
          configFile: pluginConfig,
          defaultCozystackVersion: ctx.io.env[COZYSTACK_VERSION_ENV],
        });
      } else {
        run = processResourceListText(ctx.io.readStdin(), {
          defaultNow: now,
          defaultCozystackVersion: ctx.io.env[COZYSTACK_VERSION_ENV],
        });
      }
      for (const chunk of run.chunks ? run.chunks() : [run.stdout]) if (chunk) ctx.io.stdout(chunk);
      ctx.report(run.findings);
      ctx.exitCode = run.exitCode;
    } finally {
      restore();
    }
  });
}
