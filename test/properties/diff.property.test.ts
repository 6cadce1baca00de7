/**
 * `cozy-gw diff` over generated platforms (test/helpers/platformArbitrary.ts): once `reconcile
 * --all` has been applied, diff shows nothing, both with the state alone (one more pass changes
 * nothing) and with the same change given again (the Tenants and values re-rendered and laid over
 * the state, the pass run again): no object created, changed or deleted, and every hostname
 * unchanged. Seed: FC_SEED replays a run (fast-check prints seed and path on failure).
 */
import fc from 'fast-check';
import { clone, keyOf, type KObject } from '../../src/k8s/model';
import { preview } from '../../src/pipelines/preview';
import { tenantNamespaceOf } from '../../src/platform/tenancy';
import { reconcile } from '../../src/pipelines/reconcile';
import { render } from '../../src/pipelines/render';
import { diff, type DiffResult } from '../../src/diff/diff';
import { arbPlatformCase, clusterStateOf, renderInputOf, type PlatformCase } from '../helpers/platformArbitrary';

const NOW = '2026-01-01T00:00:00Z';
const LATER = '2026-06-01T00:00:00Z';
const RUNS = Number(process.env.DIFF_RUNS ?? 30);
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

interface Applied {
  input: ReturnType<typeof renderInputOf>;
  state: KObject[];
}

/** The platform after `reconcile --all` was applied: render, the cluster state, the Tenants (and Package), one pass. */
function applied(c: PlatformCase): Applied | undefined {
  const input = renderInputOf(c);
  const r = render(clone(input));
  if (r.objects.length === 0) return undefined;
  const policies = r.objects.filter((o) => !o.metadata.namespace && o.kind !== 'Namespace');
  const objects = [...clusterStateOf(c, r.objects), ...policies, ...clone(input.objects)];
  const pass = reconcile(
    { objects, valuesFiles: input.valuesFiles.length ? input.valuesFiles : undefined },
    { now: NOW },
  );
  if (pass.findings.some((f) => f.severity === 'error')) return undefined;
  return { input, state: pass.store.all() };
}

const cache = new WeakMap<PlatformCase, Applied | undefined>();
const appliedOf = (c: PlatformCase) => {
  if (!cache.has(c)) cache.set(c, applied(c));
  return cache.get(c);
};
const arbApplied = arbPlatformCase.filter((c) => appliedOf(c) !== undefined);

function explain(d: DiffResult): string {
  const rows = d.hostnames.filter((h) => h.change !== 'none').map((h) => `${h.hostname} (${h.route}): ${h.change}`);
  return [
    ...d.findings.filter((f) => f.severity === 'error').map((f) => `error: ${f.message}`),
    ...d.created.map((o) => `created ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`),
    ...d.changed.map(
      (x) =>
        `changed ${x.after.kind} ${x.after.metadata.namespace ?? ''}/${x.after.metadata.name}: ${JSON.stringify(x.before).slice(0, 300)} -> ${JSON.stringify(x.after).slice(0, 300)}`,
    ),
    ...d.deleted.map((o) => `deleted ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`),
    ...rows,
  ].join('\n');
}

function expectNothing(d: DiffResult): void {
  const text = explain(d);
  if (text) throw new Error(`diff shows something:\n${text}`);
  expect(d.hostnames.filter((h) => h.change !== 'none')).toEqual([]);
}

describe('diff on its own state after reconcile --all shows nothing', () => {
  it('with the state alone (a later clock changes nothing either)', () => {
    fc.assert(
      fc.property(arbApplied, (c) => {
        const a = appliedOf(c)!;
        expectNothing(diff({ state: a.state, objects: [], valuesFiles: [] }, { now: LATER }));
      }),
      { numRuns: RUNS, seed },
    );
  });

  it('with the same Tenants and values given again (re-rendered and laid over the state)', () => {
    fc.assert(
      fc.property(arbApplied, (c) => {
        const a = appliedOf(c)!;
        expectNothing(
          diff(
            { state: a.state, objects: clone(a.input.objects), valuesFiles: a.input.valuesFiles, prune: true },
            { now: LATER },
          ),
        );
      }),
      { numRuns: RUNS, seed },
    );
  });

  it('and a change does show: a tenant given its own Gateway', () => {
    // Guards the property above against a diff that never shows anything.
    fc.assert(
      fc.property(arbApplied, (c) => {
        const a = appliedOf(c)!;
        const tenants = clone(a.input.objects);
        const t = tenants.find(
          (o) =>
            o.kind === 'Tenant' &&
            o.metadata.name !== 'root' &&
            !(o.spec as Record<string, unknown> | undefined)?.gateway,
        );
        fc.pre(t !== undefined);
        t!.spec = { ...((t!.spec as Record<string, unknown>) ?? {}), gateway: true };
        const d = diff({ state: a.state, objects: tenants, valuesFiles: a.input.valuesFiles }, { now: LATER });
        fc.pre(!d.findings.some((f) => f.severity === 'error'));
        expect(d.changed.some((x) => x.after.kind === 'Tenant' && x.after.metadata.name === t!.metadata.name)).toBe(
          true,
        );
      }),
      { numRuns: RUNS, seed },
    );
  });
});

