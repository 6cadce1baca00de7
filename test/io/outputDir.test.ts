/**
 * `--output-dir` owns only what it wrote (docs/decisions.md §12): every path
 * inside the directory, names mapped injectively, a record of the files written, the user's files
 * left and named, refusals, and no debris on any failure.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { FindingsError } from '../../src/k8s/diagnostics';
import type { KObject } from '../../src/k8s/model';
import { outputFileOf, readTree, RECORD, segment, treePaths, WORK, writeOutputDir } from '../../src/io/outputDir';
import { isTreeBookkeeping } from '../../src/io/treeFiles';
import { SafeDir } from '../../src/io/safeDir';
import { blockFiles, headLength, parseRecordHead } from '../../src/io/treeRecord';
import { runCli, ROOT } from '../helpers/cli';
import { skippedTitle } from '../helpers/skip';

const obj = (kind: string, name: string, namespace?: string, apiVersion = 'v1'): KObject =>
  ({ apiVersion, kind, metadata: { name, ...(namespace !== undefined ? { namespace } : {}) } }) as KObject;

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-outdir-'));
});
afterEach(() => {
  for (const p of [tmp]) {
    try {
      fs.chmodSync(p, 0o755);
    } catch {
      /* gone */
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Every file and directory below `dir`, relative. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(e.isDirectory() ? `${r}/` : r);
      if (e.isDirectory()) walk(r);
    }
  };
  walk('');
  return out.sort();
}

async function findingOf(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    if (e instanceof FindingsError) return e.findings.map((x) => x.message).join('\n');
    throw e;
  }
  throw new Error('no finding');
}

describe('names', () => {
  it('keep ordinary Kubernetes names readable', async () => {
    expect(outputFileOf(obj('HTTPRoute', 'grafana', 'tenant-alice-dev'))).toBe(
      'tenant-alice-dev/httproute-grafana.yaml',
    );
    expect(outputFileOf(obj('Namespace', 'tenant-root'))).toBe('_cluster/namespace-tenant-root.yaml');
    expect(outputFileOf(obj('ConfigMap', 'a.b', 'x'), 'json')).toBe('x/configmap-a.b.json');
  });
  it('never escape the directory: .., /, NUL and control characters become escapes', async () => {
    for (const bad of ['..', '.', '/', 'a/../b', '\0', 'a\nb', '\u001b[31m', '.hidden', '']) {
      const s = segment(bad);
      expect(s).toMatch(/^[a-z0-9._~-]+$/);
      expect(s.startsWith('.')).toBe(false);
      expect(s).not.toContain('/');
    }
    expect(outputFileOf(obj('HTTPRoute', 'escape', '..'))).toBe('_2e_./httproute-escape.yaml');
  });
  it('a/b, a:b and a_b are three files, and so are names differing only in case', async () => {
    const paths = treePaths([
      obj('HTTPRoute', 'a/b', 'n'),
      obj('HTTPRoute', 'a:b', 'n'),
      obj('HTTPRoute', 'a_b', 'n'),
      obj('HTTPRoute', 'A_b', 'n'),
    ]);
    expect(new Set(paths.map((p) => p.toLowerCase())).size).toBe(4);
  });
  it('the same kind and name from two API groups, kinds differing in case, and a repeated object all stay apart', async () => {
    const objs = [
      obj('Gateway', 'g', 'n', 'gateway.networking.k8s.io/v1'),
      obj('Gateway', 'g', 'n', 'example.com/v1'),
      obj('gateway', 'g', 'n', 'example.com/v1'),
      obj('Gateway', 'g', 'n', 'example.com/v1'),
    ];
    const paths = treePaths(objs);
    expect(new Set(paths).size).toBe(4);
    // Deterministic: the same input, the same names.
    expect(treePaths(objs)).toEqual(paths);
  });
  it('a kind with a dash cannot meet another kind-name split', async () => {
    expect(outputFileOf(obj('a-b', 'c', 'n'))).not.toBe(outputFileOf(obj('a', 'b-c', 'n')));
  });
  it('very long names are cut with a digest, within the file-name limit', async () => {
    const long = 'x'.repeat(300);
    const f = outputFileOf(obj('ConfigMap', long, 'n'));
    expect(path.basename(f).length).toBeLessThan(255);
    expect(outputFileOf(obj('ConfigMap', long + 'y', 'n'))).not.toBe(f);
  });
  it('property: for any names, paths stay inside the directory and no two objects share a file, case-insensitively', async () => {
    const name = fc.string({ unit: 'binary', maxLength: 12 });
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom('HTTPRoute', 'httproute', 'Secret', 'a-b'),
            name,
            fc.option(name, { nil: undefined }),
          ),
          { maxLength: 12 },
        ),
        (specs) => {
          const objs = specs.map(([k, n, ns]) => obj(k, n, ns));
          const paths = treePaths(objs);
          for (const p of paths) {
            expect(path.posix.normalize(p)).toBe(p);
            expect({ path: p, bad: p.split('/').filter((s) => s === '' || s.startsWith('.')) }).toEqual({
              path: p,
              bad: [],
            });

            expect(p).not.toMatch(/[\u0000-\u001f\u007f]/);
          }
          const ids = new Set(objs.map((o) => `${o.kind}\n${o.metadata.namespace ?? ''}\n${o.metadata.name}`));
          const distinct = new Set(paths.map((p) => p.toLowerCase()));
          expect(distinct.size).toBe(paths.length);
          expect(distinct.size).toBeGreaterThanOrEqual(ids.size);
        },
      ),
      { numRuns: 300, seed: Number(process.env.FC_SEED ?? 7) },
    );
  });
});

