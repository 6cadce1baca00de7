/**
 * Cilium-version hazards: what the Gateway API implementation this platform ships does with the
 * Gateways a reconcile pass leaves, version by version (docs/behaviour.md §8;
 * the route kinds of §5.3, the passthrough forms of §5.13).
 *
 * Each hazard is a rule with the versions it applies to and whether the operator image this
 * platform ships (packages/system/cilium/images/cilium-operator/patches) already removes it.
 * `ciliumHazards` runs the rules that apply to one version over every Gateway in the store that
 * Cilium reconciles. Pure: the store and a version in, findings out.
 */
import satisfies from 'semver/functions/satisfies';
import { error, type Finding, type Severity } from '../k8s/diagnostics';
import { isObject, refOf, type KObject } from '../k8s/model';
import { NOT_A_CILIUM_VERSION, parseCiliumVersion } from './ciliumVersion';
import { GROUPS, type Store } from '../k8s/store';
import {
  explicitRouteKinds,
  hostnamesOverlap,
  listenerAdmitsNamespace,
  listenerNamespaces,
  listenerRouteKinds,
  parentRefNamespace,
  parentRefSelectsListener,
  parentRefTargets,
  routeHostnames,
  routeParentRefs,
  strictlyNarrower,
  type ParentRef,
} from '../k8s/gatewayApi';

export const CILIUM_CONTROLLER = 'io.cilium/gateway-controller';

export interface ListenerView {
  index: number;
  name: string;
  port: number;
  protocol: string;
  hostname?: string;
  tlsMode?: string;
  /** Explicit allowedRoutes.kinds, or undefined when the list is unset or empty. */
  kinds?: string[];
  /** allowedRoutes.namespaces as written (unset: Same). */
  namespaces?: Record<string, unknown>;
}

export interface GatewayView {
  gateway: KObject;
  listeners: ListenerView[];
  /** Names of passthrough listeners a TLSRoute attaches to. */
  routed: Set<string>;
  /** Whether a GRPCRoute names this Gateway as a parent. */
  grpcAttached: boolean;
}

export interface HazardContext {
  version: string;
  /** The operator image carries the platform's patches (listenerPairConflict narrowing, cilium#48269). */
  patched: boolean;
}

export interface HazardRule {
  id: string;
  /** The semver range of Cilium versions the hazard exists in. */
  versions: string;
  /** True when the platform's patched operator image removes the hazard (it applies upstream only). */
  upstreamOnly?: boolean;
  severity: Severity;
  /** The spec passage the rule encodes. */
  source: string;
  check: (
    gw: GatewayView,
    ctx: HazardContext,
    all: GatewayView[],
  ) => { message: string; listener?: ListenerView; severity?: Severity }[];
}

// ----- listener reading --------------------------------------------------------------------------

function readListeners(gw: KObject): ListenerView[] {
  const spec = isObject(gw.spec) ? gw.spec : {};
  const ls = Array.isArray(spec.listeners) ? spec.listeners : [];
  return ls.filter(isObject).map((l, index) => {
    const tls = isObject(l.tls) ? l.tls : undefined;
    const kinds = explicitRouteKinds(l);
    const out: ListenerView = {
      index,
      name: String(l.name ?? ''),
      port: Number(l.port ?? 0),
      protocol: String(l.protocol ?? ''),
    };
    if (typeof l.hostname === 'string' && l.hostname !== '') out.hostname = l.hostname;
    if (tls && typeof tls.mode === 'string') out.tlsMode = tls.mode;
    if (kinds) out.kinds = kinds;
    out.namespaces = listenerNamespaces(l);
    return out;
  });
}

export function isTerminate(l: ListenerView): boolean {
  return l.protocol === 'HTTPS' || (l.protocol === 'TLS' && l.tlsMode !== 'Passthrough');
}

export function isPassthrough(l: ListenerView): boolean {
  return l.protocol === 'TLS' && l.tlsMode === 'Passthrough';
}

/** The parentRefs of a route that name this Gateway. */
function parentRefsTo(route: KObject, gw: KObject): ParentRef[] {
  const gateway = { namespace: gw.metadata.namespace ?? '', name: gw.metadata.name };
  return routeParentRefs(route).filter((r): r is ParentRef =>
    parentRefTargets(r, route.metadata.namespace ?? '', gateway),
  );
}

/**
 * The routes of a kind that name each Gateway in a parentRef, by Gateway namespace/name, in the
 * store's order (for speed: built once per ciliumHazards call instead of listing every route of
 * the cluster for every Gateway).
 */
