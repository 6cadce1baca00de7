/**
 * `diff` against generated live states (docs/commands/diff.md "A live snapshot is compared as it
 * will be applied"): the platform's objects as Flux applied them (test/helpers/apiServer.ts
 * dresses them as the API server returns them), drifted at random by the kubectl managers Flux
 * takes over, by controllers and by co-owners (test/helpers/ssaModel.ts `written`), and a change
 * that gives some of them again, as they are or altered (a label dropped, a member dropped, an
 * atomic list narrowed, a list element dropped, a label set). The diff's verdict, object by
 * object, equals the test's own server-side apply of the change onto the state (ssaModel.ts
 * `modelApply`, which shares no code with src/diff/serverSideApply.ts). Seed: FC_SEED replays a
 * run (fast-check prints seed and path on failure); LIVE_RUNS sets how many.
 */
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { deepEqual, keyOf, type KObject } from '../../src/k8s/model';
import { diff } from '../../src/diff/diff';
import { liveCluster } from '../helpers/apiServer';
import { fieldPath, modelApply, written } from '../helpers/ssaModel';
import { ROOT, runCli } from '../helpers/cli';

const NOW = '2026-01-01T00:00:00Z';
const RUNS = Number(process.env.LIVE_RUNS ?? 60);
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
type Obj = Record<string, unknown>;

/** The kinds drifted and changed: those no controller pass of diff rewrites. */
const KINDS = new Set([
  'RoleBinding',
  'ClusterRole',
  'Role',
  'ResourceQuota',
  'LimitRange',
  'CiliumNetworkPolicy',
  'CiliumClusterwideNetworkPolicy',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ServiceAccount',
  'Service',
]);

/** Objects of the shapes render does not write: a NetworkPolicy, a Service with ports, a ServiceAccount's secrets. */
const EXTRA: KObject[] = [
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'web', namespace: 'tenant-alice', labels: { app: 'web' } },
    spec: {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { t: 'a' } } }], ports: [{ port: 443 }] }],
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'tenant-alice' },
    spec: {
      selector: { app: 'web' },
      ports: [
        { name: 'https', port: 443 },
        { name: 'http', port: 80 },
      ],
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'ci', namespace: 'tenant-alice' },
    secrets: [{ name: 'ci-token' }, { name: 'ci-pull' }],
  },
];

let manifests: KObject[] = [];
beforeAll(async () => {
  const platform = path.join(ROOT, 'examples', 'platform');
  const r = await runCli([
    'render',
    '--values',
    path.join(platform, 'values.yaml'),
    '-f',
    path.join(platform, 'tenants'),
  ]);
  expect(r.code).toBe(0);
  const rendered = (jsyaml.loadAll(r.stdout) as KObject[]).filter((o) => o && KINDS.has(o.kind));
  manifests = [...rendered, ...EXTRA];
  expect(fs.existsSync(platform)).toBe(true);
});

const MANAGERS = [
  'kubectl-label',
  'kubectl-annotate',
  'kubectl-edit',
  'kubectl-patch',
  'kubectl-client-side-apply',
  'before-first-apply',
  'cozystack-controller',
  'helm-controller',
  'flux-client-side-apply',
] as const;

interface Drift {
  at: number;
  op: 'label' | 'annotate' | 'coown' | 'edit' | 'add';
  manager: (typeof MANAGERS)[number];
  n: number;
}
interface Alter {
  at: number;
  op: 'same' | 'dropLabel' | 'dropMember' | 'narrow' | 'dropElement' | 'setLabel';
  n: number;
}

const arbDrift: fc.Arbitrary<Drift> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('label', 'annotate', 'coown', 'edit', 'add'),
  manager: fc.constantFrom(...MANAGERS),
  n: fc.nat(7),
});
const arbAlter: fc.Arbitrary<Alter> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('same', 'dropLabel', 'dropMember', 'narrow', 'dropElement', 'setLabel'),
  n: fc.nat(7),
});

const pick = <T>(xs: T[], n: number): T | undefined => (xs.length ? xs[n % xs.length] : undefined);
/** The object's own members (its spec's, or the kind's top level for RBAC and ServiceAccounts). */
const body = (o: Obj): [Obj, string[]] => (o.spec && typeof o.spec === 'object' ? [o.spec as Obj, ['spec']] : [o, []]);
const members = (o: Obj): string[] => {
  const [b] = body(o);
  return Object.keys(b).filter((k) => !['apiVersion', 'kind', 'metadata', 'status'].includes(k));
};
/** The first list of maps under a value, depth first. */
function firstList(v: unknown): Obj[] | undefined {
  if (Array.isArray(v))
    return v.length && v.every((x) => x && typeof x === 'object' && !Array.isArray(x)) ? (v as Obj[]) : undefined;
  if (v && typeof v === 'object')
    for (const x of Object.values(v as Obj)) {
      const l = firstList(x);
      if (l) return l;
    }
  return undefined;
}

