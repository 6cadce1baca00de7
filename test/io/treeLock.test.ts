/**
 * The tree's lock (src/io/treeLock.ts): exclusive, bounded waiting, the holder named, a dead
 * holder's lock broken safely even when several runs race to break it, and no debris.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SafeDir } from '../../src/io/safeDir';
import { acquireLock, isStale, LOCK, parseHolder, releaseLock } from '../../src/io/treeLock';
import { ensureBuilt, ROOT } from '../helpers/kpt';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-lock-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A process id that is certainly not running: one that just exited. */
async function deadPid(): Promise<number> {
  const c = spawn(process.execPath, ['-e', '0']);
  const pid = c.pid!;
  await new Promise((r) => c.on('exit', r));
  return pid;
}

const holder = (pid: number, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ pid, host: os.hostname(), started: '2026-01-01T00:00:00.000Z', token: 'f'.repeat(32), ...extra })}\n`;

describe('the tree lock', () => {
  it('is exclusive: a second taker waits its bounded time, then is told who holds it; released, it is free', async () => {
    const d = new SafeDir(tmp);
    try {
      const first = await acquireLock(d, { waitMs: 0 });
      expect(first.kind).toBe('held');
      const waited: unknown[] = [];
      const t0 = Date.now();
      const second = await acquireLock(d, { waitMs: 200, pollMs: 20, onWait: (h) => waited.push(h) });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
      expect(second).toEqual({
        kind: 'busy',
        holder: expect.objectContaining({ pid: process.pid, host: os.hostname() }),
      });
      expect(waited).toHaveLength(1);
      releaseLock(d, (first as { token: string }).token);
      expect(fs.readdirSync(tmp)).toEqual([]);
      const third = await acquireLock(d, { waitMs: 0 });
      expect(third.kind).toBe('held');
    } finally {
      d.close();
    }
  });

  it('a stale lock (its process gone, or its id taken by a later process) is broken and named', async () => {
    const pid = await deadPid();
    expect(isStale(parseHolder(holder(pid))!)).toBe(true);
    expect(isStale(parseHolder(holder(process.pid))!)).toBe(false);
    // Our own id, but the lock says the process started at another time: a reused id.
    if (fs.existsSync('/proc/self/stat')) expect(isStale(parseHolder(holder(process.pid, { since: '1' }))!)).toBe(true);
    // Another host's lock is never judged from here.
    expect(isStale(parseHolder(holder(pid, { host: 'elsewhere.example' }))!)).toBe(false);
    fs.writeFileSync(path.join(tmp, LOCK), holder(pid));
    const d = new SafeDir(tmp);
    try {
      const got = await acquireLock(d, { waitMs: 0 });
      expect(got).toEqual({ kind: 'held', token: expect.any(String), broke: expect.objectContaining({ pid }) });
    } finally {
      d.close();
    }
  });

  it("a lock whose process id now belongs to another user's process is stale: the start time decides, not kill's EPERM", () => {
    if (!fs.existsSync('/proc/self/stat')) return; // start times are read from /proc (Linux)
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const since = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const eperm = jest.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    try {
      // The id is taken by a process that started at another time: the holder is gone.
      expect(isStale(parseHolder(holder(process.pid, { since: '1' }))!)).toBe(true);
      // The same process that took it (its start time as recorded): alive, EPERM or not.
      expect(isStale(parseHolder(holder(process.pid, { since }))!)).toBe(false);
    } finally {
      eperm.mockRestore();
    }
  });

  it('works on a file system without hard links (link() refused): taken, exclusive, released, a stale one broken', async () => {
    class Linkless extends SafeDir {
      override link(): void {
        throw Object.assign(new Error('link EPERM'), { code: 'EPERM' });
      }
    }
    const d = new Linkless(tmp);
    try {
      const first = await acquireLock(d, { waitMs: 0 });
      expect(first.kind).toBe('held');
      expect((await acquireLock(d, { waitMs: 0 })).kind).toBe('busy');
      releaseLock(d, (first as { token: string }).token);
      expect(fs.readdirSync(tmp)).toEqual([]);
      fs.writeFileSync(path.join(tmp, LOCK), holder(await deadPid()));
      const again = await acquireLock(d, { waitMs: 0 });
      expect(again).toMatchObject({ kind: 'held', broke: { token: 'f'.repeat(32) } });
      releaseLock(d, (again as { token: string }).token);
      expect(fs.readdirSync(tmp)).toEqual([]);
    } finally {
      d.close();
    }
  });

  it('cleans the debris of takers and breakers that died midway (their own files, old tombstones)', async () => {
    const pid = await deadPid();
    fs.writeFileSync(path.join(tmp, `${LOCK}.0123abcd`), holder(pid));
    fs.writeFileSync(path.join(tmp, `${LOCK}.break-${'e'.repeat(32)}`), holder(pid));
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(tmp, `${LOCK}.break-${'e'.repeat(32)}`), old, old);
    const d = new SafeDir(tmp);
    try {
      const got = await acquireLock(d, { waitMs: 0 });
      expect(got.kind).toBe('held');
      // The tombstone's ctime is now (utimes changes it): it is left until it is old; the dead taker's file goes.
      expect(fs.readdirSync(tmp).sort()).toEqual([LOCK, `${LOCK}.break-${'e'.repeat(32)}`]);
    } finally {
      d.close();
    }
  });

  it('processes racing for a stale lock never hold it at once (mutual exclusion across real processes)', async () => {
    ensureBuilt();
    const pid = await deadPid();
    fs.mkdirSync(path.join(tmp, 'd'));
    fs.writeFileSync(path.join(tmp, 'd', LOCK), holder(pid));
    const log = path.join(tmp, 'log');
    const script = `
      const fs = require('fs');
      const { SafeDir } = require(${JSON.stringify(path.join(ROOT, 'dist/io/safeDir.js'))});
      const { acquireLock, releaseLock } = require(${JSON.stringify(path.join(ROOT, 'dist/io/treeLock.js'))});
      const d = new SafeDir(process.argv[1]);
      (async () => {
        for (let round = 0; round < 3; round++) {
          const l = await acquireLock(d, { waitMs: 60000, pollMs: 2 });
          if (l.kind !== 'held') process.exit(3);
          fs.appendFileSync(process.argv[2], 'in ' + process.pid + '\\n');
          await new Promise((r) => setTimeout(r, 10));
          fs.appendFileSync(process.argv[2], 'out ' + process.pid + '\\n');
          releaseLock(d, l.token);
        }
        d.close();
      })();`;
    const codes = await Promise.all(
      Array.from(
        { length: 5 },
        () =>
          new Promise<number | null>((resolve) => {
            const c = spawn(process.execPath, ['-e', script, path.join(tmp, 'd'), log], { stdio: 'inherit' });
            c.on('exit', (code) => resolve(code));
          }),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0, 0]);
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(30);
    for (let i = 0; i < lines.length; i += 2) {
      const [, who] = lines[i].split(' ');
      expect([i, lines[i], lines[i + 1]]).toEqual([i, `in ${who}`, `out ${who}`]);
    }
    expect(fs.readdirSync(path.join(tmp, 'd'))).toEqual([]);
  }, 60_000);
});
