/**
 * The cozystack-basics admission policies (docs/behaviour.md §7, layers 2-8): one
 * `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy per layer with its CEL, each followed by
 * a same-named ValidatingAdmissionPolicyBinding, plus the layer-6 render-time guard over
 * `_cluster.gateway-attached-namespaces`. A release renders its own policies instead, as its
 * cozystack-basics templates have them (templates/cozystack-basics/policies/, docs/versions.md §X5).
 *
 * This module is the one source of truth for the policies: `render` prints them and `admit`
 * evaluates exactly these objects (src/admission/admit.ts).
 */
import * as jsyaml from 'js-yaml';
import { asset } from '../assets';
import { error, type Finding } from '../k8s/diagnostics';
import type { KObject } from '../k8s/model';
import { splitList } from './platformValues';
import { renderTemplate } from './templates';
import { type ClusterMap } from '../platform/tenancy';
import { NS_LABEL_HOST as HOST_LABEL } from '../platform/names';
import { pushAll } from '../k8s/arrays';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { DEFAULT_GATEWAY_API_VERSION, servedVersions, type GatewayApiServed } from '../platform/gatewayApiVersions';

/** docs/behaviour.md §7.0: every VAP and binding carries this label. */
export const MANAGED_LABEL = 'internal.cozystack.io/managed-by-cozystack';

export const POLICY_NAMES = {
  gateway: 'cozystack-gateway-hostname-policy',
  attachedNamespaces: 'cozystack-gateway-attached-namespaces-policy',
  tenantHost: 'cozystack-tenant-host-policy',
  namespaceLabel: 'cozystack-namespace-host-label-policy',
  route: 'cozystack-route-hostname-policy',
  /** The releases' second route policy, for TLSRoute (docs/versions.md §X5). */
  routeTls: 'cozystack-route-hostname-policy-tls',
  ingress: 'cozystack-ingress-hostname-policy',
} as const;

/** Layer 4/5: the trusted-caller whitelist (TRUSTED in docs/behaviour.md §7.0). */
export const TRUSTED_GROUPS = [
  'system:masters',
  'system:serviceaccounts:cozy-system',
  'system:serviceaccounts:cozy-cert-manager',
  'system:serviceaccounts:cozy-fluxcd',
  'system:serviceaccounts:kube-system',
];

export {
  DEFAULT_GATEWAY_API_VERSION,
  GATEWAY_API_SERVED,
  servedVersions,
  type GatewayApiServed,
} from '../platform/gatewayApiVersions';

// ---------------------------------------------------------------------------------------------
// CEL building blocks (docs/behaviour.md §7.0).

/** A CEL string literal (double-quoted; JSON escapes are valid CEL escapes). */
export function celString(s: string): string {
  return JSON.stringify(s);
}

/** TRUSTED: the caller's groups contain one of the whitelist. */
const TRUSTED_CEL = `has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in [${TRUSTED_GROUPS.map(celString).join(', ')}])`;

/** matchCondition `tenant-ns`: the object's namespace starts with `tenant-`. */
const TENANT_NS = { name: 'tenant-ns', expression: `request.namespace.startsWith('tenant-')` };

/** Whether namespaceObject carries the host label L. */
const HAS_L = `namespaceObject != null && has(namespaceObject.metadata.labels) && '${HOST_LABEL}' in namespaceObject.metadata.labels`;

/** L lowercased, or '' when absent. */
const L_VAR = {
  name: 'host',
  expression: `${HAS_L} ? namespaceObject.metadata.labels['${HOST_LABEL}'].lowerAscii() : ''`,
};

/** in(h, A): lowercased, h equals A or ends with `.`+A; never true for an empty A. */
function within(h: string, apex: string): string {
  return `(${apex} != '' && (${h}.lowerAscii() == ${apex} || ${h}.lowerAscii().endsWith('.' + ${apex})))`;
}

const labels = () => ({ [MANAGED_LABEL]: '' });

