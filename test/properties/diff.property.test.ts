/**
 * `cozy-gw diff` over generated platforms (test/helpers/platformArbitrary.ts): once `reconcile
 * --all` has been applied, diff shows nothing, both with the state alone (one more pass changes
 * nothing) and with the same change given again (the Tenants and values re-rendered and laid over
 * the state, the pass run again): no object created, changed or deleted, and every hostname
 * unchanged. Seed: FC_SEED replays a run (fast-check prints seed and path on failure).
 */
import fc from 'fast-check';
import { clone, type KObject } from '../../src/k8s/model';
import { reconcile } from '../../src/pipelines/reconcile';
import { render } from '../../src/pipelines/render';
import { diff, type DiffResult } from '../../src/pipelines/diff';
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
