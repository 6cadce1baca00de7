/**
 * `cozy-gw diff --help` says each thing once and rightly: the description names every output
 * (markdown and html too), `--state` is required and shows no empty default, `--comment-limit`'s
 * default is printed once, and the exit statuses are listed once.
 */
import { runCli } from '../helpers/cli';

let help = '';
/** The help as one line per option: the wrapping commander does to the terminal's width undone. */
let flat = '';
beforeAll(async () => {
  const r = await runCli(['diff', '--help']);
  expect(r.code).toBe(0);
  help = r.stdout;
  flat = help.replace(/\n {20,}/g, ' ');
});

/** The help text of one option (its line, wrapping undone). */
function optionLine(flag: string): string {
  const line = flat.split('\n').find((l) => l.trimStart().startsWith(flag));
  if (!line) throw new Error(`no ${flag} in diff --help:\n${help}`);
  return line.replace(/\s+/g, ' ');
}

describe('cozy-gw diff --help', () => {
  it('the description names every output format the command has', () => {
    const description = help.split('\nOptions:')[0].replace(/\s+/g, ' ');
    for (const format of ['-o plan', '-o json', '-o markdown', '-o html'])
      expect({ format, named: description.includes(format) }).toEqual({ format, named: true });
  });

  it('--state is required and shows no "(default: [])"', () => {
    const state = optionLine('--state <path>');
    expect(state).toMatch(/required/);
    expect(state).not.toContain('(default: [])');
  });

  it("--comment-limit's default is printed once", () => {
    const limit = optionLine('--comment-limit <chars>');
    expect(limit.match(/65536/g)).toHaveLength(1);
  });

  it('the exit statuses are listed once', () => {
    expect(help.match(/Exit status/g)).toHaveLength(1);
    expect(help).toMatch(/Exit status: 0 no differences, 3 differences, 1 an error .*, 2 a usage error\./);
  });

  it('diff without --state is still a usage error that says it is required', async () => {
    const r = await runCli(['diff', '-f', 'x.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--state is required/);
  });
});
