/**
 * `cozy-gw diff` (docs/commands/diff.md): a change previewed against a cluster state. Reads
 * `--state` (a snapshot, an earlier `reconcile --all` output, or a committed `render --output-dir`
 * tree), the change (`-f`, `--values`), runs the core (src/diff/diff.ts) and prints a unified
 * diff per object (default), a plan opening with the hostname table (`-o plan`) or JSON (`-o json`).
 *
 * Exit codes, for a CI gate: 0 no differences; 3 differences; 1 an error (a render failure or
 * invalid input, as in every command); 2 a usage error. kubectl diff's 1 for "differences" would
 * make them indistinguishable from a failed render, which every cozy-gw command reports as 1.
 *
 * The clock is reproducible by default (docs/commands/README.md "Values, warnings and trees"): `--now`,
 * else SOURCE_DATE_EPOCH, else the fixed epoch 1970-01-01T00:00:00Z.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { COMMENT_LIMIT, MIN_COMMENT_LIMIT } from '../../reports/commentParts';
import type { CliContext } from '../context';
import { late } from '../lateModules';
import { readState } from '../../io/stateInput';
import { SourceMap } from '../../io/sourceMap';
import { FindingsError, type Finding } from '../../k8s/diagnostics';
import type { DiffOptions, DiffResult } from '../../diff/diff';
import { shellWord } from '../shellWords';
import { resolveNow } from '../clock';
import {
  addCozystackVersionOption,
  addInputOptions,
  chooseCozystackVersion,
  addValidateOption,
  addCiliumVersionOption,
  addNowOption,
  addQuietOption,
  checkEmitted,
  checkStdin,
  collectPath,
  loadInputs,
  stateVersion,
  usageError,
  versionHeader,
  type ChosenVersion,
  type LoadedInputs,
  type RecordedVersion,
  withValuesHint,
  type InputOptions,
} from './common';
import { parseCiliumVersion } from '../../controller/ciliumVersion';
import { withExamples } from './help';
import { grouped, progressLine } from '../progress';
import { addFindingsFileOptions, withFindingsFile, type FindingsFileOptions } from '../findingsFile';
import { locate } from '../context';
import { removeEarlierParts, writeCommentParts } from '../commentDir';

/** `--comment-limit`: a whole number of characters, MIN_COMMENT_LIMIT at least. */
function commentLimitArg(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < MIN_COMMENT_LIMIT)
    throw new InvalidArgumentError(`a whole number of characters, ${MIN_COMMENT_LIMIT} at least`);
  return n;
}

/** The exit code for "the change makes a difference" (docs/commands/README.md "Exit codes"). */
export const EXIT_DIFFERENCES = 3;

interface DiffCliOptions extends InputOptions, FindingsFileOptions {
  validate?: boolean;
  /** Required; undefined when not given (the help shows no empty default for it). */
  state?: string[];
  prune?: boolean;
  full?: boolean;
  output: 'diff' | 'plan' | 'json' | 'markdown' | 'html';
  commentDir?: string;
  commentLimit: number;
  now?: string;
  ciliumVersion: string;
  quiet?: boolean;
  cozystackVersion?: string;
}

/** The diff's command line without `-o` (the markdown comment names it for what it left out). */
function rerunLine(opts: DiffCliOptions & { state: string[] }): string {
  const words = ['cozy-gw', 'diff'];
  for (const s of opts.state) words.push('--state', shellWord(s));
  for (const v of opts.values) words.push('--values', shellWord(v));
  for (const f of opts.filename) words.push('-f', shellWord(f));
  if (opts.set?.length || opts.setString?.length) words.push('(with the same --set options)');
  if (opts.prune) words.push('--prune');
  return words.join(' ');
}