type RoutesByGateway = Map<string, KObject[]>;

function gatewayKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}\u0000${name}`;
}

function routesByGateway(store: Store, kind: string): RoutesByGateway {
  const out: RoutesByGateway = new Map();
  for (const r of store.list(GROUPS.gateway, kind)) {
    const keys = new Set<string>();
    for (const p of routeParentRefs(r)) {
      if (!isObject(p) || typeof p.name !== 'string') continue;
      keys.add(gatewayKey(parentRefNamespace(p, r.metadata.namespace ?? ''), p.name));
    }
    for (const k of keys) {
      let rs = out.get(k);
      if (!rs) out.set(k, (rs = []));
      rs.push(r);
    }
  }
  return out;
}

function candidateRoutes(gw: KObject, index: RoutesByGateway): KObject[] {
  return index.get(gatewayKey(gw.metadata.namespace, gw.metadata.name)) ?? [];
}

/**
 * Passthrough listeners a TLSRoute attaches to: "a passthrough listener with no TLSRoute behind it
 * contributes no filter chain". A route attaches where its parentRef selects the listener and the
 * listener's allowedRoutes admit its namespace (Gateway API's rule, k8s/gatewayApi.ts).
 */
function routedPassthrough(
  gw: KObject,
  listeners: ListenerView[],
  tlsRoutes: RoutesByGateway,
  labelsOf: (ns: string) => Record<string, string> | undefined,
): Set<string> {
  const out = new Set<string>();
  const routes = candidateRoutes(gw, tlsRoutes);
  const gwNamespace = gw.metadata.namespace ?? '';
  for (const l of listeners.filter(isPassthrough)) {
    for (const r of routes) {
      if (!listenerAdmitsNamespace(l.namespaces ?? {}, gwNamespace, r.metadata.namespace ?? '', labelsOf)) continue;
      const hs = routeHostnames(r);
      const hostOk = hs.length === 0 || hs.some((h) => hostnamesOverlap(h, l.hostname));
      if (!hostOk) continue;
      const hit = parentRefsTo(r, gw).some((p) => parentRefSelectsListener(p, l));
      if (hit) out.add(l.name);
    }
  }
  return out;
}

function attachedRoutesOfKind(gw: KObject, index: RoutesByGateway): KObject[] {
  return candidateRoutes(gw, index).filter((r) => parentRefsTo(r, gw).length > 0);
}

/**
 * NeedsPerPortListeners (Cilium >= 1.19.6): more than one HTTPS port, more than one TLS-passthrough
 * port carrying a route, or an HTTPS chain and a routed passthrough chain on different ports
 * sharing an SNI. Returns the clause that holds, or undefined.
 */
export function needsPerPortListeners(gw: GatewayView): string | undefined {
  const https = gw.listeners.filter(isTerminate);
  const routed = gw.listeners.filter((l) => isPassthrough(l) && gw.routed.has(l.name));
  const httpsPorts = new Set(https.map((l) => l.port));
  if (httpsPorts.size > 1) return `more than one HTTPS port (${[...httpsPorts].sort((a, b) => a - b).join(', ')})`;
  const ptPorts = new Set(routed.map((l) => l.port));
  if (ptPorts.size > 1)
    return `more than one TLS-passthrough port carrying a route (${[...ptPorts].sort((a, b) => a - b).join(', ')})`;
  const across = sniSharing(gw, (l) => isPassthrough(l) && gw.routed.has(l.name)).find(([t, p]) => t.port !== p.port);
  if (across)
    return `HTTPS listener ${across[0].name} (port ${across[0].port}) and routed passthrough listener ${across[1].name} (port ${across[1].port}) share an SNI`;
  return undefined;
}

function host(l: ListenerView): string {
  return l.hostname ?? '(any hostname)';
}

/** Every terminate listener with every passthrough listener that answers an SNI it answers, in order. */
function sniSharing(
  gw: GatewayView,
  passthrough = (l: ListenerView) => isPassthrough(l),
): [ListenerView, ListenerView][] {
  const out: [ListenerView, ListenerView][] = [];
  const ps = gw.listeners.filter(passthrough);
  for (const t of gw.listeners.filter(isTerminate))
    for (const p of ps) if (hostnamesOverlap(t.hostname, p.hostname)) out.push([t, p]);
  return out;
}

function pairs<T>(xs: T[]): [T, T][] {
  const out: [T, T][] = [];
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) out.push([xs[i], xs[j]]);
  return out;
}

// ----- the rules ----------------------------------------------------------------------------------

export const HAZARD_RULES: HazardRule[] = [
  {
    id: 'cilium.passthrough-sni-across-ports',
    versions: '<1.19.6',
    severity: 'warning',
    source:
      'Layer-4 TLS passthrough on native ports: "Cilium before v1.19.6 selected a passthrough backend by SNI alone and could not tell two matching listeners apart even on different ports"',
    check: (gw) =>
      pairs(gw.listeners.filter(isPassthrough))
        .filter(([a, b]) => a.port !== b.port && hostnamesOverlap(a.hostname, b.hostname))
        .map(([a, b]) => ({
          listener: b,
          message: `passthrough listeners ${a.name} (port ${a.port}, ${host(a)}) and ${b.name} (port ${b.port}, ${host(b)}) match the same SNI: this Cilium selects a passthrough backend by SNI alone, so the stream goes to whichever listener wins, on either port`,
        })),
  },
  {
    id: 'cilium.sni-chains-share-one-envoy-listener',
    versions: '<1.19.6',
    severity: 'warning',
    source:
      'Why the Cilium version matters: "On v1.19.5 the whole Gateway is translated into a single Envoy listener … A terminate chain and a passthrough chain carrying one name therefore land in the same listener whichever Gateway port declared them"',
    check: (gw) =>
      sniSharing(gw)
        .filter(([t, p]) => t.port !== p.port)
        .map(([t, p]) => ({
          listener: p,
          message: `terminate listener ${t.name} (port ${t.port}, ${host(t)}) and passthrough listener ${p.name} (port ${p.port}, ${host(p)}) share an SNI: this Cilium translates the Gateway into one Envoy listener selected by SNI alone, so both filter chains land in it whichever port declared them`,
        })),
  },
  {
    id: 'cilium.passthrough-port-not-a-boundary',
    versions: '*',
    severity: 'info',
    source:
      'Why the Cilium version matters: "the declared port is where the listener is published, not where the backend can be reached … Cilium v1.19.6 restores the port boundary, but conditionally, and only for a listener something actually routes to"',
    check: (gw, ctx) => {
      const split = satisfies(ctx.version, '>=1.19.6', { includePrerelease: true })
        ? needsPerPortListeners(gw)
        : undefined;
      if (split) return [];
      return gw.listeners
        .filter((l) => isPassthrough(l) && l.port !== 443)
        .map((l) => ({
          listener: l,
          message: `passthrough listener ${l.name} is declared on port ${l.port}, but a TLS handshake carrying ${host(l)} selects it on any port the load balancer forwards, 443 included: the hostname is the access surface, so give the backend its own authentication`,
        }));
    },
  },
  {
    id: 'cilium.explicit-kinds-apply-gateway-wide',
    versions: '<1.19.6',
    severity: 'warning',
    source:
      'Security model 1: "before v1.19.6 Cilium turned an explicit TLSRoute into a rejection of every HTTPRoute on the Gateway, whatever port the listener sat on"; native ports: "a listener that spelled its kinds out had them applied to every route on the Gateway, not to itself"',
    check: (gw) => {
      const out: { message: string; listener?: ListenerView }[] = [];
      const admitted = new Set(gw.listeners.flatMap(listenerRouteKinds));
      for (const l of gw.listeners.filter((x) => x.kinds !== undefined)) {
        const missing = [...admitted]
          .filter((k) => !l.kinds!.includes(k) && (k === 'HTTPRoute' || k === 'GRPCRoute'))
          .sort();
        for (const k of missing) {
          if (k === 'GRPCRoute' && !gw.grpcAttached) continue;
          out.push({
            listener: l,
            message: `listener ${l.name} (port ${l.port}) names its route kinds explicitly without ${k}: this Cilium applies a listener's explicit kinds to every route on the Gateway, so every ${k} attached to it is rejected, whatever listener it names`,
          });
        }
      }
      return out;
    },
  },
  {
    id: 'cilium.divergent-kinds-on-port',
    versions: '*',
    severity: 'warning',
    source:
      'Security model 1: "divergent kind sets on one port make Cilium merge the listeners and drop HTTPRoutes (cilium#45559)"',
    check: (gw) => {
      const byPort = new Map<number, ListenerView[]>();
      for (const l of gw.listeners) {
        const onPort = byPort.get(l.port);
        if (onPort) onPort.push(l);
        else byPort.set(l.port, [l]);
      }
      const out: { message: string; listener?: ListenerView }[] = [];
      for (const [port, ls] of [...byPort].sort((a, b) => a[0] - b[0])) {
        const sets = new Map<string, string[]>();
        for (const l of ls) {
          const k = listenerRouteKinds(l).join(',');
          const names = sets.get(k);
          if (names) names.push(l.name);
          else sets.set(k, [l.name]);
        }
        if (sets.size < 2) continue;
        const desc = [...sets].map(([k, names]) => `[${k || 'none'}] on ${names.join(', ')}`).join('; ');
        out.push({
          listener: ls[0],
          message: `listeners on port ${port} admit different route kinds (${desc}): Cilium merges the listeners of one port and drops HTTPRoutes (cilium#45559); give every listener on the port the same allowedRoutes.kinds`,
        });
      }
      return out;
    },
  },
  {
    id: 'cilium.no-conflicted-condition',
    versions: '<1.19.6',
    severity: 'warning',
    source:
      'One behaviour change: "Cilium before v1.19.6 implements none of that: v1.19.5 writes Accepted, Programmed and ResolvedRefs on a listener and has no Conflicted condition anywhere, so the pair is admitted, translated, and reported by nothing"',
    check: (gw) =>
      sniSharing(gw)
        .filter(
          ([t, p]) =>
            t.port === p.port && !strictlyNarrower(p.hostname, t.hostname) && !strictlyNarrower(t.hostname, p.hostname),
        )
        .map(([t, p]) => ({
          listener: p,
          message: `terminate listener ${t.name} and passthrough listener ${p.name} both answer ${host(p)} on port ${p.port}: this Cilium has no Conflicted condition, so the pair is admitted and translated and nothing on the objects says whether the name is terminated or passed through`,
        })),
  },
  {
    id: 'cilium.listener-pair-conflict',
    versions: '>=1.19.6',
    severity: 'warning',
    source:
      'Why the Cilium version matters: "v1.19.6 adds a check, listenerPairConflict … finds an HTTPS-terminate and a TLS-passthrough listener sharing a port and an overlapping SNI … and marks both Conflicted and not Accepted; from v1.20 the pair is also dropped from Envoy … The operator image this platform ships accepts the pair when the passthrough hostname is strictly narrower"',
    check: (gw, ctx) => {
      const out: { message: string; listener?: ListenerView }[] = [];
      const dropped = satisfies(ctx.version, '>=1.20.0-0', { includePrerelease: true })
        ? ' and drops both from Envoy'
        : '';
      for (const [t, p] of sniSharing(gw)) {
        if (t.port !== p.port) continue;
        const narrower = strictlyNarrower(p.hostname, t.hostname);
        if (narrower && ctx.patched) continue;
        const why = narrower
          ? 'the upstream operator flags the pair even though the passthrough hostname is strictly narrower (the platform image accepts that pair)'
          : 'the passthrough hostname is not strictly narrower than the terminate one, so even the platform image flags the pair';
        out.push({
          listener: p,
          message: `terminate listener ${t.name} (${host(t)}) and passthrough listener ${p.name} (${host(p)}) share port ${p.port} and an SNI: listenerPairConflict marks both Conflicted and not Accepted${dropped}, and the TenantGateway's Ready folds that in; ${why}`,
        });
      }
      return out;
    },
  },
  {
    id: 'cilium.needs-per-port-listeners',
    versions: '>=1.19.6',
    severity: 'info',
    source:
      'Why the Cilium version matters: "NeedsPerPortListeners is true when the model has more than one HTTPS port, or more than one TLS-passthrough port carrying a route, or an HTTPS chain and a routed passthrough chain on different ports sharing an SNI"',
    check: (gw) => {
      const clause = needsPerPortListeners(gw);
      return clause
        ? [
            {
              message: `NeedsPerPortListeners holds (${clause}): Cilium gives each port its own Envoy listener, so each passthrough port is a boundary again`,
            },
          ]
        : [];
    },
  },
  {
    id: 'cilium.duplicate-envoy-listener-name',
    versions: '>=1.19.6',
    upstreamOnly: true,
    severity: 'warning',
    source:
      'Why the Cilium version matters: "Port 443 then carries HTTPS and passthrough listeners at once, and upstream emits two Envoy listeners with one name for it, which the agent refuses (cilium/cilium#48269); the operator image this platform ships carries the fix"',
    check: (gw) => {
      const clause = needsPerPortListeners(gw);
      if (!clause) return [];
      const ports = [...new Set(gw.listeners.filter(isTerminate).map((l) => l.port))]
        .filter((port) => gw.listeners.some((l) => l.port === port && isPassthrough(l)))
        .sort((a, b) => a - b);
      return ports.map((port) => ({
        message: `the listeners split per port (${clause}) and port ${port} carries HTTPS and passthrough listeners at once: the upstream operator emits two Envoy listeners with one name for it and the agent refuses them (cilium#48269)`,
      }));
    },
  },
  {
    id: 'cilium.sharing-key-port-collision',
    versions: '*',
    severity: 'warning',
    source:
      'Known limitations: "every tenant Gateway claims 443/TCP, so lbipam.cilium.io/sharing-key is inactive on port collision (cilium#21270, cilium#42756)"',
    check: (gw, _ctx, all) => {
      const key = sharingKey(gw.gateway);
      if (!key) return [];
      const ports = new Set(gw.listeners.map((l) => l.port));
      const others = all.filter(
        (o) => o !== gw && sharingKey(o.gateway) === key && o.listeners.some((l) => ports.has(l.port)),
      );
      if (!others.length) return [];
      return [
        {
          message: `Gateway shares lbipam.cilium.io/sharing-key ${JSON.stringify(key)} with ${others.map((o) => `${o.gateway.metadata.namespace}/${o.gateway.metadata.name}`).join(', ')} on a common port: the sharing key is inactive on a port collision, so each Gateway gets its own LB IP (cilium#21270, cilium#42756)`,
        },
      ];
    },
  },
];

