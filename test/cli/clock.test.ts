import { currentTime, defaultNow, parseNow, resolveNow } from '../../src/cli/clock';
import { FindingsError } from '../../src/k8s/diagnostics';
import { EPOCH, isRfc3339, rfc3339Seconds } from '../../src/k8s/time';

describe('the clock and --now', () => {
  it('one check of an RFC 3339 time', () => {
    expect(isRfc3339('2026-01-01T00:00:00Z')).toBe(true);
    expect(isRfc3339('2026-01-01T00:00:00.5+02:00')).toBe(true);
    expect(isRfc3339('2026-01-01')).toBe(false);
    expect(isRfc3339('2026-13-45T00:00:00Z')).toBe(false);
    expect(parseNow('2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00Z');
    expect(() => parseNow('tomorrow')).toThrow('"tomorrow" is not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)');
  });

  it('one way to write an instant: UTC at second precision', () => {
    expect(rfc3339Seconds(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)))).toBe('2026-01-02T03:04:05Z');
    expect(currentTime()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(defaultNow({ SOURCE_DATE_EPOCH: '1767225600' })).toBe('2026-01-01T00:00:00Z');
    expect(() => defaultNow({ SOURCE_DATE_EPOCH: 'x' })).toThrow(
      /SOURCE_DATE_EPOCH="x" is not a whole number of seconds/,
    );
    expect(defaultNow({})).toBe('1970-01-01T00:00:00Z');
  });

  const current = () => new Date('2030-05-06T07:08:09.123Z');
  it('resolveNow, reproducible: --now, else SOURCE_DATE_EPOCH, else the fixed epoch', () => {
    expect(
      resolveNow({ now: '2026-01-01T00:00:00Z', env: { SOURCE_DATE_EPOCH: '0' }, mode: 'reproducible', current }),
    ).toBe('2026-01-01T00:00:00Z');
    expect(resolveNow({ env: { SOURCE_DATE_EPOCH: '1767225600' }, mode: 'reproducible', current })).toBe(
      '2026-01-01T00:00:00Z',
    );
    expect(resolveNow({ env: {}, mode: 'reproducible', current })).toBe(EPOCH);
    expect(resolveNow({ env: { SOURCE_DATE_EPOCH: '' }, mode: 'reproducible', current })).toBe(EPOCH);
  });
  it('resolveNow, live: --now, else the current time at second precision; SOURCE_DATE_EPOCH is not consulted', () => {
    expect(resolveNow({ env: { SOURCE_DATE_EPOCH: '0' }, mode: 'live', current })).toBe('2030-05-06T07:08:09Z');
    expect(resolveNow({ now: '2026-01-01T00:00:00Z', env: {}, mode: 'live', current })).toBe('2026-01-01T00:00:00Z');
  });
  it('a malformed SOURCE_DATE_EPOCH is an error', () => {
    expect(() => resolveNow({ env: { SOURCE_DATE_EPOCH: '1.5' }, mode: 'reproducible' })).toThrow(FindingsError);
    expect(() => resolveNow({ env: { SOURCE_DATE_EPOCH: '1e3' }, mode: 'reproducible' })).toThrow(
      /not a whole number of seconds/,
    );
  });
  it('a SOURCE_DATE_EPOCH past year 9999 is blamed on SOURCE_DATE_EPOCH (it has no RFC 3339 form), not on --now', () => {
    const env = (v: string) => ({ env: { SOURCE_DATE_EPOCH: v }, mode: 'reproducible' as const });
    expect(resolveNow(env('253402300799'))).toBe('9999-12-31T23:59:59Z');
    expect(() => resolveNow(env('253402300800'))).toThrow(
      /SOURCE_DATE_EPOCH="253402300800" is past 9999-12-31T23:59:59Z/,
    );
    expect(() => resolveNow(env('99999999999999999'))).toThrow(/SOURCE_DATE_EPOCH="99999999999999999" is past 9999/);
  });
});
