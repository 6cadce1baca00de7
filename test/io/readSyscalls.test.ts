/**
 * System calls per input file: a committed tree is read file by file (tens of thousands for a
 * `diff --state DIR` of a large platform), so a regular file costs one read, and a directory's
 * regular files no stat of their own (the listing gives their type). The bound and the refusal of
 * FIFOs and devices inside a directory stay as test/io/boundedRead.test.ts holds them.
 */
import * as os from 'node:os';
import * as path from 'node:path';

// The readers see node:fs through this pass-through, which counts the calls.
jest.mock('node:fs', () => {
  const real = jest.requireActual<typeof import('node:fs')>('node:fs');
  return {
    ...real,
    readSync: jest.fn(real.readSync),
    statSync: jest.fn(real.statSync),
    openSync: jest.fn(real.openSync),
  };
});
import * as fs from 'node:fs';
import { readFdBounded, readFileBounded } from '../../src/io/stdin';
import { readInputs } from '../../src/io/inputs';
import { MAX_SOURCE_BYTES } from '../../src/k8s/limits';

const TENANT =
  'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: alice, namespace: tenant-root}\n';
const readSync = fs.readSync as unknown as jest.Mock;
const statSync = fs.statSync as unknown as jest.Mock;
const openSync = fs.openSync as unknown as jest.Mock;

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-syscalls-'));
}

beforeEach(() => {
  readSync.mockClear();
  statSync.mockClear();
  openSync.mockClear();
});

it('reads a regular file with one read: a short first read is its end', () => {
  const file = path.join(tmp(), 'one.yaml');
  fs.writeFileSync(file, TENANT);
  expect(readFileBounded(file)).toBe(TENANT);
  expect(readSync).toHaveBeenCalledTimes(1);
});

it('reads on when the file grew past the size it had when looked at', () => {
  const file = path.join(tmp(), 'grows.yaml');
  fs.writeFileSync(file, 'a: b\n'.repeat(100));
  const fd = fs.openSync(file, 'r');
  try {
    fs.appendFileSync(file, 'c: d\n'.repeat(100));
    // 500 bytes is the size seen before it grew: the first read fills its buffer, so it reads on.
    expect(readFdBounded(fd, MAX_SOURCE_BYTES, 500)).toBe('a: b\n'.repeat(100) + 'c: d\n'.repeat(100));
    expect(readSync.mock.calls.length).toBeGreaterThan(1);
  } finally {
    fs.closeSync(fd);
  }
});

it('lists a directory of regular files with no stat per file', () => {
  const dir = tmp();
  for (const n of ['a', 'b', 'c']) fs.writeFileSync(path.join(dir, `${n}.yaml`), TENANT.replace('alice', n));
  const { objects } = readInputs([dir], { cwd: dir });
  expect(objects.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
  // The directory itself is looked at; its entries' types come with the listing.
  expect(statSync.mock.calls.map((c) => String(c[0]))).toEqual([dir]);
});

it('still looks at what a link in a directory points to', () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'real.txt'), TENANT);
  fs.symlinkSync(path.join(dir, 'real.txt'), path.join(dir, 'link.yaml'));
  const { objects } = readInputs([dir], { cwd: dir });
  expect(objects.map((o) => o.metadata.name)).toEqual(['alice']);
  expect(statSync.mock.calls.map((c) => path.basename(String(c[0])))).toEqual([path.basename(dir), 'link.yaml']);
});

it('opens a JSON List file once (read item by item), a YAML file once, and a List it declines twice', () => {
  const dir = tmp();
  const list = (extra: string) =>
    JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'List',
        items: ['a', 'b', 'c'].map((name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })),
      },
      null,
      4,
    ).replace('"kind": "ConfigMap",', `"kind": "ConfigMap",${extra}`);
  const files = {
    'list.json': list(''),
    'tenant.yaml': TENANT,
    // js-yaml refuses a repeated key: the whole text is read again, for its error and its line.
    'repeated.json': list(' "kind": "ConfigMap",'),
  };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const read = (name: string) => {
    openSync.mockClear();
    let got: unknown;
    try {
      got = readInputs([name], { cwd: dir }).objects.length;
    } catch (e) {
      got = (e as { findings: { rule: string }[] }).findings.map((f) => f.rule);
    }
    return { name, got, opens: openSync.mock.calls.filter((c) => c[0] === path.join(dir, name)).length };
  };
  expect(read('list.json')).toEqual({ name: 'list.json', got: 3, opens: 1 });
  expect(read('tenant.yaml')).toEqual({ name: 'tenant.yaml', got: 1, opens: 1 });
  expect(read('repeated.json')).toEqual({ name: 'repeated.json', got: ['input.syntax'], opens: 2 });
});
