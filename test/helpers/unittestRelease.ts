/**
 * A tenant release as helm-unittest renders one (release R = `tenant-X` in P, the given values),
 * and the documents one module template renders for it: what test/charts/upstreamUnittests.test.ts
 * (main's suites) and test/versions/upstreamUnittests.test.ts (the release tags' suites) mirror the
 * upstream cases against.
 */
import { rootNamespaceValues } from '../../src/charts/cozystackBasics';
import { gatewayRelease, renderModuleReleases, type moduleTable } from '../../src/charts/moduleReleases';
import { inheritNamespace } from '../../src/charts/namespaceTemplate';
import { releaseName, tenantSpec, type TenantRelease, type TenantSpec } from '../../src/charts/tenantRelease';
import type { KObject } from '../../src/k8s/model';
import { tenantNamespace } from '../../src/platform/tenancy';

/**
 * Release R = `tenant-X` in P with the given values and `_cluster`. `gatewayClasses`: the version
 * has gateway classes (main), and the release takes a non-empty `gatewayClass` as the tree sets it.
 */
export function unittestRelease(
  R: string,
  P: string,
  values: TenantSpec = {},
  cluster: Record<string, string> = {},
  { gatewayClasses = false }: { gatewayClasses?: boolean } = {},
): TenantRelease {
  const X = R.replace(/^tenant-/, '');
  const T = tenantNamespace(X, P);
  const spec = tenantSpec({
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: X, namespace: P },
    spec: values,
  });
  return {
    name: X,
    namespace: T,
    parentNamespace: P,
    releaseName: releaseName(X),
    values: { _cluster: cluster, _namespace: inheritNamespace(T, X, spec, rootNamespaceValues(cluster)) },
    spec,
    ownsGateway: spec.gateway === true,
    ...(gatewayClasses
      ? {
          gatewayClassName:
            typeof spec.gatewayClass === 'string' && spec.gatewayClass !== '' ? spec.gatewayClass : undefined,
        }
      : {}),
  };
}

/** The documents one module template renders for a release under a module table (0 or 1). */
export function moduleDocs(name: string, r: TenantRelease, modules: ReturnType<typeof moduleTable>): KObject[] {
  return name === 'gateway'
    ? [gatewayRelease(r, modules)].filter((o): o is KObject => o !== undefined)
    : renderModuleReleases(r, modules).filter((o) => o.metadata.name === name);
}

/** The one document a module template renders for a release. */
export function oneModule(name: string, r: TenantRelease, modules: ReturnType<typeof moduleTable>): KObject {
  const docs = moduleDocs(name, r, modules);
  expect(docs).toHaveLength(1);
  return docs[0];
}
