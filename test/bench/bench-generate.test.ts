/**
 * The benchmark's synthetic platform generator (bench/generate.js, docs/performance.md): deterministic,
 * the sizes the README names, and objects that are valid inputs (naming rules, routes attached
 * to the owning Gateway, hostnames under the right apex, TenantGateways as render writes them).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generate, writePlatform, prng, SIZES, ROOT_HOST, CUSTOM_SUFFIX, type KObj } from '../../bench/generate.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gen-test-'));

describe('bench generator: determinism', () => {
  test('same seed gives byte-identical files', () => {
    const a = tmp();
    const b = tmp();
    try {
      writePlatform(a, 'S', 7, { tops: 4 });
      writePlatform(b, 'S', 7, { tops: 4 });
      const files = fs.readdirSync(a).sort();
      expect(files).toEqual([
        'meta.json',
        'resourcelist.yaml',
        'snapshot.json',
        'snapshot.yaml',
        'tenants.yaml',
        'values-dns01.yaml',
        'values.yaml',
      ]);
      for (const f of files) expect(fs.readFileSync(path.join(b, f))).toEqual(fs.readFileSync(path.join(a, f)));
    } finally {
      fs.rmSync(a, { recursive: true, force: true });
      fs.rmSync(b, { recursive: true, force: true });
    }
  });

  test('another seed gives other names', () => {
    const x = generate('S', 1).tenants.map((t) => t.metadata.name);
    const y = generate('S', 2).tenants.map((t) => t.metadata.name);
    expect(x).not.toEqual(y);
  });

  test('the PRNG is seeded and does not use Math.random', () => {
    const spy = jest.spyOn(Math, 'random');
    const r1 = prng(42);
    const r2 = prng(42);
    const xs = Array.from({ length: 5 }, () => r1.next());
    expect(Array.from({ length: 5 }, () => r2.next())).toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
    generate('S', 3);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });
});

describe('bench generator: sizes', () => {
  test('L is about 2,000 tenants, 200 owners, 20,000 HTTPRoutes, 2,000 TLSRoutes', () => {
    const m = generate('L').meta;
    expect(m.tenants).toBe(2001); // 200 top-level x (1 + 9 children), plus Tenant root
    expect(m.tenantGateways).toBe(201); // 200 owners plus the publishing tenant-root
    expect(Math.round(m.httpRoutes / 1000)).toBe(20);
    expect(Math.round(m.tlsRoutes / 100)).toBe(20);
    expect(Math.round(m.snapshotObjects / 1000)).toBe(24);
  });

  test('TL, the target shape: 200 owners, 2,201 tenant namespaces, 20,000 HTTPRoutes, 2,000 TLSRoutes, 24,402 objects', () => {
    const m = generate('TL').meta;
    expect(m.tenants).toBe(2201); // 200 top-level x (1 + 10 children), plus Tenant root
    expect(m.namespaces).toBe(2201); // tenant namespaces only: no platform namespaces
    expect(m.tenantGateways).toBe(201);
    expect(m.httpRoutes).toBe(20000); // 100 http01 owners x 50 + 100 dns01 owners x 150
    expect(m.tlsRoutes).toBe(2000);
    expect(m.snapshotObjects).toBe(24402);
  });

  test('TS: 10 owners, 722 objects; FN: the target tree at 20,000 tenants', () => {
    const m = generate('TS').meta;
    expect(m.tenantGateways).toBe(11);
    expect(m.httpRoutes).toBe(500);
    expect(m.snapshotObjects).toBe(722);
    expect(generate('FN').meta.tenants).toBe(19999);
  });

  test('XL is four times L, S and M smaller, in that order', () => {
    expect(SIZES.XL).toBe(4 * SIZES.L);
    const L = generate('L').meta;
    const XL = generate('XL').meta;
    expect(XL.tenants - 1).toBe(4 * (L.tenants - 1));
    expect(Math.abs(XL.httpRoutes / L.httpRoutes - 4)).toBeLessThan(0.01);
    expect(Math.abs(XL.tlsRoutes / L.tlsRoutes - 4)).toBeLessThan(0.01);
    expect(SIZES.S).toBeLessThan(SIZES.M);
    expect(SIZES.M).toBeLessThan(SIZES.L);
  });
});

describe.each(['S', 'TS'])('bench generator: valid objects (%s)', (size) => {
  const g = generate(size, 11);
  const byKind = (k: string) => g.snapshot.filter((o) => o.kind === k);
  const nsByName = new Map(byKind('Namespace').map((n) => [n.metadata.name, n]));
  const label = (ns: string, k: string) => nsByName.get(ns)?.metadata.labels?.[k];
  const tgwNs = new Set(byKind('TenantGateway').map((t) => t.metadata.namespace));
  const within = (h: string, apex: string) => h === apex || h.endsWith('.' + apex);

  test('Tenant names have no dashes; namespaces follow tenant-<name> / <parent-ns>-<name>', () => {
    for (const t of g.tenants) {
      expect(t.metadata.name).toMatch(/^[a-z][a-z0-9]*$/);
      if (t.metadata.name === 'root') continue;
      const ns =
        t.metadata.namespace === 'tenant-root'
          ? `tenant-${t.metadata.name}`
          : `${t.metadata.namespace}-${t.metadata.name}`;
      expect(nsByName.has(ns)).toBe(true);
      // two levels: a parent is tenant-root or a top-level tenant's namespace
      expect(t.metadata.namespace === 'tenant-root' || /^tenant-[a-z0-9]+$/.test(t.metadata.namespace!)).toBe(true);
    }
    const names = g.snapshot.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    expect(new Set(names).size).toBe(names.length);
  });

  test('tenant namespaces carry the render labels, the gateway label naming the owner', () => {
    for (const t of g.tenants) {
      if (t.metadata.name === 'root') continue;
      const ns =
        t.metadata.namespace === 'tenant-root'
          ? `tenant-${t.metadata.name}`
          : `${t.metadata.namespace}-${t.metadata.name}`;
      const owner = label(ns, 'namespace.cozystack.io/gateway')!;
      expect(tgwNs.has(owner)).toBe(true);
      expect(t.spec.gateway === true ? owner === ns : owner === t.metadata.namespace).toBe(true);
      expect(label(ns, 'tenant.cozystack.io/tenant-root')).toBe('');
      expect(label(ns, `tenant.cozystack.io/${ns}`)).toBe('');
      const parentHost = label(t.metadata.namespace!, 'namespace.cozystack.io/host');
      expect(label(ns, 'namespace.cozystack.io/host')).toBe(t.spec.host || `${t.metadata.name}.${parentHost}`);
    }
  });

  test('owners: half http01 under the platform apex, half dns01 under a custom apex', () => {
    const tgws = byKind('TenantGateway').filter((t) => t.metadata.namespace !== 'tenant-root');
    const http01 = tgws.filter((t) => t.spec.certMode === 'http01');
    const dns01 = tgws.filter((t) => t.spec.certMode === 'dns01');
    expect(Math.abs(http01.length - dns01.length)).toBeLessThanOrEqual(1);
    for (const t of http01) expect(t.spec.apex.endsWith('.' + ROOT_HOST)).toBe(true);
    for (const t of dns01) {
      expect(t.spec.apex.endsWith('.' + CUSTOM_SUFFIX)).toBe(true);
      expect(t.spec.dns01.provider).toBe('cloudflare');
    }
    for (const t of tgws) expect(label(t.metadata.namespace!, 'namespace.cozystack.io/host')).toBe(t.spec.apex);
  });

  test('routes point at the owning Gateway, with hostnames under their namespace apex', () => {
    const distinct = new Map<string, Set<string>>();
    const routes = [...byKind('HTTPRoute'), ...byKind('TLSRoute')];
    expect(routes.length).toBeGreaterThan(0);
    const bad: string[] = []; // one expect at the end: thousands of expect() calls are slow
    for (const r of routes) {
      const ns = r.metadata.namespace!;
      const id = `${r.kind} ${ns}/${r.metadata.name}`;
      const owner = ns.startsWith('tenant-') ? label(ns, 'namespace.cozystack.io/gateway')! : 'tenant-root';
      const p = r.spec.parentRefs[0];
      if (
        r.spec.parentRefs.length !== 1 ||
        (p.group ?? 'gateway.networking.k8s.io') !== 'gateway.networking.k8s.io' ||
        (p.kind ?? 'Gateway') !== 'Gateway' ||
        p.name !== 'cozystack' ||
        p.namespace !== owner ||
        !tgwNs.has(owner)
      ) {
        bad.push(`${id}: parentRef ${JSON.stringify(r.spec.parentRefs)} is not the owner ${owner}`);
      }
      const apex = ns.startsWith('tenant-') ? label(ns, 'namespace.cozystack.io/host')! : ROOT_HOST;
      if (!r.spec.hostnames.length) bad.push(`${id}: no hostnames`);
      for (const h of r.spec.hostnames) if (!within(h, apex)) bad.push(`${id}: ${h} outside ${apex}`);
      if (r.kind === 'HTTPRoute') {
        const set = distinct.get(owner) ?? new Set();
        for (const h of r.spec.hostnames) set.add(h);
        distinct.set(owner, set);
      }
    }
    expect(bad).toEqual([]);
    // http01 owners stay within the listener budget: at most 50 distinct hostnames.
    for (const o of g.owners.filter((x) => x.mode === 'http01'))
      expect(distinct.get(o.ns)?.size ?? 0).toBeLessThanOrEqual(50);
    // some hostnames are raced between namespaces (the race is exercised)
    const claims = new Map<string, Set<string>>();
    for (const r of byKind('HTTPRoute'))
      for (const h of r.spec.hostnames) claims.set(h, (claims.get(h) ?? new Set()).add(r.metadata.namespace!));
    expect([...claims.values()].some((s) => s.size > 1)).toBe(true);
  });
});

describe('bench generator: the JSON snapshot and the ResourceList', () => {
  test("snapshot.json holds snapshot.yaml's objects as a kubectl get -o json List; resourcelist.yaml the Tenants", async () => {
    const jsyaml = await import('js-yaml');
    const dir = tmp();
    try {
      const { files } = writePlatform(dir, 'TS', 3);
      const yamlObjs = jsyaml.loadAll(fs.readFileSync(files.snapshot!, 'utf8'));
      const list = JSON.parse(fs.readFileSync(files.snapshotJson!, 'utf8'));
      expect(list.kind).toBe('List');
      expect(list.items).toEqual(yamlObjs);
      const rl = jsyaml.load(fs.readFileSync(files.resourceList, 'utf8')) as { kind: string; items: KObj[] };
      expect(rl.kind).toBe('ResourceList');
      const names = (xs: KObj[]) => xs.map((t) => `${t.kind} ${t.metadata.namespace}/${t.metadata.name}`);
      expect(names(rl.items)).toEqual(names(generate('TS', 3).tenants));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The snapshot's Namespaces and TenantGateways are what `render` writes for the same Tenants. */
