/**
 * The tenant chart, cozy-lib's quota helper, the Tenants API and the tenant values schema per
 * Cozystack version (docs/versions.md §T1–§T4, §T6, §T7, §L1, §A1, §G1 and §X1's tenant side).
 * Every test runs over all nine versions and asserts the exact output of each one's behaviour
 * class (docs/versions.md §0), through the render pipeline (`render` with `cozystack`) and, for
 * the finer facts, the template modules with the version's behaviour.
 */
import { tenantCleanupHook } from '../../src/charts/hooks';
import { moduleTable, gatewayRelease, renderModuleReleases } from '../../src/charts/moduleReleases';
import { renderTenantTree } from '../../src/charts/tenantChart';
import { flattenResources, quantityValue } from '../../src/charts/quota';
import { clusterValues, resolvePlatformValues } from '../../src/charts/platformValues';
import { getPath, type KObject } from '../../src/k8s/model';
import type { Finding } from '../../src/k8s/diagnostics';
import { render } from '../../src/pipelines/render';
import { COZYSTACK_VERSIONS, type CozystackVersion } from '../../src/platform/cozystackVersions';
import type { ClusterMap } from '../../src/platform/tenancy';
import { runCli } from '../helpers/cli';
import { unknownKeyFindings, validateTenant } from '../../src/validation/inputValidation';

const version = (name: string): CozystackVersion => {
  const v = COZYSTACK_VERSIONS.find((x) => x.name === name);
  if (!v) throw new Error(`no version ${name}`);
  return v;
};
const ALL = COZYSTACK_VERSIONS.map((v) => v.name);
/** The versions of the behaviour classes of docs/versions.md §0, by class. */
const CLASS: Record<number, string[]> = {
  1: ['v1.5.0', 'v1.5.1'],
  2: ['v1.5.2', 'v1.5.3'],
  3: ['v1.5.4'],
  4: ['v1.6.0', 'v1.6.1', 'v1.6.2'],
  5: ['main'],
};
const classOf = (name: string) => version(name).behaviourClass;
const isRelease = (name: string) => name !== 'main';
const isV15 = (name: string) => classOf(name) <= 3;

const tenant = (name: string, namespace: string, spec: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace },
  spec,
});
const VALUES = [{ file: 'values.yaml', values: { publishing: { host: 'example.org' } } }];
const renderAs = (name: string, objects: KObject[], includeHooks = false) =>
  render({ objects, valuesFiles: VALUES }, { cozystack: version(name), includeHooks });
