/**
 * Options shared by the commands that read inputs and platform values (docs/commands/README.md
 * "Values, warnings and trees"): `-f`, `--values`, `--set`, `--set-string`, `--strict`, and the
 * checks every such command makes the same way (every input error at once, `--strict`, usage
 * errors for option combinations that cannot be honoured).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../context';
import { late } from '../lateModules';
import { readInputs, readValuesFiles } from '../../io/inputs';
import { refusalOrder, FindingsError, hasErrors, warning, type Finding } from '../../k8s/diagnostics';
import { isObject, mergeValues, type KObject } from '../../k8s/model';
import { SourceMap } from '../../io/sourceMap';
import { parseNow, type ClockMode } from '../clock';
import { grouped } from '../progress';
import { EPOCH } from '../../k8s/time';
import { applySet, parseSet, SetSyntaxError, type PathPart, type SetAssignment } from '../../charts/setValues';
import { findPlatformPackage, packageValues } from '../../platform/kinds';
import { DEFAULT_GATEWAY_API_VERSION, servedVersions } from '../../charts/policies';
import { metadataFindingsOf } from '../../k8s/metadataShape';
import { pushAll } from '../../k8s/arrays';
import { isDns1123Label, notANamespaceName } from '../../k8s/dnsNames';
import { NOT_A_CILIUM_VERSION, parseCiliumVersion, SHIPPED_CILIUM_VERSION } from '../../controller/ciliumVersion';
import { clusterVersionOf } from '../../platform/clusterVersion';
import type { VersionHeader } from '../../reports/versionHeader';
import {
  DEFAULT_COZYSTACK_VERSION,
  resolveCozystackVersion,
  type Behaviour,
  type CozystackVersion,
} from '../../platform/cozystackVersions';

export function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

/**
 * A path option's value (`-f`, `--values`, `--state`, `--output-dir`): an empty one, as an unset
 * variable in a script gives, is a usage error (exit 2), never the working directory.
 */
export function pathArg(v: string): string {
  if (v === '') throw new InvalidArgumentError('the path is empty (an unset variable?): name a file or directory');
  return v;
}

/** `collect` for a repeatable path option, each value a pathArg. */
export function collectPath(v: string, prev: string[]): string[] {
  return [...prev, pathArg(v)];
}

function setArg(asString: boolean) {
  return (v: string, prev: SetAssignment[]): SetAssignment[] => {
    try {
      return [...prev, ...parseSet(v, { asString })];
    } catch (e) {
      if (e instanceof SetSyntaxError) throw new InvalidArgumentError(e.message);
      throw e;
    }
  };
}

/** `--values`, `--set`, `--set-string` and `--strict`: every command that reads platform values. */
export function addValuesOptions(cmd: Command): Command {
  return cmd
    .option(
      '--values <file>',
      'platform values file (publishing.*, gateway.*); repeatable, merged left to right like helm -f',
      collectPath,
      [],
    )
    .option(
      '--set <path=value>',
      "set a platform value after every --values, helm's syntax (a.b=x, list={x,y}, a[0]=x, \\, and \\. escape); repeatable",
      setArg(false),
      [],
    )
    .option('--set-string <path=value>', 'as --set, every value a string; applied after --set', setArg(true), [])
    .option('--strict', 'turn every warning (an unknown key, ...) into an error: exit 1, nothing written');
}

/** `-f` and the values options. */
export function addInputOptions(cmd: Command): Command {
  cmd.option(
    '-f, --filename <path>',
    'input file, directory (recursive: *.yaml, *.yml, *.json; not kustomization.yaml nor hidden names) or - for stdin; repeatable',
    collectPath,
    [],
  );
  return addValuesOptions(cmd);
}

export interface ValuesOptions {
  values: string[];
  set?: SetAssignment[];
  setString?: SetAssignment[];
  strict?: boolean;
}

export interface InputOptions extends ValuesOptions {
  filename: string[];
}

export type ValuesSource = { file: string; values: Record<string, unknown> };

