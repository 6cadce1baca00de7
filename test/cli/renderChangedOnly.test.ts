/**
 * `render --output-dir DIR` into a committed tree, changed-only (src/cli/treeRender.ts,
 * docs/performance.md "Changed-only"): after a change, the tree and its record are those a whole
 * render writes into an empty directory, byte for byte; and the releases the change does not reach
 * are kept as the record has them (a mark put into one of their record lines survives the run,
 * which a whole render would write anew), or, for a change of the whole platform, are not.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { ROOT, runCli, STACK_FRAME } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';

let dir = '';
beforeAll(() => {
  dir = tmpDir('render-changed-only');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const TENANTS = ['root.yaml', 'alice.yaml', 'bob.yaml', 'carol.yaml'];
const VALUES = path.join(ROOT, 'examples/platform/values.yaml');
const RECORD = '.cozy-gw-files';
/** The release the changes below do not reach (bob's subtree has its own Gateway). */
const KEPT = 'tenant-bob-shop';

const render = async (cwd: string, out: string, extra: string[] = []) => {
  const r = await runCli(['render', '--values', VALUES, '-f', 'tenants', '--output-dir', out, ...extra], { cwd });
  expect(r.stderr).not.toMatch(STACK_FRAME);
  expect([out, r.code]).toEqual([out, 0]);
  return r;
};

/** Every file under `d` (the record too), path → bytes. */
function treeOf(d: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(d, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else out.set(r, fs.readFileSync(path.join(d, r), 'latin1'));
    }
  };
  walk('');
  return out;
}

/** A mark in KEPT's record line (its header's head length and id made anew, so that the record stays whole). */
function mark(tree: string): void {
  const file = path.join(tree, RECORD);
  const bytes = fs.readFileSync(file);
  const a = bytes.indexOf(0x0a);
  const b = bytes.indexOf(0x0a, a + 1);
  const header = JSON.parse(bytes.toString('utf8', a + 1, b)) as { id: string; head: number };
  const headText = bytes.toString('utf8', b + 1, b + 1 + header.head);
  const at = `{"namespace":"${KEPT}",`;
  expect(headText).toContain(at);
  const head = headText.replace(at, `${at}"kept":true,`);
  const id = createHash('sha256').update(head).digest('hex');
  const next = JSON.stringify({ ...header, id, head: Buffer.byteLength(head) });
  fs.writeFileSync(
    file,
    Buffer.concat([bytes.subarray(0, a + 1), Buffer.from(`${next}\n${head}`), bytes.subarray(b + 1 + header.head)]),
  );
}

/** The cases: a change of the tenants' files (or of the values), and whether the kept release is kept. */
const CASES: { name: string; change: (cwd: string) => void; extra?: string[]; kept: boolean }[] = [
  {
    name: "a quota of alice's",
    change: (cwd) => edit(cwd, 'alice.yaml', /cert-manager\.io: "10"/, 'cert-manager.io: "20"'),
    kept: true,
  },
  {
    // New files in carol's own folder only (a ResourceQuota and a LimitRange): the tree's order and
    // kustomization.yaml are the record's with carol's run of her folder replaced.
    name: 'a quota added to carol',
    change: (cwd) =>
      edit(cwd, 'carol.yaml', /^ {2}gateway: true$/m, '  gateway: true\n  resourceQuotas:\n    cpu: "4"'),
    kept: true,
  },
  {
    name: 'alice gets her own Gateway',
    change: (cwd) => edit(cwd, 'alice.yaml', /^ {2}gateway: false.*$/m, '  gateway: true'),
    kept: true,
  },
  {
    name: 'a tenant added under alice',
    change: (cwd) =>
      fs.appendFileSync(
        path.join(cwd, 'tenants', 'alice.yaml'),
        '---\napiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: qa\n  namespace: tenant-alice\nspec: {}\n',
      ),
    kept: true,
  },
  {
    name: 'carol removed',
    change: (cwd) => fs.rmSync(path.join(cwd, 'tenants', 'carol.yaml')),
    kept: true,
  },
  {
    name: 'the platform values (the whole platform)',
    change: () => undefined,
    extra: ['--set', 'publishing.host=other.example.org'],
    kept: false,
  },
];

function edit(cwd: string, file: string, from: RegExp, to: string): void {
  const p = path.join(cwd, 'tenants', file);
  const text = fs.readFileSync(p, 'utf8');
  expect(text).toMatch(from);
  fs.writeFileSync(p, text.replace(from, to));
}

describe('render into a committed tree, changed-only', () => {
  it.each(CASES)('$name: the tree a whole render writes, the releases it does not reach kept', async (c) => {
    const cwd = path.join(dir, c.name.replace(/[^a-z]+/gi, '-'));
    fs.mkdirSync(path.join(cwd, 'tenants'), { recursive: true });
    for (const t of TENANTS)
      fs.copyFileSync(path.join(ROOT, 'examples/platform/tenants', t), path.join(cwd, 'tenants', t));
    await render(cwd, 'tree');
    await render(cwd, 'marked');
    mark(path.join(cwd, 'marked'));
    c.change(cwd);
    const again = await render(cwd, 'tree', c.extra);
    await render(cwd, 'marked', c.extra);
    const whole = await render(cwd, 'whole', c.extra);
    // The same tree and record as a whole render's into an empty directory, and the same findings.
    const [got, want] = [treeOf(path.join(cwd, 'tree')), treeOf(path.join(cwd, 'whole'))];
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [rel, bytes] of want) expect([rel, got.get(rel)]).toEqual([rel, bytes]);
    expect(again.stderr.split('\n')[0]).toBe(whole.stderr.split('\n')[0]);
    // Every file of the tree is the tree's: none is named as an entry cozy-gw did not write.
    expect(again.stderr).not.toMatch(/left \d+ entr/);
    // Changed-only: the kept release's line as the record had it.
    const record = fs.readFileSync(path.join(cwd, 'marked', RECORD), 'utf8');
    expect([c.name, record.includes('"kept":true')]).toEqual([c.name, c.kept]);
  });
});

