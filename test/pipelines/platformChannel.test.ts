import type { KObject } from '../../src/k8s/model';
import { wildcardChannel } from '../../src/pipelines/platformChannel';
import { REDACTED_ANNOTATION, redactSecret } from '../../src/k8s/secretRedaction';

describe('the channel (docs/decisions.md §7)', () => {
  const v = (certs: Record<string, unknown>, extra: Record<string, unknown> = {}) => [
    { file: 'values.yaml', values: { publishing: { certificates: certs }, ...extra } },
  ];

  it('no platform values and no channel Secret: absent', () => {
    expect(wildcardChannel([], []).channel).toBeUndefined();
  });
  it('values given with wildcardSecretName: the name and expose-ingress', () => {
    expect(wildcardChannel([], v({ wildcardSecretName: 'w' })).channel).toEqual({
      'wildcard-secret-name': 'w',
      'expose-ingress': 'tenant-root',
    });
  });
  it('values given without wildcardSecretName: the key counts as missing (no prune-all from a default)', () => {
    expect(wildcardChannel([], v({ solver: 'http01' })).channel).toEqual({ 'expose-ingress': 'tenant-root' });
  });
  it('wildcardSecretName: "" given explicitly is the prune-all', () => {
    expect(wildcardChannel([], v({ wildcardSecretName: '' })).channel).toEqual({
      'wildcard-secret-name': '',
      'expose-ingress': 'tenant-root',
    });
  });
  it('the derived dns01 wildcard name travels on the channel', () => {
    const files = [
      {
        file: 'v',
        values: { publishing: { certificates: { solver: 'dns01', wildcard: true } }, gateway: { enabled: false } },
      },
    ];
    expect(wildcardChannel([], files).channel?.['wildcard-secret-name']).toBe('cozystack-wildcard-tls');
  });
  it('a platform Package among the inputs is the channel', () => {
    const pkg: KObject = {
      apiVersion: 'cozystack.io/v1alpha1',
      kind: 'Package',
      metadata: { name: 'cozystack.cozystack-platform' },
      spec: {
        components: {
          platform: { values: { publishing: { ingressName: 'tenant-pub', certificates: { wildcardSecretName: '' } } } },
        },
      },
    };
    expect(wildcardChannel([pkg], []).channel).toEqual({ 'wildcard-secret-name': '', 'expose-ingress': 'tenant-pub' });
  });

  const channelSecret = (body: Partial<KObject>): KObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cozystack-values', namespace: 'cozy-system' },
    type: 'Opaque',
    ...body,
  });

  it('without values, the input Secret cozy-system/cozystack-values is the live channel (stringData or data)', () => {
    const y = '_cluster:\n  wildcard-secret-name: "w"\n  expose-ingress: "tenant-root"\n';
    expect(wildcardChannel([channelSecret({ stringData: { 'values.yaml': y } })], []).channel).toEqual({
      'wildcard-secret-name': 'w',
      'expose-ingress': 'tenant-root',
    });
    expect(
      wildcardChannel([channelSecret({ data: { 'values.yaml': Buffer.from(y).toString('base64') } })], []).channel,
    ).toEqual({ 'wildcard-secret-name': 'w', 'expose-ingress': 'tenant-root' });
  });
  it('in the channel Secret a missing key keeps everything and an explicit empty key prunes all', () => {
    expect(
      wildcardChannel([channelSecret({ stringData: { 'values.yaml': '_cluster:\n  root-host: x\n' } })], []).channel,
    ).toEqual({});
    expect(
      wildcardChannel([channelSecret({ stringData: { 'values.yaml': '_cluster:\n  wildcard-secret-name: ""\n' } })], [])
        .channel,
    ).toEqual({ 'wildcard-secret-name': '' });
  });
  it('an unparsable channel is an error, and nothing is created or pruned', () => {
    for (const y of ['_cluster: [a', '- a\n- b\n', '_cluster: 3\n', '_cluster:\n  wildcard-secret-name: [1]\n']) {
      const r = wildcardChannel([channelSecret({ stringData: { 'values.yaml': y } })], []);
      expect(r.channel).toBeUndefined();
      expect(r.findings).toEqual([expect.objectContaining({ severity: 'error', rule: 'wildcard.channel-unparsable' })]);
    }
  });
  it('values given outrank the channel Secret, with a warning where they disagree', () => {
    const s = channelSecret({
      stringData: { 'values.yaml': '_cluster:\n  wildcard-secret-name: "old"\n  expose-ingress: "tenant-root"\n' },
    });
    const r = wildcardChannel([s], v({ wildcardSecretName: 'new' }));
    expect(r.channel?.['wildcard-secret-name']).toBe('new');
    expect(r.findings).toEqual([expect.objectContaining({ severity: 'warning', rule: 'wildcard.channel-overridden' })]);
    expect(wildcardChannel([s], v({ wildcardSecretName: 'old' })).findings).toEqual([]);
  });
  it('a channel Secret printed without its data (by an earlier version) is treated as absent, with a warning', () => {
    const whole = channelSecret({ stringData: { 'values.yaml': '_cluster: {}' } });
    // cozy-gw now writes it whole (it is configuration, docs/decisions.md §C8); earlier versions left its data out.
    expect(redactSecret(whole)).toBe(whole);
    const printed: KObject = {
      ...whole,
      metadata: { ...whole.metadata, annotations: { [REDACTED_ANNOTATION]: 'values.yaml' } },
      data: {},
    };
    delete printed.stringData;
    const r = wildcardChannel([printed], []);
    expect(r.channel).toBeUndefined();
    expect(r.findings[0].rule).toBe('wildcard.channel-redacted');
  });
  it('the platform Package is the one with spec.components.platform, wherever it stands among the Packages', () => {
    const other: KObject = {
      apiVersion: 'cozystack.io/v1alpha1',
      kind: 'Package',
      metadata: { name: 'cozystack.some-app' },
      spec: { components: {} },
    };
    const platform: KObject = {
      apiVersion: 'cozystack.io/v1alpha1',
      kind: 'Package',
      metadata: { name: 'cozystack.cozystack-platform' },
      spec: { components: { platform: { values: { publishing: { certificates: { wildcardSecretName: '' } } } } } },
    };
    // wildcardSecretName: "" given in the platform Package is the explicit prune-all, whatever comes first.
    for (const objects of [
      [other, platform],
      [platform, other],
    ])
      expect(wildcardChannel(objects, []).channel).toEqual({
        'wildcard-secret-name': '',
        'expose-ingress': 'tenant-root',
      });
  });
  it('a publishing.ingressName that is no namespace name is an error naming the key and the file; no channel', () => {
    const r = wildcardChannel([], [{ file: 'values.yaml', values: { publishing: { ingressName: 'tenant-root ' } } }]);
    expect(r.channel).toBeUndefined();
    expect(r.findings).toEqual([
      expect.objectContaining({
        severity: 'error',
        rule: 'platform.ingress-name',
        file: 'values.yaml',
        field: 'publishing.ingressName',
      }),
    ]);
  });
  it('the platform chart verdicts on values the channel does not read are left to render', () => {
    const r = wildcardChannel([], [{ file: 'values.yaml', values: { gateway: { className: '   ' } } }]);
    expect(r.findings).toEqual([]);
    expect(r.channel).toEqual({ 'expose-ingress': 'tenant-root' });
  });
});
