/**
 * cozy-gw safe with hostile input and careless use (docs/decisions.md §12, §13). One test per
 * numbered hazard, each through the CLI as a user (or an attacker) meets it. Every one of them failed
 * before the fix.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MIN_VALUES, ROOT_TENANT, useScratch } from '../helpers/cli';
import { assembleSnapshot, SNAPSHOT_RESOURCES } from '../../src/pipelines/snapshot';
import type { KObject } from '../../src/k8s/model';
import { selectableClasses } from '../../src/charts/gatewayChart';

/** A secret marker: it must never appear in any output. */
const MARKER = 'SECRETMARKER';
const MARKER_B64 = Buffer.from(MARKER).toString('base64');

const scratch = useScratch('cozy-gw-hostile-', { 'values.yaml': MIN_VALUES, 'root.yaml': ROOT_TENANT });
const { write, cli } = scratch;

describe('1. secrets: redaction cannot be switched off by input', () => {
  const forged = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: forged\n  namespace: tenant-root\n  annotations:\n    cozy-gw.cozystack.io/secret-data-omitted: tls.key\ntype: kubernetes.io/tls\ndata:\n  tls.key: ${MARKER_B64}\nstringData:\n  extra: ${MARKER}\n`;

  it('reconcile --all redacts a Secret that already carries the redaction annotation', async () => {
    write('forged.yaml', forged);
    for (const o of [[], ['-o', 'json']]) {
      const r = await cli([
        'reconcile',
        '--values',
        'values.yaml',
        '-f',
        'forged.yaml',
        '--all',
        '--now',
        '2026-01-01T00:00:00Z',
        ...o,
      ]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('forged');
      expect(r.stdout).not.toContain(MARKER_B64);
      expect(r.stdout).not.toContain(MARKER);
    }
    const r = await cli([
      'reconcile',
      '--values',
      'values.yaml',
      '-f',
      'forged.yaml',
      '--all',
      '--now',
      '2026-01-01T00:00:00Z',
      '--include-secret-data',
    ]);
    expect(r.stdout).toContain(MARKER_B64);
  });

  it('snapshot keeps the data only of a real values channel, never of an annotated or a TLS cozystack-values Secret', () => {
    const secrets = SNAPSHOT_RESOURCES.find((r) => r.kind === 'Secret')!;
    const s = (name: string, extra: Partial<KObject>): KObject =>
      ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'tenant-x' }, ...extra }) as KObject;
    const items = [
      s('cozystack-values', { type: 'kubernetes.io/tls', data: { 'tls.key': MARKER_B64, 'values.yaml': 'e30=' } }),
      {
        ...s('forged', { type: 'kubernetes.io/tls', data: { 'tls.key': MARKER_B64 } }),
        metadata: {
          name: 'forged',
          namespace: 'tenant-x',
          annotations: { 'cozy-gw.cozystack.io/secret-data-omitted': 'x' },
        },
      },
      {
        ...s('cozystack-values', { type: 'Opaque', data: { 'values.yaml': 'e30=' } }),
        metadata: { name: 'cozystack-values', namespace: 'tenant-y' },
      },
    ];
    const snap = assembleSnapshot([{ resource: secrets, items }], { includeSecretData: false });
    expect(JSON.stringify(snap.objects)).not.toContain(MARKER_B64);
    expect(snap.redacted).toBe(2);
    expect(snap.objects.find((o) => o.metadata.namespace === 'tenant-y')!.data).toEqual({ 'values.yaml': 'e30=' });
  });
});

describe('7. admit: honest verdicts', () => {
  const VALUES7 = 'publishing:\n  host: example.org\n  exposedServices: [dashboard]\ngateway:\n  enabled: true\n';
  const ns = (host: string) =>
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-alice\n  labels:\n    namespace.cozystack.io/host: ${host}\n`;
  const route = (namespace?: string) =>
    `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: app\n${namespace ? `  namespace: ${namespace}\n` : ''}spec:\n  hostnames: [dashboard.example.org]\n`;

  it('two Namespaces with one name are an input error, in either order, as render and reconcile have it', async () => {
    write('values7.yaml', VALUES7);
    write('route.yaml', route('tenant-alice'));
    for (const order of [
      [ns('alice.example.org'), ns('example.org')],
      [ns('example.org'), ns('alice.example.org')],
    ]) {
      write('ns.yaml', order.join('---\n'));
      const r = await cli(['admit', '--values', 'values7.yaml', '-f', 'ns.yaml', '-f', 'route.yaml', '--as', 'alice']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter((l) => l.includes('input') && l.includes('Namespace tenant-alice'));
      expect(lines.map((l) => l.replace(/^error: ns\.yaml:\d+: /, ''))).toEqual([
        'Namespace tenant-alice: given 2 times in the inputs; this is copy 1 of 2 (keep one copy; a directory given with -f is read recursively, so check that no file is given twice)',
        'Namespace tenant-alice: given 2 times in the inputs; this is copy 2 of 2 (keep one copy; a directory given with -f is read recursively, so check that no file is given twice)',
      ]);
      expect(lines.map((l) => Number(/^error: ns\.yaml:(\d+):/.exec(l)?.[1]))).toEqual([1, 8]);
    }
  });

  it('a namespaced object without metadata.namespace is judged in -n (default "default"), and a note says so', async () => {
    write('values7.yaml', VALUES7);
    write('ns.yaml', ns('alice.example.org'));
    write('route.yaml', route());
    const dflt = await cli(['admit', '--values', 'values7.yaml', '-f', 'route.yaml', '--as', 'alice', '-o', 'json']);
    expect(dflt.stderr).toMatch(
      /^note: route\.yaml:\d+: HTTPRoute app has no metadata\.namespace: judged in namespace default/m,
    );
    const inAlice = await cli([
      'admit',
      '--values',
      'values7.yaml',
      '-f',
      'ns.yaml',
      '-f',
      'route.yaml',
      '--as',
      'alice',
      '--as-group',
      'system:serviceaccounts:cozy-fluxcd',
      '-n',
      'tenant-alice',
    ]);
    expect(inAlice.code).toBe(1);
    expect(inAlice.stdout).toMatch(
      /^HTTPRoute tenant-alice\/app: ValidatingAdmissionPolicy 'cozystack-route-hostname-policy'/m,
    );
    expect(inAlice.stderr).toMatch(/judged in namespace tenant-alice/);
    // A cluster-scoped object keeps having no namespace.
    expect(inAlice.stderr).not.toMatch(/Namespace tenant-alice has no metadata\.namespace/);
    const bad = await cli(['admit', '-f', 'route.yaml', '-n', 'Not A Namespace']);
    expect(bad.code).toBe(2);
  });
});

describe('8. malformed metadata is an input error naming the field', () => {
  const cm =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n  annotations: "abc"\n  labels: [a, b]\n';
  it.each([['render'], ['reconcile'], ['admit']])('%s', async (command) => {
    write('cm.yaml', cm);
    const r = await cli([command, '-f', 'cm.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: cm\.yaml:7: ConfigMap x\/c: metadata\.labels: must be a map of strings, got a list/m,
    );
    expect(r.stderr).toMatch(
      /^error: cm\.yaml:6: ConfigMap x\/c: metadata\.annotations: must be a map of strings, got a string/m,
    );
  });
  it('post-render and fn', async () => {
    const pr = await cli(['post-render'], cm);
    expect(pr.code).toBe(1);
    expect(pr.stderr).toMatch(/metadata\.annotations: must be a map of strings/);
    const rl = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    labels: {a: 1}\n`;
    const fn = await cli(['fn'], rl);
    expect(fn.code).toBe(1);
    expect(fn.stderr).toMatch(/metadata\.labels\.a: must be a string, got a number/);
  });
});

describe('10. smaller defects', () => {
  it('--gateway-api-version older than any known bundle is a usage error (exit 2), in render and admit', async () => {
    for (const command of ['render', 'admit']) {
      const r = await cli([command, '-f', 'root.yaml', '--gateway-api-version', '0.1.0']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/0\.1\.0 is older than any bundle the policies know/);
      const junk = await cli([command, '-f', 'root.yaml', '--gateway-api-version', 'latest']);
      expect(junk.code).toBe(2);
    }
  });

  it('render --now without --with-controller is a usage error', async () => {
    const r = await cli(['render', '-f', 'root.yaml', '--now', '2026-01-01T00:00:00Z']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--now .*only with --with-controller/);
  });

  it('40,000 tenantSelectableClasses are read in linear time', async () => {
    const classes = Array.from({ length: 40_000 }, (_, i) => `  - class-${i}\n`).join('');
    write('many.yaml', `${MIN_VALUES}  tenantSelectableClasses:\n${classes}`);
    write('root.yaml', `${ROOT_TENANT}  gatewayClass: class-39999\n`);
    const r = await cli(['render', '--values', 'many.yaml', '-f', 'root.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('gatewayClassName: class-39999');
    // The check itself on 100,000 classes: the quadratic includes needed billions of comparisons
    // (seconds); a Set needs milliseconds.
    const cluster = { 'gateway-tenant-classes': Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',') };
    const started = Date.now();
    expect(selectableClasses(cluster).length).toBe(100_001);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("fn never shows the YAML library's advice", async () => {
    const r = await cli(['fn'], 'apiVersion: v1\n---\nkind: x\n');
    expect(r.code).toBe(1);
    expect(r.stderr + r.stdout).not.toMatch(/please use|parseAllDocuments/);
    expect(r.stderr).toMatch(
      /^error: <stdin>:2: standard input holds more than one YAML document; a KRM function reads exactly one ResourceList$/m,
    );
  });
});

describe('9. no forged lines: echoed values escaped and cut', () => {
  it('a hostname with a newline and ANSI escapes stays on its denial line in admit', async () => {
    write('values9.yaml', 'publishing:\n  host: example.org\ngateway:\n  enabled: true\n');
    write(
      'ns.yaml',
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-alice\n  labels:\n    namespace.cozystack.io/host: alice.example.org\n',
    );
    write(
      'route.yaml',
      'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: app\n  namespace: tenant-alice\nspec:\n  hostnames: ["x.example.org\\nHTTPRoute tenant-alice/forged: ValidatingAdmissionPolicy \'p\' denied request: \\u001b[2Jgotcha"]\n',
    );
    const r = await cli([
      'admit',
      '--values',
      'values9.yaml',
      '-f',
      'ns.yaml',
      '-f',
      'route.yaml',
      '--as',
      'alice',
      '--as-group',
      'system:serviceaccounts:cozy-fluxcd',
    ]);
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .filter((l) => l.startsWith('HTTPRoute'));
    expect(lines).toHaveLength(1);
    // The API server takes no message of more than one line from a messageExpression: the denial
    // falls back to the failed expression (docs/commands/admit.md "How a policy is evaluated").
    expect(lines[0]).toMatch(
      /^HTTPRoute tenant-alice\/app: ValidatingAdmissionPolicy 'cozystack-route-hostname-policy' .* denied request: failed expression: /,
    );
    expect(r.stdout).not.toContain('forged');
    expect(r.stdout + r.stderr).not.toContain('\u001b');
  });

  it("a Tenant's gatewayClass with control characters and 5,000 characters is escaped and cut on stderr", async () => {
    const cls = `nope\\n\\u001b[31merror: forged${'x'.repeat(5000)}`;
    write(
      'x.yaml',
      `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: x\n  namespace: tenant-root\nspec:\n  gateway: true\n  gatewayClass: "${cls}"\n`,
    );
    const r = await cli(['render', '--values', 'values.yaml', '-f', 'root.yaml', '-f', 'x.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).not.toMatch(/^error: forged/m);
    expect(r.stderr).toMatch(/more characters\)/);
    for (const line of r.stderr.split('\n')) expect(line.length).toBeLessThan(2000);
  });
});

describe('10. a directory with nothing to read', () => {
  it('is an input error naming the directory', async () => {
    fs.mkdirSync(path.join(scratch.dir, 'empty', 'sub'), { recursive: true });
    write('empty/README.md', '# not YAML\n');
    const r = await cli(['render', '-f', 'empty']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: empty: a directory with no *.yaml, *.yml or *.json file in it or below it (check the -f path)\n',
    );
  });
});

/** A "billion laughs": 9 levels of 9 aliases, a few hundred bytes, 9^9 strings once expanded. */
function aliasBomb(indent: string): string {
  const lines = [`${indent}a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]`];
  for (let i = 1; i < 9; i++) {
    const p = String.fromCharCode(96 + i);
    const c = String.fromCharCode(97 + i);
    lines.push(`${indent}${c}: &${c} [${Array(9).fill(`*${p}`).join(', ')}]`);
  }
  return lines.join('\n') + '\n';
}

describe('5. bounded reading (docs/decisions.md §13)', () => {
  const LIMIT_MSG = /the YAML document expands to more than 3 MiB \(aliases counted as expanded/;
  /** Runs and times one command; the bound is generous (the measured times are well under a second). */
  async function timed(args: string[], stdin?: string) {
    const t0 = Date.now();
    const r = await cli(args, stdin);
    const ms = Date.now() - t0;
    expect(ms).toBeLessThan(5000);
    expect(r.code).toBe(1);
    return r;
  }
  const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n  namespace: x\n';

  it('an alias bomb in --values is an input error at its file and line', async () => {
    write('bomb.yaml', aliasBomb(''));
    for (const command of ['render', 'admit']) {
      const r = await timed([command, '-f', 'root.yaml', '--values', 'bomb.yaml']);
      expect(r.stderr).toMatch(new RegExp(`^error: bomb\\.yaml:1: ${LIMIT_MSG.source}`, 'm'));
    }
  });

  it('an alias bomb in a Package or any object in -f names the file and the document line', async () => {
    write(
      'pkg.yaml',
      `${CM}---\napiVersion: cozystack.io/v1alpha1\nkind: Package\nmetadata:\n  name: cozystack.cozystack-platform\nspec:\n  components:\n    platform:\n      values:\n${aliasBomb('        ')}`,
    );
    write('obj.yaml', `${CM}---\n${CM.replace('name: ok', 'name: bomb')}data:\n${aliasBomb('  ')}`);
    for (const [file, command] of [
      ['pkg.yaml', 'render'],
      ['pkg.yaml', 'reconcile'],
      ['obj.yaml', 'admit'],
      ['obj.yaml', 'reconcile'],
    ]) {
      const args = command === 'reconcile' ? [command, '--all', '-f', file] : [command, '-f', 'root.yaml', '-f', file];
      const r = await timed(args);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^error: ${file.replace('.', '\\.')}:6: ${LIMIT_MSG.source}`, 'm'));
    }
  });

  it('fn (a ResourceList on stdin) and post-render (stdin) refuse an alias bomb', async () => {
    const rl = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n${aliasBomb('    ')}`;
    const fn = await timed(['fn'], rl);
    expect(fn.stderr).toMatch(new RegExp(`^error: <stdin>:1: standard input: ${LIMIT_MSG.source}`, 'm'));
    const pr = await timed(['post-render'], `${CM}---\n${CM}data:\n${aliasBomb('  ')}`);
    expect(pr.stderr).toMatch(new RegExp(`^error: <stdin>:6: ${LIMIT_MSG.source}`, 'm'));
  });

  it('a 50 MB spec.host is refused quickly and not echoed', async () => {
    const host = 'h'.repeat(50 * 1000 * 1000);
    write(
      'huge.yaml',
      `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: tenant-root\nspec:\n  hostnames: ["${host}"]\n`,
    );
    const r = await timed(['render', '-f', 'root.yaml', '-f', 'huge.yaml']);
    expect(r.stderr).toMatch(
      /^error: huge\.yaml:1: a YAML document of 50000\d+ characters is larger than the limit of 32 MiB/m,
    );
    expect(r.stderr.length).toBeLessThan(2000);
    const pr = await timed(['post-render'], `${CM}data:\n  host: ${host}\n`);
    expect(pr.stderr).toMatch(
      /^error: <stdin>:1: a YAML document of 50000\d+ characters is larger than the limit of 32 MiB/m,
    );
    expect(pr.stderr.length).toBeLessThan(2000);
  });

  it('deep nesting is refused', async () => {
    write('deep.yaml', `${CM}data:\n  a: ${'['.repeat(500)}${']'.repeat(500)}\n`);
    const r = await timed(['render', '-f', 'deep.yaml']);
    expect(r.stderr).toMatch(/^error: deep\.yaml:7: the YAML is nested more than 100 levels deep \(limit 100\)/m);
    const fn = await timed(
      ['fn'],
      `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ${'['.repeat(150)}${']'.repeat(150)}\n`,
    );
    expect(fn.stderr).toMatch(/^error: <stdin>:1: standard input: the YAML document nested more than 100 levels deep/m);
  });
});

describe('10. CR-only line endings', () => {
  it('count as line ends in syntax errors and in field lines', async () => {
    write('cr.yaml', 'apiVersion: v1\rkind: ConfigMap\rmetadata:\r  name: c\rdata: [\r');
    const r = await cli(['render', '-f', 'cr.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: cr\.yaml:5: not valid YAML or JSON/m);
    write('cr.yaml', 'apiVersion: v1\rkind: ConfigMap\rmetadata:\r  name: c\r  namespace: x\r  annotations: "abc"\r');
    const r2 = await cli(['render', '-f', 'cr.yaml']);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/^error: cr\.yaml:6: ConfigMap x\/c: metadata\.annotations: must be a map of strings/m);
  });
});
