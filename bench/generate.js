'use strict';
/**
 * Synthetic platforms for the benchmark (docs/performance.md): a two-level tree of Tenants, the platform
 * values, and a cluster snapshot (Namespaces and TenantGateways as `render` produces them,
 * plus HTTPRoutes and TLSRoutes attached to the owning Gateways).
 *
 * Deterministic: a seeded PRNG (mulberry32), no Math.random, no clock. The same (size, seed)
 * gives byte-identical files.
 *
 * Shape of size L (S, M and XL scale the number of top-level tenants; XL = 4 x L):
 *   - 200 top-level tenants under tenant-root, each with 9 children: 2,000 tenants;
 *   - every top-level tenant owns a Gateway (spec.gateway: true); its children inherit it;
 *     tenant-root owns the publishing Gateway (Tenant `root`, gateway: true);
 *   - even-numbered owners are http01, under the platform apex (<name>.example.org), with 50
 *     HTTPRoutes claiming at most 50 distinct hostnames (about 10% of them raced by a second
 *     route from the owner's namespace, so the race is exercised);
 *   - odd-numbered owners are dns01 under a custom apex (spec.host <name>.example.net), with
 *     150 HTTPRoutes each; their children's apexes become wildcard SANs and listeners;
 *   - 10 TLSRoutes per owner: 20,000 HTTPRoutes and 2,000 TLSRoutes in all.
 *
 * The target shape (sizes TS and TL, where the docs/performance.md targets are measured; FN
 * is its tenant tree at 20,000 tenants, for `fn`): 10 children per top-level tenant, no platform
 * namespaces and no platform routes, so that the snapshot is tenants and their routes only, and
 * routes whose parentRefs leave group and kind to their defaults (smaller objects: the fixed
 * cost per object weighs more against the floor). TL:
 * 200 owners, 2,201 tenant namespaces, 201 TenantGateways, 20,000 HTTPRoutes (half the owners
 * http01 with 50 routes and at most 50 hostnames, half dns01 with 150), 2,000 TLSRoutes: 24,402
 * objects. TS: 10 owners with half the routes each (25 and 75): 722 objects.
 *
 * Usage as a script: node bench/generate.js [--size L] [--seed N] [--out DIR]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const jsyaml = require('js-yaml');

/** Number of top-level tenants (= Gateway owners besides tenant-root) per size. */
const SIZES = { S: 12, M: 50, L: 200, XL: 800, TS: 10, TL: 200, FN: 1818 };
/** The shape of the classic sizes (S, M, L, XL). */
const CLASSIC = { children: 9, http01Routes: 50, dns01Routes: 150, tlsRoutes: 10, platform: true, leanRefs: false };
/** The target shape (TS, TL, FN): see the head of this file. */
const TARGET = { children: 10, http01Routes: 50, dns01Routes: 150, tlsRoutes: 10, platform: false, leanRefs: true };
const SHAPES = {
  S: CLASSIC,
  M: CLASSIC,
  L: CLASSIC,
  XL: CLASSIC,
  TS: { ...TARGET, http01Routes: 25, dns01Routes: 75 },
  TL: TARGET,
  FN: { ...TARGET, tenantsOnly: true },
};
const ROOT_HOST = 'example.org';
const CUSTOM_SUFFIX = 'example.net';
const DEFAULT_SEED = 20260101;
const GW_GROUP = 'gateway.networking.k8s.io';
const ATTACHED = [
  'cozy-cert-manager',
  'cozy-dashboard',
  'cozy-keycloak',
  'cozy-system',
  'cozy-harbor',
  'cozy-bucket',
  'cozy-kubevirt',
  'cozy-kubevirt-cdi',
  'cozy-monitoring',
  'cozy-linstor-gui',
  'default',
];

/** mulberry32: a small, fast, seedable 32-bit PRNG. Returns floats in [0, 1). */
function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ra', 'to', 'vi', 'zu', 'be', 'do', 'fa', 'gi', 'ho', 'ju', 'pe', 'sa'];
const APPS = [
  'shop',
  'blog',
  'wiki',
  'grafana',
  'portal',
  'api',
  'docs',
  'status',
  'chat',
  'git',
  'ci',
  'auth',
  'admin',
  'cdn',
  'media',
  'search',
  'mail',
  'crm',
  'erp',
  'metrics',
];
const DBS = ['pg', 'redis', 'mongo', 'kafka', 'nats'];

/** A pronounceable name with no dash, unique thanks to the numeric suffix. */
function tenantName(r, i) {
  return r.pick(SYLLABLES) + r.pick(SYLLABLES) + String(i);
}

