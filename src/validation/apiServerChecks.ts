/**
 * What the API server refuses that a published schema does not say (docs/decisions.md §C12,
 * §15), checked by `--validate` beside the schemas:
 *
 * - names limited shorter than a DNS subdomain: a Namespace and a Service at most 63 characters
 *   (DNS labels), a Job at most 63 (its name becomes the `job-name` label of its pods: hook Jobs
 *   included), a CronJob at most 52 (the controller appends 11 characters to name its Jobs);
 * - quantities: every value of a ResourceQuota's `spec.hard`, of a LimitRange's limits and of a
 *   container's `resources` must parse as a Kubernetes quantity (src/k8s/quantity.ts), must not be
 *   negative, must fit an int64 (a larger one overflows), and for a count (`pods`, `services`,
 *   `count/…`) must be whole.
 *
 * Pure.
 */
import { error, type Finding } from '../k8s/diagnostics';
import { isObject, refOf, type KObject } from '../k8s/model';
import { decimalCmp, MAX_INT64, quantityOf, ZERO, type Decimal } from '../k8s/quantity';

/** The kinds whose names are limited below 253 characters, and the limit. */
const NAME_LIMITS: Record<string, { limit: number; why: string }> = {
  'v1/Namespace': { limit: 63, why: 'a Namespace name is a DNS label' },
  'v1/Service': { limit: 63, why: 'a Service name is a DNS label' },
  'batch/v1/Job': {
    limit: 63,
    why: "a Job's name becomes the job-name label of its pods, and a label value holds at most 63",
  },
  'batch/v1/CronJob': { limit: 52, why: 'the CronJob controller appends 11 characters to name its Jobs' },
};

/** Quota names counted in whole objects (the API server's IsIntegerResourceName). */
const COUNTS = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);
const isCount = (k: string) => COUNTS.has(k) || k.startsWith('count/');

function isWhole(d: Decimal): boolean {
  if (d.exp >= 0) return true;
  return d.coef % 10n ** BigInt(-d.exp) === 0n;
}

function quantityFinding(o: KObject, field: string, v: unknown, count: boolean): Finding | undefined {
  const q = quantityOf(v);
  const problem = !q.ok
    ? `${JSON.stringify(v)} is not a quantity: ${q.reason}`
    : decimalCmp(q.value, ZERO) < 0
      ? `${JSON.stringify(v)} must be greater than or equal to 0`
      : decimalCmp(q.value, MAX_INT64) > 0
        ? `${JSON.stringify(v)} overflows: a quantity holds at most 9223372036854775807 (an int64)`
        : count && !isWhole(q.value)
          ? `${JSON.stringify(v)} must be an integer`
          : undefined;
  if (!problem) return undefined;
  return error(`would be refused by the API server: ${problem}`, {
    object: refOf(o),
    field,
    rule: 'validate.quantity',
  });
}

function mapQuantities(o: KObject, m: unknown, base: string, counts: boolean, out: Finding[]): void {
  if (!isObject(m)) return;
  for (const [k, v] of Object.entries(m)) {
    const f = quantityFinding(o, `${base}.${k}`, v, counts && isCount(k));
    if (f) out.push(f);
  }
}

/** Containers anywhere in a workload (a pod spec, a template's, a job template's), their resources checked. */
function containerQuantities(o: KObject, node: unknown, base: string, out: Finding[], depth = 0): void {
  if (depth > 8 || !isObject(node)) return;
  for (const [k, v] of Object.entries(node)) {
    const at = `${base}.${k}`;
    if ((k === 'containers' || k === 'initContainers') && Array.isArray(v)) {
      v.forEach((c, i) => {
        if (!isObject(c) || !isObject(c.resources)) return;
        for (const part of ['limits', 'requests'])
          mapQuantities(o, c.resources[part], `${at}[${i}].resources.${part}`, false, out);
      });
    } else if (isObject(v)) containerQuantities(o, v, at, out, depth + 1);
  }
}

/** The findings of the checks above over the objects to be emitted. */
export function apiServerFindings(objects: readonly KObject[]): Finding[] {
  const out: Finding[] = [];
  for (const o of objects) {
    const limit = NAME_LIMITS[`${o.apiVersion}/${o.kind}`];
    const name = o.metadata?.name;
    if (limit && typeof name === 'string' && name.length > limit.limit)
      out.push(
        error(
          `would be refused by the API server: the name is ${name.length} characters long, at most ${limit.limit} (${limit.why})`,
          { object: refOf(o), field: 'metadata.name', rule: 'validate.name-length' },
        ),
      );
    if (o.apiVersion === 'v1' && o.kind === 'ResourceQuota' && isObject(o.spec))
      mapQuantities(o, o.spec.hard, 'spec.hard', true, out);
    if (o.apiVersion === 'v1' && o.kind === 'LimitRange' && isObject(o.spec) && Array.isArray(o.spec.limits))
      o.spec.limits.forEach((l, i) => {
        if (!isObject(l)) return;
        for (const part of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'])
          mapQuantities(o, l[part], `spec.limits[${i}].${part}`, false, out);
      });
    if (isObject(o.spec)) containerQuantities(o, o.spec, 'spec', out);
  }
  return out;
}
