/**
 * The upstream helm-unittest suites of apps/tenant and of the gateway chart's hook as each release
 * tag has them (docs/versions.md "The upstream chart tests at the tags"), run against that
 * version: a suite runs at every version whose tag carries it, and asserts the facts of the tag's
 * own cases. main's suites (docs/tenant.md §4) are test/charts/upstreamUnittests.test.ts; what a
 * release lacks is asserted in test/versions/tenantChart.test.ts. Case numbers are those of
 * docs/tenant.md §4.1, where a release's case carries main's name.
 */
import { tenantCleanupHook } from '../../src/charts/hooks';
import { moduleTable } from '../../src/charts/moduleReleases';
import { renderTenantObjects } from '../../src/charts/namespaceTemplate';
import type { TenantRelease, TenantSpec } from '../../src/charts/tenantRelease';
import { moduleDocs as docsOf, oneModule as onlyDoc, unittestRelease } from '../helpers/unittestRelease';
import { getPath, type KObject } from '../../src/k8s/model';
import { render } from '../../src/pipelines/render';
import { COZYSTACK_VERSIONS, type Behaviour, type CozystackVersion } from '../../src/platform/cozystackVersions';
import { TENANT_ROOT } from '../../src/platform/tenancy';

const version = (name: string): CozystackVersion => {
  const v = COZYSTACK_VERSIONS.find((x) => x.name === name);
  if (!v) throw new Error(`no version ${name}`);
  return v;
};
const RELEASES = COZYSTACK_VERSIONS.map((v) => v.name).filter((n) => n !== 'main');
const V1_6 = ['v1.6.0', 'v1.6.1', 'v1.6.2'];

/**
 * Which release tags carry each suite (`git ls-tree <tag> -- packages/apps/tenant/tests
 * packages/extra/gateway/tests`), and whose cases differ from main's: the table of
 * docs/versions.md "The upstream chart tests at the tags".
 */
const SUITES: Record<string, string[]> = {
  'gateway_default_test.yaml': RELEASES,
  'no_upgrade_force_test.yaml': RELEASES,
  'vmo_webhook_dependson_test.yaml': ['v1.5.2', 'v1.5.3', 'v1.5.4', ...V1_6],
  'namespace_ancestor_labels_test.yaml': ['v1.5.4', ...V1_6],
  'cleanup_role_watch_test.yaml': V1_6,
  'cleanup_acme_test.yaml': V1_6,
};

/** A tenant release as helm-unittest renders one: release R = `tenant-X` in P, the given values. */
const release = (R: string, P: string, values: TenantSpec = {}, cluster: Record<string, string> = {}): TenantRelease =>
  unittestRelease(R, P, values, cluster);
const at = (o: unknown, path: string) => getPath(o, path.split('.'));
/** The documents one module template renders for a release at a version (0 or 1). */
const moduleDocs = (name: string, r: TenantRelease, b: Behaviour): KObject[] => docsOf(name, r, moduleTable(b));
const oneModule = (name: string, r: TenantRelease, b: Behaviour): KObject => onlyDoc(name, r, moduleTable(b));
const container = (job: KObject) => (at(job, 'spec.template.spec.containers') as Record<string, unknown>[])[0];

/** The mirrored cases, by suite: every (version, case) registered, for the check at the end. */
const mirrored = new Map<string, Set<string>>();
function upstream(suite: string, name: string, title: string, fn: () => void): void {
  const seen = mirrored.get(suite) ?? new Set<string>();
  seen.add(name);
  mirrored.set(suite, seen);
  test(`${name} upstream ${title}`, fn);
}

