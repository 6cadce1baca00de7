#!/usr/bin/env node
/**
 * Vendors the published schemas of the Gateway API and cert-manager kinds, as the validators the
 * @kubernetes-models packages compiled from them (ajv standalone code generated from the upstream
 * CRDs' OpenAPI schemas: the same schemas kubeconform checks against), into
 * src/validation/upstreamValidators.generated.ts, so that `--validate` needs no new runtime
 * dependency (only ajv's runtime helpers and ajv-formats, which are dependencies already).
 *
 * The packages are not dependencies of the project (they declare Node >= 22, the tool needs 20.19):
 * the script installs the versions pinned in PACKAGES into a temporary directory with npm, reads
 * their files (it never runs their code), and removes the directory. To upgrade, change PACKAGES,
 * run it, and commit the result:
 *   npm run vendor-schemas
 * `npm run vendor-schemas -- --check` writes nothing and exits 1 when the committed file is not
 * what the pinned packages give (CI runs it); `--from DIR` reads an existing node_modules DIR instead.
 *
 * Each ES module of the packages' _schemas/ becomes a function in one CommonJS-compatible file:
 * `import {validate as vN} from "./X.js"` becomes a hoisted forwarding function (so cycles work
 * and `vN.errors` is what the callee left), `import {formats}` and the ucs2length helper become
 * parameters the runtime supplies.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

/** The packages vendored, at the versions the committed file comes from. */
const PACKAGES = { '@kubernetes-models/gateway-api': '2.0.0', '@kubernetes-models/cert-manager': '6.0.0' };

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const check = args.includes('--check');
const fromAt = args.indexOf('--from');
let scratch;
let nm;
if (fromAt >= 0) nm = path.resolve(args[fromAt + 1]);
else {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-vendor-'));
  fs.writeFileSync(path.join(scratch, 'package.json'), '{"private":true}\n');
  // --loglevel=error: the packages' engines field (Node >= 22) does not matter, their code is not run.
  execFileSync(
    'npm',
    [
      'install',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      ...Object.entries(PACKAGES).map(([p, v]) => `${p}@${v}`),
    ],
    { cwd: scratch, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  nm = path.join(scratch, 'node_modules');
}
process.on('exit', () => scratch && fs.rmSync(scratch, { recursive: true, force: true }));

/** The kinds vendored: every kind of these API groups the packages model. */
const ENTRIES = [
  ['@kubernetes-models/gateway-api', 'gateway.networking.k8s.io'],
  ['@kubernetes-models/cert-manager', 'cert-manager.io'],
  ['@kubernetes-models/cert-manager', 'acme.cert-manager.io'],
];
const KINDS = new Set([
  'Gateway',
  'GatewayClass',
  'HTTPRoute',
  'GRPCRoute',
  'TLSRoute',
  'TCPRoute',
  'UDPRoute',
  'ReferenceGrant',
  'BackendTLSPolicy',
  'ListenerSet',
  'XListenerSet',
  'Certificate',
  'CertificateRequest',
  'Issuer',
  'ClusterIssuer',
  'Order',
  'Challenge',
]);

const modules = new Map(); // id -> code
const kinds = {}; // apiVersion/kind -> module id

function resolveSpec(fromFile, spec) {
  if (spec.startsWith('.')) return path.resolve(path.dirname(fromFile), spec);
  const withExt = spec.endsWith('.js') ? spec : `${spec}.js`;
  return path.join(nm, withExt);
}
const idOf = (file) => path.relative(nm, file).replace(/\\/g, '/').replace(/\.js$/, '');

function load(file) {
  const id = idOf(file);
  if (modules.has(id)) return id;
  modules.set(id, '');
  let code = fs.readFileSync(file, 'utf8').replace(/\/\/# sourceMappingURL=.*$/m, '');
  const deps = [];
  code = code.replace(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)";?/g, (_, names, spec) => {
    if (spec === '@kubernetes-models/validate') return '';
    const dep = load(resolveSpec(file, spec));
    deps.push(dep);
    return (
      names
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean)
        .map((n) => {
          const m = /^(\w+)(?:\s+as\s+(\w+))?$/.exec(n);
          const [imported, local] = [m[1], m[2] ?? m[1]];
          return `function ${local}(d,o){const f=__load(${JSON.stringify(dep)}).${imported};const r=f(d,o);${local}.errors=f.errors;return r}`;
        })
        .join(';') + ';'
    );
  });
  code = code.replace(
    /import\s+(\w+)\s+from\s*"@kubernetes-models\/validate\/runtime\/ucs2length";?/g,
    (_, local) => `const ${local}=__ucs2length;`,
  );
  if (/\bimport\b\s*[{\w*]/.test(code.replace(/"(?:[^"\\]|\\.)*"/g, '""')))
    throw new Error(`unhandled import in ${id}`);
  code = code.replace(/export\s+const\s+validate\s*=\s*(\w+);?/, 'exports.validate=$1;');
  if (/\bexport\b/.test(code.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) throw new Error(`unhandled export in ${id}`);
  modules.set(id, code);
  return id;
}

for (const [pkg, group] of ENTRIES) {
  const gdir = path.join(nm, pkg, group);
  for (const version of fs
    .readdirSync(gdir)
    .filter((v) => fs.statSync(path.join(gdir, v)).isDirectory())
    .sort()) {
    for (const f of fs
      .readdirSync(path.join(gdir, version))
      .filter((x) => x.endsWith('.js'))
      .sort()) {
      const kind = f.replace(/\.js$/, '');
      if (!KINDS.has(kind)) continue;
      const src = fs.readFileSync(path.join(gdir, version, f), 'utf8');
      const m = /import\{validate\}from"([^"]+)"/.exec(src);
      if (!m) continue;
      kinds[`${group}/${version}/${kind}`] = load(resolveSpec(path.join(gdir, version, f), m[1]));
    }
  }
}

const versions = Object.fromEntries(
  ['@kubernetes-models/gateway-api', '@kubernetes-models/cert-manager'].map((p) => [
    p,
    require(path.join(nm, p, 'package.json')).version,
  ]),
);
let out = `// Generated by scripts/vendor-upstream-validators.js from ${Object.entries(versions)
  .map(([p, v]) => `${p}@${v}`)
  .join(', ')}
// (MIT; ajv standalone validators compiled from the upstream Gateway API and cert-manager CRD schemas). Do not edit.
// @ts-nocheck
/* eslint-disable */

/** apiVersion/kind → the module of its validator. */
export const KINDS: Record<string, string> = ${JSON.stringify(kinds, null, 1)};

const MODULES: Record<string, (exports: Record<string, unknown>, __load: (id: string) => Record<string, any>, formats: Record<string, unknown>, __ucs2length: (s: string) => number) => void> = {
`;
for (const [id, code] of [...modules].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
  out += `${JSON.stringify(id)}: function (exports, __load, formats, __ucs2length) {\n${code.trim()}\n},\n`;
}
out += `};

/** Instantiate the modules on first use, each once. */
export function moduleLoader(formats: Record<string, unknown>, ucs2length: (s: string) => number): (id: string) => Record<string, any> {
  const cache = new Map<string, Record<string, unknown>>();
  const load = (id: string) => {
    let m = cache.get(id);
    if (!m) {
      m = {};
      cache.set(id, m);
      MODULES[id](m, load, formats, ucs2length);
    }
    return m;
  };
  return load;
}
`;
const file = path.join(root, 'src', 'validation', 'upstreamValidators.generated.ts');
const rel = path.relative(root, file);
for (const [p, v] of Object.entries(PACKAGES)) {
  if (versions[p] !== v) throw new Error(`${p} in ${nm} is ${versions[p]}, not the pinned ${v}`);
}
if (check) {
  const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (committed !== out) {
    console.error(
      `${rel} is not what ${Object.entries(PACKAGES)
        .map(([p, v]) => `${p}@${v}`)
        .join(', ')} give: run npm run vendor-schemas and commit the result`,
    );
    process.exit(1);
  }
  console.log(`${rel} is what the pinned packages give`);
} else {
  fs.writeFileSync(file, out);
  console.log(
    `wrote ${rel}: ${Object.keys(kinds).length} kinds, ${modules.size} modules, ${(out.length / 1024).toFixed(0)} KiB`,
  );
}
