#!/usr/bin/env node
'use strict';
/**
 * Proves .goreleaser.yaml without GoReleaser (which cannot be installed on the project's machines).
 *
 *   node scripts/release-check.js [--schema-only] [--host-only] [--install-bun] [--keep]
 *
 * 1. Validates .goreleaser.yaml against GoReleaser's published JSON Schema (draft 2020-12,
 *    vendored in scripts/vendor/goreleaser/schema.json) with ajv's 2020 dialect, plus the few
 *    things the schema cannot say (a bun build, the four targets, a main that exists, checksums
 *    and changelog not disabled, `npm run build` among the before hooks).
 * 2. Runs, for every target of every bun build, the very command GoReleaser's bun builder runs:
 *    `bun build --compile --target <target> --outfile <path> <main>` in the build's `dir`
 *    (`flags` replace `--compile` when set; `main` defaults to `.` or package.json's `module`),
 *    with `bun` from the npm registry at a pinned version, and checks each output is an
 *    executable for that target's OS and CPU (ELF or Mach-O header).
 * 3. Runs the host target's binary from an empty working directory (it must need no files:
 *    charts/, schemas/ and templates/ are embedded) on the bundled example and a few fixed cases,
 *    and compares stdout, stderr and the exit code with `node bin/cozy-gw.js`, byte for byte.
 *
 * Where bun comes from: $BUN if set; else `bun` on PATH when it is the pinned version; else a
 * private install under node_modules/.cache/cozy-gw-release/ (made with --install-bun, or when
 * COZY_GW_RELEASE_CHECK=1): `npm install --prefix <cache> --no-save bun@<BUN_VERSION>`. bun is
 * deliberately not a devDependency: its platform package is ~100 MB that every `npm ci` would
 * fetch, for a check only CI and release managers run.
 *
 * Requires `npm run build` first (the binary is compiled from bin/cozy-gw.js -> dist/).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const CONFIG = path.join(ROOT, '.goreleaser.yaml');
const SCHEMA = path.join(__dirname, 'vendor', 'goreleaser', 'schema.json');
/** The bun release the check builds with (the `bun` npm package, pinned). */
const BUN_VERSION = '1.4.5';
const BUN_CACHE = path.join(ROOT, 'node_modules', '.cache', 'cozy-gw-release', `bun-${BUN_VERSION}`);
/** What the release must cover: standalone executables for linux and darwin, amd64 and arm64. */
const REQUIRED_TARGETS = ['bun-linux-x64', 'bun-linux-arm64', 'bun-darwin-x64', 'bun-darwin-arm64'];

// ---------------------------------------------------------------------------------------------
// 1. The configuration against GoReleaser's schema

/**
 * Unbundle the schema's embedded resources (subschemas carrying their own `$id`) into separate
 * schemas referenced by that `$id`. JSON Schema 2020-12 (core, section 9.3, compound documents)
 * makes the two forms equivalent; ajv needs the unbundled one, because resolving `#/$defs/FileInfo`
 * from the root lands on an embedded resource whose own `$ref: '#/$defs/FileInfo'` ajv then
 * resolves against the root instead of that resource's `$id`, and recurses without end.
 */
function unbundle(schema) {
  const resources = [];
  const walk = (node, isRoot) => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (!node || typeof node !== 'object') return node;
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      // Under `properties` and `$defs` the keys are names, not keywords.
      out[k] =
        (k === 'properties' || k === '$defs') && v && typeof v === 'object' && !Array.isArray(v)
          ? Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, walk(sub, false)]))
          : walk(v, false);
    }
    if (!isRoot && typeof node.$id === 'string') {
      resources.push(out);
      return { $ref: node.$id };
    }
    return out;
  };
  return { root: walk(schema, true), resources };
}

let compiled;
/** ajv's validator for GoReleaser's schema (compiled once). */
function schemaValidator(schemaPath = SCHEMA) {
  if (compiled && compiled.path === schemaPath) return compiled.validate;
  const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
  const declared = schema.$schema || '';
  if (!declared.includes('2020-12'))
    throw new Error(`${schemaPath}: expected a draft 2020-12 schema, found $schema ${declared}`);
  const Ajv2020 = require('ajv/dist/2020').default;
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const { root, resources } = unbundle(schema);
  for (const r of resources) ajv.addSchema(r);
  compiled = { path: schemaPath, validate: ajv.compile(root) };
  return compiled.validate;
}