// -------------------------------------------------------------------------------------------
describe.each(SUITES['gateway_default_test.yaml'])(
  'gateway_default_test.yaml at %s (release tenant-alice in tenant-alice)',
  (name) => {
    const b = version(name).behaviour;
    const c = { 'expose-ingress': 'tenant-root', 'expose-external-ips': '192.0.2.10', 'gateway-enabled': 'true' };
    const r = (values: TenantSpec, cluster: Record<string, string> = c) =>
      release('tenant-alice', 'tenant-alice', values, cluster);
    const suite = 'gateway_default_test.yaml';
    upstream(suite, name, '#11: gateway unset → inherit, no own HelmRelease', () => {
      expect(moduleDocs('gateway', r({ host: '' }), b)).toHaveLength(0);
    });
    upstream(suite, name, '#12: gateway unset on custom-apex tenant → inherit, no own HelmRelease', () => {
      expect(moduleDocs('gateway', r({ host: 'customer1.io' }), b)).toHaveLength(0);
    });
    upstream(suite, name, '#13: gateway=true explicit on derived apex → own HelmRelease', () => {
      const hr = oneModule('gateway', r({ gateway: true, host: '' }), b);
      expect([hr.kind, hr.metadata.name]).toEqual(['HelmRelease', 'gateway']);
    });
    upstream(suite, name, '#14: gateway=true explicit on custom apex → own HelmRelease', () => {
      expect(oneModule('gateway', r({ gateway: true, host: 'customer1.io' }), b).kind).toBe('HelmRelease');
    });
    upstream(suite, name, '#15: gateway=false explicit → no own HelmRelease (parked)', () => {
      expect(moduleDocs('gateway', r({ gateway: false, host: '' }), b)).toHaveLength(0);
    });
    upstream(suite, name, '#16: gateway=true on platform-off cluster → own HelmRelease (operator override)', () => {
      expect(oneModule('gateway', r({ gateway: true, host: '' }, { ...c, 'gateway-enabled': 'false' }), b).kind).toBe(
        'HelmRelease',
      );
    });
  },
);

describe.each(SUITES['no_upgrade_force_test.yaml'])(
  'no_upgrade_force_test.yaml at %s (release tenant-test in tenant-test; five flags on)',
  (name) => {
    const b = version(name).behaviour;
    const c = { 'expose-ingress': 'tenant-root', 'expose-external-ips': '192.0.2.10', 'gateway-enabled': 'true' };
    const r = release(
      'tenant-test',
      'tenant-test',
      { etcd: true, ingress: true, monitoring: true, seaweedfs: true, gateway: true, host: '' },
      c,
    );
    const cases: [number, string][] = [
      [30, 'etcd'],
      [31, 'info'],
      [32, 'ingress'],
      [33, 'monitoring'],
      [34, 'seaweedfs'],
      [35, 'gateway'],
    ];
    for (const [n, module] of cases)
      upstream('no_upgrade_force_test.yaml', name, `#${n}: ${module} HR has no upgrade.force`, () => {
        const hr = oneModule(module, r, b);
        expect(hr.metadata.name).toBe(module);
        expect(at(hr, 'spec.upgrade')).not.toHaveProperty('force');
      });
  },
);

describe.each(SUITES['vmo_webhook_dependson_test.yaml'])(
  'vmo_webhook_dependson_test.yaml at %s (release tenant-test in tenant-test; five flags on)',
  (name) => {
    const b = version(name).behaviour;
    const r = release('tenant-test', 'tenant-test', {
      etcd: true,
      ingress: true,
      monitoring: true,
      seaweedfs: true,
      gateway: true,
    });
    const VMO = [{ name: 'victoria-metrics-operator', namespace: 'cozy-victoria-metrics-operator' }];
    for (const [n, module] of [
      [37, 'etcd'],
      [38, 'ingress'],
      [39, 'monitoring'],
    ] as const)
      upstream(
        'vmo_webhook_dependson_test.yaml',
        name,
        `#${n}: ${module} HR depends on the victoria-metrics-operator`,
        () => {
          expect(at(oneModule(module, r, b), 'spec.dependsOn')).toEqual(VMO);
        },
      );
    for (const [n, module] of [
      [40, 'seaweedfs'],
      [41, 'gateway'],
    ] as const)
      upstream('vmo_webhook_dependson_test.yaml', name, `#${n}: ${module} HR carries no operator gate`, () => {
        const hr = oneModule(module, r, b);
        expect(hr.metadata.name).toBe(module);
        expect(at(hr, 'spec')).not.toHaveProperty('dependsOn');
      });
  },
);

