/**
 * Properties over generated whole-tenant trees (test/helpers/tenantTreeArbitrary.ts: depth 1–5
 * below tenant-root, random module flags, quotas, gateways, OIDC and allocation ratios):
 *
 * 1. every object `render` prints is admitted by the platform's own admission policies (the ones
 *    render emits, evaluated by src/admission/admit.ts as `cozy-gw admit` does) as a CREATE by the
 *    caller that applies the tree (Flux), together with the Tenants and the Package;
 * 2. every object it prints validates with `--validate` (src/validation/publishedSchemas.ts): no
 *    error, and no kind left unchecked;
 * 3. render is deterministic under shuffled inputs: the input objects in any order, and the
 *    Tenants' spec keys in any order, give byte-identical output;
 * 4. what it prints beyond the gateway slice is exactly what docs/tenant.md §1.1–§1.3 lists for
 *    each tenant and the platform (test/helpers/wholeTenant.ts): RBAC, policies, quotas, Keycloak
 *    groups, module HelmReleases per the tenant's own flags, cozystack-basics' objects.
 *
 * fast-check prints the seed and path of a failing run; FC_SEED=<seed> replays it (TENANT_RUNS
 * sets the number of runs, 40 by default).
 */
import fc from 'fast-check';
import { admit } from '../../src/admission/admit';
import { denials, type Decision, type UserInfo } from '../../src/admission/decision';
import { clone, type KObject } from '../../src/k8s/model';
import { toYamlStream } from '../../src/k8s/yaml';
import { render } from '../../src/pipelines/render';
import { validatePublished } from '../../src/validation/publishedSchemas';
import { expectedWholeTenant, wholeTenantOf } from '../helpers/wholeTenant';
import {
  arbTenantTreeCase,
  clusterFlagsOf,
  depthOf,
  tenantFlagsOf,
  FC_SEED,
  tenantTreeInput,
  type TenantTreeCase,
} from '../helpers/tenantTreeArbitrary';

const RUNS = Number(process.env.TENANT_RUNS ?? 40);

/** Flux's helm-controller and kustomize-controller apply the tree, the Tenants and the Package. */
const FLUX: UserInfo = {
  username: 'system:serviceaccount:cozy-fluxcd:helm-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-fluxcd', 'system:authenticated'],
};
const POLICY_KINDS = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

interface Rendered {
  input: ReturnType<typeof tenantTreeInput>;
  objects: KObject[];
  text: string;
}

const cache = new WeakMap<TenantTreeCase, Rendered | undefined>();
/** The case rendered once (undefined when render refuses it: a gateway guard). */
function rendered(c: TenantTreeCase): Rendered | undefined {
  if (!cache.has(c)) {
    const input = tenantTreeInput(c);
    const r = render(clone(input));
    cache.set(c, r.objects.length ? { input, objects: r.objects, text: toYamlStream(r.objects) } : undefined);
  }
  return cache.get(c);
}
const arbRendered = arbTenantTreeCase.filter((c) => rendered(c) !== undefined);

function describeDenials(ds: Decision[]): string {
  return ds
    .map((d) => `${d.object.kind} ${d.object.namespace ?? ''}/${d.object.name}: ${d.policy}: ${d.messages.join('; ')}`)
    .join('\n');
}

/** A copy of a value with every mapping's keys in the order `order` gives them. */
function reorderKeys(v: unknown, order: (keys: string[]) => string[]): unknown {
  if (Array.isArray(v)) return v.map((x) => reorderKeys(x, order));
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(order(Object.keys(o)).map((k) => [k, reorderKeys(o[k], order)]));
}

describe('generated tenant trees (depth 1–5, modules, quotas, gateways)', () => {
  it('the generator covers every depth from 1 to 5, and most cases render', () => {
    const cases = fc.sample(arbTenantTreeCase, { numRuns: 100, seed: 7 });
    const depths = new Set(cases.map(depthOf));
    expect([...depths].sort()).toEqual([1, 2, 3, 4, 5]);
    const ok = cases.filter((c) => rendered(c) !== undefined).length;
    expect(ok).toBeGreaterThanOrEqual(80);
  });

  it('every object render prints is admitted by the platform policies for the caller that applies it', () => {
    fc.assert(
      fc.property(arbRendered, (c) => {
        const r = rendered(c)!;
        const policies = r.objects.filter((o) => POLICY_KINDS.has(o.kind));
        const ds = admit([...r.objects, ...r.input.objects], policies, FLUX);
        expect(describeDenials(denials(ds))).toBe('');
        // Not vacuous: the tenant Namespaces carry the host label the namespace policy matches.
        expect(ds.filter((d) => d.object.kind === 'Namespace').length).toBeGreaterThan(0);
      }),
      { numRuns: RUNS, seed: FC_SEED },
    );
  });

  it('every object render prints validates with --validate, and no kind is left unchecked', () => {
    fc.assert(
      fc.property(arbRendered, (c) => {
        const r = rendered(c)!;
        const findings = validatePublished(r.objects).map(
          (f) =>
            `${f.severity} ${f.object?.kind} ${f.object?.namespace ?? ''}/${f.object?.name} ${f.field ?? ''}: ${f.message}`,
        );
        expect(findings).toEqual([]);
      }),
      { numRuns: RUNS, seed: FC_SEED },
    );
  });

  it('render is deterministic under shuffled inputs (object order and key order)', () => {
    /** Runs whose input objects really came in another order (the check below that this is most of them). */
    let reordered = 0;
    fc.assert(
      fc.property(arbRendered, fc.infiniteStream(fc.nat()), (c, noise) => {
        const r = rendered(c)!;
        const shuffled = clone(r.input);
        // A random permutation of the input objects (children before parents included), never
        // the identity when there are two or more (then reversed) ...
        const keyed = shuffled.objects.map((o, i) => ({ o, i, k: noise.next().value }));
        keyed.sort((a, b) => a.k - b.k);
        if (keyed.length > 1 && keyed.every((x, i) => x.i === i)) keyed.reverse();
        if (keyed.length > 1) reordered++;
        shuffled.objects = keyed.map((x) => x.o);
        // ... and every mapping's keys reversed or rotated.
        const rotate = noise.next().value % 2 === 0;
        const order = (ks: string[]) => (rotate ? [...ks.slice(1), ...ks.slice(0, 1)] : [...ks].reverse());
        shuffled.objects = shuffled.objects.map((o) => reorderKeys(o, order) as KObject);
        shuffled.valuesFiles = shuffled.valuesFiles.map((f) => ({
          ...f,
          values: reorderKeys(f.values, order) as Record<string, unknown>,
        }));
        // Not vacuous: the input really differs, in its order or its key order.
        expect(JSON.stringify(shuffled)).not.toBe(JSON.stringify(r.input));
        const again = render(shuffled);
        expect(again.findings.filter((f) => f.severity === 'error')).toEqual([]);
        expect(toYamlStream(again.objects)).toBe(r.text);
      }),
      { numRuns: RUNS, seed: FC_SEED },
    );
    // Most generated cases have two or more input objects (a Package, or two Tenants), so their order changed.
    expect(reordered).toBeGreaterThanOrEqual(RUNS / 2);
  });

  it('every tenant gets exactly the objects its templates render, per its own flags', () => {
    fc.assert(
      fc.property(arbRendered, (c) => {
        const r = rendered(c)!;
        expect(wholeTenantOf(r.objects)).toEqual(expectedWholeTenant(tenantFlagsOf(c), clusterFlagsOf(c)));
      }),
      { numRuns: RUNS, seed: FC_SEED },
    );
  });
});
