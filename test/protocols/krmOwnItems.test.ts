/**
 * `cozy-gw fn` recognises its own items by their path under its own folder, and writes only inside
 * it (docs/commands/fn.md): an item marked generated elsewhere in the package (a user's customised
 * copy in `overrides/`) is the user's and passes through; a namespace that is not a namespace name
 * (`..`) is an input error naming the object and the field, never a path `cozy-gw/../...`. The
 * same under the real kpt: test/e2e/kptOwnItems.test.ts.
 */
import {
  GENERATED_ANNOTATION,
  PATH_ANNOTATION,
  generatedPath,
  isOwnItem,
  isUnderGeneratedDir,
  processResourceList,
  type ResourceList,
} from '../../src/protocols/krm';
import type { KObject } from '../../src/k8s/model';

const OPTS = { defaultNow: '2026-01-01T00:00:00Z' };
const CONFIG = {
  apiVersion: 'fn.cozystack.io/v1alpha1',
  kind: 'CozyGateway',
  metadata: { name: 'cfg' },
  spec: { values: { publishing: { host: 'example.org' }, gateway: { enabled: true } } },
};

const marked = (file?: string): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'custom',
    namespace: 'tenant-root',
    annotations: { [GENERATED_ANNOTATION]: 'true', ...(file ? { [PATH_ANNOTATION]: file } : {}) },
  },
});

const list = (items: unknown[]): ResourceList => ({
  apiVersion: 'config.kubernetes.io/v1',
  kind: 'ResourceList',
  items,
  functionConfig: CONFIG,
});

describe('isUnderGeneratedDir / isOwnItem', () => {
  it.each([
    ['cozy-gw/tenant-root/gateway-cozystack.yaml', true],
    ['./cozy-gw/_cluster/namespace-tenant-root.yaml', true],
    ['cozy-gw/a/../b/x.yaml', true],
    ['overrides/gateway-cozystack.yaml', false],
    ['cozy-gw/../overrides/x.yaml', false],
    ['../cozy-gw/x.yaml', false],
    ['cozy-gw', false],
    ['cozy-gw-extra/x.yaml', false],
    ['sub/cozy-gw/x.yaml', false],
  ])('%s: %s', (p, want) => {
    expect(isUnderGeneratedDir(p)).toBe(want);
  });

  it("a marked item is ours under cozy-gw/ or without any path, the user's anywhere else", () => {
    expect(
      [marked('cozy-gw/tenant-root/configmap-custom.yaml'), marked(), marked('overrides/custom.yaml')].map(isOwnItem),
    ).toEqual([true, true, false]);
  });
});

describe('the function over a package', () => {
  it("a customised copy marked generated in overrides/ passes through; the function's own file is replaced", () => {
    const user = marked('overrides/custom.yaml');
    const old = { ...marked('cozy-gw/tenant-root/configmap-old.yaml') };
    old.metadata = { ...old.metadata, name: 'old' };
    const r = processResourceList(list([user, old]), OPTS);
    expect(r.exitCode).toBe(0);
    const names = (r.output.items as KObject[]).map(
      (o) => `${o.metadata.name} ${o.metadata.annotations?.[PATH_ANNOTATION]}`,
    );
    expect(names).toContain('custom overrides/custom.yaml');
    expect(names).not.toContain('old cozy-gw/tenant-root/configmap-old.yaml');
    expect(r.output.items[0]).toBe(user); // passed through as it came
  });

  it('a TenantGateway in namespace ".." is an input error naming it and the field; no path leaves cozy-gw/', () => {
    const tgw = {
      apiVersion: 'gateway.cozystack.io/v1alpha1',
      kind: 'TenantGateway',
      metadata: { name: 'cozystack', namespace: '..', annotations: { [PATH_ANNOTATION]: 'evil.yaml' } },
      spec: { apex: 'example.org', gatewayClassName: 'cilium' },
    };
    const r = processResourceList(list([tgw]), OPTS);
    expect(r.exitCode).toBe(1);
    expect(r.findings.map((f) => [f.severity, f.field, f.object?.kind, f.message])).toContainEqual([
      'error',
      'metadata.namespace',
      'TenantGateway',
      '".." is not a namespace name (a DNS-1123 label: lowercase letters, digits and "-", at most 63 characters)',
    ]);
    expect(r.output.items).toEqual([tgw]); // on failure the items go out as they came in
  });

  it('generatedPath stays inside cozy-gw/ whatever the namespace', () => {
    for (const ns of ['..', '.', '../..', 'a/../../b', '...'])
      expect([ns, isUnderGeneratedDir(generatedPath({ ...marked(), metadata: { name: 'x', namespace: ns } }))]).toEqual(
        [ns, true],
      );
  });
});