/** The reviewer's report options: the comment in parts, and the findings for CI (docs/commands/diff.md). */
function addReportOptions(cmd: Command): Command {
  cmd
    .option(
      '--comment-dir <dir>',
      'with -o markdown: write the comment in parts DIR/comment-01.md, ... (each at most --comment-limit characters, nothing left out) instead of one cut comment on stdout',
    )
    .option(
      '--comment-limit <chars>',
      "with --comment-dir: the most characters of one part, GitHub's limit by default",
      commentLimitArg,
      COMMENT_LIMIT,
    );
  return addFindingsFileOptions(cmd);
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('diff')
    .description(
      'Render the change (-f, --values) over the cluster state (--state), run the controllers once, and print what would differ: ' +
        'a unified diff per object (default), a plan opening with what happens to every hostname (-o plan), JSON (-o json), ' +
        'a pull-request comment (-o markdown) or a self-contained report page (-o html).',
    )
    .option(
      '--state <path>',
      'required: the cluster state now: a snapshot, a reconcile --all output or a committed render --output-dir tree (file, directory or -); repeatable',
      (v: string, prev: string[] = []) => collectPath(v, prev),
    );
  addValidateOption(addInputOptions(cmd))
    .option(
      '--prune',
      'the given Tenants are the whole tree: a Tenant the state has and the inputs lack is removed, with its Namespace and everything in it',
    )
    .option(
      '--full',
      'against a committed tree, read every file and render every tenant (by default a tree whose record allows it is diffed changed-only: only what the change touches is rendered and read, with the same output)',
    )
    .addOption(
      new Option(
        '-o, --output <format>',
        'diff: a unified diff per object; plan: hostnames first, then what and why; json: {"created", "changed", "deleted", "hostnames", ...}; markdown: a pull-request comment; html: a self-contained report page',
      )
        .choices(['diff', 'plan', 'json', 'markdown', 'html'])
        .default('diff'),
    );
  addReportOptions(cmd);
  addCozystackVersionOption(
    addQuietOption(addCiliumVersionOption(addNowOption(cmd, 'reproducible'))),
    true,
  ).addHelpText(
    'after',
    `
Exit status: 0 no differences, ${EXIT_DIFFERENCES} differences, 1 an error (render failure, invalid input), 2 a usage error.`,
  );
  withExamples(cmd, [
    'cozy-gw diff --state state.yaml --values values.yaml -f tenants/alice.yaml',
    'cozy-gw diff --state deploy/ --values values.yaml -f tenants/ --prune -o plan',
    'cozy-gw diff --state snapshot.yaml -o json            # what one pass would change now',
  ]);
  cmd.action((opts: DiffCliOptions) => withFindingsFile(ctx, cmd, opts, () => diffAction(cmd, ctx, opts)));
  return cmd;
}

/** What the state says of its Cozystack version (common.ts stateVersion; a tree's record), and the warnings it gives. */
interface Told {
  recorded?: RecordedVersion;
  findings: Finding[];
}

/** A tree's recorded version: a record written before versions were recorded was rendered as main, the only version then (docs/versions.md §11). */
function toldByTree(recorded: string | undefined): Told {
  return { recorded: { version: recorded ?? 'main', from: "the tree's record" }, findings: [] };
}

/**
 * The comparison: against a committed tree, changed-only where its record allows
 * (src/cli/treeDiff.ts, docs/performance.md "Changed-only"); else, and with --full, the whole state
 * read and the whole platform rendered. The change is read into the state's source map, so that a
 * finding about either names its file and line. `optionsFor`: the core's options, once the state
 * has told its version.
 */
async function compared(
  cmd: Command,
  ctx: CliContext,
  opts: DiffCliOptions & { state: string[] },
  optionsFor: (told: Told) => DiffOptions,
): Promise<{ result: DiffResult; stateIsTree: boolean } | { exitCode: number }> {
  const { diff } = late.diff();
  const sources = new SourceMap();
  let inputs: LoadedInputs | undefined;
  if (!opts.full && opts.state.length === 1 && opts.state[0] !== '-') {
    try {
      inputs = loadInputs(opts, ctx, cmd, sources);
    } catch (e) {
      // As a whole diff would: the state's problems first, else the change's.
      if (e instanceof FindingsError) readState(opts.state, ctx.io, new SourceMap());
      throw e;
    }
    ctx.progress.phase('comparing what the change touches...');
    const result = late.treeDiff().changedOnlyDiff(
      {
        state: opts.state[0],
        cwd: ctx.io.cwd,
        sources,
        objects: inputs.objects,
        valuesFiles: inputs.values,
        prune: opts.prune,
        wholeTree: opts.output === 'markdown' || opts.output === 'html',
      },
      (version) => optionsFor(toldByTree(version)),
    );
    if ('result' in result) return { result: result.result, stateIsTree: true };
    // The whole tree, then: read in a process with the heap it asks for (src/cli/heapLimit.ts),
    // where standard input was not read already.
    const stdin = [...opts.filename, ...opts.values].includes('-');
    const again = stdin ? undefined : await ctx.io.runAgainWith?.(['--full']);
    if (again !== undefined) return { exitCode: again };
  }
  ctx.progress.phase('reading the state...');
  const { state, treeHeld, tree } = readState(opts.state, ctx.io, sources);
  ctx.progress.phase(`read the state: ${grouped(state.length)} objects`);
  // A cluster's state tells its own version (docs/versions.md §11).
  const diffOptions = optionsFor(tree ? toldByTree(tree.shape.cozystackVersion) : stateVersion(state));
  inputs ??= loadInputs(opts, ctx, cmd, sources);
  const result = diff(
    { state, treeHeld, tree, objects: inputs.objects, valuesFiles: inputs.values, prune: opts.prune },
    diffOptions,
  );
  return { result, stateIsTree: (treeHeld?.size ?? 0) > 0 };
}

