/**
 * `cozy-gw admit` (cli-contract.md): evaluate the platform's admission policies, exactly as
 * `render` emits them (renderPolicies), against every input object as a CREATE by --as /
 * --as-group. One line per denial on stdout; exit 1 if any object is denied.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliContext } from '../context';
import { late } from '../lateModules';
import type { Decision } from '../../admission/admit';
import { FindingsError } from '../../k8s/diagnostics';
import { printable } from '../../k8s/printable';
import { describe, type KObject } from '../../k8s/model';
import { isClusterScoped } from '../../k8s/scope';
import { duplicateFindings } from '../../k8s/duplicates';
import type { SourceMap } from '../../io/sourceMap';
import { DEFAULT_GATEWAY_API_VERSION } from '../../charts/policies';
import { denialHint, formatDenial } from '../../pipelines/admit';
import { addInputOptions, collect, failOn, gatewayApiVersionArg, loadInputs, type InputOptions } from './common';
import { unknownKeyFindings } from '../../validation/inputValidation';

interface AdmitOptions extends InputOptions {
  as?: string;
  asGroup: string[];
  output: string;
  gatewayApiVersion: string;
  namespace: string;
}

/** `-n` names a namespace: a DNS label (a usage error otherwise). */
function namespaceArg(v: string): string {
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(v))
    throw new InvalidArgumentError(
      `${JSON.stringify(v.slice(0, 80))} is not a namespace name (lowercase letters, digits and "-", at most 63)`,
    );
  return v;
}

/**
 * A namespaced object without `metadata.namespace` is created, as the API server would, in the
 * namespace the request names (`-n`, default `default`): it is judged there, and a note says so.
 */
export function placeInNamespace(
  objects: KObject[],
  namespace: string,
): { objects: KObject[]; placed: { original: KObject; placed: KObject }[] } {
  const placed: { original: KObject; placed: KObject }[] = [];
  const out = objects.map((o) => {
    if (o.metadata.namespace || isClusterScoped(o)) return o;
    const p = { ...o, metadata: { ...o.metadata, namespace } };
    placed.push({ original: o, placed: p });
    return p;
  });
  return { objects: out, placed };
}

/** `hint: file:line: Kind ns/name: what to do` for one denied object. */
export function formatDenialHint(d: Decision, sources: SourceMap | undefined): string {
  const h = denialHint(d.policy);
  const source = sources?.objectOf(d.object);
  const file = source ? sources?.originOf(source)?.file : undefined;
  const line = source ? (sources?.lineOf(source, h.field) ?? sources?.lineOf(source)) : undefined;
  const where = file ? `${file}${line ? `:${line}` : ''}: ` : '';
  return printable(`hint: ${where}${describe(d.object)}: ${h.hint}`);
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('admit')
    .summary('Evaluate the platform admission policies (real CEL) against objects, as a CREATE by a given caller')
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
  addInputOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  cozy-gw admit --values platform.yaml -f routes/ --as alice --as-group tenant-alice-admin
  cozy-gw admit -f cluster.yaml --as kubernetes-admin --as-group system:masters -o json`,
  );
  return cmd.action((opts: AdmitOptions) => {
    const { admit, denials, warnings } = late.admit();
    const { callerOf, platformPolicies } = late.request();
    const inputs = loadInputs(opts, ctx, cmd);
    const { objects, placed } = placeInNamespace(inputs.objects, opts.namespace);
    for (const p of placed) {
      const origin = ctx.sources?.originOf(p.original);
      if (origin) ctx.sources?.addObject(p.placed, origin);
    }
    // Two objects with one identity: which one the API server would hold depends on their order,
    // so the verdict would too. An input error, as render and reconcile have it.
    const dups = duplicateFindings(objects);
    if (dups.length) throw new FindingsError(dups);
    for (const p of placed) {
      const file = ctx.sources?.originOf(p.original)?.file;
      const line = ctx.sources?.lineOf(p.original, 'metadata') ?? ctx.sources?.lineOf(p.original);
      const where = file ? `${file}${line ? `:${line}` : ''}: ` : '';
      ctx.note(
        `note: ${where}${describe(p.original)} has no metadata.namespace: judged in namespace ${opts.namespace} (set -n/--namespace to choose another)`,
      );
    }
    const input = { objects: inputs.objects, valuesFiles: inputs.values };
    const platform = platformPolicies(input, { gatewayApiVersion: opts.gatewayApiVersion });
    const inputWarnings = unknownKeyFindings(input);
    failOn([...platform.findings, ...inputWarnings], opts);
    ctx.report(inputWarnings);
    const { username, groups } = callerOf(opts.as, opts.asGroup);
    const decisions = admit(objects, platform.policies, { username, groups });
    const denied = denials(decisions);
    if (opts.output === 'json') {
      ctx.io.stdout(
        JSON.stringify(
          {
            allowed: denied.length === 0,
            user: { username, groups },
            decisions: decisions.map((d) => ({ ...d, object: d.object })),
          },
          null,
          2,
        ) + '\n',
      );
    } else {
      // One line per denial: an object a policy denies, its failed validations' messages joined.
      for (const d of denied) ctx.io.stdout(formatDenial(d, d.messages.join('; ')) + '\n');
      for (const d of denied) ctx.io.stderr(formatDenialHint(d, ctx.sources) + '\n');
      for (const d of warnings(decisions))
        for (const m of d.messages)
          ctx.note(
            `${opts.strict ? 'error' : 'warning'}: ${describe(d.object)}: ValidatingAdmissionPolicy '${d.policy}': ${m}`,
          );
    }
    // --strict: an admission warning fails the run as a denial does.
    ctx.exitCode = denied.length || (opts.strict && warnings(decisions).length) ? 1 : 0;
  });
}
