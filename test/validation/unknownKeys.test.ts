import fc from 'fast-check';
import {
  editDistance,
  nearestKey,
  unknownKeys,
  unknownTenantSpecKeys,
  unknownKeyHint,
  unknownValueKeys,
} from '../../src/validation/unknownKeys';
import { resolveCozystackVersion } from '../../src/platform/cozystackVersions';

describe('unknown keys', () => {
  it('edit distance', () => {
    expect(editDistance('hots', 'host')).toBe(2);
    expect(editDistance('publshing', 'publishing')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
  it('stops at a limit: limit + 1 as soon as the distance passes it, the distance itself below it', () => {
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('kitten', 'sitting', 2)).toBe(3);
    expect(editDistance('abcdefgh', 'zyxwvuts', 1)).toBe(2);
    expect(editDistance('a'.repeat(10), 'host', 2)).toBe(3);
  });
  it('agrees with the unbounded distance under every limit (generated strings)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.nat(14), (a, b, limit) => {
        expect(editDistance(a, b, limit)).toBe(Math.min(editDistance(a, b), limit + 1));
      }),
      { numRuns: 500, seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined },
    );
  });
  it('suggests nothing for a key of hostile length, without working out its distances', () => {
    const t0 = process.hrtime.bigint();
    expect(nearestKey('h'.repeat(200000), ['host', 'gateway', 'publishing'])).toBeUndefined();
    // Unbounded, this is 200,000 x 10 cells per known key; bounded, a length comparison.
    expect(Number(process.hrtime.bigint() - t0) / 1e6).toBeLessThan(500); // unbounded: about 2 s here
  });
  it('nearest key: smallest distance, case-insensitive match first, ties alphabetical, none when far', () => {
    expect(nearestKey('hots', ['host', 'ingressName'])).toBe('host');
    expect(nearestKey('ClassName', ['className', 'classname2'])).toBe('className');
    expect(nearestKey('ab', ['ac', 'aa'])).toBe('aa');
    expect(nearestKey('zzzzzzzz', ['host', 'gateway'])).toBeUndefined();
  });
  it('walks the schema through $ref; skips nulls and free-form maps; lenient at the top', () => {
    expect(
      unknownValueKeys({
        publishing: { certificates: { dns01: { cloudflare: { secretNme: 'x' } } } },
        networking: {},
        publshing: null,
        gatewy: {},
      }),
    ).toEqual([
      {
        path: 'publishing.certificates.dns01.cloudflare.secretNme',
        suggestion: 'publishing.certificates.dns01.cloudflare.secretName',
        known: ['secretName', 'secretKey'],
      },
      {
        path: 'gatewy',
        suggestion: 'gateway',
        known: ['bundles', 'publishing', 'authentication', 'monitoring', 'resources', 'gateway'],
      },
    ]);
    expect(unknownTenantSpecKeys({ resourceQuotas: { anything: 1 }, hots: 'x' })).toEqual([
      expect.objectContaining({ path: 'spec.hots', suggestion: 'spec.host' }),
    ]);
    // The keys the tenant charts read through _cluster (docs/behaviour.md §1) are known keys too.
    expect(unknownValueKeys({ authentication: { oidc: { enabeld: true } }, resources: { cpuRatio: 2 } })).toEqual([
      expect.objectContaining({ path: 'authentication.oidc.enabeld', suggestion: 'authentication.oidc.enabled' }),
      expect.objectContaining({ path: 'resources.cpuRatio' }),
    ]);
    expect(unknownKeys({ a: 1 }, { type: 'object', properties: { b: {} }, additionalProperties: false })).toEqual([]);
  });
});

describe('a platform value of another Cozystack version (docs/versions.md §P3)', () => {
  const at = (name: string) => {
    const r = resolveCozystackVersion(name);
    if (!r.ok) throw new Error(r.error);
    return r.version.behaviour;
  };
  const values = {
    publishing: { host: 'example.org', ingressNameAdmin: 'x' },
    gateway: { className: 'cilium' },
    monitoring: { rootEnabled: true },
  };
  it.each([
    [
      'v1.5.4',
      'publishing.ingressNameAdmin',
      'only Cozystack v1.6.0 … v1.6.2 and main have the platform value publishing.ingressNameAdmin; the charts of the version rendered ignore it',
    ],
    [
      'v1.5.4',
      'gateway.className',
      'only Cozystack main has the platform value gateway.className; the charts of the version rendered ignore it',
    ],
    [
      'v1.6.2',
      'gateway.className',
      'only Cozystack main has the platform value gateway.className; the charts of the version rendered ignore it',
    ],
  ])('%s: %s names the versions that have it, no did-you-mean', (version, path, hint) => {
    const u = unknownValueKeys(values, at(version)).find((x) => x.path === path);
    expect(u && { suggestion: u.suggestion, hint: unknownKeyHint(u) }).toEqual({ suggestion: undefined, hint });
  });
  it('main knows them all', () => {
    expect(unknownValueKeys(values, at('main'))).toEqual([]);
  });
});
