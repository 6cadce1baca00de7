/**
 * `render --output-dir` is a transaction (docs/decisions.md §12), in real processes: the defects a
 * red-team pass reproduced on the tree writer before it was one, each a test. Faults are injected
 * at the file-system level by a preloaded module (test/helpers/fsFault.js), which counts every
 * call that changes DIR and fails, kills or signals at a chosen one, whatever the writer is.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, ensureBuilt, ROOT, tmpDir } from '../helpers/kpt';
import { snapshot } from '../helpers/tree';

beforeAll(() => ensureBuilt());

const FAULT = path.join(ROOT, 'test/helpers/fsFault.js');
const VALUES = path.join(ROOT, 'examples/platform/values.yaml');
const TENANTS = path.join(ROOT, 'examples/platform/tenants');

let dir: string;
beforeEach(() => {
  dir = tmpDir('outtree');
  fs.mkdirSync(path.join(dir, 'nobob'));
  for (const f of fs.readdirSync(TENANTS))
    if (f !== 'bob.yaml') fs.copyFileSync(path.join(TENANTS, f), path.join(dir, 'nobob', f));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** `cozy-gw render --values V -f <tenants> --output-dir <out>` in `dir`, with a fault when asked. */
interface Fault {
  /** The ordinal of the call (from 0) among those counted. */
  at?: number;
  do?: 'fail' | 'kill' | 'term';
  /** Count only these fs functions (`renameSync`: the moves into place). */
  only?: string;
  /** Write the number of counted calls to this file. */
  count?: string;
}

function render(tenants: string, out: string, fault?: Fault): Run {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), NO_COLOR: '1' };
  if (fault) {
    env.FSFAULT_DIR = path.join(dir, out);
    if (fault.at !== undefined) Object.assign(env, { FSFAULT_AT: String(fault.at), FSFAULT_DO: fault.do ?? 'fail' });
    if (fault.only) env.FSFAULT_ONLY = fault.only;
    if (fault.count) env.FSFAULT_COUNT = fault.count;
  }
  const r = spawnSync(
    process.execPath,
    [...(fault ? ['-r', FAULT] : []), BIN, 'render', '--values', VALUES, '-f', tenants, '--output-dir', out],
    { cwd: dir, encoding: 'utf8', env, timeout: 120_000 },
  );
  return { status: r.status, signal: r.signal as NodeJS.Signals | null, stderr: r.stderr };
}

/** The tree a clean run of `tenants` writes (into a fresh directory). */
function fresh(tenants: string, name: string): Record<string, string> {
  const r = render(tenants, name);
  expect(r.stderr).toMatch(/^wrote \d+ files/m);
  return snapshot(path.join(dir, name));
}

/** How many calls (of `only`, or all) a clean run of `tenants` over a copy of `from` makes. */
function calls(from: string, tenants: string, only?: string): number {
  fs.rmSync(path.join(dir, 'probe'), { recursive: true, force: true });
  fs.cpSync(path.join(dir, from), path.join(dir, 'probe'), { recursive: true });
  const count = path.join(dir, 'count');
  expect(render(tenants, 'probe', { count, only }).status).toBe(0);
  return Number(fs.readFileSync(count, 'utf8'));
}

/** Put `from`'s tree back as DIR `to`. */
function restore(from: string, to: string): void {
  fs.rmSync(path.join(dir, to), { recursive: true, force: true });
  fs.cpSync(path.join(dir, from), path.join(dir, to), { recursive: true });
}

function keys(s: Record<string, string>): string[] {
  return Object.keys(s).sort();
}