describe.each(SUITES['namespace_ancestor_labels_test.yaml'])(
  'namespace_ancestor_labels_test.yaml at %s (_cluster.root-host example.com)',
  (name) => {
    const b = version(name).behaviour;
    const cluster = { 'root-host': 'example.com' };
    const namespaceOf = (R: string, P: string): KObject => {
      const r = release(R, P, {}, cluster);
      return renderTenantObjects(r.namespace, P, r.values, undefined, undefined, b)[0];
    };
    const labelsOf = (o: KObject) => o.metadata.labels ?? {};
    const suite = 'namespace_ancestor_labels_test.yaml';
    upstream(suite, name, '#26: depth-1 tenant (direct child of root) carries tenant-root and its own label', () => {
      const ns = namespaceOf('tenant-ktj', TENANT_ROOT);
      expect([ns.kind, ns.metadata.name]).toEqual(['Namespace', 'tenant-ktj']);
      for (const a of ['tenant-root', 'tenant-ktj'])
        expect([a, labelsOf(ns)[`tenant.cozystack.io/${a}`]]).toEqual([a, '']);
    });
    upstream(suite, name, '#27: depth-2 tenant carries the full ancestor chain including tenant-root', () => {
      const ns = namespaceOf('tenant-htdev', 'tenant-ktj');
      expect(ns.metadata.name).toBe('tenant-ktj-htdev');
      for (const a of ['tenant-root', 'tenant-ktj', 'tenant-ktj-htdev'])
        expect([a, labelsOf(ns)[`tenant.cozystack.io/${a}`]]).toEqual([a, '']);
    });
    upstream(suite, name, '#28: depth-3 tenant carries every ancestor from root down to itself', () => {
      const ns = namespaceOf('tenant-foo', 'tenant-ktj-htdev');
      expect(ns.metadata.name).toBe('tenant-ktj-htdev-foo');
      for (const a of ['tenant-root', 'tenant-ktj', 'tenant-ktj-htdev', 'tenant-ktj-htdev-foo'])
        expect([a, labelsOf(ns)[`tenant.cozystack.io/${a}`]]).toEqual([a, '']);
      expect(labelsOf(ns)).not.toHaveProperty(['tenant.cozystack.io/tenant-ktj-htdev-foo-bar']);
    });
  },
);

