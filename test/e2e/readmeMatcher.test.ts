/** The README checker's own rules (test/helpers/readme.ts): what counts as a command and a match. */
import { matchOutput, parseReadme } from '../helpers/readme';

describe('matchOutput', () => {
  it('matches exactly without cuts, and refuses extra or missing lines', () => {
    expect(matchOutput(['a', 'b'], ['a', 'b'])).toBeUndefined();
    expect(matchOutput(['a', 'b'], ['a', 'b', 'c'])).toMatch(/goes on/);
    expect(matchOutput(['a', 'b'], ['a'])).toMatch(/does not print/);
    expect(matchOutput([], ['x'])).toMatch(/shows no output/);
    expect(matchOutput([], [''])).toBeUndefined();
  });
  it('lets `...` stand for any run of lines, none included, at either end or between', () => {
    expect(matchOutput(['a', '...', 'd'], ['a', 'b', 'c', 'd'])).toBeUndefined();
    expect(matchOutput(['a', '...', 'd'], ['a', 'd'])).toBeUndefined();
    expect(matchOutput(['...', 'c'], ['a', 'b', 'c'])).toBeUndefined();
    expect(matchOutput(['a', '  ...'], ['a', 'b'])).toBeUndefined();
    expect(matchOutput(['...', 'b', '...'], ['a', 'b', 'c'])).toBeUndefined();
    expect(matchOutput(['a', '...', 'b'], ['a', 'c', 'b', 'x'])).toMatch(/does not print|together/);
  });
  it('keeps the order of the shown lines', () => {
    expect(matchOutput(['...', 'b', '...', 'a', '...'], ['a', 'b'])).toMatch(/does not print|together/);
  });
  it('ignores trailing blanks and kpt durations', () => {
    expect(matchOutput(['[PASS] "f" in 1.6s'], ['[PASS] "f" in 800ms  ', ''])).toBeUndefined();
  });
});

describe('parseReadme', () => {
  it('reads console commands with continuations and open quotes, their output, sh commands, and skip/needs marks', () => {
    const md = [
      '## Tour',
      '```console',
      '$ echo a \\',
      '    b',
      'a b',
      "$ echo 'x",
      "y' | cat",
      'x',
      'y',
      '```',
      '<!-- readme-test: needs kpt -->',
      '```sh',
      '# a comment',
      'kpt version   # trailing',
      '```',
      '<!-- readme-test: skip a live cluster -->',
      '```sh',
      'kubectl get ns',
      '```',
      '```yaml',
      'a: 1',
      '```',
    ].join('\n');
    const blocks = parseReadme(md);
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toMatchObject({ kind: 'console', section: 'Tour', line: 2 });
    expect(blocks[0].commands).toEqual([
      { command: 'echo a \\\n    b', expected: ['a b'], line: 3 },
      { command: "echo 'x\ny' | cat", expected: ['x', 'y'], line: 6 },
    ]);
    expect(blocks[1]).toMatchObject({
      kind: 'sh',
      needs: ['kpt'],
      commands: [{ command: 'kpt version   # trailing', line: 14 }],
    });
    expect(blocks[2].skip).toBe('a live cluster');
  });
});
