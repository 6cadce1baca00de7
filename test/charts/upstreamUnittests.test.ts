/**
 * The upstream helm-unittest cases of docs/tenant.md §4 (71: apps/tenant 45 with [E]'s two,
 * the gateway chart's hook 7, cozystack-basics 19), one test each, named `upstream <section>
 * #<n>: <upstream name>`, against the template modules directly (a helm-unittest suite renders
 * one template with a release name and namespace; `release()` below does the same: R = tenant-X
 * in P). Hook objects (cases 1-8, 46-52) are tested against the hook model, which
 * `--include-hooks` emits; case 71's HelmRelease against the cozystack-basics model, which render
 * never emits next to a materialised tenant-root (docs/decisions.md §Q6). Each assertion is the upstream one.
 * The last test checks the titles against the table of docs/tenant.md §4.1: every case listed
 * there has exactly one test here, named as upstream names it, and nothing else is titled so.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { capabilitiesOf, keycloakServed } from '../../src/charts/capabilities';
import {
  clusterRoles,
  cozyPublic,
  monitoringExternalServices,
  renderTenantRoot,
  tenantRootHelmRelease,
} from '../../src/charts/cozystackBasics';
import { gatewayCleanupHook, tenantCleanupHook } from '../../src/charts/hooks';
import { renderKeycloakGroups } from '../../src/charts/keycloakGroups';
import { computeplaneGuard, moduleTable } from '../../src/charts/moduleReleases';
import { renderTenantObjects } from '../../src/charts/namespaceTemplate';
import { renderNetworkPolicies } from '../../src/charts/networkPolicies';
import type { TenantRelease, TenantSpec } from '../../src/charts/tenantRelease';
import { moduleDocs as docsOf, oneModule as onlyDoc, unittestRelease } from '../helpers/unittestRelease';
import { asset } from '../../src/assets';
import { getPath, type KObject } from '../../src/k8s/model';
import { TENANT_ROOT } from '../../src/platform/tenancy';

/** A tenant release as helm-unittest renders one: release R = `tenant-X` in P, the given values. */
const release = (R: string, P: string, values: TenantSpec = {}, cluster: Record<string, string> = {}): TenantRelease =>
  unittestRelease(R, P, values, cluster, { gatewayClasses: true });

const modules = moduleTable();
/** The documents one module template renders for a release (0 or 1). */
const moduleDocs = (name: string, r: TenantRelease): KObject[] => docsOf(name, r, modules);
const oneModule = (name: string, r: TenantRelease): KObject => onlyDoc(name, r, modules);
const at = (o: unknown, path: string) => getPath(o, path.split('.'));
const byName = (objs: KObject[], kind: string, name: string): KObject => {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name} among ${objs.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return o;
};
const container = (job: KObject) => (at(job, 'spec.template.spec.containers') as Record<string, unknown>[])[0];
const RETRY = { name: 'RetryOnFailure', retryInterval: '30s' };

/** Every title registered through `upstream`, for the check against docs/tenant.md §4.1 at the end. */
const titles: string[] = [];
/** A test mirroring one upstream case; its title is `upstream <section> #<n>: <upstream name>`. */
function upstream(title: string, fn: () => void): void {
  titles.push(title);
  test(title, fn);
}

