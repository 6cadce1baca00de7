/**
 * The Helm hook objects in scope (docs/tenant.md §2.7-2.9, docs/decisions.md §Q5): the tenant chart's pre-delete
 * cleanup (`cleanup-job.yaml`: ServiceAccount and Job `cozy-system/T-cleanup`, Role and
 * RoleBinding `T/T-cleanup`) and the gateway chart's post-delete ACME cleanup
 * (`hooks/cleanup-acme.yaml`: Job, ServiceAccount, Role, RoleBinding `T/gateway-cleanup`). They are
 * templates (templates/tenant/cleanup-job.yaml.hbs and its releases' shapes, docs/versions.md §T3,
 * §T4; templates/gateway/cleanup-acme.yaml.hbs, which the v1.5 releases lack, §G1),
 * emitted only on request (`--include-hooks`, for Argo CD) with their annotations and with
 * `metadata.namespace` filled in; by default they are left out and one note says which and why.
 * Pure.
 */
import * as jsyaml from 'js-yaml';
import type { Finding } from '../k8s/diagnostics';
import type { KObject } from '../k8s/model';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { renderTemplate } from './templates';

/** The gateway chart's release name (docs/decisions.md §Q1): the hook objects are `<release>-cleanup`. */
export const GATEWAY_RELEASE = 'gateway';

function documents(text: string): KObject[] {
  return jsyaml.loadAll(text).filter((d): d is KObject => d !== null && d !== undefined);
}

/** The template of each shape of the tenant's cleanup hook (docs/versions.md §T3, §T4). */
const TENANT_CLEANUP_TEMPLATES: Record<Behaviour['tenantCleanupHook'], string> = {
  'v1.5': 'tenant/cleanup-job-v1.5.yaml.hbs',
  'v1.6': 'tenant/cleanup-job-v1.6.yaml.hbs',
  bounded: 'tenant/cleanup-job.yaml.hbs',
};

/**
 * docs/tenant.md §2.7: the tenant's 4 pre-delete hook objects, in template order (T is a validated
 * namespace name), in the version's shape (docs/versions.md §T3, §T4).
 */
export function tenantCleanupHook(T: string, behaviour: Behaviour = MAIN_VERSION.behaviour): KObject[] {
  return documents(renderTemplate(TENANT_CLEANUP_TEMPLATES[behaviour.tenantCleanupHook], { T }));
}

/** docs/tenant.md §2.8: the gateway release's 4 post-delete hook objects in T, in template order. */
export function gatewayCleanupHook(T: string): KObject[] {
  return documents(renderTemplate('gateway/cleanup-acme.yaml.hbs', { T, release: GATEWAY_RELEASE }));
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * docs/decisions.md §Q5: the note on standard error when the hooks are left out: which objects (per tenant, and
 * per tenant that owns a Gateway) and why. None when nothing was left out.
 */
export function omittedHooksNote(tenants: number, gatewayOwners: number): Finding | undefined {
  if (tenants === 0 && gatewayOwners === 0) return undefined;
  const parts: string[] = [];
  if (tenants)
    parts.push(
      `the pre-delete cleanup of ${plural(tenants, 'tenant')} (ServiceAccount and Job cozy-system/<T>-cleanup, Role and RoleBinding <T>/<T>-cleanup)`,
    );
  if (gatewayOwners)
    parts.push(
      `the post-delete ACME cleanup of ${plural(gatewayOwners, 'Gateway owner')} (Job, ServiceAccount, Role and RoleBinding <T>/gateway-cleanup)`,
    );
  return {
    severity: 'info',
    rule: 'render.hooks-omitted',
    message: `Helm hooks left out: ${parts.join(' and ')}; Flux would run their Jobs at apply time (--include-hooks writes them, for Argo CD)`,
  };
}
