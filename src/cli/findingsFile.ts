/**
 * `--findings-file FILE --findings-format github|gitlab|sarif` (render, diff, admit;
 * docs/commands/diff.md): every finding the run
 * reports, errors that stop it included, also written to FILE in a format a CI system shows
 * (src/reports/findingsReport.ts), each placed at its input file and line (context.ts locate).
 * The file is written whatever the run's outcome, with no finding too (an empty report), so that
 * a CI step reading it never reads the previous run's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Option, type Command } from 'commander';
import { FindingsError, type Finding } from '../k8s/diagnostics';
import { FINDINGS_FORMATS, findingsReport, type FindingsFormat } from '../reports/findingsReport';
import { locate, type CliContext } from './context';
import { VERSION } from './version';
import { usageError } from './commands/common';

export interface FindingsFileOptions {
  findingsFile?: string;
  findingsFormat: FindingsFormat;
}

/** Add `--findings-file` and `--findings-format` to a command. */
export function addFindingsFileOptions(cmd: Command): Command {
  return cmd
    .option(
      '--findings-file <file>',
      'also write every finding to FILE, at its input file and line, for CI (see --findings-format)',
    )
    .addOption(
      new Option(
        '--findings-format <format>',
        'github: workflow commands (annotations); gitlab: a Code Quality report; sarif: SARIF 2.1.0',
      )
        .choices([...FINDINGS_FORMATS])
        .default('github'),
    );
}

/**
 * Run a command's body with every finding it reports (and those of a FindingsError that stops it)
 * collected, then write them to `--findings-file`, when given. The body may return more findings
 * that are not reported as findings on stderr (admit's denials, which it prints its own way).
 */
export async function withFindingsFile(
  ctx: CliContext,
  cmd: Command,
  opts: FindingsFileOptions,
  body: () => void | Finding[] | Promise<void>,
): Promise<void> {
  const file = opts.findingsFile;
  if (file === undefined) {
    await body();
    return;
  }
  if (file === '') usageError(cmd, '--findings-file is empty (a file name is required)');
  const collected: Finding[] = [];
  const report = ctx.report;
  ctx.report = (findings) => {
    for (const f of findings) collected.push(locate(f, ctx.sources));
    report(findings);
  };
  try {
    const more = await body();
    if (more) for (const f of more) collected.push(locate(f, ctx.sources));
  } catch (e) {
    if (e instanceof FindingsError) for (const f of e.findings) collected.push(locate(f, ctx.sources));
    throw e;
  } finally {
    ctx.report = report;
    // A run started again wrote the file itself.
    if (!ctx.ranAgain) writeFindingsFile(ctx, file, collected, opts);
  }
}

function writeFindingsFile(ctx: CliContext, file: string, collected: Finding[], opts: FindingsFileOptions): void {
  const target = path.resolve(ctx.io.cwd, file);
  try {
    fs.writeFileSync(target, findingsReport(collected, opts.findingsFormat, { version: VERSION }));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    ctx.io.stderr(`error: --findings-file ${file}: cannot write it: ${err.code ?? err.message}\n`);
    ctx.exitCode = 1;
  }
}
