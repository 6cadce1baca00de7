/**
 * `diff -o json` against its published schema (schemas/diff-output.schema.json), and the objects a
 * change makes inadmissible on their next write (src/pipelines/admissionLookahead.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { ROOT, stateArgs, TESTDATA, useScratch } from '../helpers/cli';

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
