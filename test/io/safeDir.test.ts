/**
 * SafeDir (src/io/safeDir.ts): inside the output tree, no operation ever follows a link, at any
 * path component, and on Linux a folder swapped for a link after it was checked cannot redirect
 * the walk (openat-style, through the folder's own descriptor).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NotADirectory, SafeDir } from '../../src/io/safeDir';
import { snapshot } from '../helpers/tree';

let tmp: string;
let root: string;
let outside: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-safedir-'));
  root = path.join(tmp, 'tree');
  outside = path.join(tmp, 'outside');
  fs.mkdirSync(path.join(root, 'a'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'x.yaml'), 'precious\n');
  fs.symlinkSync('../outside', path.join(root, 'link'));
  fs.writeFileSync(path.join(root, 'file'), 'f\n');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function notADirectory(f: () => unknown): NotADirectory {
  try {
    f();
  } catch (e) {
    if (e instanceof NotADirectory) return e;
    throw e;
  }
  throw new Error('no NotADirectory');
}

const hasProcFd = fs.existsSync('/proc/self/fd');
const openFds = () => (hasProcFd ? fs.readdirSync('/proc/self/fd').length : 0);

/** The two walks: through /proc/self/fd where Linux has it, and with lstat checks (macOS, Node.js's permission model). */
const WALKS: [string, { throughProc: boolean }][] = [
  ['the walk through /proc/self/fd where there is one', { throughProc: true }],
  ['the walk with lstat checks', { throughProc: false }],
];

describe.each(WALKS)('SafeDir, %s', (_walk, walk) => {
  it('refuses a link or a file at any component, for every operation, and names the component', () => {
    const d = new SafeDir(root, walk);
    try {
      const ops: [string, () => unknown][] = [
        ['lstat', () => d.lstat('link/x.yaml')],
        ['read', () => d.read('link/x.yaml')],
        ['unlink', () => d.unlink('link/x.yaml')],
        ['create', () => d.create('link/new.yaml', 'x')],
        ['rename from', () => d.rename('link/x.yaml', 'a/x.yaml')],
        ['rename to', () => d.rename('file', 'link/file')],
        ['mkdir', () => d.mkdir('link/sub')],
        ['rmdir', () => d.rmdir('link/sub')],
        ['list', () => d.list('link')],
      ];
      for (const [name, op] of ops) {
        const e = notADirectory(op);
        expect([name, e.rel, e.link]).toEqual([name, 'link', true]);
      }
      const f = notADirectory(() => d.lstat('file/x'));
      expect([f.rel, f.link]).toEqual(['file', false]);
    } finally {
      d.close();
    }
    expect(snapshot(outside)).toEqual({ 'x.yaml': 'precious\n' });
  });

  it('a link as the last component is the link itself: lstat sees it, unlink removes only it, read refuses it', () => {
    fs.symlinkSync('../outside/x.yaml', path.join(root, 'a/to-x.yaml'));
    const d = new SafeDir(root, walk);
    try {
      expect(d.lstat('a/to-x.yaml')!.isSymbolicLink()).toBe(true);
      expect(() => d.read('a/to-x.yaml')).toThrow(/ELOOP/);
      expect(() => d.create('a/to-x.yaml', 'overwrite')).toThrow(/EEXIST/);
      d.unlink('a/to-x.yaml');
    } finally {
      d.close();
    }
    expect(snapshot(outside)).toEqual({ 'x.yaml': 'precious\n' });
  });

  it('refuses a root that is itself a link (the tree was replaced by one)', () => {
    fs.symlinkSync(outside, path.join(tmp, 'tree-link'));
    expect(notADirectory(() => new SafeDir(path.join(tmp, 'tree-link'), walk)).link).toBe(true);
  });

  it('removeAll removes a folder and what is in it, links as links: nothing outside is touched', () => {
    fs.mkdirSync(path.join(root, 'a/b/c'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a/b/c/f'), 'x');
    fs.symlinkSync(outside, path.join(root, 'a/b/dir-link'));
    fs.symlinkSync(path.join(outside, 'x.yaml'), path.join(root, 'a/file-link'));
    const d = new SafeDir(root, walk);
    try {
      d.removeAll('a');
      d.removeAll('link');
    } finally {
      d.close();
    }
    expect(snapshot(root)).toEqual({ file: 'f\n' });
    expect(snapshot(outside)).toEqual({ 'x.yaml': 'precious\n' });
  });
});

describe('SafeDir', () => {
  (process.platform === 'linux' && hasProcFd ? it : it.skip)(
    'Linux: a folder swapped for a link after it was opened cannot redirect the walk (openat through its descriptor)',
    () => {
      fs.writeFileSync(path.join(root, 'a/mine.yaml'), 'ours\n');
      const d = new SafeDir(root);
      try {
        expect(d.lstat('a/mine.yaml')!.isFile()).toBe(true);
        // Between the check and the use, another process moves the folder away and puts a link in its place.
        fs.renameSync(path.join(root, 'a'), path.join(root, 'a-moved'));
        fs.symlinkSync('../outside', path.join(root, 'a'));
        fs.writeFileSync(path.join(outside, 'mine.yaml'), 'precious too\n');
        d.unlink('a/mine.yaml');
        d.create('a/new.yaml', 'new\n');
      } finally {
        d.close();
      }
      // What was unlinked and created is inside the folder that was checked, wherever it went.
      expect(snapshot(outside)).toEqual({ 'mine.yaml': 'precious too\n', 'x.yaml': 'precious\n' });
      expect(snapshot(path.join(root, 'a-moved'))).toEqual({ 'new.yaml': 'new\n' });
    },
  );

  (hasProcFd ? it : it.skip)('closes every descriptor it opened, however many folders it walked', () => {
    for (let i = 0; i < 200; i++) fs.mkdirSync(path.join(root, `n${i}`));
    const fds = openFds();
    const d = new SafeDir(root);
    for (let i = 0; i < 200; i++) d.create(`n${i}/f.yaml`, 'x');
    // The cache stays bounded while it walks.
    expect(openFds() - fds).toBeLessThanOrEqual(70);
    d.close();
    expect(openFds()).toBe(fds);
  });

  it('creates a file from its bytes in parts, more than one writev takes and empty ones among them, as their concatenation', () => {
    const parts = Array.from({ length: 2500 }, (_, i) => Buffer.from(i % 7 === 0 ? '' : `part ${i}\n`));
    const d = new SafeDir(root);
    try {
      d.create('a/parts.txt', parts, true);
    } finally {
      d.close();
    }
    expect(fs.readFileSync(path.join(root, 'a/parts.txt')).equals(Buffer.concat(parts))).toBe(true);
  });
});
