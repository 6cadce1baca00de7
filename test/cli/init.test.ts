/**
 * `cozy-gw init [DIR]` (docs/commands/init.md): the starting repository, copies of the examples the
 * package embeds, written with the safety of `render --output-dir`: a new or empty DIR (or
 * `--force`, which still replaces no file), nothing outside DIR (no link inside it followed), all
 * or nothing (a failed write or a signal leaves DIR as it was), the same bytes every time; and
 * what it writes works: it renders, its kpt package holds no List and no file kpt cannot read.
 */
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { ROOT, runCli, STACK_FRAME, EXAMPLE_INPUTS } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';
import { starterFiles } from '../../src/assets/starter';
import { StarterInterrupted, writeStarter } from '../../src/io/starterDir';
import { FindingsError } from '../../src/k8s/diagnostics';

let dir = '';
beforeAll(() => {
  dir = tmpDir('init');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cli = async (args: string[], cwd = dir) => {
  const r = await runCli(['init', ...args], { cwd });
  expect(r.stderr).not.toMatch(STACK_FRAME);
  return r;
};

/** Every file under `at`, path → content and mode bits. */
function tree(at: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(at, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else {
        const mode = (fs.statSync(path.join(at, r)).mode & 0o111) !== 0 ? 'x' : '-';
        out[r] = `${mode} ${fs.readFileSync(path.join(at, r), 'utf8')}`;
      }
    }
  };
  walk('');
  return out;
}

/** The examples each starter file copies (scripts/embed-assets.js STARTER). */
const SOURCES: Record<string, string> = {
  'README.md': 'examples/init/README.md',
  'platform/values.yaml': 'examples/platform/values.yaml',
  'platform/values-dns01.yaml': 'examples/platform/values-dns01.yaml',
  'platform/tenants/root.yaml': 'examples/platform/tenants/root.yaml',
  'platform/tenants/alice.yaml': 'examples/platform/tenants/alice.yaml',
  'platform/tenants/bob.yaml': 'examples/platform/tenants/bob.yaml',
  'platform/tenants/carol.yaml': 'examples/platform/tenants/carol.yaml',
  'platform/tenants/cluster-state.yaml': 'examples/platform/tenants/cluster-state.yaml',
  'platform/Kptfile': 'examples/init/platform/Kptfile',
  'platform/cozygateway.yaml': 'examples/init/platform/cozygateway.yaml',
  'platform/.krmignore': 'examples/init/platform/.krmignore',
  'ci/render-and-commit.sh': 'examples/ci/render-and-commit.sh',
  '.github/workflows/cozy-gw-render.yml': 'examples/ci/cozy-gw-render.yml',
  '.github/workflows/cozy-gw-diff.yml': 'examples/ci/cozy-gw-diff.yml',
};

describe('cozy-gw init', () => {
  it('writes the starting repository into a new directory (its parents made), each file a copy of its example, the script executable', async () => {
    const r = await cli(['a/new/repo']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(/^wrote 14 files to a\/new\/repo: platform\//);
    expect(r.stderr).toContain(
      'next: cd a/new/repo && cozy-gw render --values platform/values.yaml -f platform/tenants --output-dir deploy/platform',
    );
    const written = tree(path.join(dir, 'a/new/repo'));
    expect(Object.keys(written).sort()).toEqual(Object.keys(SOURCES).sort());
    for (const [to, from] of Object.entries(SOURCES)) {
      const src = path.join(ROOT, from);
      const want = `${(fs.statSync(src).mode & 0o111) !== 0 ? 'x' : '-'} ${fs.readFileSync(src, 'utf8')}`;
      expect({ file: to, same: written[to] === want }).toEqual({ file: to, same: true });
    }
    expect(written['ci/render-and-commit.sh'].startsWith('x ')).toBe(true);
  });

  it('the same bytes every time, and into the working directory when no DIR is given', async () => {
    fs.mkdirSync(path.join(dir, 'here'));
    expect((await cli([], path.join(dir, 'here'))).code).toBe(0);
    expect((await cli(['there'])).code).toBe(0);
    expect(tree(path.join(dir, 'here'))).toEqual(tree(path.join(dir, 'there')));
  });

  it('refuses a directory that is not empty, writing nothing; --force adds beside what is there and replaces no file', async () => {
    const at = path.join(dir, 'busy');
    fs.mkdirSync(at);
    fs.writeFileSync(path.join(at, 'notes.txt'), 'mine');
    const refused = await cli(['busy']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: init busy: not empty \(1 entry\); refusing to write into it/);
    expect(fs.readdirSync(at)).toEqual(['notes.txt']);

    fs.writeFileSync(path.join(at, 'README.md'), '# my own\n');
    const clash = await cli(['busy', '--force']);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/^error: init busy: README\.md exists with other content; refusing to replace it/m);
    expect(fs.readdirSync(at).sort()).toEqual(['README.md', 'notes.txt']);
    expect(fs.readFileSync(path.join(at, 'README.md'), 'utf8')).toBe('# my own\n');

    fs.rmSync(path.join(at, 'README.md'));
    fs.mkdirSync(path.join(at, 'platform'));
    fs.copyFileSync(path.join(ROOT, 'examples/platform/values.yaml'), path.join(at, 'platform', 'values.yaml'));
    const added = await cli(['busy', '--force']);
    expect(added.code).toBe(0);
    expect(added.stderr).toMatch(
      /^wrote 13 files to busy \(1 already there with the same content, left as they were\)/,
    );
    expect(fs.readFileSync(path.join(at, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('never writes through a link inside DIR, nor into a DIR that is a file or a link', async () => {
    const at = path.join(dir, 'linked');
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(at);
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(at, 'platform'));
    const r = await cli(['linked', '--force']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: init linked: platform is not a directory \(a symbolic link\); refusing to write through it/,
    );
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.readdirSync(at)).toEqual(['platform']);
    fs.writeFileSync(path.join(dir, 'a-file'), 'x');
    expect((await cli(['a-file'])).stderr).toMatch(/^error: init a-file: not a directory/);
    fs.symlinkSync(outside, path.join(dir, 'a-link'));
    expect((await cli(['a-link'])).stderr).toMatch(/^error: init a-link: not a directory \(a symbolic link\)/);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('all or nothing: a write that fails, or a signal, leaves DIR as it was (a DIR it made removed)', () => {
    const files = starterFiles();
    let n = 0;
    expect(() =>
      writeStarter('fails/repo', dir, files, {
        step: () => {
          if (++n === 6) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        },
      }),
    ).toThrow(FindingsError);
    expect(fs.existsSync(path.join(dir, 'fails'))).toBe(false);

    const signals = new EventEmitter();
    fs.mkdirSync(path.join(dir, 'stopped'));
    let caught: unknown;
    try {
      writeStarter('stopped', dir, files, {
        signals,
        step: (rel) => void (rel.endsWith('bob.yaml') && signals.emit('SIGINT')),
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(StarterInterrupted);
    expect((caught as StarterInterrupted).exitCode).toBe(130);
    expect(fs.readdirSync(path.join(dir, 'stopped'))).toEqual([]);
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });

  it('what it writes renders as the example does, and its kpt package holds one object a document, no List, and ignores its values files', async () => {
    const at = path.join(dir, 'a/new/repo');
    const mine = await runCli(['render', '--values', 'platform/values.yaml', '-f', 'platform/tenants'], { cwd: at });
    const example = await runCli(['render', ...EXAMPLE_INPUTS], { cwd: ROOT });
    expect(mine.code).toBe(0);
    expect(mine.stdout).toBe(example.stdout);
    const ignored = fs
      .readFileSync(path.join(at, 'platform', '.krmignore'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    const pkg: string[] = [];
    const walk = (rel: string) => {
      for (const e of fs.readdirSync(path.join(at, 'platform', rel), { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(r);
        else if (/\.ya?ml$/.test(e.name) && !ignored.includes(r)) pkg.push(r);
      }
    };
    walk('');
    expect(pkg.length).toBeGreaterThan(5);
    for (const file of pkg)
      for (const doc of jsyaml.loadAll(fs.readFileSync(path.join(at, 'platform', file), 'utf8'))) {
        const o = doc as { apiVersion?: string; kind?: string };
        expect({ file, krm: Boolean(o?.apiVersion && o?.kind), list: /List$/.test(o?.kind ?? '') }).toEqual({
          file,
          krm: true,
          list: false,
        });
      }
    // The kpt package's config holds the values the commands read, as the example kpt package does.
    const values = jsyaml.load(fs.readFileSync(path.join(at, 'platform', 'values.yaml'), 'utf8'));
    for (const config of [
      path.join(at, 'platform', 'cozygateway.yaml'),
      path.join(ROOT, 'examples/fn/cozygateway.yaml'),
    ])
      expect({
        config,
        values: (jsyaml.load(fs.readFileSync(config, 'utf8')) as { spec: { values: unknown } }).spec.values,
      }).toEqual({ config, values });
  });

  it('the help names it, with what it writes and that it replaces nothing', async () => {
    const r = await runCli(['init', '--help']);
    expect(r.stdout).toMatch(/^Usage: cozy-gw init \[options\] \[dir\]/);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('no file is ever replaced');
  });
});
