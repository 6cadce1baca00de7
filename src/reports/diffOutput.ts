/**
 * What `cozy-gw diff` prints for a result (docs/commands/diff.md): the findings that matter
 * (errors, and warnings about the objects the change makes differ; the others were there before
 * it and are counted), the notes on standard error (drift, the findings left out, "no
 * differences"), the output in the format asked for, and whether there are differences (the exit status a CI gate reads). Pure:
 * a result in, text out.
 */
import type { Finding } from '../k8s/diagnostics';
import { describe, keyOf } from '../k8s/model';
import { EPOCH } from '../k8s/time';
import { planStore, diffChanges, hasDifferences, type DiffResult } from '../diff/diff';
import { renderPlan } from './plan';
import { differences } from '../diff/comparison';
import { unifiedDiffs } from './unifiedDiff';
import { markdownComment, markdownParts } from './markdownComment';
import { htmlReport } from './htmlReport';
import { versionJson, type VersionHeader } from './versionHeader';
import { GIVEN_KINDS, givenChangeLines, givenEdits } from './givenChange';

export type DiffFormat = 'diff' | 'plan' | 'json' | 'markdown' | 'html';

export interface DiffPrintOptions {
  format: DiffFormat;
  now: string;
  /** How the user named the state (`--state deploy`), for the notes that say how to see more. */
  stateArgs: string;
  /** The command line without `-o` (the markdown comment's note on what it left out names it). */
  rerun: string;
  /** The state is a tree render wrote (`render --output-dir`), not a cluster's objects. */
  stateIsTree?: boolean;
  /** Places a finding at its file and line (the CLI's source map), for the findings the report prints. */
  place?: (f: Finding) => Finding;
  /** `-o markdown --comment-dir`: the comment in parts of at most this many characters (DiffReport.parts). */
  commentParts?: { limit: number };
  /** The Cozystack version reproduced, and the state's: every report's header names them. */
  cozystack?: VersionHeader;
}

