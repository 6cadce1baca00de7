import { currentTime, defaultNow, parseNow } from '../../src/cli/clock';
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
    expect(defaultNow({ SOURCE_DATE_EPOCH: 'x' })).toBe(EPOCH);
    expect(defaultNow({})).toBe('1970-01-01T00:00:00Z');
  });
});
