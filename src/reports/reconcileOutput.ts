/**
 * What `cozy-gw reconcile` prints for one pass (docs/commands/reconcile.md): what the pass creates
 * or changes (-o yaml), the whole state after it (--all), the changes and deletions as JSON
 * (-o json) or an account of them (-o plan), and what goes to standard error: the findings and the notes (the Secrets printed
 * without their data, what the pass deletes, a pass with nothing to do). Pure: the command prints it.
 */
import type { ReconcileResult } from '../pipelines/reconcile';
import { renderPlan } from './plan';
import { hostnameTable } from '../diff/hostnames';
import { describe, type KObject, type ObjRef } from '../k8s/model';
import type { Finding } from '../k8s/diagnostics';
import { redactSecrets, redactionNotice } from '../k8s/secretRedaction';
import { toJson, yamlStreamChunks } from '../k8s/yaml';
import type { VersionHeader } from './versionHeader';

export interface ReconcileOutput {
  /**
   * The text for stdout, in pieces: a YAML stream is produced document by document as it is
   * written (the whole output of a large pass is never held as one string). Join the
   * pieces for the whole text.
   */
  stdout: Iterable<string>;
  /** Lines for standard error besides the findings. */
  notes: string[];
  /** The findings for standard error: in a plan they are part of stdout, and only its warnings are repeated there. */
  findings: Finding[];
}

export interface ReconcileFormat {
  output: string;
  all?: boolean;
  includeSecretData?: boolean;
  now: string;
  /** The Cozystack version reproduced (the plan's header names it). */
  cozystack?: VersionHeader;
}

/**
 * What the pass emits, the objects `--validate` checks: the whole state after it with --all,
 * else what it creates or changes (formatReconcile prints the same objects, their Secrets redacted).
 */
export function emittedObjects(result: ReconcileResult, all: boolean): KObject[] {
  return all ? result.store.all() : result.store.changedObjects();
}

/** The output of one pass in the chosen format. */
export function formatReconcile(result: ReconcileResult, before: KObject[], opts: ReconcileFormat): ReconcileOutput {
  if (opts.output === 'plan')
    return {
      stdout: [planOf(result, before, opts.now, opts.cozystack)],
      notes: [],
      findings: result.findings.filter((f) => f.severity === 'warning'),
    };
  const findings = result.findings;
  const notes: string[] = [];
  const deleted = result.store.deletions();
  const all = opts.all ? redactSecrets(emittedObjects(result, true), Boolean(opts.includeSecretData)) : undefined;
  // With --all, what changed is printed only by -o json.
  const changed =
    !all || opts.output === 'json'
      ? redactSecrets(emittedObjects(result, false), Boolean(opts.includeSecretData))
      : undefined;
  const redacted = (all ?? changed)!.redacted;
  if (redacted) notes.push(redactionNotice(redacted));
  if (opts.output === 'json') {
    const doc: Record<string, unknown> = { changed: changed!.objects, deleted: deleted.map(deletedEntry) };
    if (all) doc.objects = all.objects;
    return { stdout: [toJson(doc)], notes, findings };
  }
  if (deleted.length) notes.push(deletionNote(deleted, Boolean(opts.all)));
  if (!opts.all && !result.changes.length) notes.push('note: nothing to create, change or delete');
  return { stdout: yamlStreamChunks((all ?? changed)!.objects), notes, findings };
}

/** -o plan: the account of the pass, with the hostnames each object claims before and after. */
function planOf(result: ReconcileResult, before: KObject[], now: string, cozystack?: VersionHeader): string {
  const hostnames = hostnameTable(
    { objects: before, judgedBy: result.races },
    { objects: result.store.all(), races: result.races },
  );
  return renderPlan(result, {
    before,
    now,
    hostnames,
    channelOrigin: result.channelOrigin,
    ciliumVersion: result.ciliumVersion,
    upstreamCilium: result.upstreamCilium,
    cozystack,
  });
}

/** An entry of -o json's `deleted`: the object's identity, the namespace "" for a cluster-scoped one. */
function deletedEntry(r: ObjRef): { apiVersion: string; kind: string; namespace: string; name: string } {
  return { apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace ?? '', name: r.name };
}

/** The note naming what the pass deletes (with --all, absent from the output). */
function deletionNote(deleted: ObjRef[], all: boolean): string {
  return `note: the pass deletes ${deleted.length} object${deleted.length === 1 ? '' : 's'}: ${deleted.map((r) => describe(r)).join(', ')}${all ? ' (absent from the output)' : ''}`;
}