interface ResourceRule {
  apiGroups: string[];
  apiVersions: string[];
  operations: string[];
  resources: string[];
}

interface Validation {
  expression: string;
  messageExpression: string;
  reason: 'Forbidden';
}

function rule(group: string, versions: string[], resource: string): ResourceRule {
  return { apiGroups: [group], apiVersions: versions, operations: ['CREATE', 'UPDATE'], resources: [resource] };
}

function validation(expression: string, messageExpression: string): Validation {
  return { expression, messageExpression, reason: 'Forbidden' };
}

function policy(
  name: string,
  resourceRules: ResourceRule[],
  matchConditions: { name: string; expression: string }[],
  variables: { name: string; expression: string }[],
  validations: Validation[],
): KObject[] {
  const spec: Record<string, unknown> = { failurePolicy: 'Fail', matchConstraints: { resourceRules } };
  if (matchConditions.length) spec.matchConditions = matchConditions;
  if (variables.length) spec.variables = variables;
  spec.validations = validations;
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name, labels: labels() },
      spec,
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name, labels: labels() },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// The layers.

/**
 * Layer 2, cozystack-gateway-hostname-policy: Gateway listener hostnames stay within the
 * namespace's namespace.cozystack.io/host label, in cozystack-managed (tenant-*) namespaces.
 * Fail-open when the label is absent or empty (§7.2), and a Gateway without listeners passes.
 */
function gatewayPolicy(served: GatewayApiServed): KObject[] {
  const bad = `!has(l.hostname) || ${within('l.hostname', 'variables.host')}`;
  return policy(
    POLICY_NAMES.gateway,
    [rule('gateway.networking.k8s.io', served.gateways, 'gateways')],
    [TENANT_NS],
    [L_VAR],
    [
      validation(
        `variables.host == '' || !has(object.spec) || !has(object.spec.listeners) || object.spec.listeners.all(l, ${bad})`,
        `'Gateway listener hostnames ' + object.spec.listeners.filter(l, !(${bad})).map(l, l.hostname).join(', ') + ` +
          `' must equal ' + variables.host + ' or be a subdomain of it (the ${HOST_LABEL} label of namespace ' + request.namespace + ')'`,
      ),
    ],
  );
}

/**
 * Layer 3, cozystack-gateway-attached-namespaces-policy: a platform Package must not list a
 * tenant-* namespace in gateway.attachedNamespaces (catches kubectl edit packages.cozystack.io
 * bypassing the layer-6 render guard). Entries are trimmed, as the chart splits and trims them.
 */
function attachedNamespacesPolicy(): KObject[] {
  const path = 'object.spec.components.platform.values.gateway.attachedNamespaces';
  return policy(
    POLICY_NAMES.attachedNamespaces,
    [rule('cozystack.io', ['v1alpha1'], 'packages')],
    [
      {
        name: 'has-attached-namespaces',
        expression:
          `has(object.spec) && has(object.spec.components) && has(object.spec.components.platform) && ` +
          `has(object.spec.components.platform.values) && has(object.spec.components.platform.values.gateway) && has(${path})`,
      },
    ],
    [],
    [
      validation(
        `${path}.all(ns, !string(ns).trim().startsWith('tenant-'))`,
        `'gateway.attachedNamespaces must not contain tenant namespaces (' + ${path}.filter(ns, string(ns).trim().startsWith('tenant-')).join(', ') + ` +
          `'): a tenant gets its own Gateway with tenant.spec.gateway=true, and its children inherit it'`,
      ),
    ],
  );
}

/**
 * Layer 4, cozystack-tenant-host-policy: spec.host may be set or changed only by a trusted
 * caller (cluster-admins, cozystack/Flux service accounts). Gated to objects where the old or
 * the new spec.host is non-empty; an untrusted CREATE with a host is therefore denied.
 */
