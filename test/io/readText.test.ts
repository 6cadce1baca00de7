/**
 * readFileText / readFdText (src/io/stdin.ts): a file decoded 64 KiB at a time through one reused
 * buffer is the same text as its bytes decoded whole, whatever characters straddle a chunk's end;
 * the bound and the NUL refusal hold as for readFileBytes; a refused file leaves nothing of itself
 * in the decoder the next file is read with; and no buffer of a file's size is made.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { readFdText, readFileBytes, readFileText, ReadBuffer, SourceNotText, SourceTooLarge } from '../../src/io/stdin';
import { tmpDir } from '../helpers/kpt';

const CHUNK = 1 << 16;
/** Fixed runs; FC_SEED replays a failure (fast-check prints the seed). */
const fcParams = () => ({ numRuns: 60, seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined });

/** Bytes of one- to four-byte characters and stray bytes (no NUL): invalid sequences too. */
const pieces = [
  [0x41],
  [0x0a],
  [0xc3, 0xa9],
  [0xe2, 0x82, 0xac],
  [0xf0, 0x9f, 0x98, 0x80],
  [0xe2, 0x82],
  [0xff],
  [0x80],
  [0xed, 0xa0, 0x80],
];

describe('readFileText', () => {
  const dir = tmpDir('cozy-gw-readtext-');
  let n = 0;
  const file = (bytes: Buffer) => {
    const f = path.join(dir, `f${n++}`);
    fs.writeFileSync(f, bytes);
    return f;
  };

  test('property: the text of any bytes, characters across every chunk boundary, is their whole decoding', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 * CHUNK }),
        fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        (pad, tail, asStream) => {
          // ASCII up to near a boundary, then mixed characters over it.
          const bytes = Buffer.concat([Buffer.alloc(pad, 0x78), Buffer.from(tail.flat())]);
          const f = file(bytes);
          const want = readFileBytes(f).toString('utf8');
          if (!asStream) {
            expect(readFileText(f, undefined, new ReadBuffer())).toBe(want);
            return;
          }
          // As a stream (no size known): every read a chunk.
          const fd = fs.openSync(f, 'r');
          try {
            expect(readFdText(fd, undefined, 0, new ReadBuffer())).toBe(want);
          } finally {
            fs.closeSync(fd);
          }
        },
      ),
      fcParams(),
    );
  });

  test('one scratch buffer for every file: the texts of many files of many sizes, in any order', () => {
    const scratch = new ReadBuffer();
    const texts = [1, CHUNK - 1, CHUNK, CHUNK + 1, 5 * CHUNK + 3, 0, 17].map((k, i) =>
      `é${String(i)}`.repeat(Math.ceil(k / 3)).slice(0, k),
    );
    const files = texts.map((t) => file(Buffer.from(t, 'utf8')));
    expect(files.map((f) => readFileText(f, undefined, scratch))).toEqual(texts);
  });

  test('a file refused at a NUL after a split character: the next file read with the same buffer starts clean', () => {
    const scratch = new ReadBuffer();
    // 65,535 bytes of x, then the first byte of a three-byte character at the chunk end, then a NUL.
    const split = file(Buffer.concat([Buffer.alloc(CHUNK - 1, 0x78), Buffer.from([0xe2]), Buffer.from([0x00, 0x41])]));
    expect(() => readFileText(split, undefined, scratch)).toThrow(SourceNotText);
    expect(readFileText(file(Buffer.from('abc')), undefined, scratch)).toBe('abc');
  });

  test('bounded as readFileBytes is: a regular file by its size, a stream one chunk past the bound', () => {
    const big = file(Buffer.alloc(3 * CHUNK, 0x79));
    expect(() => readFileText(big, 2 * CHUNK)).toThrow(SourceTooLarge);
    const fd = fs.openSync(big, 'r');
    try {
      let thrown: unknown;
      try {
        readFdText(fd, 2 * CHUNK, 0);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(SourceTooLarge);
      expect((thrown as SourceTooLarge).streamed).toBe(true);
    } finally {
      fs.closeSync(fd);
    }
  });

  test('no buffer of the file size: a 1 MiB file is read through the 64 KiB buffer', () => {
    const f = file(Buffer.alloc(1 << 20, 0x7a));
    const sizes: number[] = [];
    const spies = (['allocUnsafe', 'allocUnsafeSlow', 'alloc'] as const).map((m) => {
      const orig = Buffer[m].bind(Buffer);
      return jest.spyOn(Buffer, m).mockImplementation(((k: number, ...rest: never[]) => {
        sizes.push(k);
        return (orig as (k: number, ...r: never[]) => Buffer)(k, ...rest);
      }) as never);
    });
    let text = '';
    try {
      text = readFileText(f);
    } finally {
      for (const s of spies) s.mockRestore();
    }
    expect(text.length).toBe(1 << 20);
    expect(sizes.filter((k) => k > CHUNK)).toEqual([]);
  });
});
