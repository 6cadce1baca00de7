/**
 * A change applied over a live object (docs/decisions.md §C8): server-side apply by Flux's field
 * manager where the live object carries managedFields, `kubectl apply` otherwise.
 */
import { applyOver } from '../../src/diff/applyEmulation';
import type { KObject } from '../../src/k8s/model';
import { DIGEST_ANNOTATION, REDACTED_ANNOTATION } from '../../src/k8s/secretRedaction';

const FLUX = { 'kustomize.toolkit.fluxcd.io/name': 'tenants', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' };

/** A live RoleBinding Flux applied (labels a, old and Flux's; subjects), with what the server and others added. */
const live: KObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: {
    name: 'rb',
    namespace: 'tenant-a',
    uid: 'u-1',
    resourceVersion: '7',
    labels: { a: '1', old: 'x', other: 'theirs', ...FLUX },
    finalizers: ['f'],
    managedFields: [
      {
        manager: 'kustomize-controller',
        operation: 'Apply',
        fieldsV1: {
          'f:metadata': {
            'f:labels': {
              'f:a': {},
              'f:old': {},
              'f:kustomize.toolkit.fluxcd.io/name': {},
              'f:kustomize.toolkit.fluxcd.io/namespace': {},
            },
          },
          'f:subjects': {},
          'f:roleRef': {},
          'f:spec': { 'f:gone': {} },
        },
      },
      { manager: 'someone', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:other': {} } } } },
    ],
  },
  subjects: [{ kind: 'Group', name: 'g', apiGroup: 'rbac.authorization.k8s.io' }],
  roleRef: { kind: 'ClusterRole', name: 'r', apiGroup: 'rbac.authorization.k8s.io' },
  spec: { gone: 1, defaulted: 'd' },
  status: { s: 1 },
};

describe('server-side apply by Flux over a live object', () => {
  it('keeps what others and the server set, removes what the applier stopped setting, keeps Flux’s labels and list defaults', () => {
    const given: KObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'tenant-a', labels: { a: '2' } },
      subjects: [{ kind: 'Group', name: 'g' }],
      roleRef: { kind: 'ClusterRole', name: 'r', apiGroup: 'rbac.authorization.k8s.io' },
      spec: {},
    };
    const out = applyOver(given, live);
    expect(out.metadata.labels).toEqual({ a: '2', other: 'theirs', ...FLUX });
    expect([out.metadata.uid, out.metadata.resourceVersion, out.metadata.finalizers]).toEqual(['u-1', '7', ['f']]);
    expect(out.metadata.managedFields).toBe(live.metadata.managedFields);
    expect(out.subjects).toEqual(live.subjects);
    expect(out.spec).toEqual({ defaulted: 'd' });
    expect(out.status).toEqual({ s: 1 });
  });

  it('a map the manifest no longer names keeps the members others set', () => {
    const given: KObject = { ...live, metadata: { name: 'rb', namespace: 'tenant-a' } };
    delete (given as Record<string, unknown>).status;
    expect(applyOver(given, live).metadata.labels).toEqual({ other: 'theirs', ...FLUX });
  });

  it('a member named __proto__ stays a plain member', () => {
    const given = JSON.parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[]},"data":{"__proto__":{"x":"1"}}}',
    ) as KObject;
    const liveCm = JSON.parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"m","fieldsV1":{}}]},"data":{"__proto__":{"y":"2"}}}',
    ) as KObject;
    const out = applyOver(given, liveCm);
    const data = out.data as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(data, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('kubectl apply over an object without managedFields (a tree, a reconcile --all output)', () => {
  it('the given object with the server’s metadata and the status', () => {
    const { managedFields: _m, ...meta } = live.metadata;
    const plain: KObject = { ...live, metadata: meta };
    const given: KObject = { ...live, metadata: { name: 'rb', namespace: 'tenant-a', labels: { a: '2' } } };
    delete (given as Record<string, unknown>).status;
    const out = applyOver(given, plain);
    expect(out.metadata.labels).toEqual({ a: '2' });
    expect([out.metadata.uid, out.status]).toEqual(['u-1', { s: 1 }]);
  });

  it('a given Secret never carries the state’s redaction annotations', () => {
    const redacted: KObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', annotations: { [REDACTED_ANNOTATION]: 'k', [DIGEST_ANNOTATION]: 'sha256:00', keep: 'y' } },
      data: {},
    };
    const given: KObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', annotations: { keep: 'y' } },
      data: { k: 'dg==' },
    };
    expect(applyOver(given, redacted).metadata.annotations).toEqual({ keep: 'y' });
    const live2 = { ...redacted, metadata: { ...redacted.metadata, managedFields: [{ manager: 'x', fieldsV1: {} }] } };
    expect(applyOver(given, live2).metadata.annotations).toEqual({ keep: 'y' });
  });
});
