/**
 * A jest reporter: after the summary, every skipped test and why, e.g.
 *
 *   13 skipped:
 *     test/e2e/kpt.test.ts: kpt (real client) kpt fn eval and kpt fn render (needs kpt: kpt not on PATH)
 *
 * The reason is the test's own: its title, or its describe block's, ends with `(skipped: REASON)`
 * (test/helpers/skip.ts writes that form). A skipped test without one is listed as such.
 */
'use strict';
const path = require('node:path');
const { SummaryReporter } = require('@jest/reporters');

const REASON = /\s*\(skipped: (.+)\)$/;

/** The skipped tests of an aggregated result: `{ file, name, reason }`, by file, in each file's order. */
function skippedTests(results, rootDir) {
  const out = [];
  const files = [...(results.testResults ?? [])].sort((a, b) =>
    a.testFilePath < b.testFilePath ? -1 : a.testFilePath > b.testFilePath ? 1 : 0,
  );
  for (const file of files) {
    const rel = path.relative(rootDir, file.testFilePath).split(path.sep).join('/');
    for (const t of file.testResults ?? []) {
      if (t.status !== 'pending' && t.status !== 'todo' && t.status !== 'skipped') continue;
      let reason;
      const titles = [...t.ancestorTitles, t.title].map((title) => {
        const m = REASON.exec(title);
        if (!m) return title;
        reason = m[1];
        return title.slice(0, m.index);
      });
      out.push({ file: rel, name: titles.join(' '), reason: reason ?? (t.status === 'todo' ? 'a todo' : undefined) });
    }
  }
  return out;
}

/** The lines the reporter prints (none when nothing was skipped). */
function skippedReport(results, rootDir) {
  const skipped = skippedTests(results, rootDir);
  if (!skipped.length) return [];
  return [
    `${skipped.length} skipped:`,
    ...skipped.map(
      (s) =>
        `  ${s.file}: ${s.name} (${s.reason ?? 'no reason given: name it with skippedTitle() from test/helpers/skip.ts'})`,
    ),
  ];
}

/**
 * jest's own summary, then the skipped tests. It takes the place of the summary that the
 * `default` reporter adds last (jest.config.js lists test/reporters/progress.js and this instead).
 */
class SummaryWithSkipped extends SummaryReporter {
  constructor(globalConfig, options) {
    super(globalConfig, options ?? {});
    this.rootDir = globalConfig.rootDir;
  }
  onRunComplete(contexts, results) {
    super.onRunComplete(contexts, results);
    const lines = skippedReport(results, this.rootDir);
    if (lines.length) process.stderr.write(`${lines.join('\n')}\n`);
  }
}

module.exports = SummaryWithSkipped;
module.exports.skippedReport = skippedReport;