describe('the files a changed-only render keeps, and --full', () => {
  it.each([
    ['a kept file removed', (f: string) => fs.rmSync(f)],
    ['a kept file made a folder', (f: string) => (fs.rmSync(f), fs.mkdirSync(f))],
    [
      'a kept folder made a link to its copy',
      (f: string) => {
        const folder = path.dirname(f);
        fs.cpSync(folder, `${folder}.copy`, { recursive: true });
        fs.rmSync(folder, { recursive: true });
        fs.symlinkSync(`${folder}.copy`, folder);
      },
    ],
  ])('%s: the run is a whole one, and the tree is what a whole render writes', async (_, damage) => {
    const cwd = path.join(dir, `damaged-${_.replace(/ /g, '-')}`);
    fs.mkdirSync(path.join(cwd, 'tenants'), { recursive: true });
    for (const t of TENANTS)
      fs.copyFileSync(path.join(ROOT, 'examples/platform/tenants', t), path.join(cwd, 'tenants', t));
    await render(cwd, 'tree');
    const kept = path.join(cwd, 'tree', KEPT, fs.readdirSync(path.join(cwd, 'tree', KEPT)).sort()[0]);
    const bytes = fs.readFileSync(kept, 'utf8');
    damage(kept);
    edit(cwd, 'alice.yaml', /cert-manager\.io: "10"/, 'cert-manager.io: "20"');
    const r = await runCli(['render', '--values', VALUES, '-f', 'tenants', '--output-dir', 'tree'], { cwd });
    expect(r.stderr).not.toMatch(STACK_FRAME);
    // A changed-only run would keep the damage unseen, with the record as it was.
    if (r.code === 0) {
      expect(fs.lstatSync(kept).isFile()).toBe(true);
      expect(fs.readFileSync(kept, 'utf8')).toBe(bytes);
      await render(cwd, 'fresh');
      const [got, want] = [treeOf(path.join(cwd, 'tree')), treeOf(path.join(cwd, 'fresh'))];
      expect([...got.keys()]).toEqual([...want.keys()]);
      for (const [rel, text] of want) expect([rel, got.get(rel) === text]).toEqual([rel, true]);
    } else expect([r.code, r.stderr.includes(KEPT)]).toEqual([1, true]);
  });

  it('a kept file edited by hand is left unread, --full writes it again; one replaced by a link makes the run a whole one, which refuses it', async () => {
    const cwd = path.join(dir, 'kept-files');
    fs.mkdirSync(path.join(cwd, 'tenants'), { recursive: true });
    for (const t of TENANTS)
      fs.copyFileSync(path.join(ROOT, 'examples/platform/tenants', t), path.join(cwd, 'tenants', t));
    await render(cwd, 'tree');
    const tree = path.join(cwd, 'tree');
    const kept = fs.readdirSync(path.join(tree, KEPT)).sort();
    const [edited, linked] = [path.join(tree, KEPT, kept[0]), path.join(tree, KEPT, kept[1])];
    const [editedBytes, linkedBytes] = [fs.readFileSync(edited, 'utf8'), fs.readFileSync(linked, 'utf8')];
    fs.appendFileSync(edited, '# edited by hand\n');
    edit(cwd, 'alice.yaml', /cert-manager\.io: "10"/, 'cert-manager.io: "20"');
    // Changed-only: the other tenant's files are not read (the edit stays).
    const r = await render(cwd, 'tree');
    expect(r.stderr).toMatch(/^wrote \d+ files? to tree, \d+ unchanged/m);
    expect(fs.readFileSync(edited, 'utf8')).toBe(`${editedBytes}# edited by hand\n`);
    // --full reads every file: the edit is written again.
    await render(cwd, 'tree', ['--full']);
    expect(fs.readFileSync(edited, 'utf8')).toBe(editedBytes);
    // A link in place of a kept file: the whole render's writer meets it and refuses, naming it; never followed.
    const outside = path.join(cwd, 'outside.txt');
    fs.writeFileSync(outside, 'not the tree\n');
    fs.rmSync(linked);
    fs.symlinkSync(outside, linked);
    edit(cwd, 'alice.yaml', /cert-manager\.io: "20"/, 'cert-manager.io: "30"');
    const refused = await runCli(['render', '--values', VALUES, '-f', 'tenants', '--output-dir', 'tree'], { cwd });
    expect(refused.stderr).not.toMatch(STACK_FRAME);
    expect([refused.code, refused.stderr.includes(`${KEPT}/${kept[1]}`)]).toEqual([1, true]);
    expect(fs.readFileSync(outside, 'utf8')).toBe('not the tree\n');
    fs.rmSync(linked);
    await render(cwd, 'tree');
    expect(fs.readFileSync(linked, 'utf8')).toBe(linkedBytes);
  });
});