describe('writing the tree', () => {
  const objs = [obj('Namespace', 'tenant-a'), obj('Secret', 's', 'tenant-a')];

  it('writes the files, kustomization.yaml and the record, and nothing outside', async () => {
    const r = await writeOutputDir('out/deploy', tmp, [...objs, obj('HTTPRoute', 'escape', '..')]);
    expect(r.written).toBe(4);
    expect(tree(tmp)).toEqual([
      'out/',
      'out/deploy/',
      'out/deploy/.cozy-gw-files',
      'out/deploy/_2e_./',
      'out/deploy/_2e_./httproute-escape.yaml',
      'out/deploy/_cluster/',
      'out/deploy/_cluster/namespace-tenant-a.yaml',
      'out/deploy/kustomization.yaml',
      'out/deploy/tenant-a/',
      'out/deploy/tenant-a/secret-s.yaml',
    ]);
    expect(fs.readFileSync(path.join(tmp, 'out/deploy/kustomization.yaml'), 'utf8')).not.toContain('..');
  });

  it('the earlier record is read back for comparison only where the new one has its size', async () => {
    const reads = jest.spyOn(SafeDir.prototype, 'read');
    const recordReads = () => reads.mock.calls.filter(([rel]) => rel === RECORD).length;
    try {
      await writeOutputDir('d', tmp, objs);
      const written = fs.readFileSync(path.join(tmp, 'd', RECORD));
      // Another tree, whose record is longer: read once (the earlier tree's files), not again to compare.
      reads.mockClear();
      const grown = [...objs, obj('ConfigMap', 'c', 'tenant-a')];
      expect((await writeOutputDir('d', tmp, grown)).changed).toBe(2);
      expect(recordReads()).toBe(1);
      expect(fs.readFileSync(path.join(tmp, 'd', RECORD)).length).toBeGreaterThan(written.length);
      // The same tree again: the record of the same size is compared, found the same, and left.
      reads.mockClear();
      const before = fs.statSync(path.join(tmp, 'd', RECORD)).ino;
      expect((await writeOutputDir('d', tmp, grown)).changed).toBe(0);
      expect(recordReads()).toBe(2);
      expect(fs.statSync(path.join(tmp, 'd', RECORD)).ino).toBe(before);
    } finally {
      reads.mockRestore();
    }
  });

  it('a later run replaces and removes only its own files, and names what it left', async () => {
    await writeOutputDir('d', tmp, objs);
    fs.writeFileSync(path.join(tmp, 'd/README.md'), 'mine');
    fs.mkdirSync(path.join(tmp, 'd/.git'));
    fs.writeFileSync(path.join(tmp, 'd/.git/HEAD'), 'ref');
    fs.writeFileSync(path.join(tmp, 'd/tenant-a/mine.yaml'), 'mine');
    const r = await writeOutputDir('d', tmp, [obj('Namespace', 'tenant-b')]);
    expect(r.removed).toEqual(['_cluster/namespace-tenant-a.yaml', 'tenant-a/secret-s.yaml']);
    expect(r.left).toEqual(['.git/', 'README.md', 'tenant-a/mine.yaml']);
    expect(tree(path.join(tmp, 'd'))).toEqual([
      '.cozy-gw-files',
      '.git/',
      '.git/HEAD',
      'README.md',
      '_cluster/',
      '_cluster/namespace-tenant-b.yaml',
      'kustomization.yaml',
      'tenant-a/',
      'tenant-a/mine.yaml',
    ]);
    expect(fs.readFileSync(path.join(tmp, 'd/README.md'), 'utf8')).toBe('mine');
  });

  it('refuses a directory holding files and no record, and writes nothing', async () => {
    fs.mkdirSync(path.join(tmp, 'd'));
    fs.writeFileSync(path.join(tmp, 'd/x.yaml'), 'x');
    expect(await findingOf(() => writeOutputDir('d', tmp, objs))).toMatch(/holds files cozy-gw did not write/);
    expect(tree(path.join(tmp, 'd'))).toEqual(['x.yaml']);
  });

  it('refuses the working directory and the home directory unless they hold the record', async () => {
    expect(await findingOf(() => writeOutputDir('.', tmp, objs))).toMatch(/is the working directory/);
    expect(tree(tmp)).toEqual([]);
    expect(await findingOf(() => writeOutputDir(tmp, '/', objs, { home: tmp }))).toMatch(/is the home directory/);
    // With the record, it is cozy-gw's tree.
    fs.writeFileSync(
      path.join(tmp, RECORD),
      '# cozy-gw output tree: the files cozy-gw wrote here, which the next run replaces or removes. Do not edit.\n',
    );
    expect((await writeOutputDir('.', tmp, objs)).written).toBe(3);
  });

  it('takes over a tree an earlier version wrote (marker in kustomization.yaml): its listed files are its own', async () => {
    fs.mkdirSync(path.join(tmp, 'd/_cluster'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'd/_cluster/namespace-old.yaml'), 'x');
    fs.writeFileSync(path.join(tmp, 'd/notes.txt'), 'mine');
    fs.writeFileSync(
      path.join(tmp, 'd/kustomization.yaml'),
      '# Generated by cozy-gw render: do not edit, re-run the command. The whole directory is replaced on each run.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - _cluster/namespace-old.yaml\n  - ../../etc/passwd\n',
    );
    const r = await writeOutputDir('d', tmp, objs);
    expect(r.removed).toEqual(['_cluster/namespace-old.yaml']);
    expect(r.left).toEqual(['notes.txt']);
  });

  it('a tampered record cannot make it remove anything outside the directory', async () => {
    fs.writeFileSync(path.join(tmp, 'victim'), 'keep');
    fs.mkdirSync(path.join(tmp, 'd'));
    fs.writeFileSync(
      path.join(tmp, 'd', RECORD),
      '# cozy-gw output tree: the files cozy-gw wrote here, which the next run replaces or removes. Do not edit.\n../victim\n/etc/hostname\n',
    );
    await writeOutputDir('d', tmp, objs);
    expect(fs.readFileSync(path.join(tmp, 'victim'), 'utf8')).toBe('keep');
  });

  it("refuses to replace a user's file at a path of its own", async () => {
    await writeOutputDir('d', tmp, objs);
    fs.writeFileSync(path.join(tmp, 'd/_cluster/namespace-tenant-b.yaml'), 'mine');
    expect(await findingOf(() => writeOutputDir('d', tmp, [obj('Namespace', 'tenant-b')]))).toMatch(
      /namespace-tenant-b.yaml exists and cozy-gw did not write it/,
    );
    expect(fs.readFileSync(path.join(tmp, 'd/_cluster/namespace-tenant-b.yaml'), 'utf8')).toBe('mine');
    expect(fs.existsSync(path.join(tmp, 'd/tenant-a/secret-s.yaml'))).toBe(true);
  });

  it('never writes through a symbolic link in the tree', async () => {
    fs.mkdirSync(path.join(tmp, 'elsewhere'));
    await writeOutputDir('d', tmp, [obj('Namespace', 'x')]);
    fs.symlinkSync(path.join(tmp, 'elsewhere'), path.join(tmp, 'd/tenant-a'));
    expect(await findingOf(() => writeOutputDir('d', tmp, objs))).toMatch(
      /tenant-a is not a directory \(a symbolic link\)/,
    );
    expect(fs.readdirSync(path.join(tmp, 'elsewhere'))).toEqual([]);
  });

  it('a parent that is a file: one clean error, no debris', async () => {
    fs.writeFileSync(path.join(tmp, 'file'), 'x');
    expect(await findingOf(() => writeOutputDir('file/d', tmp, objs))).toMatch(/file is not a directory/);
    expect(tree(tmp)).toEqual(['file']);
    expect(await findingOf(() => writeOutputDir('file', tmp, objs))).toMatch(/is not a directory/);
  });

  const root = process.getuid?.() === 0;
  (root ? it.skip : it)(
    root
      ? skippedTitle('a read-only parent: one clean error, no debris', 'runs as root, who may write anywhere')
      : 'a read-only parent: one clean error, no debris',
    async () => {
      fs.mkdirSync(path.join(tmp, 'ro'));
      fs.chmodSync(path.join(tmp, 'ro'), 0o555);
      expect(await findingOf(() => writeOutputDir('ro/d', tmp, objs))).toMatch(
        /cannot write the tree: permission denied \(EACCES\)/,
      );
      expect(tree(tmp)).toEqual(['ro/']);
    },
  );

  it('a failure while writing leaves the directory as it was (a directory in the way of a file)', async () => {
    await writeOutputDir('d', tmp, objs);
    const before = tree(path.join(tmp, 'd'));
    const contents = fs.readFileSync(path.join(tmp, 'd/kustomization.yaml'), 'utf8');
    fs.mkdirSync(path.join(tmp, 'd/tenant-b'));
    // A directory where the new tree wants a file: refused before anything moves.
    fs.mkdirSync(path.join(tmp, 'd/tenant-b/secret-t.yaml'));
    expect(
      await findingOf(() =>
        writeOutputDir('d', tmp, [...objs, obj('Namespace', 'tenant-b'), obj('Secret', 't', 'tenant-b')]),
      ),
    ).toMatch(/secret-t.yaml is in the way/);
    expect(tree(path.join(tmp, 'd'))).toEqual([...before, 'tenant-b/', 'tenant-b/secret-t.yaml/'].sort());
    expect(fs.readFileSync(path.join(tmp, 'd/kustomization.yaml'), 'utf8')).toBe(contents);
  });

  it('honours the umask (no forced 0700)', async () => {
    const old = process.umask(0o022);
    try {
      await writeOutputDir('d', tmp, objs);
    } finally {
      process.umask(old);
    }
    expect(fs.statSync(path.join(tmp, 'd')).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(tmp, 'd/kustomization.yaml')).mode & 0o777).toBe(0o644);
  });

  it('writes into a mount point or any directory in place (it never renames the directory itself)', async () => {
    fs.mkdirSync(path.join(tmp, 'd'));
    const ino = fs.statSync(path.join(tmp, 'd')).ino;
    await writeOutputDir('d', tmp, objs);
    await writeOutputDir('d', tmp, objs);
    expect(fs.statSync(path.join(tmp, 'd')).ino).toBe(ino);
    expect(fs.readdirSync(tmp)).toEqual(['d']);
  });
});