function tenantHostPolicy(): KObject[] {
  return policy(
    POLICY_NAMES.tenantHost,
    [rule('apps.cozystack.io', ['v1alpha1'], 'tenants')],
    [
      {
        name: 'host-set',
        expression:
          `(has(object.spec) && has(object.spec.host) && object.spec.host != '') || ` +
          `(oldObject != null && has(oldObject.spec) && has(oldObject.spec.host) && oldObject.spec.host != '')`,
      },
    ],
    [
      {
        name: 'oldHost',
        expression: `oldObject != null && has(oldObject.spec) && has(oldObject.spec.host) ? oldObject.spec.host : ''`,
      },
      { name: 'newHost', expression: `has(object.spec) && has(object.spec.host) ? object.spec.host : ''` },
      { name: 'trusted', expression: TRUSTED_CEL },
    ],
    [
      validation(
        `variables.oldHost == variables.newHost || variables.trusted`,
        // docs/behaviour.md §7.4: the message says spec.host can be set only by cluster
        // administrators or the cozystack/Flux service accounts, and names the user.
        `'spec.host can only be set by cluster-admins or cozystack/Flux service accounts: user ' + request.userInfo.username + ` +
          `' may not set or change it from "' + variables.oldHost + '" to "' + variables.newHost + '"'`,
      ),
    ],
  );
}

/**
 * Layer 5, cozystack-namespace-host-label-policy: the namespace.cozystack.io/host label is
 * immutable except for the same trusted callers: no first-time write on CREATE, no add or
 * change on UPDATE. A CREATE with the value "" passes (old "" equals new "").
 */
function namespaceLabelPolicy(): KObject[] {
  const val = (o: string) =>
    `${o} != null && has(${o}.metadata.labels) && '${HOST_LABEL}' in ${o}.metadata.labels ? ${o}.metadata.labels['${HOST_LABEL}'] : ''`;
  return policy(
    POLICY_NAMES.namespaceLabel,
    [rule('', ['v1'], 'namespaces')],
    [
      {
        name: 'host-label-present',
        expression:
          `(has(object.metadata.labels) && '${HOST_LABEL}' in object.metadata.labels) || ` +
          `(oldObject != null && has(oldObject.metadata.labels) && '${HOST_LABEL}' in oldObject.metadata.labels)`,
      },
    ],
    [
      { name: 'oldValue', expression: val('oldObject') },
      { name: 'newValue', expression: val('object') },
      { name: 'trusted', expression: TRUSTED_CEL },
    ],
    [
      validation(
        `variables.oldValue == variables.newValue || variables.trusted`,
        `'label ${HOST_LABEL} is immutable except for cluster-admins and cozystack/Flux service accounts: old "' + variables.oldValue + ` +
          `'", new "' + variables.newValue + '", user ' + request.userInfo.username`,
      ),
    ],
  );
}

/**
 * Layer 7, cozystack-route-hostname-policy: HTTPRoute, TLSRoute and GRPCRoute in every version
 * the bundle serves, in tenant-* namespaces. Fail-closed: no namespaceObject or no host label
 * denies (an empty label too: no hostname can be within it); spec.hostnames must be present and non-empty (a route without hostnames inherits every
 * hostname of the listeners it attaches to); every hostname must be in(·, L).
 */
function routePolicy(served: GatewayApiServed): KObject[] {
  const rules = (
    [
      ['httproutes', served.httproutes],
      ['tlsroutes', served.tlsroutes],
      ['grpcroutes', served.grpcroutes],
    ] as const
  )
    .filter(([, v]) => v.length > 0)
    .map(([r, v]) => rule('gateway.networking.k8s.io', v, r));
  const hasHostnames = `has(object.spec) && has(object.spec.hostnames) && size(object.spec.hostnames) > 0`;
  return policy(
    POLICY_NAMES.route,
    rules,
    [TENANT_NS],
    [L_VAR],
    [
      validation(
        `variables.host != ''`,
        `request.kind.kind + ' in namespace ' + request.namespace + ' is denied: the namespace has no (or an empty) ${HOST_LABEL} label, so no hostname can be checked'`,
      ),
      validation(
        hasHostnames,
        `request.kind.kind + ' must name its own hostnames in spec.hostnames: a route without hostnames inherits every hostname of the listeners it attaches to'`,
      ),
      validation(
        `variables.host == '' || !(${hasHostnames}) || object.spec.hostnames.all(h, ${within('h', 'variables.host')})`,
        `request.kind.kind + ' hostnames ' + object.spec.hostnames.filter(h, !${within('h', 'variables.host')}).join(', ') + ` +
          `' must equal ' + variables.host + ' or be a subdomain of it (the ${HOST_LABEL} label of namespace ' + request.namespace + ')'`,
      ),
    ],
  );
}