describe('render --output-dir: what it says it wrote', () => {
  it('a second run over the same inputs says it wrote 0 files and left them all unchanged; a change is counted alone', () => {
    const first = render('nobob', 'deploy');
    const [, total] = /^wrote (\d+) files \(/m.exec(first.stderr) ?? [];
    expect(Number(total)).toBeGreaterThan(100);
    const again = render('nobob', 'deploy');
    expect(again.stderr).toContain(`wrote 0 files to deploy, ${total} unchanged (${total} in all: `);
    // One file edited by hand: the next run writes it back, and only it.
    const kust = path.join(dir, 'deploy', 'kustomization.yaml');
    fs.appendFileSync(kust, '# edited\n');
    const third = render('nobob', 'deploy');
    expect(third.stderr).toContain(`wrote 1 file to deploy, ${Number(total) - 1} unchanged (${total} in all: `);
  });
});

describe('render --output-dir: the defects of the tree writer, each reproduced', () => {
  it('a tree folder replaced by a symbolic link: a re-render never deletes (or writes) through it', () => {
    expect(render(TENANTS, 'deploy').status).toBe(0);
    // ln -s ../outside deploy/tenant-bob, with files of the names the tree wrote there.
    fs.mkdirSync(path.join(dir, 'outside'));
    for (const f of fs.readdirSync(path.join(dir, 'deploy/tenant-bob')))
      fs.writeFileSync(path.join(dir, 'outside', f), `precious ${f}\n`);
    const precious = snapshot(path.join(dir, 'outside'));
    fs.rmSync(path.join(dir, 'deploy/tenant-bob'), { recursive: true });
    fs.symlinkSync('../outside', path.join(dir, 'deploy/tenant-bob'));

    const r = render('nobob', 'deploy');
    expect(snapshot(path.join(dir, 'outside'))).toEqual(precious);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/note: left 1 entry cozy-gw did not write: tenant-bob\n/);
    expect(fs.readlinkSync(path.join(dir, 'deploy/tenant-bob'))).toBe('../outside');

    // With bob again, the link is in the way: refused, nothing written through it.
    const again = render(TENANTS, 'deploy');
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/tenant-bob is not a directory \(a symbolic link\); refusing to write through it/);
    expect(snapshot(path.join(dir, 'outside'))).toEqual(precious);
  });

  it('two concurrent renders into one DIR never interleave: the tree is one of them, whole, and the next run works', async () => {
    // Trees large enough (500 files each) that the two writes overlap in time.
    const tenants = (p: string) =>
      Array.from(
        { length: 250 },
        (_, i) =>
          `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: ${p}${i}, namespace: tenant-root}\nspec: {}\n`,
      ).join('---\n');
    fs.writeFileSync(path.join(dir, 'a.yaml'), tenants('a'));
    fs.writeFileSync(path.join(dir, 'b.yaml'), tenants('b'));
    const start = (t: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const c = spawn(process.execPath, [BIN, 'render', '--values', VALUES, '-f', t, '--output-dir', 'deploy'], {
          cwd: dir,
          env: { ...process.env, NO_COLOR: '1' },
        });
        let stderr = '';
        c.stderr.on('data', (d) => (stderr += d));
        c.on('close', (code) => resolve({ code, stderr }));
      });
    const [a, b] = await Promise.all([start('a.yaml'), start('b.yaml')]);
    expect([a.code, a.code === 0 ? '' : a.stderr, b.code, b.code === 0 ? '' : b.stderr]).toEqual([0, '', 0, '']);
    const tree = snapshot(path.join(dir, 'deploy'));
    const treeA = fresh('a.yaml', 'only-a');
    const treeB = fresh('b.yaml', 'only-b');
    // Exactly one of the two renders, byte for byte, and nothing else.
    expect(tree).toEqual('_cluster/namespace-tenant-a0.yaml' in tree ? treeA : treeB);
    // And the next run is not refused.
    const next = render('a.yaml', 'deploy');
    expect([next.status, next.stderr]).toEqual([0, expect.stringMatching(/^wrote /m)]);
    expect(snapshot(path.join(dir, 'deploy'))).toEqual(treeA);
  }, 120_000);

  it('a run killed (SIGKILL) while it moves files into place: the next run recovers the tree, leaves no temporary file, and works', () => {
    const before = fresh(TENANTS, 'pristine');
    const after = fresh('nobob', 'expected');
    const renames = calls('pristine', 'nobob', 'renameSync');
    expect(renames).toBeGreaterThan(4);
    for (const at of [1, Math.floor(renames / 2), renames - 2]) {
      restore('pristine', 'deploy');
      const killed = render('nobob', 'deploy', { at, do: 'kill', only: 'renameSync' });
      expect([at, killed.signal]).toEqual([at, 'SIGKILL']);
      expect([at, snapshot(path.join(dir, 'deploy'))]).not.toEqual([at, before]);
      const next = render('nobob', 'deploy');
      expect([at, next.status]).toEqual([at, 0]);
      expect(next.stderr).toMatch(/^note: --output-dir deploy: (rolled back|an interrupted cozy-gw run)/m);
      expect([at, snapshot(path.join(dir, 'deploy'))]).toEqual([at, after]);
    }
  }, 180_000);

  it('SIGTERM while it writes: the run rolls back or finishes, exits with the status of the signal, and leaves nothing behind', () => {
    const before = fresh(TENANTS, 'pristine');
    const after = fresh('nobob', 'expected');
    const all = calls('pristine', 'nobob');
    for (const at of [Math.floor(all / 3), Math.floor(all / 2), Math.floor((2 * all) / 3)]) {
      restore('pristine', 'deploy');
      const r = render('nobob', 'deploy', { at, do: 'term' });
      expect([at, r.signal, r.status]).toEqual([at, null, 143]);
      expect(r.stderr).toMatch(/^error: --output-dir deploy: interrupted by SIGTERM: /m);
      const tree = snapshot(path.join(dir, 'deploy'));
      expect([at, tree]).toEqual([at, keys(tree).join() === keys(before).join() ? before : after]);
    }
  }, 120_000);

  it('a rename failing mid-commit: exit 1 and DIR exactly as it was', () => {
    const before = fresh(TENANTS, 'pristine');
    const renames = calls('pristine', 'nobob', 'renameSync');
    for (const at of [1, Math.floor(renames / 2), renames - 2]) {
      restore('pristine', 'deploy');
      const r = render('nobob', 'deploy', { at, do: 'fail', only: 'renameSync' });
      expect([at, r.status]).toEqual([at, 1]);
      expect(r.stderr).toMatch(/^error: --output-dir deploy: cannot write the tree: input\/output error \(EIO\)/m);
      expect([at, snapshot(path.join(dir, 'deploy'))]).toEqual([at, before]);
    }
  }, 120_000);

  it('a file name holding a newline or an escape sequence cannot forge a line of the "left" note', () => {
    expect(render(TENANTS, 'deploy').status).toBe(0);
    fs.writeFileSync(path.join(dir, 'deploy', 'x\nerror: forged line'), '');
    fs.writeFileSync(path.join(dir, 'deploy', '\u001b[2Jcleared'), '');
    const r = render(TENANTS, 'deploy');
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/^error: forged/m);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).toContain('note: left 2 entries cozy-gw did not write: \\e[2Jcleared, x\\nerror: forged line\n');
  });
});

