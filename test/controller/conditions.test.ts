import { mergeCondition } from '../../src/controller/conditions';

const base = { type: 'Accepted', status: 'True' as const, reason: 'Accepted', message: 'm' };

describe('mergeCondition', () => {
  test('appends a new type with lastTransitionTime now and keeps others in place', () => {
    const out = mergeCondition([{ type: 'ResolvedRefs', status: 'True' }], base, 'T1', 'status-reason-message');
    expect(out.map((c) => c.type)).toEqual(['ResolvedRefs', 'Accepted']);
    expect(out[1].lastTransitionTime).toBe('T1');
  });

  test('route conditions keep lastTransitionTime when nothing changed, move it on a message change', () => {
    const first = mergeCondition([], base, 'T1', 'status-reason-message');
    expect(mergeCondition(first, base, 'T2', 'status-reason-message')[0].lastTransitionTime).toBe('T1');
    expect(
      mergeCondition(first, { ...base, message: 'other' }, 'T2', 'status-reason-message')[0].lastTransitionTime,
    ).toBe('T2');
    expect(mergeCondition(first, { ...base, reason: 'X' }, 'T2', 'status-reason-message')[0].lastTransitionTime).toBe(
      'T2',
    );
  });

  test('Ready-style conditions move lastTransitionTime only when the status changes', () => {
    const first = mergeCondition([], base, 'T1', 'status');
    expect(mergeCondition(first, { ...base, message: 'other' }, 'T2', 'status')[0].lastTransitionTime).toBe('T1');
    expect(mergeCondition(first, { ...base, status: 'False' }, 'T2', 'status')[0].lastTransitionTime).toBe('T2');
  });

  test('writes fields in metav1.Condition order and observedGeneration only when given', () => {
    expect(Object.keys(mergeCondition([], base, 'T', 'status')[0])).toEqual([
      'type',
      'status',
      'lastTransitionTime',
      'reason',
      'message',
    ]);
    expect(Object.keys(mergeCondition([], { ...base, observedGeneration: 3 }, 'T', 'status')[0])).toEqual([
      'type',
      'status',
      'observedGeneration',
      'lastTransitionTime',
      'reason',
      'message',
    ]);
  });
});
