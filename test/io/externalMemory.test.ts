/**
 * Reading a large state, and writing a large tree, makes little memory outside the JavaScript heap,
 * and makes it rarely (src/io/stdin.ts ReadBuffer, src/io/sourceMap.ts TextStore, src/io/safeDir.ts):
 * V8 answers every 64 MB of memory made outside its heap with a full collection of the heap, so a
 * buffer per file read or written, or a text block of one size per 4 MiB of text kept, cost a
 * collection of a heap of gigabytes per 64 MB: quadratic in the state (2.7 GB of files at 200,000
 * tenants). Here the buffers made are counted: a few, however many files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readInputs, SourceMap } from '../../src/io/inputs';
import { readFileBytes, ReadBuffer } from '../../src/io/stdin';
import { SafeDir } from '../../src/io/safeDir';
import { writeOutputDir } from '../../src/io/outputDir';
import type { KObject } from '../../src/k8s/model';
import { tmpDir } from '../helpers/kpt';

const route = (i: number, pad: number) =>
  `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r${i}\n  namespace: tenant-a\n  annotations:\n    pad: "${'p'.repeat(pad)}"\nspec:\n  hostnames: [a${i}.example.org]\n`;

/** Every Buffer allocation made while `f` runs, by its size (Buffer.from's counted as one of -1). */
async function allocationsOf(f: () => unknown): Promise<number[]> {
  const sizes: number[] = [];
  const spies = (['allocUnsafe', 'allocUnsafeSlow', 'alloc', 'from'] as const).map((m) => {
    const orig = Buffer[m].bind(Buffer);
    return jest.spyOn(Buffer, m).mockImplementation(((n: number, ...rest: never[]) => {
      sizes.push(m === 'from' ? -1 : n);
      return (orig as (n: number, ...r: never[]) => Buffer)(n, ...rest);
    }) as never);
  });
  try {
    await f();
  } finally {
    for (const s of spies) s.mockRestore();
  }
  return sizes;
}

describe('memory made outside the heap while reading', () => {
  it('a directory of 600 files (18 MiB): a few buffers, not one per file; every object and line still there', async () => {
    const dir = tmpDir('cozy-gw-external-');
    for (let i = 0; i < 600; i++)
      fs.writeFileSync(path.join(dir, `r${String(i).padStart(3, '0')}.yaml`), route(i, 1000 + ((i * 7919) % 60_000)));
    let read: ReturnType<typeof readInputs> | undefined;
    const sizes = await allocationsOf(() => {
      read = readInputs([dir]);
    });
    expect(read!.objects).toHaveLength(600);
    // Lines are still found in the kept texts (every 50th file: each look-up parses its document).
    const sample = read!.objects.filter((_, i) => i % 50 === 0);
    expect(sample.map((o) => read!.sources.lineOf(o, 'spec.hostnames')).filter((l) => l !== 9)).toEqual([]);
    // The read buffer grows to the largest file, by doubling; no text is kept (the source map
    // reads a file again for a line), so no block of texts is made at all.
    expect(sizes.length).toBeLessThanOrEqual(8);
    expect(sizes.filter((n) => n >= 4 << 20)).toEqual([]);
  });

  it('the texts kept (standard input, a stream) go into blocks that double: 4, 8, 16 MiB for 18 MiB', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => route(i, 1000 + ((i * 7919) % 60_000)));
    let read: ReturnType<typeof readInputs> | undefined;
    const sources = new SourceMap();
    const sizes = await allocationsOf(() => {
      for (let i = 0; i < texts.length; i++) read = readInputs(['-'], { readStdin: () => texts[i], sources });
    });
    expect(read!.objects).toHaveLength(1);
    expect(sizes.filter((n) => n >= 4 << 20)).toEqual([4 << 20, 8 << 20, 16 << 20]);
  });

  it('ReadBuffer: the bytes of a file read into it hold until its next read, which reuses it', async () => {
    const dir = tmpDir('cozy-gw-readbuffer-');
    fs.writeFileSync(path.join(dir, 'a'), 'a'.repeat(100_000));
    fs.writeFileSync(path.join(dir, 'b'), 'b'.repeat(50_000));
    const into = new ReadBuffer();
    const a = readFileBytes(path.join(dir, 'a'), undefined, into);
    expect([a.length, a.toString('latin1') === 'a'.repeat(100_000)]).toEqual([100_000, true]);
    const sizes = await allocationsOf(() => {
      const b = readFileBytes(path.join(dir, 'b'), undefined, into);
      expect([b.length, b.toString('latin1') === 'b'.repeat(50_000)]).toEqual([50_000, true]);
    });
    expect(sizes).toEqual([]);
    // the same memory: a's bytes are now b's
    expect(a.subarray(0, 3).toString('latin1')).toBe('bbb');
  });
});

describe('memory made outside the heap while writing a tree', () => {
  const objs = (n: number): KObject[] =>
    Array.from({ length: n }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `c${i}`, namespace: `tenant-${i % 7}` },
      data: { text: `ünïcödé ✓ \u{1F600} ${'x'.repeat(i * 13)}` },
    }));

  it('SafeDir.create writes a string as its UTF-8 bytes without making a Buffer; readInto reads them back', async () => {
    const dir = tmpDir('cozy-gw-safedir-');
    const d = new SafeDir(dir);
    const text = `ü✓\u{1F600}\0${'z'.repeat(70_000)}`;
    try {
      expect(await allocationsOf(() => d.create('f', text))).toEqual([]);
      expect(fs.readFileSync(path.join(dir, 'f')).equals(Buffer.from(text, 'utf8'))).toBe(true);
      const into = new ReadBuffer();
      expect(d.readInto('f', into).equals(Buffer.from(text, 'utf8'))).toBe(true);
      d.create('g', 'short');
      expect(d.readInto('g', into).toString('utf8')).toBe('short');
    } finally {
      d.close();
    }
  });

  it('writing 400 files, and the same tree again (every file read back and compared): a few buffers, not one per file', async () => {
    const dir = tmpDir('cozy-gw-treealloc-');
    const first = await allocationsOf(() => writeOutputDir('t', dir, objs(400)));
    const again = await allocationsOf(() => writeOutputDir('t', dir, objs(400)));
    // The record and the journal are written in blocks, a few Buffers each; nothing per file.
    expect([first.length < 40, again.length < 40, first.length, again.length]).toEqual([
      true,
      true,
      first.length,
      again.length,
    ]);
    expect(fs.readFileSync(path.join(dir, 't', 'tenant-3', 'configmap-c3.yaml'), 'utf8')).toContain('ünïcödé ✓');
  });
});
