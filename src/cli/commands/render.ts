/**
 * `cozy-gw render` (docs/commands/render.md): read -f and --values, run the pure core
 * (src/pipelines/render.ts), print the manifests (YAML stream or `-o json`) or write `--output-dir`.
 * A failure prints nothing on stdout, writes nothing, and lists every finding on stderr.
 */
import type { CozystackVersion } from '../../platform/cozystackVersions';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliContext } from '../context';
import type { Finding } from '../../k8s/diagnostics';
import type { KObject } from '../../k8s/model';
import { late } from '../lateModules';
import { DEFAULT_GATEWAY_API_VERSION } from '../../charts/policies';
import { isTenant } from '../../platform/kinds';
import {
  addCozystackVersionOption,
  addInputOptions,
  addNowOption,
  chooseCozystackVersion,
  addQuietOption,
  apiVersionsArg,
  addValidateOption,
  checkEmitted,
  gatewayApiVersionArg,
  pathArg,
  loadInputs,
  usageError,
  withValuesHint,
  type InputOptions,
} from './common';
import { resolveNow } from '../clock';
import { buildIdentity } from '../version';
import type { RenderedTree } from '../../pipelines/render';
import type { TreeShape } from '../../io/treeRecord';
import { withExamples } from './help';
import { grouped, progressLine } from '../progress';
import { addFindingsFileOptions, withFindingsFile, type FindingsFileOptions } from '../findingsFile';

/** `--lock-timeout`: whole or fractional seconds, not negative. */
function secondsArg(v: string): number {
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || !Number.isFinite(n))
    throw new InvalidArgumentError(`"${v}" is not a number of seconds`);
  return n;
}

interface RenderCliOptions extends InputOptions {
  validate?: boolean;
  output: 'yaml' | 'json';
  outputDir?: string;
  full?: boolean;
  lockTimeout?: number;
  gatewayApiVersion: string;
  withController?: boolean;
  now?: string;
  includeSecretData?: boolean;
  gatewayOnly?: boolean;
  includeHooks?: boolean;
  apiVersions?: string[];
  quiet?: boolean;
  cozystackVersion?: string;
}

/** Options that cannot be honoured are usage errors, not silent fallbacks. */
function checkOptions(cmd: Command, opts: RenderCliOptions): void {
  if (!opts.withController) {
    const needs = (['now', 'includeSecretData'] as const)
      .filter((k) => opts[k] !== undefined)
      .map((k) => (k === 'now' ? '--now' : '--include-secret-data'));
    if (needs.length)
      usageError(
        cmd,
        `${needs.join(' and ')} ${needs.length === 1 ? 'applies' : 'apply'} only with --with-controller (render alone reads no clock and writes no key material)`,
      );
  }
  if (opts.lockTimeout !== undefined && !opts.outputDir)
    usageError(cmd, '--lock-timeout applies only with --output-dir (only a tree is locked)');
}

/** How the tree is written, as its record keeps it (`diff --state DIR` renders the same way). */
function shapeOf(opts: RenderCliOptions, cozystack: CozystackVersion): TreeShape {
  return {
    includeHooks: opts.includeHooks,
    gatewayOnly: opts.gatewayOnly,
    apiVersions: opts.apiVersions,
    gatewayApiVersion: opts.gatewayApiVersion === DEFAULT_GATEWAY_API_VERSION ? undefined : opts.gatewayApiVersion,
    withController: opts.withController,
    cozystackVersion: cozystack.name,
  };
}

/**
 * `render --output-dir` into a tree whose record allows it, changed-only (src/cli/treeRender.ts,
 * docs/performance.md "Changed-only"): true when it wrote the tree; false when the whole tree is
 * to be rendered (the reason is not the user's concern: the output is the same).
 */
