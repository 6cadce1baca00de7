/**
 * A changed-only diff against a committed tree (docs/performance.md "Changed-only") prints what the
 * whole diff (`--full`) prints, byte for byte, on stdout and stderr, in every output format, and
 * exits the same. For generated platforms (test/helpers/platformArbitrary.ts: values, a Tenant tree
 * of three levels with Gateways, custom hosts and classes), a tree written with a random shaping
 * option, and a random change: a quota, a tenant added, a tenant removed (--prune), a Gateway flag,
 * a host, a route given beside the change, the platform values; given as the changed Tenants alone
 * or as the whole tenants file; and a tree one of whose tenants gives a finding whatever the change
 * (rendered again by a changed-only diff, to give it). Through the CLI, as a user runs it; and the changed-only diff must
 * have run (not fallen back) where the change is a tenant's own. Seed: FC_SEED replays a run
 * (fast-check prints seed and path on failure); CHANGED_ONLY_RUNS runs more.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { runCli, STACK_FRAME } from '../helpers/cli';
import { render } from '../../src/pipelines/render';
import { clone, type KObject } from '../../src/k8s/model';
import { SourceMap } from '../../src/io/sourceMap';
import { changedOnlyDiff } from '../../src/cli/treeDiff';
import { parseCiliumVersion, SHIPPED_CILIUM_VERSION } from '../../src/controller/ciliumVersion';
import { arbPlatformCase, platformValues, tenantObjects, type PlatformCase } from '../helpers/platformArbitrary';

const NOW = '2026-01-01T00:00:00Z';
const RUNS = Number(process.env.CHANGED_ONLY_RUNS ?? 12);
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const FORMATS = ['diff', 'plan', 'json', 'markdown', 'html'];

/** How the tree is written. */
const SHAPES: Record<string, string[]> = {
  plain: [],
  json: ['-o', 'json'],
  hooks: ['--include-hooks'],
  'gateway-only': ['--gateway-only'],
  controller: ['--with-controller', '--now', NOW],
};

type ChangeKind = 'quota' | 'add' | 'remove' | 'gateway' | 'host' | 'route' | 'values' | 'none';

interface Change {
  kind: ChangeKind;
  /** Which tenant (an index into the case's Tenants). */
  pick: number;
  /** The change given as the changed Tenants alone, or as the whole tenants file. */
  whole: boolean;
  shape: keyof typeof SHAPES;
  /** Another clock for the diff than the record's summary (the epoch). */
  clock: boolean;
  /** A tenant of the tree whose templates give a finding (spec.computeplane unchecked), whatever the change. */
  warnAt?: number;
}

const arbChange: fc.Arbitrary<Change> = fc.record({
  kind: fc.constantFrom<ChangeKind>('quota', 'quota', 'add', 'remove', 'gateway', 'host', 'route', 'values', 'none'),
  pick: fc.nat(20),
  whole: fc.boolean(),
  shape: fc.constantFrom(...(Object.keys(SHAPES) as (keyof typeof SHAPES)[])),
  clock: fc.boolean(),
  warnAt: fc.option(fc.nat(20), { nil: undefined }),
});

/** The case's Tenants, with the one `warnAt` names given spec.computeplane (its templates warn: no Package to check it). */
function treeTenants(c: PlatformCase, ch: Change): KObject[] {
  const tenants = tenantObjects(c).map((t) => clone(t));
  if (ch.warnAt !== undefined && tenants.length) {
    const t = tenants[ch.warnAt % tenants.length];
    t.spec = { ...(t.spec ?? {}), computeplane: true };
  }
  return tenants;
}

/** A case the charts render without an error, its values in a --values file. */
const renders = (c: PlatformCase) => {
  const r = render(
    clone({ objects: tenantObjects(c), valuesFiles: [{ file: 'v', values: platformValues(c.platform) }] }),
  );
  return r.objects.length > 0 && !r.findings.some((f) => f.severity === 'error');
};

const asList = (items: unknown[]) => jsyaml.dump({ apiVersion: 'v1', kind: 'List', items });