export interface LoadedInputs {
  objects: KObject[];
  /** The `--values` files in order, then `--set`, then `--set-string` (each a source named after its flag). */
  values: ValuesSource[];
}

/** A usage error (exit 2): the message on stderr, as commander reports a bad option. */
export function usageError(cmd: Command, message: string): never {
  cmd.error(`error: ${message}`, { exitCode: 2, code: 'cozy-gw.usage' });
  throw new Error('unreachable');
}

/**
 * Standard input can be read once: two `-` sources would leave the second silently empty.
 * `others`: a command's own sources (diff's `--state`), by flag, read before `-f` and `--values`.
 */
export function checkStdin(cmd: Command, opts: Partial<InputOptions>, others: Record<string, string[]> = {}): void {
  const sources: [string, string[]][] = [
    ...Object.entries(others),
    ['-f', opts.filename ?? []],
    ['--values', opts.values ?? []],
  ];
  const users: string[] = [];
  for (const [flag, paths] of sources) for (const p of paths) if (p === '-') users.push(`${flag} -`);
  if (users.length > 1)
    usageError(cmd, `standard input can be read only once, but ${users.join(' and ')} both read it`);
}

/**
 * The `--set` and `--set-string` sources, applied after every `--values` (and over the Package's
 * values). A list addressed by index starts from the list the earlier sources hold, as in helm.
 */
export function setSources(opts: ValuesOptions, files: ValuesSource[], objects: KObject[]): ValuesSource[] {
  const out: ValuesSource[] = [];
  const pkg = findPlatformPackage(objects);
  const pv = pkg ? packageValues(pkg) : undefined;
  let earlier: Record<string, unknown> = isObject(pv) ? pv : {};
  for (const f of files) earlier = mergeValues(earlier, f.values);
  for (const [flag, assignments] of [
    ['--set', opts.set ?? []],
    ['--set-string', opts.setString ?? []],
  ] as const) {
    if (!assignments.length) continue;
    const before = earlier;
    const existing = (p: PathPart[]) => {
      let node: unknown = before;
      for (const part of p)
        node =
          Array.isArray(node) && typeof part === 'number'
            ? node[part]
            : isObject(node) && typeof part === 'string'
              ? node[part]
              : undefined;
      return node;
    };
    const values = applySet({}, assignments, existing);
    out.push({ file: flag, values });
    earlier = mergeValues(earlier, values);
  }
  return out;
}

/** Read `--values` (and apply `--set`). Throws FindingsError (every problem at once) on bad input. */
export function loadValues(opts: ValuesOptions, ctx: CliContext, objects: KObject[] = []): ValuesSource[] {
  const sources = ctx.sources ?? new SourceMap();
  const { values: files } = readValuesFiles(opts.values ?? [], {
    readStdin: ctx.io.readStdin,
    cwd: ctx.io.cwd,
    sources,
  });
  ctx.sources = sources;
  return [...files, ...setSources(opts, files, objects)];
}

/**
 * Read -f and --values (and --set). Throws FindingsError with every problem of every source at once.
 * `into`: a source map that already holds other inputs of the run (diff's --state), added to.
 */
export function loadInputs(opts: InputOptions, ctx: CliContext, cmd?: Command, into?: SourceMap): LoadedInputs {
  if (cmd) checkStdin(cmd, opts);
  const sources = into ?? new SourceMap();
  ctx.sources = sources;
  const ro = { readStdin: ctx.io.readStdin, cwd: ctx.io.cwd, sources };
  const findings: Finding[] = [];
  const attempt = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof FindingsError) {
        pushAll(findings, e.findings);
        return fallback;
      }
      throw e;
    }
  };
  ctx.progress.phase('reading inputs...');
  const objects = attempt(() => readInputs(opts.filename ?? [], ro).objects, [] as KObject[]);
  const files = attempt(() => readValuesFiles(opts.values ?? [], ro).values, [] as ValuesSource[]);
  ctx.progress.phase(`read ${grouped(objects.length)} objects`);
  // Labels and annotations that are not maps of strings: an input error naming the field.
  pushAll(findings, metadataFindingsOf(objects));
  if (findings.length) throw new FindingsError(findings);
  return { objects, values: [...files, ...setSources(opts, files, objects)] };
}

