/**
 * One controller pass over a cluster state (docs/commands/reconcile.md): the TenantGateway
 * controller, then the wildcard-Secret replication controller (which reads the TenantGateways'
 * certMode the first left in place), then the Cilium-version hazards over the resulting Gateways.
 * Pure orchestration: objects and the clock in, the store with its changes and the findings out.
 * Used by `reconcile`, the KRM function, the Helm post-renderer and `render --with-controller`.
 */
import { error, type Finding } from '../k8s/diagnostics';
import { duplicateFindings } from '../k8s/duplicates';
import type { KObject } from '../k8s/model';
import { validateTenantGateway } from '../validation/tenantGatewayCrd';
import { isTenantGateway } from '../platform/kinds';
import { Store, type Change } from '../k8s/store';
import { renderPolicies } from '../charts/policies';
import { controllerWriteAdmission } from '../controller/writeAdmission';
import { isRfc3339, RFC3339_EXAMPLE } from '../k8s/time';
import { reconcileWildcardSecrets } from '../controller/wildcardSecrets';
import { wildcardChannel } from './platformChannel';
import { publishingNamespace } from '../platform/tenancy';
import { ciliumHazards } from '../controller/ciliumHazards';
import { SHIPPED_CILIUM_VERSION } from '../controller/ciliumVersion';
import { runTenantGatewayController } from '../controller/tenantGatewayController';
import type { HostnameRace } from '../controller/hostnameRace';
import { pushAll } from '../k8s/arrays';
import { unknownKeyFindings } from '../validation/inputValidation';
import { MAIN_VERSION, type CozystackVersion } from '../platform/cozystackVersions';
import { hasManagedFields } from '../k8s/managedFields';
import { applySchemaOf } from '../validation/applySchema';
import { withServerDefaults } from '../validation/serverDefaults';

export interface ReconcileInput {
  objects: KObject[];
  valuesFiles?: { file: string; values: Record<string, unknown> }[];
}

export interface ReconcileOptions {
  /** RFC 3339; the only clock (docs/decisions.md §8). */
  now: string;
  /** The Cilium version the hazards are judged for (default: the shipped one). */
  ciliumVersion?: string;
  /** The operator image is upstream Cilium, without the platform's patches (default false). */
  upstreamCilium?: boolean;
  /** The Cozystack version whose controllers and policies run (docs/versions.md §7); absent: main. */
  cozystack?: CozystackVersion;
}

export interface ReconcileResult {
  store: Store;
  changes: Change[];
  findings: Finding[];
  /**
   * The hostname race of each http01 TenantGateway the pass judged (who holds, lost or was
   * withdrawn from each hostname, and every route verdict): the data route status was written from.
   */
  races: HostnameRace[];
  /** Where the wildcard-Secret channel came from (for `-o plan`). */
  channelOrigin?: string;
  /** The Cilium version the hazards were judged for. */
  ciliumVersion?: string;
  /** Whether they were judged for the upstream operator image (without the platform's patches). */
  upstreamCilium?: boolean;
}

/**
 * A controller's rewrite of a live object (one read back from the API server: it carries
 * managedFields) as the API server stores it: with the server's defaults (docs/commands/diff.md "A
 * live snapshot is compared as it will be applied"), so that a rewrite equal to the live object
 * but for what the server adds is no change.
 */
function liveRewrite(o: KObject, current: KObject): KObject {
  return hasManagedFields(current) ? withServerDefaults(o, applySchemaOf(o.apiVersion, o.kind)) : o;
}

/**
 * `cozy-gw reconcile`'s pass (docs/commands/reconcile.md): the unknown keys of the values and the
 * Tenants first, then the pass's own findings.
 */
export function reconcileRequest(input: ReconcileInput, opts: ReconcileOptions): ReconcileResult {
  const result = reconcile(input, opts);
  // The keys the version knows (docs/versions.md §T6, §X1).
  const behaviour = (opts.cozystack ?? MAIN_VERSION).behaviour;
  result.findings = unknownKeyFindings(
    { objects: input.objects, valuesFiles: input.valuesFiles ?? [] },
    behaviour,
  ).concat(result.findings);
  return result;
}

export function reconcile(input: ReconcileInput, opts: ReconcileOptions): ReconcileResult {
  const findings: Finding[] = [];
  if (!isRfc3339(opts.now))
    findings.push(
      error(`--now ${JSON.stringify(opts.now)} is not an RFC 3339 time (want e.g. ${RFC3339_EXAMPLE})`, {
        rule: 'input.now',
      }),
    );
  // The platform's own policies judge the controller's writes, as the apiserver would. Built
  // first: it keys every object by its identity, so duplicates are looked for only when it holds
  // fewer identities than objects.
  const behaviour = (opts.cozystack ?? MAIN_VERSION).behaviour;
  const store = new Store(input.objects, {
    admission: controllerWriteAdmission(renderPolicies({}, { behaviour })),
    stored: liveRewrite,
  });
  if (store.originalIdentities < input.objects.length) pushAll(findings, duplicateFindings(input.objects));
  // A stored TenantGateway may break the current CRD (ratcheting admits a value stored before a
  // rule, and "the controller's own check ... is reached only where the CRD lags the controller"):
  // it is reconciled as it stands (the controller reports what it cannot render as Ready=False),
  // and the user is told that its next write would be refused. The version's CRD judges it
  // (docs/versions.md §9); a field that CRD does not know is pruned, which the warning says.
  for (const o of input.objects) {
    if (!isTenantGateway(o)) continue;
    for (const f of validateTenantGateway(o, behaviour)) {
      if (f.severity !== 'error') findings.push(f);
      else
        findings.push({
          ...f,
          severity: 'warning',
          message: `the TenantGateway CRD would refuse the next write of this object: ${f.message}`,
        });
    }
  }
  if (findings.some((f) => f.severity === 'error')) return { store, changes: [], findings, races: [] };

  // The platform values channel: it names the publishing tenant (publishing.ingressName), whose
  // TenantGateway wins a namespace two of them attach (docs/decisions.md §3), and the wildcard Secret.
  const ch = wildcardChannel(input.objects, input.valuesFiles ?? [], behaviour);
  const publishing = publishingNamespace(ch.channel ?? {});

  // 1. The TenantGateway controller (docs/behaviour.md §5).
  const run = runTenantGatewayController(store, { now: opts.now, publishingNamespace: publishing, behaviour });
  pushAll(findings, run.findings);

  // 2. Wildcard-Secret replication (docs/behaviour.md §6), after the TenantGateway pass: its
  //    targets read each TenantGateway's certMode (the edge exception). A version without the
  //    replication controller (docs/versions.md §C2) replicates nothing.
  pushAll(findings, ch.findings);
  if (behaviour.wildcardSecretReplication && !ch.findings.some((f) => f.severity === 'error'))
    pushAll(findings, reconcileWildcardSecrets(store, ch.channel, behaviour));

  // 3. What the chosen Cilium does with the Gateways the pass leaves.
  const version = opts.ciliumVersion ?? SHIPPED_CILIUM_VERSION;
  pushAll(findings, ciliumHazards(store, version, !opts.upstreamCilium));

  // What changed, computed when first asked for: `--all -o yaml` asks only for the deletions
  // (Store.deletions), and 20,000 route statuses made 20,000 change records no one read.
  let changes: Change[] | undefined;
  return {
    store,
    get changes() {
      return (changes ??= store.changes());
    },
    findings,
    races: run.races,
    channelOrigin: ch.origin,
    ciliumVersion: version.replace(/^v/, ''),
    upstreamCilium: Boolean(opts.upstreamCilium),
  };
}
