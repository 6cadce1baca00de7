/**
 * Findings: what a command reports about its input (errors and warnings), as data.
 * Modules return or throw findings; only the CLI edge prints them.
 */
import type { ObjRef } from './model';
import { describe } from './model';
import { printable } from './printable';

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  severity: Severity;
  message: string;
  /** Short identifier of the rule that produced the finding (e.g. `tenant.release-name`). */
  rule?: string;
  object?: ObjRef;
  /** Dotted field path inside the object, e.g. `spec.gatewayClass`. */
  field?: string;
  file?: string;
  line?: number;
  /** What the user can do about it. */
  hint?: string;
  /**
   * The input object itself, where its identity does not find it: one copy of several of one
   * identity, or an object whose namespace is not a string. The CLI edge places the finding there.
   */
  instance?: object;
  /** The platform value the finding is about and where it is set (the hint ends by saying so). */
  valueAt?: ValueAt;
}

/**
 * Where a platform value was set: a `--values` file, or a field of an input object (a Package).
 * The core names the source; the CLI edge adds the file and line from the readers' source map.
 */
export interface ValueAt {
  /** The platform value, e.g. `publishing.certificates.solver`. */
  value: string;
  file?: string;
  object?: ObjRef;
  /** The field that holds it in `file`'s mapping or in `object`. */
  field?: string;
  line?: number;
}

/** The hint, with where the value it is about is set when that is known. */
export function fullHint(f: Finding): string | undefined {
  const at = f.valueAt;
  if (!at?.file) return f.hint;
  const set = `${at.value} is set at ${at.file}${at.line ? `:${at.line}` : ''}`;
  return f.hint ? `${f.hint}; ${set}` : set;
}

/** Thrown by the core for user errors; carries every finding, not only the first. */
export class FindingsError extends Error {
  readonly findings: Finding[];
  constructor(findings: Finding[]) {
    super(findings.map(formatFinding).join('\n'));
    this.name = 'FindingsError';
    this.findings = findings;
  }
}

export function error(message: string, extra: Omit<Finding, 'severity' | 'message'> = {}): Finding {
  return { severity: 'error', message, ...extra };
}

export function warning(message: string, extra: Omit<Finding, 'severity' | 'message'> = {}): Finding {
  return { severity: 'warning', message, ...extra };
}

/** `file:line: Kind ns/name: field: message (hint)` with the parts that are known, printable. */
export function formatFinding(f: Finding): string {
  return printable(formatFindingRaw(f));
}

function formatFindingRaw(f: Finding): string {
  const where: string[] = [];
  if (f.file) where.push(f.line ? `${f.file}:${f.line}` : f.file);
  if (f.object) where.push(describe(f.object));
  if (f.field) where.push(f.field);
  const head = f.severity === 'error' ? 'error' : f.severity;
  const loc = where.length ? `${where.join(': ')}: ` : '';
  const hint = fullHint(f);
  return `${head}: ${loc}${f.message}${hint ? ` (${hint})` : ''}`;
}

export function hasErrors(fs: Finding[]): boolean {
  return fs.some((f) => f.severity === 'error');
}

/**
 * The findings as a refused run reports them: the warnings about its inputs first (rule
 * `input.*`: a values-file typo's unknown key is the cause of the error it leads to, and is read
 * before it), then its errors, then the rest; each group in its order.
 */
export function refusalOrder(fs: readonly Finding[]): Finding[] {
  const cause = (f: Finding) => f.severity === 'warning' && (f.rule ?? '').startsWith('input.');
  return [
    ...fs.filter(cause),
    ...fs.filter((f) => f.severity === 'error'),
    ...fs.filter((f) => f.severity !== 'error' && !cause(f)),
  ];
}
