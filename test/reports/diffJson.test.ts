/**
 * `diff -o json` against its published schema (schemas/diff-output.schema.json), and the objects a
 * change makes inadmissible on their next write (src/diff/admissionLookahead.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { ROOT, stateArgs, TESTDATA, useScratch } from '../helpers/cli';
import { diffJson, diffJsonChunks } from '../../src/reports/diffOutput';
import type { DiffResult } from '../../src/diff/diff';
import type { KObject } from '../../src/k8s/model';

const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', 'diff-output.schema.json'), 'utf8')) as object;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

function expectValid(doc: unknown): void {
  const ok = validate(doc);
  expect({ ok, errors: validate.errors ?? [] }).toEqual({ ok: true, errors: [] });
}

const scratch = useScratch('cozy-gw-diff-json-', {
  'values.yaml':
    'publishing:\n  host: example.org\n  certificates: {solver: http01, issuerName: letsencrypt-prod}\ngateway:\n  enabled: true\n',
  'tenants.yaml':
    'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: root, namespace: tenant-root}\nspec: {gateway: true}\n---\n' +
    'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: bob, namespace: tenant-root}\nspec: {}\n',
  'routes.yaml':
    'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: shop, namespace: tenant-bob}\n' +
    'spec:\n  parentRefs: [{name: cozystack, namespace: tenant-root}]\n  hostnames: [shop.bob.example.org]\n',
  'bob.yaml':
    'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: bob, namespace: tenant-root}\nspec: {host: bob.customer1.io}\n',
});

/** `diff` of the state state() made against a change file, in one output format. */
const diffOf = (change: string, format: string) =>
  scratch.cli(['diff', '--state', 'state.yaml', '--values', 'values.yaml', '-f', change, '-o', format]);

async function state(): Promise<void> {
  const r = await scratch.cli(['render', '--values', 'values.yaml', '-f', 'tenants.yaml']);
  scratch.write('rendered.yaml', r.stdout);
  const s = await scratch.cli(stateArgs(['rendered.yaml', 'tenants.yaml', 'routes.yaml']));
  expect(s.code).toBe(0);
  scratch.write('state.yaml', s.stdout);
}

describe('diff -o json', () => {
  it('the golden JSON output validates against schemas/diff-output.schema.json', () => {
    expectValid(
      JSON.parse(fs.readFileSync(path.join(TESTDATA, 'golden', 'diff', 'json-conflict', 'expected'), 'utf8')),
    );
  });

  it('a tenant whose host moves: the route it leaves in place is inadmissible on its next write, and the JSON says so', async () => {
    await state();
    const r = await diffOf('bob.yaml', 'json');
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout) as { inadmissible: unknown[] };
    expectValid(out);
    expect(out.inadmissible).toEqual([
      {
        object: {
          apiVersion: 'gateway.networking.k8s.io/v1',
          kind: 'HTTPRoute',
          name: 'shop',
          namespace: 'tenant-bob',
        },
        policy: 'cozystack-route-hostname-policy',
        binding: 'cozystack-route-hostname-policy',
        message: expect.stringContaining('shop.bob.example.org must equal bob.customer1.io'),
        because: expect.stringContaining(
          'namespace.cozystack.io/host changes from "bob.example.org" to "bob.customer1.io"',
        ),
      },
    ]);
    const plan = await diffOf('bob.yaml', 'plan');
    expect(plan.stdout).toContain('Inadmissible on their next write (1 object the change leaves in place):');
  });

  it('the same Tenants again: nothing is inadmissible', async () => {
    await state();
    const r = await diffOf('tenants.yaml', 'json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { inadmissible: unknown[] };
    expectValid(out);
    expect(out.inadmissible).toEqual([]);
  });
});

/**
 * `-o json` is streamed (docs/decisions.md §C8: "-o json streams"): the
 * document is made object by object in pieces of about a megabyte, byte for byte what
 * JSON.stringify(doc, null, 2) makes of it, so that no string of the whole document is made (over
 * 70,000 Tenants it is longer than the longest string V8 makes).
 */
describe('diff -o json, streamed', () => {
  const tenantObject = (i: number): KObject => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: `tenant-t${i}`, labels: { 'namespace.cozystack.io/host': `t${i}.example.org` } },
    // A string with a line break, quotes and a backslash: escaped in JSON, never a raw line break.
    spec: { note: 'a\nb "c" \\d', list: [1, { x: [] }, {}] },
  });
  const resultOf = (n: number): DiffResult =>
    ({
      created: Array.from({ length: n }, (_, i) => tenantObject(i)),
      changed: [{ before: tenantObject(-1), after: tenantObject(-2) }],
      deleted: [],
      hostnames: [],
      inadmissible: [],
      drift: 2,
      findings: [{ severity: 'warning', message: 'm', field: 'publishing.hots', file: 'values.yaml', line: 3 }],
      given: new Set<string>(),
    }) as unknown as DiffResult;

  it('is byte for byte JSON.stringify of the document, findings included', () => {
    for (const n of [0, 1, 3]) {
      const d = resultOf(n);
      const doc = {
        created: d.created,
        changed: d.changed,
        deleted: d.deleted,
        hostnames: d.hostnames,
        inadmissible: d.inadmissible,
        drift: d.drift,
        findings: [{ severity: 'warning', message: 'm', field: 'publishing.hots', file: 'values.yaml', line: 3 }],
      };
      expect({ n, text: diffJson(d) }).toEqual({ n, text: `${JSON.stringify(doc, null, 2)}\n` });
    }
  });

  it('comes in pieces of about a megabyte, never the whole document at once', () => {
    const d = resultOf(40_000);
    let longest = 0;
    let total = 0;
    let pieces = 0;
    for (const p of diffJsonChunks(d)) {
      longest = Math.max(longest, p.length);
      total += p.length;
      pieces++;
    }
    const one = JSON.stringify(tenantObject(0), null, 2).length;
    expect(total).toBeGreaterThan(8 << 20);
    expect({ longestWithinAPiece: longest <= (1 << 20) + 2 * one, pieces: pieces > 8 }).toEqual({
      longestWithinAPiece: true,
      pieces: true,
    });
  });
});
