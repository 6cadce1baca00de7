/**
 * Hostile input, round 4: one test per defect. Empty paths are usage errors (an unset `$OUT` never
 * means the working directory); fn's function config keys never reach a prototype; fn never puts a
 * new item into the file of a user's unmarked item; SOURCE_DATE_EPOCH past year 9999 is blamed on
 * itself; every rendering command refuses a Tenant the Tenants API would (docs/decisions.md §15).
 */
import * as jsyaml from 'js-yaml';
import { MIN_VALUES, ROOT_TENANT, runCli, STACK_FRAME, useScratch } from '../helpers/cli';

const s = useScratch('cozy-gw-round4-', { 'values.yaml': MIN_VALUES, 'tenants.yaml': ROOT_TENANT });

describe('an empty path is a usage error, never the working directory', () => {
  it.each([
    [['render', '--values', 'values.yaml', '-f', 'tenants.yaml', '--output-dir', ''], '--output-dir <dir>'],
    [['render', '--values', 'values.yaml', '-f', ''], '-f, --filename <path>'],
    [['render', '--values', '', '-f', 'tenants.yaml'], '--values <file>'],
    [['diff', '--values', 'values.yaml', '-f', 'tenants.yaml', '--state', ''], '--state <path>'],
    [['snapshot', '-o', ''], '-o, --output <file>'],
  ])('%j', async (args, option) => {
    const r = await s.cli(args);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain(`option '${option}' argument '' is invalid. the path is empty`);
  });
});

describe("fn's function config", () => {
  const resourceList = (data: Record<string, string>) =>
    jsyaml.dump({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      functionConfig: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fn' }, data },
      items: [jsyaml.load(ROOT_TENANT)],
    });
  afterEach(() => {
    // Whatever a failed run left, the next test starts clean.
    for (const k of ['x', 'gateway', 'y', 'z']) delete (Object.prototype as Record<string, unknown>)[k];
  });
  it('keys __proto__, constructor and prototype stay keys: nothing reaches a prototype', async () => {
    const r = await s.cli(
      ['fn'],
      resourceList({
        'publishing.host': 'example.org',
        '__proto__.x': '1',
        '__proto__.gateway': '{enabled: true}',
        'constructor.prototype.y': '2',
        'prototype.z': '3',
      }),
    );
    expect(STACK_FRAME.test(r.stderr)).toBe(false);
    expect(Object.getOwnPropertyNames(Object.prototype).filter((k) => ['x', 'gateway', 'y', 'z'].includes(k))).toEqual(
      [],
    );
    expect(r.code).toBe(0);
    const out = jsyaml.load(r.stdout) as { items: Record<string, unknown>[] };
    for (const it of out.items)
      expect([it.kind, Object.keys(it).filter((k) => ['x', 'gateway', 'y', 'z'].includes(k))]).toEqual([it.kind, []]);
  });
});

describe('fn never writes a new item into a user file', () => {
  it("a user's unmarked item at the path a new item would take keeps its file; the new item gets the next free one", async () => {
    const user = (path: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'mine',
        namespace: 'default',
        annotations: { 'internal.config.kubernetes.io/path': path, 'internal.config.kubernetes.io/index': '0' },
      },
      data: { a: 'b' },
    });
    const taken = ['cozy-gw/_cluster/namespace-tenant-root.yaml', './cozy-gw/_cluster/namespace-tenant-root-2.yaml'];
    const rl = jsyaml.dump({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      functionConfig: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'fn' },
        data: { 'publishing.host': 'example.org' },
      },
      items: [jsyaml.load(ROOT_TENANT), ...taken.map(user)],
    });
    const r = await s.cli(['fn'], rl);
    expect(r.code).toBe(0);
    const items = (
      jsyaml.load(r.stdout) as {
        items: { kind: string; metadata: { name: string; annotations?: Record<string, string> } }[];
      }
    ).items;
    const at = (it: (typeof items)[number]) =>
      `${it.metadata.annotations?.['internal.config.kubernetes.io/path']}#${it.metadata.annotations?.['internal.config.kubernetes.io/index']}`;
    const ns = items.find((it) => it.kind === 'Namespace' && it.metadata.name === 'tenant-root')!;
    expect(at(ns)).toBe('cozy-gw/_cluster/namespace-tenant-root-3.yaml#0');
    // No two items share a place.
    const places = items.map(at);
    expect(places.filter((p, i) => places.indexOf(p) !== i)).toEqual([]);
  });
});

describe('SOURCE_DATE_EPOCH past year 9999', () => {
  it('is blamed on SOURCE_DATE_EPOCH, not on --now', async () => {
    const r = await runCli(['render', '--with-controller', '--values', 'values.yaml', '-f', 'tenants.yaml'], {
      cwd: s.dir,
      env: { SOURCE_DATE_EPOCH: '253402300800' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/SOURCE_DATE_EPOCH="253402300800" is past 9999-12-31T23:59:59Z/);
    expect(r.stderr).not.toMatch(/--now "/);
  });
});

describe('every command that renders refuses a Tenant the Tenants API would (docs/decisions.md §15)', () => {
  const long = `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: ${'a'.repeat(47)}\n  namespace: tenant-root\n`;
  const message =
    /long\.yaml:4: Tenant tenant-root\/a{47}: metadata\.name: the Tenant name is 47 characters long: the Tenants API admits at most 46/;
  beforeEach(() => {
    s.write('long.yaml', long);
    s.write('state.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n');
  });
  it.each([
    [['render', '--values', 'values.yaml', '-f', 'long.yaml']],
    [['render', '--values', 'values.yaml', '-f', 'long.yaml', '--with-controller', '--output-dir', 'out']],
    [['diff', '--values', 'values.yaml', '-f', 'long.yaml', '--state', 'state.yaml']],
  ])('%j', async (args) => {
    const r = await s.cli(args);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(message);
  });
  it('fn', async () => {
    const rl = jsyaml.dump({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [
        {
          ...(jsyaml.load(long) as object),
          metadata: {
            name: 'a'.repeat(47),
            namespace: 'tenant-root',
            annotations: { 'internal.config.kubernetes.io/path': 'long.yaml' },
          },
        },
      ],
    });
    const r = await s.cli(['fn'], rl);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/the Tenant name is 47 characters long: the Tenants API admits at most 46/);
  });
});