async function changedOnlyTree(
  dir: string,
  opts: RenderCliOptions,
  ctx: CliContext,
  pre: ReturnType<typeof prepared>,
): Promise<boolean> {
  // --validate and --strict judge every object emitted; --with-controller runs a pass over them all.
  if (opts.full || opts.withController || opts.validate || opts.strict) return false;
  const { TreeInterrupted } = late.outputDir();
  let done;
  try {
    done = await late.treeRender().changedOnlyRender({
      dir,
      cwd: ctx.io.cwd,
      input: pre.input,
      options: pre.chartOptions,
      format: opts.output,
      making: {
        shape: shapeOf(opts, pre.chosen.version),
        tenants: pre.inputs.objects.filter(isTenant),
        values: pre.valuesDigest,
      },
      commit: commitOptions(opts, ctx),
    });
  } catch (e) {
    if (!(e instanceof TreeInterrupted)) throw e;
    ctx.report(e.findings);
    ctx.exitCode = e.exitCode;
    return true;
  }
  if ('full' in done) return false;
  const findings = checkEmitted(withValuesHint([...pre.chosen.findings, ...done.findings], opts), [], opts);
  ctx.report([...findings, ...late.render().outputInfoFindings([], pre.given > 0), ...done.written.warnings]);
  for (const line of late.render().treeNotes(dir, done.objects, opts.output, done.written)) ctx.note(line);
  return true;
}

/** The tree writer's options of a run: progress, the home directory, the lock's wait, notes. */
function commitOptions(opts: RenderCliOptions, ctx: CliContext) {
  return {
    progress: (n: number, of: number) => ctx.progress.count('wrote', n, of, 'files'),
    home: ctx.io.env.HOME,
    lockWaitMs: opts.lockTimeout === undefined ? undefined : opts.lockTimeout * 1000,
    note: (line: string) => ctx.note(`note: ${line}`),
  };
}

/**
 * `--output-dir`: the tree as a transaction (src/io/treeCommit.ts: a lock, a journal, recovery
 * notes, signals), then what it wrote, removed and left. -o json writes JSON files
 * (docs/commands/README.md "Values, warnings and trees").
 */
async function writeTree(
  dir: string,
  opts: RenderCliOptions,
  ctx: CliContext,
  result: RenderPassResult,
): Promise<void> {
  const { writeOutputDir, TreeInterrupted } = late.outputDir();
  const facts = treeFactsOf(result);
  let w;
  try {
    ctx.progress.phase(`writing ${grouped(result.objects.length)} objects to ${dir}...`);
    w = await writeOutputDir(dir, ctx.io.cwd, result.objects, {
      format: opts.output,
      // The record remembers how the tree was written and from which Tenants (`diff --state DIR` renders the same way).
      making: {
        shape: shapeOf(opts, result.cozystack),
        tenants: result.tenants,
        platform: facts?.lines.platform,
        values: result.valuesDigest,
        ...(result.checked ? { checked: true } : {}),
      },
      releases: facts && { of: facts.of, info: facts.lines.releases },
      ...commitOptions(opts, ctx),
    });
  } catch (e) {
    if (!(e instanceof TreeInterrupted)) throw e;
    // Stopped by a signal: say what became of DIR, and end with the signal's status.
    ctx.report(e.findings);
    ctx.exitCode = e.exitCode;
    return;
  }
  ctx.report([...result.findings, ...w.warnings]);
  // Names from DIR are printed escaped (ctx.note, k8s/printable.ts): a file name cannot forge a line.
  for (const line of late.render().treeNotes(dir, result.objects.length, opts.output, w)) ctx.note(line);
}

/** What render's pass gives a command: the objects, the findings, the Tenants, and for a tree what its record keeps. */
interface RenderPassResult {
  objects: KObject[];
  findings: Finding[];
  tenants: KObject[];
  /** Every Tenant's own checks found nothing (the tree's record says so). */
  checked: boolean;
  values: { file: string; values: Record<string, unknown> }[];
  tree?: RenderedTree;
  /** The Cozystack version rendered (its name in the record), and the digest of the platform values. */
  cozystack: CozystackVersion;
  valuesDigest: string;
}

/**
 * What a tree's record keeps of the render (docs/performance.md "Changed-only"): each release's
 * inputs and what one controller pass over the tree makes of it, and which release each file is of.
 */
