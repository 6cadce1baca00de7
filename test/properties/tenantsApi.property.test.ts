/**
 * The Tenants API's rules (docs/decisions.md §15) over generated trees: every Tenant `render`
 * refuses (an error names it) breaks one of the rules, and every Tenant it does not refuse breaks
 * none. The rules are stated again here, independently of src/charts/tenantsApi.ts: the name by
 * its own regular expression and length, the namespace by its length, the reserved keys by their
 * first character, and the quantities and the quota by a table of the exact value of every
 * quantity the generator writes (in nano units, worked out by hand), not by any parser.
 *
 * fast-check's seed is printed; FC_SEED=<seed> replays a run, TENANTS_API_RUNS sets the runs
 * (300 by default).
 */
import fc from 'fast-check';
import type { KObject } from '../../src/k8s/model';
import { render } from '../../src/pipelines/render';

const RUNS = Number(process.env.TENANTS_API_RUNS ?? process.env.FC_RUNS ?? 300);
const SEED =
  process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);

const NANO = 1_000_000_000n;
const GI = 2n ** 30n;
const MI = 2n ** 20n;
/** Every quantity the generator writes, with its exact value in nano units; null: not a Kubernetes quantity. */
const QUANTITY: Record<string, bigint | null> = {
  '0.1': NANO / 10n,
  '0.2': (2n * NANO) / 10n,
  '0.3': (3n * NANO) / 10n,
  '100m': NANO / 10n,
  '200m': (2n * NANO) / 10n,
  '201m': (201n * NANO) / 1000n,
  '300m': (3n * NANO) / 10n,
  '1': NANO,
  '2': 2n * NANO,
  '1000000001n': NANO + 1n,
  '1e3': 1000n * NANO,
  '1k': 1000n * NANO,
  '999': 999n * NANO,
  '2Gi': 2n * GI * NANO,
  '1Gi': GI * NANO,
  '2048Mi': 2048n * MI * NANO,
  '2049Mi': 2049n * MI * NANO,
  '1024Mi': 1024n * MI * NANO,
  '1023Mi': 1023n * MI * NANO,
  '1e1.5': null,
  '1e.5': null,
  '3E1.': null,
};
const QUANTITY_TEXTS = Object.keys(QUANTITY);
/** Integers as YAML numbers: their own value. */
const valueOf = (v: string | number): bigint | null => (typeof v === 'number' ? BigInt(v) * NANO : QUANTITY[v]);

const NAMES = ['a', 'b', 'c', 'x1', 'y2', 'n'.repeat(46), 'm'.repeat(47), 'q'.repeat(30), 'Up', '9a', 'a_b'];
const KEYS = ['cpu', 'memory', 'pods'];

interface Node {
  name: string;
  parent: number; // -1: tenant-root
  reserved: boolean;
  nestedUnderscore: boolean;
  quotas: [string, string | number][];
}

const arbNode = fc.record({
  name: fc.constantFrom(...NAMES),
  parent: fc.nat(),
  reserved: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  nestedUnderscore: fc.boolean(),
  quotas: fc.array(
    fc.tuple(fc.constantFrom(...KEYS), fc.oneof(fc.constantFrom(...QUANTITY_TEXTS), fc.constantFrom(1, 2, 3, 10))),
    { maxLength: 3 },
  ),
});

interface Case {
  root: [string, string | number][] | undefined;
  nodes: Node[];
}

const arbCase: fc.Arbitrary<Case> = fc.record({
  root: fc.option(
    fc.array(
      fc.tuple(fc.constantFrom(...KEYS), fc.oneof(fc.constantFrom(...QUANTITY_TEXTS), fc.constantFrom(1, 3, 10))),
      {
        maxLength: 3,
      },
    ),
    { nil: undefined },
  ),
  nodes: fc.array(arbNode, { minLength: 1, maxLength: 7 }),
});

interface Built {
  tenant: KObject;
  ns: string;
  parentNs: string;
  quotas: Map<string, string | number>;
  reserved: boolean;
}

