/**
 * Start-up loads only what the command run needs: the commands are registered from a
 * light table and a command's module is loaded when it runs. The table's help lines must be
 * what the loaded commands would print, and the module counts are read from a real process.
 */
import { Help } from 'commander';
import * as path from 'node:path';
import { buildProgram, COMMANDS, commandsNeeded, makeContext } from '../../src/cli';
import { EXAMPLE_INPUTS, ROOT } from '../helpers/cli';
import { loadedBy } from '../helpers/loaded';

const ctx = () =>
  makeContext({ stdout: () => {}, stderr: () => {}, readStdin: () => '', env: {}, isTTY: false, cwd: ROOT });

describe('the command table', () => {
  it("each entry's help line is the loaded command's", () => {
    const program = buildProgram(ctx());
    const help = new Help();
    expect(program.commands.map((c) => [c.name(), help.subcommandTerm(c), c.summary()])).toEqual(
      COMMANDS.map((c) => [c.name, c.term, c.summary]),
    );
  });

  it('the top-level help is the same with no command loaded', () => {
    const full = buildProgram(ctx()).helpInformation();
    const light = buildProgram(ctx(), ['--help']);
    expect(light.helpInformation()).toBe(full);
  });

  it('the commands an argument list needs', () => {
    expect([...commandsNeeded(['--help'])]).toEqual([]);
    expect([...commandsNeeded(['render', '-f', 'x'])]).toEqual(['render']);
    expect([...commandsNeeded(['help', 'admit'])]).toEqual(['admit']);
    expect(commandsNeeded(['completion', 'bash']).size).toBe(COMMANDS.length);
  });
});

describe('modules loaded by the built CLI', () => {
  const run = (args: string[]): string[] => loadedBy(args).modules;

  it('--help loads commander and the CLI directory, nothing of the core or its libraries', () => {
    const mods = run(['--help']);
    expect(mods.length).toBeGreaterThan(0);
    expect(mods.length).toBeLessThan(25);
    expect(
      mods.filter((m) =>
        /(node_modules\/(js-yaml|yaml|handlebars|semver|ajv|execa|@marcbachmann)|dist\/vendor)\//.test(m),
      ),
    ).toEqual([]);
    expect(mods.filter((m) => /dist\/(charts|controller|pipelines|admission|validation|protocols)\//.test(m))).toEqual(
      [],
    );
  }, 30_000);

  it('reconcile over a small input loads neither node:os nor node:v8 (read only to size a large run)', () => {
    const { builtins } = loadedBy([
      'reconcile',
      '-f',
      'testdata/golden/reconcile/_inputs/routes.yaml',
      '--now',
      '2026-01-01T00:00:00Z',
    ]);
    expect(builtins).toContain('fs');
    // Node.js's own compile cache (Node.js 22.1 and later) loads node:os for its directory; the
    // CLI's modules never do for a small input.
    const nodeLoadsOs =
      typeof (require('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';
    if (!nodeLoadsOs) expect(builtins.filter((b) => b === 'os')).toEqual([]);
    // No V8 flag is set at run time (docs/decisions.md §C13).
    expect(builtins.filter((b) => b === 'v8')).toEqual([]);
  }, 30_000);

  it('the bundle bin/ runs loads node:child_process only when a command starts a process (scripts/bundle.js)', () => {
    const { modules, builtins } = loadedBy(
      ['reconcile', '-f', 'testdata/golden/reconcile/_inputs/routes.yaml', '--now', '2026-01-01T00:00:00Z'],
      'bundle',
    );
    // The bundle is compiled by its loader (src/cli/bundleLoader.ts), not required as a module. In
    // a clone, bin/ first asks whether dist/ is up to date (scripts/ensure-built.js; the package has none).
    expect(modules.map((m) => path.relative(ROOT, m))).toEqual([
      'bin/cozy-gw.js',
      'scripts/ensure-built.js',
      'dist/cli/bundleLoader.js',
      'dist/io/makeDirectories.js',
    ]);
    expect(builtins.filter((b) => b === 'child_process')).toEqual([]);
  }, 30_000);

  it("reconcile, with no tree to read, does not load the tree record's reader", () => {
    const modules = run(['reconcile', ...EXAMPLE_INPUTS, '--now', '2026-01-01T00:00:00Z']);
    expect(modules.some((m) => m.endsWith('dist/pipelines/reconcile.js'))).toBe(true);
    expect(modules.filter((m) => m.endsWith('dist/io/treeRecord.js'))).toEqual([]);
  }, 30_000);

  it('render loads the render chain, not the controller pass', () => {
    const mods = run(['render', ...EXAMPLE_INPUTS]);
    expect(mods.some((m) => m.endsWith('dist/pipelines/render.js'))).toBe(true);
    expect(
      mods.filter((m) => /dist\/(controller\/tenantGatewayController|pipelines\/reconcile|protocols\/)/.test(m)),
    ).toEqual([]);
  }, 30_000);
});