describe.each(SUITES['cleanup_role_watch_test.yaml'])(
  'cleanup_role_watch_test.yaml at %s (release tenant-test in tenant-test; cases 1, 2, 3, 8)',
  (name) => {
    const docs = tenantCleanupHook(release('tenant-test', 'tenant-test').namespace, version(name).behaviour);
    const job = docs[3];
    const suite = 'cleanup_role_watch_test.yaml';
    upstream(suite, name, '#1: cleanup Role grants watch on helmreleases', () => {
      expect(docs[1].kind).toBe('Role');
      expect(at(docs[1], 'rules.0.verbs')).toContain('watch');
    });
    upstream(suite, name, '#2: cleanup Job uses the maintained clastix kubectl image', () => {
      expect(job.kind).toBe('Job');
      expect(container(job).image).toBe('docker.io/clastix/kubectl:v1.32');
    });
    upstream(suite, name, '#3: cleanup Job invokes a shell the image actually ships', () => {
      expect(job.kind).toBe('Job');
      expect((container(job).command as string[])[0]).toBe('/bin/sh');
    });
    upstream(suite, name, '#8: cleanup Job runs non-root under a restrictive securityContext', () => {
      expect(job.kind).toBe('Job');
      expect(at(job, 'spec.template.spec.securityContext')).toEqual({
        runAsNonRoot: true,
        runAsUser: 65534,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(at(container(job), 'securityContext.allowPrivilegeEscalation')).toBe(false);
      expect(at(container(job), 'securityContext.capabilities.drop')).toContain('ALL');
    });
  },
);

describe.each(SUITES['cleanup_acme_test.yaml'])(
  'cleanup_acme_test.yaml at %s (hooks/cleanup-acme; release gateway in tenant-root)',
  (name) => {
    // Through render with --include-hooks: the version decides whether the gateway chart has the hook.
    const root: KObject = {
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'root', namespace: TENANT_ROOT },
      spec: { gateway: true },
    };
    const out = render(
      { objects: [root], valuesFiles: [{ file: 'values.yaml', values: { publishing: { host: 'example.org' } } }] },
      { cozystack: version(name), includeHooks: true },
    );
    const docs = out.objects.filter(
      (o) => o.metadata.namespace === TENANT_ROOT && o.metadata.name === 'gateway-cleanup',
    );
    const byKind = (kind: string): KObject => {
      const o = docs.find((d) => d.kind === kind);
      if (!o) throw new Error(`no ${kind} gateway-cleanup among ${docs.map((d) => d.kind).join(', ')}`);
      return o;
    };
    const hook = (o: KObject) => o.metadata.annotations?.['helm.sh/hook'];
    const suite = 'cleanup_acme_test.yaml';
    upstream(suite, name, '#46: renders the post-delete cleanup Job, ServiceAccount, Role and RoleBinding', () => {
      expect(docs.map((d) => d.kind).sort()).toEqual(['Job', 'Role', 'RoleBinding', 'ServiceAccount']);
    });
    upstream(suite, name, '#47: Job is a post-delete hook named <release>-cleanup', () => {
      expect(byKind('Job').metadata.annotations).toMatchObject({
        'helm.sh/hook': 'post-delete',
        'helm.sh/hook-weight': '10',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
    });
    upstream(suite, name, '#48: Job deletes the cozystack-acme-account secret in the release namespace', () => {
      const job = byKind('Job');
      expect(at(job, 'spec.template.spec.serviceAccountName')).toBe('gateway-cleanup');
      expect(at(job, 'spec.template.spec.restartPolicy')).toBe('Never');
      expect((container(job).command as string[])[2]).toMatch(
        /kubectl delete secret -n tenant-root cozystack-acme-account --ignore-not-found/,
      );
    });
    upstream(suite, name, '#49: Job pod and container carry a hardened securityContext', () => {
      const job = byKind('Job');
      expect(at(job, 'spec.template.spec.securityContext')).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 65534,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(at(container(job), 'securityContext')).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
      });
      expect(at(container(job), 'securityContext.capabilities.drop')).toContain('ALL');
      expect(getPath(job, ['spec', 'template', 'metadata', 'labels', 'policy.cozystack.io/allow-to-apiserver'])).toBe(
        'true',
      );
    });
    upstream(suite, name, '#50: Role is scoped via resourceNames to the cozystack-acme-account secret only', () => {
      const role = byKind('Role');
      expect(hook(role)).toBe('post-delete');
      expect(at(role, 'rules')).toEqual([
        {
          apiGroups: [''],
          resources: ['secrets'],
          resourceNames: ['cozystack-acme-account'],
          verbs: ['get', 'delete'],
        },
      ]);
    });
    upstream(suite, name, '#51: RoleBinding binds the cleanup Role to the cleanup ServiceAccount', () => {
      const rb = byKind('RoleBinding');
      expect(at(rb, 'roleRef')).toMatchObject({ kind: 'Role', name: 'gateway-cleanup' });
      expect(at(rb, 'subjects.0')).toMatchObject({ kind: 'ServiceAccount', name: 'gateway-cleanup' });
    });
    upstream(suite, name, '#52: ServiceAccount is a post-delete hook named <release>-cleanup', () => {
      expect(hook(byKind('ServiceAccount'))).toBe('post-delete');
    });
  },
);

// -------------------------------------------------------------------------------------------
test('every suite runs at exactly the versions whose tag carries it', () => {
  const ran = Object.fromEntries([...mirrored].map(([suite, names]) => [suite, [...names]]));
  expect(ran).toEqual(SUITES);
});
