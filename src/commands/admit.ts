/**
 * `cozy-gw admit` (cli-contract.md): evaluate the platform's admission policies, exactly as
 * `render` emits them (renderPolicies), against every input object as a CREATE by --as /
 * --as-group. One line per denial on stdout; exit 1 if any object is denied.
 */
import type { Command } from 'commander';
import type { CliContext } from '../cli';
import { admit, denials, warnings, type Decision } from '../admit';
import { FindingsError, hasErrors } from '../diagnostics';
import { describe } from '../model';
import { clusterValues, resolvePlatformValues } from '../platformValues';
import { DEFAULT_GATEWAY_API_VERSION, renderPolicies } from '../policies';
import { addInputOptions, collect, loadInputs, type InputOptions } from './common';

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

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('admit')
    .description('Evaluate the platform admission policies (as render emits them) against every input object as a CREATE by the given caller')
    .option('--as <user>', 'the user making the request (default system:anonymous)')
    .option('--as-group <group>', 'a group of the user making the request; repeatable', collect, [])
    .option('-o, --output <format>', 'text (one line per denial) or json', 'text')
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
    if (opts.output !== 'text' && opts.output !== 'json') {
      ctx.io.stderr(`error: unknown output format "${opts.output}" (text or json)\n`);
      ctx.exitCode = 2;
      return;
    }
    const inputs = loadInputs(opts, ctx);
    const resolved = resolvePlatformValues({ files: inputs.values, objects: inputs.objects });
    const { cluster, findings } = clusterValues(resolved.values, resolved.pkg);
    if (hasErrors(findings)) throw new FindingsError(findings);
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
      for (const d of denied) for (const m of d.messages) ctx.io.stdout(formatDenial(d, m) + '\n');
      for (const d of warnings(decisions)) for (const m of d.messages) ctx.io.stderr(`warning: ${describe(d.object)}: ValidatingAdmissionPolicy '${d.policy}': ${m}\n`);
    }
    ctx.exitCode = denied.length ? 1 : 0;
  });
}