describe('readTree: the record, in every format', () => {
  const objs = [obj('Namespace', 'tenant-a'), obj('Secret', 's', 'tenant-a')];
  const V1_HEADER =
    '# cozy-gw output tree: the files cozy-gw wrote here, which the next run replaces or removes. Do not edit.';

  it('format 4: every file, the object it holds and its digest, kustomization.yaml last', async () => {
    await writeOutputDir('d', tmp, objs);
    const t = readTree(path.join(tmp, 'd'))!;
    expect(t.format).toBe(4);
    // Written without a record of how: no shaping option, no Tenant.
    expect(t.making).toEqual({ shape: {}, tenants: [] });
    expect(t.fileFormat).toBe('yaml');
    expect(t.unfinished).toBe(false);
    expect(t.files.map((f) => [f.path, f.object])).toEqual([
      ['_cluster/namespace-tenant-a.yaml', { apiVersion: 'v1', kind: 'Namespace', name: 'tenant-a' }],
      ['tenant-a/secret-s.yaml', { apiVersion: 'v1', kind: 'Secret', namespace: 'tenant-a', name: 's' }],
      ['kustomization.yaml', undefined],
    ]);
    for (const f of t.files) {
      const bytes = fs.readFileSync(path.join(tmp, 'd', f.path));
      expect([f.path, f.sha256]).toEqual([f.path, createHash('sha256').update(bytes).digest('hex')]);
    }
    // Content-addressed: the same tree, the same record, byte for byte.
    const record = fs.readFileSync(path.join(tmp, 'd', RECORD), 'utf8');
    await writeOutputDir('d', tmp, objs);
    expect(fs.readFileSync(path.join(tmp, 'd', RECORD), 'utf8')).toBe(record);
    await writeOutputDir('j', tmp, objs, { format: 'json' });
    expect(readTree(path.join(tmp, 'j'))!.fileFormat).toBe('json');
  });

  it('format 4 holds how the tree was written and the Tenants, in the stable order; they count in the id', async () => {
    const tenant = (name: string, namespace: string) => ({
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name, namespace },
      spec: { gateway: true },
    });
    const making = {
      shape: { includeHooks: true, apiVersions: ['v1.edp.epam.com/v1'], gatewayOnly: false },
      tenants: [tenant('b', 'tenant-root'), tenant('a', 'tenant-root')],
    };
    await writeOutputDir('m', tmp, objs, { making });
    const t = readTree(path.join(tmp, 'm'))!;
    expect(t.making).toEqual({
      shape: { includeHooks: true, apiVersions: ['v1.edp.epam.com/v1'] },
      tenants: [tenant('a', 'tenant-root'), tenant('b', 'tenant-root')],
    });
    await writeOutputDir('n', tmp, objs);
    expect(readTree(path.join(tmp, 'n'))!.id).not.toBe(t.id);
  });

  it('format 1 (the record of earlier versions): its paths; the next run reads it and writes format 4', async () => {
    await writeOutputDir('d', tmp, objs);
    fs.writeFileSync(
      path.join(tmp, 'd', RECORD),
      `${V1_HEADER}\n_cluster/namespace-tenant-a.yaml\ntenant-a/secret-s.yaml\nkustomization.yaml\n../escape\n`,
    );
    const t = readTree(path.join(tmp, 'd'))!;
    expect(t.format).toBe(1);
    expect(t.files).toEqual([
      { path: '_cluster/namespace-tenant-a.yaml' },
      { path: 'tenant-a/secret-s.yaml' },
      { path: 'kustomization.yaml' },
    ]);
    const r = await writeOutputDir('d', tmp, [objs[0]]);
    expect(r.removed).toEqual(['tenant-a/secret-s.yaml']);
    expect(readTree(path.join(tmp, 'd'))!.format).toBe(4);
  });

  it('format 4 indexes the files release by release: each block where the head says, its digest there, the head alone enough to find one', async () => {
    const three = [...objs, obj('Namespace', 'tenant-b'), obj('Secret', 's', 'tenant-b'), obj('Policy', 'p')];
    const releaseOf = (o: KObject) => (o.kind === 'Policy' ? '' : (o.metadata.namespace ?? o.metadata.name));
    const info = new Map([
      ['tenant-b', { inputs: 'b' }],
      ['tenant-a', { inputs: 'a' }],
    ]);
    await writeOutputDir('d', tmp, three, { releases: { of: releaseOf, info } });
    const bytes = fs.readFileSync(path.join(tmp, 'd', RECORD));
    const t = readTree(path.join(tmp, 'd'))!;
    // The blocks in the order given, '' (no release) last; each block in output order.
    expect(t.releases!.map((r) => [r.namespace, r.info, r.block.files])).toEqual([
      ['tenant-b', { inputs: 'b' }, 2],
      ['tenant-a', { inputs: 'a' }, 2],
      ['', {}, 1],
    ]);
    expect(t.files.map((f) => f.path)).toEqual([
      '_cluster/namespace-tenant-b.yaml',
      'tenant-b/secret-s.yaml',
      '_cluster/namespace-tenant-a.yaml',
      'tenant-a/secret-s.yaml',
      '_cluster/policy-p.yaml',
      'kustomization.yaml',
    ]);
    const len = headLength(bytes)!;
    const head = parseRecordHead(bytes.subarray(0, len.prefix + len.head))!;
    expect(head.releases).toEqual(t.releases);
    expect(head.id).toBe(t.id);
    for (const r of head.releases) {
      const at = head.bodyOffset + r.block.offset;
      const block = bytes.subarray(at, at + r.block.bytes);
      expect([r.namespace, createHash('sha256').update(block).digest('hex')]).toEqual([r.namespace, r.digest]);
      expect([r.namespace, blockFiles(block).length]).toEqual([r.namespace, r.block.files]);
    }
    // The id is the head's digest (the blocks' digests in it).
    expect(
      createHash('sha256')
        .update(bytes.subarray(len.prefix, len.prefix + len.head))
        .digest('hex'),
    ).toBe(t.id);
  });

  it('format 3 (the record of the version before): its files, shape and Tenants are read; the next run writes format 4', async () => {
    await writeOutputDir('d', tmp, objs);
    const lines = [
      '{"shape":{"includeHooks":true}}',
      '{"tenant":{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Tenant","metadata":{"name":"a","namespace":"tenant-root"},"spec":{}}}',
      '["_cluster/namespace-tenant-a.yaml","x","v1","Namespace","","tenant-a"]',
      '["tenant-a/secret-s.yaml","y","v1","Secret","tenant-a","s"]',
      '["kustomization.yaml","z"]',
    ].join('\n');
    fs.writeFileSync(
      path.join(tmp, 'd', RECORD),
      `# cozy-gw output tree (record format 3): how the tree was written, the Tenants it was rendered from, and the files cozy-gw wrote here, which the next run replaces or removes. Do not edit.\n{"format":3,"files":"yaml","id":"i"}\n${lines}\n`,
    );
    const t = readTree(path.join(tmp, 'd'))!;
    expect([t.format, t.making?.shape, t.making?.tenants.length, t.files.map((f) => f.path)]).toEqual([
      3,
      { includeHooks: true },
      1,
      ['_cluster/namespace-tenant-a.yaml', 'tenant-a/secret-s.yaml', 'kustomization.yaml'],
    ]);
    await writeOutputDir('d', tmp, objs);
    expect(readTree(path.join(tmp, 'd'))!.format).toBe(4);
  });

  it('format 0 (no record, the marker in kustomization.yaml): its resources and kustomization.yaml', async () => {
    fs.mkdirSync(path.join(tmp, 'd'));
    fs.writeFileSync(
      path.join(tmp, 'd/kustomization.yaml'),
      '# Generated by cozy-gw render: do not edit, re-run the command.\nresources:\n  - _cluster/namespace-old.yaml\n',
    );
    expect(readTree(path.join(tmp, 'd'))).toEqual({
      format: 0,
      files: [{ path: '_cluster/namespace-old.yaml' }, { path: 'kustomization.yaml' }],
      unfinished: false,
    });
  });

  it('a directory cozy-gw did not write has no record', async () => {
    fs.mkdirSync(path.join(tmp, 'd'));
    fs.writeFileSync(path.join(tmp, 'd', RECORD), 'not a record\n');
    expect(readTree(path.join(tmp, 'd'))).toBeUndefined();
    expect(readTree(path.join(tmp, 'missing'))).toBeUndefined();
  });

  it('isTreeBookkeeping: the kustomization and hidden names, never an object file', async () => {
    for (const f of ['kustomization.yaml', 'd/Kustomization', RECORD, 'd/.git'])
      expect([f, isTreeBookkeeping(f)]).toEqual([f, true]);
    for (const f of ['_cluster/namespace-a.yaml', 'tenant-a/secret-s.json'])
      expect([f, isTreeBookkeeping(f)]).toEqual([f, false]);
  });
});