/** The change's inputs: the Tenants after it, which of them are given, a route, the values, whether --prune. */
function changeOf(
  c: PlatformCase,
  ch: Change,
): { tenants: KObject[]; given: KObject[]; extra: KObject[]; values: Record<string, unknown>; prune: boolean } {
  const tenants = treeTenants(c, ch);
  const values = platformValues(c.platform);
  const t = tenants.length ? tenants[ch.pick % tenants.length] : undefined;
  let given: KObject[] = t ? [t] : [];
  let prune = false;
  const extra: KObject[] = [];
  const spec = (o: KObject) => (o.spec ??= {}) as Record<string, unknown>;
  if (ch.kind === 'quota' && t) spec(t).resourceQuotas = { cpu: '4', memory: '8Gi' };
  else if (ch.kind === 'gateway' && t) spec(t).gateway = !spec(t).gateway;
  else if (ch.kind === 'host' && t) spec(t).host = `${t.metadata.name}-moved.example.com`;
  else if (ch.kind === 'add') {
    const parent = t
      ? `${t.metadata.namespace === 'tenant-root' ? 'tenant' : t.metadata.namespace}-${t.metadata.name}`
      : 'tenant-root';
    const added: KObject = {
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'newone', namespace: t?.metadata.name === 'root' ? 'tenant-root' : parent },
      spec: { gateway: ch.pick % 2 === 0 },
    };
    tenants.push(added);
    given = [added];
  } else if (ch.kind === 'remove' && t) {
    // A leaf goes: the given Tenants are the whole tree (--prune).
    const ns = (o: KObject) =>
      o.metadata.namespace === 'tenant-root'
        ? `tenant-${o.metadata.name}`
        : `${o.metadata.namespace}-${o.metadata.name}`;
    const leaf = tenants.filter(
      (o) => !tenants.some((x) => x.metadata.namespace === ns(o)) && o.metadata.name !== 'root',
    );
    const gone = leaf.length ? leaf[ch.pick % leaf.length] : undefined;
    if (gone) tenants.splice(tenants.indexOf(gone), 1);
    given = tenants;
    prune = true;
  } else if (ch.kind === 'route' && t) {
    const ns =
      t.metadata.name === 'root'
        ? 'tenant-root'
        : t.metadata.namespace === 'tenant-root'
          ? `tenant-${t.metadata.name}`
          : `${t.metadata.namespace}-${t.metadata.name}`;
    extra.push({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'shop', namespace: ns },
      spec: {
        parentRefs: [{ name: 'cozystack', namespace: ns }],
        hostnames: [`shop.${c.platform.host}`],
        rules: [{ backendRefs: [{ name: 'shop', port: 8080 }] }],
      },
    });
  } else if (ch.kind === 'values') (values.publishing as Record<string, unknown>).host = `moved.${c.platform.host}`;
  return { tenants, given: ch.whole && !prune ? tenants : given, extra, values, prune };
}

async function cli(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await runCli(args, { cwd: dir });
  if (STACK_FRAME.test(r.stderr)) throw new Error(`${args.join(' ')}: a stack trace\n${r.stderr}`);
  return r;
}

/** Whether the changed-only diff runs for these inputs (else why the whole tree is diffed). */
function ranChangedOnly(
  dir: string,
  given: KObject[],
  values: Record<string, unknown>,
  prune: boolean,
  now: string,
): true | string {
  const r = changedOnlyDiff(
    {
      state: 'tree',
      cwd: dir,
      sources: new SourceMap(),
      objects: clone(given),
      valuesFiles: [{ file: 'change-values.yaml', values: clone(values) }],
      prune,
      wholeTree: false,
    },
    () => ({ now, ciliumVersion: parseCiliumVersion(SHIPPED_CILIUM_VERSION)! }),
  );
  return 'result' in r ? true : r.full;
}

const ran: Record<string, number> = {};

describe('a changed-only diff against a committed tree', () => {
  it('prints what the whole diff prints, in every output format, and exits the same', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbPlatformCase.map((c) => ({ ...c, platform: { ...c.platform, asPackage: false } })).filter(renders),
        arbChange,
        async (c, ch) => {
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-changed-only-'));
          try {
            fs.writeFileSync(path.join(dir, 'values.yaml'), jsyaml.dump(platformValues(c.platform)));
            fs.writeFileSync(path.join(dir, 'tenants.yaml'), asList(treeTenants(c, ch)));
            const w = await cli(dir, [
              'render',
              '--values',
              'values.yaml',
              '-f',
              'tenants.yaml',
              ...SHAPES[ch.shape],
              '--output-dir',
              'tree',
            ]);
            expect({ write: w.code, stderr: w.code ? w.stderr : '' }).toEqual({ write: 0, stderr: '' });
            const x = changeOf(c, ch);
            fs.writeFileSync(path.join(dir, 'change-values.yaml'), jsyaml.dump(x.values));
            fs.writeFileSync(path.join(dir, 'change.yaml'), asList([...x.given, ...x.extra]));
            const now = ch.clock ? NOW : '1970-01-01T00:00:00Z';
            const args = [
              'diff',
              '--state',
              'tree',
              '--values',
              'change-values.yaml',
              '-f',
              'change.yaml',
              '--now',
              now,
              ...(x.prune ? ['--prune'] : []),
            ];
            for (const f of FORMATS) {
              const changedOnly = await cli(dir, [...args, '-o', f]);
              const full = await cli(dir, [...args, '-o', f, '--full']);
              expect({ change: ch.kind, shape: ch.shape, format: f, ...changedOnly }).toEqual({
                change: ch.kind,
                shape: ch.shape,
                format: f,
                ...full,
              });
            }
            const objects = [...x.given, ...x.extra];
            const did = ranChangedOnly(dir, objects, x.values, x.prune, now);
            ran[`${ch.kind}:${did}`] = (ran[`${ch.kind}:${did}`] ?? 0) + 1;
            const tenantsOwn = ['quota', 'gateway', 'host'].includes(ch.kind) && ch.shape === 'plain' && x.given.length;
            // A tenant's own change against a plain tree of the same values renders changed-only.
            if (tenantsOwn)
              expect({ change: ch.kind, changedOnly: did }).toEqual({ change: ch.kind, changedOnly: true });
            if (ch.kind === 'values')
              expect({ change: ch.kind, changedOnly: did }).toEqual({
                change: ch.kind,
                changedOnly: 'the platform digest differs',
              });
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: RUNS, seed },
    );
    if (process.env.CHANGED_ONLY_STATS) console.log(ran);
    // The changed-only diff ran in some runs (a property that only ever fell back would prove nothing).
    expect(Object.keys(ran).filter((k) => k.endsWith(':true')).length).toBeGreaterThan(0);
  }, 900_000);
});