function tenantObj(name, namespace, spec) {
  return { apiVersion: 'apps.cozystack.io/v1alpha1', kind: 'Tenant', metadata: { name, namespace }, spec };
}

/**
 * The Namespace `render` writes for a tenant (docs/behaviour.md §2.4), plus the label the
 * apiserver stamps on every live namespace (kubernetes.io/metadata.name).
 */
function tenantNamespace(ns, nsValues) {
  const labels = { 'tenant.cozystack.io/tenant-root': '' };
  const parts = ns.split('-');
  for (let i = 2; i <= parts.length; i++) labels[`tenant.cozystack.io/${parts.slice(0, i).join('-')}`] = '';
  for (const k of ['etcd', 'ingress', 'gateway', 'monitoring', 'seaweedfs', 'host'])
    labels[`namespace.cozystack.io/${k}`] = nsValues[k];
  labels['alpha.kubevirt.io/auto-memory-limits-ratio'] = '1.0';
  labels['kubernetes.io/metadata.name'] = ns;
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels } };
}

function plainNamespace(ns, labels = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns, labels: { ...labels, 'kubernetes.io/metadata.name': ns } },
  };
}

/** The TenantGateway the gateway chart renders (docs/behaviour.md §3), for certMode http01 or dns01. */
function tenantGateway(ns, apex, mode, publishing) {
  const spec = { apex, gatewayClassName: 'cilium', certMode: mode, issuerName: 'letsencrypt-prod' };
  if (mode === 'dns01') {
    spec.dns01 = {
      provider: 'cloudflare',
      cloudflare: { apiTokenSecretRef: { name: 'cloudflare-api-token-secret', key: 'api-token' } },
    };
  }
  if (publishing) {
    spec.attachedNamespaces = [...ATTACHED];
    spec.tlsPassthroughServices = ['api', 'vm-exportproxy', 'cdi-uploadproxy'];
  }
  return {
    apiVersion: 'gateway.cozystack.io/v1alpha1',
    kind: 'TenantGateway',
    metadata: { name: 'cozystack', namespace: ns },
    spec,
  };
}

/** A parentRef to the owner's Gateway; `lean` leaves out group and kind (their defaults). */
function parentRef(ownerNs, extra, lean) {
  if (lean) return { name: 'cozystack', namespace: ownerNs, ...extra };
  return { group: GW_GROUP, kind: 'Gateway', name: 'cozystack', namespace: ownerNs, ...extra };
}

function httpRoute(name, ns, ownerNs, hostnames, r, extra, lean) {
  const rule = { backendRefs: [{ name, port: 8080 }] };
  if (r.chance(0.1)) rule.matches = [{ path: { type: 'PathPrefix', value: '/api' } }];
  return {
    apiVersion: `${GW_GROUP}/v1`,
    kind: 'HTTPRoute',
    metadata: { name, namespace: ns },
    spec: { parentRefs: [parentRef(ownerNs, extra, lean)], hostnames, rules: [rule] },
  };
}

function tlsRoute(name, ns, ownerNs, hostname, port, extra, lean) {
  return {
    apiVersion: `${GW_GROUP}/v1alpha2`,
    kind: 'TLSRoute',
    metadata: { name, namespace: ns },
    spec: {
      parentRefs: [parentRef(ownerNs, extra, lean)],
      hostnames: [hostname],
      rules: [{ backendRefs: [{ name, port }] }],
    },
  };
}

/** Platform values (the platform chart's publishing / gateway keys). */
function platformValues(solver) {
  const v = {
    publishing: {
      host: ROOT_HOST,
      ingressName: 'tenant-root',
      certificates: { solver, issuerName: 'letsencrypt-prod' },
    },
    gateway: { enabled: true },
  };
  return v;
}

/**
 * Generate a platform. Returns { tenants, snapshot, values, owners, meta } where tenants and
 * snapshot are arrays of objects in a stable order.
 */
