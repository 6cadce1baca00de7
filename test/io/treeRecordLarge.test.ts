/**
 * The record of a large tree (src/io/treeRecord.ts): it is bytes written in blocks and read a line at
 * a time, because a tree of 200,000 tenants has a record of about 950 MB, past the longest string
 * V8 makes. Here a record of 150,000 files (about 19 MB; one release's block alone is more than a
 * LineBlocks block) is written and read back and compared with the format as one string spells it.
 */
import { createHash } from 'node:crypto';
import {
  blockFiles,
  LineBlocks,
  linesOf,
  parseRecord,
  recordBytes,
  recordId,
  type RecordFile,
} from '../../src/io/treeRecord';

const N = 150_000;
const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Files over 997 namespaces; the first release holds half of them (one block longer than LineBlocks' 16 MB would be in pieces). */
function files(): Map<string, RecordFile[]> {
  const releases = new Map<string, RecordFile[]>();
  for (let i = 0; i < N; i++) {
    const ns = i < N / 2 ? 'tenant-big' : `tenant-t${i % 997}`;
    let b = releases.get(ns);
    if (!b) releases.set(ns, (b = []));
    b.push({
      path: `${ns}/configmap-c${i}.yaml`,
      sha256: sha(`kind: ConfigMap # ${i} ✓\n`),
      object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: `c${i}` },
    });
  }
  return releases;
}

describe('the record of a large tree', () => {
  it('is the format byte for byte: the head with each block where it says, their digests, the id, every file read back', () => {
    const releases = files();
    const bytes = recordBytes({
      format: 'yaml',
      releases: [...releases].map(([namespace, fs]) => ({ namespace, files: fs })),
      kustomization: sha('resources: []\n'),
    });
    expect(bytes.length).toBeGreaterThan(16 << 20);
    // The format as one string spells it (small trees could be written so).
    let head = '{"shape":{}}\n';
    const blocks: string[] = [];
    const releaseLines: unknown[] = [];
    let offset = 0;
    for (const [ns, fs] of releases) {
      const block = fs
        .map((f) => `${JSON.stringify([f.path, f.sha256, 'v1', 'ConfigMap', ns, f.object.name])}\n`)
        .join('');
      const length = Buffer.byteLength(block);
      releaseLines.push({ namespace: ns, block: [offset, length, fs.length], digest: sha(block) });
      blocks.push(block);
      offset += length;
    }
    const body = blocks.join('');
    // The releases a thousand a line.
    for (let i = 0; i < releaseLines.length; i += 1000)
      head += `${JSON.stringify({ releases: releaseLines.slice(i, i + 1000) })}\n`;
    head += `${JSON.stringify({ kustomization: sha('resources: []\n') })}\n`;
    const header = `{"format":4,"files":"yaml","id":"${sha(head)}","head":${Buffer.byteLength(head)}}`;
    const text = bytes.toString('utf8');
    const second = text.indexOf('\n') + 1;
    expect(text.slice(second, text.indexOf('\n', second))).toBe(header);
    expect(text.slice(text.indexOf(header) + header.length + 1)).toBe(head + body);
    expect(recordId(bytes)).toBe(sha(head));

    const back = parseRecord(bytes)!;
    expect(back.files.length).toBe(N + 1);
    expect(back.files[N]).toEqual({ path: 'kustomization.yaml', sha256: sha('resources: []\n') });
    const all = [...releases.values()].flat();
    for (const k of [0, 1, N / 2, N - 1]) expect([k, back.files[k]]).toEqual([k, all[k]]);
    const big = back.releases![0];
    const at = bytes.length - offset + big.block.offset;
    expect(blockFiles(bytes.subarray(at, at + big.block.bytes)).length).toBe(N / 2);
  });

  it('LineBlocks and linesOf: lines across blocks come back as they went in, a trailing empty one too', () => {
    const b = new LineBlocks();
    const want: string[] = [];
    for (let i = 0; i < 60_000; i++) want.push(`${'ä'.repeat(i % 700)}${i}`);
    want.push('');
    for (const l of want) b.add(l);
    const { blocks, sha256 } = b.done();
    expect(blocks.length).toBeGreaterThan(1);
    const bytes = Buffer.concat(blocks);
    expect(sha256).toBe(sha(want.map((l) => `${l}\n`).join('')));
    expect([...linesOf(bytes)]).toEqual(want);
    expect([...linesOf(Buffer.from('a\n\nb'))]).toEqual(['a', '', 'b']);
    expect([...linesOf(Buffer.alloc(0))]).toEqual([]);
  });
});