const cluster = (): ClusterMap => clusterValues(resolvePlatformValues({ files: VALUES, objects: [] }).values).cluster;
const find = (objs: KObject[], kind: string, namespace: string | undefined, name: string): KObject => {
  const o = objs.find((x) => x.kind === kind && x.metadata.namespace === namespace && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${namespace ?? ''}/${name}`);
  return o;
};
const at = (o: unknown, path: string) => getPath(o, path.split('.'));
const errorsOf = (fs: Finding[]) => fs.filter((f) => f.severity === 'error');
const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.rule} ${f.field ?? ''}`);

test('the version classes of this file are the table’s', () => {
  expect(Object.values(CLASS).flat()).toEqual(ALL);
  for (const [c, names] of Object.entries(CLASS))
    for (const n of names) expect([n, version(n).behaviourClass]).toEqual([n, Number(c)]);
});

// ---------------------------------------------------------------------------------------------
describe('docs/versions.md §T1, §T7, §T6: the module HelmReleases', () => {
  const VMO = [{ name: 'victoria-metrics-operator', namespace: 'cozy-victoria-metrics-operator' }];
  const PLAIN = { remediation: { retries: -1 } };
  const ROF = { strategy: { name: 'RetryOnFailure', retryInterval: '30s' }, remediation: { retries: -1 } };
  const FLAGS = { etcd: true, ingress: true, monitoring: true, seaweedfs: true, computeplane: true };

  test.each(ALL)('%s: which modules render, their dependsOn and their install/upgrade actions', (name) => {
    const r = renderAs(name, [tenant('alice', 'tenant-root', FLAGS)]);
    expect(errorsOf(r.findings)).toEqual([]);
    const releases = r.objects.filter((o) => o.kind === 'HelmRelease' && o.metadata.namespace === 'tenant-alice');
    const c = classOf(name);
    const vmo = c >= 2; // §T1: from v1.5.2 on
    const rof = c === 5; // §T7: main only
    const want: Record<string, { dependsOn?: unknown; action: unknown }> = {
      ...(c === 5 ? { computeplane: { action: PLAIN } } : {}), // §T6: main only
      etcd: { dependsOn: vmo ? VMO : undefined, action: rof ? ROF : PLAIN },
      info: { action: PLAIN },
      ingress: { dependsOn: vmo ? VMO : undefined, action: PLAIN },
      monitoring: { dependsOn: vmo ? VMO : undefined, action: rof ? ROF : PLAIN },
      seaweedfs: { action: rof ? ROF : PLAIN },
    };
    const got: Record<string, { dependsOn?: unknown; action: unknown }> = {};
    for (const hr of releases) {
      const spec = hr.spec as Record<string, unknown>;
      expect([hr.metadata.name, spec.upgrade]).toEqual([hr.metadata.name, spec.install]);
      got[hr.metadata.name] = { dependsOn: spec.dependsOn, action: spec.install };
    }
    expect(got).toEqual(want);
  });

  test.each(ALL)('%s: the gateway HelmRelease (never emitted) retries in place only in main (§T7)', (name) => {
    const b = version(name).behaviour;
    const hr = gatewayRelease(
      { namespace: 'tenant-a', releaseName: 'tenant-a', spec: { gateway: true } },
      moduleTable(b),
    );
    expect(at(hr, 'spec.install')).toEqual(isRelease(name) ? PLAIN : ROF);
    expect(hr?.spec).not.toHaveProperty('dependsOn');
  });

  test.each(ALL)('%s: the module table has computeplane only in main (§T6)', (name) => {
    expect(moduleTable(version(name).behaviour).map((m) => m.name)).toEqual([
      'etcd',
      'ingress',
      'monitoring',
      'seaweedfs',
      ...(isRelease(name) ? [] : ['computeplane']),
      'gateway',
      'info',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
describe('docs/versions.md §T6, §X1: computeplane and gatewayClass are tenant values of main only', () => {
  const alice = tenant('alice', 'tenant-root', { computeplane: true, gatewayClass: 'fancy' });

  test.each(ALL)('%s: the warnings about them, the computeplane guard and HelmRelease', (name) => {
    const r = renderAs(name, [alice]);
    expect(errorsOf(r.findings)).toEqual([]);
    expect(summary(r.findings.filter((f) => f.object?.name === 'alice'))).toEqual(
      isRelease(name)
        ? ['warning input.unknown-key spec.computeplane', 'warning input.unknown-key spec.gatewayClass']
        : [
            'warning tenant.gateway-class-unused spec.gatewayClass',
            'warning tenant.computeplane-unchecked spec.computeplane',
          ],
    );
    expect(r.objects.filter((o) => o.metadata.name === 'computeplane').map((o) => o.kind)).toEqual(
      isRelease(name) ? [] : ['HelmRelease'],
    );
  });

  test.each(ALL)('%s: the class a Gateway owner’s release carries (none in a release)', (name) => {
    const owner = tenant('alice', 'tenant-root', { gateway: true, gatewayClass: 'fancy' });
    const tree = renderTenantTree(cluster(), [owner], { behaviour: version(name).behaviour });
    const release = tree.releases.find((x) => x.namespace === 'tenant-alice');
    expect(release?.gatewayClassName).toBe(isRelease(name) ? undefined : 'fancy');
  });

  test.each(ALL.filter(isRelease))('%s: so the TenantGateway keeps the chart’s class, cilium', (name) => {
    const r = renderAs(name, [tenant('alice', 'tenant-root', { gateway: true, gatewayClass: 'fancy' })]);
    expect(errorsOf(r.findings)).toEqual([]);
    expect(at(find(r.objects, 'TenantGateway', 'tenant-alice', 'cozystack'), 'spec.gatewayClassName')).toBe('cilium');
  });

  test.each(ALL)('%s: the unknown-key hint says which version has the value', (name) => {
    const [computeplane] = validateTenant(tenant('a', 'tenant-root', { computeplane: true }), version(name).behaviour);
    if (!isRelease(name)) return expect(computeplane).toBeUndefined();
    expect(computeplane).toMatchObject({
      severity: 'warning',
      message: 'unknown key',
      field: 'spec.computeplane',
      hint: 'only Cozystack main has the tenant value computeplane, which turns on its computeplane module; the chart of the version rendered ignores it',
    });
  });

  test.each(ALL)('%s: a value of the wrong type is refused only where the key is known', (name) => {
    const fs = validateTenant(
      tenant('a', 'tenant-root', { computeplane: 'yes', gatewayClass: 7 }),
      version(name).behaviour,
    );
    expect(summary(fs)).toEqual(
      isRelease(name)
        ? ['warning input.unknown-key spec.computeplane', 'warning input.unknown-key spec.gatewayClass']
        : ['error input.tenant-schema spec.gatewayClass', 'error input.tenant-schema spec.computeplane'],
    );
  });

  test.each(ALL)('%s: without a Gateway a release does not call gatewayClass unused: it is unknown', (name) => {
    const tree = renderTenantTree(cluster(), [tenant('a', 'tenant-root', { gatewayClass: 'x' })], {
      behaviour: version(name).behaviour,
    });
    expect(summary(tree.findings)).toEqual(
      isRelease(name)
        ? ['warning input.unknown-key spec.gatewayClass']
        : ['warning tenant.gateway-class-unused spec.gatewayClass'],
    );
  });

  test.each(ALL)('%s: the gateway HelmRelease has values only with gateway classes (§X1)', (name) => {
    const tree = renderTenantTree(cluster(), [tenant('a', 'tenant-root', { gateway: true, gatewayClass: 'x' })], {
      behaviour: version(name).behaviour,
    });
    const r = tree.releases.find((x) => x.namespace === 'tenant-a')!;
    const hr = gatewayRelease(r, moduleTable(version(name).behaviour));
    expect(at(hr, 'spec.values')).toEqual(isRelease(name) ? undefined : { gatewayClassName: 'x' });
  });

  test.each(ALL)('%s: reconcile and admit warn about the same keys', (name) => {
    const fs = unknownKeyFindings({ objects: [alice], valuesFiles: [] }, version(name).behaviour);
    expect(fs.map((f) => f.field)).toEqual(isRelease(name) ? ['spec.computeplane', 'spec.gatewayClass'] : []);
  });

  test.each([
    ['reconcile', 'v1.6.2'],
    ['reconcile', 'main'],
    ['admit', 'v1.5.0'],
    ['admit', 'main'],
  ])('the %s command at %s', async (command, name) => {
    const stdin =
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: a, namespace: tenant-root}\nspec: {computeplane: true}\n';
    const now = command === 'reconcile' ? ['--now', '2026-01-01T00:00:00Z'] : [];
    const r = await runCli([command, '--cozystack-version', name, '-f', '-', ...now], { stdin });
    expect(r.code).toBe(0);
    const warned = r.stderr.split('\n').filter((l) => l.includes('spec.computeplane: unknown key'));
    expect(warned).toEqual(
      isRelease(name)
        ? [
            'warning: <stdin>:4: Tenant tenant-root/a: spec.computeplane: unknown key (only Cozystack main has the tenant value computeplane, which turns on its computeplane module; the chart of the version rendered ignores it)',
          ]
        : [],
    );
  });
});

// ---------------------------------------------------------------------------------------------
describe('docs/versions.md §T2: the ancestor labels of a tenant Namespace', () => {
  const tree = [tenant('a', 'tenant-root'), tenant('b', 'tenant-a'), tenant('c', 'tenant-a-b')];
  /** The `tenant.cozystack.io/*` labels of each tenant Namespace, in the order written. */
  const ancestorLabels = (objs: KObject[]) =>
    Object.fromEntries(
      objs
        .filter((o) => o.kind === 'Namespace' && o.metadata.name.startsWith('tenant-a'))
        .map((o) => [
          o.metadata.name,
          Object.keys(o.metadata.labels ?? {})
            .filter((k) => k.startsWith('tenant.cozystack.io/'))
            .map((k) => k.slice('tenant.cozystack.io/'.length)),
        ]),
    );

  test.each(ALL)('%s', (name) => {
    const r = renderAs(name, tree);
    expect(errorsOf(r.findings)).toEqual([]);
    expect(ancestorLabels(r.objects)).toEqual(
      classOf(name) <= 2
        ? {
            // T, then the dash-prefixes of the parent P: no tenant-root label from depth 2 on.
            'tenant-a': ['tenant-a', 'tenant-root'],
            'tenant-a-b': ['tenant-a-b', 'tenant-a'],
            'tenant-a-b-c': ['tenant-a-b-c', 'tenant-a', 'tenant-a-b'],
          }
        : {
            'tenant-a': ['tenant-root', 'tenant-a'],
            'tenant-a-b': ['tenant-root', 'tenant-a', 'tenant-a-b'],
            'tenant-a-b-c': ['tenant-root', 'tenant-a', 'tenant-a-b', 'tenant-a-b-c'],
          },
    );
  });

  test.each(ALL)('%s: the parent ownerReference follows docs/decisions.md §4 in every version', (name) => {
    const parent: KObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-a', uid: 'u-a' } };
    const r = renderAs(name, [...tree, parent]);
    const refs = (ns: string) => find(r.objects, 'Namespace', undefined, ns).metadata.ownerReferences;
    expect(refs('tenant-a-b')).toEqual([
      { apiVersion: 'v1', kind: 'Namespace', name: 'tenant-a', uid: 'u-a', controller: true, blockOwnerDeletion: true },
    ]);
    expect(refs('tenant-a-b-c')).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
describe('docs/versions.md §T3, §T4: the tenant cleanup hook', () => {
  const script = (timeout: string) =>
    [
      'set -e',
      'NAMESPACE="tenant-a"',
      '',
      'echo "Cleaning up HelmReleases in namespace: $NAMESPACE"',
      '',
      'echo "Deleting Applications"',
      `kubectl delete helmreleases.helm.toolkit.fluxcd.io -n "$NAMESPACE" \\`,
      `  -l 'apps.cozystack.io/application.kind,internal.cozystack.io/tenantmodule!=true' \\`,
      `  --ignore-not-found=true --wait=true${timeout}`,
      '',
      'echo "Deleting Tenant Modules"',
      `kubectl delete helmreleases.helm.toolkit.fluxcd.io -n "$NAMESPACE" \\`,
      `  -l 'apps.cozystack.io/application.kind,internal.cozystack.io/tenantmodule=true' \\`,
      `  --ignore-not-found=true --wait=true${timeout}`,
      '',
      'echo "Cleanup completed successfully"',
      '',
    ].join('\n');
  const podSecurity = { runAsNonRoot: true, runAsUser: 65534, seccompProfile: { type: 'RuntimeDefault' } };
  const containerSecurity = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
  const template = (pod: Record<string, unknown>) => ({
    metadata: { name: 'tenant-a-cleanup', labels: { 'policy.cozystack.io/allow-to-apiserver': 'true' } },
    spec: { serviceAccountName: 'tenant-a-cleanup', ...pod },
  });
  const JOB_SPEC: Record<number, unknown> = {
    // v1.5: no securityContext, bitnami/kubectl:latest under /bin/bash.
    1: {
      ttlSecondsAfterFinished: 300,
      template: template({
        restartPolicy: 'OnFailure',
        containers: [{ name: 'cleanup', image: 'bitnami/kubectl:latest', command: ['/bin/bash', '-c', script('')] }],
      }),
    },
    // v1.6: hardened, unbounded.
    4: {
      ttlSecondsAfterFinished: 300,
      template: template({
        restartPolicy: 'OnFailure',
        securityContext: podSecurity,
        containers: [
          {
            name: 'cleanup',
            image: 'docker.io/clastix/kubectl:v1.32',
            securityContext: containerSecurity,
            command: ['/bin/sh', '-c', script('')],
          },
        ],
      }),
    },
    // main: bounded.
    5: {
      activeDeadlineSeconds: 270,
      backoffLimit: 0,
      ttlSecondsAfterFinished: 300,
      template: template({
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 10,
        securityContext: podSecurity,
        containers: [
          {
            name: 'cleanup',
            image: 'docker.io/clastix/kubectl:v1.32',
            securityContext: containerSecurity,
            resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
            command: ['/bin/sh', '-c', script(' --timeout=90s')],
          },
        ],
      }),
    },
  };
  const shape = (name: string) => (isV15(name) ? 1 : classOf(name));

  test.each(ALL)('%s: the Job, exactly', (name) => {
    const docs = tenantCleanupHook('tenant-a', version(name).behaviour);
    expect(docs.map((d) => `${d.kind} ${d.metadata.namespace}/${d.metadata.name}`)).toEqual([
      'ServiceAccount cozy-system/tenant-a-cleanup',
      'Role tenant-a/tenant-a-cleanup',
      'RoleBinding tenant-a/tenant-a-cleanup',
      'Job cozy-system/tenant-a-cleanup',
    ]);
    expect(docs[3].spec).toEqual(JOB_SPEC[shape(name)]);
  });

  test.each(ALL)('%s: the Role’s verbs (watch from v1.6 on)', (name) => {
    const [, role] = tenantCleanupHook('tenant-a', version(name).behaviour);
    expect(role.rules).toEqual([
      {
        apiGroups: ['helm.toolkit.fluxcd.io'],
        resources: ['helmreleases'],
        verbs: isV15(name) ? ['get', 'list', 'delete'] : ['get', 'list', 'watch', 'delete'],
      },
    ]);
  });

  test.each(ALL)('%s: --include-hooks writes the version’s hook for every tenant', (name) => {
    const r = renderAs(name, [tenant('a', 'tenant-root')], true);
    const jobs = r.objects.filter((o) => o.kind === 'Job' && o.metadata.name.endsWith('-cleanup'));
    expect(jobs.map((j) => j.metadata.name)).toEqual(['tenant-a-cleanup', 'tenant-root-cleanup']);
    expect(find(r.objects, 'Job', 'cozy-system', 'tenant-a-cleanup').spec).toEqual(JOB_SPEC[shape(name)]);
  });
});

// ---------------------------------------------------------------------------------------------
describe('docs/versions.md §G1: the gateway chart’s post-delete hook', () => {
  const owner = [tenant('a', 'tenant-root', { gateway: true })];
  test.each(ALL)('%s: --include-hooks writes it from v1.6 on', (name) => {
    const r = renderAs(name, owner, true);
    const cleanup = r.objects
      .filter((o) => o.metadata.namespace === 'tenant-a' && o.metadata.name === 'gateway-cleanup')
      .map((o) => o.kind);
    expect(cleanup).toEqual(isV15(name) ? [] : ['Job', 'Role', 'RoleBinding', 'ServiceAccount']);
  });
  test.each(ALL)('%s: the note on omitted hooks names it only from v1.6 on', (name) => {
    const r = render({ objects: owner, valuesFiles: VALUES }, { cozystack: version(name), noteOmittedHooks: true });
    const note = r.findings.find((f) => f.rule === 'render.hooks-omitted');
    expect(note?.message.includes('post-delete ACME cleanup of 1 Gateway owner')).toBe(!isV15(name));
    expect(note?.message).toContain('the pre-delete cleanup of 2 tenants');
  });
});

// ---------------------------------------------------------------------------------------------
describe('docs/versions.md §L1: quantities with the n and u suffixes', () => {
  const quotas = { cpu: '250u', memory: '5n', 'ephemeral-storage': '400000000u', pods: '5' };
  test.each(ALL)('%s', (name) => {
    const r = renderAs(name, [tenant('a', 'tenant-root', { resourceQuotas: quotas })]);
    expect(errorsOf(r.findings)).toEqual([]);
    expect(find(r.objects, 'ResourceQuota', 'tenant-a', 'tenant-quota').spec).toEqual({
      hard: {
        'limits.cpu': '250u',
        'limits.ephemeral-storage': '400000000u',
        'limits.memory': '5n',
        pods: '5',
        // main converts (250e-6 / 10; 400 / 40; 5e-9 truncated); the releases read 0.
        'requests.cpu': isRelease(name) ? '0' : '2.5e-05',
        'requests.ephemeral-storage': isRelease(name) ? '0' : '10',
        'requests.memory': '0',
      },
    });
  });
  test.each(ALL)('%s: the suffix table', (name) => {
    const b = version(name).behaviour;
    expect([quantityValue('3n', b), quantityValue('7u', b), quantityValue('2m', b)]).toEqual(
      isRelease(name) ? [0, 0, 0.002] : [3e-9, 7e-6, 0.002],
    );
    expect(flattenResources({ memory: '4000000000u' }, {}, b)['requests.memory']).toBe(isRelease(name) ? '0' : '4000');
  });
});

// ---------------------------------------------------------------------------------------------
describe('docs/versions.md §A1: the Tenants API’s quota checks', () => {
  test.each(ALL)('%s: 1e1.5 (an exponent with a fraction)', (name) => {
    const r = renderAs(name, [tenant('a', 'tenant-root', { resourceQuotas: { cpu: '1e1.5' } })]);
    const about = r.findings.filter((f) => f.field === 'spec.resourceQuotas.cpu').map((f) => `${f.severity} ${f.rule}`);
    if (!isV15(name)) {
      expect(about).toEqual(['error tenant.quantity']);
      return expect(r.objects).toEqual([]);
    }
    // v1.5: no check; the chart reads it as 0, and the API server would refuse the ResourceQuota.
    expect(about).toEqual(['warning tenant.quantity-unchecked']);
    expect(r.findings.find((f) => f.rule === 'tenant.quantity-unchecked')?.message).toBe(
      '"1e1.5" is not a Kubernetes quantity: it does not match the Kubernetes quantity grammar (digits, an optional fraction, then a suffix such as m, k, Mi, Gi or an exponent e<integer>); the Tenants API of the Cozystack version rendered does not check quotas, so the chart writes it into the ResourceQuota (its request reads as 0), which the API server refuses',
    );
    expect(find(r.objects, 'ResourceQuota', 'tenant-a', 'tenant-quota').spec).toEqual({
      hard: { 'limits.cpu': '1e1.5', 'requests.cpu': '0' },
    });
  });

  test.each(ALL.filter(isV15))('%s: a key the helper copies has no request to read as 0', (name) => {
    const r = renderAs(name, [tenant('a', 'tenant-root', { resourceQuotas: { pods: '1e1.5' } })]);
    const f = r.findings.find((x) => x.rule === 'tenant.quantity-unchecked');
    expect(f?.message).toMatch(/so the chart writes it into the ResourceQuota, which the API server refuses$/);
    expect(find(r.objects, 'ResourceQuota', 'tenant-a', 'tenant-quota').spec).toEqual({ hard: { pods: '1e1.5' } });
  });

  test.each(ALL)('%s: children together over their parent’s quota', (name) => {
    const objs = [
      tenant('a', 'tenant-root', { resourceQuotas: { cpu: '4' } }),
      tenant('b', 'tenant-a', { resourceQuotas: { cpu: '3' } }),
      tenant('c', 'tenant-a', { resourceQuotas: { cpu: '2' } }),
    ];
    const r = renderAs(name, objs);
    const refused = errorsOf(r.findings).map((f) => `${f.rule} ${f.object?.namespace}/${f.object?.name}`);
    expect(refused).toEqual(
      isV15(name) ? [] : ['tenant.quota-hierarchy tenant-a/b', 'tenant.quota-hierarchy tenant-a/c'],
    );
    if (isV15(name))
      expect(
        ['tenant-a-b', 'tenant-a-c'].map((ns) => find(r.objects, 'ResourceQuota', ns, 'tenant-quota').spec),
      ).toEqual([
        { hard: { 'limits.cpu': '3', 'requests.cpu': '0.3' } },
        { hard: { 'limits.cpu': '2', 'requests.cpu': '0.2' } },
      ]);
  });
});

// ---------------------------------------------------------------------------------------------
describe('the module releases of the tree follow the version (renderModuleReleases over moduleTable)', () => {
  test.each(ALL)('%s: info only for a tenant with no module', (name) => {
    const objs = renderModuleReleases(
      { namespace: 'tenant-a', releaseName: 'tenant-a', spec: { computeplane: true } },
      moduleTable(version(name).behaviour),
    );
    expect(objs.map((o) => o.metadata.name)).toEqual(isRelease(name) ? ['info'] : ['computeplane', 'info']);
  });
});
