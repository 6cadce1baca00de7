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
  type PassthroughListener,
} from './hostnameClaims';
import {
  applyNamespaceLabels,
  attachSet,
  childApexes,
  planAttachment,
  type AttachmentLoss,
  type AttachmentPlan,
} from './namespaceAttachment';
import { ANNOTATION_ATTACHED_BY, NS_LABEL_GATEWAY, perAppListenerName } from '../platform/names';
import { pushAll } from '../k8s/arrays';
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
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

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

/**
 * The plan's "why" of the Gateway write: each listener added (with the first claim that earned a
 * per-app one) or removed. `earns`: whether a claim earns the listeners of its hostnames (main: an
 * HTTPRoute wanting termination; a release's controller: any claim, docs/versions.md §X7).
 */
function listenerReasons(
  listeners: readonly Listener[],
  existing: KObject | undefined,
  claimants: readonly Claimant[],
  earns: (c: Claimant) => boolean,
): string {
  const before = new Set<string>();
  const spec = existing?.spec as { listeners?: { name?: unknown }[] } | undefined;
  for (const l of spec?.listeners ?? []) if (typeof l?.name === 'string') before.add(l.name);
  const after = new Set(listeners.map((l) => l.name));
  // The first claimant that earned each new per-app listener, for the plan's "why".
  const wanted = new Map<string, string>();
  for (const l of listeners)
    if (!before.has(l.name) && l.hostname !== undefined && l.name === perAppListenerName(l.hostname))
      wanted.set(l.hostname, l.name);
  const firstClaim = new Map<string, Claimant>();
  for (const c of claimants) {
    if (wanted.size === firstClaim.size || !earns(c)) continue;
    for (const h of c.hostnames) {
      const n = wanted.get(h);
      if (n !== undefined && !firstClaim.has(n)) firstClaim.set(n, c);
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

/** What every TenantGateway's pass of one run shares. */
interface RunContext {
  store: Store;
  plan: AttachmentPlan;
  /** RFC 3339; the only clock. */
  now: string;
  /** Routes carrying an entry of this controller, by the Gateway it names (read once per run). */
  withOurEntries: ReadonlyMap<string, readonly KObject[]>;
  /** The hostname race of each http01 pass that wrote route status. */
  races: HostnameRace[];
  behaviour: Behaviour;
}

/**
 * Step 8, route statuses (docs/behaviour.md §5.9): under http01 from the race, which then goes to
 * `races`; the apex-wide modes remove or refuse entries; entries of routes that left the Gateway go.
 */
function writeStatuses(
  ctx: RunContext,
  v: TenantGatewayView,
  routes: readonly KObject[],
  claimants: readonly Claimant[],
  passthrough: readonly PassthroughListener[],
  served: readonly string[],
): void {
  const { store, now, behaviour } = ctx;
  if (v.certMode === 'http01') {
    const race = decideHostnames(
      { v, passthrough, served: new Set(served), plainHttpNamespaces: plainHttpNamespaces(v) },
      claimants,
      behaviour,
    );
    writeRouteStatuses(store, v, routes, race.verdicts, now, behaviour);
    ctx.races.push(race);
  } else {
    writeApexWideRouteStatuses(store, v, routes, now, behaviour);
  }
  const candidates = ctx.withOurEntries.get(gatewayKey(v.namespace, v.name)) ?? [];
  dropDetachedEntries(store, v, candidates, routes, behaviour);
}

/**
 * One TenantGateway's pass (docs/behaviour.md §5.1 steps 2-10; step 1 ran before the namespace plan). Under http01
 * the hostname race goes to `races` as soon as route status is written from it (the other modes
 * collect no claims).
 */
function runPass(ctx: RunContext, v: TenantGatewayView): void {
  const { store, plan, behaviour } = ctx;
  const tgw = v.obj;
  const passthrough = passthroughListenersOf(v);
  const routes = attachedRoutes(store, v, attachSet(plan, v, behaviour));

  // 2. Claims (http01 only).
  const claimants = v.certMode === 'http01' ? collectClaimants(routes, v) : [];
  const served = v.certMode === 'http01' ? servedHostnames(claimants, passthrough, behaviour) : [];

  // 3. Namespace labels.
  applyNamespaceLabels(store, plan, v);

  // 4. The Gateway: listeners assembled and counted before it is written.
  const children = v.certMode === 'http01' ? [] : childApexes(store, plan, v);
  const listeners = renderListeners(v, served, children, passthrough, behaviour);
  const existingGateway = store.get(GROUPS.gateway, 'Gateway', v.namespace, v.name);
  checkListeners(v, listeners, behaviour, existingGateway !== undefined);
  const earns = behaviour.listenerClaims === 'releases' ? () => true : wantsTermination;
  const why = listenerReasons(listeners, existingGateway, claimants, earns);
  const gateway = reconcileGateway(store, v, listeners, why);

  // A mode a release's controller does not know (edge, docs/versions.md §X1) renders as http01 up
  // to here, as upstream's does, and fails where the Issuer's solver is chosen.
  if (!v.certModeKnown) throw new ReconcileError(`render Issuer: unknown certMode ${JSON.stringify(v.certModeRaw)}`);

  // 5-7. Issuer, wildcard Certificate, per-listener Certificates.
  reconcileIssuer(store, tgw);
  reconcileWildcardCertificate(store, tgw, children);
  reconcilePerListenerCertificates(store, tgw, served);

  // 8. Route statuses.
  writeStatuses(ctx, v, routes, claimants, passthrough, served);

  // 9. Redirect.
  reconcileRedirectRoute(store, tgw, behaviour);

  // 10. Status. A release's controller says nothing there of the namespaces another TenantGateway
  // labels (docs/versions.md §X3).
  const entries = listenerEntries(listeners, gateway);
  const ready = readyCondition(v, gateway, entries);
  const lost = plan.lost(v.namespace);
  if (lost.length > 0 && behaviour.attachedNamespacesPublishingOnly) ready.message += `; ${lostMessage(lost)}`;
  writeTenantGatewayStatus(store, v, ready, entries, ctx.now);
}

function lostMessage(lost: { namespace: string; winner: string }[]): string {
  return lost
    .map(
      (l) =>
        `attachedNamespaces entry ${l.namespace} is attached to the TenantGateway in ${l.winner}, which takes precedence; not relabelled`,
    )
    .join('; ');
}

/**
 * The warnings of the attachedNamespaces entries a TenantGateway does not label (docs/decisions.md
 * §3): one per entry, or under a release, where every TenantGateway lists the platform's
 * namespaces, one naming them all and saying that its controller settles nothing (docs/versions.md §X3).
 */
function contestFindings(v: TenantGatewayView, lost: readonly AttachmentLoss[], behaviour: Behaviour): Finding[] {
  const at = { object: refOf(v.obj), field: 'spec.attachedNamespaces' };
  if (behaviour.attachedNamespacesPublishingOnly)
    return lost.map((l) =>
      warning(
        `attachedNamespaces entry ${l.namespace} is held by the TenantGateway in ${l.winner}; this one does not relabel it`,
        { ...at, rule: 'tenantgateway.attached-namespace-contest' },
      ),
    );
  if (lost.length === 0) return [];
  const winners = [...new Set(lost.map((l) => l.winner))].sort();
  return [
    warning(
      `attachedNamespaces ${lost.map((l) => l.namespace).join(', ')} are also listed by the TenantGateway in ${winners.join(', ')}, which labels them in this pass (the publishing tenant's wins, then the smallest namespace); this Cozystack version's own controller settles no such contest: each TenantGateway's pass relabels them, so in a cluster their ${NS_LABEL_GATEWAY} label and ${ANNOTATION_ATTACHED_BY} annotation flap between the TenantGateways`,
      {
        ...at,
        rule: 'tenantgateway.attached-namespaces-flap',
        hint: "a release's gateway chart writes the platform's gateway.attachedNamespaces on every TenantGateway; only the publishing tenant's should serve them",
      },
    ),
  ];
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
  const behaviour = opts.behaviour ?? MAIN_VERSION.behaviour;
  const views = store.list(GROUPS.cozyGateway, 'TenantGateway').map((t) => viewOf(t, behaviour));
  // 1. Validation, for every TenantGateway up front: only those whose pass reaches the
  // labelling step take part in the namespace plan.
  const problems = new Map<TenantGatewayView, string[]>(views.map((v) => [v, tenantGatewayProblems(v, behaviour)]));
  const active = views.filter((v) => problems.get(v)!.length === 0);
  const plan = planAttachment(store, active, opts.publishingNamespace ?? TENANT_ROOT);
  // Routes carrying an entry of this controller, read once: a pass drops its entry from those
  // that no longer attach to its Gateway.
  const ctx: RunContext = { store, plan, now: opts.now, withOurEntries: routesWithOurEntries(store), races, behaviour };

  for (const v of views) {
    try {
      const ps = problems.get(v)!;
      if (ps.length > 0) throw new ReconcileError(`TenantGateway ${v.id}: ${ps.join('; ')}`);
      runPass(ctx, v);
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
    pushAll(findings, contestFindings(v, plan.lost(v.namespace), behaviour));
  }
  return { findings, races };
}
