/**
 * Server-side apply by Flux over a live object, case by case (src/diff/serverSideApply.ts;
 * docs/commands/diff.md "A live snapshot is compared as it will be applied"): list and map types
 * from the kind's schema, ownership by manager, the server's defaults written again.
 */
import { serverSideApply } from '../../src/diff/serverSideApply';
import type { KObject } from '../../src/k8s/model';

type Obj = Record<string, unknown>;

/** A live object: `fields` per manager (the first is Flux's apply, the rest updates). */
function live(o: Obj, ...owners: [string, Obj][]): KObject {
  const metadata = { ...(o.metadata as Obj), uid: 'u-1', resourceVersion: '9' } as Obj;
  metadata.managedFields = owners.map(([manager, fieldsV1], i) => ({
    manager,
    operation: i === 0 ? 'Apply' : 'Update',
    fieldsType: 'FieldsV1',
    fieldsV1,
  }));
  return { ...o, metadata } as unknown as KObject;
}

const META = { name: 'x', namespace: 'tenant-a' };

describe('list types', () => {
  it('a map list (a ServiceAccount’s secrets by name): elements merged by key, the applier’s dropped one goes, another’s stays', () => {
    const was = live(
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: META,
        secrets: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
      },
      [
        'kustomize-controller',
        { 'f:secrets': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} }, 'k:{"name":"b"}': { '.': {}, 'f:name': {} } } },
      ],
      ['token-controller', { 'f:secrets': { 'k:{"name":"c"}': { '.': {}, 'f:name': {} } } }],
    );
    const out = serverSideApply(
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: META, secrets: [{ name: 'a' }, { name: 'd' }] } as KObject,
      was,
    );
    expect(out.secrets).toEqual([{ name: 'a' }, { name: 'c' }, { name: 'd' }]);
  });

  it('a map list keyed with a defaulted key (a Service’s ports by port and protocol): the port given without its protocol is the live TCP one', () => {
    const was = live(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: META,
        spec: { type: 'ClusterIP', sessionAffinity: 'None', ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }] },
      },
      [
        'kustomize-controller',
        {
          'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} } } },
        },
      ],
    );
    const same = serverSideApply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: META,
        spec: { ports: [{ port: 80, targetPort: 8080 }] },
      } as KObject,
      was,
    );
    expect(same.spec).toEqual(was.spec);
  });

  it('a map list element another manager owns a field of stays, with its key, without the applier’s fields', () => {
    const was = live(
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: META,
        secrets: [{ name: 'a', extra: 'theirs', mine: 'x' }],
      },
      ['kustomize-controller', { 'f:secrets': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:mine': {} } } }],
      ['other', { 'f:secrets': { 'k:{"name":"a"}': { 'f:extra': {} } } }],
    );
    const out = serverSideApply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: META } as KObject, was);
    expect(out.secrets).toEqual([{ name: 'a', extra: 'theirs' }]);
  });

  it('a set (finalizers): the applier’s value the manifest drops goes, a controller’s stays', () => {
    const was = live(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...META, finalizers: ['mine', 'theirs'] } },
      ['kustomize-controller', { 'f:metadata': { 'f:finalizers': { 'v:"mine"': {} } } }],
      ['ctl', { 'f:metadata': { 'f:finalizers': { 'v:"theirs"': {} } } }],
    );
    expect(
      serverSideApply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: META } as KObject, was).metadata.finalizers,
    ).toEqual(['theirs']);
  });

  it('an atomic list (a ClusterRole’s rules) is the given one, however alike the elements are', () => {
    const was = live(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'r' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
      },
      ['kustomize-controller', { 'f:rules': {} }],
    );
    const out = serverSideApply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'r' },
        rules: [{ apiGroups: [''], resources: ['pods'] }],
      } as KObject,
      was,
    );
    expect(out.rules).toEqual([{ apiGroups: [''], resources: ['pods'] }]);
  });

  it('an atomic map (a policy’s matchConstraints) is the given one, defaulted again: equal to the live one', () => {
    const matchConstraints = {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    };
    const defaulted = {
      ...matchConstraints,
      resourceRules: [{ ...matchConstraints.resourceRules[0], scope: '*' }],
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
    };
    const was = live(
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'p' },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { ...defaulted, objectSelector: { matchLabels: { drift: 'y' } } },
        },
      },
      ['kustomize-controller', { 'f:spec': { 'f:matchConstraints': {} } }],
    );
    const out = serverSideApply(
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'p' },
        spec: { matchConstraints },
      } as KObject,
      was,
    );
    expect(out.spec).toEqual({ failurePolicy: 'Fail', matchConstraints: defaulted });
  });
});

describe('what the API server sets stays', () => {
  it('uid, resourceVersion and the status, even where a managedFields entry claims them', () => {
    const was = live({ apiVersion: 'v1', kind: 'ConfigMap', metadata: META, data: { a: '1' }, status: { s: 1 } }, [
      'kubectl-client-side-apply',
      { 'f:metadata': { 'f:uid': {}, 'f:resourceVersion': {} }, 'f:data': { 'f:a': {} } },
    ]);
    const out = serverSideApply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: META, data: { a: '1' } } as KObject,
      was,
    );
    expect([out.metadata.uid, out.metadata.resourceVersion, out.status]).toEqual(['u-1', '9', { s: 1 }]);
  });

  it('the live object’s order of fields, the given object’s new ones after', () => {
    const was = live(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...META, labels: { a: '1' } }, data: { b: '2', a: '1' } },
      ['kustomize-controller', { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:data': { 'f:a': {}, 'f:b': {} } }],
    );
    const out = serverSideApply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { labels: { a: '1' }, ...META },
        data: { c: '3', a: '1', b: '2' },
      } as KObject,
      was,
    );
    expect(Object.keys(out.metadata)).toEqual([
      'name',
      'namespace',
      'labels',
      'uid',
      'resourceVersion',
      'managedFields',
    ]);
    expect(Object.keys(out.data as Obj)).toEqual(['b', 'a', 'c']);
  });
});