// -------------------------------------------------------------------------------------------
describe('§4.1.1 cleanup_role_watch_test.yaml (cleanup-job; release tenant-test in tenant-test)', () => {
  const docs = tenantCleanupHook(release('tenant-test', 'tenant-test').namespace);
  const job = docs[3];
  upstream('upstream 4.1.1 #1: cleanup Role grants watch on helmreleases', () => {
    expect(docs[1].kind).toBe('Role');
    expect(at(docs[1], 'rules.0.verbs')).toContain('watch');
  });
  upstream('upstream 4.1.1 #2: cleanup Job uses the maintained clastix kubectl image', () => {
    expect(job.kind).toBe('Job');
    expect(container(job).image).toBe('docker.io/clastix/kubectl:v1.32');
  });
  upstream('upstream 4.1.1 #3: cleanup Job invokes a shell the image actually ships', () => {
    expect(job.kind).toBe('Job');
    expect((container(job).command as string[])[0]).toBe('/bin/sh');
  });
  upstream('upstream 4.1.1 #4: cleanup Job cannot outlive the uninstall attempt that created it', () => {
    expect(at(job, 'spec.activeDeadlineSeconds')).toBe(270);
  });
  upstream('upstream 4.1.1 #5: cleanup Job pod is not BestEffort, since it gets a single attempt', () => {
    expect(at(container(job), 'resources.requests')).toEqual({ cpu: '10m', memory: '64Mi' });
  });
  upstream('upstream 4.1.1 #6: cleanup Job pod terminates well inside the uninstall budget', () => {
    expect(at(job, 'spec.template.spec.terminationGracePeriodSeconds')).toBe(10);
  });
  upstream('upstream 4.1.1 #7: cleanup Job makes a single attempt so its failure reaches helm', () => {
    expect(at(job, 'spec.backoffLimit')).toBe(0);
    expect(at(job, 'spec.template.spec.restartPolicy')).toBe('Never');
  });
  upstream('upstream 4.1.1 #8: cleanup Job runs non-root under a restrictive securityContext', () => {
    expect(at(job, 'spec.template.spec.securityContext.runAsNonRoot')).toBe(true);
    expect(at(job, 'spec.template.spec.securityContext.runAsUser')).toBe(65534);
    expect(at(job, 'spec.template.spec.securityContext.seccompProfile.type')).toBe('RuntimeDefault');
    expect(at(container(job), 'securityContext.allowPrivilegeEscalation')).toBe(false);
    expect(at(container(job), 'securityContext.capabilities.drop')).toContain('ALL');
  });
});

describe('§4.1.2 computeplane_module_test.yaml (computeplane; release tenant-alice in tenant-alice)', () => {
  upstream('upstream 4.1.2 #9: renders nothing by default', () => {
    expect(moduleDocs('computeplane', release('tenant-alice', 'tenant-alice'))).toHaveLength(0);
  });
  upstream('upstream 4.1.2 #10: renders the module HelmRelease when enabled', () => {
    const r = release('tenant-alice', 'tenant-alice', { computeplane: true });
    // Offline the guard is inactive: no cozystack.io/v1alpha1 API (docs/decisions.md §Q2).
    expect(computeplaneGuard(r.spec, capabilitiesOf([])).ok).toBe(true);
    const hr = oneModule('computeplane', r);
    expect(hr.metadata.name).toBe('computeplane');
    expect(at(hr, 'spec.releaseName')).toBeUndefined();
    expect(at(hr, 'spec.chartRef.name')).toBe('cozystack-computeplane-application-kubevirt-computeplane');
    expect(hr.metadata.labels?.['internal.cozystack.io/tenantmodule']).toBe('true');
    expect(hr.metadata.labels?.['apps.cozystack.io/application.kind']).toBe('ComputePlane');
  });
});

describe('§4.1.3 gateway_default_test.yaml (gateway; release tenant-alice in tenant-alice)', () => {
  const c = { 'expose-ingress': 'tenant-root', 'expose-external-ips': '192.0.2.10', 'gateway-enabled': 'true' };
  const r = (values: TenantSpec, cluster: Record<string, string> = c) =>
    release('tenant-alice', 'tenant-alice', values, cluster);
  upstream('upstream 4.1.3 #11: gateway unset → inherit, no own HelmRelease', () => {
    expect(moduleDocs('gateway', r({ host: '' }))).toHaveLength(0);
  });
  upstream('upstream 4.1.3 #12: gateway unset on custom-apex tenant → inherit, no own HelmRelease', () => {
    expect(moduleDocs('gateway', r({ host: 'customer1.io' }))).toHaveLength(0);
  });
  upstream('upstream 4.1.3 #13: gateway=true explicit on derived apex → own HelmRelease', () => {
    const hr = oneModule('gateway', r({ gateway: true, host: '' }));
    expect(hr.kind).toBe('HelmRelease');
    expect(hr.metadata.name).toBe('gateway');
  });
  upstream('upstream 4.1.3 #14: gateway=true explicit on custom apex → own HelmRelease', () => {
    expect(oneModule('gateway', r({ gateway: true, host: 'customer1.io' })).kind).toBe('HelmRelease');
  });
  upstream('upstream 4.1.3 #15: gateway=false explicit → no own HelmRelease (parked)', () => {
    expect(moduleDocs('gateway', r({ gateway: false }))).toHaveLength(0);
  });
  upstream('upstream 4.1.3 #16: gateway=true on platform-off cluster → own HelmRelease (operator override)', () => {
    expect(oneModule('gateway', r({ gateway: true }, { ...c, 'gateway-enabled': 'false' })).kind).toBe('HelmRelease');
  });
  upstream('upstream 4.1.3 #17: passes a tenant-selected gatewayClass into the gateway release', () => {
    const hr = oneModule('gateway', r({ gateway: true, gatewayClass: 'cloudflare-tunnel' }));
    expect(at(hr, 'spec.values.gatewayClassName')).toBe('cloudflare-tunnel');
  });
  upstream('upstream 4.1.3 #18: leaves the release values absent when the tenant selects no class', () => {
    expect(at(oneModule('gateway', r({ gateway: true })), 'spec')).not.toHaveProperty('values');
  });
});