/**
 * Stop on errors, and with `--strict` on warnings too (each reported as an error), warnings first
 * (k8s/diagnostics.ts refusalOrder).
 * Call before anything is written, so a refused run writes nothing, and says nothing about the
 * output it does not write (the notes on what it left out of it).
 */
export function failOn(findings: Finding[], opts: { strict?: boolean }): void {
  const promoted = opts.strict
    ? findings.map((f) => (f.severity === 'warning' ? { ...f, severity: 'error' as const } : f))
    : findings;
  if (hasErrors(promoted))
    throw new FindingsError(refusalOrder(promoted.filter((f) => !OUTPUT_NOTES.has(f.rule ?? ''))));
}

/**
 * A pass's findings, then `--validate`'s over the objects it is about to emit: stop on either
 * (failOn), else the findings of both, to report.
 */
export function checkEmitted(
  findings: Finding[],
  emitted: KObject[],
  opts: { strict?: boolean; validate?: boolean },
  behaviour?: Behaviour,
): Finding[] {
  failOn(findings, opts);
  const invalid = validateEmitted(emitted, opts, behaviour);
  failOn(invalid, opts);
  return [...findings, ...invalid];
}

/**
 * A rendering run refused without `--values`, `--set` or `--set-string` ran the charts on their
 * default platform values: the errors it reports (a tenant's gatewayClass the defaults do not
 * allow) usually mean the platform's values file was left out, which the hint after them says.
 */
export function withValuesHint(findings: Finding[], opts: ValuesOptions): Finding[] {
  if (opts.values.length || opts.set?.length || opts.setString?.length || !hasErrors(findings)) return findings;
  return findings.concat({
    severity: 'info',
    rule: 'input.no-values',
    message:
      "no --values given: the charts used their default platform values; if these errors come from that, pass the platform's values file with --values",
  });
}

/** Info findings about what the output leaves out: moot when there is no output. */
const OUTPUT_NOTES: ReadonlySet<string> = new Set(['render.hooks-omitted']);

/**
 * `--gateway-api-version`: a version (`1.6.1`, `v1.2`) of a bundle the policies know (1.0 and
 * later). Anything else is a usage error (exit 2), as commander reports any other bad flag value.
 */
export function gatewayApiVersionArg(v: string): string {
  if (!/^v?\d+(\.\d+){0,2}([-+][0-9A-Za-z.+-]*)?$/.test(v))
    throw new InvalidArgumentError(
      `${JSON.stringify(v.slice(0, 80))} is not a version (e.g. ${DEFAULT_GATEWAY_API_VERSION})`,
    );
  try {
    servedVersions(v);
  } catch (e) {
    if (e instanceof FindingsError) throw new InvalidArgumentError(e.findings.map((f) => f.message).join('; '));
    throw e;
  }
  return v;
}

/**
 * `--api-versions` (repeatable, and comma-separated as helm's string slice): each entry a
 * `GROUP/VERSION` (`v1` for the core group; helm's `GROUP/VERSION/Kind` form is accepted too).
 * Commander's collector: the values so far, with this flag's appended.
 */
export function apiVersionsArg(v: string, previous: string[] = []): string[] {
  const out = [...previous];
  for (const entry of v.split(',')) {
    const e = entry.trim();
    if (!/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?v[0-9][a-z0-9]*(\/[A-Za-z][A-Za-z0-9]*)?$/.test(e))
      throw new InvalidArgumentError(
        `${JSON.stringify(e.slice(0, 80))} is not an API version (GROUP/VERSION, e.g. cozystack.io/v1alpha1, or v1 for the core group)`,
      );
    out.push(e);
  }
  return out;
}