describe('render --output-dir: the lock', () => {
  const lock = (pid: number, host = os.hostname()) =>
    `${JSON.stringify({ pid, host, started: '2026-01-01T00:00:00.000Z', token: 'a'.repeat(32) })}\n`;

  it('a run holding DIR: the second waits its --lock-timeout, then refuses naming DIR and the holder; nothing changes', () => {
    const before = fresh(TENANTS, 'deploy');
    fs.writeFileSync(path.join(dir, 'deploy/.cozy-gw-lock'), lock(process.pid));
    const r = spawnSync(
      process.execPath,
      [BIN, 'render', '--values', VALUES, '-f', 'nobob', '--output-dir', 'deploy', '--lock-timeout', '0.3'],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `note: --output-dir deploy is being written by another cozy-gw run (pid ${process.pid} on host ${os.hostname()}, since 2026-01-01T00:00:00.000Z): waiting up to 0.3 s\n`,
    );
    expect(r.stderr).toContain(
      `error: --output-dir deploy is being written by another cozy-gw run (pid ${process.pid} on host ${os.hostname()}, since 2026-01-01T00:00:00.000Z); refusing after waiting 0.3 s (let that run finish and run again (--lock-timeout waits longer); if no such run is going on, remove deploy/.cozy-gw-lock)`,
    );
    fs.rmSync(path.join(dir, 'deploy/.cozy-gw-lock'));
    expect(snapshot(path.join(dir, 'deploy'))).toEqual(before);
  });

  it('the lock of a process that is gone is recovered, with a note', () => {
    const after = fresh('nobob', 'expected');
    fresh(TENANTS, 'deploy');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(dir, 'deploy/.cozy-gw-lock'), lock(Number(dead.stdout)));
    const r = render('nobob', 'deploy');
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      `note: --output-dir deploy: removed the lock of a cozy-gw run that is no longer running (pid ${dead.stdout} on host ${os.hostname()}, since 2026-01-01T00:00:00.000Z)\n`,
    );
    expect(snapshot(path.join(dir, 'deploy'))).toEqual(after);
  });

  it('a lock of another host is never taken for stale', () => {
    fresh(TENANTS, 'deploy');
    fs.writeFileSync(path.join(dir, 'deploy/.cozy-gw-lock'), lock(1, 'elsewhere.example'));
    const r = spawnSync(
      process.execPath,
      [BIN, 'render', '--values', VALUES, '-f', 'nobob', '--output-dir', 'deploy', '--lock-timeout', '0'],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is being written by another cozy-gw run \(pid 1 on host elsewhere\.example/);
  });

  it('--lock-timeout without --output-dir is a usage error', () => {
    const r = spawnSync(process.execPath, [BIN, 'render', '--values', VALUES, '--lock-timeout', '1'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--lock-timeout applies only with --output-dir/);
  });
});
