#!/usr/bin/env node
/**
 * Vendors the published schemas of the kinds `--validate` checks (src/validation/publishedSchemas.ts),
 * as compiled validators (ajv standalone code), so that `--validate` needs no new runtime
 * dependency (only ajv's runtime helpers and ajv-formats, which are dependencies already):
 *
 * - Gateway API and cert-manager: the validators the @kubernetes-models packages compiled from the
 *   upstream CRDs' OpenAPI schemas (the same schemas kubeconform checks against);
 * - Kubernetes core, RBAC, batch and admissionregistration kinds: the validators of the
 *   `kubernetes-models` package, compiled from the Kubernetes OpenAPI (v2) document;
 * - Cilium `cilium.io`: the validators of @kubernetes-models/cilium, compiled from the upstream Go
 *   API types (the types the CRDs are generated from, kubebuilder markers included: cilium v1.19.3);
 * - Flux HelmRelease (`helm.toolkit.fluxcd.io/v2`) and KeycloakRealmGroup (`v1.edp.epam.com/v1`):
 *   compiled here, with ajv, from the CRDs cozystack installs (scripts/vendor/: fluxcd/helm-controller
 *   v1.5.0, epam/edp-keycloak-operator v1.32.0), through the CRD conversion the TenantGateway CRD uses
 *   (src/validation/crdJsonSchema.ts), with their defaults, list types and CEL rules beside them.
 *   (The Go-type models of Flux lose the CRD's patterns and CEL rules, so the CRD is the source.)
 *
 * Each family goes into a file of its own (upstreamValidators.FAMILY.generated.ts in src/validation/),
 * loaded only when an object of that family is checked, so a render that emits no Gateway API
 * object never parses the Gateway API validators; src/validation/upstreamValidators.generated.ts is
 * the index (apiVersion/kind → family and module).
 *
 * The packages are not dependencies of the project (they declare Node >= 22, the tool needs 20.19):
 * the script installs the versions pinned in PACKAGES into a temporary directory with npm, reads
 * their files (it never runs their code), and removes the directory. To upgrade, change PACKAGES
 * (or a vendored CRD), run it, and commit the result:
 *   npm run vendor-schemas
 * `npm run vendor-schemas -- --check` writes nothing and exits 1 when a committed file is not what
 * the pinned packages and the vendored CRDs give (CI runs it); `--from DIR` reads an existing
 * node_modules DIR instead.
 *
 * Each ES module of the packages' _schemas/ becomes a function in its family's CommonJS-compatible
 * file: `import {validate as vN} from "./X.js"` becomes a hoisted forwarding function (so cycles
 * work and `vN.errors` is what the callee left); `import {formats}`, the ucs2length helper and the
 * RE2 regular expressions become parameters the runtime supplies.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

/** The packages vendored, at the versions the committed files come from. */
const PACKAGES = {
  '@kubernetes-models/gateway-api': '2.0.0',
  '@kubernetes-models/cert-manager': '6.0.0',
  'kubernetes-models': '5.1.0',
  '@kubernetes-models/cilium': '4.0.0',
};

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

/**
 * The families vendored: the package, the API groups (`''` is the core group, whose versions sit at
 * the package's top level), and the kinds of each group (`*`: every kind the package models).
 */
const FAMILIES = [
  {
    name: 'gatewayApi',
    pkg: '@kubernetes-models/gateway-api',
    groups: {
      'gateway.networking.k8s.io': [
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
      ],
    },
  },
  {
    name: 'certManager',
    pkg: '@kubernetes-models/cert-manager',
    groups: {
      'cert-manager.io': ['Certificate', 'CertificateRequest', 'Issuer', 'ClusterIssuer'],
      'acme.cert-manager.io': ['Order', 'Challenge'],
    },
  },
  {
    // Every core and RBAC kind the tool writes (render, reconcile, the hooks of --include-hooks), the
    // ones it reads back (ConfigMap: a function config), and the admission policies.
    name: 'kubernetes',
    pkg: 'kubernetes-models',
    groups: {
      '': ['Namespace', 'Secret', 'ConfigMap', 'ServiceAccount', 'ResourceQuota', 'LimitRange', 'Service'],
      'rbac.authorization.k8s.io': ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'],
      batch: ['Job'],
      'admissionregistration.k8s.io': ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'],
    },
    versions: {
      '': ['v1'],
      'rbac.authorization.k8s.io': ['v1'],
      batch: ['v1'],
      'admissionregistration.k8s.io': ['v1'],
    },
  },
  {
    name: 'cilium',
    pkg: '@kubernetes-models/cilium',
    groups: { 'cilium.io': ['CiliumNetworkPolicy', 'CiliumClusterwideNetworkPolicy'] },
    versions: { 'cilium.io': ['v2'] },
  },
];

/**
 * CRDs compiled here, each family a file of its own: its served versions' structural schemas as
 * ajv validators, and beside each the rule tree (defaults, CEL rules, list types) that
 * src/validation/crdRules.ts applies, as for the TenantGateway CRD.
 */