export interface DiffReport {
  /** Warnings to report on standard error. */
  warnings: Finding[];
  /** Lines for standard error, after the warnings. */
  notes: string[];
  /** Standard output, in pieces. */
  stdout: Iterable<string>;
  /** Whether the change makes a difference (the CLI's exit status says so). */
  different: boolean;
  /** `--comment-dir`: the comment's parts, in order (standard output then stays empty). */
  parts?: string[];
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The findings worth repeating: errors, findings about no object (the values given), and warnings
 * about the objects that differ or that the change gives (docs/decisions.md §C8:
 * every finding about what the change gives reaches the reviewer, whether or not that
 * object's rendered output changed). The others were there before the change and are counted.
 */
export function relevantFindings(d: DiffResult): { relevant: Finding[]; unrelatedWarnings: number } {
  const differing = new Set([...d.created, ...d.deleted, ...d.changed.map((c) => c.after)].map(keyOf));
  const relevant = d.findings.filter(
    (f) => f.severity === 'error' || !f.object || differing.has(keyOf(f.object)) || d.given.has(keyOf(f.object)),
  );
  const unrelatedWarnings =
    d.findings.filter((f) => f.severity === 'warning').length -
    relevant.filter((f) => f.severity === 'warning').length +
    (d.outsideWarnings ?? 0);
  return { relevant, unrelatedWarnings };
}

/** A finding as the JSON document carries it: what it says and where, never the input object itself. */
function findingJson(f: Finding): Record<string, unknown> {
  const out: Record<string, unknown> = { severity: f.severity, message: f.message };
  if (f.rule) out.rule = f.rule;
  if (f.object) out.object = f.object;
  if (f.field) out.field = f.field;
  if (f.file) out.file = f.file;
  if (f.line !== undefined) out.line = f.line;
  if (f.hint) out.hint = f.hint;
  return out;
}

/** About this many characters a piece of the JSON document (a write each). */
const JSON_PIECE = 1 << 20;

/**
 * The `-o json` document (docs/decisions.md §C8, its JSON fields; the
 * findings that reach the reviewer, relevantFindings), in pieces of about a megabyte: the same
 * bytes as `JSON.stringify(doc, null, 2)`, made member by member and object by object, so that no
 * string of the whole document is ever made (70,000 Tenants' objects are longer than the longest
 * string V8 makes). Linear in the document's size.
 */
export function* diffJsonChunks(
  d: DiffResult,
  relevant: Finding[] = relevantFindings(d).relevant,
  cozystack?: VersionHeader,
): Generator<string> {
  const members: [string, unknown][] = [
    ...(cozystack ? [['cozystack', versionJson(cozystack)] as [string, unknown]] : []),
    ['created', d.created],
    ['changed', d.changed],
    ['deleted', d.deleted],
    ['hostnames', d.hostnames],
    ['inadmissible', d.inadmissible],
    ['drift', d.drift],
    ['findings', relevant.map(findingJson)],
  ];
  let piece = '{\n';
  for (let m = 0; m < members.length; m++) {
    const [name, value] = members[m];
    piece += `  ${JSON.stringify(name)}: `;
    if (Array.isArray(value) && value.length) {
      piece += '[\n';
      for (let i = 0; i < value.length; i++) {
        // JSON text holds no raw line break (a string's is escaped): every one starts a line to indent.
        piece += `    ${JSON.stringify(value[i], null, 2).replace(/\n/g, '\n    ')}${i + 1 < value.length ? ',' : ''}\n`;
        if (piece.length >= JSON_PIECE) {
          yield piece;
          piece = '';
        }
      }
      piece += '  ]';
    } else piece += JSON.stringify(value, null, 2).replace(/\n/g, '\n  ');
    piece += m + 1 < members.length ? ',\n' : '\n';
  }
  yield `${piece}}\n`;
}

/** The `-o json` document as one string (for a small result; the CLI writes diffJsonChunks). */
export function diffJson(d: DiffResult): string {
  return [...diffJsonChunks(d)].join('');
}

/** The lines of the plan that say which Namespaces leave whole. */
export function removedNamespaceNotes(d: DiffResult): string[] {
  return d.removedNamespaces.map((ns) => {
    const n = d.deleted.filter((o) => o.metadata.namespace === ns).length;
    return `Namespace ${ns} is deleted with everything in it (${plural(n, 'object')} besides the Namespace): its tenant left the tree.`;
  });
}

/** The `-o plan` text; its first line names the clock only when one was set (not the reproducible epoch). */
export function diffPlan(
  d: DiffResult,
  now: string,
  relevant: Finding[],
  stateArgs = '--state',
  cozystack?: VersionHeader,
): string {
  const pass = d.pass!;
  return renderPlan(
    { ...pass, findings: relevant, store: planStore(d), changes: diffChanges(d) },
    {
      before: d.changed.map((c) => c.before),
      now,
      title: 'Diff plan',
      untimed: now === EPOCH,
      channelOrigin: pass.channelOrigin,
      ciliumVersion: pass.ciliumVersion,
      hostnames: d.hostnames,
      notes: removedNamespaceNotes(d),
      // The author's edit first, as given; its Tenants are left out of the namespace groups.
      leading: { lines: givenChangeLines(givenEdits(d), valuesLine(d, stateArgs)), kinds: GIVEN_KINDS },
      inadmissible: d.inadmissible,
      showRefusedUnchanged: false,
      statusAsFields: true,
      nothingLine: 'No differences: the change leaves the state as it is.',
      cozystack,
    },
  );
}

/**
 * The drift note: what a pass over the state alone changes is not the change's. Over a tree render
 * wrote that is expected (a tree holds what render wrote, not the controller's objects and status
 * for the cluster's routes) and is said plainly; over a cluster's objects it is drift.
 */
export function driftNote(d: DiffResult, stateArgs: string, stateIsTree = false): string | undefined {
  if (!d.drift) return undefined;
  const n = plural(d.drift, 'object');
  if (stateIsTree)
    return `note: the state is a tree render wrote; one controller pass over it alone changes ${n} (the controller's objects and status for what the tree holds), as expected of a tree: not the change's, left out (cozy-gw diff ${stateArgs} shows it)`;
  return `note: one controller pass over the state alone would change ${n} (drift, or a state written without the controller's objects); that is not the change's and is left out (cozy-gw diff ${stateArgs} shows it)`;
}

/**
 * What the change's platform values are against those the tree was rendered with (its record's
 * digest): the line the plan, the comment and the page open with. Undefined when they are the same
 * (or the state keeps no digest).
 */
export function valuesLine(d: DiffResult, stateArgs: string): string | undefined {
  if (d.values === 'missing')
    return `No --values given, but ${stateArgs} was rendered with platform values (its record keeps their digest): the change is rendered on the charts' defaults, so what differs includes the values left out; give --values as the tree was rendered.`;
  if (d.values === 'differ')
    return `The platform values differ from those ${stateArgs} was rendered with (its record keeps their digest): what differs includes the values change.`;
  return undefined;
}

/** valuesLine as a note on standard error. */
export function valuesNote(d: DiffResult, stateArgs: string): string | undefined {
  const line = valuesLine(d, stateArgs);
  return line && `note: ${line[0].toLowerCase()}${line.slice(1, -1)}`;
}

/**
 * The note on Secrets whose data cannot be compared: the state left it out without a digest
 * (docs/decisions.md §C8: "where it cannot compare, it says so on stderr
 * and never exits 0"); they count as changed.
 */
export function uncomparableNote(d: DiffResult): string | undefined {
  if (!d.uncomparable.length) return undefined;
  const names = d.uncomparable.map((o) => describe(o)).join(', ');
  return `note: cannot tell whether the data of ${plural(d.uncomparable.length, 'Secret')} changes (${names}): the state left it out without a digest it can be compared by; shown as changed (write the state again: cozy-gw snapshot and reconcile keep a digest, --include-secret-data the data)`;
}

/**
 * The note on a state whose Secrets carry the unsalted digest an earlier version wrote
 * (docs/security.md "Secret digests"): read and compared, but guessable from the state.
 */
export function weakDigestNote(d: DiffResult): string | undefined {
  if (!d.weakDigests) return undefined;
  return `note: the state holds the unsalted sha256 digest an earlier cozy-gw wrote of the data of ${plural(d.weakDigests, 'Secret')}: anyone who has the state can test guesses of that data against it; write the state again with this version (cozy-gw snapshot, or reconcile --all), whose digests are salted scrypt, and replace the old one wherever it is kept`;
}

export function diffReport(d: DiffResult, o: DiffPrintOptions): DiffReport {
  const found = relevantFindings(d);
  const { unrelatedWarnings } = found;
  // Only what is printed is placed: finding a line reads its file again (a large state's, too).
  const relevant = o.place ? found.relevant.map(o.place) : found.relevant;
  const different = hasDifferences(d);
  const notes: string[] = [];
  if (unrelatedWarnings)
    notes.push(
      `note: ${plural(unrelatedWarnings, 'warning')} about objects the change leaves as they are not repeated (cozy-gw reconcile over the state lists them)`,
    );
  const drift = driftNote(d, o.stateArgs, o.stateIsTree);
  if (drift) notes.push(drift);
  const unknown = uncomparableNote(d);
  if (unknown) notes.push(unknown);
  const weak = weakDigestNote(d);
  if (weak) notes.push(weak);
  if (!different) notes.push('note: no differences');
  let stdout: Iterable<string> = [];
  let parts: string[] | undefined;
  const cozystack = o.cozystack;
  const values = valuesLine(d, o.stateArgs);
  if (o.format === 'json') stdout = diffJsonChunks(d, relevant, cozystack);
  else if (o.format === 'plan') stdout = [diffPlan(d, o.now, relevant, o.stateArgs, cozystack)];
  else if (o.format === 'markdown' && o.commentParts)
    parts = markdownParts(d, { rerun: o.rerun, findings: relevant, limit: o.commentParts.limit, values, cozystack });
  else if (o.format === 'markdown')
    stdout = [markdownComment(d, { rerun: o.rerun, findings: relevant, values, cozystack })];
  else if (o.format === 'html')
    stdout = [htmlReport(d, { findings: relevant, rerun: o.rerun, values, now: o.now, cozystack })];
  else stdout = unifiedDiffs(differences(d));
  return {
    warnings: relevant.filter((f) => f.severity === 'warning'),
    notes,
    stdout,
    different,
    parts,
  };
}
