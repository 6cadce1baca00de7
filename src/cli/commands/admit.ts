/**
 * `cozy-gw admit` (cli-contract.md): evaluate the platform's admission policies, exactly as
 * `render` emits them (renderPolicies), against every input object as a CREATE by --as /
 * --as-group. One line per denial on stdout; exit 1 if any object is denied.
 */
import { Option, type Command } from 'commander';
import type { CliContext } from '..';
import type { Decision } from '../../admission/admit';
import type * as Admit from '../../admission/admit';
import { describe } from '../../k8s/model';
import type { SourceMap } from '../../io/sourceMap';
import { clusterValues, resolvePlatformValues } from '../../charts/platformValues';
import { DEFAULT_GATEWAY_API_VERSION, renderPolicies } from '../../charts/policies';
import { addInputOptions, collect, failOn, loadInputs, type InputOptions } from './common';
import { unknownKeyFindings } from '../../validation/inputValidation';

/** The evaluator (CEL engine included) is loaded when the command runs, not when the CLI registers it (issue 5). */
const lazyAdmit = () => require('../../admission/admit') as typeof Admit;

interface AdmitOptions extends InputOptions {
  as?: string;
  asGroup: string[];
  output: string;
  gatewayApiVersion: string;
}

/** `HTTPRoute tenant-alice/app: ValidatingAdmissionPolicy 'name' denied request: message` */
export function formatDenial(d: Decision, message: string): string {
  return `${describe(d.object)}: ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${message}`;
}

/**
 * What to do about a denial, per policy, and the field the policy judged (for the line number).
 * The stdout line stays the apiserver's wording (cli-contract "cozy-gw admit"); the hint goes to
 * stderr, so that a user learns where the object is and how to get it admitted.
 */
export const DENIAL_HINTS: Record<string, { field?: string; hint: string }> = {
  'cozystack-route-hostname-policy': {
    field: 'spec.hostnames',
    hint: "name hostnames equal to the namespace's namespace.cozystack.io/host label or under it; a route in a cozy-* namespace may publish any hostname",
  },
  'cozystack-tenant-host-policy': {
    field: 'spec.host',
    hint: 'leave spec.host unset (the tenant gets <name>.<parent apex>), or have a cluster-admin or the cozystack/Flux service accounts apply it (--as-group system:masters to preview that)',
  },
  'cozystack-namespace-host-label-policy': {
    field: 'metadata.labels',
    hint: 'the tenant chart writes namespace.cozystack.io/host; to preview what Flux applies, run with --as-group system:serviceaccounts:cozy-fluxcd',
  },
  'cozystack-gateway-hostname-policy': {
    field: 'spec.listeners',
    hint: "give every listener a hostname equal to the namespace's namespace.cozystack.io/host label or under it",
  },
  'cozystack-gateway-attached-namespaces-policy': {
    field: 'spec.components.platform.values.gateway.attachedNamespaces',
    hint: 'remove the tenant-* entries; a tenant that needs its own Gateway sets spec.gateway: true on its Tenant',
  },
  'cozystack-ingress-hostname-policy': {
    field: 'spec.rules',
    hint: "use hosts under the namespace's apex or outside the platform apex, give every rule a host, and drop spec.defaultBackend",
  },
};

/** `hint: file:line: Kind ns/name: what to do` for one denied object. */
export function formatDenialHint(d: Decision, sources: SourceMap | undefined): string {
  const h = DENIAL_HINTS[d.policy] ?? { hint: 'fix the object, or run as a caller the policy trusts (--as, --as-group)' };
  const source = sources?.objectOf(d.object);
  const file = source ? sources?.originOf(source)?.file : undefined;
  const line = source ? (sources?.lineOf(source, h.field) ?? sources?.lineOf(source)) : undefined;
  const where = file ? `${file}${line ? `:${line}` : ''}: ` : '';
  return `hint: ${where}${describe(d.object)}: ${h.hint}`;
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('admit')
    .summary('Evaluate the platform admission policies (real CEL) against objects, as a CREATE by a given caller')
    .description('Evaluate the platform admission policies (as render emits them) against every input object as a CREATE by the given caller')
    .option('--as <user>', 'the user making the request (default system:anonymous)')
    .option('--as-group <group>', 'a group of the user making the request; repeatable', collect, [])
    .addOption(new Option('-o, --output <format>', 'text (one line per denial) or json').choices(['text', 'json']).default('text'))
    .option('--gateway-api-version <version>', 'the Gateway API CRD bundle the cluster serves (decides the route versions matched)', DEFAULT_GATEWAY_API_VERSION);
  addInputOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  cozy-gw admit --values platform.yaml -f routes/ --as alice --as-group tenant-alice-admin
  cozy-gw admit -f cluster.yaml --as kubernetes-admin --as-group system:masters -o json`,
  );
  return cmd.action((opts: AdmitOptions) => {
    const { admit, denials, warnings } = lazyAdmit();
    const inputs = loadInputs(opts, ctx, cmd);
    const resolved = resolvePlatformValues({ files: inputs.values, objects: inputs.objects });
    const { cluster, findings } = clusterValues(resolved.values, resolved.pkg);
    const inputWarnings = unknownKeyFindings({ objects: inputs.objects, valuesFiles: inputs.values });
    failOn([...findings, ...inputWarnings], opts);
    ctx.report(inputWarnings);
    const policies = renderPolicies(cluster, { gatewayApiVersion: opts.gatewayApiVersion });
    // Impersonating a user adds system:authenticated, as the apiserver does.
    const username = opts.as ?? 'system:anonymous';
    const groups = [...opts.asGroup];
    const auto = username === 'system:anonymous' ? 'system:unauthenticated' : 'system:authenticated';
    if (!groups.includes(auto)) groups.push(auto);
    const decisions = admit(inputs.objects, policies, { username, groups });
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
      for (const d of warnings(decisions)) for (const m of d.messages) ctx.io.stderr(`${opts.strict ? 'error' : 'warning'}: ${describe(d.object)}: ValidatingAdmissionPolicy '${d.policy}': ${m}\n`);
    }
    // --strict: an admission warning fails the run as a denial does.
    ctx.exitCode = denied.length || (opts.strict && warnings(decisions).length) ? 1 : 0;
  });
}