const CRDS = [
  {
    name: 'fluxcd',
    file: 'scripts/vendor/fluxcd/helm.toolkit.fluxcd.io_helmreleases.yaml',
    source: 'fluxcd/helm-controller v1.5.0, Flux v2.8.0 (Apache-2.0)',
  },
  {
    name: 'keycloak',
    file: 'scripts/vendor/keycloak-operator/v1.edp.epam.com_keycloakrealmgroups.yaml',
    source: 'epam/edp-keycloak-operator v1.32.0 (Apache-2.0)',
  },
];

function resolveSpec(fromFile, spec) {
  if (spec.startsWith('.')) return path.resolve(path.dirname(fromFile), spec);
  const withExt = spec.endsWith('.js') ? spec : `${spec}.js`;
  return path.join(nm, withExt);
}
const idOf = (file) => path.relative(nm, file).replace(/\\/g, '/').replace(/\.js$/, '');
const stripStrings = (code) => code.replace(/"(?:[^"\\]|\\.)*"/g, '""');

/** The modules of one family (id → code), loaded from the packages' ES modules. */
function loader(modules) {
  return function load(file) {
    const id = idOf(file);
    if (modules.has(id)) return id;
    modules.set(id, '');
    let code = fs.readFileSync(file, 'utf8').replace(/\/\/# sourceMappingURL=.*$/m, '');
    code = code.replace(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)";?/g, (_, names, spec) => {
      if (spec === '@kubernetes-models/validate') return '';
      const dep = load(resolveSpec(file, spec));
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
    code = code.replace(
      /import\s+(\w+)\s+from\s*"@kubernetes-models\/validate\/runtime\/re2";?/g,
      (_, local) => `const ${local}=__re2;`,
    );
    if (/\bimport\b\s*[{\w*]/.test(stripStrings(code))) throw new Error(`unhandled import in ${id}`);
    code = code.replace(/export\s+const\s+validate\s*=\s*(\w+);?/, 'exports.validate=$1;');
    if (/\bexport\b/.test(stripStrings(code))) throw new Error(`unhandled export in ${id}`);
    modules.set(id, code);
    return id;
  };
}

function transpiled(file) {
  const ts = require('typescript');
  const src = fs.readFileSync(path.join(root, file), 'utf8');
  const js = ts.transpileModule(src, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const m = { exports: {} };
  new Function('module', 'exports', 'require', js)(m, m.exports, require);
  return m.exports;
}

/** A CRD's versions, each compiled by ajv (as the TenantGateway CRD is) into one module, and their rule trees. */
function crdModules(crdFile, modules, kinds, family, rules) {
  const yaml = require('js-yaml'); // dependencies of the project, from its own node_modules
  const Ajv = require('ajv').default;
  const standaloneCode = require('ajv/dist/standalone').default;
  const crd = yaml.load(fs.readFileSync(path.join(root, crdFile), 'utf8'));
  const conv = transpiled('src/validation/crdJsonSchema.ts');
  for (const v of crd.spec.versions) {
    if (!v.served) continue;
    const ajv = new Ajv({ allErrors: true, strict: false, code: { source: true } });
    ajv.addFormat('date-time', conv.DATE_TIME); // as the TenantGateway CRD's (scripts/embed-assets.js)
    const schema = conv.toJsonSchema(v.schema.openAPIV3Schema);
    const tree = conv.ruleTree(v.schema.openAPIV3Schema);
    let code = standaloneCode(ajv, ajv.compile(schema));
    code = code
      .replace(/^"use strict";/, '')
      .replace(/module\.exports\s*=\s*(\w+);\s*module\.exports\.default\s*=\s*\1;/, 'exports.validate=$1;')
      .replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, '__ucs2length');
    if (/\brequire\(|module\.exports/.test(stripStrings(code))) throw new Error(`unhandled require in ${crdFile}`);
    const id = `crd/${crd.spec.group}/${v.name}/${crd.spec.names.kind}`;
    modules.set(id, code);
    kinds[`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`] = [family, id];
    if (tree) rules[id] = tree;
  }
}

const kinds = {}; // apiVersion/kind → [family, module id]
const files = {}; // family → { modules, source }
for (const fam of FAMILIES) {
  const modules = new Map();
  const load = loader(modules);
  for (const [group, wanted] of Object.entries(fam.groups)) {
    const gdir = group ? path.join(nm, fam.pkg, group) : path.join(nm, fam.pkg);
    const versions =
      fam.versions?.[group] ??
      fs
        .readdirSync(gdir)
        .filter((v) => !v.startsWith('_') && fs.statSync(path.join(gdir, v)).isDirectory())
        .sort();
    for (const version of versions) {
      for (const f of fs
        .readdirSync(path.join(gdir, version))
        .filter((x) => x.endsWith('.js'))
        .sort()) {
        const kind = f.replace(/\.js$/, '');
        if (!wanted.includes(kind)) continue;
        const src = fs.readFileSync(path.join(gdir, version, f), 'utf8');
        const m = /import\{validate\}from"([^"]+)"/.exec(src);
        if (!m) continue;
        const apiVersion = group ? `${group}/${version}` : version;
        kinds[`${apiVersion}/${kind}`] = [fam.name, load(resolveSpec(path.join(gdir, version, f), m[1]))];
      }
    }
    for (const kind of wanted)
      if (!Object.keys(kinds).some((k) => k.startsWith(group ? `${group}/` : 'v1/') && k.endsWith(`/${kind}`)))
        throw new Error(`${fam.pkg} models no ${kind} in ${group || 'the core group'}`);
  }
  const version = JSON.parse(fs.readFileSync(path.join(nm, fam.pkg, 'package.json'), 'utf8')).version;
  if (version !== PACKAGES[fam.pkg])
    throw new Error(`${fam.pkg} in ${nm} is ${version}, not the pinned ${PACKAGES[fam.pkg]}`);
  files[fam.name] = { modules, rules: {}, source: `${fam.pkg}@${version}` };
}
for (const c of CRDS) {
  const modules = new Map();
  const rules = {};
  crdModules(c.file, modules, kinds, c.name, rules);
  files[c.name] = { modules, rules, source: `${c.file} (${c.source})` };
}

const HEADER = `// @ts-nocheck
/* eslint-disable */`;
const sortedKinds = Object.fromEntries(Object.entries(kinds).sort((a, b) => (a[0] < b[0] ? -1 : 1)));
let index = `// Generated by scripts/vendor-upstream-validators.js. Do not edit.
// Sources: ${Object.values(files)
  .map((f) => f.source)
  .join('; ')}.
${HEADER}

/** apiVersion/kind → the family file and the module of its validator. */
export const KINDS: Record<string, [string, string]> = ${JSON.stringify(sortedKinds, null, 1)};

/**
 * The modules of one family: instantiate them with the runtime they need. A family compiled from
 * CRDs also carries, per module, the rule tree src/validation/crdRules.ts applies (defaults, CEL
 * rules, list types).
 */
export type Family = {
  RULES: Record<string, Record<string, unknown>>;
  moduleLoader(
    formats: Record<string, unknown>,
    ucs2length: (s: string) => number,
    re2: new (pattern: string, flags?: string) => RegExp,
  ): (id: string) => Record<string, any>;
};

/** Each family's file, loaded on first use (a literal require each, so a bundler finds them). */
export const FAMILIES: Record<string, () => Family> = {
${Object.keys(files)
  .map((f) => `  ${f}: () => require('./upstreamValidators.${f}.generated'),`)
  .join('\n')}
};
`;
const out = path.join(root, 'src', 'validation');
/** file → text: every file this script writes. */
const outputs = new Map([[path.join(out, 'upstreamValidators.generated.ts'), index]]);
const report = [];
for (const [name, { modules, rules, source }] of Object.entries(files)) {
  let body = `// Generated by scripts/vendor-upstream-validators.js from ${source}
// (ajv standalone validators compiled from the upstream schemas). Do not edit.
${HEADER}

const MODULES: Record<string, (exports: Record<string, unknown>, __load: (id: string) => Record<string, any>, formats: Record<string, unknown>, __ucs2length: (s: string) => number, __re2: new (p: string, f?: string) => RegExp) => void> = {
`;
  for (const [id, code] of [...modules].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    body += `${JSON.stringify(id)}: function (exports, __load, formats, __ucs2length, __re2) {\n${code.trim()}\n},\n`;
  }
  body += `};

/** Per module, the rule tree of its CRD version (defaults, CEL rules, list types), if it has one. */
export const RULES: Record<string, Record<string, unknown>> = ${JSON.stringify(rules, null, 1)};

/** Instantiate the modules on first use, each once. */
export function moduleLoader(formats: Record<string, unknown>, ucs2length: (s: string) => number, re2: new (p: string, f?: string) => RegExp): (id: string) => Record<string, any> {
  const cache = new Map<string, Record<string, unknown>>();
  const load = (id: string) => {
    let m = cache.get(id);
    if (!m) {
      m = {};
      cache.set(id, m);
      MODULES[id](m, load, formats, ucs2length, re2);
    }
    return m;
  };
  return load;
}
`;
  const file = path.join(out, `upstreamValidators.${name}.generated.ts`);
  outputs.set(file, body);
  report.push(`${path.relative(root, file)}: ${modules.size} modules, ${(body.length / 1024).toFixed(0)} KiB`);
}
const pinned = Object.entries(PACKAGES)
  .map(([p, v]) => `${p}@${v}`)
  .join(', ');
if (check) {
  const stale = [...outputs]
    .filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text)
    .map(([file]) => path.relative(root, file));
  if (stale.length) {
    console.error(
      `${stale.join(', ')}: not what ${pinned} and the vendored CRDs give: run npm run vendor-schemas and commit the result`,
    );
    process.exit(1);
  }
  console.log(`the vendored validators are what ${pinned} and the vendored CRDs give`);
} else {
  for (const [file, text] of outputs) fs.writeFileSync(file, text);
  console.log(`${Object.keys(kinds).length} kinds\n${report.join('\n')}`);
}
