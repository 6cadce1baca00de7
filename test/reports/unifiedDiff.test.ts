import fc from 'fast-check';
import { unifiedDiff } from '../../src/reports/unifiedDiff';
import { lineDiff } from '../../src/reports/lineDiff';
import type { KObject } from '../../src/k8s/model';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

/** The length of a longest common subsequence (the minimal script keeps exactly that many lines). */
function lcs(a: string[], b: string[]): number {
  const t: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      t[i][j] = a[i - 1] === b[j - 1] ? t[i - 1][j - 1] + 1 : Math.max(t[i - 1][j], t[i][j - 1]);
  return t[a.length][b.length];
}

describe('lineDiff', () => {
  it('is an edit script from a to b that keeps a longest common subsequence', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.array(line, { maxLength: 30 }), (a, b) => {
        const s = lineDiff(a, b);
        expect(s.filter(([op]) => op !== '+').map(([, l]) => l)).toEqual(a);
        expect(s.filter(([op]) => op !== '-').map(([, l]) => l)).toEqual(b);
        expect(s.filter(([op]) => op === ' ').length).toBe(lcs(a, b));
      }),
      { numRuns: 500, seed },
    );
  });

  it('stays minimal when lines only one side has are set aside first', () => {
    // Few repeated lines and many unique ones: the unique ones never match and are put back as changes.
    const line = fc.oneof(
      fc.constantFrom('a', 'b', 'c'),
      fc.nat(1000).map((n) => `u${n}`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(line, { maxLength: 40 }), (a, b) => {
        const s = lineDiff(a, b);
        expect(s.filter(([op]) => op !== '+').map(([, l]) => l)).toEqual(a);
        expect(s.filter(([op]) => op !== '-').map(([, l]) => l)).toEqual(b);
        expect(s.filter(([op]) => op === ' ').length).toBe(lcs(a, b));
      }),
      { numRuns: 500, seed },
    );
  });

  it('past its edit budget still gives a correct script (the middle replaced whole)', () => {
    // Every line matchable and in reverse order: Myers would need an edit distance of 2n.
    const a = Array.from({ length: 400 }, (_, i) => `line ${i}`);
    const b = [...a].reverse();
    const s = lineDiff(a, b, 4000);
    expect(s.filter(([op]) => op === ' ').length).toBe(0); // a minimal script would keep one line
    expect(s.filter(([op]) => op !== '+').map(([, l]) => l)).toEqual(a);
    expect(s.filter(([op]) => op !== '-').map(([, l]) => l)).toEqual(b);
  });
});

describe('unifiedDiff', () => {
  const ns = (labels: Record<string, string>): KObject => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'tenant-alice', labels },
  });

  it('heads each object with Kind namespace/name and writes diff -u hunks with three lines of context', () => {
    const before = ns({ a: '1', b: '2', c: '3', d: '4', e: '5' });
    const after = ns({ a: '1', b: '2', c: 'x', d: '4', e: '5' });
    expect(unifiedDiff(before, after)).toBe(
      [
        'Namespace tenant-alice',
        '--- Namespace tenant-alice (state)',
        '+++ Namespace tenant-alice (after)',
        '@@ -5,6 +5,6 @@',
        '   labels:',
        '     a: "1"',
        '     b: "2"',
        '-    c: "3"',
        '+    c: x',
        '     d: "4"',
        '     e: "5"',
        '',
      ].join('\n'),
    );
  });

  it('shows a created object in full against /dev/null, a deleted one the other way', () => {
    const o = ns({ a: '1' });
    const created = unifiedDiff(undefined, o);
    expect(created.split('\n').slice(0, 4)).toEqual([
      'Namespace tenant-alice',
      '--- /dev/null',
      '+++ Namespace tenant-alice (after)',
      '@@ -0,0 +1,6 @@',
    ]);
    expect(created).toContain('+kind: Namespace\n');
    const deleted = unifiedDiff(o, undefined);
    expect(deleted.split('\n').slice(1, 4)).toEqual([
      '--- Namespace tenant-alice (state)',
      '+++ /dev/null',
      '@@ -1,6 +0,0 @@',
    ]);
  });

  it('separates hunks more than six lines apart', () => {
    const labels = Object.fromEntries([...'abcdefghijklmnop'].map((k, i) => [k, String(i)]));
    const after = { ...labels, b: 'x', o: 'y' };
    const text = unifiedDiff(ns(labels), ns(after));
    expect(text.match(/^@@ /gm)).toHaveLength(2);
  });
});
