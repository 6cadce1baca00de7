/**
 * What a tree's record keeps of the inputs it was rendered from, so that a change against the tree
 * renders and compares only what it touches (docs/performance.md "Changed-only"): the platform
 * digest, of what every release shares (the build of cozy-gw that rendered it, the options that
 * shape the charts, the `_cluster` map the platform values give, the APIs the cluster serves, the
 * controller's values channel), and per release the digest of its inputs as the chart sees them
 * (the Tenant as given, its values as inherited from its parent, the parent Namespace's uid) with
 * the platform digest in it. Two renders whose digests of a release agree render the same objects
 * for it: every template reads only these (docs/tenant.md §2.0: the release, its values, `_cluster`;
 * the ancestor chains are names, docs/tenant.md §2.0.4). A release whose digest differs is
 * rendered again, with the releases below it whose inherited values it changes (theirs differ
 * too); a platform digest that differs is a change of the whole platform. Pure.
 */
import { hash } from 'node:crypto';
import { isNamespace, type KObject } from '../k8s/model';
import type { TenantRelease } from '../charts/tenantRelease';
import type { Capabilities } from '../charts/capabilities';
import type { ClusterMap } from '../platform/tenancy';

/** JSON with every object's keys sorted: equal values, equal text, whatever order their keys were given in. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/** What every release of a render shares (the platform digest's inputs). */
export interface PlatformInputs {
  /** The build of cozy-gw (its version and bundle): another build may render otherwise. */
  build: string;
  /** The chart options (render.ts RenderOptions: gatewayApiVersion, gatewayOnly, includeHooks, apiVersions). */
  options: Record<string, unknown>;
  cluster: ClusterMap;
  capabilities: Capabilities;
  /** The controller's values channel (platformChannel.ts), as a diff's passes read it. */
  channel: ClusterMap | undefined;
}

export function platformDigest(p: PlatformInputs): string {
  const caps = {
    apiVersions: p.capabilities.apiVersions ? [...p.capabilities.apiVersions].sort() : null,
    cozystack: p.capabilities.cozystackInInputs,
    packages: [...p.capabilities.packages].sort(),
  };
  return sha256(
    canonicalJson({ build: p.build, options: p.options, cluster: p.cluster, capabilities: caps, channel: p.channel }),
  );
}

/**
 * A release's digest: its inputs as the chart sees them, with the platform digest. As JSON writes
 * them, keys in the order given: the same Tenant, its keys written in another order, renders again,
 * which costs a render and changes nothing (a digest that differs only ever renders more).
 */
/**
 * Whether a Namespace among a render's inputs carries a uid: then the digests of the releases below
 * it hold it (releaseDigest's parentUid), which the Tenants alone do not show. A tree's record says
 * so (src/diff/treeSummary.ts TreeFacts.uids), and a changed-only plan then walks every Tenant
 * (src/diff/changedOnly.ts walkedTenants).
 */
export function uidsGiven(objects: readonly KObject[]): boolean {
  return objects.some((o) => isNamespace(o) && Boolean(o.metadata.uid));
}

export function releaseDigest(platform: string, r: TenantRelease, parentUid: string | undefined): string {
  return sha256(
    JSON.stringify({
      platform,
      tenant: (r.tenant as KObject | undefined) ?? null,
      name: r.name,
      namespace: r.namespace,
      parent: r.parentNamespace,
      spec: r.spec,
      values: r.values._namespace,
      owns: r.ownsGateway,
      gatewayClass: r.gatewayClassName ?? null,
      parentUid: parentUid ?? null,
    }),
  );
}