function generate(size = 'L', seed = DEFAULT_SEED, opts = {}) {
  const tops = opts.tops ?? SIZES[size];
  if (!tops) throw new Error(`unknown size ${size} (expected one of ${Object.keys(SIZES).join(', ')})`);
  const shape = SHAPES[size] ?? CLASSIC;
  const r = prng(seed);
  // opts.tenantsOnly: the Tenants alone (the same ones: every random draw is still made), for
  // sizes whose snapshot would not fit in memory (bench/tenant-scale.js at 200,000 tenants).
  const onlyTenants = Boolean(opts.tenantsOnly);
  const tenants = [tenantObj('root', 'tenant-root', { gateway: true })];
  const namespaces = [];
  const tgws = [];
  const routes = [];
  const tls = [];
  const owners = [];
  const rootNs = {
    etcd: 'tenant-root',
    ingress: 'tenant-root',
    gateway: 'tenant-root',
    monitoring: 'tenant-root',
    seaweedfs: 'tenant-root',
    host: ROOT_HOST,
  };

  // tenant-root (cozystack-basics, docs/behaviour.md §2.7) and the platform namespaces.
  namespaces.push(
    plainNamespace('tenant-root', {
      'platform.cozystack.io/no-delete': 'true',
      'namespace.cozystack.io/host': ROOT_HOST,
      'namespace.cozystack.io/gateway': 'tenant-root',
    }),
  );
  if (shape.platform) for (const ns of ATTACHED) namespaces.push(plainNamespace(ns));
  tgws.push(tenantGateway('tenant-root', ROOT_HOST, 'http01', true));
  owners.push({ ns: 'tenant-root', apex: ROOT_HOST, mode: 'http01' });
  // The platform's own routes on the publishing Gateway.
  if (shape.platform) platformRoutes(routes, tls, r);

  for (let t = 0; t < tops; t++) {
    const name = tenantName(r, t);
    const mode = t % 2 === 0 ? 'http01' : 'dns01';
    const ownerNs = `tenant-${name}`;
    const apex = mode === 'dns01' ? `${name}.${CUSTOM_SUFFIX}` : `${name}.${ROOT_HOST}`;
    const spec = { gateway: true };
    if (mode === 'dns01') spec.host = apex;
    if (r.chance(0.3)) spec.monitoring = true;
    if (r.chance(0.2)) spec.etcd = true;
    tenants.push(tenantObj(name, 'tenant-root', spec));
    const ownerValues = {
      etcd: spec.etcd ? ownerNs : rootNs.etcd,
      ingress: rootNs.ingress,
      gateway: ownerNs,
      monitoring: spec.monitoring ? ownerNs : rootNs.monitoring,
      seaweedfs: rootNs.seaweedfs,
      host: apex,
    };
    if (!onlyTenants) {
      namespaces.push(tenantNamespace(ownerNs, ownerValues));
      tgws.push(tenantGateway(ownerNs, apex, mode, false));
    }
    owners.push({ ns: ownerNs, apex, mode });
    // The owner's tenant namespaces: its own and its children's.
    const tenantNss = [{ ns: ownerNs, host: apex }];
    for (let c = 0; c < shape.children; c++) {
      const cname = tenantName(r, c);
      const cspec = {};
      if (r.chance(0.1)) cspec.seaweedfs = true;
      tenants.push(tenantObj(cname, ownerNs, cspec));
      const cns = `${ownerNs}-${cname}`;
      const chost = `${cname}.${apex}`;
      if (!onlyTenants)
        namespaces.push(
          tenantNamespace(cns, {
            ...ownerValues,
            seaweedfs: cspec.seaweedfs ? cns : ownerValues.seaweedfs,
            host: chost,
          }),
        );
      tenantNss.push({ ns: cns, host: chost });
    }
    // HTTPRoutes: spread over the owner's namespaces. Route i sits in namespace i % (children + 1).
    const n = mode === 'http01' ? shape.http01Routes : shape.dns01Routes;
    const claimed = [];
    for (let i = 0; i < n; i++) {
      const where = tenantNss[i % tenantNss.length];
      const app = `${r.pick(APPS)}-${i}`;
      let hostnames = [`${app}.${where.host}`];
      // About 10% of the routes in the owner's own namespace race a child's hostname (the
      // owner's apex covers its children's, so the route-hostname policy admits it).
      if (where.ns === ownerNs && claimed.length && r.chance(0.5)) hostnames = [r.pick(claimed)];
      else if (mode === 'dns01' && r.chance(0.2)) hostnames.push(`www.${app}.${where.host}`);
      if (where.ns !== ownerNs) claimed.push(hostnames[0]);
      const extra = r.chance(0.05) ? { sectionName: 'http' } : undefined;
      const route = httpRoute(app, where.ns, ownerNs, hostnames, r, extra, shape.leanRefs);
      if (!onlyTenants) routes.push(route);
    }
    for (let i = 0; i < shape.tlsRoutes; i++) {
      const where = tenantNss[i % tenantNss.length];
      const db = `${r.pick(DBS)}-${i}`;
      if (!onlyTenants)
        tls.push(tlsRoute(db, where.ns, ownerNs, `${db}.${where.host}`, 5432, undefined, shape.leanRefs));
    }
  }
  const snapshot = [...namespaces, ...tgws, ...routes, ...tls];
  return {
    tenants,
    snapshot,
    owners,
    values: platformValues('http01'),
    valuesDns01: platformValues('dns01'),
    meta: {
      size: opts.tops ? `custom(${tops})` : size,
      seed,
      tenants: tenants.length,
      namespaces: namespaces.length,
      tenantGateways: tgws.length,
      httpRoutes: routes.length,
      tlsRoutes: tls.length,
      snapshotObjects: snapshot.length,
    },
  };
}

