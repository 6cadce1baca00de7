/**
 * Progress on long runs (src/cli/progress.ts), in real processes: a 2,000-tenant render into a
 * tree shows its phases and counts on standard error when standard error is a terminal (a
 * pseudo-terminal made by util-linux `script`), and the same run into a pipe, under CI, or with
 * -q prints none of it. Standard output never carries it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, ensureBuilt, tmpDir } from '../helpers/kpt';
import { needs, skippedTitle } from '../helpers/skip';
import { progressLine, showsProgress } from '../../src/cli/progress';

const TENANTS = 2000;
const PROGRESS = /\r\u001b\[K/;

let dir = '';
beforeAll(() => {
  ensureBuilt();
  dir = tmpDir('progress');
  const docs = [
    'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: root, namespace: tenant-root}\nspec: {gateway: true}\n',
  ];
  for (let i = 1; i < TENANTS; i++)
    docs.push(
      `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: t${i}, namespace: tenant-root}\nspec: {}\n`,
    );
  fs.writeFileSync(path.join(dir, 'tenants.yaml'), docs.join('---\n'));
  // A small tree for the runs that must show nothing: the first phase would show at once.
  fs.writeFileSync(path.join(dir, 'few.yaml'), docs.slice(0, 20).join('---\n'));
  fs.writeFileSync(path.join(dir, 'values.yaml'), 'publishing:\n  host: example.org\ngateway:\n  enabled: true\n');
});
afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

/** The environment of a run on a developer's terminal: no CI variable. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...extra };
  return e;
}

const renderArgs = (out: string, extra: string[] = [], tenants = 'tenants.yaml') => [
  BIN,
  'render',
  '--values',
  'values.yaml',
  '-f',
  tenants,
  '--output-dir',
  out,
  ...extra,
];

/** A run under a pseudo-terminal (`script -qec CMD /dev/null`): stdin, stdout and stderr are the terminal; stdout redirected to a file. */
function onTerminal(out: string, extra: string[] = [], extraEnv: Record<string, string> = {}, tenants?: string) {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [process.execPath, ...renderArgs(out, extra, tenants)].map(quote).join(' ') + ' >stdout.txt';
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], {
    cwd: dir,
    env: env(extraEnv),
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { status: r.status, terminal: r.stdout, stdout: fs.readFileSync(path.join(dir, 'stdout.txt'), 'utf8') };
}

const missing = needs('script');
const describeTty = missing ? describe.skip : describe;

describeTty(missing ? skippedTitle('progress on a terminal', missing) : 'progress on a terminal', () => {
  it(`a ${TENANTS}-tenant render into a tree shows its phases and counts on standard error, then clears the line`, () => {
    const r = onTerminal('deploy-tty');
    expect(r.status).toBe(0);
    const shown = r.terminal.split(/\r\u001b\[K/).map((s) => s.replace(/\r?\n$/, ''));
    const want = [
      /^reading inputs\.\.\.$/,
      new RegExp(`^read ${TENANTS.toLocaleString('en-US')} objects$`),
      /^rendered [\d,]+ tenants$/,
      /^writing [\d,]+ objects to deploy-tty\.\.\.$/,
      /^wrote ([\d,]+) of \1 files$/,
    ];
    const absent = want.filter((re) => !shown.some((s) => re.test(s))).map(String);
    expect(absent).toEqual([]);
    // Counts in between: the renders and the writes are seen as they go.
    expect(shown.filter((s) => /^rendered /.test(s)).length).toBeGreaterThan(1);
    // The line is cleared before the notes: the first note starts where the progress line was.
    expect(r.terminal).toMatch(/\r\u001b\[Kinfo: Helm hooks left out: /);
    expect(r.terminal).toMatch(/^wrote \d+ files \(\d+ objects and kustomization\.yaml\) to deploy-tty\r?$/m);
    expect(r.stdout).toBe('');
  }, 300_000);

  it('-q, and CI set, show none of it on the same terminal (a smaller tree: without them, its first phase shows)', () => {
    expect(PROGRESS.test(onTerminal('deploy-few', [], {}, 'few.yaml').terminal)).toBe(true);
    for (const [extra, e] of [
      [['-q'], {}],
      [[], { CI: 'true' }],
    ] as [string[], Record<string, string>][]) {
      const r = onTerminal(`deploy-quiet-${extra.length}`, extra, e, 'few.yaml');
      expect([extra, e, r.status, PROGRESS.test(r.terminal)]).toEqual([extra, e, 0, false]);
      expect(r.terminal).toMatch(/^wrote \d+ files \(/m);
    }
  }, 300_000);
});

describe('progress into a pipe', () => {
  it(`the same ${TENANTS}-tenant render with standard error a pipe prints no progress, only its notes`, () => {
    const r = spawnSync(process.execPath, renderArgs('deploy-pipe'), {
      cwd: dir,
      env: env(),
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(PROGRESS);
    expect(r.stderr).not.toMatch(/rendered \d|reading inputs/);
    expect(r.stderr.trimEnd().split('\n').pop()).toMatch(
      /^wrote \d+ files \(\d+ objects and kustomization\.yaml\) to deploy-pipe$/,
    );
  }, 300_000);
});

describe('the progress line (unit)', () => {
  const io = (isTTY: boolean, envs: Record<string, string | undefined> = {}) => {
    let err = '';
    return { io: { isTTY, env: envs, stderr: (s: string) => void (err += s) }, err: () => err };
  };

  it('shows on a terminal only, not under CI (any value but empty, 0 or false), TERM=dumb or -q', () => {
    const cases: [boolean, Record<string, string>, boolean | undefined, boolean][] = [
      [true, {}, undefined, true],
      [false, {}, undefined, false],
      [true, { CI: 'true' }, undefined, false],
      [true, { CI: '1' }, undefined, false],
      [true, { CI: '' }, undefined, true],
      [true, { CI: 'false' }, undefined, true],
      [true, { TERM: 'dumb' }, undefined, false],
      [true, {}, true, false],
    ];
    for (const [tty, e, quiet, want] of cases)
      expect([tty, e, quiet, showsProgress({ isTTY: tty, env: e }, quiet)]).toEqual([tty, e, quiet, want]);
  });

  it('redraws a count at most every 100 ms and always its last; clears only a line it drew', () => {
    let t = 0;
    const s = io(true);
    const p = progressLine(s.io, false, () => t);
    p.clear();
    expect(s.err()).toBe('');
    p.phase('reading inputs...');
    for (let n = 1; n <= 5; n++) {
      t += 30;
      p.count('wrote', n, 5, 'files');
    }
    p.clear();
    expect(s.err()).toBe(
      '\r\u001b[Kreading inputs...\r\u001b[Kwrote 4 of 5 files\r\u001b[Kwrote 5 of 5 files\r\u001b[K',
    );
  });

  it('groups thousands, and prints a name from the command line escaped', () => {
    const s = io(true);
    const p = progressLine(s.io, false, () => 0);
    p.count('rendered', 12345, undefined, 'tenants');
    p.phase('writing to out\u001b[2J...');
    expect(s.err()).toBe('\r\u001b[Krendered 12,345 tenants\r\u001b[Kwriting to out\\e[2J...');
  });
});