function sharingKey(gw: KObject): string | undefined {
  const spec = isObject(gw.spec) ? gw.spec : {};
  const infra =
    isObject(spec.infrastructure) && isObject(spec.infrastructure.annotations) ? spec.infrastructure.annotations : {};
  const k = infra['lbipam.cilium.io/sharing-key'] ?? gw.metadata.annotations?.['lbipam.cilium.io/sharing-key'];
  return typeof k === 'string' && k !== '' ? k : undefined;
}

/** The rules that apply to one Cilium version (and operator image). */
export function rulesFor(ctx: HazardContext): HazardRule[] {
  return HAZARD_RULES.filter(
    (r) => satisfies(ctx.version, r.versions, { includePrerelease: true }) && !(r.upstreamOnly && ctx.patched),
  );
}

function reconciledByCilium(gw: KObject, store: Store): boolean {
  const cls = isObject(gw.spec) ? gw.spec.gatewayClassName : undefined;
  if (typeof cls !== 'string') return true;
  const gc = store.get(GROUPS.gateway, 'GatewayClass', undefined, cls);
  const ctrl = gc && isObject(gc.spec) ? gc.spec.controllerName : undefined;
  return typeof ctrl !== 'string' || ctrl === CILIUM_CONTROLLER;
}

/**
 * The hazards that apply to the Gateways in the store under Cilium `version` (semver, `v` prefix
 * allowed). `patched` (default true) is the platform's operator image. An invalid version is an
 * error finding. Gateways whose GatewayClass in the store names another controller are skipped.
 */
