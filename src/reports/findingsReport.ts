/**
 * The findings of a run as CI systems show them (`--findings-file FILE --findings-format
 * github|gitlab|sarif` on render, diff and admit; docs/commands/diff.md), each at the input file and line that caused it (the CLI edge places
 * findings there from the readers' source map before they come here; a finding about a platform
 * value points at the `--values` file line that sets it):
 * - `github`: GitHub Actions workflow commands (`::warning file=F,line=L,title=T::message`), which
 *   GitHub shows on the changed line of the pull request. GitHub shows at most 10 annotations of
 *   each level per step: past that, 9 are written as commands, the 10th says how many more there
 *   are, and the rest follow as plain log lines, so that none is lost.
 * - `gitlab`: a GitLab Code Quality report (a JSON array of Code Climate issues) with a stable
 *   fingerprint per finding: a digest of what the finding is (rule, severity, file, object, field,
 *   message), not of its line, so that moving a file's lines does not make it a new finding.
 * - `sarif`: SARIF 2.1.0 (one run, the tool `cozy-gw`, one result per finding, its rules).
 * Pure: findings in, text out.
 */
import { createHash } from 'node:crypto';
import { formatFinding, fullHint, type Finding } from '../k8s/diagnostics';
import { describe } from '../k8s/model';
import { escapeControl } from '../k8s/printable';
import { pushAll } from '../k8s/arrays';

export type FindingsFormat = 'github' | 'gitlab' | 'sarif';
export const FINDINGS_FORMATS: readonly FindingsFormat[] = ['github', 'gitlab', 'sarif'];

/** GitHub shows this many annotations of each level per step. */
export const GITHUB_PER_LEVEL = 10;

export interface FindingsReportOptions {
  /** The tool's version (SARIF's driver). */
  version: string;
}

/** The file and line a finding points at: its own, else where the platform value it is about is set. */
export function placeOf(f: Finding): { file?: string; line?: number } {
  if (f.file) return { file: f.file, line: f.line };
  if (f.valueAt?.file) return { file: f.valueAt.file, line: f.valueAt.line };
  return {};
}

/** The finding's text without its severity and place (each format says those its own way). */
function messageOf(f: Finding): string {
  const what: string[] = [];
  if (f.object) what.push(describe(f.object));
  if (f.field) what.push(f.field);
  const hint = fullHint(f);
  return escapeControl(`${what.length ? `${what.join(': ')}: ` : ''}${f.message}${hint ? ` (${hint})` : ''}`);
}

function ruleOf(f: Finding): string {
  return f.rule ?? `cozy-gw.${f.severity}`;
}

/** A workflow command's data: `%`, CR and LF encoded (GitHub's escaping). */
function ghData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property value: the data's escaping, and `:` and `,` too. */
function ghProperty(s: string): string {
  return ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const GH_LEVEL: Record<Finding['severity'], string> = { error: 'error', warning: 'warning', info: 'notice' };

function ghCommand(f: Finding): string {
  const { file, line } = placeOf(f);
  const props: string[] = [];
  if (file) props.push(`file=${ghProperty(escapeControl(file))}`);
  if (file && line) props.push(`line=${line}`);
  props.push(`title=${ghProperty(f.rule ? `cozy-gw ${f.rule}` : 'cozy-gw')}`);
  return `::${GH_LEVEL[f.severity]} ${props.join(',')}::${ghData(messageOf(f))}\n`;
}

function github(findings: readonly Finding[]): string {
  let out = '';
  const rest: Finding[] = [];
  for (const level of ['error', 'warning', 'info'] as const) {
    const these = findings.filter((f) => f.severity === level);
    const annotated = these.length > GITHUB_PER_LEVEL ? these.slice(0, GITHUB_PER_LEVEL - 1) : these;
    for (const f of annotated) out += ghCommand(f);
    const more = these.slice(annotated.length);
    if (more.length) {
      const word = level === 'info' ? 'notice' : level;
      out += `::${GH_LEVEL[level]} title=cozy-gw::${more.length} more ${word}${more.length === 1 ? '' : 's'} not annotated (GitHub shows ${GITHUB_PER_LEVEL} per level per step); every one is in this step's log\n`;
      pushAll(rest, more);
    }
  }
  for (const f of rest) out += `${formatFinding(f)}\n`;
  return out;
}

const GL_SEVERITY: Record<Finding['severity'], string> = { error: 'major', warning: 'minor', info: 'info' };

function digest(parts: (string | undefined)[]): string {
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex');
}

function gitlab(findings: readonly Finding[]): string {
  const seen = new Map<string, number>();
  const issues = findings.map((f) => {
    const { file, line } = placeOf(f);
    const base = digest([
      ruleOf(f),
      f.severity,
      file,
      f.object && describe(f.object),
      f.object?.apiVersion,
      f.field,
      f.message,
    ]);
    // The same finding twice (two copies of one object): the second gets its own, as stable, fingerprint.
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return {
      type: 'issue',
      check_name: ruleOf(f),
      description: messageOf(f),
      categories: ['Bug Risk'],
      severity: GL_SEVERITY[f.severity],
      fingerprint: n ? digest([base, String(n)]) : base,
      location: { path: file ? escapeControl(file) : 'cozy-gw', lines: { begin: line ?? 1 } },
    };
  });
  return `${JSON.stringify(issues, null, 2)}\n`;
}

const SARIF_LEVEL: Record<Finding['severity'], string> = { error: 'error', warning: 'warning', info: 'note' };

/** A file path as a SARIF URI reference: relative paths stay relative, each segment percent-encoded. */
function sarifUri(file: string): string {
  return file
    .split(/[\\/]/)
    .map((seg, i) => (i === 0 && /^[A-Za-z]:$/.test(seg) ? seg : encodeURIComponent(seg)))
    .join('/');
}

function sarif(findings: readonly Finding[], o: FindingsReportOptions): string {
  const rules = [...new Set(findings.map(ruleOf))].sort();
  const results = findings.map((f) => {
    const { file, line } = placeOf(f);
    const result: Record<string, unknown> = {
      ruleId: ruleOf(f),
      ruleIndex: rules.indexOf(ruleOf(f)),
      level: SARIF_LEVEL[f.severity],
      message: { text: messageOf(f) },
    };
    if (file) {
      const physicalLocation: Record<string, unknown> = {
        artifactLocation: { uri: sarifUri(file), ...(file.startsWith('/') ? {} : { uriBaseId: '%SRCROOT%' }) },
      };
      if (line) physicalLocation.region = { startLine: line };
      const location: Record<string, unknown> = { physicalLocation };
      if (f.object) location.logicalLocations = [{ fullyQualifiedName: describe(f.object), kind: 'object' }];
      result.locations = [location];
    }
    return result;
  });
  const log = {
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'cozy-gw',
            version: o.version,
            rules: rules.map((id) => ({ id, shortDescription: { text: id } })),
          },
        },
        columnKind: 'unicodeCodePoints',
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** The findings file's text in the format asked for. */
export function findingsReport(findings: readonly Finding[], format: FindingsFormat, o: FindingsReportOptions): string {
  if (format === 'github') return github(findings);
  if (format === 'gitlab') return gitlab(findings);
  return sarif(findings, o);
}
