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

/** `file:line: Kind ns/name: field: message (hint)` with the parts that are known. */
/** The longest run of non-blank characters a message echoes; longer ones are cut (docs/decisions.md §13). */
export const ECHO_LIMIT = 200;

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/**
 * A message line safe to print (docs/decisions.md §13): control characters (newlines, ANSI escapes,
 * bidirectional overrides) escaped, so no value a user wrote can forge another line or drive
 * the terminal, and any run of more than ECHO_LIMIT non-blank characters cut, saying how much
 * was left out. Pure.
 */
export function printable(s: string): string {
  const escaped = s.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.replace(
    new RegExp(`[^\\s]{${ECHO_LIMIT + 1},}`, 'g'),
    (w) => `${w.slice(0, ECHO_LIMIT)}…(${w.length - ECHO_LIMIT} more characters)`,
  );
}

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
