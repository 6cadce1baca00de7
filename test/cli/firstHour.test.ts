/**
 * What a newcomer meets in the first hour with the example platform, each wording pinned: the
 * top-level help's line for render, the diff plan's opening without a clock set, the note a diff
 * against a committed tree prints, the hint when --values is forgotten, and a values-file typo's
 * warnings (the unknown key, and the value it left unset with the default it gets) printed before
 * the error it causes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXAMPLE_INPUTS, ROOT, runCli, STACK_FRAME } from '../helpers/cli';
import { driftNote } from '../../src/reports/diffOutput';
import type { DiffResult } from '../../src/diff/diff';

const cli = async (args: string[], cwd = ROOT) => {
  const r = await runCli(args, { cwd });
  expect(r.stderr).not.toMatch(STACK_FRAME);
  return r;
};
const CHANGE = ['--state', 'examples/diff/state.yaml', '-f', 'examples/diff/alice-gateway.yaml'];

describe('the first hour', () => {
  it('the top-level help says render writes every tenant whole, not only its Namespace, Secret and TenantGateway', async () => {
    const r = await cli(['--help']);
    // The summary as one line (the help wraps it to the terminal's width).
    const line = /^\s+render \[options\]([\s\S]*?)^\s+reconcile /m.exec(r.stdout)?.[1].replace(/\s+/g, ' ');
    expect(line).toMatch(/every tenant whole/);
    expect(line).toMatch(/network policies/);
    expect(line).toMatch(/admission policies/);
  });

  it('diff -o plan opens without a time when the clock is the reproducible epoch, and with it when one is set', async () => {
    const unset = await cli(['diff', ...CHANGE, '--values', 'examples/platform/values.yaml', '-o', 'plan']);
    expect(unset.code).toBe(3);
    expect(unset.stdout.split('\n')[0]).toBe('Diff plan for Cilium 1.20.2');
    expect(unset.stdout).not.toContain('1970');
    const set = await cli([
      'diff',
      ...CHANGE,
      '--values',
      'examples/platform/values.yaml',
      '-o',
      'plan',
      '--now',
      '2026-01-01T00:00:00Z',
    ]);
    expect(set.stdout.split('\n')[0]).toBe('Diff plan at 2026-01-01T00:00:00Z for Cilium 1.20.2');
  });

  describe('against a committed tree', () => {
    let dir = '';
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-first-hour-'));
      const w = await cli([
        'render',
        ...EXAMPLE_INPUTS.map((a) => (a.startsWith('-') ? a : path.join(ROOT, a))),
        '--output-dir',
        path.join(dir, 'deploy'),
      ]);
      expect(w.code).toBe(0);
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("a diff says plainly that a tree lacks the controller's objects, as expected, instead of calling it drift", async () => {
      const r = await cli(
        ['diff', '--state', 'deploy', ...EXAMPLE_INPUTS.map((a) => (a.startsWith('-') ? a : path.join(ROOT, a)))],
        dir,
      );
      expect(r.code).toBe(0);
      const note = r.stderr.split('\n').find((l) => l.includes('controller pass'));
      expect(note).toMatch(
        /^note: the state is a tree render wrote; one controller pass over it alone changes \d+ objects \(the controller's objects and status for what the tree holds\), as expected of a tree: not the change's, left out \(cozy-gw diff --state deploy shows it\)$/,
      );
      expect(note).not.toMatch(/drift/);
    });
  });

  it('over a state that is not a tree, what one pass changes is still called drift', () => {
    const d = { drift: 3 } as DiffResult;
    expect(driftNote(d, '--state s.yaml')).toBe(
      "note: one controller pass over the state alone would change 3 objects (drift, or a state written without the controller's objects); that is not the change's and is left out (cozy-gw diff --state s.yaml shows it)",
    );
    expect(driftNote(d, '--state deploy', true)).toMatch(/^note: the state is a tree render wrote; /);
    expect(driftNote({ drift: 0 } as DiffResult, '--state s.yaml', true)).toBeUndefined();
  });

  it('diff without --values: the error about a gatewayClass is followed by the hint that the platform values are missing', async () => {
    const r = await cli(['diff', ...CHANGE]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: .*spec\.gatewayClass: .*"cloudflare-tunnel" is not one the tenant may select/);
    expect(lines[lines.length - 1]).toBe(
      "info: no --values given: the charts used their default platform values; if these errors come from that, pass the platform's values file with --values",
    );
    // With the values given, no such hint.
    const ok = await cli(['diff', ...CHANGE, '--values', 'examples/platform/values.yaml']);
    expect(ok.stderr).not.toContain('no --values given');
  });

  describe('a typo at the top of the values file (publising: for publishing:)', () => {
    let dir = '';
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-first-hour-'));
      const values = fs
        .readFileSync(path.join(ROOT, 'examples/platform/values.yaml'), 'utf8')
        .replace(/^publishing:/m, 'publising:')
        .replace('host: example.org', 'host: acme.io');
      fs.writeFileSync(path.join(dir, 'values.yaml'), values);
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const render = (...more: string[]) =>
      cli(
        ['render', '--values', 'values.yaml', ...more, '-f', path.join(ROOT, 'examples/platform/tenants/root.yaml')],
        dir,
      );

    it('renders on the default apex, exit 0, but names the unset publishing.host and the default it gets, beside the did-you-mean', async () => {
      const r = await render();
      expect(r.code).toBe(0);
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
      expect(warnings).toEqual([
        'warning: values.yaml:5: publising: unknown key; did you mean publishing?',
        `warning: values.yaml:5: publising: not read, so publishing.host is unset and gets the charts' default "example.org" (not "acme.io") (write publishing instead of publising)`,
      ]);
      expect(r.stdout).toContain('namespace.cozystack.io/host: example.org');
    });

    it('a value set by another source is not unset: no such warning', async () => {
      const r = await render('--set', 'publishing.host=acme.io');
      expect(r.stderr).toContain('did you mean publishing?');
      expect(r.stderr).not.toContain('is unset');
    });

    it('--strict makes it an error: exit 1, nothing on stdout', async () => {
      const r = await render('--strict');
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
      expect(r.stderr).toMatch(/^error: values\.yaml:5: publising: not read, so publishing\.host is unset/m);
    });
  });

  it("a values-file typo's warning comes before the error it causes", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-first-hour-'));
    try {
      const values = fs
        .readFileSync(path.join(ROOT, 'examples/platform/values.yaml'), 'utf8')
        .replace('tenantSelectableClasses:', 'tenantSelectableClass:');
      fs.writeFileSync(path.join(dir, 'values.yaml'), values);
      const r = await cli([
        'render',
        '--values',
        path.join(dir, 'values.yaml'),
        '-f',
        path.join(ROOT, 'examples/platform/tenants'),
      ]);
      expect(r.code).toBe(1);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        /^warning: .*values\.yaml:\d+: gateway\.tenantSelectableClass: unknown key; did you mean gateway\.tenantSelectableClasses\?$/,
      );
      // The key the typo left unset, and the default it got: the cause of the error below.
      expect(lines[1]).toMatch(
        /^warning: .*values\.yaml:\d+: gateway\.tenantSelectableClass: not read, so gateway\.tenantSelectableClasses is unset and gets the charts' default \[\] \(not \["cloudflare-tunnel"\]\)/,
      );
      expect(lines[2]).toMatch(/^error: .*carol\.yaml:\d+: .*spec\.gatewayClass: /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
