/**
 * Fault injection into the tree's commit (src/io/treeCommit.ts): every step that changes DIR is
 * enumerated through the writer's test seam (`step`), then, one run per step, a failure at that
 * step, a signal at that step, and a SIGKILL of a child process at that step (and a kill at each
 * step of the recovery after it). After each, and after the next run's recovery, the tree equals
 * the old render or the new one, byte for byte, and nothing else is in it beyond the user's own
 * files, which the record never owned.
 */
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FindingsError } from '../../src/k8s/diagnostics';
import type { KObject } from '../../src/k8s/model';
import { TreeInterrupted, writeOutputDir, type WriteOptions } from '../../src/io/outputDir';
import { ensureBuilt, ROOT } from '../helpers/kpt';
import { snapshot, whichTree } from '../helpers/tree';

const obj = (kind: string, name: string, namespace?: string, data?: Record<string, string>): KObject =>
  ({
    apiVersion: 'v1',
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    ...(data ? { data } : {}),
  }) as KObject;

// The old tree and the change: b goes (its folder holds a user's file, so it stays), d comes (a new
// folder), a/secret-s and c/configmap-z change, a/configmap-m stays as it is.
const OLD = [
  obj('Namespace', 'a'),
  obj('Namespace', 'b'),
  obj('Namespace', 'c'),
  obj('Secret', 's', 'a', { k: 'djE=' }),
  obj('ConfigMap', 'm', 'a', { same: 'yes' }),
  obj('Secret', 's', 'b'),
  obj('ConfigMap', 'z', 'c', { v: '1' }),
  obj('ConfigMap', 'gone', 'e'),
];
const NEW = [
  obj('Namespace', 'a'),
  obj('Namespace', 'c'),
  obj('Namespace', 'd'),
  obj('Secret', 's', 'a', { k: 'djI=' }),
  obj('ConfigMap', 'm', 'a', { same: 'yes' }),
  obj('ConfigMap', 'z', 'c', { v: '2' }),
  obj('Secret', 't', 'd'),
];

let tmp: string;
let dir: string;
let before: Record<string, string>;
let after: Record<string, string>;
const trees = () => ({ old: before, new: after });

/** DIR as the old run left it, with the user's own files (never the record's). */
async function oldTree(): Promise<void> {
  fs.rmSync(dir, { recursive: true, force: true });
  await writeOutputDir('deploy', tmp, OLD);
  fs.writeFileSync(path.join(dir, 'README.md'), 'mine\n');
  fs.writeFileSync(path.join(dir, 'b/mine.yaml'), 'mine\n');
  fs.mkdirSync(path.join(dir, '.git'));
  fs.writeFileSync(path.join(dir, '.git/HEAD'), 'ref: refs/heads/main\n');
}

const EIO = () => Object.assign(new Error('EIO: i/o error (injected)'), { code: 'EIO' });

/** The next run, stopped right after its recovery (so the recovered tree can be looked at); its notes. */
async function recoverOnly(): Promise<string[]> {
  const notes: string[] = [];
  try {
    await writeOutputDir('deploy', tmp, NEW, {
      note: (l) => notes.push(l),
      step: (_n, label) => {
        if (label === 'mkdir .cozy-gw-txn') throw EIO();
      },
    });
  } catch (e) {
    if (!(e instanceof FindingsError)) throw e;
  }
  return notes;
}

let labels: string[] = [];