/**
 * Layer 8, cozystack-ingress-hostname-policy: Ingress hosts in tenant-* namespaces are within
 * the namespace's own apex L, or entirely outside the platform root apex R (a tenant's own
 * custom domain; no wildcard there). A rule without host and spec.defaultBackend (catch-alls)
 * are denied, each with its own message; so is a namespace without the label (fail-closed). R is baked in as a literal.
 */
function ingressPolicy(rootHost: string): KObject[] {
  const R = celString(rootHost.toLowerCase());
  const ok = (h: string) =>
    `(${h} != '' && (${within(h, 'variables.host')} || (!${h}.startsWith('*.') && ${h}.lowerAscii() != ${R} && !${h}.lowerAscii().endsWith(${celString('.' + rootHost.toLowerCase())}))))`;
  const ruleHost = `(has(r.host) ? r.host : '')`;
  const tail = `' must be within ' + variables.host + ' (the ${HOST_LABEL} label of namespace ' + request.namespace + ') or entirely outside the platform root apex ' + ${R} + ' (no wildcard there)'`;
  return policy(
    POLICY_NAMES.ingress,
    [rule('networking.k8s.io', ['v1'], 'ingresses')],
    [TENANT_NS],
    [L_VAR, { name: 'hasHost', expression: HAS_L }],
    [
      validation(
        `variables.hasHost`,
        `'Ingress in namespace ' + request.namespace + ' is denied: the namespace has no ${HOST_LABEL} label, so no hostname can be checked'`,
      ),
      validation(
        `!has(object.spec) || !has(object.spec.defaultBackend)`,
        `'Ingress spec.defaultBackend is a catch-all for unmatched traffic and is not allowed in tenant namespaces; name hosts in spec.rules instead'`,
      ),
      validation(
        `!has(object.spec) || !has(object.spec.rules) || object.spec.rules.all(r, ${ruleHost} != '')`,
        `'Ingress rules need a host: a rule without one is an unbounded catch-all, not allowed in tenant namespaces'`,
      ),
      validation(
        `!variables.hasHost || !has(object.spec) || !has(object.spec.rules) || object.spec.rules.all(r, ${ruleHost} == '' || ${ok(ruleHost)})`,
        `'Ingress host(s) ' + object.spec.rules.filter(r, ${ruleHost} != '' && !${ok(ruleHost)}).map(r, r.host).join(', ') + ${tail}`,
      ),
      validation(
        `!variables.hasHost || !has(object.spec) || !has(object.spec.tls) || object.spec.tls.all(t, !has(t.hosts) || t.hosts.all(h, ${ok('h')}))`,
        `'Ingress spec.tls host(s) ' + object.spec.tls.filter(t, has(t.hosts)).map(t, t.hosts.filter(h, !${ok('h')}).map(h, h == '' ? '<empty>' : h).join(', ')).filter(s, s != '').join(', ') + ${tail}`,
      ),
    ],
  );
}

export interface PolicyOptions {
  /** The Gateway API CRD bundle version (semver); default the bundle the platform ships. */
  gatewayApiVersion?: string;
  /** What the version renders (docs/versions.md §5, §10); default main's. */
  behaviour?: Behaviour;
}