describe('§4.1.4 keycloakgroups_oidc_test.yaml (keycloakgroups; release tenant-alice in tenant-alice; capabilities add v1.edp.epam.com/v1)', () => {
  const caps = capabilitiesOf([], ['v1.edp.epam.com/v1']);
  const docs = (cluster: Record<string, string> | undefined) => {
    const T = release('tenant-alice', 'tenant-alice').namespace;
    return renderKeycloakGroups(T, cluster, keycloakServed(caps, cluster));
  };
  upstream('upstream 4.1.4 #19: renders the four realm groups when oidc is enabled', () => {
    expect(docs({ 'oidc-enabled': 'true' })).toHaveLength(4);
  });
  upstream('upstream 4.1.4 #20: renders nothing when oidc is explicitly disabled', () => {
    expect(docs({ 'oidc-enabled': 'false' })).toHaveLength(0);
  });
  upstream('upstream 4.1.4 #21: renders nothing when the platform injected no _cluster at all', () => {
    expect(docs(undefined)).toHaveLength(0);
  });
});

describe('§4.1.5 monitoring_gateway_install_retry_test.yaml (monitoring, gateway; release tenant-test in tenant-test)', () => {
  const r = release('tenant-test', 'tenant-test', { monitoring: true, gateway: true });
  const both = () => [oneModule('monitoring', r), oneModule('gateway', r)];
  upstream('upstream 4.1.5 #22: retries a failed monitoring install instead of deleting the storage', () => {
    expect(at(oneModule('monitoring', r), 'spec.install.strategy')).toEqual(RETRY);
  });
  upstream('upstream 4.1.5 #23: retries a failed gateway install instead of discarding the ACME account', () => {
    expect(at(oneModule('gateway', r), 'spec.install.strategy')).toEqual(RETRY);
  });
  upstream('upstream 4.1.5 #24: carries the strategy on the upgrade action the retry runs as', () => {
    for (const hr of both())
      expect([hr.metadata.name, at(hr, 'spec.upgrade.strategy')]).toEqual([hr.metadata.name, RETRY]);
  });
  upstream('upstream 4.1.5 #25: keeps unlimited retries for the branches the strategy does not reach', () => {
    for (const hr of both()) {
      expect([hr.metadata.name, at(hr, 'spec.install.remediation.retries')]).toEqual([hr.metadata.name, -1]);
      expect([hr.metadata.name, at(hr, 'spec.upgrade.remediation.retries')]).toEqual([hr.metadata.name, -1]);
    }
  });
});

describe('§4.1.6 namespace_ancestor_labels_test.yaml (namespace; _cluster.root-host example.com)', () => {
  const cluster = { 'root-host': 'example.com' };
  /** The Namespace namespace.yaml renders for release R in P, its parent's `_namespace` derived down from tenant-root. */
  const namespaceOf = (R: string, P: string): KObject => {
    const r = release(R, P, {}, cluster);
    return renderTenantObjects(r.namespace, P, r.values)[0];
  };
  const labelsOf = (o: KObject) => o.metadata.labels ?? {};
  upstream('upstream 4.1.6 #26: depth-1 tenant (direct child of root) carries tenant-root and its own label', () => {
    const ns = namespaceOf('tenant-ktj', TENANT_ROOT);
    expect([ns.kind, ns.metadata.name]).toEqual(['Namespace', 'tenant-ktj']);
    expect(labelsOf(ns)['tenant.cozystack.io/tenant-root']).toBe('');
    expect(labelsOf(ns)['tenant.cozystack.io/tenant-ktj']).toBe('');
  });
  upstream('upstream 4.1.6 #27: depth-2 tenant carries the full ancestor chain including tenant-root', () => {
    const ns = namespaceOf('tenant-htdev', 'tenant-ktj');
    expect(ns.metadata.name).toBe('tenant-ktj-htdev');
    for (const a of ['tenant-root', 'tenant-ktj', 'tenant-ktj-htdev'])
      expect([a, labelsOf(ns)[`tenant.cozystack.io/${a}`]]).toEqual([a, '']);
  });
  upstream('upstream 4.1.6 #28: depth-3 tenant carries every ancestor from root down to itself', () => {
    const ns = namespaceOf('tenant-foo', 'tenant-ktj-htdev');
    expect(ns.metadata.name).toBe('tenant-ktj-htdev-foo');
    for (const a of ['tenant-root', 'tenant-ktj', 'tenant-ktj-htdev', 'tenant-ktj-htdev-foo'])
      expect([a, labelsOf(ns)[`tenant.cozystack.io/${a}`]]).toEqual([a, '']);
    expect(labelsOf(ns)).not.toHaveProperty(['tenant.cozystack.io/tenant-ktj-htdev-foo-bar']);
  });
});

