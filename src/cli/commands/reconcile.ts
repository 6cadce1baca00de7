/**
 * `cozy-gw reconcile` (docs/commands/reconcile.md): runs the controllers once over the given cluster state and
 * prints what the pass creates or changes (-o yaml), the whole state after it (--all), the changes
 * and deletions as JSON (-o json) or an account of them (-o plan). The CLI edge: reads files and
 * the clock, prints; the pass itself is src/pipelines/reconcile.ts, its output src/reports/reconcileOutput.ts.
 */
import { Option, type Command } from 'commander';
import type { CliContext } from '../context';
import { late } from '../lateModules';
import {
  addCozystackVersionOption,
  addInputOptions,
  chooseCozystackVersion,
  addValidateOption,
  addCiliumVersionOption,
  addNowOption,
  addQuietOption,
  checkEmitted,
  loadInputs,
  stateVersion,
  usageError,
  versionHeader,
  type InputOptions,
} from './common';
import { resolveNow } from '../clock';
import { parseCiliumVersion } from '../../controller/ciliumVersion';
import { withExamples } from './help';
import { grouped, progressLine } from '../progress';

interface ReconcileCliOptions extends InputOptions {
  validate?: boolean;
  output: 'yaml' | 'json' | 'plan';
  all?: boolean;
  now?: string;
  includeSecretData?: boolean;
  ciliumVersion: string;
  upstreamCilium?: boolean;
  quiet?: boolean;
  cozystackVersion?: string;
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('reconcile')
    .description(
      'Run the TenantGateway and wildcard-Secret controllers once over the given cluster state and print what they create, change and delete',
    )
    .addOption(
      new Option(
        '-o, --output <format>',
        'yaml: the objects the pass creates or changes; json: {"changed", "deleted"}; plan: what and why, for a reader',
      )
        .choices(['yaml', 'json', 'plan'])
        .default('yaml'),
    )
    .option(
      '--all',
      'print the whole state after the pass (every input object and every created one) instead of only what changed',
    );
  addNowOption(cmd, 'live').option(
    '--include-secret-data',
    'print Secret data (key material); by default every Secret is printed without it',
  );
  addCiliumVersionOption(cmd).option(
    '--upstream-cilium',
    "judge hazards for the upstream Cilium operator image, without the platform's patches",
  );
  withExamples(cmd, [
    'cozy-gw reconcile --values platform.yaml -f cluster/ --now 2026-01-01T00:00:00Z',
    'cozy-gw reconcile -f state.yaml -o plan',
    'cozy-gw reconcile -f state.yaml --all --include-secret-data > next-state.yaml',
    'cozy-gw reconcile -f state.yaml -o json --cilium-version v1.19.5',
  ]);
  addCozystackVersionOption(addQuietOption(addValidateOption(addInputOptions(cmd))), true);
  cmd.action((opts: ReconcileCliOptions) => reconcileAction(cmd, ctx, opts));
  return cmd;
}

/** The command's work: the options checked, the inputs read, the version chosen, one pass, printed. */
function reconcileAction(cmd: Command, ctx: CliContext, opts: ReconcileCliOptions): void {
  ctx.progress = progressLine(ctx.io, opts.quiet);
  const { reconcileRequest } = late.reconcile();
  // reconcile keeps the current time as its default, as a live controller would (src/cli/clock.ts).
  const now = resolveNow({ now: opts.now, env: ctx.io.env, mode: 'live' });
  // Options that cannot be honoured are usage errors, not silent fallbacks.
  if (opts.output === 'plan') {
    const ignored = [opts.all && '--all', opts.includeSecretData && '--include-secret-data'].filter(Boolean);
    if (ignored.length)
      usageError(
        cmd,
        `-o plan cannot be combined with ${ignored.join(' or ')}: a plan prints an account of the changes, never objects (use -o yaml or -o json)`,
      );
  }
  const inputs = loadInputs(opts, ctx, cmd);
  // The state tells its own version unless the flag or the variable says (docs/versions.md §11).
  const told = stateVersion(inputs.objects);
  const chosen = chooseCozystackVersion(cmd, opts, ctx, told.recorded);
  ctx.progress.phase(`running the controllers over ${grouped(inputs.objects.length)} objects...`);
  const result = reconcileRequest(
    { objects: inputs.objects, valuesFiles: inputs.values },
    {
      now,
      ciliumVersion: parseCiliumVersion(opts.ciliumVersion)!,
      upstreamCilium: Boolean(opts.upstreamCilium),
      cozystack: chosen.version,
    },
  );
  result.findings = [...told.findings, ...chosen.findings, ...result.findings];
  const { emittedObjects, formatReconcile } = late.reconcileOutput();
  result.findings = checkEmitted(
    result.findings,
    emittedObjects(result, Boolean(opts.all)),
    opts,
    chosen.version.behaviour,
  );
  const out = formatReconcile(result, inputs.objects, {
    output: opts.output,
    all: opts.all,
    includeSecretData: opts.includeSecretData,
    now,
    cozystack: versionHeader(chosen),
  });
  ctx.report(out.findings);
  for (const n of out.notes) ctx.note(n);
  // The pass has succeeded and every finding is out: only now is the first byte written.
  for (const chunk of out.stdout) ctx.io.stdout(chunk);
}
