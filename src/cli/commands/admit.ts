/**
 * `cozy-gw admit` (docs/commands/admit.md): evaluate the platform's admission policies, exactly as
 * `render` emits them (renderPolicies), against every input object as a CREATE by --as /
 * --as-group. One line per denial on stdout; exit 1 if any object is denied.
 */
import { Option, type Command } from 'commander';
import type { CliContext } from '../context';
import { late } from '../lateModules';
import type { Decision } from '../../admission/decision';
import { FindingsError, type Finding } from '../../k8s/diagnostics';
import { printable } from '../../k8s/printable';
import { describe } from '../../k8s/model';
import type { SourceMap } from '../../io/sourceMap';
import { DEFAULT_GATEWAY_API_VERSION } from '../../charts/policies';
import {
  addCozystackVersionOption,
  addInputOptions,
  chooseCozystackVersion,
  collect,
  failOn,
  gatewayApiVersionArg,
  loadInputs,
  namespaceArg,
  type InputOptions,
} from './common';
import { withExamples } from './help';
import { addFindingsFileOptions, withFindingsFile, type FindingsFileOptions } from '../findingsFile';

interface AdmitOptions extends InputOptions, FindingsFileOptions {
  as?: string;
  asGroup: string[];
  output: string;
  gatewayApiVersion: string;
  namespace: string;
  cozystackVersion?: string;
}

/** `hint: file:line: Kind ns/name: what to do` for one denied object. */
export function formatDenialHint(d: Decision, sources: SourceMap | undefined): string {
  const h = late.admit().denialHint(d.policy);
  const source = sources?.objectOf(d.object);
  const file = source ? sources?.originOf(source)?.file : undefined;
  const line = source ? (sources?.lineOf(source, h.field) ?? sources?.lineOf(source)) : undefined;
  const where = file ? `${file}${line ? `:${line}` : ''}: ` : '';
  return printable(`hint: ${where}${describe(d.object)}: ${h.hint}`);
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('admit')
    .description(
      'Evaluate the platform admission policies (as render emits them) against every input object as a CREATE by the given caller',
    )
    .option('--as <user>', 'the user making the request (default system:anonymous)')
    .option('--as-group <group>', 'a group of the user making the request; repeatable', collect, [])
    .addOption(
      new Option('-o, --output <format>', 'text (one line per denial) or json')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option(
      '-n, --namespace <namespace>',
      'the namespace of the request for a namespaced object without metadata.namespace, as kubectl -n gives it',
      namespaceArg,
      'default',
    )
    .option(
      '--gateway-api-version <version>',
      'the Gateway API CRD bundle the cluster serves (decides the route versions matched)',
      gatewayApiVersionArg,
      DEFAULT_GATEWAY_API_VERSION,
    );
  addCozystackVersionOption(addFindingsFileOptions(addInputOptions(cmd)));
  withExamples(cmd, [
    'cozy-gw admit --values platform.yaml -f routes/ --as alice --as-group tenant-alice-admin',
    'cozy-gw admit -f cluster.yaml --as kubernetes-admin --as-group system:masters -o json',
  ]);
  return cmd.action((opts: AdmitOptions) => withFindingsFile(ctx, cmd, opts, () => admitAction(cmd, ctx, opts)));
}

/** The command's work: the verdicts, printed; the findings --findings-file adds. */
function admitAction(cmd: Command, ctx: CliContext, opts: AdmitOptions): Finding[] {
  const { admitRequest, admitRefusals, admitFails, admitJson, formatAdmissionWarning, formatDenial, placementNote } =
    late.admit();
  const chosen = chooseCozystackVersion(cmd, opts, ctx);
  const inputs = loadInputs(opts, ctx, cmd);
  const outcome = admitRequest({
    cozystack: chosen.version,
    objects: inputs.objects,
    valuesFiles: inputs.values,
    namespace: opts.namespace,
    as: opts.as,
    asGroups: opts.asGroup,
    gatewayApiVersion: opts.gatewayApiVersion,
  });
  for (const p of outcome.placed) {
    const origin = ctx.sources?.originOf(p.original);
    if (origin) ctx.sources?.addObject(p.placed, origin);
  }
  const [duplicates, inputFindings, unjudged] = admitRefusals(outcome);
  if (duplicates.length) throw new FindingsError(duplicates);
  for (const p of outcome.placed) {
    const file = ctx.sources?.originOf(p.original)?.file;
    const line = ctx.sources?.lineOf(p.original, 'metadata') ?? ctx.sources?.lineOf(p.original);
    const where = file ? `${file}${line ? `:${line}` : ''}: ` : '';
    ctx.note(`note: ${where}${placementNote(p, opts.namespace)}`);
  }
  failOn([...chosen.findings, ...inputFindings], opts);
  if (unjudged.length) throw new FindingsError(unjudged);
  ctx.report([...chosen.findings, ...outcome.inputWarnings]);
  if (opts.output === 'json') {
    ctx.io.stdout(JSON.stringify(admitJson(outcome), null, 2) + '\n');
  } else {
    for (const d of outcome.denied) ctx.io.stdout(formatDenial(d) + '\n');
    for (const d of outcome.denied) ctx.io.stderr(formatDenialHint(d, ctx.sources) + '\n');
    for (const d of outcome.warned)
      for (const m of d.messages) ctx.note(formatAdmissionWarning(d, m, Boolean(opts.strict)));
  }
  ctx.exitCode = admitFails(outcome, Boolean(opts.strict)) ? 1 : 0;
  return verdictFindings(outcome.denied, outcome.warned);
}

/** For --findings-file: each denial (and each warning) as a finding about its object, placed at its file and line. */
function verdictFindings(denied: Decision[], warned: Decision[]): Finding[] {
  const asFinding = (d: Decision, m: string, deny: boolean): Finding => ({
    severity: deny ? 'error' : 'warning',
    message: `${deny ? 'denied' : 'warned'} by ValidatingAdmissionPolicy ${d.policy}: ${m}`,
    rule: `admission.${d.policy}`,
    object: d.object,
    field: late.admit().denialHint(d.policy).field,
  });
  return [
    ...denied.flatMap((d) => d.messages.map((m) => asFinding(d, m, true))),
    ...warned.flatMap((d) => d.messages.map((m) => asFinding(d, m, false))),
  ];
}