describe('§4.1.7 networkpolicy_grafana_dashboards_test.yaml (networkpolicy; release tenant-ktj in tenant-root)', () => {
  upstream('upstream 4.1.7 #29: allows egress from the tenant namespace to cozy-grafana-operator', () => {
    const fixed = asset<KObject[]>('templates/tenant/networkpolicy-fixed.yaml');
    const p = byName(
      renderNetworkPolicies(release('tenant-ktj', TENANT_ROOT), fixed),
      'CiliumNetworkPolicy',
      'allow-to-grafana-dashboards',
    );
    expect(p.metadata.namespace).toBe('tenant-ktj');
    expect(
      getPath(p, ['spec', 'egress', '0', 'toEndpoints', '0', 'matchLabels', 'k8s:io.kubernetes.pod.namespace']),
    ).toBe('cozy-grafana-operator');
  });
});

describe('§4.1.8 no_upgrade_force_test.yaml (release tenant-test in tenant-test; the six flags on)', () => {
  const c = { 'expose-ingress': 'tenant-root', 'expose-external-ips': '192.0.2.10', 'gateway-enabled': 'true' };
  const r = release(
    'tenant-test',
    'tenant-test',
    { etcd: true, ingress: true, monitoring: true, seaweedfs: true, gateway: true, computeplane: true, host: '' },
    c,
  );
  const cases: [number, string][] = [
    [30, 'etcd'],
    [31, 'info'],
    [32, 'ingress'],
    [33, 'monitoring'],
    [34, 'seaweedfs'],
    [35, 'gateway'],
    [36, 'computeplane'],
  ];
  for (const [n, name] of cases)
    upstream(`upstream 4.1.8 #${n}: ${name} HR has no upgrade.force`, () => {
      const hr = oneModule(name, r);
      expect(hr.metadata.name).toBe(name);
      expect(at(hr, 'spec.upgrade')).not.toHaveProperty('force');
    });
});

describe('§4.1.9 vmo_webhook_dependson_test.yaml (release tenant-test in tenant-test; five flags on)', () => {
  const r = release('tenant-test', 'tenant-test', {
    etcd: true,
    ingress: true,
    monitoring: true,
    seaweedfs: true,
    gateway: true,
  });
  const VMO = [{ name: 'victoria-metrics-operator', namespace: 'cozy-victoria-metrics-operator' }];
  for (const [n, name] of [
    [37, 'etcd'],
    [38, 'ingress'],
    [39, 'monitoring'],
  ] as const)
    upstream(`upstream 4.1.9 #${n}: ${name} HR depends on the victoria-metrics-operator`, () => {
      expect(at(oneModule(name, r), 'spec.dependsOn')).toEqual(VMO);
    });
  for (const [n, name] of [
    [40, 'seaweedfs'],
    [41, 'gateway'],
  ] as const)
    upstream(`upstream 4.1.9 #${n}: ${name} HR carries no operator gate`, () => {
      const hr = oneModule(name, r);
      expect(hr.metadata.name).toBe(name);
      expect(at(hr, 'spec')).not.toHaveProperty('dependsOn');
    });
});