export function ciliumHazards(store: Store, version: string, patched = true): Finding[] {
  const v = parseCiliumVersion(version);
  if (!v)
    return [error(`--cilium-version ${JSON.stringify(version)} ${NOT_A_CILIUM_VERSION}`, { rule: 'cilium.version' })];
  const ctx: HazardContext = { version: v, patched };
  const tlsRoutes = routesByGateway(store, 'TLSRoute');
  const grpcRoutes = routesByGateway(store, 'GRPCRoute');
  const labelsOf = (ns: string) => store.get(GROUPS.core, 'Namespace', undefined, ns)?.metadata.labels;
  const views: GatewayView[] = store
    .list(GROUPS.gateway, 'Gateway')
    .filter((g) => reconciledByCilium(g, store))
    .map((g) => {
      const listeners = readListeners(g);
      return {
        gateway: g,
        listeners,
        routed: routedPassthrough(g, listeners, tlsRoutes, labelsOf),
        grpcAttached: attachedRoutesOfKind(g, grpcRoutes).length > 0,
      };
    });
  const out: Finding[] = [];
  const rules = rulesFor(ctx);
  for (const gw of views) {
    for (const rule of rules) {
      for (const h of rule.check(gw, ctx, views)) {
        out.push({
          severity: h.severity ?? rule.severity,
          rule: rule.id,
          object: refOf(gw.gateway),
          ...(h.listener ? { field: `spec.listeners[${h.listener.index}]` } : {}),
          message: `Cilium ${v}${rule.upstreamOnly ? ' (upstream operator image)' : ''}: ${h.message}`,
        });
      }
    }
  }
  return out;
}