function treeFactsOf(result: RenderPassResult) {
  if (!result.tree) return undefined;
  const { summarizePass, treeFacts, factLines, releaseOfObject } = late.treeSummary();
  const namespaces = new Set(result.tree.releases.map((r) => r.namespace));
  const summary = summarizePass(result.objects, namespaces, result.values, { cozystack: result.cozystack });
  return { lines: factLines(treeFacts(result.tree, summary)), of: releaseOfObject(result.tree) };
}

/**
 * The pass: the options checked, the inputs read, the charts rendered (with --with-controller, the
 * controller pass over them), --validate over what is to be emitted, and the output's info findings.
 */
/** What a render pass starts from: the options checked, the version chosen, the inputs read, the chart options. */
function prepared(cmd: Command, opts: RenderCliOptions, ctx: CliContext) {
  checkOptions(cmd, opts);
  const chosen = chooseCozystackVersion(cmd, opts, ctx);
  const inputs = loadInputs(opts, ctx, cmd);
  const given = opts.filename.length + opts.values.length + (opts.set?.length ?? 0) + (opts.setString?.length ?? 0);
  const input = { objects: inputs.objects, valuesFiles: inputs.values };
  const chartOptions = {
    cozystack: chosen.version,
    gatewayApiVersion: opts.gatewayApiVersion,
    gatewayOnly: opts.gatewayOnly,
    includeHooks: opts.includeHooks,
    apiVersions: opts.apiVersions,
    noteOmittedHooks: true,
    progress: (n: number) => ctx.progress.count('rendered', n, undefined, n === 1 ? 'tenant' : 'tenants'),
    // A tree's record keeps each release's digest (docs/performance.md "Changed-only").
    digests: opts.outputDir ? { build: buildIdentity() } : undefined,
  };
  const valuesDigest = late
    .platformValues()
    .valuesDigest({ files: inputs.values, objects: inputs.objects }, chosen.version.behaviour);
  return { chosen, inputs, given, input, chartOptions, valuesDigest };
}

