/**
 * Standard output written synchronously (src/io/stdout.ts): every byte of the text, in order, in
 * slices of at most a mebibyte of UTF-16 units encoded into one buffer made once and reused.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeAllSync } from '../../src/io/stdout';

function written(texts: string[]): Buffer {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-stdout-')), 'out');
  const fd = fs.openSync(file, 'w');
  try {
    for (const t of texts) writeAllSync(fd, t);
  } finally {
    fs.closeSync(fd);
  }
  return fs.readFileSync(file);
}

describe('writeAllSync', () => {
  it('writes every byte: slices across surrogate pairs, three-byte characters and lone surrogates', () => {
    const texts = [
      ('x'.repeat((1 << 20) - 1) + '\u{1F600}').repeat(3),
      'ü✓'.repeat(700_000),
      'a\ud800b',
      '',
      'short\n',
    ];
    const out = written(texts);
    expect(out.equals(Buffer.from(texts.join(''), 'utf8'))).toBe(true);
  });

  it('encodes into one buffer reused from write to write, not a new one per slice', () => {
    const alloc = jest.spyOn(Buffer, 'allocUnsafeSlow');
    const from = jest.spyOn(Buffer, 'from');
    try {
      // The buffer grows to the largest slice once; later writes, of any size up to it, reuse it.
      const texts = ['y'.repeat(3 << 20), 'z'.repeat(5), 'w'.repeat(1 << 20)];
      const out = written(texts);
      expect(out.equals(Buffer.from(texts.join(''), 'utf8'))).toBe(true);
      expect(alloc.mock.calls.length).toBeLessThanOrEqual(1);
      expect(from.mock.calls.length).toBe(1); // the expected bytes above, none in writeAllSync
    } finally {
      alloc.mockRestore();
      from.mockRestore();
    }
  });
});