describe('§4.1.10 volume_owner_install_retry_test.yaml (etcd, seaweedfs; release tenant-test in tenant-test)', () => {
  const r = release('tenant-test', 'tenant-test', { etcd: true, seaweedfs: true });
  const both = () => [oneModule('etcd', r), oneModule('seaweedfs', r)];
  upstream('upstream 4.1.10 #42: retries a failed etcd install instead of deleting the datastore', () => {
    expect(at(oneModule('etcd', r), 'spec.install.strategy')).toEqual(RETRY);
  });
  upstream('upstream 4.1.10 #43: retries a failed seaweedfs install instead of deleting the filer metadata', () => {
    expect(at(oneModule('seaweedfs', r), 'spec.install.strategy')).toEqual(RETRY);
  });
  upstream('upstream 4.1.10 #44: carries the strategy on the upgrade action the retry runs as', () => {
    for (const hr of both())
      expect([hr.metadata.name, at(hr, 'spec.upgrade.strategy')]).toEqual([hr.metadata.name, RETRY]);
  });
  upstream('upstream 4.1.10 #45: keeps unlimited retries for the branches the strategy does not reach', () => {
    for (const hr of both()) {
      expect([hr.metadata.name, at(hr, 'spec.install.remediation.retries')]).toEqual([hr.metadata.name, -1]);
      expect([hr.metadata.name, at(hr, 'spec.upgrade.remediation.retries')]).toEqual([hr.metadata.name, -1]);
    }
  });
});

// -------------------------------------------------------------------------------------------
describe('§4.2 cleanup_acme_test.yaml (hooks/cleanup-acme; release gateway in tenant-root)', () => {
  const docs = gatewayCleanupHook(TENANT_ROOT);
  const job = byName(docs, 'Job', 'gateway-cleanup');
  const hook = (o: KObject) => o.metadata.annotations?.['helm.sh/hook'];
  upstream('upstream 4.2 #46: renders the post-delete cleanup Job, ServiceAccount, Role and RoleBinding', () => {
    expect(docs.map((d) => d.kind)).toEqual(['Job', 'ServiceAccount', 'Role', 'RoleBinding']);
  });
  upstream('upstream 4.2 #47: Job is a post-delete hook named <release>-cleanup', () => {
    expect(job.metadata.name).toBe('gateway-cleanup');
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'post-delete',
      'helm.sh/hook-weight': '10',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
  });
  upstream('upstream 4.2 #48: Job deletes the cozystack-acme-account secret in the release namespace', () => {
    expect(at(job, 'spec.template.spec.serviceAccountName')).toBe('gateway-cleanup');
    expect(at(job, 'spec.template.spec.restartPolicy')).toBe('Never');
    expect((container(job).command as string[])[2]).toMatch(
      /kubectl delete secret -n tenant-root cozystack-acme-account --ignore-not-found/,
    );
  });
  upstream('upstream 4.2 #49: Job pod and container carry a hardened securityContext', () => {
    expect(at(job, 'spec.template.spec.securityContext')).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65534,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(at(container(job), 'securityContext.allowPrivilegeEscalation')).toBe(false);
    expect(at(container(job), 'securityContext.readOnlyRootFilesystem')).toBe(true);
    expect(at(container(job), 'securityContext.capabilities.drop')).toContain('ALL');
    expect(getPath(job, ['spec', 'template', 'metadata', 'labels', 'policy.cozystack.io/allow-to-apiserver'])).toBe(
      'true',
    );
  });
  upstream('upstream 4.2 #50: Role is scoped via resourceNames to the cozystack-acme-account secret only', () => {
    const role = byName(docs, 'Role', 'gateway-cleanup');
    expect(hook(role)).toBe('post-delete');
    expect(at(role, 'rules.0.apiGroups.0')).toBe('');
    expect(at(role, 'rules.0.resources')).toContain('secrets');
    expect(at(role, 'rules.0.resourceNames')).toEqual(['cozystack-acme-account']);
    expect(at(role, 'rules.0.verbs')).toEqual(['get', 'delete']);
  });
  upstream('upstream 4.2 #51: RoleBinding binds the cleanup Role to the cleanup ServiceAccount', () => {
    const rb = byName(docs, 'RoleBinding', 'gateway-cleanup');
    expect(at(rb, 'roleRef')).toMatchObject({ kind: 'Role', name: 'gateway-cleanup' });
    expect(at(rb, 'subjects.0')).toMatchObject({ kind: 'ServiceAccount', name: 'gateway-cleanup' });
  });
  upstream('upstream 4.2 #52: ServiceAccount is a post-delete hook named <release>-cleanup', () => {
    expect(hook(byName(docs, 'ServiceAccount', 'gateway-cleanup'))).toBe('post-delete');
  });
});

