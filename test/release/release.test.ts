/**
 * The release configuration, proven without GoReleaser (scripts/release-check.js): schema
 * validation always; the bun build of every target and the byte comparison with
 * `node bin/cozy-gw.js` when bun is available or COZY_GW_RELEASE_CHECK=1 lets the check install
 * the pinned bun from the npm registry (about 10 s, ~400 MB of temporary binaries).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from '../helpers/cli';
import { skippedTitle } from '../helpers/skip';

const rc = require('../../scripts/release-check.js');

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

describe(".goreleaser.yaml against GoReleaser's schema", () => {
  const config = rc.readConfig();

  test('the project configuration is valid (schema and project checks)', () => {
    expect(rc.validateConfig(config)).toEqual([]);
  });

  test('it builds the four standalone executables with the bun builder, with checksums and a changelog', () => {
    expect(config.version).toBe(2);
    expect(config.builds).toHaveLength(1);
    expect(config.builds[0]).toMatchObject({ builder: 'bun', binary: 'cozy-gw', main: './bin/cozy-gw.js' });
    expect([...config.builds[0].targets].sort()).toEqual([...rc.REQUIRED_TARGETS].sort());
    expect(config.checksum.algorithm).toBe('sha256');
    expect(config.changelog.use).toBe('git');
  });

  test('an unknown key, a wrong builder and a wrongly typed hook are refused by the schema', () => {
    const bad = clone(config);
    bad.builds[0].builder = 'bunx';
    bad.builds[0].target = 'bun-linux-x64';
    bad.before.hooks.push(42);
    const problems = rc.validateConfig(bad);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^schema: \/builds\/0\/builder must be equal to one of the allowed values/),
        expect.stringMatching(/^schema: \/builds\/0 must NOT have additional properties \(target\)/),
        expect.stringMatching(/^schema: \/before\/hooks\/3 must be string/),
      ]),
    );
  });

  test('references inside embedded schema resources resolve against their own $id (archives[].files[].info)', () => {
    const bad = clone(config);
    bad.archives[0].files.push({ src: 'LICENSE', info: { mode: 'rw-r--r--' } });
    expect(rc.validateConfig(bad)).toEqual(
      expect.arrayContaining([expect.stringMatching(/\/archives\/0\/files\/3\/info\/mode must be integer/)]),
    );
    const good = clone(config);
    good.archives[0].files.push({ src: 'LICENSE', info: { mode: 0o644 } });
    expect(rc.validateConfig(good)).toEqual([]);
  });

  test('the project checks catch what the schema allows: a missing target, checksums off, no build hook, a missing main', () => {
    const bad = clone(config);
    bad.builds[0].targets = bad.builds[0].targets.filter((t: string) => t !== 'bun-darwin-arm64');
    bad.builds[0].main = './bin/nope.js';
    bad.checksum.disable = true;
    bad.before.hooks = ['npm ci'];
    const problems = rc.validateConfig(bad);
    expect(problems).toEqual(
      expect.arrayContaining([
        'builds[0].targets: missing bun-darwin-arm64',
        'builds[0].main: bin/nope.js does not exist',
        'checksum: disabled',
        expect.stringMatching(/^before\.hooks: `npm run build`/),
      ]),
    );
  });

  test('the files the bundle requires beside itself are named by main, so bun embeds them; a main that leaves one out is refused', () => {
    const families = rc.validatorFamilies();
    expect(families).toHaveLength(6);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-main-'));
    try {
      const text = fs.readFileSync(path.join(ROOT, 'bin', 'cozy-gw.js'), 'utf8');
      const left = families[0];
      expect(text).toContain(`require('../${left}')`);
      fs.writeFileSync(path.join(dir, 'main.js'), text.replace(`require('../${left}')`, 'undefined'));
      const bad = clone(config);
      bad.builds[0].main = path.join(dir, 'main.js');
      expect(rc.validateConfig(bad)).toEqual([
        `builds[0].main: does not require '../${left}', so bun does not embed it (the bundle requires it beside itself for --validate)`,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the binary's comparison with node includes render --validate, which reads those files", () => {
    expect(rc.comparisonCases().map((c: { args: string[] }) => c.args)).toContainEqual(
      expect.arrayContaining(['render', '--validate']),
    );
  });

  test('the vendored schema is the one shared with the project (when ../shared is beside the repo)', () => {
    const shared = path.join(ROOT, '..', 'shared', 'vendor', 'goreleaser', 'schema.json');
    if (!fs.existsSync(shared)) return; // a clone without shared/: the vendored copy stands alone
    expect(fs.readFileSync(rc.SCHEMA, 'utf8')).toBe(fs.readFileSync(shared, 'utf8'));
  });
});

describe('the bun builder command', () => {
  test('is `bun build --compile --target T --outfile O main`, flags replacing --compile', () => {
    expect(rc.bunBuildArgs({ main: './bin/cozy-gw.js' }, 'bun-linux-x64', '/o/cozy-gw')).toEqual([
      'build',
      '--compile',
      '--target',
      'bun-linux-x64',
      '--outfile',
      '/o/cozy-gw',
      './bin/cozy-gw.js',
    ]);
    expect(rc.bunBuildArgs({ main: 'x.js', flags: ['--compile', '--minify'] }, 'bun-darwin-arm64', 'o')).toEqual([
      'build',
      '--compile',
      '--minify',
      '--target',
      'bun-darwin-arm64',
      '--outfile',
      'o',
      'x.js',
    ]);
  });

  test('main defaults to package.json `module`, else `.`', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-main-'));
    try {
      expect(rc.bunBuildArgs({}, 't', 'o', dir).at(-1)).toBe('.');
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ module: 'src/index.ts' }));
      expect(rc.bunBuildArgs({}, 't', 'o', dir).at(-1)).toBe('src/index.ts');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('executable headers are read as the target OS and CPU', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-hdr-'));
    const write = (name: string, bytes: number[]) => {
      const b = Buffer.alloc(64);
      Buffer.from(bytes).copy(b);
      fs.writeFileSync(path.join(dir, name), b);
      return path.join(dir, name);
    };
    try {
      const elf = (machine: number) => [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, machine, 0];
      expect(rc.executableKind(write('a', elf(0x3e)))).toEqual({ os: 'linux', arch: 'x64' });
      expect(rc.executableKind(write('b', elf(0xb7)))).toEqual({ os: 'linux', arch: 'arm64' });
      expect(rc.executableKind(write('c', [0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0, 0, 0x01]))).toEqual({
        os: 'darwin',
        arch: 'arm64',
      });
      expect(rc.executableKind(write('d', [0xcf, 0xfa, 0xed, 0xfe, 0x07, 0, 0, 0x01]))).toEqual({
        os: 'darwin',
        arch: 'x64',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('npm script arguments are split as a shell would for plain words and quotes', () => {
    expect(rc.splitArgs(`node bin/cozy-gw.js render --values 'a b.yaml' -f "x\\"y"`)).toEqual([
      'node',
      'bin/cozy-gw.js',
      'render',
      '--values',
      'a b.yaml',
      '-f',
      'x"y',
    ]);
  });
});

// The slow half: opt-in (COZY_GW_RELEASE_CHECK=1, which may install bun) or when the pinned bun is already here.
const wanted = process.env.COZY_GW_RELEASE_CHECK === '1';
const bunHere = !wanted && Boolean(rc.findBun({ install: false }).bin);
const slow = wanted || bunHere ? test : test.skip;

// With COZY_GW_RELEASE_CHECK=1 every target is compiled; with bun merely at hand, the host's only.
describe(
  wanted || bunHere
    ? `bun build --compile, and the host binary against node (${wanted ? 'every target' : 'host target: set COZY_GW_RELEASE_CHECK=1 for all'})`
    : skippedTitle(
        'bun build --compile, and the host binary against node',
        `needs bun ${rc.BUN_VERSION}: not installed (COZY_GW_RELEASE_CHECK=1 installs it)`,
      ),
  () => {
    slow(
      'the targets compile to their OS/CPU, and the host binary prints byte-for-byte what `node bin/cozy-gw.js` prints',
      () => {
        expect(fs.existsSync(path.join(ROOT, 'dist', 'cli', 'index.js'))).toBe(true); // `npm run build` first
        const lines: string[] = [];
        const r = rc.releaseCheck({ installBun: wanted, hostOnly: !wanted, log: (s: string) => lines.push(s) });
        if (!r.ok) throw new Error(`release check failed:\n${r.problems.join('\n')}\n--- log:\n${lines.join('\n')}`);
        expect(r.builds.map((b: { target: string }) => b.target).sort()).toEqual(
          wanted ? [...rc.REQUIRED_TARGETS].sort() : [rc.hostTarget()],
        );
        expect(r.comparisons.map((c: { name: string }) => c.name)).toEqual(
          expect.arrayContaining(['npm run example', '--version', 'snapshot --help']),
        );
        expect(r.comparisons.length).toBeGreaterThanOrEqual(5);
        expect(r.comparisons.filter((c: { same: boolean }) => !c.same)).toEqual([]);
      },
      300_000,
    );
  },
);

describe('the container image (dockers_v2, Dockerfile)', () => {
  const config = rc.readConfig();

  test('one image, built by GoReleaser from the cozy-gw build for linux/amd64 and linux/arm64, pushed to a registry', () => {
    expect(config.dockers_v2).toHaveLength(1);
    expect(config.dockers_v2[0]).toMatchObject({
      ids: ['cozy-gw'],
      dockerfile: 'Dockerfile',
      platforms: ['linux/amd64', 'linux/arm64'],
    });
    expect(config.dockers_v2[0].images.length).toBeGreaterThan(0);
    expect(rc.dockerChecks(config)).toEqual([]);
  });

  test('the project checks catch an image GoReleaser could not build or kpt could not run', () => {
    const noImage = clone(config);
    delete noImage.dockers_v2;
    expect(rc.validateConfig(noImage)).toEqual([expect.stringMatching(/^dockers_v2: no container image/)]);
    const bad = clone(config);
    bad.dockers_v2[0].platforms.push('linux/s390x');
    bad.dockers_v2[0].ids = ['nope'];
    expect(rc.validateConfig(bad)).toEqual(
      expect.arrayContaining([
        'dockers_v2[0].ids: no build has id nope',
        expect.stringMatching(/platforms: no build target makes a linux\/amd64 binary/),
      ]),
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-docker-'));
    fs.writeFileSync(path.join(dir, 'Dockerfile'), 'FROM node:20\nCOPY cozy-gw /cozy-gw\nENTRYPOINT ["/cozy-gw"]\n');
    expect(rc.dockerChecks(config, dir)).toEqual([
      expect.stringMatching(/does not start FROM a maintained Node\.js line/),
      expect.stringMatching(/does not COPY image\/cozy-gw\.tgz/),
      expect.stringMatching(/does not npm install -g the package/),
      expect.stringMatching(/ENTRYPOINT must be the exec form/),
    ]);
    const unpacked = clone(config);
    delete unpacked.dockers_v2[0].extra_files;
    unpacked.before.hooks = unpacked.before.hooks.filter((h: string) => !h.includes('pack-image'));
    expect(rc.dockerChecks(unpacked)).toEqual([
      expect.stringMatching(/extra_files: does not put image\/cozy-gw\.tgz/),
      expect.stringMatching(/^before\.hooks: nothing packs image\/cozy-gw\.tgz/),
    ]);
  });

  test('the Dockerfile is validated with the rest against the vendored schema (an unknown dockers_v2 key is refused)', () => {
    const bad = clone(config);
    bad.dockers_v2[0].image_templates = ['x'];
    expect(rc.validateConfig(bad)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^schema: \/dockers_v2\/0 must NOT have additional properties \(image_templates\)/),
      ]),
    );
  });
});
