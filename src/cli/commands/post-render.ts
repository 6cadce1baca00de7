/**
 * `cozy-gw post-render`: the Helm post-renderer edge (docs/commands/post-render.md).
 * Helm 3: `helm install --post-renderer cozy-gw --post-renderer-args post-render` (or a
 * wrapper script that runs `cozy-gw post-render`); Helm 4: the `postrenderer/v1` plugin in
 * plugin.yaml, `helm install --post-renderer cozy-gw`. Manifests on stdin, manifests on
 * stdout, findings on stderr; stdout carries the manifests alone.
 */
import type { Command } from 'commander';
import { rebindConsole, type CliContext } from '../context';
import { resolveNow } from '../clock';
import {
  addCiliumVersionOption,
  addNowOption,
  addValuesOptions,
  failOn,
  loadValues,
  namespaceArg,
  usageError,
  type ValuesOptions,
  addCozystackVersionOption,
  chooseCozystackVersion,
} from './common';
import { isDns1123Label, notANamespaceName } from '../../k8s/dnsNames';
import { unknownKeyFindings } from '../../validation/inputValidation';
import { postRender } from '../../protocols/postRender';
import { withExamples } from './help';

interface PostRenderOpts extends ValuesOptions {
  now?: string;
  ciliumVersion?: string;
  includeSecretData?: boolean;
  namespace?: string;
  cozystackVersion?: string;
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('post-render')
    .description(
      'A Helm post-renderer: reads the manifests Helm rendered on stdin and writes them unchanged, byte for byte, ' +
        'followed by the objects the cozystack-controller creates for every TenantGateway among them ' +
        '(Gateway, Issuer, Certificates, redirect HTTPRoute, wildcard Secret replicas).',
    );
  addCozystackVersionOption(addCiliumVersionOption(addNowOption(cmd, 'reproducible')))
    .option('--include-secret-data', 'keep data of Secrets the pass creates (wildcard replicas)')
    .option(
      '-n, --namespace <namespace>',
      "Helm's release namespace, where an object without metadata.namespace lives (default: HELM_NAMESPACE)",
      namespaceArg,
    );
  withExamples(cmd, [
    'helm template gw ./gateway -n tenant-alice | cozy-gw post-render --values platform.yaml -n tenant-alice',
    'helm install gw ./gateway --post-renderer cozy-gw --post-renderer-args post-render   # Helm 3',
    'helm plugin install "$(npm root -g)/cozy-gw" && helm install gw ./gateway --post-renderer cozy-gw   # Helm 4 (plugin.yaml)',
  ]);
  return addValuesOptions(cmd).action((opts: PostRenderOpts) => {
    const restore = rebindConsole();
    try {
      const now = resolveNow({ now: opts.now, env: ctx.io.env, mode: 'reproducible' });
      if ((opts.values ?? []).includes('-'))
        usageError(cmd, '--values - cannot be honoured: standard input carries the manifests');
      // Helm's release namespace: --namespace, else HELM_NAMESPACE (Helm sets it for its plugins).
      const helmNs = ctx.io.env.HELM_NAMESPACE;
      if (opts.namespace === undefined && helmNs !== undefined && helmNs !== '' && !isDns1123Label(helmNs))
        usageError(cmd, `HELM_NAMESPACE ${notANamespaceName(helmNs)}`);
      const namespace = opts.namespace ?? (helmNs || undefined);
      const chosen = chooseCozystackVersion(cmd, opts, ctx);
      const values = loadValues(opts, ctx);
      const res = postRender(ctx.io.readStdin(), {
        values,
        now,
        cozystack: chosen.version,
        ciliumVersion: opts.ciliumVersion,
        includeSecretData: Boolean(opts.includeSecretData),
        namespace,
      });
      const findings = [
        ...chosen.findings,
        ...unknownKeyFindings({ objects: [], valuesFiles: values }, chosen.version.behaviour),
        ...res.findings,
      ];
      if (res.exitCode === 0) failOn(findings, opts);
      if (res.exitCode === 0) ctx.io.stdout(res.stdout);
      ctx.report(findings);
      ctx.exitCode = res.exitCode;
    } finally {
      restore();
    }
  });
}
