/**
 * The self-check (test/properties/selfcheck.property.test.ts) for every behaviour class of
 * docs/versions.md §0 (v1.5.0, v1.5.2, v1.5.4, v1.6.2, main): over generated platforms
 * (test/helpers/platformArbitrary.ts), what `render --cozystack-version V` emits is admitted by the
 * admission policies render emits for V (as Flux's helm-controller applies it), and what one
 * `reconcile --cozystack-version V` pass writes is admitted by them for cozystack-controller. A
 * version's output refused by its own policies is a finding about that version, never smoothed
 * over here.
 *
 * Seeds: every property is seeded (FC_SEED, else one drawn per run), its test's title prints the
 * seed, and a failure names the seed and the version to replay (`FC_SEED=<seed> SELFCHECK_VERSION=v1.5.0 npx jest test/properties/selfcheck.versions.property.test.ts`);
 * SELFCHECK_RUNS=1000 searches deeper.
 */
import fc from 'fast-check';
import { admit } from '../../src/admission/admit';
import { denials, type Decision, type UserInfo } from '../../src/admission/decision';
import { clone, groupOf, keyOf, type KObject } from '../../src/k8s/model';
import { reconcile } from '../../src/pipelines/reconcile';
import { render } from '../../src/pipelines/render';
import { ROUTE_KINDS } from '../../src/platform/kinds';
import { COZYSTACK_VERSIONS, type CozystackVersion } from '../../src/platform/cozystackVersions';
import { arbPlatformCase, clusterStateOf, renderInputOf, type PlatformCase } from '../helpers/platformArbitrary';

const NOW = '2026-01-01T00:00:00Z';
const RUNS = Number(process.env.SELFCHECK_RUNS ?? 25);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
/** One version of each behaviour class (docs/versions.md §0); SELFCHECK_VERSION picks one to replay. */
const CLASSES = ['v1.5.0', 'v1.5.2', 'v1.5.4', 'v1.6.2', 'main'].filter(
  (v) => !process.env.SELFCHECK_VERSION || process.env.SELFCHECK_VERSION === v,
);

const FLUX: UserInfo = {
  username: 'system:serviceaccount:cozy-fluxcd:helm-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-fluxcd', 'system:authenticated'],
};
const CONTROLLER: UserInfo = {
  username: 'system:serviceaccount:cozy-system:cozystack-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-system', 'system:authenticated'],
};
const POLICY_KINDS = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

const versionNamed = (name: string): CozystackVersion => COZYSTACK_VERSIONS.find((v) => v.name === name)!;

interface Rendered {
  input: ReturnType<typeof renderInputOf>;
  objects: KObject[];
  policies: KObject[];
}

function renderCase(c: PlatformCase, cozystack: CozystackVersion): Rendered | undefined {
  const input = renderInputOf(c);
  const r = render(clone(input), { cozystack });
  if (r.objects.length === 0) return undefined;
  return {
    input,
    objects: r.objects.filter((o) => !POLICY_KINDS.has(o.kind)),
    policies: r.objects.filter((o) => POLICY_KINDS.has(o.kind)),
  };
}

function describeDenials(ds: Decision[]): string {
  return ds
    .map(
      (d) =>
        `${d.object.kind} ${d.object.namespace ? `${d.object.namespace}/` : ''}${d.object.name}: ${d.policy}: ${d.messages.join('; ')}`,
    )
    .join('\n');
}

/** One controller pass of the version over the cluster state of a rendered case (routes the policies refuse left out). */
function controllerWrites(c: PlatformCase, r: Rendered, cozystack: CozystackVersion) {
  let state = clusterStateOf(c, r.objects);
  const refused = new Set(denials(admit(state, r.policies, CONTROLLER)).map((d) => keyOf(d.object)));
  state = state.filter((o) => !ROUTE_KINDS.has(o.kind) || !refused.has(keyOf(o)));
  if (c.platform.asPackage) state.push(...r.input.objects.filter((o) => o.kind === 'Package'));
  const res = reconcile({ objects: clone(state), valuesFiles: r.input.valuesFiles }, { now: NOW, cozystack });
  const before = new Set(state.map(keyOf));
  const written: KObject[] = [];
  for (const ch of res.changes) {
    if (ch.op === 'delete') continue;
    const o = res.store.get(groupOf(ch.ref.apiVersion), ch.ref.kind, ch.ref.namespace, ch.ref.name);
    // A route already there gets only its status written (the status subresource, which no policy intercepts).
    if (o && (!before.has(keyOf(o)) || !ROUTE_KINDS.has(o.kind))) written.push(o);
  }
  return { written, namespaces: res.store.list('', 'Namespace') };
}

/** The seed of a run: FC_SEED, else one drawn (each test's title prints it). */
const seedOf = () => SEED ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;

/** Runs a property with the seed its title printed; a failure names the seed and the version that replay it. */
function check(version: string, what: string, seed: number, property: fc.IPropertyWithHooks<[PlatformCase]>): void {
  const result = fc.check(property, { numRuns: RUNS, seed });
  if (result.failed)
    throw new Error(
      `${what} (${version}) failed; replay: FC_SEED=${result.seed} SELFCHECK_VERSION=${version} npx jest test/properties/selfcheck.versions.property.test.ts\n${fc.defaultReportMessage(result)}`,
    );
}

describe.each(CLASSES)('self-check, Cozystack %s', (name) => {
  const cozystack = versionNamed(name);
  const cache = new Map<PlatformCase, Rendered | undefined>();
  const rendered = (c: PlatformCase) => {
    if (!cache.has(c)) cache.set(c, renderCase(c, cozystack));
    return cache.get(c);
  };
  const arbRendered = arbPlatformCase.filter((c) => rendered(c) !== undefined);

  it('most generated platforms render', () => {
    const cases = fc.sample(arbPlatformCase, { numRuns: 100, seed: 42 });
    expect(cases.filter((c) => rendered(c) !== undefined).length).toBeGreaterThanOrEqual(85);
  });

  const renderSeed = seedOf();
  it(`every rendered object the version's policies match is admitted for the caller that applies it (seed ${renderSeed})`, () => {
    let judged = 0;
    check(
      name,
      'render admitted by its own policies',
      renderSeed,
      fc.property(arbRendered, (c) => {
        const r = rendered(c)!;
        const ds = admit([...r.objects, ...r.input.objects], r.policies, FLUX);
        expect(describeDenials(denials(ds))).toBe('');
        judged += ds.length;
      }),
    );
    // Not vacuous: the policies judged objects (tenant-root's Namespace carries the host label they match).
    expect(judged).toBeGreaterThan(0);
  });

  const reconcileSeed = seedOf();
  it(`every object one reconcile pass writes is admitted by the version's policies for cozystack-controller (seed ${reconcileSeed})`, () => {
    let gateways = 0;
    check(
      name,
      'reconcile admitted by its own policies',
      reconcileSeed,
      fc.property(arbRendered, (c) => {
        const r = rendered(c)!;
        const { written, namespaces } = controllerWrites(c, r, cozystack);
        const context = namespaces.filter((n) => !written.some((w) => keyOf(w) === keyOf(n)));
        const mine = new Set(written.map(keyOf));
        const ds = admit([...written, ...context], r.policies, CONTROLLER);
        expect(describeDenials(denials(ds).filter((d) => mine.has(keyOf(d.object))))).toBe('');
        gateways += ds.filter((d) => d.object.kind === 'Gateway').length;
      }),
    );
    // Not vacuous: Gateways the pass wrote were judged by the gateway hostname policy.
    expect(gateways).toBeGreaterThan(0);
  }, 120_000);
});