beforeAll(async () => {
  ensureBuilt();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-faults-'));
  dir = path.join(tmp, 'deploy');
  await oldTree();
  before = snapshot(dir);
  const seen: string[] = [];
  await writeOutputDir('deploy', tmp, NEW, { step: (_n, l) => void seen.push(l) });
  after = snapshot(dir);
  labels = seen;
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the commit, step by step', () => {
  it('enumerates its steps: stage, journal, commit (the record last), clean up', () => {
    const at = (l: string) => labels.indexOf(l);
    expect(labels[0]).toBe('mkdir .cozy-gw-txn');
    expect(at('journal')).toBeGreaterThan(at('stage record'));
    expect(at('commit record')).toBeGreaterThan(at('journal'));
    expect(at('cleanup journal')).toBe(at('commit record') + 1);
    // A folder the old tree lacks moves in whole (d: one rename, not one per file).
    for (const l of ['move a/secret-s.yaml', 'aside a/secret-s.yaml', 'movedir d', 'aside b/secret-s.yaml'])
      expect([l, labels.includes(l)]).toEqual([l, true]);
    // What did not change is not touched.
    expect(labels.filter((l) => l.includes('configmap-m'))).toEqual([]);
    expect(labels.filter((l) => l.startsWith('move d/') || l === 'mkdir d')).toEqual([]);
    // The old and the new trees differ, and both keep the user's files.
    expect(whichTree(before, { new: after })).toBeUndefined();
    for (const t of [before, after])
      expect([t['README.md'], t['b/mine.yaml'], t['.git/HEAD']]).toEqual([
        'mine\n',
        'mine\n',
        'ref: refs/heads/main\n',
      ]);
  });

  it('a failure at any step: DIR is exactly as it was (or, after the commit point, the new tree once the next run cleans up)', async () => {
    const commitAt = labels.indexOf('commit record');
    for (let i = 0; i < labels.length; i++) {
      await oldTree();
      let failed: string | undefined;
      let warned = 0;
      try {
        const r = await writeOutputDir('deploy', tmp, NEW, {
          step: (n) => {
            if (n === i) throw EIO();
          },
        });
        warned = r.warnings.length;
      } catch (e) {
        if (!(e instanceof FindingsError)) throw e;
        failed = e.findings.map((f) => f.message).join('\n');
      }
      if (i <= commitAt) {
        expect([labels[i], failed]).toEqual([
          labels[i],
          expect.stringMatching(/cannot write the tree: input\/output error \(EIO\)/),
        ]);
        expect([labels[i], whichTree(snapshot(dir), trees())]).toEqual([labels[i], 'old']);
      } else {
        // Past the commit point the run succeeded; only its work area may be left, for the next run.
        expect([labels[i], failed, warned]).toEqual([labels[i], undefined, 1]);
        const notes = await recoverOnly();
        expect([labels[i], notes]).toEqual([labels[i], [expect.stringMatching(/finished it|removed the work area/)]]);
        expect([labels[i], whichTree(snapshot(dir), trees())]).toEqual([labels[i], 'new']);
      }
    }
  }, 60_000);

  it('a signal at any step: rolled back before the commit point, finished after it; exit status 128 + the signal; nothing left', async () => {
    const commitAt = labels.indexOf('commit record');
    for (let i = 0; i < labels.length; i++) {
      await oldTree();
      const signals = new EventEmitter();
      const opts: WriteOptions = {
        signals,
        step: (n) => {
          if (n === i) signals.emit('SIGTERM');
        },
      };
      let caught: unknown;
      try {
        await writeOutputDir('deploy', tmp, NEW, opts);
      } catch (e) {
        caught = e;
      }
      expect([labels[i], caught instanceof TreeInterrupted && caught.exitCode]).toEqual([labels[i], 143]);
      const message = (caught as TreeInterrupted).findings[0].message;
      const tree = whichTree(snapshot(dir), trees());
      if (i <= commitAt) {
        expect([labels[i], tree, message]).toEqual([
          labels[i],
          'old',
          expect.stringMatching(/interrupted by SIGTERM: (rolled back|nothing in it was changed)/),
        ]);
      } else {
        expect([labels[i], tree, message]).toEqual([
          labels[i],
          'new',
          expect.stringMatching(/the new tree is in place/),
        ]);
      }
      expect(signals.listenerCount('SIGTERM')).toBe(0);
    }
  }, 60_000);
});