/** `--cilium-version`: a Cilium version (`1.20.2`, `v1.19.5`); anything else is a usage error. */
export function ciliumVersionArg(v: string): string {
  if (!parseCiliumVersion(v)) throw new InvalidArgumentError(`"${v}" ${NOT_A_CILIUM_VERSION}`);
  return v;
}

/**
 * `--now`: the clock for condition timestamps, a usage error unless RFC 3339; its default as the
 * command's clock mode has it (src/cli/clock.ts). `when`: the option's condition (render's).
 */
export function addNowOption(cmd: Command, mode: ClockMode, when = ''): Command {
  const fallback = mode === 'live' ? 'the current time' : `SOURCE_DATE_EPOCH, else ${EPOCH}, so output is reproducible`;
  return cmd.option('--now <time>', `${when}RFC 3339 clock for condition timestamps (default: ${fallback})`, parseNow);
}

/** `--cilium-version`: reconcile, diff and post-render judge the Gateway hazards of that version. */
export function addCiliumVersionOption(cmd: Command): Command {
  return cmd.option(
    '--cilium-version <semver>',
    'the Cilium version whose Gateway hazards are reported',
    ciliumVersionArg,
    SHIPPED_CILIUM_VERSION,
  );
}

/** `--validate`: render, reconcile and diff check what they emit against the published schemas. */
/** `-q, --quiet`: no progress line (src/cli/progress.ts); notes, warnings and errors are still printed. */
export function addQuietOption(cmd: Command): Command {
  return cmd.option('-q, --quiet', 'no progress line on a terminal (notes, warnings and errors are still printed)');
}

export function addValidateOption(cmd: Command): Command {
  return cmd.option(
    '--validate',
    'check every emitted object against its published schema (as kubeconform would): core and RBAC kinds, Flux HelmReleases, Cilium policies, Keycloak groups, Gateway API, cert-manager, TenantGateways; exit 1 on an invalid object',
  );
}

/**
 * The findings of `--validate` over the objects a command is about to emit (none without the flag);
 * TenantGateways against the CRD of the Cozystack version reproduced (docs/versions.md §9).
 */
export function validateEmitted(objects: KObject[], opts: { validate?: boolean }, behaviour?: Behaviour): Finding[] {
  if (!opts.validate) return [];
  return late.publishedSchemas().validatePublished(objects, behaviour);
}

/** `-n` names a namespace: a DNS label (a usage error otherwise). */
export function namespaceArg(v: string): string {
  if (!isDns1123Label(v)) throw new InvalidArgumentError(notANamespaceName(v));
  return v;
}

/** The environment variable that is `--cozystack-version`'s default (docs/versions.md "Choosing a version"). */
export const COZYSTACK_VERSION_ENV = 'COZY_GW_COZYSTACK_VERSION';

/** `--cozystack-version`: a version cozy-gw reproduces, else a usage error (exit 2) listing them. */
export function cozystackVersionArg(v: string): string {
  const r = resolveCozystackVersion(v);
  if (!r.ok) throw new InvalidArgumentError(r.error);
  return v;
}

/** `--cozystack-version` on every command that renders, reconciles, admits or diffs. */
export function addCozystackVersionOption(cmd: Command, fromState = false): Command {
  const state = fromState ? ', else the version the state records' : '';
  return cmd.option(
    '--cozystack-version <version>',
    `the Cozystack release to reproduce: a tag (v1.6.2), a line (v1.6: its newest patch) or main (default: $${COZYSTACK_VERSION_ENV}${state}, else ${DEFAULT_COZYSTACK_VERSION.name})`,
    cozystackVersionArg,
  );
}

/** What a state says of the Cozystack that wrote it: the version and where that was read. */
export interface RecordedVersion {
  version: string;
  /** Where it was read, for messages (`the tree's record`, `Deployment cozy-system/cozystack-operator`). */
  from: string;
  /**
   * The versions the state allows, when it tells no more than a set (a cluster's migration level
   * names a line: docs/versions.md §11); reproducing one of them is no mismatch. Default: `version`.
   */
  versions?: string[];
}

