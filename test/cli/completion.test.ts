/**
 * `cozy-gw completion bash|zsh|fish`: generated from the program tree, so every command and option
 * appears; the scripts are valid shell; bash (and fish, when installed) complete as expected.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { buildProgram, makeContext } from '../../src/cli';
import {
  bashScript,
  commandTree,
  fishScript,
  zshScript,
  type CompletionCommand,
} from '../../src/cli/commands/completion';
import { runCli } from '../helpers/cli';
import { needs, skippedTitle } from '../helpers/skip';

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const HAS = { bash: has('bash'), zsh: has('zsh'), fish: has('fish') };

function program(): Command {
  return buildProgram(
    makeContext({ stdout: () => {}, stderr: () => {}, readStdin: () => '', env: {}, isTTY: false, cwd: process.cwd() }),
  );
}

let scripts: Record<'bash' | 'zsh' | 'fish', string>;
let tree: CompletionCommand;
let dir: string;

beforeAll(async () => {
  tree = commandTree(program());
  scripts = { bash: '', zsh: '', fish: '' };
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    const r = await runCli(['completion', shell]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    scripts[shell] = r.stdout;
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-completion-'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const flags = (c: CompletionCommand) =>
  c.options.flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));

describe('every command and option of the program appears', () => {
  test('the tree has the real commands and their options', () => {
    const names = tree.commands.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining(['render', 'reconcile', 'admit', 'fn', 'post-render', 'snapshot', 'completion', 'help']),
    );
    expect(flags(tree)).toEqual(expect.arrayContaining(['-V', '--version', '-h', '--help']));
    expect(tree.commands.find((c) => c.name === 'completion')?.args).toEqual([
      { name: 'shell', choices: ['bash', 'zsh', 'fish'] },
    ]);
  });

  test.each(['bash', 'zsh', 'fish'] as const)('%s', (shell) => {
    const s = scripts[shell];
    const missing: string[] = [];
    for (const c of [tree, ...tree.commands]) {
      if (c !== tree && !new RegExp(`(^|[\\s'"(])${c.name}([\\s)'":|]|$)`, 'm').test(s))
        missing.push(`command ${c.name}`);
      for (const o of c.options) {
        const forms =
          shell === 'fish'
            ? [o.short && `-s ${o.short.slice(1)}`, o.long && `-l ${o.long.slice(2)}`]
            : [o.short, o.long];
        for (const f of forms.filter(Boolean) as string[]) if (!s.includes(f)) missing.push(`${c.name} ${f}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the scripts are valid shell', () => {
  test('bash -n', () => {
    const file = path.join(dir, 'c.bash');
    fs.writeFileSync(file, scripts.bash);
    expect(spawnSync('bash', ['-n', file], { encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
  });
  (HAS.zsh ? test : test.skip)(HAS.zsh ? 'zsh -n' : skippedTitle('zsh -n', needs('zsh')!), () => {
    const file = path.join(dir, 'c.zsh');
    fs.writeFileSync(file, scripts.zsh);
    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
  });
  (HAS.fish ? test : test.skip)(
    HAS.fish ? 'fish --no-execute' : skippedTitle('fish --no-execute', needs('fish')!),
    () => {
      const file = path.join(dir, 'c.fish');
      fs.writeFileSync(file, scripts.fish);
      expect(spawnSync('fish', ['--no-execute', file], { encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
    },
  );
});

/** What bash offers for the words typed so far (the last word being completed). */
function bashComplete(words: string[], cwd = dir): string[] {
  const file = path.join(dir, 'c.bash');
  fs.writeFileSync(file, scripts.bash);
  const arr = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `source ${file}; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _cozy_gw; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['-c', script], { cwd, encoding: 'utf8' });
  return out.split('\n').filter(Boolean).sort();
}

describe('bash completes', () => {
  test('command names', () => {
    expect(bashComplete(['cozy-gw', 're'])).toEqual(['reconcile', 'render']);
    expect(bashComplete(['cozy-gw', ''])).toEqual([...tree.commands.map((c) => c.name)].sort());
  });
  test("root options, and a command's own options after it", () => {
    expect(bashComplete(['cozy-gw', '--v'])).toEqual(['--version']);
    expect(bashComplete(['cozy-gw', 'render', '--va'])).toEqual(['--validate', '--values']);
    expect(bashComplete(['cozy-gw', 'render', '--valu'])).toEqual(['--values']);
    expect(bashComplete(['cozy-gw', 'reconcile', '-f', 'x.yaml', '--no'])).toEqual(['--now']);
  });
  test('argument and option value choices', () => {
    expect(bashComplete(['cozy-gw', 'completion', ''])).toEqual(['bash', 'fish', 'zsh']);
    expect(bashComplete(['cozy-gw', 'reconcile', '-o', ''])).toEqual(['json', 'plan', 'yaml']);
    expect(bashComplete(['cozy-gw', 'help', 'sn'])).toEqual(['snapshot']);
  });
  test('file names for path options', () => {
    fs.mkdirSync(path.join(dir, 'files'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'files', 'platform.yaml'), '');
    fs.writeFileSync(path.join(dir, 'files', 'plain.txt'), '');
    expect(bashComplete(['cozy-gw', 'render', '--values', 'files/pl'])).toEqual([
      'files/plain.txt',
      'files/platform.yaml',
    ]);
    expect(bashComplete(['cozy-gw', 'reconcile', '-f', 'files/plat'])).toEqual(['files/platform.yaml']);
  });
});

(HAS.fish ? describe : describe.skip)(
  HAS.fish ? 'fish completes' : skippedTitle('fish completes', needs('fish')!),
  () => {
    const fishComplete = (line: string) => {
      const file = path.join(dir, 'c.fish');
      fs.writeFileSync(file, scripts.fish);
      const out = execFileSync('fish', ['--no-config', '-c', `source ${file}; complete -C${JSON.stringify(line)}`], {
        cwd: dir,
        encoding: 'utf8',
      });
      return out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0])
        .sort();
    };
    test('commands, argument choices and option values', () => {
      expect(fishComplete('cozy-gw re')).toEqual(['reconcile', 'render']);
      expect(fishComplete('cozy-gw completion ')).toEqual(['bash', 'fish', 'zsh']);
      expect(fishComplete('cozy-gw reconcile --output ')).toEqual(['json', 'plan', 'yaml']);
      expect(fishComplete('cozy-gw render --val')).toEqual(['--values']);
    });
  },
);

describe('the scripts follow the program tree', () => {
  const p = new Command('cozy-gw');
  p.option('-q, --quiet', 'say less');
  p.command('zap')
    .description('Zap things. More words here.')
    .option('--zing <file>', 'a zing file')
    .addOption(new Option('--mode <m>', 'how').choices(['soft', 'hard']))
    .addOption(new Option('--secret', 'hidden').hideHelp());
  const t = commandTree(p);

  test('a new command, its options and choices reach all three shells; hidden options do not', () => {
    expect(t.commands.map((c) => c.name)).toEqual(['zap', 'help']);
    expect(t.commands[0].description).toBe('Zap things');
    for (const s of [bashScript(t), zshScript(t), fishScript(t)]) {
      expect(s).toContain('zap');
      expect(s).toMatch(/zing/);
      expect(s).toMatch(/soft hard/);
      expect(s).not.toMatch(/secret/);
    }
    expect(bashScript(t)).toContain('--zing) _cozy_gw_files; return 0 ;;');
    expect(zshScript(t)).toContain(`'--zing[a zing file]:zing:_files'`);
    expect(fishScript(t)).toContain(
      `complete -c cozy-gw -n '__fish_seen_subcommand_from zap' -l zing -r -F -d 'a zing file'`,
    );
  });
});

describe('cozy-gw completion', () => {
  test('refuses an unknown shell as a usage error', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bash, zsh, fish/);
  });
  test('--help carries examples', async () => {
    const r = await runCli(['completion', '--help']);
    expect(r.stdout).toMatch(/Examples:\n {2}\$ source <\(cozy-gw completion bash\)/);
  });
});