/** What the schema cannot say about this project's release. Returns messages (empty: fine). */
function projectChecks(config, root = ROOT) {
  const problems = [];
  const builds = Array.isArray(config.builds) ? config.builds : [];
  const bunBuilds = builds.filter((b) => b && b.builder === 'bun');
  if (bunBuilds.length === 0) problems.push('builds: no build uses the bun builder');
  for (const [i, b] of builds.entries()) {
    if (!b || b.builder !== 'bun') {
      problems.push(`builds[${i}]: builder is ${JSON.stringify(b && b.builder)}, expected "bun"`);
      continue;
    }
    if (b.skip === true) problems.push(`builds[${i}]: skip is true`);
    const targets = Array.isArray(b.targets) ? b.targets : [];
    for (const t of REQUIRED_TARGETS) if (!targets.includes(t)) problems.push(`builds[${i}].targets: missing ${t}`);
    for (const t of targets)
      if (!/^bun-(linux|darwin|windows)-(x64|arm64)(-modern|-baseline|-musl)*$/.test(t))
        problems.push(`builds[${i}].targets: ${t} is not a bun target name`);
    if (b.binary !== 'cozy-gw') problems.push(`builds[${i}].binary: ${JSON.stringify(b.binary)}, expected "cozy-gw"`);
    const main = resolveMain(b, root);
    if (!fs.existsSync(main)) problems.push(`builds[${i}].main: ${path.relative(root, main) || '.'} does not exist`);
    const mainText = fs.existsSync(main) ? fs.readFileSync(main, 'utf8') : '';
    for (const family of validatorFamilies(root))
      if (!mainText.includes(`require('../${family}')`))
        problems.push(
          `builds[${i}].main: does not require '../${family}', so bun does not embed it (the bundle requires it beside itself for --validate)`,
        );
  }
  if (config.checksum && config.checksum.disable === true) problems.push('checksum: disabled');
  if (!config.checksum) problems.push('checksum: not configured');
  if (!config.changelog || config.changelog.disable === true || config.changelog.disable === 'true')
    problems.push('changelog: missing or disabled');
  const hooks = (config.before && config.before.hooks) || [];
  if (!hooks.some((h) => typeof h === 'string' && /\bnpm run build\b/.test(h)))
    problems.push('before.hooks: `npm run build` must run before bun compiles bin/cozy-gw.js (it requires dist/)');
  for (const [i, a] of (config.archives || []).entries()) {
    for (const f of a.files || []) {
      const src = typeof f === 'string' ? f : f.src;
      if (src && !/[*?[]/.test(src) && !fs.existsSync(path.join(root, src)))
        problems.push(`archives[${i}].files: ${src} does not exist`);
    }
  }
  problems.push(...dockerChecks(config, root));
  return problems;
}

/**
 * The files the bundle requires from beside itself (scripts/bundle.js leaves the vendored upstream
 * validators' families out of it): the bun build's main must name each, so that bun embeds it.
 * Named from the family sources in src/validation/, as tsc and the bundle name them.
 */
function validatorFamilies(root = ROOT) {
  const dir = path.join(root, 'src', 'validation');
  return fs
    .readdirSync(dir)
    .filter((f) => /^upstreamValidators\.[A-Za-z]+\.generated\.ts$/.test(f))
    .map((f) => `dist/validation/${f.replace(/\.ts$/, '.js')}`)
    .sort();
}

/** bun target → the docker platform of its binary (linux only: images are linux). */
const BUN_PLATFORM = { 'bun-linux-x64': 'linux/amd64', 'bun-linux-arm64': 'linux/arm64' };

/** The package the image installs: the before hook's output (scripts/pack-image.js). */
const IMAGE_PACKAGE = 'image/cozy-gw.tgz';

/**
 * The container image (dockers_v2): there is one; each names a Dockerfile that exists, builds
 * whose ids exist and cover every platform it lists; the image is the npm package installed on a
 * maintained Node.js line: a before hook packs it (scripts/pack-image.js), extra_files puts it in
 * the context, the Dockerfile starts from node:22 or node:24 and `npm install -g`s it, and its
 * ENTRYPOINT runs `cozy-gw fn`, the KRM function kpt and kustomize run as a container.
 */
function dockerChecks(config, root = ROOT) {
  const problems = [];
  const images = Array.isArray(config.dockers_v2) ? config.dockers_v2 : [];
  if (images.length === 0)
    problems.push('dockers_v2: no container image (kpt fn eval --image and kustomize container: need one)');
  const builds = Array.isArray(config.builds) ? config.builds : [];
  const hooks = (config.before?.hooks ?? []).map((h) => (typeof h === 'string' ? h : h?.cmd));
  for (const [i, d] of images.entries()) {
    const where = `dockers_v2[${i}]`;
    const file = path.join(root, d.dockerfile || 'Dockerfile');
    const ids = d.ids || builds.map((b) => b.id);
    const used = builds.filter((b) => ids.includes(b.id));
    for (const id of ids) if (!builds.some((b) => b.id === id)) problems.push(`${where}.ids: no build has id ${id}`);
    const platforms = d.platforms || ['linux/amd64'];
    for (const p of platforms) {
      if (
        !used.some((b) =>
          (b.targets || []).some((t) => BUN_PLATFORM[t.replace(/(-modern|-baseline|-musl)+$/, '')] === p),
        )
      )
        problems.push(`${where}.platforms: no build target makes a ${p} binary`);
    }
    if ((d.images || []).length === 0) problems.push(`${where}.images: none`);
    if (!(d.extra_files || []).includes(IMAGE_PACKAGE))
      problems.push(
        `${where}.extra_files: does not put ${IMAGE_PACKAGE} (the npm package the image installs) in the context`,
      );
    if (!hooks.some((h) => /scripts\/pack-image\.js/.test(h ?? '')))
      problems.push(`before.hooks: nothing packs ${IMAGE_PACKAGE} (node scripts/pack-image.js after the build)`);
    if (!fs.existsSync(file)) {
      problems.push(`${where}.dockerfile: ${path.relative(root, file)} does not exist`);
      continue;
    }
    const text = fs.readFileSync(file, 'utf8');
    const from = /^FROM\s+(\S+)/m.exec(text);
    if (!from || !/^node:(22|24)([.-][\w.-]*)?$/.test(from[1]))
      problems.push(
        `${where}: ${path.relative(root, file)} does not start FROM a maintained Node.js line (node:22 or node:24)`,
      );
    if (!new RegExp(`^COPY\\s+${IMAGE_PACKAGE.replace('.', '\\.')}\\s`, 'm').test(text))
      problems.push(`${where}: ${path.relative(root, file)} does not COPY ${IMAGE_PACKAGE} (the npm package)`);
    if (!/^RUN\s+npm install -g\b/m.test(text))
      problems.push(`${where}: ${path.relative(root, file)} does not npm install -g the package`);
    const entry = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(text);
    let argv;
    try {
      argv = entry ? JSON.parse(entry[1]) : undefined;
    } catch {
      argv = undefined;
    }
    if (!Array.isArray(argv) || argv[0] !== '/usr/local/bin/cozy-gw' || argv[1] !== 'fn' || argv.length !== 2)
      problems.push(
        `${where}: ${path.relative(root, file)} ENTRYPOINT must be the exec form ["/usr/local/bin/cozy-gw", "fn"] (the KRM function)`,
      );
  }
  return problems;
}

/** The ENTRYPOINT of a Dockerfile (exec form), as argv. */
function dockerEntrypoint(file) {
  const m = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(fs.readFileSync(file, 'utf8'));
  return m ? JSON.parse(m[1]) : undefined;
}

/** Validate a parsed .goreleaser.yaml: schema errors then project checks, as messages. */
function validateConfig(config, { schemaPath = SCHEMA, root = ROOT } = {}) {
  const validate = schemaValidator(schemaPath);
  const errors = validate(config)
    ? []
    : validate.errors.map(
        (e) =>
          `schema: ${e.instancePath || '/'} ${e.message}${e.params && e.params.allowedValues ? ` (${e.params.allowedValues.join(', ')})` : ''}${e.params && e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`,
      );
  return [...errors, ...projectChecks(config, root)];
}

function readConfig(file = CONFIG) {
  const YAML = require('yaml');
  return YAML.parse(fs.readFileSync(file, 'utf8'));
}

// ---------------------------------------------------------------------------------------------
// 2. The bun builder's command

/** `main` as GoReleaser's bun builder resolves it: the field, else package.json `module`, else `.`. */
function resolveMain(build, root = ROOT) {
  const dir = path.resolve(root, build.dir || '.');
  if (build.main) return path.resolve(dir, build.main);
  const pkgFile = path.join(dir, 'package.json');
  const pkg = fs.existsSync(pkgFile) ? JSON.parse(fs.readFileSync(pkgFile, 'utf8')) : {};
  return path.resolve(dir, pkg.module || '.');
}

/** The argv GoReleaser's bun builder runs for one target, in `dir`: `bun build --compile --target T --outfile O main`. */
function bunBuildArgs(build, target, outfile, dir = path.resolve(ROOT, build.dir || '.')) {
  const flags = build.flags === undefined ? ['--compile'] : [].concat(build.flags);
  let main = build.main;
  if (!main) {
    const pkgFile = path.join(dir, 'package.json');
    main = (fs.existsSync(pkgFile) && JSON.parse(fs.readFileSync(pkgFile, 'utf8')).module) || '.';
  }
  return ['build', ...flags, '--target', target, '--outfile', outfile, main];
}

/** The bun target name of this machine. */
function hostTarget() {
  const osName = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[process.platform];
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  return osName && arch ? `bun-${osName}-${arch}` : undefined;
}

function bunVersionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Find (and with `install`, fetch) the pinned bun. Returns { bin, source } or { reason }. */
function findBun({ install = false, log = () => {} } = {}) {
  if (process.env.BUN) {
    const v = bunVersionOf(process.env.BUN);
    return v ? { bin: process.env.BUN, source: `$BUN (${v})` } : { reason: `$BUN=${process.env.BUN} does not run` };
  }
  const onPath = bunVersionOf('bun');
  if (onPath === BUN_VERSION) return { bin: 'bun', source: `bun ${onPath} on PATH` };
  const cached = path.join(BUN_CACHE, 'node_modules', '.bin', process.platform === 'win32' ? 'bun.cmd' : 'bun');
  if (bunVersionOf(cached) === BUN_VERSION)
    return { bin: cached, source: `bun ${BUN_VERSION} in ${path.relative(ROOT, BUN_CACHE)}` };
  if (!install)
    return {
      reason: `bun ${BUN_VERSION} not found (${onPath ? `bun on PATH is ${onPath}` : 'no bun on PATH'}, none in ${path.relative(ROOT, BUN_CACHE)}); run with --install-bun or COZY_GW_RELEASE_CHECK=1`,
    };
  log(`installing bun ${BUN_VERSION} from the npm registry into ${path.relative(ROOT, BUN_CACHE)}`);
  fs.mkdirSync(BUN_CACHE, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    [
      'install',
      '--prefix',
      BUN_CACHE,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `bun@${BUN_VERSION}`,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0)
    return { reason: `npm install bun@${BUN_VERSION} failed: ${(r.stderr || r.error || '').toString().trim()}` };
  const v = bunVersionOf(cached);
  return v === BUN_VERSION
    ? { bin: cached, source: `bun ${v} installed into ${path.relative(ROOT, BUN_CACHE)}` }
    : { reason: `bun ${BUN_VERSION} installed but ${cached} does not run` };
}

/** The OS and CPU an executable is for, read from its header (ELF or 64-bit Mach-O). */
function executableKind(file) {
  const fd = fs.openSync(file, 'r');
  const b = Buffer.alloc(20);
  fs.readSync(fd, b, 0, 20, 0);
  fs.closeSync(fd);
  if (b.readUInt32BE(0) === 0x7f454c46) {
    const machine = b.readUInt16LE(18);
    return { os: 'linux', arch: machine === 0x3e ? 'x64' : machine === 0xb7 ? 'arm64' : `elf-machine-${machine}` };
  }
  if (b.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = b.readUInt32LE(4);
    return { os: 'darwin', arch: cpu === 0x01000007 ? 'x64' : cpu === 0x0100000c ? 'arm64' : `macho-cpu-${cpu}` };
  }
  if (b.readUInt16LE(0) === 0x5a4d) return { os: 'windows', arch: 'unknown' };
  return { os: 'unknown', arch: 'unknown' };
}

function targetKind(target) {
  const m = /^bun-(linux|darwin|windows)-(x64|arm64)/.exec(target);
  return m ? { os: m[1], arch: m[2] } : undefined;
}

/** Compile every target (or the host's only). Returns [{ target, file, ms, kind, sha256 }]; throws on failure. */
function buildTargets(config, bun, outDir, { hostOnly = false, log = () => {} } = {}) {
  const results = [];
  const host = hostTarget();
  for (const build of config.builds.filter((b) => b.builder === 'bun')) {
    const cwd = path.resolve(ROOT, build.dir || '.');
    for (const target of build.targets) {
      if (hostOnly && target !== host) continue;
      const file = path.join(outDir, `${build.id || 'default'}_${target}`, build.binary || 'cozy-gw');
      const args = bunBuildArgs(build, target, file, cwd);
      const started = Date.now();
      const r = spawnSync(bun, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
      const ms = Date.now() - started;
      if (r.status !== 0)
        throw new Error(
          `bun ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}${r.stderr}${r.error ? r.error.message : ''}`,
        );
      const kind = executableKind(file);
      const want = targetKind(target);
      if (want && (kind.os !== want.os || kind.arch !== want.arch))
        throw new Error(`${target}: bun wrote an executable for ${kind.os}/${kind.arch}`);
      const sha256 = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
      log(
        `built ${target} in ${ms} ms: ${path.basename(path.dirname(file))}/${path.basename(file)} (${kind.os}/${kind.arch}, ${(fs.statSync(file).size / 1048576).toFixed(1)} MiB) with: bun ${args.join(' ')}`,
      );
      results.push({ target, file, ms, kind, sha256, args });
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// 3. The binary against `node bin/cozy-gw.js`

/** Split an npm script into argv (whitespace, with '…' and "…" quoting; no shell expansion). */
function splitArgs(s) {
  const out = [];
  const re = /'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g;
  let m;
  while ((m = re.exec(s))) out.push(m[1] ?? (m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]));
  return out;
}

/**
 * The cases compared: the package's `example` script (the bundled example) when it is a plain
 * `node bin/cozy-gw.js …` / `cozy-gw …` call, and its output fed to `reconcile -f -` (fixed
 * clock) and `admit -f -`; then fixed ones: version, help, a completion script, a usage error and
 * an input error (stderr and the exit code must match too). Every command's --help is added by
 * compareOutputs from the program tree.
 */
function comparisonCases(root = ROOT) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const cases = [];
  const example = pkg.scripts && pkg.scripts.example;
  if (example) {
    const last = example.split(/&&|;/).pop().trim();
    const argv = splitArgs(last);
    const at = argv.findIndex((a) => /(^|\/)cozy-gw(\.js)?$/.test(a));
    if (at >= 0 && !/[|<>`$]/.test(last)) {
      const args = argv.slice(at + 1);
      cases.push({ name: 'npm run example', args });
      const values = args.flatMap((a, i) => (a === '--values' && args[i + 1] ? ['--values', args[i + 1]] : []));
      if (args[0] === 'render') {
        cases.push({
          name: 'example | reconcile',
          args: ['reconcile', ...values, '-f', '-', '--now', '2026-01-01T00:00:00Z'],
          stdinFrom: 'npm run example',
        });
        cases.push({ name: 'example | admit', args: ['admit', ...values, '-f', '-'], stdinFrom: 'npm run example' });
        // --validate reads the validators' families, files beside the bundle (embedded in the binary).
        cases.push({ name: 'npm run example --validate', args: [...args, '--validate'] });
      }
    }
  }
  cases.push({ name: '--version', args: ['--version'] });
  cases.push({ name: '--help', args: ['--help'] });
  cases.push({ name: 'completion bash', args: ['completion', 'bash'] });
  // snapshot runs kubectl through execa (ESM-only, loaded with require): the fake kubectl of the tests.
  const fakeKubectl = path.join(root, 'testdata', 'fake-kubectl', 'kubectl');
  if (fs.existsSync(fakeKubectl)) {
    cases.push({
      name: 'snapshot (fake kubectl)',
      args: ['snapshot', '--kubectl', fakeKubectl, '--context', 'kind-cozy', '-q'],
    });
    cases.push({
      name: 'snapshot forbidden (fake kubectl)',
      args: ['snapshot', '--kubectl', fakeKubectl, '--context', 'restricted'],
    });
  }
  cases.push({ name: 'unknown command', args: ['no-such-command'] });
  cases.push({ name: 'missing input file', args: ['render', '-f', 'does-not-exist.yaml'] });
  return cases;
}

/** Every command's --help, the command names read from the built program tree. */
function helpCases(root = ROOT) {
  const cli = require(path.join(root, 'dist', 'cli', 'index.js'));
  const io = { stdout: () => {}, stderr: () => {}, readStdin: () => '', env: {}, isTTY: false, cwd: root };
  const program = cli.buildProgram(cli.makeContext(io));
  return program.commands.map((c) => c.name()).map((c) => ({ name: `${c} --help`, args: [c, '--help'] }));
}

/** Copy what the example reads (examples/, testdata/ inputs it names) into `dir`. */
function stageInputs(dir, cases, root = ROOT) {
  for (const c of cases) {
    for (const a of c.args) {
      const rel = a.replace(/^--?[a-z-]+=/, '');
      if (rel.startsWith('-') || path.isAbsolute(rel)) continue;
      const src = path.join(root, rel);
      if (!fs.existsSync(src)) continue;
      const dst = path.join(dir, rel);
      fs.mkdirSync(path.dirname(dst), { recursive: true });
      fs.cpSync(src, dst, { recursive: true });
    }
  }
}

/** Run both and compare stdout, stderr and the exit code. Returns [{ name, same, diff }]. */
function compareOutputs(binary, { root = ROOT, log = () => {} } = {}) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-compare-'));
  const env = { PATH: process.env.PATH, HOME: process.env.HOME || work, NO_COLOR: '1', LANG: 'C' };
  const run = (cmd, args, input = '') => {
    const r = spawnSync(cmd, args, { cwd: work, env, maxBuffer: 256 << 20, input });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, error: r.error };
  };
  const cases = [...comparisonCases(root), ...helpCases(root)];
  const outputs = new Map();
  stageInputs(work, cases, root);
  const results = [];
  try {
    for (const c of cases) {
      const input = c.stdinFrom ? (outputs.get(c.stdinFrom) ?? '') : '';
      const a = run(process.execPath, [path.join(root, 'bin', 'cozy-gw.js'), ...c.args], input);
      const b = run(binary, c.args, input);
      outputs.set(c.name, a.stdout);
      const diff = [];
      if (b.error) diff.push(`binary did not run: ${b.error.message}`);
      if (a.status !== b.status) diff.push(`exit code: node ${a.status}, binary ${b.status}`);
      if (!Buffer.from(a.stdout).equals(Buffer.from(b.stdout)))
        diff.push(
          `stdout differs (node ${a.stdout.length} bytes, binary ${b.stdout.length} bytes)${firstDifference(a.stdout, b.stdout)}`,
        );
      if (!Buffer.from(a.stderr).equals(Buffer.from(b.stderr)))
        diff.push(
          `stderr differs${firstDifference(a.stderr, b.stderr)}: node ${JSON.stringify(a.stderr.toString().slice(0, 300))}, binary ${JSON.stringify(b.stderr.toString().slice(0, 300))}`,
        );
      results.push({
        name: c.name,
        args: c.args,
        same: diff.length === 0,
        diff,
        exit: a.status,
        bytes: a.stdout.length,
      });
      log(
        `${diff.length === 0 ? 'same' : 'DIFFERENT'}: ${c.stdinFrom ? `${c.stdinFrom} | ` : ''}cozy-gw ${c.args.join(' ')} (exit ${a.status}, ${a.stdout.length} bytes on stdout)${diff.length ? `\n  ${diff.join('\n  ')}` : ''}`,
      );
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return results;
}

function firstDifference(a, b) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  if (i === x.length && i === y.length) return '';
  return ` at byte ${i}`;
}

// ---------------------------------------------------------------------------------------------

/** The whole check. Returns { ok, problems, builds, comparisons }. */
function releaseCheck({
  schemaOnly = false,
  hostOnly = false,
  installBun = false,
  keep = false,
  log = console.error,
} = {}) {
  const config = readConfig();
  const problems = validateConfig(config);
  if (problems.length) return { ok: false, problems };
  log(
    `.goreleaser.yaml: valid against GoReleaser's schema (${path.relative(ROOT, SCHEMA)}, draft 2020-12) and the project checks`,
  );
  if (schemaOnly) return { ok: true, problems: [] };
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'index.js')))
    return { ok: false, problems: ['dist/cli/index.js is missing: run `npm run build` first'] };
  const bun = findBun({ install: installBun || process.env.COZY_GW_RELEASE_CHECK === '1', log });
  if (!bun.bin) return { ok: false, problems: [bun.reason], skipped: true };
  log(`bun: ${bun.source}`);
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-release-'));
  try {
    const builds = buildTargets(config, bun.bin, outDir, { hostOnly, log });
    const host = builds.find((b) => b.target === hostTarget());
    if (!host) return { ok: false, problems: [`no build for the host target ${hostTarget()}`], builds };
    const comparisons = compareOutputs(host.file, { log });
    const bad = comparisons.filter((c) => !c.same);
    log(
      `checksums (sha256, as checksums.txt would list the binaries):\n${builds.map((b) => `${b.sha256}  ${path.basename(path.dirname(b.file))}/${path.basename(b.file)}`).join('\n')}`,
    );
    return { ok: bad.length === 0, problems: bad.map((c) => `${c.name}: ${c.diff.join('; ')}`), builds, comparisons };
  } finally {
    if (keep) log(`binaries kept in ${outDir}`);
    else fs.rmSync(outDir, { recursive: true, force: true });
  }
}

function main(argv) {
  const flags = new Set(argv);
  const known = ['--schema-only', '--host-only', '--install-bun', '--keep', '--help'];
  for (const f of flags)
    if (!known.includes(f)) {
      console.error(`release-check: unknown option ${f} (known: ${known.join(' ')})`);
      return 2;
    }
  if (flags.has('--help')) {
    console.log(`usage: node scripts/release-check.js [${known.slice(0, 4).join('] [')}]`);
    return 0;
  }
  const started = Date.now();
  const r = releaseCheck({
    schemaOnly: flags.has('--schema-only'),
    hostOnly: flags.has('--host-only'),
    installBun: flags.has('--install-bun'),
    keep: flags.has('--keep'),
  });
  for (const p of r.problems) console.error(`release-check: ${p}`);
  console.error(`release-check: ${r.ok ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return r.ok ? 0 : 1;
}

module.exports = {
  BUN_VERSION,
  REQUIRED_TARGETS,
  CONFIG,
  SCHEMA,
  unbundle,
  schemaValidator,
  validateConfig,
  projectChecks,
  dockerChecks,
  dockerEntrypoint,
  readConfig,
  resolveMain,
  bunBuildArgs,
  validatorFamilies,
  hostTarget,
  findBun,
  executableKind,
  buildTargets,
  splitArgs,
  comparisonCases,
  helpCases,
  compareOutputs,
  releaseCheck,
};

if (require.main === module) process.exitCode = main(process.argv.slice(2));
