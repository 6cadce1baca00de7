/**
 * The TenantGateway controller, run once over a snapshot (docs/behaviour.md §5.1 pass order;
 * §5 throughout): for every TenantGateway, sorted, validate, collect claims
 * (http01 only), label namespaces, write the Gateway, the Issuer, the wildcard and per-listener
 * Certificates, route statuses, the redirect route, and the TenantGateway status. The first
 * error stops that TenantGateway's pass: Ready=False, reason ReconcileError, the error text as
 * message, listener entries kept.
 */
import type { Finding } from '../k8s/diagnostics';
import { warning } from '../k8s/diagnostics';
import type { KObject } from '../k8s/model';
import { refOf } from '../k8s/model';
import type { Store } from '../k8s/store';
import { GROUPS } from '../k8s/store';
import { reconcileIssuer, reconcilePerListenerCertificates, reconcileWildcardCertificate } from './certificates';
import { ReconcileError } from './errors';
import {
  checkListeners,
  plainHttpNamespaces,
  reconcileGateway,
  renderListeners,
  type Listener,
} from './gatewayRendering';
import {
  attachedRoutes,
  collectClaimants,
  passthroughListenersOf,
  servedHostnames,
  wantsTermination,
  type Claimant,
} from './hostnameClaims';
import {
  applyNamespaceLabels,
  attachSet,
  childApexes,
  planAttachment,
  type AttachmentPlan,
} from './namespaceAttachment';
import { perAppListenerName } from '../platform/names';
import { TENANT_ROOT } from '../platform/tenancy';
import { reconcileRedirectRoute } from './redirectRoute';
import { decideHostnames, type HostnameRace } from './hostnameRace';
import {
  dropDetachedEntries,
  gatewayKey,
  routesWithOurEntries,
  writeApexWideRouteStatuses,
  writeRouteStatuses,
} from './routeStatus';
import { listenerEntries, readyCondition, writeTenantGatewayStatus } from './tenantGatewayStatus';
import { viewOf, type TenantGatewayView } from './tenantGatewaySpec';
import { tenantGatewayProblems } from './tenantGatewayValidation';
import type { Behaviour } from '../platform/cozystackVersions';

export interface ControllerOptions {
  /** RFC 3339; the only clock (condition lastTransitionTime). */
  now: string;
  /**
   * The publishing tenant's namespace (publishing.ingressName, default tenant-root): its
   * TenantGateway wins a namespace several TenantGateways list (docs/decisions.md §3).
   */
  publishingNamespace?: string;
  /** What the Cozystack version's controller does (docs/versions.md §7, §10); default main's. */
  behaviour?: Behaviour;
}

function listenerReasons(
  listeners: readonly Listener[],
  existing: KObject | undefined,
  claimants: readonly Claimant[],
): string {
  const before = new Set<string>();
  const spec = existing?.spec as { listeners?: { name?: unknown }[] } | undefined;
  for (const l of spec?.listeners ?? []) if (typeof l?.name === 'string') before.add(l.name);
  const after = new Set(listeners.map((l) => l.name));
  // The first claimant that earned each new per-app listener, for the plan's "why".
  const wanted = new Map<string, string>();
  for (const l of listeners) if (!before.has(l.name) && l.hostname !== undefined) wanted.set(l.hostname, l.name);
  const firstClaim = new Map<string, Claimant>();
  for (const c of claimants) {
    if (wanted.size === firstClaim.size || !wantsTermination(c)) continue;
    for (const h of c.hostnames) {
      const n = wanted.get(h);
      if (n !== undefined && !firstClaim.has(n) && perAppListenerName(h) === n) firstClaim.set(n, c);
    }
  }
  const parts: string[] = [];
  for (const l of listeners) {
    if (before.has(l.name)) continue;
    const c = firstClaim.get(l.name);
    parts.push(c ? `listener ${l.name} for ${c.kind} ${c.namespace}/${c.name}` : `listener ${l.name} added`);
  }
  for (const n of before) if (!after.has(n)) parts.push(`listener ${n} removed`);
  return parts.join('; ');
}

/**
 * One TenantGateway's pass (docs/behaviour.md §5.1 steps 2-10; step 1 ran before the namespace plan). Under http01
 * the hostname race goes to `races` as soon as route status is written from it (the other modes
 * collect no claims).
 */
