/**
 * readByRender (src/pipelines/render.ts): the input objects render reads besides the Tenants. A
 * whole cluster state given to render, or only its objects readByRender keeps, renders the same
 * objects and findings: diff passes only those.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { readByRender, render } from '../../src/pipelines/render';
import type { KObject } from '../../src/k8s/model';
import { TESTDATA } from '../helpers/cli';

const INPUTS = path.join(TESTDATA, 'golden', 'diff', '_inputs');
const load = (f: string) => (jsyaml.loadAll(fs.readFileSync(f, 'utf8')) as KObject[]).filter(Boolean);
// The state as diff hands it to render: without its Tenants (the tree comes from the change), its
// Namespaces with uids (render gives their children ownerReferences to them).
const state = load(path.join(INPUTS, 'state.yaml'))
  .filter((o) => o.kind !== 'Tenant')
  .map((o) => (o.kind === 'Namespace' ? { ...o, metadata: { ...o.metadata, uid: `uid-${o.metadata.name}` } } : o));
const tenants = fs.readdirSync(path.join(INPUTS, 'tenants')).flatMap((f) => load(path.join(INPUTS, 'tenants', f)));
const values = jsyaml.load(fs.readFileSync(path.join(INPUTS, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const valuesFiles = [{ file: 'values.yaml', values }];
const pkg: KObject = {
  apiVersion: 'cozystack.io/v1alpha1',
  kind: 'Package',
  metadata: { name: 'cozystack.cozystack-platform' },
  spec: { components: { platform: { values: { publishing: { host: 'example.org' } } } } },
};
const badGateway: KObject = {
  apiVersion: 'gateway.cozystack.io/v1alpha1',
  kind: 'TenantGateway',
  metadata: { name: 'cozystack', namespace: 'tenant-x' },
  spec: { apex: 'example.org', certMode: 'bogus' },
};

describe('readByRender', () => {
  test.each([
    ['the diff golden state', state],
    ['the state, a platform Package and an invalid TenantGateway', [...state, pkg, badGateway]],
  ])('%s: render over all of it and over what readByRender keeps give the same output', (_, objs) => {
    const whole = render({ objects: [...objs, ...tenants], valuesFiles });
    const kept = render({ objects: [...objs.filter(readByRender), ...tenants], valuesFiles });
    expect(kept).toEqual(whole);
    // Both cases say something: the first renders, the second is refused for the TenantGateway.
    if (objs.includes(badGateway))
      expect(whole.findings.filter((f) => f.severity === 'error').map((f) => f.object?.namespace)).toContain(
        'tenant-x',
      );
    else {
      expect(whole.objects.length).toBeGreaterThan(100);
      expect(JSON.stringify(whole.objects)).toContain('uid-tenant-');
    }
  });

  test('it keeps the Tenants, Namespaces, TenantGateways and cozystack.io objects, and leaves routes, Secrets and RBAC', () => {
    const kinds = (objs: KObject[]) => [...new Set(objs.map((o) => o.kind))].sort();
    const kept = [...state, ...tenants, pkg].filter(readByRender);
    expect(kinds(kept)).toEqual(['Namespace', 'Package', 'Tenant', 'TenantGateway']);
    const left = kinds(state.filter((o) => !readByRender(o)));
    for (const k of ['HTTPRoute', 'Secret', 'RoleBinding', 'Gateway', 'Certificate'])
      expect({ k, left: left.includes(k) }).toEqual({ k, left: true });
  });
});
