/**
 * The self-check (ARCHITECTURE.md "How it is tested"), as properties over generated platforms (test/helpers/platformArbitrary.ts):
 *
 * 1. everything `render` emits that the admission policies match (the tenant Namespaces with their
 *    host label, and the Tenants and Package applied alongside) is admitted by the policies render
 *    itself emitted, as a CREATE by the trusted caller that applies them (Flux's helm-controller);
 * 2. everything `reconcile` creates or changes is admitted by the same policies as the
 *    cozystack-controller service account, with namespaceObject from the state the pass leaves;
 * 3. every Gateway, route, Certificate and Issuer produced is valid against the upstream Gateway
 *    API and cert-manager schemas (vendored from the @kubernetes-models packages, through
 *    src/validation/publishedSchemas.ts);
 * 4. every rendered TenantGateway passes the TenantGateway CRD (schema and CEL rules).
 */
import fc from 'fast-check';
import { admit } from '../../src/admission/admit';
import { denials, type Decision, type UserInfo } from '../../src/admission/decision';
import { clone, groupOf, keyOf, type KObject } from '../../src/k8s/model';
import { reconcile } from '../../src/pipelines/reconcile';
import { render } from '../../src/pipelines/render';
import { ROUTE_KINDS } from '../../src/platform/kinds';
import { validatePublished } from '../../src/validation/publishedSchemas';
import { validateTenantGateway } from '../../src/validation/tenantGatewayCrd';
import { arbPlatformCase, clusterStateOf, renderInputOf, type PlatformCase } from '../helpers/platformArbitrary';

const NOW = '2026-01-01T00:00:00Z';
/** Runs per property; SELFCHECK_RUNS=1000 for a deeper search. */
const RUNS = Number(process.env.SELFCHECK_RUNS ?? 40);

/** Flux's helm-controller applies the rendered charts and the Package. */
const FLUX: UserInfo = {
  username: 'system:serviceaccount:cozy-fluxcd:helm-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-fluxcd', 'system:authenticated'],
};
/** cozystack-controller runs the TenantGateway controller. */
const CONTROLLER: UserInfo = {
  username: 'system:serviceaccount:cozy-system:cozystack-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-system', 'system:authenticated'],
};

const POLICY_KINDS = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
const SCHEMA_KINDS = new Set(['Gateway', 'HTTPRoute', 'TLSRoute', 'GRPCRoute', 'Certificate', 'Issuer']);

interface Rendered {
  c: PlatformCase;
  input: ReturnType<typeof renderInputOf>;
  objects: KObject[];
  policies: KObject[];
}

function renderCase(c: PlatformCase): Rendered | undefined {
  const input = renderInputOf(c);
  const r = render(clone(input));
  if (r.objects.length === 0) return undefined;
  return {
    c,
    input,
    objects: r.objects.filter((o) => !POLICY_KINDS.has(o.kind)),
    policies: r.objects.filter((o) => POLICY_KINDS.has(o.kind)),
  };
}

const renderedCache = new WeakMap<PlatformCase, Rendered | undefined>();
function rendered(c: PlatformCase): Rendered | undefined {
  if (!renderedCache.has(c)) renderedCache.set(c, renderCase(c));
  return renderedCache.get(c);
}

/** A case that renders (render refusals are filtered out; see the render-rate test). Shrinks and prints as the case. */
const arbRendered = arbPlatformCase.filter((c) => rendered(c) !== undefined);

function describeDenials(ds: Decision[]): string {
  return ds
    .map(
      (d) =>
        `${d.object.kind} ${d.object.namespace ? `${d.object.namespace}/` : ''}${d.object.name}: ${d.policy}: ${d.messages.join('; ')}`,
    )
    .join('\n');
}

interface Reconciled {
  state: KObject[];
  /** Objects the pass created or updated, as it leaves them. */
  written: KObject[];
  /** The input version of each updated object, by key. */
  before: Map<string, KObject>;
  /** Every Namespace after the pass (namespaceObject for the admission of the written objects). */
  namespaces: KObject[];
}

/**
 * The cluster state of a rendered case, and one controller pass over it. With `admissibleOnly`,
 * the routes the policies would have refused at creation are left out, so the state is one an
 * enforcing cluster can hold.
 */
function reconcileCase(r: Rendered, admissibleOnly = true): Reconciled {
  let state = clusterStateOf(r.c, r.objects);
  if (admissibleOnly) {
    const refused = new Set(denials(admit(state, r.policies, CONTROLLER)).map((d) => keyOf(d.object)));
    state = state.filter((o) => !ROUTE_KINDS.has(o.kind) || !refused.has(keyOf(o)));
  }
  if (r.c.platform.asPackage) state.push(...r.input.objects.filter((o) => o.kind === 'Package'));
  const res = reconcile({ objects: clone(state), valuesFiles: r.input.valuesFiles }, { now: NOW });
  const before = new Map(state.map((o) => [keyOf(o), o]));
  const written: KObject[] = [];
  for (const ch of res.changes) {
    if (ch.op === 'delete') continue;
    const o = res.store.get(groupOf(ch.ref.apiVersion), ch.ref.kind, ch.ref.namespace, ch.ref.name);
    if (o) written.push(o);
  }
  return { state, written, before, namespaces: res.store.list('', 'Namespace') };
}