/** The platform's own routes on the publishing Gateway (classic shape). */
function platformRoutes(routes, tls, r) {
  for (const [app, ns] of [
    ['dashboard', 'cozy-dashboard'],
    ['keycloak', 'cozy-keycloak'],
    ['harbor', 'cozy-harbor'],
    ['grafana', 'cozy-monitoring'],
    ['s3', 'cozy-bucket'],
    ['linstor', 'cozy-linstor-gui'],
  ]) {
    routes.push(httpRoute(app, ns, 'tenant-root', [`${app}.${ROOT_HOST}`], r));
  }
  tls.push(tlsRoute('kubernetes-api', 'default', 'tenant-root', `api.${ROOT_HOST}`, 6443, { sectionName: 'tls-api' }));
  tls.push(
    tlsRoute('vm-exportproxy', 'cozy-kubevirt', 'tenant-root', `vm-exportproxy.${ROOT_HOST}`, 443, {
      sectionName: 'tls-vm-exportproxy',
    }),
  );
  tls.push(
    tlsRoute('cdi-uploadproxy', 'cozy-kubevirt-cdi', 'tenant-root', `cdi-uploadproxy.${ROOT_HOST}`, 443, {
      sectionName: 'tls-cdi-uploadproxy',
    }),
  );
}

function dumpStream(objs) {
  return objs
    .map((o) => jsyaml.dump(o, { noRefs: true, lineWidth: -1, quotingType: '"', noArrayIndent: true }))
    .join('---\n');
}

/** The same objects as `kubectl get -o json` prints them: one `List`, indented by 4 spaces. */
function jsonList(objs) {
  return (
    JSON.stringify({ apiVersion: 'v1', items: objs, kind: 'List', metadata: { resourceVersion: '' } }, null, 4) + '\n'
  );
}

/**
 * The ResourceList kpt hands a function for a package holding these Tenants (one file each,
 * kpt's path annotations, compact sequences), with a CozyGateway config holding the values.
 */
function resourceList(tenants, values) {
  const items = tenants.map((t) => {
    const file = `tenants/${t.metadata.namespace}/${t.metadata.name}.yaml`;
    const annotations = { 'config.kubernetes.io/path': file, 'internal.config.kubernetes.io/path': file };
    return { ...t, metadata: { ...t.metadata, annotations } };
  });
  const functionConfig = {
    apiVersion: 'fn.cozystack.io/v1alpha1',
    kind: 'CozyGateway',
    metadata: { name: 'platform', annotations: { 'config.kubernetes.io/local-config': 'true' } },
    spec: { values },
  };
  return dumpStream([{ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items, functionConfig }]);
}

/**
 * Write a generated platform into a folder: values.yaml (http01), values-dns01.yaml,
 * tenants.yaml (render's input), snapshot.yaml (reconcile's input), snapshot.json (the same
 * objects as a `kubectl get -o json` List), resourcelist.yaml (fn's input: the Tenants and the
 * values), meta.json. A tenants-only size (FN) writes no snapshot. Returns the paths and the
 * meta (with byte sizes).
 */
