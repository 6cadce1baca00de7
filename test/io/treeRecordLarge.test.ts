/**
 * The record of a large tree (src/io/treeRecord.ts): it is bytes written in blocks and read a line at
 * a time, because a tree of 200,000 tenants has a record of about 950 MB, past the longest string
 * V8 makes. Here a record of 150,000 files (about 19 MB, two blocks) is written and read back
 * and compared with the format as one string spells it.
 */
import { createHash } from 'node:crypto';
import { LineBlocks, linesOf, parseRecord, recordBytes, recordId } from '../../src/io/treeRecord';
import type { KObject } from '../../src/k8s/model';

const N = 150_000;

function tree(): { files: Map<string, string>; objs: KObject[] } {
  const files = new Map<string, string>();
  const objs: KObject[] = [];
  for (let i = 0; i < N; i++) {
    const o: KObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `c${i}`, namespace: `tenant-t${i % 997}` },
    };
    objs.push(o);
    files.set(`tenant-t${i % 997}/configmap-c${i}.yaml`, `kind: ConfigMap # ${i} ✓\n`);
  }
  files.set('kustomization.yaml', 'resources: []\n');
  return { files, objs };
}

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('the record of a large tree', () => {
  it('is the format byte for byte, in blocks: the lines, their digest as the id, every file read back', () => {
    const { files, objs } = tree();
    const bytes = recordBytes(files, objs, 'yaml');
    // The format as one string spells it (small trees could be written so).
    // The shape line (nothing set), no Tenant, then the files.
    let lines = '{"shape":{}}\n';
    let i = 0;
    for (const [rel, content] of files) {
      const o = rel === 'kustomization.yaml' ? undefined : objs[i++];
      const entry = o
        ? [rel, sha(content), o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name]
        : [rel, sha(content)];
      lines += `${JSON.stringify(entry)}\n`;
    }
    expect(bytes.length).toBeGreaterThan(16 << 20);
    const head = `{"format":3,"files":"yaml","id":"${sha(lines)}"}`;
    const text = bytes.toString('utf8');
    expect(text.slice(text.indexOf('\n') + 1, text.indexOf('\n', text.indexOf('\n') + 1))).toBe(head);
    expect(text.slice(text.indexOf(head) + head.length + 1)).toBe(lines);
    expect(recordId(bytes)).toBe(sha(lines));

    const back = parseRecord(bytes)!;
    expect(back.files.length).toBe(N + 1);
    expect(back.files[N]).toEqual({ path: 'kustomization.yaml', sha256: sha('resources: []\n') });
    for (const k of [0, 1, N / 2, N - 1])
      expect([k, back.files[k]]).toEqual([
        k,
        {
          path: `tenant-t${k % 997}/configmap-c${k}.yaml`,
          sha256: sha(`kind: ConfigMap # ${k} ✓\n`),
          object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: `tenant-t${k % 997}`, name: `c${k}` },
        },
      ]);
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