describe('self-check: generated platforms', () => {
  it('most generated platforms render', () => {
    const cases = fc.sample(arbPlatformCase, { numRuns: 200, seed: 42 });
    const ok = cases.filter((c) => renderCase(c) !== undefined).length;
    expect(ok).toBeGreaterThanOrEqual(180);
  });

  it('every rendered object the policies match is admitted for the trusted caller that applies it', () => {
    fc.assert(
      fc.property(arbRendered, (c) => {
        const r = rendered(c)!;
        // The stream Flux applies: the render output, the Tenants and the Package.
        const applied = [...r.objects, ...r.input.objects];
        const ds = admit(applied, r.policies, FLUX);
        expect(describeDenials(denials(ds))).toBe('');
        // Not vacuous: tenant-root's Namespace always carries the host label the namespace policy matches.
        expect(ds.some((d) => d.object.kind === 'Namespace' && d.object.name === 'tenant-root')).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('every rendered TenantGateway passes the TenantGateway CRD', () => {
    fc.assert(
      fc.property(arbRendered, (c) => {
        const r = rendered(c)!;
        for (const t of r.objects.filter((o) => o.kind === 'TenantGateway'))
          expect(validateTenantGateway(t)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  const seen = { gatewayDecisions: 0, redirects: 0, namespaces: 0, schemaChecked: new Set<string>() };

  function checkWrites(c: PlatformCase, admissibleOnly: boolean): void {
    const r = rendered(c)!;
    const { written, before, namespaces } = reconcileCase(r, admissibleOnly);
    // The controller's own objects, and the Namespaces it labels (judged as the controller writes them).
    const judged = written.filter((o) => !before.has(keyOf(o)) || !ROUTE_KINDS.has(o.kind));
    const context = namespaces.filter((n) => !judged.some((j) => keyOf(j) === keyOf(n)));
    const ds = admit([...judged, ...context], r.policies, CONTROLLER);
    const mine = new Set(judged.map(keyOf));
    const denied = denials(ds).filter((d) => mine.has(keyOf(d.object)));
    expect(describeDenials(denied)).toBe('');
    seen.gatewayDecisions += ds.filter((d) => d.object.kind === 'Gateway').length;
    seen.redirects += judged.filter((o) => o.kind === 'HTTPRoute').length;
    seen.namespaces += judged.filter((o) => o.kind === 'Namespace').length;

    // A route that was already there gets its status written through the status subresource,
    // which the policies do not intercept: the pass leaves its spec alone, so the policies'
    // verdict on it is the one they gave before the pass.
    for (const o of written.filter((w) => before.has(keyOf(w)) && ROUTE_KINDS.has(w.kind))) {
      const old = before.get(keyOf(o))!;
      expect(o.spec).toEqual(old.spec);
      const verdict = (x: KObject) =>
        denials(admit([x, ...namespaces], r.policies, CONTROLLER)).filter((d) => keyOf(d.object) === keyOf(x)).length;
      expect(verdict(o)).toBe(verdict(old));
    }
  }

  it('every object reconcile writes over an admissible cluster is admitted for cozystack-controller', () => {
    fc.assert(
      fc.property(arbRendered, (c) => checkWrites(c, true)),
      { numRuns: RUNS },
    );
    // Not vacuous: Gateways were judged by layer 2, redirects by layer 7, labelled Namespaces by layer 5.
    expect(seen.gatewayDecisions).toBeGreaterThan(0);
    expect(seen.redirects).toBeGreaterThan(0);
    expect(seen.namespaces).toBeGreaterThan(0);
  });

  it('over routes the policies would refuse, reconcile writes only their status and its own objects stay admitted', () => {
    fc.assert(
      fc.property(arbRendered, (c) => checkWrites(c, false)),
      { numRuns: RUNS },
    );
  });

  it('every Gateway, route, Certificate and Issuer produced is valid against the upstream schemas', () => {
    fc.assert(
      fc.property(arbRendered, (c) => {
        const r = rendered(c)!;
        const { written } = reconcileCase(r);
        const checked = [
          ...written.filter((o) => SCHEMA_KINDS.has(o.kind)),
          ...r.objects.filter((o) => o.kind === 'TenantGateway'),
        ];
        const findings = validatePublished(checked);
        const errors = findings.filter((f) => f.severity === 'error' || f.rule === 'validate.unknown-kind');
        expect(
          errors.map(
            (f) => `${f.object?.kind} ${f.object?.namespace}/${f.object?.name} ${f.field ?? ''}: ${f.message}`,
          ),
        ).toEqual([]);
        for (const o of checked) seen.schemaChecked.add(`${o.apiVersion} ${o.kind}`);
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: each kind the controller writes was checked against its vendored schema.
    for (const k of ['Gateway', 'HTTPRoute', 'Certificate', 'Issuer', 'TenantGateway'])
      expect([...seen.schemaChecked].some((x) => x.endsWith(` ${k}`))).toBe(true);
  }, 120_000);
});
