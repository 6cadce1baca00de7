/**
 * Findings: what a command reports about its input (errors and warnings), as data.
 * Modules return or throw findings; only the CLI edge prints them.
 */
import type { ObjRef } from './model';
import { describe } from './model';

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

/** `file:line: Kind ns/name: field: message (hint)` with the parts that are known. */
export function formatFinding(f: Finding): string {
  const where: string[] = [];
  if (f.file) where.push(f.line ? `${f.file}:${f.line}` : f.file);
  if (f.object) where.push(describe(f.object));
  if (f.field) where.push(f.field);
  const head = f.severity === 'error' ? 'error' : f.severity;
  const loc = where.length ? `${where.join(': ')}: ` : '';
  return `${head}: ${loc}${f.message}${f.hint ? ` (${f.hint})` : ''}`;
}

export function hasErrors(fs: Finding[]): boolean {
  return fs.some((f) => f.severity === 'error');
}
