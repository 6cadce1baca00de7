/**
 * The digest of hidden Secret data (src/k8s/secretDigest.ts, docs/security.md "Secret digests"):
 * salted per Secret, compared only where made alike, and never read with parameters that would make
 * a run slow.
 */
import { compareDigests, digestLike, parseDigest, writeDigest } from '../../src/k8s/secretDigest';
import type { KObject } from '../../src/k8s/model';

const secret = (name: string, data: Record<string, string>, uid?: string): KObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'tenant-root', ...(uid ? { uid } : {}) },
  stringData: data,
});

describe('secret data digests', () => {
  it('one password in two Secrets, or in two clusters (uids), gives two digests; the same input the same one', () => {
    const d = [
      writeDigest(secret('a', { password: 'hunter2' })),
      writeDigest(secret('b', { password: 'hunter2' })),
      writeDigest(secret('a', { password: 'hunter2' }, 'uid-1')),
    ];
    expect(new Set(d).size).toBe(3);
    expect(writeDigest(secret('a', { password: 'hunter2' }))).toBe(d[0]);
  });
  it("the change's data digested as the state's digest was made: same and changed told apart", () => {
    const state = parseDigest(writeDigest(secret('a', { password: 'hunter2' }, 'uid-1')))!;
    expect(digestLike(secret('a', { password: 'hunter2' }), state)).toBe(state.scheme === 'scrypt' && state.hash);
    expect(digestLike(secret('a', { password: 'hunter3' }), state)).not.toBe(state.scheme === 'scrypt' && state.hash);
  });
  it('two digests compare only where they share a salt', () => {
    const a = parseDigest(writeDigest(secret('a', { p: 'x' })))!;
    const a2 = parseDigest(writeDigest(secret('a', { p: 'y' })))!;
    const b = parseDigest(writeDigest(secret('b', { p: 'x' })))!;
    expect([compareDigests(a, a), compareDigests(a, a2), compareDigests(a, b)]).toEqual(['same', 'changed', 'unknown']);
    const old = parseDigest(`sha256:${'0'.repeat(64)}`)!;
    expect([compareDigests(old, old), compareDigests(old, a)]).toEqual(['same', 'unknown']);
  });
  it.each([
    `scrypt:1073741824:8:1:${'0'.repeat(32)}:${'0'.repeat(64)}`,
    `scrypt:4096:64:16:${'0'.repeat(32)}:${'0'.repeat(64)}`,
    `scrypt:4096:8:1:${'0'.repeat(31)}:${'0'.repeat(64)}`,
    'sha256:zz',
    42,
  ])('%s is read as no digest (an input cannot make a run spend more)', (d) => {
    expect(parseDigest(d)).toBeUndefined();
  });
});
