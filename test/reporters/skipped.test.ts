/** The skipped-tests reporter: every skipped test, with the reason its own title gives. */
import * as path from 'node:path';
import { needs, skippedTitle } from '../helpers/skip';
const { skippedReport } = require('./skipped.js') as {
  skippedReport: (results: unknown, rootDir: string) => string[];
};

const root = '/repo';
const file = (rel: string, tests: { title: string; ancestorTitles?: string[]; status: string }[]) => ({
  testFilePath: path.join(root, rel),
  testResults: tests.map((t) => ({ ancestorTitles: [], ...t })),
});

describe('skipped-tests reporter', () => {
  it('lists each skipped test with its reason, from its title or its describe block, by file', () => {
    const results = {
      testResults: [
        file('test/e2e/kpt.test.ts', [
          { title: 'runs', status: 'passed' },
          {
            title: skippedTitle('kpt fn eval', 'needs kpt: kpt not on PATH'),
            ancestorTitles: ['kpt'],
            status: 'pending',
          },
        ]),
        file('test/cli/completion.test.ts', [
          {
            title: 'completes a path',
            ancestorTitles: [skippedTitle('fish completes', 'needs fish: fish not on PATH')],
            status: 'pending',
          },
          { title: 'an old test', status: 'pending' },
        ]),
      ],
    };
    expect(skippedReport(results, root)).toEqual([
      '3 skipped:',
      '  test/cli/completion.test.ts: fish completes completes a path (needs fish: fish not on PATH)',
      '  test/cli/completion.test.ts: an old test (no reason given: name it with skippedTitle() from test/helpers/skip.ts)',
      '  test/e2e/kpt.test.ts: kpt kpt fn eval (needs kpt: kpt not on PATH)',
    ]);
  });

  it('prints nothing when nothing was skipped', () => {
    expect(skippedReport({ testResults: [file('test/a.test.ts', [{ title: 'a', status: 'passed' }])] }, root)).toEqual(
      [],
    );
  });

  it('needs() names the tools a test needs and the ones missing here', () => {
    expect(needs('sh')).toBeUndefined();
    expect(needs('sh', 'no-such-tool-cozy-gw')).toBe(
      'needs sh and no-such-tool-cozy-gw: no-such-tool-cozy-gw not on PATH',
    );
  });
});