describe('bench generator: agrees with render', () => {
  const strip = (o: KObj) => {
    const c = JSON.parse(JSON.stringify(o));
    if (c.kind === 'Namespace') {
      delete c.metadata.labels['kubernetes.io/metadata.name']; // stamped by the apiserver, not render
      delete c.metadata.ownerReferences;
    }
    return c;
  };
  test('Namespaces and TenantGateways match render output (http01 and dns01 values)', async () => {
    const { runCli } = require('../helpers/cli') as typeof import('../helpers/cli');
    const jsyaml = await import('js-yaml');
    const dir = tmp();
    try {
      const { files } = writePlatform(dir, 'S', 5);
      const g = generate('S', 5);
      const snap = new Map(
        g.snapshot.map((o) => [`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, strip(o)]),
      );
      for (const [values, mode] of [
        [files.values, 'http01'],
        [files.valuesDns01, 'dns01'],
      ] as const) {
        const res = await runCli(['render', '--values', values, '-f', files.tenants]);
        expect(res.stderr).not.toMatch(/error/i);
        expect(res.code).toBe(0);
        const out = jsyaml.loadAll(res.stdout) as KObj[];
        const tenantNss = out.filter(
          (o) => o.kind === 'Namespace' && o.metadata.name.startsWith('tenant-') && o.metadata.name !== 'tenant-root',
        );
        expect(tenantNss.length).toBe(g.tenants.length - 1);
        for (const n of tenantNss) expect(strip(n)).toEqual(snap.get(`Namespace//${n.metadata.name}`));
        const owners = new Set(g.owners.filter((o) => o.mode === mode).map((o) => o.ns));
        const tgws = out.filter((o) => o.kind === 'TenantGateway' && owners.has(o.metadata.namespace!));
        expect(tgws.length).toBe(owners.size);
        for (const t of tgws) expect(t).toEqual(snap.get(`TenantGateway/${t.metadata.namespace}/cozystack`));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