/** The command's work: the comparison, printed in the format asked for. */
async function diffAction(cmd: Command, ctx: CliContext, opts: DiffCliOptions): Promise<void> {
  if (opts.commentDir !== undefined && opts.output !== 'markdown')
    usageError(cmd, '--comment-dir writes the markdown comment in parts: it needs -o markdown');
  if (opts.commentDir === '') usageError(cmd, '--comment-dir is empty (a directory is required)');
  if (opts.commentDir === undefined && cmd.getOptionValueSource('commentLimit') === 'cli')
    usageError(cmd, '--comment-limit bounds the parts --comment-dir writes: it needs --comment-dir');
  if (!opts.state?.length)
    usageError(
      cmd,
      '--state is required (the cluster state to compare with: a snapshot, a reconcile --all output or a render --output-dir tree)',
    );
  const withState = opts as DiffCliOptions & { state: string[] };
  checkStdin(cmd, opts, { '--state': withState.state });
  // An earlier run's parts go before anything can fail: a failed run leaves none to post.
  if (opts.commentDir !== undefined) removeEarlierParts(ctx.io.cwd, opts.commentDir);
  const { diffReport } = late.diffOutput();
  const now = resolveNow({ now: opts.now, env: ctx.io.env, mode: 'reproducible' });
  ctx.progress = progressLine(ctx.io, opts.quiet);
  let told: Told = { findings: [] };
  let chosen: ChosenVersion | undefined;
  const done = await compared(cmd, ctx, withState, (t) => {
    told = t;
    chosen = chooseCozystackVersion(cmd, opts, ctx, t.recorded);
    return {
      now,
      cozystack: chosen.version,
      ciliumVersion: parseCiliumVersion(opts.ciliumVersion)!,
      progress: (n: number) => ctx.progress.count('rendered', n, undefined, n === 1 ? 'tenant' : 'tenants'),
    };
  });
  if ('exitCode' in done) {
    ctx.exitCode = done.exitCode;
    ctx.ranAgain = true;
    return;
  }
  const { result, stateIsTree } = done;
  const version = chosen!;
  // Values other than the tree's, or none where it had some: said first, before any error it may cause.
  const stateArgs = withState.state.map((s) => `--state ${shellWord(s)}`).join(' ');
  const values = late.diffOutput().valuesNote(result, stateArgs);
  if (values) ctx.note(values);
  // --validate: the objects the change creates or changes, as they would be, against their published schemas.
  result.findings = checkEmitted(
    withValuesHint([...told.findings, ...version.findings, ...result.findings], opts),
    [...result.created, ...result.changed.map((c) => c.after)],
    opts,
    version.version.behaviour,
  );
  const report = diffReport(result, {
    format: opts.output,
    now,
    stateArgs,
    rerun: rerunLine(withState),
    stateIsTree,
    // Placed at file and line, so that the comment and the page say where too.
    place: (f) => locate(f, ctx.sources),
    commentParts: opts.commentDir !== undefined ? { limit: opts.commentLimit } : undefined,
    cozystack: versionHeader(version),
  });
  ctx.report(report.warnings);
  for (const n of report.notes) ctx.note(n);
  // The verdict first: a reader that closes the pipe early never turns "differences" into "none".
  ctx.exitCode = report.different ? EXIT_DIFFERENCES : 0;
  for (const chunk of report.stdout) ctx.io.stdout(chunk);
  if (report.parts && opts.commentDir !== undefined) {
    const written = writeCommentParts(ctx.io.cwd, opts.commentDir, report.parts);
    const n = written.length;
    ctx.note(
      `note: the comment is in ${n} part${n === 1 ? '' : 's'}: ${written[0]}${n > 1 ? ` to ${written[n - 1]}` : ''}`,
    );
  }
}
