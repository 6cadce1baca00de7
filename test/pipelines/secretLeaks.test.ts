/**
 * Annotations that carry copies of a Secret's content (kubectl's last-applied-configuration, a
 * change-cause recording `--from-literal`, any annotation repeating a value) never print key
 * material (docs/decisions.md §9; one rule, src/k8s/secretRedaction.ts keyMaterialAnnotations): dropped in
 * redacted output (reconcile --all in YAML and JSON, render --with-controller), masked as data is
 * in every diff format, and dropped from a Secret the tool writes into applied output.
 */
import { useScratch } from '../helpers/cli';
import { toYamlStream } from '../../src/k8s/yaml';
import type { KObject } from '../../src/k8s/model';
import { keyMaterialAnnotations, redactSecret, REDACTED_ANNOTATION } from '../../src/k8s/secretRedaction';
import { applySecretRule } from '../../src/pipelines/appliedSecrets';

const NOW = '2026-01-01T00:00:00Z';
const KEY = 'LEAKED-KEY-MATERIAL';
const OLD = 'OLD-KEY-MATERIAL';
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** Every form the key material could be printed in. */
const FORMS = [KEY, b64(KEY), OLD, b64(OLD)];

/** Where a text prints key material: the forms it holds. */
function leaks(text: string): string[] {
  return FORMS.filter((f) => text.includes(f));
}

const MINE: KObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'mine',
    namespace: 'tenant-root',
    annotations: {
      'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'mine', namespace: 'tenant-root' },
        data: { password: b64(OLD) },
      }),
      'kubernetes.io/change-cause': `kubectl create secret generic mine --from-literal=password=${KEY} --record=true`,
      'example.com/copy': `{"password":"${b64(KEY)}"}`,
      other: 'fine',
    },
  },
  type: 'Opaque',
  data: { password: b64(KEY) },
};

describe('keyMaterialAnnotations: the one rule', () => {
  it('names the content copies and the annotations repeating a value, not the others', () => {
    expect(keyMaterialAnnotations(MINE)).toEqual([
      'example.com/copy',
      'kubectl.kubernetes.io/last-applied-configuration',
      'kubernetes.io/change-cause',
    ]);
  });
  it('is about Secrets only', () => {
    expect(keyMaterialAnnotations({ ...MINE, kind: 'ConfigMap' })).toEqual([]);
  });
  it('redactSecret drops them and keeps the rest', () => {
    const r = redactSecret(MINE);
    expect(r.metadata.annotations).toEqual({
      other: 'fine',
      [REDACTED_ANNOTATION]: 'password',
      'cozy-gw.cozystack.io/secret-data-digest': expect.stringMatching(/^scrypt:4096:8:1:[0-9a-f]{32}:[0-9a-f]{64}$/),
    });
  });
  it('a Secret already without data still loses a last-applied copy', () => {
    const noData: KObject = { ...MINE, metadata: { ...MINE.metadata } };
    delete noData.data;
    const r = redactSecret(noData);
    expect(Object.keys(r.metadata.annotations ?? {})).not.toContain('kubectl.kubernetes.io/last-applied-configuration');
    expect(JSON.stringify(r)).not.toContain(b64(OLD));
  });
  it('a Secret the tool writes into applied output carries no copy of an earlier object', () => {
    const out = applySecretRule([MINE], () => true, { includeSecretData: true, includeHint: 'pass it' });
    expect(out.objects.map((o) => Object.keys(o.metadata.annotations ?? {}))).toEqual([['other']]);
  });
});