describe('cozy-gw render --output-dir', () => {
  it('names what it left and what it removed on stderr', async () => {
    const args = [
      'render',
      '--values',
      path.join(ROOT, 'examples/platform/values.yaml'),
      '-f',
      path.join(ROOT, 'examples/platform/tenants/root.yaml'),
      '--output-dir',
      'deploy',
    ];
    expect((await runCli(args, { cwd: tmp })).code).toBe(0);
    fs.writeFileSync(path.join(tmp, 'deploy/README.md'), 'mine');
    const r = await runCli(args, { cwd: tmp });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('note: left 1 entry cozy-gw did not write: README.md');
    const r2 = await runCli(
      ['render', '--values', path.join(ROOT, 'examples/platform/values.yaml'), '--output-dir', 'deploy'],
      { cwd: tmp },
    );
    expect(r2.code).toBe(0);
    expect(r2.stderr).toMatch(/note: removed 1 file an earlier run wrote: tenant-root\/tenantgateway-cozystack.yaml/);
  });
  it('refuses --output-dir . in a directory it has not written, exit 1, nothing written', async () => {
    const r = await runCli(
      ['render', '--values', path.join(ROOT, 'examples/platform/values.yaml'), '--output-dir', '.'],
      { cwd: tmp },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: --output-dir \. is the working directory/);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

describe('a hostile or damaged work area (a repository can commit anything)', () => {
  const objs = [obj('Namespace', 'tenant-a'), obj('Secret', 's', 'tenant-a')];

  it('a work area that is a link to elsewhere: the link goes, nothing outside is touched', async () => {
    await writeOutputDir('d', tmp, objs);
    fs.mkdirSync(path.join(tmp, 'outside/new/tenant-a'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'outside/new/tenant-a/secret-s.yaml'), 'precious\n');
    fs.writeFileSync(
      path.join(tmp, 'outside/journal'),
      '{"id":"x","pid":1,"started":"","mkdirs":[],"moves":[],"aside":[]}\n',
    );
    fs.symlinkSync('../outside', path.join(tmp, 'd', WORK));
    const notes: string[] = [];
    await writeOutputDir('d', tmp, [objs[0]], { note: (l) => notes.push(l) });
    expect(fs.existsSync(path.join(tmp, 'd', WORK))).toBe(false);
    expect(fs.readFileSync(path.join(tmp, 'outside/new/tenant-a/secret-s.yaml'), 'utf8')).toBe('precious\n');
    expect(fs.readFileSync(path.join(tmp, 'outside/journal'), 'utf8')).toMatch(/^\{"id"/);
  });

  it('a journal naming paths outside DIR is not a journal; one naming a user file with other bytes never moves it', async () => {
    await writeOutputDir('d', tmp, objs);
    fs.writeFileSync(path.join(tmp, 'victim'), 'keep\n');
    fs.writeFileSync(path.join(tmp, 'd/README.md'), 'mine\n');
    fs.mkdirSync(path.join(tmp, 'd', WORK, 'new'), { recursive: true });
    fs.writeFileSync(
      path.join(tmp, 'd', WORK, 'journal'),
      JSON.stringify({ id: 'x', pid: 1, started: '', mkdirs: [], moves: [['../victim', 'aa']], aside: ['../victim'] }),
    );
    const notes: string[] = [];
    await writeOutputDir('d', tmp, objs, { note: (l) => notes.push(l) });
    expect(notes).toEqual([expect.stringMatching(/removed the work area of an interrupted cozy-gw run/)]);
    expect(fs.readFileSync(path.join(tmp, 'victim'), 'utf8')).toBe('keep\n');

    fs.mkdirSync(path.join(tmp, 'd', WORK, 'new'), { recursive: true });
    fs.writeFileSync(
      path.join(tmp, 'd', WORK, 'journal'),
      JSON.stringify({ id: 'x', pid: 1, started: '', mkdirs: [], moves: [['README.md', '0'.repeat(64)]], aside: [] }),
    );
    notes.length = 0;
    const r = await writeOutputDir('d', tmp, objs, { note: (l) => notes.push(l) });
    expect(notes).toEqual([expect.stringMatching(/rolled back an interrupted cozy-gw run/)]);
    expect(fs.readFileSync(path.join(tmp, 'd/README.md'), 'utf8')).toBe('mine\n');
    expect(r.left).toEqual(['README.md']);
    expect(fs.readdirSync(path.join(tmp, 'd')).sort()).toEqual([
      RECORD,
      'README.md',
      '_cluster',
      'kustomization.yaml',
      'tenant-a',
    ]);
  });

  it('readTree says when a run is writing the tree or left it unfinished', async () => {
    await writeOutputDir('d', tmp, objs);
    expect(readTree(path.join(tmp, 'd'))!.unfinished).toBe(false);
    fs.mkdirSync(path.join(tmp, 'd', WORK));
    expect(readTree(path.join(tmp, 'd'))!.unfinished).toBe(true);
  });
});