/** Run the change in a child process that SIGKILLs itself at step `at` (or at recovery step `at` with `recovering`). */
function killedAt(at: number): { signal: NodeJS.Signals | null; stderr: string } {
  const args = path.join(tmp, 'args.json');
  fs.writeFileSync(args, JSON.stringify({ cwd: tmp, objs: NEW, at }));
  const script = `
    const fs = require('fs');
    const { writeOutputDir } = require(${JSON.stringify(path.join(ROOT, 'dist/io/outputDir.js'))});
    const a = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'));
    writeOutputDir('deploy', a.cwd, a.objs, { step: (n) => { if (n === a.at) process.kill(process.pid, 'SIGKILL'); } })
      .then(() => process.exit(0), (e) => { process.stderr.write(String(e.message) + '\\n'); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-e', script, args], { encoding: 'utf8', timeout: 60_000 });
  return { signal: r.signal as NodeJS.Signals | null, stderr: r.stderr };
}

describe('a kill (SIGKILL of a child process) at any step', () => {
  it('the next run recovers: the tree is the old or the new one, byte for byte, nothing else in it, and a note says what was recovered', async () => {
    const commitAt = labels.indexOf('commit record');
    for (let i = 0; i < labels.length; i++) {
      await oldTree();
      const k = killedAt(i);
      expect([labels[i], k.signal, k.stderr]).toEqual([labels[i], 'SIGKILL', '']);
      expect([labels[i], fs.existsSync(path.join(dir, '.cozy-gw-lock'))]).toEqual([labels[i], true]);
      const notes = await recoverOnly();
      // The dead run's lock is always broken; its work, when there was any, recovered.
      expect([labels[i], notes[0]]).toEqual([
        labels[i],
        expect.stringMatching(/removed the lock of a cozy-gw run that is no longer running/),
      ]);
      if (i > 0)
        expect([labels[i], notes[1]]).toEqual([
          labels[i],
          expect.stringMatching(
            i < labels.indexOf('journal') + 1
              ? /removed the work area/
              : i <= commitAt
                ? /rolled back an interrupted cozy-gw run/
                : /finished it|removed the work area/,
          ),
        ]);
      expect([labels[i], whichTree(snapshot(dir), trees())]).toEqual([labels[i], i <= commitAt ? 'old' : 'new']);
      // And a whole run afterwards writes the new tree.
      await writeOutputDir('deploy', tmp, NEW);
      expect([labels[i], whichTree(snapshot(dir), trees())]).toEqual([labels[i], 'new']);
    }
  }, 180_000);

  it('a kill during that recovery is recovered in turn (every recovery step is idempotent)', async () => {
    // Killed in the middle of the commit: half the files moved.
    const mid = labels.indexOf('move a/secret-s.yaml') + 1;
    await oldTree();
    killedAt(mid);
    const killedState = snapshot(dir);
    // The recovery's own steps, counted on a copy.
    const recoverySteps: string[] = [];
    await writeOutputDir('deploy', tmp, NEW, {
      step: (_n, l) => {
        if (l === 'mkdir .cozy-gw-txn') throw EIO();
        recoverySteps.push(l);
      },
    }).catch(() => undefined);
    expect(recoverySteps.length).toBeGreaterThan(5);
    expect(recoverySteps).toContain('unmove a/secret-s.yaml');
    expect(recoverySteps).toContain('restore a/secret-s.yaml');
    for (let j = 0; j < recoverySteps.length; j++) {
      fs.rmSync(dir, { recursive: true });
      restoreSnapshot(dir, killedState);
      const k = killedAt(j);
      expect([recoverySteps[j], k.signal]).toEqual([recoverySteps[j], 'SIGKILL']);
      await recoverOnly();
      expect([recoverySteps[j], whichTree(snapshot(dir), trees())]).toEqual([recoverySteps[j], 'old']);
    }
  }, 180_000);
});

/** Write a snapshot back as a directory (files, folders, links). */
function restoreSnapshot(root: string, s: Record<string, string>): void {
  fs.mkdirSync(root, { recursive: true });
  for (const [rel, v] of Object.entries(s).sort()) {
    const p = path.join(root, rel);
    if (rel.endsWith('/')) fs.mkdirSync(p, { recursive: true });
    else if (v.startsWith('link -> ')) fs.symlinkSync(v.slice(8), p);
    else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, Buffer.from(v, 'latin1'));
    }
  }
}