// -------------------------------------------------------------------------------------------
describe('§4.3.1 clusterroles-options_test.yaml (clusterroles)', () => {
  const roles = clusterRoles();
  const rules = (name: string) => at(byName(roles, 'ClusterRole', name), 'rules');
  upstream('upstream 4.3.1 #53: cozy:tenant:view:base grants read on core.cozystack.io options', () => {
    expect(rules('cozy:tenant:view:base')).toContainEqual({
      apiGroups: ['core.cozystack.io'],
      resources: ['options'],
      verbs: ['get', 'list', 'watch'],
    });
  });
  upstream('upstream 4.3.1 #54: cozy:tenant:base grants full access on sdn.cozystack.io securitygroups', () => {
    expect(rules('cozy:tenant:base')).toContainEqual({
      apiGroups: ['sdn.cozystack.io'],
      resources: ['securitygroups'],
      verbs: ['*'],
    });
  });
  upstream('upstream 4.3.1 #55: cozy:tenant:view:base grants read on sdn.cozystack.io securitygroups', () => {
    expect(rules('cozy:tenant:view:base')).toContainEqual({
      apiGroups: ['sdn.cozystack.io'],
      resources: ['securitygroups'],
      verbs: ['get', 'list', 'watch'],
    });
  });
  upstream('upstream 4.3.1 #56: cozy:tenant:admin:base grants write on sdn.cozystack.io securitygroups', () => {
    expect(rules('cozy:tenant:admin:base')).toContainEqual({
      apiGroups: ['sdn.cozystack.io'],
      resources: ['securitygroups'],
      verbs: ['create', 'update', 'patch', 'delete'],
    });
  });
});

describe('§4.3.2 cozystack-values-secret_test.yaml (cozystack-values-secret; _cluster.root-host example.org)', () => {
  const text = (cluster: Record<string, string>) =>
    (renderTenantRoot(cluster)[1].stringData as Record<string, string>)['values.yaml'];
  const base = { 'root-host': 'example.org' };
  const four = /^\s+etcd: "?tenant-root"?$/m;
  const unquoted = (t: string) => {
    for (const k of ['etcd', 'ingress', 'monitoring', 'seaweedfs'])
      expect([k, new RegExp(`^\\s+${k}: tenant-root$`, 'm').test(t)]).toEqual([k, true]);
  };
  upstream('upstream 4.3.2 #57: omits _namespace.gateway when _cluster.gateway-enabled is missing (default)', () => {
    expect(text(base)).not.toMatch(/^\s+gateway:/m);
    expect(text(base)).toMatch(four);
  });
  upstream('upstream 4.3.2 #58: omits _namespace.gateway when _cluster.gateway-enabled is "false"', () => {
    expect(text({ ...base, 'gateway-enabled': 'false' })).not.toMatch(/^\s+gateway:/m);
  });
  upstream('upstream 4.3.2 #59: emits _namespace.gateway=tenant-root when _cluster.gateway-enabled is "true"', () => {
    expect(text({ ...base, 'gateway-enabled': 'true' })).toMatch(/^\s+gateway: tenant-root$/m);
  });
  upstream(
    'upstream 4.3.2 #60: keeps _namespace.{etcd,ingress,monitoring,seaweedfs} unconditional when Gateway is off — regression guard for a refactor that accidentally gates them on the same flag',
    () => {
      unquoted(text(base));
    },
  );
  upstream(
    'upstream 4.3.2 #61: keeps _namespace.{etcd,ingress,monitoring,seaweedfs} unconditional when Gateway is on — same guard, opposite mode',
    () => {
      unquoted(text({ ...base, 'gateway-enabled': 'true' }));
    },
  );
});

describe('§4.3.3 dashboard-role_test.yaml (dashboard-role)', () => {
  upstream('upstream 4.3.3 #62: cozy:tenant:dashboard grants read on persistentvolumeclaims in cozy-public', () => {
    const role = byName(cozyPublic(), 'Role', 'cozy:tenant:dashboard');
    expect(role.metadata.namespace).toBe('cozy-public');
    expect(at(role, 'rules')).toContainEqual({
      apiGroups: [''],
      resources: ['persistentvolumeclaims'],
      verbs: ['get', 'list', 'watch'],
    });
  });
});

