/**
 * The version table and how a version is chosen (docs/versions.md "Choosing a version"): the rows,
 * the behaviour classes, `--cozystack-version`, COZY_GW_COZYSTACK_VERSION and fn's
 * `cozystackVersion`.
 */
import {
  COZYSTACK_VERSIONS,
  DEFAULT_COZYSTACK_VERSION,
  MAIN_VERSION,
  resolveCozystackVersion,
  supportedVersionsText,
} from '../../src/platform/cozystackVersions';
import { runCli, MIN_VALUES } from '../helpers/cli';

describe('the table', () => {
  test('every version of the maintained lines and main, each once, in order', () => {
    expect(COZYSTACK_VERSIONS.map((v) => v.name)).toEqual([
      'v1.5.0',
      'v1.5.1',
      'v1.5.2',
      'v1.5.3',
      'v1.5.4',
      'v1.6.0',
      'v1.6.1',
      'v1.6.2',
      'main',
    ]);
    expect(DEFAULT_COZYSTACK_VERSION.name).toBe('v1.6.2');
    expect(MAIN_VERSION.name).toBe('main');
  });

  test('versions of one behaviour class behave alike; any two classes differ in some behaviour', () => {
    const classes = new Map<number, string[]>();
    for (const v of COZYSTACK_VERSIONS)
      classes.set(v.behaviourClass, [...(classes.get(v.behaviourClass) ?? []), v.name]);
    const same = COZYSTACK_VERSIONS.filter((a) =>
      COZYSTACK_VERSIONS.some(
        (b) => a.behaviourClass === b.behaviourClass && JSON.stringify(a.behaviour) !== JSON.stringify(b.behaviour),
      ),
    ).map((v) => v.name);
    expect(same).toEqual([]);
    const reps = [...classes.keys()].map((c) => COZYSTACK_VERSIONS.find((v) => v.behaviourClass === c)!);
    const alike = reps.flatMap((a, i) =>
      reps
        .slice(i + 1)
        .filter((b) => JSON.stringify(a.behaviour) === JSON.stringify(b.behaviour))
        .map((b) => `${a.name} = ${b.name}`),
    );
    expect(alike).toEqual([]);
    expect([...classes.values()]).toEqual([
      ['v1.5.0', 'v1.5.1'],
      ['v1.5.2', 'v1.5.3'],
      ['v1.5.4'],
      ['v1.6.0', 'v1.6.1', 'v1.6.2'],
      ['main'],
    ]);
  });

  test('v1.5.4 (August) has the ancestor-label fix that v1.6.0 (July) has too: keyed by version, not by date', () => {
    const b = (n: string) => COZYSTACK_VERSIONS.find((v) => v.name === n)!.behaviour;
    expect(b('v1.5.3').namespaceAncestorLabels).toBe('parent-prefixes');
    expect(b('v1.5.4').namespaceAncestorLabels).toBe('to-root');
    expect(b('v1.6.0').namespaceAncestorLabels).toBe('to-root');
  });
});

describe('resolving a version', () => {
  test.each([
    ['v1.6.2', 'v1.6.2'],
    ['1.6.2', 'v1.6.2'],
    ['v1.5.0', 'v1.5.0'],
    ['v1.6', 'v1.6.2'],
    ['1.5', 'v1.5.4'],
    ['main', 'main'],
    [' v1.6.1 ', 'v1.6.1'],
  ])('%j is %s', (given, name) => {
    const r = resolveCozystackVersion(given);
    expect(r).toMatchObject({ ok: true, version: { name } });
    expect(r.ok && r.warning).toBeFalsy();
  });

  test.each([
    ['v1.6.3', 'v1.6.2'],
    ['v1.5.9', 'v1.5.4'],
    ['v1.6.2-rc.1', 'v1.6.2'],
  ])('an unknown patch %s of a known line warns and is the line newest, %s', (given, name) => {
    const r = resolveCozystackVersion(given);
    expect(r).toMatchObject({ ok: true, version: { name } });
    expect(r.ok && r.warning).toContain(`rendering as ${name}`);
  });

  test.each(['v1.4.6', 'v1.7.0', 'v2', 'latest', '', 'v1.6.x', 'main2'])(
    '%j is refused, listing the versions',
    (given) => {
      const r = resolveCozystackVersion(given);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error).toContain(supportedVersionsText());
    },
  );
});