/**
 * A committed `render --output-dir` tree as the state (docs/commands/diff.md): the tree holds what
 * render wrote (plain) or also the controller's own objects without status (--with-controller),
 * and its record says so (treeHeld). The cluster state the tree was rendered against (routes, the
 * cozy-* Namespaces) is given with the change, as `render -f` read it.
 */
interface TreeCase {
  input: ReturnType<typeof renderInputOf>;
  cluster: KObject[];
  tree: KObject[];
}

function treeOf(c: PlatformCase, withController: boolean): TreeCase | undefined {
  const input = renderInputOf(c);
  const r = render(clone(input));
  if (r.objects.length === 0 || r.findings.some((f) => f.severity === 'error')) return undefined;
  const rendered = new Set(r.objects.map(keyOf));
  const cluster = clusterStateOf(c, r.objects).filter((o) => !rendered.has(keyOf(o)));
  if (!withController) return { input, cluster, tree: r.objects };
  const p = preview(
    { objects: [...clone(input.objects), ...clone(cluster)], valuesFiles: input.valuesFiles },
    { now: NOW, applied: true },
  );
  if (p.findings.some((f) => f.severity === 'error') || p.objects.length === 0) return undefined;
  return { input, cluster, tree: p.objects };
}

const treeCache = new Map<boolean, WeakMap<PlatformCase, TreeCase | undefined>>([
  [false, new WeakMap()],
  [true, new WeakMap()],
]);
const treeCaseOf = (c: PlatformCase, withController: boolean) => {
  const m = treeCache.get(withController)!;
  if (!m.has(c)) m.set(c, treeOf(c, withController));
  return m.get(c);
};

function diffOverTree(t: TreeCase, objects: KObject[], prune = false): DiffResult {
  return diff(
    {
      state: clone(t.tree),
      treeHeld: new Set(t.tree.map(keyOf)),
      objects,
      valuesFiles: t.input.valuesFiles,
      prune,
    },
    { now: NOW },
  );
}

const ref = (o: KObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

describe('diff over a committed tree', () => {
  for (const withController of [false, true]) {
    const kind = withController ? 'a --with-controller tree' : 'a plain tree';
    const arb = arbPlatformCase.filter((c) => treeCaseOf(c, withController) !== undefined);

    it(`${kind}: rendering the same inputs over it is no difference`, () => {
      fc.assert(
        fc.property(arb, (c) => {
          const t = treeCaseOf(c, withController)!;
          expectNothing(diffOverTree(t, [...clone(t.input.objects), ...clone(t.cluster)], true));
        }),
        { numRuns: RUNS, seed },
      );
    });

    it(`${kind}: removing one tenant with --prune deletes what render produced for it and what was in its Namespace, nothing else`, () => {
      fc.assert(
        fc.property(arb, fc.nat(), (c, pick) => {
          const t = treeCaseOf(c, withController)!;
          const tenants = t.input.objects.filter((o) => o.kind === 'Tenant' && o.metadata.name !== 'root');
          // A leaf: no Tenant lives in its namespace (removing a parent would orphan its children).
          const leaves = tenants.filter((x) => !tenants.some((y) => y.metadata.namespace === tenantNamespaceOf(x)));
          fc.pre(leaves.length > 0);
          const gone = leaves[pick % leaves.length];
          const ns = tenantNamespaceOf(gone);
          const kept = t.input.objects.filter((o) => o !== gone);
          const without = render(clone({ objects: kept, valuesFiles: t.input.valuesFiles }));
          fc.pre(!without.findings.some((f) => f.severity === 'error'));
          const stillRendered = new Set(without.objects.map(keyOf));
          // What render produced for it (the tree's objects render no longer produces), and what is in its Namespace.
          const expected = new Set(
            t.tree
              .filter(
                (o) =>
                  o.metadata.namespace === ns ||
                  (!stillRendered.has(keyOf(o)) && !o.metadata.labels?.['cozystack.io/managed-by']),
              )
              .map(ref),
          );
          for (const o of t.cluster) if (o.metadata.namespace === ns) expected.add(ref(o));
          const d = diffOverTree(t, [...clone(kept), ...clone(t.cluster)], true);
          expect(d.findings.filter((f) => f.severity === 'error')).toEqual([]);
          const deleted = d.deleted.map(ref);
          expect([...expected].filter((x) => !deleted.includes(x))).toEqual([]);
          // Anything else deleted is the controller's own, collected with what it served (a per-hostname Certificate).
          const others = d.deleted
            .filter((o) => !expected.has(ref(o)) && o.metadata.namespace !== ns)
            .filter((o) => o.metadata.labels?.['cozystack.io/managed-by'] !== 'cozystack-controller')
            .map(ref);
          expect(others).toEqual([]);
          // What it creates is the controller's answer to what left (a Gateway write a route there had blocked).
          expect(
            d.created.filter((o) => o.metadata.labels?.['cozystack.io/managed-by'] !== 'cozystack-controller').map(ref),
          ).toEqual([]);
        }),
        { numRuns: RUNS, seed },
      );
    });
  }
});
