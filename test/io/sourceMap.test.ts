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
  it('keeps the bytes a file was read as, never encoding its text again; lines are found in them', () => {
    const big = `${'# ünïcödé padding, read and kept as its bytes\n'.repeat(30_000)}${tenant(0)}`;
    const files = { 'a.yaml': tenant(2), 'b.yaml': big, 'c.yaml': `# \u{1F600}\n${tenant(1)}` };
    const write = jest.spyOn(Buffer.prototype, 'write');
    const byteLength = jest.spyOn(Buffer, 'byteLength');
    let read: ReturnType<typeof readInputs>;
    try {
      read = readInputs(['.'], { cwd: dir(files) });
      expect([write.mock.calls.length, byteLength.mock.calls.length]).toEqual([0, 0]);
    } finally {
      write.mockRestore();
      byteLength.mockRestore();
    }
    const lines = read.objects.map((o) => [read.sources.originOf(o)?.file, read.sources.lineOf(o, 'spec.gateway')]);
    expect(lines).toEqual([
      ['a.yaml', 9],
      ['b.yaml', 30_000 + 7],
      ['c.yaml', 9],
    ]);
  });
  it('gives back a text as it was decoded, invalid UTF-8 included, whether added with its bytes or not', () => {
    const bytes = Buffer.concat([Buffer.from(tenant(1)), Buffer.from([0xff, 0xfe, 0x0a])]);
    const text = bytes.toString('utf8');
    const withBytes = new SourceMap();
    const withoutBytes = new SourceMap();
    withBytes.addText('t.yaml', text, bytes);
    withoutBytes.addText('t.yaml', text);
    const doc = { apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name: 'bob' } };
    for (const m of [withBytes, withoutBytes]) m.addObject(doc as never, { file: 't.yaml', doc: 0, path: [] });
    expect([withBytes.lineOf(doc, 'spec.gateway'), withoutBytes.lineOf(doc, 'spec.gateway')]).toEqual([8, 8]);
  });
});