function writePlatform(dir, size = 'L', seed = DEFAULT_SEED, opts = {}) {
  const g = generate(size, seed, opts);
  const tenantsOnly = Boolean(SHAPES[size]?.tenantsOnly) && !opts.tops;
  fs.mkdirSync(dir, { recursive: true });
  const files = {
    values: path.join(dir, 'values.yaml'),
    valuesDns01: path.join(dir, 'values-dns01.yaml'),
    tenants: path.join(dir, 'tenants.yaml'),
    snapshot: tenantsOnly ? undefined : path.join(dir, 'snapshot.yaml'),
    snapshotJson: tenantsOnly ? undefined : path.join(dir, 'snapshot.json'),
    resourceList: path.join(dir, 'resourcelist.yaml'),
    meta: path.join(dir, 'meta.json'),
  };
  fs.writeFileSync(files.values, jsyaml.dump(g.values));
  fs.writeFileSync(files.valuesDns01, jsyaml.dump(g.valuesDns01));
  const tenantsText = dumpStream(g.tenants);
  fs.writeFileSync(files.tenants, tenantsText);
  const rlText = resourceList(g.tenants, g.values);
  fs.writeFileSync(files.resourceList, rlText);
  let snapshotBytes = 0;
  let snapshotJsonBytes = 0;
  if (!tenantsOnly) {
    const snapshotText = dumpStream(g.snapshot);
    fs.writeFileSync(files.snapshot, snapshotText);
    snapshotBytes = Buffer.byteLength(snapshotText);
    const json = jsonList(g.snapshot);
    fs.writeFileSync(files.snapshotJson, json);
    snapshotJsonBytes = Buffer.byteLength(json);
  }
  const meta = {
    ...g.meta,
    tenantsBytes: Buffer.byteLength(tenantsText),
    snapshotBytes,
    snapshotJsonBytes,
    resourceListBytes: Buffer.byteLength(rlText),
  };
  fs.writeFileSync(files.meta, JSON.stringify(meta, null, 2) + '\n');
  return { dir, files, meta };
}

/** The scale row's sizes: objects in one input file, and routes (one hostname each) in one plan. */
const SCALE = { objects: 500000, routes: 200000 };

/**
 * The scale row's inputs, written as text directly (js-yaml's dump of half a million objects
 * would take longer than reading them): `scale-objects.yaml`, `objects` ConfigMaps over 1,000
 * namespaces in one file (what reading costs at that size); `scale-routes.yaml`, tenant-root's
 * Namespace, its dns01 TenantGateway and `routes` HTTPRoutes, one hostname under the apex each
 * (a plan of that many hostnames, all served by the wildcard listener once the pass has run).
 * Returns the paths and the counts.
 */
function writeScale(dir, opts = {}) {
  const objects = opts.objects ?? SCALE.objects;
  const routes = opts.routes ?? SCALE.routes;
  fs.mkdirSync(dir, { recursive: true });
  const files = { objects: path.join(dir, 'scale-objects.yaml'), routes: path.join(dir, 'scale-routes.yaml') };
  const write = (file, n, head, doc) => {
    const fd = fs.openSync(file, 'w');
    try {
      let buf = head;
      for (let i = 0; i < n; i++) {
        buf += (i || head ? '---\n' : '') + doc(i);
        if (buf.length > 1 << 20) {
          fs.writeSync(fd, buf);
          buf = '';
        }
      }
      fs.writeSync(fd, buf);
    } finally {
      fs.closeSync(fd);
    }
    return fs.statSync(file).size;
  };
  const objectsBytes = write(
    files.objects,
    objects,
    '',
    (i) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-${i}\n  namespace: app-${i % 1000}\n  labels:\n    app.kubernetes.io/name: app-${i % 1000}\ndata:\n  key: value-${i}\n`,
  );
  const tgw = tenantGateway('tenant-root', ROOT_HOST, 'dns01', false);
  const root = 'tenant-root';
  const nsValues = { etcd: root, ingress: root, gateway: root, monitoring: root, seaweedfs: root, host: ROOT_HOST };
  const head = dumpStream([tenantNamespace(root, nsValues), tgw]);
  const routesBytes = write(
    files.routes,
    routes,
    head.endsWith('\n') ? head : `${head}\n`,
    (i) =>
      `apiVersion: ${GW_GROUP}/v1\nkind: HTTPRoute\nmetadata:\n  name: route-${i}\n  namespace: tenant-root\nspec:\n  parentRefs:\n    - {group: ${GW_GROUP}, kind: Gateway, name: cozystack, namespace: tenant-root}\n  hostnames: [h${i}.${ROOT_HOST}]\n  rules:\n    - backendRefs: [{name: route-${i}, port: 8080}]\n`,
  );
  return { files, meta: { objects, routes, objectsBytes, routesBytes } };
}

function tmpDir(prefix = 'cozy-gw-bench-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

module.exports = {
  SIZES,
  DEFAULT_SEED,
  ROOT_HOST,
  CUSTOM_SUFFIX,
  prng,
  generate,
  writePlatform,
  SCALE,
  writeScale,
  dumpStream,
  resourceList,
  jsonList,
  tmpDir,
  platformValues,
};

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name, def) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : def;
  };
  const size = opt('--size', 'L');
  const seed = Number(opt('--seed', DEFAULT_SEED));
  const out = opt('--out', undefined) ?? tmpDir();
  const res = writePlatform(out, size, seed);
  process.stdout.write(JSON.stringify(res, null, 2) + '\n');
}