/**
 * The policies a release's cozystack-basics renders (docs/versions.md §X5, §B2, §B5, §X4): its own
 * templates at the tag, as data (templates/cozystack-basics/policies/), in template order: gateway,
 * tenant-host, namespace-host-label, route, route-tls, then the Ingress policy where the version
 * has it and `_cluster.root-host` is non-empty as written (the template tests it untrimmed).
 * `hostComparisonsIgnoreCase` picks the variant whose comparisons lowercase both sides.
 */
function releasePolicies(cluster: ClusterMap, behaviour: Behaviour): KObject[] {
  const variant = behaviour.hostComparisonsIgnoreCase ? '-ignore-case' : '';
  const dir = 'cozystack-basics/policies';
  const out = [
    ...asset<KObject[]>(`templates/${dir}/gateway-hostname${variant}.yaml`),
    ...asset<KObject[]>(`templates/${dir}/tenant-host-and-label.yaml`),
    ...asset<KObject[]>(`templates/${dir}/route-hostname${variant}.yaml`),
  ];
  const root = cluster['root-host'];
  if (behaviour.ingressHostnamePolicy && typeof root === 'string' && root !== '') {
    const text = renderTemplate(`${dir}/ingress-hostname${variant}.yaml.hbs`, {
      rootHost: root,
      dotRootHost: `.${root}`,
    });
    pushAll(out, jsyaml.load(text) as KObject[]);
  }
  return out;
}

/**
 * The admission policies cozystack-basics renders, in the order of docs/behaviour.md §7:
 * gateway, attached-namespaces (docs/versions.md §X4: only where the version has layer 3),
 * tenant-host, namespace-label, route, ingress; each VAP followed by its binding. The ingress
 * policy renders only when `_cluster.root-host` is set (docs/versions.md §B2: and the version has
 * it). A release renders its own templates' policies (releasePolicies).
 */
export function renderPolicies(cluster: ClusterMap, opts: PolicyOptions = {}): KObject[] {
  const behaviour = opts.behaviour ?? MAIN_VERSION.behaviour;
  // Checked under every version: a bundle version that is none is refused whichever policies render.
  const served = servedVersions(opts.gatewayApiVersion ?? DEFAULT_GATEWAY_API_VERSION);
  if (behaviour.routeHostnamePolicy === 'releases') return releasePolicies(cluster, behaviour);
  const out: KObject[] = [...gatewayPolicy(served)];
  if (behaviour.attachedNamespacesGuard) pushAll(out, attachedNamespacesPolicy());
  pushAll(out, [...tenantHostPolicy(), ...namespaceLabelPolicy(), ...routePolicy(served)]);
  const root = typeof cluster['root-host'] === 'string' ? cluster['root-host'].trim() : '';
  if (root !== '' && behaviour.ingressHostnamePolicy) pushAll(out, ingressPolicy(root));
  return out;
}

/**
 * Layer 6: the cozystack-basics render fails when `_cluster.gateway-attached-namespaces`
 * (split and trimmed) holds a tenant-* entry. One finding per offending entry.
 */
export function attachedNamespacesGuard(cluster: ClusterMap, behaviour: Behaviour = MAIN_VERSION.behaviour): Finding[] {
  if (!behaviour.attachedNamespacesGuard) return [];
  return splitList(cluster['gateway-attached-namespaces'])
    .filter((ns) => ns.startsWith('tenant-'))
    .map((ns) =>
      // docs/behaviour.md §7.6: the message names the entry and points to tenant.spec.gateway=true.
      error(
        `gateway.attachedNamespaces contains "${ns}": tenant namespaces must not be attached to the publishing Gateway, give the tenant tenant.spec.gateway=true instead`,
        {
          rule: 'basics.attached-namespaces',
          field: 'gateway.attachedNamespaces',
          hint: 'a tenant that needs its own Gateway sets tenant.spec.gateway=true; its child tenants inherit it',
        },
      ),
    );
}
