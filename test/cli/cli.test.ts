/**
 * CLI polish: --version, colour only on a terminal and never with NO_COLOR, examples in every
 * command's --help.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { buildProgram, makeContext, type CliIO } from '../../src/cli';
import { inProcessKubectl } from '../helpers/fakeKubectl';
import { error, warning } from '../../src/k8s/diagnostics';
import { withExamples } from '../../src/cli/commands/help';
import { VERSION } from '../../src/cli/version';
import { SHIPPED_CILIUM_VERSION } from '../../src/controller/ciliumVersion';
import { ROOT, runCli, TESTDATA } from '../helpers/cli';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('--version', () => {
  test("src/version.ts is package.json's version", () => {
    expect(VERSION).toBe(pkg.version);
  });
  test.each(['--version', '-V'])(
    '%s prints it, then the Cozystack versions it reproduces, and exits 0',
    async (flag) => {
      expect(await runCli([flag])).toEqual({
        code: 0,
        stdout: `${pkg.version}\nreproduces Cozystack v1.5.0, v1.5.1, v1.5.2, v1.5.3, v1.5.4, v1.6.0, v1.6.1, v1.6.2 and main (default v1.6.2; choose with --cozystack-version)\n`,
        stderr: '',
      });
    },
  );
});

describe('colour: on a terminal only, never with NO_COLOR or TERM=dumb', () => {
  const RED_ERROR = '\u001b[31merror\u001b[0m: ';
  // A real error path through the CLI: snapshot with a fake kubectl that refuses the context.
  const fakeEnv = { PATH: `${path.join(TESTDATA, 'fake-kubectl')}${path.delimiter}${path.dirname(process.execPath)}` };
  const fail = (isTTY: boolean, env: Record<string, string> = {}) =>
    runCli(['snapshot', '--context', 'nope'], { isTTY, env: { ...fakeEnv, ...env }, exec: inProcessKubectl });

  test('a terminal gets coloured severities', async () => {
    const r = await fail(true);
    expect(r.code).toBe(1);
    expect(r.stderr.startsWith(RED_ERROR)).toBe(true);
  });
  test('not a terminal: no escape codes', async () => {
    const r = await fail(false);
    expect(r.stderr.startsWith('error: ')).toBe(true);
    expect(r.stderr).not.toContain('\u001b[');
  });
  test('NO_COLOR set (any non-empty value) turns colour off on a terminal', async () => {
    for (const v of ['1', 'true', '0']) expect((await fail(true, { NO_COLOR: v })).stderr).not.toContain('\u001b[');
  });
  test('an empty NO_COLOR does not count (no-color.org), TERM=dumb does', async () => {
    expect((await fail(true, { NO_COLOR: '' })).stderr.startsWith(RED_ERROR)).toBe(true);
    expect((await fail(true, { TERM: 'dumb' })).stderr).not.toContain('\u001b[');
  });
  test('warnings are yellow, and the message itself is never painted', () => {
    let err = '';
    const io: CliIO = {
      stdout: () => {},
      stderr: (s) => void (err += s),
      readStdin: () => '',
      env: {},
      isTTY: true,
      cwd: ROOT,
    };
    makeContext(io).report([warning('careful'), error('broken')]);
    expect(err).toBe('\u001b[33mwarning\u001b[0m: careful\n\u001b[31merror\u001b[0m: broken\n');
  });
});

describe('examples in --help', () => {
  test('withExamples adds an Examples section after the options, comments unprefixed', () => {
    let out = '';
    const cmd = withExamples(
      new Command('demo')
        .option('--x', 'an x')
        .configureOutput({ writeOut: (s) => void (out += s) })
        .exitOverride(),
      ['cozy-gw demo --x', '# and a comment'],
    );
    expect(() => cmd.parse(['--help'], { from: 'user' })).toThrow();
    expect(out).toMatch(/--x +an x\n[\s\S]*\nExamples:\n {2}\$ cozy-gw demo --x\n {2}# and a comment\n$/);
  });

  test("every command's --help carries examples of itself", async () => {
    const program = buildProgram(
      makeContext({ stdout: () => {}, stderr: () => {}, readStdin: () => '', env: {}, isTTY: false, cwd: ROOT }),
    );
    const lacking: string[] = [];
    for (const c of program.commands.map((x) => x.name())) {
      const r = await runCli([c, '--help']);
      const section = /\nExamples:\n([\s\S]*)$/.exec(r.stdout)?.[1] ?? '';
      if (!new RegExp(`cozy-gw ${c}\\b`).test(section)) lacking.push(c);
    }
    expect(lacking).toEqual([]);
  });

  test("every example in the help, the program's and each command's, is a command line with `$ ` or a `# ` comment", async () => {
    const program = buildProgram(
      makeContext({ stdout: () => {}, stderr: () => {}, readStdin: () => '', env: {}, isTTY: false, cwd: ROOT }),
    );
    const bad: string[] = [];
    for (const args of [[], ...program.commands.map((x) => [x.name(), '--help'])]) {
      const r = await runCli(args);
      const section = /\nExamples:\n((?: {2}.*\n?)*)/.exec(r.stdout)?.[1] ?? '';
      if (section === '') bad.push(`cozy-gw ${args.join(' ')}: no Examples section`);
      for (const line of section.split('\n').filter((l) => l !== ''))
        if (!/^ {2}(\$ |# )/.test(line)) bad.push(`cozy-gw ${args.join(' ')}: ${line}`);
    }
    expect(bad).toEqual([]);
  });

  test('descriptions break lines only between paragraphs: commander wraps them to the terminal', () => {
    const program = buildProgram(
      makeContext({ stdout: () => {}, stderr: () => {}, readStdin: () => '', env: {}, isTTY: false, cwd: ROOT }),
    );
    const broken = program.commands
      .filter((c) => /[^\n]\n[^\n]/.test(c.description()))
      .map((c) => `${c.name()}: ${JSON.stringify(c.description())}`);
    expect(broken).toEqual([]);
  });

  test.each(['reconcile', 'diff', 'post-render'])(
    '%s --help shows --cilium-version with its default, the shipped Cilium',
    async (c) => {
      const r = await runCli([c, '--help']);
      expect(r.stdout.replace(/\s+/g, ' ')).toContain(
        `--cilium-version <semver> the Cilium version whose Gateway hazards are reported (default: "${SHIPPED_CILIUM_VERSION}")`,
      );
    },
  );

  test('post-render --cilium-version refuses what is not a version, as reconcile does (exit 2)', async () => {
    const r = await runCli(['post-render', '--cilium-version', 'latest'], { stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--cilium-version/);
  });
});