/** A live object after one drift by another manager. */
function drifted(o: KObject, d: Drift): KObject {
  const meta = (x: Obj) => x.metadata as KObject['metadata'];
  switch (d.op) {
    case 'label':
    case 'annotate': {
      const field = d.op === 'label' ? 'labels' : 'annotations';
      return written(o, d.manager, fieldPath('metadata', field, `drift-${d.n}`), (x) => {
        meta(x)[field] = { ...(meta(x)[field] ?? {}), [`drift-${d.n}`]: `by-${d.manager}` };
      });
    }
    case 'coown': {
      const label = pick(Object.keys(o.metadata.labels ?? {}), d.n);
      return label ? written(o, d.manager, fieldPath('metadata', 'labels', label)) : o;
    }
    case 'edit': {
      const m = pick(members(o as unknown as Obj), d.n);
      if (!m) return o;
      const [, at] = body(o as unknown as Obj);
      return written(
        o,
        d.manager,
        fieldPath(...at, m),
        (x) => {
          const [b] = body(x);
          const v = b[m];
          // A list reversed (or its one element changed: keys stay unique), a map or a scalar changed.
          b[m] = Array.isArray(v)
            ? v.length > 1
              ? [...v].reverse()
              : v.map((e) => (e && typeof e === 'object' ? { ...e, drift: `x${d.n}` } : `${String(e)}-drift`))
            : v && typeof v === 'object'
              ? { ...v, drift: `x${d.n}` }
              : `${String(v)}-drift`;
        },
        true,
      );
    }
    case 'add': {
      const [, at] = body(o as unknown as Obj);
      return written(o, d.manager, fieldPath(...at, `drift${d.n}`), (x) => {
        body(x)[0][`drift${d.n}`] = `by-${d.manager}`;
      });
    }
  }
}

/** A manifest as the change gives it. */
function altered(m: KObject, a: Alter): KObject {
  const x = JSON.parse(JSON.stringify(m)) as KObject & Obj;
  switch (a.op) {
    case 'same':
      break;
    case 'dropLabel': {
      const l = pick(Object.keys(x.metadata.labels ?? {}), a.n);
      if (l) delete x.metadata.labels![l];
      break;
    }
    case 'dropMember': {
      const k = pick(members(x), a.n);
      if (k) delete body(x)[0][k];
      break;
    }
    case 'narrow': {
      const l = firstList(body(x)[0]);
      if (l) l[a.n % l.length] = {};
      break;
    }
    case 'dropElement': {
      const l = firstList(body(x)[0]);
      if (l && l.length > 1) l.splice(a.n % l.length, 1);
      break;
    }
    case 'setLabel':
      x.metadata.labels = { ...(x.metadata.labels ?? {}), changed: `v${a.n}` };
      break;
  }
  return x;
}

const withoutManaged = (o: KObject): KObject => {
  const { managedFields: _m, ...metadata } = o.metadata;
  return { ...o, metadata };
};

describe('diff against generated live states agrees with an independent server-side apply', () => {
  it('object by object: changed exactly where the model says the apply changes the live object', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(manifests.length - 1), { minLength: 1, maxLength: 12 }),
        fc.array(arbDrift, { maxLength: 10 }),
        fc.array(arbAlter, { minLength: 1, maxLength: 8 }),
        (chosen, drifts, alters) => {
          const base = chosen.map((i) => manifests[i]);
          const live = liveCluster(base, base);
          for (const d of drifts) {
            const i = d.at % live.length;
            live[i] = drifted(live[i], d);
          }
          // The change: some of the manifests again, as they are or altered.
          const given = new Map<string, KObject>();
          for (const a of alters) {
            const m = base[a.at % base.length];
            given.set(keyOf(m), altered(given.get(keyOf(m)) ?? m, a));
          }
          const byKey = new Map(live.map((o) => [keyOf(o), o]));
          const expected = [...given.values()]
            .filter((g) => {
              const was = byKey.get(keyOf(g))!;
              return !deepEqual(withoutManaged(modelApply(was, g)), withoutManaged(was));
            })
            .map((g) => `${g.kind} ${g.metadata.namespace ?? ''}/${g.metadata.name}`)
            .sort();
          const d = diff({ state: live, objects: [...given.values()], valuesFiles: [] }, { now: NOW });
          expect(d.findings.filter((f) => f.severity === 'error')).toEqual([]);
          const shown = d.changed
            .map((c) => `${c.after.kind} ${c.after.metadata.namespace ?? ''}/${c.after.metadata.name}`)
            .sort();
          expect({ created: d.created.length, deleted: d.deleted.length, changed: shown }).toEqual({
            created: 0,
            deleted: 0,
            changed: expected,
          });
        },
      ),
      { numRuns: RUNS, seed },
    );
  });

  it('and the drift the apply takes back does show: a kubectl label on an object given unchanged', () => {
    // Guards the property against a model and a diff that both never see drift.
    const m = manifests.find((o) => o.kind === 'ResourceQuota') ?? manifests[0];
    const [live] = liveCluster([m], [m]);
    const labelled = drifted(live, { at: 0, op: 'label', manager: 'kubectl-label', n: 1 });
    const d = diff({ state: [labelled], objects: [m], valuesFiles: [] }, { now: NOW });
    expect(d.changed.map((c) => c.after.metadata.name)).toEqual([m.metadata.name]);
    expect(deepEqual(withoutManaged(modelApply(labelled, m)), withoutManaged(labelled))).toBe(false);
  });
});