function runPass(
  store: Store,
  v: TenantGatewayView,
  plan: AttachmentPlan,
  now: string,
  withOurEntries: ReadonlyMap<string, readonly KObject[]>,
  races: HostnameRace[],
): void {
  const tgw = v.obj;
  const passthrough = passthroughListenersOf(v);
  const attach = attachSet(plan, v);
  const routes = attachedRoutes(store, v, attach);

  // 2. Claims (http01 only).
  const claimants = v.certMode === 'http01' ? collectClaimants(routes, v) : [];
  const served = v.certMode === 'http01' ? servedHostnames(claimants, passthrough) : [];

  // 3. Namespace labels.
  applyNamespaceLabels(store, plan, v);

  // 4. The Gateway: listeners assembled and counted before it is written.
  const children = v.certMode === 'http01' ? [] : childApexes(store, plan, v);
  const listeners = renderListeners(v, served, children, passthrough);
  checkListeners(v, listeners);
  const existingGateway = store.get(GROUPS.gateway, 'Gateway', v.namespace, v.name);
  const why = listenerReasons(listeners, existingGateway, claimants);
  const gateway = reconcileGateway(store, v, listeners, why);

  // 5-7. Issuer, wildcard Certificate, per-listener Certificates.
  reconcileIssuer(store, tgw);
  reconcileWildcardCertificate(store, tgw, children);
  reconcilePerListenerCertificates(store, tgw, served);

  // 8. Route statuses.
  if (v.certMode === 'http01') {
    const race = decideHostnames(
      { v, passthrough, served: new Set(served), plainHttpNamespaces: plainHttpNamespaces(v) },
      claimants,
    );
    writeRouteStatuses(store, v, routes, race.verdicts, now);
    races.push(race);
  } else {
    writeApexWideRouteStatuses(store, v, routes, now);
  }
  dropDetachedEntries(store, v, withOurEntries.get(gatewayKey(v.namespace, v.name)) ?? [], routes);

  // 9. Redirect.
  reconcileRedirectRoute(store, tgw);

  // 10. Status.
  const entries = listenerEntries(listeners, gateway);
  const ready = readyCondition(v, gateway, entries);
  const lost = plan.lost(v.namespace);
  if (lost.length > 0) ready.message += `; ${lostMessage(lost)}`;
  writeTenantGatewayStatus(store, v, ready, entries, now);
}

function lostMessage(lost: { namespace: string; winner: string }[]): string {
  return lost
    .map(
      (l) =>
        `attachedNamespaces entry ${l.namespace} is attached to the TenantGateway in ${l.winner}, which takes precedence; not relabelled`,
    )
    .join('; ');
}

/** What the controller's run leaves besides the store. */
export interface TenantGatewayRun {
  /**
   * Warnings an operator should see: a pass stopped by an error, and attachedNamespaces entries
   * another TenantGateway holds.
   */
  findings: Finding[];
  /** The hostname race of every http01 TenantGateway whose pass wrote route status, in pass order. */
  races: HostnameRace[];
}

/** Reconcile every TenantGateway in the store, sorted by namespace and name. */
export function runTenantGatewayController(store: Store, opts: ControllerOptions): TenantGatewayRun {
  const findings: Finding[] = [];
  const races: HostnameRace[] = [];
  const views = store.list(GROUPS.cozyGateway, 'TenantGateway').map(viewOf);
  // 1. Validation, for every TenantGateway up front: only those whose pass reaches the
  // labelling step take part in the namespace plan.
  const problems = new Map<TenantGatewayView, string[]>(views.map((v) => [v, tenantGatewayProblems(v)]));
  const active = views.filter((v) => problems.get(v)!.length === 0);
  const plan = planAttachment(store, active, opts.publishingNamespace ?? TENANT_ROOT);
  // Routes carrying an entry of this controller, read once: a pass drops its entry from those
  // that no longer attach to its Gateway.
  const withOurEntries = routesWithOurEntries(store);

  for (const v of views) {
    try {
      const ps = problems.get(v)!;
      if (ps.length > 0) throw new ReconcileError(`TenantGateway ${v.id}: ${ps.join('; ')}`);
      runPass(store, v, plan, opts.now, withOurEntries, races);
    } catch (e) {
      if (!(e instanceof ReconcileError)) throw e;
      writeTenantGatewayStatus(
        store,
        v,
        {
          type: 'Ready',
          status: 'False',
          observedGeneration: v.generation,
          reason: 'ReconcileError',
          message: e.message,
        },
        undefined,
        opts.now,
      );
      findings.push(
        warning(`Ready=False (ReconcileError): ${e.message}`, {
          object: refOf(v.obj),
          rule: 'tenantgateway.reconcile-error',
        }),
      );
      continue;
    }
    for (const l of plan.lost(v.namespace)) {
      findings.push(
        warning(
          `attachedNamespaces entry ${l.namespace} is held by the TenantGateway in ${l.winner}; this one does not relabel it`,
          {
            object: refOf(v.obj),
            field: 'spec.attachedNamespaces',
            rule: 'tenantgateway.attached-namespace-contest',
          },
        ),
      );
    }
  }
  return { findings, races };
}
