import { editDistance, nearestKey, unknownKeys, unknownTenantSpecKeys, unknownValueKeys } from '../../src/validation/unknownKeys';

describe('unknown keys', () => {
  it('edit distance', () => {
    expect(editDistance('hots', 'host')).toBe(2);
    expect(editDistance('publshing', 'publishing')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
  it('nearest key: smallest distance, case-insensitive match first, ties alphabetical, none when far', () => {
    expect(nearestKey('hots', ['host', 'ingressName'])).toBe('host');
    expect(nearestKey('ClassName', ['className', 'classname2'])).toBe('className');
    expect(nearestKey('ab', ['ac', 'aa'])).toBe('aa');
    expect(nearestKey('zzzzzzzz', ['host', 'gateway'])).toBeUndefined();
  });
  it('walks the schema through $ref; skips nulls and free-form maps; lenient at the top', () => {
    expect(unknownValueKeys({ publishing: { certificates: { dns01: { cloudflare: { secretNme: 'x' } } } }, networking: {}, publshing: null, gatewy: {} })).toEqual([
      { path: 'publishing.certificates.dns01.cloudflare.secretNme', suggestion: 'publishing.certificates.dns01.cloudflare.secretName', known: ['secretName', 'secretKey'] },
      { path: 'gatewy', suggestion: 'gateway', known: ['bundles', 'publishing', 'gateway'] },
    ]);
    expect(unknownTenantSpecKeys({ resourceQuotas: { anything: 1 }, hots: 'x' })).toEqual([expect.objectContaining({ path: 'spec.hots', suggestion: 'spec.host' })]);
    expect(unknownKeys({ a: 1 }, { type: 'object', properties: { b: {} }, additionalProperties: false })).toEqual([]);
  });
});
