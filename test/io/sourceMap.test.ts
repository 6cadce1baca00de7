/**
 * The readers return the objects with a source map; nothing about sources is kept in module
 * state, and findings are placed at file and line only at the CLI edge (locate), from that map.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readInputs, readValuesFiles, SourceMap } from '../../src/io/inputs';
import { locate } from '../../src/cli/context';
import { formatFinding } from '../../src/k8s/diagnostics';
import { validateTenant } from '../../src/validation/inputValidation';
import { render } from '../../src/pipelines/render';

const tenant = (pad: number) =>
  `${'# pad\n'.repeat(pad)}apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: bob\n  namespace: tenant-root\nspec:\n  gateway: "yes"\n`;

function dir(files: Record<string, string>): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-srcmap-'));
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(d, f), text);
  return d;
}

describe('the source map', () => {
  it('is returned by the reader, one per read: the same path read twice with other text gets its own lines', () => {
    const a = readInputs(['t.yaml'], { cwd: dir({ 't.yaml': tenant(0) }) });
    const b = readInputs(['t.yaml'], { cwd: dir({ 't.yaml': tenant(3) }) });
    expect(a.sources.lineOf(a.objects[0], 'spec.gateway')).toBe(7);
    expect(b.sources.lineOf(b.objects[0], 'spec.gateway')).toBe(10);
    // the first map still answers for its own read
    expect(a.sources.lineOf(a.objects[0], 'spec.gateway')).toBe(7);
    expect(a.sources.lineOf(b.objects[0])).toBeUndefined();
  });

  it('the core names the object and the field, never a file or a line; locate places it from the map', () => {
    const { objects, sources } = readInputs(['t.yaml'], { cwd: dir({ 't.yaml': tenant(2) }) });
    const [f] = validateTenant(objects[0]);
    expect(f.file).toBeUndefined();
    expect(f.line).toBeUndefined();
    expect(f).toMatchObject({ field: 'spec.gateway', object: { kind: 'Tenant', name: 'bob' } });
    expect(formatFinding(locate(f, sources))).toBe(
      'error: t.yaml:9: Tenant tenant-root/bob: spec.gateway: must be a boolean, got "yes" (write true or false, unquoted)',
    );
    expect(locate(f, undefined)).toBe(f);
  });

  it('a finding on a platform value says where the value is set, line included, only at the edge', () => {
    const cwd = dir({
      'values.yaml': 'publishing:\n  host: example.org\n',
      'solver.yaml': 'publishing:\n  certificates:\n    solver: http02\n',
      'root.yaml':
        'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: root\n  namespace: tenant-root\nspec:\n  gateway: true\n',
    });
    const { objects, sources } = readInputs(['root.yaml'], { cwd });
    const { values } = readValuesFiles(['values.yaml', 'solver.yaml'], { cwd, sources });
    const r = render({ objects, valuesFiles: values });
    const f = r.findings.find((x) => x.rule === 'gateway.unsupported-solver')!;
    expect(f.valueAt).toEqual({
      value: 'publishing.certificates.solver',
      file: 'solver.yaml',
      field: 'publishing.certificates.solver',
    });
    expect(formatFinding(f)).toMatch(/publishing\.certificates\.solver is set at solver\.yaml\)$/);
    expect(formatFinding(locate(f, sources))).toMatch(
      /^error: root\.yaml:1: Tenant tenant-root\/root: .*publishing\.certificates\.solver is set at solver\.yaml:3\)$/,
    );
  });
  it('keeps every text, however many, large, small, empty or not ASCII: each line is still found', () => {
    // The texts are kept as UTF-8 in blocks of 4 MiB outside the heap (sourceMap.ts, TextStore):
    // a text larger than a block, texts across a block's end, an empty file and two-byte text.
    const big = `${'# padding of a large file, read and kept whole\n'.repeat(110_000)}${tenant(0)}`;
    const files: Record<string, string> = { 'a-empty.yaml': '', 'b-big.yaml': big };
    for (let i = 0; i < 40; i++) files[`c-${String(i).padStart(2, '0')}.yaml`] = `# ünïcödé ✓ ${i}\n${tenant(i % 4)}`;
    const { objects, sources } = readInputs(['.'], { cwd: dir(files) });
    expect(big.length).toBeGreaterThan(4 << 20);
    const lines = objects.map((o) => [sources.originOf(o)?.file, sources.lineOf(o, 'spec.gateway')]);
    expect(lines[0]).toEqual(['b-big.yaml', 110_000 + 7]);
    for (let i = 0; i < 40; i++)
      expect([i, ...lines[i + 1]]).toEqual([i, `c-${String(i).padStart(2, '0')}.yaml`, 8 + (i % 4)]);
  });
  it('keeps no text of a regular file: a line is found by reading it again, never encoding or copying it', () => {
    const big = `${'# ünïcödé padding\n'.repeat(30_000)}${tenant(0)}`;
    const files = { 'a.yaml': tenant(2), 'b.yaml': big, 'c.yaml': `# \u{1F600}\n${tenant(1)}` };
    const write = jest.spyOn(Buffer.prototype, 'write');
    const copy = jest.spyOn(Buffer.prototype, 'copy');
    let read: ReturnType<typeof readInputs>;
    try {
      read = readInputs(['.'], { cwd: dir(files) });
      expect([write.mock.calls.length, copy.mock.calls.length]).toEqual([0, 0]);
    } finally {
      write.mockRestore();
      copy.mockRestore();
    }
    const lines = read.objects.map((o) => [read.sources.originOf(o)?.file, read.sources.lineOf(o, 'spec.gateway')]);
    expect(lines).toEqual([
      ['a.yaml', 9],
      ['b.yaml', 30_000 + 7],
      ['c.yaml', 9],
    ]);
  });
  it('a file changed since it was read gives no line (it would not be the line read); the others still do', () => {
    const cwd = dir({ 'a.yaml': tenant(2), 'b.yaml': tenant(3) });
    const { objects, sources } = readInputs(['.'], { cwd });
    fs.writeFileSync(path.join(cwd, 'a.yaml'), `# one line more\n${tenant(2)}`);
    expect(objects.map((o) => sources.lineOf(o, 'spec.gateway'))).toEqual([undefined, 10]);
    fs.rmSync(path.join(cwd, 'b.yaml'));
    expect(sources.lineOf(objects[1], 'spec.gateway')).toBe(10); // looked up once, kept
  });
  it('reads a file again once for all the lines asked for in it, JSON or YAML', () => {
    const list = JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [0, 1, 2].map((i) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `n${i}` } })),
      },
      null,
      2,
    );
    const yaml = [0, 1, 2].map((i) => tenant(i)).join('---\n');
    const cwd = dir({ 'l.json': list, 'y.yaml': yaml });
    const { objects, sources } = readInputs(['.'], { cwd });
    // The lines the names stand on, found in the texts themselves.
    const linesOf = (text: string, re: RegExp) => text.split('\n').flatMap((l, i) => (re.test(l) ? [i + 1] : []));
    const expected = [...linesOf(list, /"name": "n\d"/), ...linesOf(yaml, /^ {2}name: bob$/)];
    expect(expected).toHaveLength(6);
    // Each read again is one buffer of the file's size and a byte more (src/io/stdin.ts: a file that grew is seen).
    const alloc = jest.spyOn(Buffer, 'allocUnsafe');
    try {
      expect(objects.map((o) => sources.lineOf(o, 'metadata.name'))).toEqual(expected);
      expect(alloc.mock.calls.map((c) => c[0])).toEqual([Buffer.byteLength(list) + 1, Buffer.byteLength(yaml) + 1]);
    } finally {
      alloc.mockRestore();
    }
  });
  it('keeps the text of standard input, which cannot be read again', () => {
    const { objects, sources } = readInputs(['-'], { readStdin: () => tenant(4) });
    expect(sources.lineOf(objects[0], 'spec.gateway')).toBe(11);
  });
  it('gives back a text handed in as it is, invalid UTF-8 included', () => {
    const text = Buffer.concat([Buffer.from(tenant(1)), Buffer.from([0xff, 0xfe, 0x0a])]).toString('utf8');
    const m = new SourceMap();
    m.addText('t.yaml', text);
    const doc = { apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name: 'bob' } };
    m.addObject(doc as never, { file: 't.yaml', doc: 0, path: [] });
    expect(m.lineOf(doc, 'spec.gateway')).toBe(8);
  });
});
