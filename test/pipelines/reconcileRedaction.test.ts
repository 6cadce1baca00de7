import {
  isRedacted,
  redactSecret,
  redactSecrets,
  redactionNotice,
  REDACTED_ANNOTATION,
} from '../../src/k8s/secretRedaction';
import type { KObject } from '../../src/k8s/model';

const tls: KObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', namespace: 'n', annotations: { keep: 'me' } },
  type: 'kubernetes.io/tls',
  data: { 'tls.key': 'a2V5', 'tls.crt': 'Y3J0' },
  stringData: { extra: 'plain' },
};

describe('secret redaction (docs/decisions.md §9)', () => {
  it('drops stringData, empties data, keeps metadata and type, and names the keys left out', () => {
    const r = redactSecret(tls);
    expect(r).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        namespace: 'n',
        annotations: {
          keep: 'me',
          [REDACTED_ANNOTATION]: 'extra,tls.crt,tls.key',
          // the digest of the data as the API server stores it (stringData folded in)
          'cozy-gw.cozystack.io/secret-data-digest': expect.stringMatching(
            /^scrypt:4096:8:1:[0-9a-f]{32}:[0-9a-f]{64}$/,
          ),
        },
      },
      type: 'kubernetes.io/tls',
      data: {},
    });
    expect(isRedacted(r)).toBe(true);
    expect(tls.data).toEqual({ 'tls.key': 'a2V5', 'tls.crt': 'Y3J0' }); // the input is not mutated
  });
  it('is idempotent and leaves other kinds and data-less Secrets alone', () => {
    const r = redactSecret(tls);
    expect(redactSecret(r)).toBe(r);
    const cm: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
    expect(redactSecret(cm)).toBe(cm);
    const empty: KObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'e' }, type: 'Opaque' };
    expect(redactSecret(empty)).toBe(empty);
  });
  it('counts what it redacted, and --include-secret-data turns it off', () => {
    expect(redactSecrets([tls, tls], false).redacted).toBe(2);
    expect(redactSecrets([tls], true)).toEqual({ objects: [tls], redacted: 0 });
    expect(redactionNotice(1)).toMatch(/1 Secret left out .*--include-secret-data/);
  });
});