/** The Tenants of a case: each node under tenant-root or an earlier node, names unique among siblings. */
function build(c: Case): { objects: KObject[]; built: Built[]; root?: Built } {
  const built: Built[] = [];
  const objects: KObject[] = [];
  const mk = (name: string, parentNs: string, spec: Record<string, unknown>): KObject => ({
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name, namespace: parentNs },
    spec,
  });
  let root: Built | undefined;
  if (c.root) {
    const quotas = new Map(c.root);
    const t = mk('root', 'tenant-root', { resourceQuotas: Object.fromEntries(quotas) });
    objects.push(t);
    root = { tenant: t, ns: 'tenant-root', parentNs: 'tenant-root', quotas, reserved: false };
  }
  c.nodes.forEach((n, i) => {
    const p = n.parent % (built.length + 1);
    const parentNs = p === built.length ? 'tenant-root' : built[p].ns;
    const ns = parentNs === 'tenant-root' ? `tenant-${n.name}` : `${parentNs}-${n.name}`;
    if (built.some((b) => b.ns === ns)) return; // one tenant per namespace
    const quotas = new Map(n.quotas);
    const rq: Record<string, unknown> = Object.fromEntries(quotas);
    if (n.nestedUnderscore) rq._nested = '1';
    // A host of its own: an inherited one (<name>.<parent's host>) can outgrow a label value, which is no §15 rule.
    const spec: Record<string, unknown> = { host: `h${i}.example.org`, resourceQuotas: rq };
    if (n.reserved) spec._cluster = { 'cpu-allocation-ratio': '1' };
    const t = mk(n.name, parentNs, spec);
    objects.push(t);
    built.push({
      tenant: t,
      ns,
      parentNs,
      quotas: n.nestedUnderscore ? new Map([...quotas, ['_nested', '1']]) : quotas,
      reserved: n.reserved,
    });
  });
  return { objects, built, root };
}

// ---------------------------------------------------------------------------------------------
// The rules of docs/decisions.md §15, stated here.

function ownRulesBroken(b: Built): string[] {
  const out: string[] = [];
  const name = b.tenant.metadata.name;
  if (!/^[a-z][a-z0-9]*$/.test(name)) out.push('name pattern');
  if (name.length > 46) out.push('name over 46');
  if (b.ns.length > 63) out.push('namespace over 63');
  // (docs/decisions.md §Q13: the namespace is a Namespace name, so below a parent whose name broke the pattern it can break that too.)
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(b.ns)) out.push('namespace not a DNS label');
  if (b.reserved) out.push('reserved key');
  for (const [, v] of b.quotas) if (valueOf(v) === null) out.push(`quantity ${String(v)}`);
  return out;
}

function quotaBroken(b: Built, parent: Built | undefined, siblings: Built[]): string[] {
  if (!parent) return [];
  const out: string[] = [];
  for (const [k, pv] of parent.quotas) {
    const limit = valueOf(pv)!;
    const mine = b.quotas.get(k);
    if (mine === undefined) continue;
    let others = 0n;
    for (const s of siblings) if (s !== b && s.quotas.has(k)) others += valueOf(s.quotas.get(k)!)!;
    if (valueOf(mine)! > limit - others) out.push(`quota ${k}`);
  }
  return out;
}

function expectedRefusals({ built, root }: ReturnType<typeof build>): Map<KObject, string[]> {
  const passes = (b: Built) => ownRulesBroken(b).length === 0;
  const out = new Map<KObject, string[]>();
  if (root && !passes(root)) out.set(root.tenant, ownRulesBroken(root));
  for (const b of built) {
    const parent = b.parentNs === 'tenant-root' ? root : built.find((x) => x.ns === b.parentNs);
    const own = ownRulesBroken(b);
    const siblings = built.filter((x) => x.parentNs === b.parentNs && passes(x));
    const quota = own.length === 0 && parent && passes(parent) ? quotaBroken(b, parent, siblings) : [];
    if (own.length || quota.length) out.set(b.tenant, [...own, ...quota]);
  }
  return out;
}

const VALUES = [{ file: 'values.yaml', values: { publishing: { host: 'example.org' } } }];

describe('the Tenants API rules over generated trees', () => {
  it(`a Tenant is refused exactly when it breaks a rule of docs/decisions.md §15 (${RUNS} runs, seed ${SEED})`, () => {
    const seen = { refused: 0, accepted: 0, quota: 0 };
    const result = fc.check(
      fc.property(arbCase, (c) => {
        const tree = build(c);
        const { objects } = tree;
        const r = render({ objects, valuesFiles: VALUES });
        const expected = expectedRefusals(tree);
        for (const t of objects) {
          const errors = r.findings.filter(
            (f) =>
              f.severity === 'error' &&
              f.object?.name === t.metadata.name &&
              f.object?.namespace === t.metadata.namespace,
          );
          const want = expected.get(t) ?? [];
          if (want.some((w) => w.startsWith('quota'))) seen.quota++;
          if (errors.length) seen.refused++;
          else seen.accepted++;
          // The Tenant named, what it breaks, and what render said of it.
          expect([t.metadata.namespace, t.metadata.name, want, errors.map((f) => f.rule)]).toEqual([
            t.metadata.namespace,
            t.metadata.name,
            want,
            want.length ? expect.arrayContaining([expect.any(String)]) : [],
          ]);
        }
        // Nothing refused: everything renders.
        if (expected.size === 0) expect(r.objects.length).toBeGreaterThan(0);
        else expect(r.objects).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    if (result.failed)
      throw new Error(
        `Tenants API property failed (replay: FC_SEED=${result.seed})\n${fc.defaultReportMessage(result)}\n${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}`,
      );
    // The generator reaches both sides, and the quota rule.
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.quota).toBeGreaterThan(0);
  });
});