describe('no output prints an annotation copy of Secret data', () => {
  const s = useScratch('cozy-gw-secret-leaks-', {
    'mine.yaml': toYamlStream([MINE]),
    'alice.yaml': toYamlStream([
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'tenant-alice', labels: { 'tenant.cozystack.io/tenant-alice': '' } },
      },
      { ...MINE, metadata: { ...MINE.metadata, namespace: 'tenant-alice' } },
    ]),
    'empty.yaml': '',
    'values.yaml':
      'publishing: {host: example.org, certificates: {wildcardSecretName: wild}}\ngateway: {enabled: true}\n',
  });

  it.each([
    ['reconcile --all', ['reconcile', '-f', 'mine.yaml', '--all', '--now', NOW]],
    ['reconcile --all -o json', ['reconcile', '-f', 'mine.yaml', '--all', '-o', 'json', '--now', NOW]],
    ['diff (created)', ['diff', '--state', 'empty.yaml', '-f', 'mine.yaml']],
    ['diff -o plan (created)', ['diff', '--state', 'empty.yaml', '-f', 'mine.yaml', '-o', 'plan']],
    ['diff -o json (created)', ['diff', '--state', 'empty.yaml', '-f', 'mine.yaml', '-o', 'json']],
    // --prune with no Tenants: tenant-alice leaves, with the Secret in it.
    ['diff (deleted)', ['diff', '--state', 'alice.yaml', '-f', 'empty.yaml', '--values', 'values.yaml', '--prune']],
    [
      'diff -o json (deleted)',
      ['diff', '--state', 'alice.yaml', '-f', 'empty.yaml', '--values', 'values.yaml', '--prune', '-o', 'json'],
    ],
  ])('%s', async (_what, args) => {
    const r = await s.cli(args);
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: args[0] === 'diff' ? 3 : 0,
      stderr: expect.any(String),
    });
    expect(leaks(r.stdout)).toEqual([]);
    expect(leaks(r.stderr)).toEqual([]);
  });

  it.each([['diff'], ['plan'], ['json']])(
    'diff -o %s: a change of the copy alone is still a difference, masked',
    async (format) => {
      // The given Secret is the state's without its last-applied copy: kubectl apply changes it.
      const given: KObject = { ...MINE, metadata: { ...MINE.metadata, annotations: { other: 'fine' } } };
      s.write('given.yaml', toYamlStream([given]));
      const r = await s.cli(['diff', '--state', 'mine.yaml', '-f', 'given.yaml', '-o', format]);
      expect(r.code).toBe(3);
      expect(r.stdout).toContain('last-applied-configuration');
      expect(leaks(r.stdout)).toEqual([]);
    },
  );

  it('render --with-controller: a wildcard replica the pass updates loses its stale copy', async () => {
    const replica: KObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'wild',
        namespace: 'tenant-bob',
        labels: { 'cozystack.io/wildcard-secret-copy': 'true' },
        annotations: {
          'cozystack.io/wildcard-secret-source': 'tenant-root/wild',
          'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ data: { 'tls.key': b64(OLD) } }),
        },
      },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(OLD), 'tls.key': b64(OLD) },
    };
    const source: KObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'wild', namespace: 'tenant-root' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(KEY), 'tls.key': b64(KEY) },
    };
    const tenant = (name: string): KObject => ({
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name, namespace: 'tenant-root' },
      spec: { gateway: true },
    });
    s.write('in.yaml', toYamlStream([tenant('root'), tenant('bob'), source, replica]));
    const r = await s.cli(['render', '--with-controller', '--values', 'values.yaml', '-f', 'in.yaml', '--now', NOW]);
    expect(r.code).toBe(0);
    // The replica is in the output (redacted), without the copy.
    expect(r.stdout).toContain('cozystack.io/wildcard-secret-source: tenant-root/wild');
    expect(leaks(r.stdout)).toEqual([]);
  });
});

describe('a values channel is written whole only when it is one (docs/decisions.md §C8)', () => {
  const channel = (over: Partial<KObject>): KObject =>
    ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cozystack-values' }, type: 'Opaque', ...over }) as KObject;
  it('values.yaml as text, and nothing else: whole', () => {
    const s = channel({ stringData: { 'values.yaml': '_cluster: {}' } });
    expect(redactSecret(s)).toBe(s);
  });
  it('any other shape is redacted: data or stringData a string, another key, a value not text', () => {
    for (const over of [
      { data: 'SE9TVElMRS1TRUNSRVQ=', stringData: 'HOSTILE-SECRET' },
      { stringData: { 'values.yaml': 'a', 'tls.key': 'HOSTILE-SECRET' } },
      { data: { 'values.yaml': ['HOSTILE-SECRET'] } },
      { type: 'kubernetes.io/tls', stringData: { 'values.yaml': 'HOSTILE-SECRET' } },
    ] as Partial<KObject>[]) {
      const r = redactSecret(channel(over));
      expect({
        over,
        leaks: JSON.stringify(r).includes('HOSTILE-SECRET') || JSON.stringify(r).includes('SE9TVElMRS1TRUNSRVQ='),
      }).toEqual({
        over,
        leaks: false,
      });
    }
  });
});
