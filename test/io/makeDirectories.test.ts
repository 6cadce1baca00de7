/**
 * makeDirectories (src/io/makeDirectories.ts): a directory and its missing parents, one mkdir each,
 * and an error where one cannot be made, never a loop (Node.js's recursive mkdir spins for ever
 * under /proc).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeDirectories } from '../../src/io/makeDirectories';
import { tmpDir } from '../helpers/kpt';
import { testUnless } from '../helpers/skip';

const codeOf = (f: () => unknown) => {
  try {
    f();
    return 'no error';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
};

test('makes the missing parents, outermost first, with the mode given; none when the directory is there', () => {
  const base = tmpDir('make-directories');
  const dir = path.join(base, 'a', 'b', 'c');
  expect(makeDirectories(dir, 0o700)).toEqual([path.join(base, 'a'), path.join(base, 'a', 'b'), dir]);
  for (const d of ['a', 'a/b', 'a/b/c'])
    expect({ d, mode: fs.statSync(path.join(base, d)).mode & 0o777 }).toEqual({ d, mode: 0o700 });
  expect(makeDirectories(dir)).toEqual([]);
});

test('a relative path is taken from the working directory; a link to a directory is followed, as by mkdir -p', () => {
  const base = tmpDir('make-directories-relative');
  fs.mkdirSync(path.join(base, 'real'));
  fs.symlinkSync(path.join(base, 'real'), path.join(base, 'link'));
  const made = makeDirectories(path.relative(process.cwd(), path.join(base, 'link', 'x')));
  expect(made).toEqual([path.join(base, 'link', 'x')]);
  expect(fs.statSync(path.join(base, 'real', 'x')).isDirectory()).toBe(true);
});

test('a file on the path, or in place of the directory: ENOTDIR, nothing made', () => {
  const base = tmpDir('make-directories-file');
  fs.writeFileSync(path.join(base, 'f'), '');
  expect(codeOf(() => makeDirectories(path.join(base, 'f')))).toBe('ENOTDIR');
  expect(codeOf(() => makeDirectories(path.join(base, 'f', 'x', 'y')))).toBe('ENOTDIR');
  expect(fs.readdirSync(base)).toEqual(['f']);
});

const noProc = fs.existsSync('/proc/self') ? undefined : '/proc (Linux)';
testUnless(noProc)('under /proc: the error of mkdir, at once (where Node.js recursive mkdir never returns)', () => {
  expect(codeOf(() => makeDirectories('/proc/cozy-gw-test/a'))).toBe('ENOENT');
});
