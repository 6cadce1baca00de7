/**
 * What the fast reader's values cost to keep (src/k8s/yamlFastRead.ts): a large state is tens of
 * thousands of files read into one heap, so three properties of the values matter, each measured
 * in a Node.js of its own over the built reader (dist/, which the suites' global set-up builds):
 * - mappings of data keys (labels) are made in dictionary mode, so that the shapes of all other
 *   objects stay shared however many distinct label keys a state holds;
 * - a value kept does not keep the text it was read from alive;
 * - with a pool, a value repeated across streams is held once.
 */
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const ROOT = path.resolve(__dirname, '..', '..');

/** Run a script in a Node.js of its own (flags given) with `loadAllFast` in scope; its JSON answer. */
function measure(flags: string[], body: string): Record<string, unknown> {
  const script = `const { loadAllFast } = require(${JSON.stringify(path.join(ROOT, 'dist', 'k8s', 'yamlFastRead.js'))});\n${body}`;
  const r = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the measuring script failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('the values the fast reader makes', () => {
  it('share their shapes after 3,000 distinct label keys; the label mappings are in dictionary mode', () => {
    // V8 adds a transition to the shape every `{}` starts from for each new first key, and stops
    // sharing shapes past about 1,500 of them: each tenant's own label key is one more.
    const r = measure(
      ['--allow-natives-syntax'],
      `const keep = [];
      for (let i = 0; i < 3000; i++)
        keep.push(loadAllFast('apiVersion: v1\\nkind: Namespace\\nmetadata:\\n  name: t' + i + '\\n  labels:\\n    tenant.cozystack.io/tenant-t' + i + ': ""\\n')[0]);
      const ref = () => loadAllFast('roleRef:\\n  kind: ClusterRole\\n  name: x\\n  apiGroup: rbac.authorization.k8s.io\\n')[0].roleRef;
      const a = ref(), b = ref();
      console.log(JSON.stringify({ shared: %HaveSameMap(a, b), labelsFast: %HasFastProperties(keep[0].metadata.labels), metadataFast: %HasFastProperties(keep[0].metadata) }));`,
    );
    expect(r).toEqual({ shared: true, labelsFast: false, metadataFast: true });
  });

  it('keep none of the text they were read from alive', () => {
    // 200 texts of 600 KB each, one short value of each kept: a value that is a view into its text
    // would keep 120 MB alive.
    const r = measure(
      ['--expose-gc'],
      `const keep = []; gc(); const h0 = process.memoryUsage().heapUsed;
      for (let i = 0; i < 200; i++) {
        const text = 'a: the value of stream number ' + i + '\\nb: |\\n' + '  a line of a long literal block, read and let go\\n'.repeat(12000);
        keep.push(loadAllFast(text, new Map())[0].a);
      }
      gc(); gc();
      console.log(JSON.stringify({ mb: (process.memoryUsage().heapUsed - h0) / 1e6, first: keep[0] }));`,
    );
    expect(r.first).toBe('the value of stream number 0');
    expect(r.mb).toBeLessThan(10);
  });

  it('with a pool, hold a value repeated across streams once', () => {
    // 300,000 values of 25 characters: a copy each is about 20 MB; one string and the array that
    // holds them, about 2.4 MB.
    const r = measure(
      ['--expose-gc'],
      `const pool = new Map(); const keep = new Array(300000); gc(); const h0 = process.memoryUsage().heapUsed;
      for (let i = 0; i < 3000; i++) {
        const docs = loadAllFast('- apiGroup: rbac.authorization.k8s.io\\n'.repeat(100), pool)[0];
        for (let j = 0; j < 100; j++) keep[i * 100 + j] = docs[j].apiGroup;
      }
      gc(); gc();
      console.log(JSON.stringify({ mb: (process.memoryUsage().heapUsed - h0) / 1e6, pooled: pool.size, last: keep[299999] }));`,
    );
    expect(r).toMatchObject({ pooled: 1, last: 'rbac.authorization.k8s.io' });
    expect(r.mb).toBeLessThan(6);
  });
});