describe('choosing it on the command line', () => {
  const values = { COZY_GW_COZYSTACK_VERSION: undefined };
  const render = async (args: string[], env: Record<string, string | undefined> = values) => {
    const r = await runCli(['render', '--values', '-', ...args], { stdin: MIN_VALUES, env });
    return r;
  };
  /** The grafana-dashboards egress policy: rendered by main only (docs/versions.md T5). */
  const grafana = (out: string) => out.includes('name: allow-to-grafana-dashboards');

  test('the default is v1.6.2, with no flag and no variable', async () => {
    const r = await render([]);
    expect(r.code).toBe(0);
    expect(grafana(r.stdout)).toBe(false);
  });

  test('--cozystack-version main renders main', async () => {
    const r = await render(['--cozystack-version', 'main']);
    expect(r.code).toBe(0);
    expect(grafana(r.stdout)).toBe(true);
  });

  test('COZY_GW_COZYSTACK_VERSION is the default; the flag wins over it', async () => {
    expect(grafana((await render([], { COZY_GW_COZYSTACK_VERSION: 'main' })).stdout)).toBe(true);
    expect(
      grafana((await render(['--cozystack-version', 'v1.6.2'], { COZY_GW_COZYSTACK_VERSION: 'main' })).stdout),
    ).toBe(false);
  });

  test.each(['render', 'reconcile', 'diff', 'admit', 'post-render'])(
    '%s: an unknown line is a usage error (exit 2) listing the supported versions, nothing on stdout',
    async (command) => {
      const r = await runCli([command, '--cozystack-version', 'v1.4.6'], { env: values });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('v1.4.6');
      expect(r.stderr).toContain(supportedVersionsText());
    },
  );

  test('a malformed COZY_GW_COZYSTACK_VERSION is a usage error naming the variable', async () => {
    const r = await render([], { COZY_GW_COZYSTACK_VERSION: 'latest' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('COZY_GW_COZYSTACK_VERSION');
    expect(r.stderr).toContain(supportedVersionsText());
  });

  test('an unknown patch warns on stderr and renders as the line newest; --strict refuses it', async () => {
    const r = await render(['--cozystack-version', 'v1.6.3']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: Cozystack v1\.6\.3 is not a version cozy-gw knows: rendering as v1\.6\.2/);
    expect(grafana(r.stdout)).toBe(false);
    const strict = await render(['--cozystack-version', 'v1.6.3', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe('');
  });

  test("fn: the config's cozystackVersion, else the variable; a bad one is a config error", async () => {
    const list = (data: Record<string, string>) =>
      JSON.stringify({
        apiVersion: 'config.kubernetes.io/v1',
        kind: 'ResourceList',
        items: [],
        functionConfig: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data },
      });
    const fn = (data: Record<string, string>, env: Record<string, string | undefined> = values) =>
      runCli(['fn'], { stdin: list({ 'publishing.host': 'example.org', ...data }), env });
    expect(grafana((await fn({})).stdout)).toBe(false);
    expect(grafana((await fn({ cozystackVersion: 'main' })).stdout)).toBe(true);
    expect(grafana((await fn({}, { COZY_GW_COZYSTACK_VERSION: 'main' })).stdout)).toBe(true);
    const bad = await fn({ cozystackVersion: 'v1.4.6' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('cozystackVersion');
    expect(bad.stderr).toContain(supportedVersionsText());
  });
});
