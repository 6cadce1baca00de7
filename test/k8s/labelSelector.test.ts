import { selectorMatches } from '../../src/k8s/labelSelector';

describe('selectorMatches (metav1.LabelSelector)', () => {
  const cases: [string, unknown, Record<string, string>, boolean][] = [
    ['absent selects everything', undefined, {}, true],
    ['empty selects everything', {}, { a: '1' }, true],
    ['matchLabels equal', { matchLabels: { a: '1' } }, { a: '1', b: '2' }, true],
    ['matchLabels differ', { matchLabels: { a: '1' } }, { a: '2' }, false],
    ['In', { matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, { a: '2' }, true],
    ['In, label absent', { matchExpressions: [{ key: 'a', operator: 'In', values: ['1'] }] }, {}, false],
    ['NotIn, value listed', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, { a: '1' }, false],
    ['NotIn, label absent', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, {}, true],
    ['Exists', { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { a: '' }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'b', operator: 'DoesNotExist' }] }, { a: '1' }, true],
    [
      'every expression must hold',
      {
        matchExpressions: [
          { key: 'a', operator: 'In', values: ['1'] },
          { key: 'b', operator: 'DoesNotExist' },
        ],
      },
      { a: '1', b: 'x' },
      false,
    ],
    [
      'an unknown operator matches nothing',
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['0'] }] },
      { a: '1' },
      false,
    ],
    ['a selector that is not a map selects nothing', 'a=1', { a: '1' }, false],
    [
      'a label inherited from Object.prototype is not present',
      { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] },
      {},
      false,
    ],
  ];
  it.each(cases)('%s', (_name, sel, labels, want) => {
    expect(selectorMatches(sel, labels)).toBe(want);
  });
});