function renderPass(
  cmd: Command,
  opts: RenderCliOptions,
  ctx: CliContext,
  pre = prepared(cmd, opts, ctx),
): RenderPassResult {
  const { render, outputInfoFindings } = late.render();
  const { chosen, inputs, given, input } = pre;
  // A tree's record says whether every Tenant's own checks found nothing (src/io/treeRecord.ts `checked`).
  const tenants = inputs.objects.filter(isTenant);
  const checks = opts.outputDir ? late.tenantChart().tenantChecks(tenants, chosen.version.behaviour) : undefined;
  const chartOptions = checks ? { ...pre.chartOptions, tenantChecks: checks } : pre.chartOptions;
  const result = opts.withController
    ? late.preview().preview(input, {
        ...chartOptions,
        now: resolveNow({ now: opts.now, env: ctx.io.env, mode: 'reproducible' }),
        includeSecretData: opts.includeSecretData,
        applied: Boolean(opts.outputDir),
      })
    : render(input, chartOptions);
  // --validate: the emitted objects against their published schemas, before anything is written.
  result.findings = checkEmitted(
    withValuesHint([...chosen.findings, ...result.findings], opts),
    result.objects,
    opts,
    chosen.version.behaviour,
  );
  result.findings = result.findings.concat(outputInfoFindings(result.objects, given > 0));
  return {
    ...result,
    tenants,
    checked: checks !== undefined && tenants.every((t) => !checks.get(t)?.length),
    values: inputs.values,
    cozystack: chosen.version,
    valuesDigest: pre.valuesDigest,
  };
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('render')
    .description(
      'Render the platform, apps/tenant, extra/gateway and cozystack-basics charts as fully materialised manifests: for ' +
        'tenant-root and every Tenant its Namespace, cozystack-values Secret, ServiceAccount and RoleBindings, Cilium network ' +
        'policies, ResourceQuota and LimitRange, Keycloak groups and module HelmReleases; a TenantGateway for every tenant ' +
        'that owns a Gateway; the cozy:tenant* ClusterRoles, cozy-public and its Role, the monitoring Services; and the ' +
        'ValidatingAdmissionPolicies with their bindings. Helm hook objects are left out unless --include-hooks.',
    );
  withExamples(cmd, [
    'cozy-gw render --values values.yaml -f tenants/',
    'cozy-gw render --values values.yaml -f tenants/ -f routes/ --with-controller --now 2026-01-01T00:00:00Z',
    'cozy-gw render --values values.yaml -f tenants/ --output-dir deploy/platform',
    'kubectl get tenants.apps.cozystack.io -A -o yaml | cozy-gw render --values values.yaml -f -',
  ]);
  addQuietOption(addValidateOption(addInputOptions(cmd)))
    .addOption(new Option('-o, --output <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .option(
      '--output-dir <dir>',
      'write one file per object (<namespace>/<kind>-<name>.yaml, .json with -o json) and a kustomization.yaml into DIR instead of stdout (it replaces and removes only the files it wrote, locked and all or nothing)',
      pathArg,
    )
    .option(
      '--full',
      'with --output-dir: render every tenant and read every file of the tree, rewriting any edited by hand (by default a tree whose record allows it is written changed-only: only the tenants whose inputs changed are rendered and their files written, the others kept unread)',
    )
    .option(
      '--lock-timeout <seconds>',
      'with --output-dir: how long to wait for another cozy-gw run writing the same DIR before refusing (default 60; 0 refuses at once)',
      secondsArg,
    )
    .option(
      '--gateway-api-version <semver>',
      'Gateway API CRD bundle version the route policy covers',
      gatewayApiVersionArg,
      DEFAULT_GATEWAY_API_VERSION,
    )
    .option(
      '--gateway-only',
      'only the gateway slice (Namespaces, cozystack-values Secrets, TenantGateways, admission policies), for a platform whose tenant HelmReleases still render the rest',
    )
    .option(
      '--include-hooks',
      "also write the Helm hook objects (the tenant's pre-delete cleanup, the gateway's post-delete ACME cleanup), for Argo CD, which runs them only when the Application is deleted; never with Flux kustomize-controller, which would run both Jobs at apply time",
    )
    .option(
      '--api-versions <group/version>',
      'an API version the cluster serves, as helm template --api-versions (repeatable, or comma-separated): cozystack.io/v1alpha1 turns on the computeplane Package check, v1.edp.epam.com/v1 the Keycloak groups',
      apiVersionsArg,
    )
    .option(
      '--with-controller',
      'also run the controller once over the rendered state and the cluster state in the inputs (routes, ...): Gateways, Issuers, Certificates, redirect routes, route and TenantGateway status',
    );
  addCozystackVersionOption(cmd);
  addFindingsFileOptions(addNowOption(cmd, 'reproducible', 'with --with-controller: '))
    .option('--include-secret-data', 'with --with-controller: print the key material of Secrets the controller writes')
    .action((opts: RenderCliOptions & FindingsFileOptions) =>
      withFindingsFile(ctx, cmd, opts, () => renderAction(opts)),
    );
  async function renderAction(opts: RenderCliOptions): Promise<void> {
    ctx.progress = progressLine(ctx.io, opts.quiet);
    const { toJsonList, yamlStreamChunks } = late.yaml();
    const pre = prepared(cmd, opts, ctx);
    if (opts.outputDir && (await changedOnlyTree(opts.outputDir, opts, ctx, pre))) return;
    const result = renderPass(cmd, opts, ctx, pre);
    if (opts.outputDir) {
      await writeTree(opts.outputDir, opts, ctx, result);
      return;
    }
    // YAML in pieces of about a megabyte, each written as it is made: the whole stream is never one string.
    if (opts.output === 'json') ctx.io.stdout(toJsonList(result.objects));
    else for (const chunk of yamlStreamChunks(result.objects)) ctx.io.stdout(chunk);
    ctx.report(result.findings);
  }
  return cmd;
}
