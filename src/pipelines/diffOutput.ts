/**
 * What `cozy-gw diff` prints for a result (docs/commands/diff.md): the findings that matter
 * (errors, and warnings about the objects the change makes differ; the others were there before
 * it and are counted), the notes on standard error (drift, the findings left out, "no
 * differences"), the output in the format asked for, and whether there are differences (the exit status a CI gate reads). Pure:
 * a result in, text out.
 */
import type { Finding } from '../k8s/diagnostics';
import { keyOf } from '../k8s/model';
import { toJson } from '../k8s/yaml';
import { EPOCH } from '../k8s/time';
import { planStore, diffChanges, hasDifferences, type DiffResult } from './diff';
import { renderPlan } from './plan';
import { differences } from './comparison';
import { unifiedDiffs } from './unifiedDiff';
import { markdownComment, markdownParts } from './markdownComment';
import { htmlReport } from './htmlReport';

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
  /** `-o markdown --comment-dir`: the comment in parts of at most this many characters (DiffReport.parts). */
  commentParts?: { limit: number };
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

/** The findings worth repeating: errors, and warnings about the objects that differ. */
export function relevantFindings(d: DiffResult): { relevant: Finding[]; unrelatedWarnings: number } {
  const differing = new Set([...d.created, ...d.deleted, ...d.changed.map((c) => c.after)].map(keyOf));
  const relevant = d.findings.filter((f) => f.severity === 'error' || !f.object || differing.has(keyOf(f.object)));
  const unrelatedWarnings =
    d.findings.filter((f) => f.severity === 'warning').length - relevant.filter((f) => f.severity === 'warning').length;
  return { relevant, unrelatedWarnings };
}

/** The `-o json` document (docs/commands/diff.md, its JSON fields). */
export function diffJson(d: DiffResult): string {
  return toJson({
    created: d.created,
    changed: d.changed,
    deleted: d.deleted,
    hostnames: d.hostnames,
    inadmissible: d.inadmissible,
    drift: d.drift,
  });
}

/** The lines of the plan that say which Namespaces leave whole. */
export function removedNamespaceNotes(d: DiffResult): string[] {
  return d.removedNamespaces.map((ns) => {
    const n = d.deleted.filter((o) => o.metadata.namespace === ns).length;
    return `Namespace ${ns} is deleted with everything in it (${plural(n, 'object')} besides the Namespace): its tenant left the tree.`;
  });
}

/** The `-o plan` text; its first line names the clock only when one was set (not the reproducible epoch). */
export function diffPlan(d: DiffResult, now: string, relevant: Finding[]): string {
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
      inadmissible: d.inadmissible,
      showRefusedUnchanged: false,
      statusAsFields: true,
      nothingLine: 'No differences: the change leaves the state as it is.',
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

export function diffReport(d: DiffResult, o: DiffPrintOptions): DiffReport {
  const { relevant, unrelatedWarnings } = relevantFindings(d);
  const different = hasDifferences(d);
  const notes: string[] = [];
  if (unrelatedWarnings)
    notes.push(
      `note: ${plural(unrelatedWarnings, 'warning')} about objects the change leaves as they are not repeated (cozy-gw reconcile over the state lists them)`,
    );
  const drift = driftNote(d, o.stateArgs, o.stateIsTree);
  if (drift) notes.push(drift);
  if (!different) notes.push('note: no differences');
  let stdout: Iterable<string> = [];
  let parts: string[] | undefined;
  if (o.format === 'json') stdout = [diffJson(d)];
  else if (o.format === 'plan') stdout = [diffPlan(d, o.now, relevant)];
  else if (o.format === 'markdown' && o.commentParts)
    parts = markdownParts(d, { rerun: o.rerun, findings: relevant, limit: o.commentParts.limit });
  else if (o.format === 'markdown') stdout = [markdownComment(d, { rerun: o.rerun, findings: relevant })];
  else if (o.format === 'html') stdout = [htmlReport(d, { findings: relevant, rerun: o.rerun })];
  else stdout = unifiedDiffs(differences(d));
  return {
    warnings: relevant.filter((f) => f.severity === 'warning'),
    notes,
    stdout,
    different,
    parts,
  };
}