/**
 * The version a cluster state tells (docs/versions.md §11, src/platform/clusterVersion.ts): a
 * snapshot's record or the objects that tell it, for chooseCozystackVersion; and a warning when
 * its sources disagree.
 */
export function stateVersion(objects: readonly KObject[]): { recorded?: RecordedVersion; findings: Finding[] } {
  const v = clusterVersionOf(objects);
  if (!v.version) return { findings: [] };
  const recorded = { version: v.version, from: v.from ?? 'the state', versions: v.versions };
  const findings = v.disagreements.length
    ? [
        warning(
          `the state's version sources disagree: it is taken to be of Cozystack ${v.version} (${recorded.from}), but ${v.disagreements.join('; ')}`,
          {
            rule: 'version.state-disagrees',
            hint: 'pass --cozystack-version to choose the version reproduced',
          },
        ),
      ]
    : [];
  return { recorded, findings };
}

/** The version a command reproduces, how it was chosen, and what to say about it. */
export interface ChosenVersion {
  version: CozystackVersion;
  /** The unknown patch that stood in for the line's newest, or the state's other version: warnings. */
  findings: Finding[];
  /** The version the state records, when it names one. */
  recorded?: RecordedVersion;
  /** The state records another version than the one rendered (said on stderr and in every report's header). */
  mismatch?: string;
}

/**
 * The Cozystack version of a run (docs/versions.md "Choosing a version"): `--cozystack-version`,
 * else $COZY_GW_COZYSTACK_VERSION, else the version the state records (diff, reconcile), else the
 * newest release. A bad value in the variable is a usage error, as the flag's is.
 */
export function chooseCozystackVersion(
  cmd: Command,
  opts: { cozystackVersion?: string },
  ctx: CliContext,
  recorded?: RecordedVersion,
): ChosenVersion {
  const findings: Finding[] = [];
  const pick = (given: string, what: string) => {
    const r = resolveCozystackVersion(given);
    if (!r.ok) return usageError(cmd, `${what}: ${r.error}`);
    if (r.warning) findings.push(warning(r.warning, { rule: 'version.unknown-patch' }));
    return r.version;
  };
  const env = ctx.io.env[COZYSTACK_VERSION_ENV];
  let version: CozystackVersion;
  if (opts.cozystackVersion !== undefined) version = pick(opts.cozystackVersion, '--cozystack-version');
  else if (env !== undefined && env !== '') version = pick(env, COZYSTACK_VERSION_ENV);
  else if (recorded) {
    const r = resolveCozystackVersion(recorded.version);
    version = r.ok ? r.version : DEFAULT_COZYSTACK_VERSION;
    if (!r.ok || r.warning)
      findings.push(
        warning(
          `${recorded.from} says Cozystack ${recorded.version}, which cozy-gw does not reproduce: using ${version.name}`,
          { rule: 'version.state-unknown', hint: 'pass --cozystack-version to choose the version reproduced' },
        ),
      );
  } else version = DEFAULT_COZYSTACK_VERSION;
  const named = (v: string) => (/^\d/.test(v) ? `v${v}` : v);
  const allowed = recorded && (recorded.versions?.length ? recorded.versions : [named(recorded.version)]);
  const mismatch =
    recorded && allowed && !allowed.includes(version.name)
      ? `the state is of Cozystack ${allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : recorded.version} (${recorded.from}) and cozy-gw reproduces ${version.name}`
      : undefined;
  if (mismatch) findings.push(warning(mismatch, { rule: 'version.mismatch' }));
  return { version, findings, recorded, mismatch };
}

/** What every report's header says of the version (src/reports/versionHeader.ts): the version reproduced, and the state's. */
export function versionHeader(chosen: ChosenVersion): VersionHeader {
  const r = chosen.recorded;
  if (!r) return { version: chosen.version.name };
  const versions = r.versions?.length ? r.versions : [/^\d/.test(r.version) ? `v${r.version}` : r.version];
  return {
    version: chosen.version.name,
    state: { version: r.version, versions, from: r.from, differs: chosen.mismatch !== undefined },
  };
}
