import { FIXED_EPOCH, resolveNow } from '../../src/cli/clock';
import { FindingsError } from '../../src/k8s/diagnostics';

describe('resolveNow: one clock resolution for every command', () => {
  const current = () => new Date('2030-05-06T07:08:09.123Z');
  it('reproducible: --now, else SOURCE_DATE_EPOCH, else the fixed epoch', () => {
    expect(resolveNow({ now: '2026-01-01T00:00:00Z', env: { SOURCE_DATE_EPOCH: '0' }, mode: 'reproducible', current })).toBe('2026-01-01T00:00:00Z');
    expect(resolveNow({ env: { SOURCE_DATE_EPOCH: '1767225600' }, mode: 'reproducible', current })).toBe('2026-01-01T00:00:00Z');
    expect(resolveNow({ env: {}, mode: 'reproducible', current })).toBe(FIXED_EPOCH);
    expect(resolveNow({ env: { SOURCE_DATE_EPOCH: '' }, mode: 'reproducible', current })).toBe(FIXED_EPOCH);
  });
  it('live: --now, else the current time at second precision; SOURCE_DATE_EPOCH is not consulted', () => {
    expect(resolveNow({ env: { SOURCE_DATE_EPOCH: '0' }, mode: 'live', current })).toBe('2030-05-06T07:08:09Z');
    expect(resolveNow({ now: '2026-01-01T00:00:00Z', env: {}, mode: 'live', current })).toBe('2026-01-01T00:00:00Z');
  });
  it('a malformed SOURCE_DATE_EPOCH is an error', () => {
    expect(() => resolveNow({ env: { SOURCE_DATE_EPOCH: '1.5' }, mode: 'reproducible' })).toThrow(FindingsError);
    expect(() => resolveNow({ env: { SOURCE_DATE_EPOCH: '99999999999999999' }, mode: 'reproducible' })).toThrow(/not a whole number of seconds/);
  });
});