describe('§4.3.4 monitoring-external-services_test.yaml (monitoring-external-services)', () => {
  upstream('upstream 4.3.4 #63: renders all three ExternalName redirects when monitoring-enabled is "true"', () => {
    const docs = monitoringExternalServices({ 'monitoring-enabled': 'true' });
    expect(docs.map((d) => [d.metadata.namespace, d.metadata.name])).toEqual([
      ['cozy-monitoring', 'vlinsert-generic'],
      ['cozy-monitoring', 'vminsert-shortterm'],
      ['cozy-monitoring', 'vminsert-longterm'],
    ]);
  });
  upstream('upstream 4.3.4 #64: keeps the redirects (default) when monitoring-enabled is absent', () => {
    expect(monitoringExternalServices({})).toHaveLength(3);
  });
  upstream('upstream 4.3.4 #65: omits all redirects when monitoring-enabled is "false"', () => {
    expect(monitoringExternalServices({ 'monitoring-enabled': 'false' })).toHaveLength(0);
  });
  upstream('upstream 4.3.4 #66: keeps the redirects (no panic) when _cluster is null', () => {
    expect(monitoringExternalServices(null)).toHaveLength(3);
  });
  upstream('upstream 4.3.4 #67: vlinsert-generic still points at tenant-root when rendered', () => {
    const doc0 = monitoringExternalServices({ 'monitoring-enabled': 'true' })[0];
    expect(at(doc0, 'spec')).toEqual({
      type: 'ExternalName',
      externalName: 'vlinsert-generic.tenant-root.svc.cluster.local',
    });
  });
});

describe('§4.3.5 tenant-root_test.yaml (tenant-root; _cluster.root-host example.org)', () => {
  const ns = (cluster: Record<string, string>) => renderTenantRoot(cluster)[0];
  upstream('upstream 4.3.5 #68: tenant-root namespace carries namespace.cozystack.io/host label', () => {
    const doc0 = ns({ 'root-host': 'example.org' });
    expect([doc0.kind, doc0.metadata.name]).toEqual(['Namespace', 'tenant-root']);
    expect(doc0.metadata.labels?.['namespace.cozystack.io/host']).toBe('example.org');
  });
  upstream('upstream 4.3.5 #69: host label tracks _cluster.root-host', () => {
    expect(ns({ 'root-host': 'customer1.io' }).metadata.labels?.['namespace.cozystack.io/host']).toBe('customer1.io');
  });
  upstream('upstream 4.3.5 #70: gateway label set to tenant-root when _cluster.gateway-enabled is "true"', () => {
    expect(
      ns({ 'root-host': 'example.org', 'gateway-enabled': 'true' }).metadata.labels?.['namespace.cozystack.io/gateway'],
    ).toBe('tenant-root');
  });
  upstream('upstream 4.3.5 #71: tenant-root HelmRelease references the tenant-application chart', () => {
    const doc1 = tenantRootHelmRelease();
    expect([doc1.kind, doc1.metadata.name]).toEqual(['HelmRelease', 'tenant-root']);
    expect(at(doc1, 'spec.chartRef.name')).toBe('cozystack-tenant-application-default-tenant');
  });
});

// -------------------------------------------------------------------------------------------
describe('docs/tenant.md §4.1: the upstream cases by name', () => {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/tenant.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### §4.1 The cases by name'));
  /** The table's rows: case number and upstream name. */
  const cases = [...section.matchAll(/^\| (\d+) \| `[^`]+` \| `([^`]+)` \|$/gm)].map((m) => ({
    n: Number(m[1]),
    name: m[2],
  }));
  test('the table lists the 71 cases, numbered 1 to 71', () => {
    expect(cases.map((c) => c.n)).toEqual(Array.from({ length: 71 }, (_, i) => i + 1));
  });
  test('every listed case has exactly one test here, titled with its number and upstream name', () => {
    const mirrors = (n: number, name: string) =>
      titles.filter((t) => /^upstream [\d.]+ #/.test(t) && t.slice(t.indexOf('#')) === `#${n}: ${name}`);
    const wrong = cases
      .map((c) => ({ ...c, tests: mirrors(c.n, c.name).length }))
      .filter((c) => c.tests !== 1)
      .map((c) => `#${c.n} "${c.name}": ${c.tests} tests`);
    expect(wrong).toEqual([]);
  });
  test('no test here claims a case the table does not list under that name', () => {
    const listed = new Set(cases.map((c) => `#${c.n}: ${c.name}`));
    expect(titles.filter((t) => !listed.has(t.slice(t.indexOf('#'))))).toEqual([]);
  });
});
