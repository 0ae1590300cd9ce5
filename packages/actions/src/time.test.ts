import { expiryMs, formatMicros, parseIsoWithOffset, wholeSeconds } from './time';
import { ManualClock, systemClock } from './clock';

describe('formatMicros', () => {
  it.each([
    [Date.UTC(2030, 0, 2, 3, 4, 5, 678) + 0.901, '2030-01-02T03:04:05.678901Z'],
    [Date.UTC(2030, 0, 2, 3, 4, 5, 678), '2030-01-02T03:04:05.678000Z'],
    [Date.UTC(2030, 0, 2, 3, 4, 5, 999) + 0.9999, '2030-01-02T03:04:06.000000Z'],
    [0, '1970-01-01T00:00:00.000000Z'],
    [0.001, '1970-01-01T00:00:00.000001Z'],
  ])('formats %p as %s', (ms, text) => {
    expect(formatMicros(ms)).toBe(text);
  });
});

describe('parseIsoWithOffset', () => {
  it.each([
    ['2030-01-01T00:00:00Z', Date.UTC(2030, 0, 1)],
    ['2030-01-01T01:00:00+01:00', Date.UTC(2030, 0, 1)],
    ['2029-12-31T19:30:00-04:30', Date.UTC(2030, 0, 1)],
    ['2030-01-01T00:00:00.5Z', Date.UTC(2030, 0, 1) + 500],
    ['2030-01-01T00:00:00.123456789Z', Date.UTC(2030, 0, 1) + 123.456789],
    ['0001-01-01T00:00:00Z', -62135596800000],
    ['2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
  ])('parses %s', (text, ms) => {
    expect(parseIsoWithOffset(text)).toBeCloseTo(ms, 6);
  });

  it.each([
    '2030-01-01T00:00:00',
    '2030-01-01 00:00:00Z',
    '2030-13-01T00:00:00Z',
    '2030-02-30T00:00:00Z',
    '2029-02-29T00:00:00Z',
    '2030-01-01T24:00:00Z',
    '2030-01-01T00:60:00Z',
    '2030-01-01T00:00:00+25:00',
    '2030-01-01',
    '',
  ])('rejects %p', (text) => {
    expect(parseIsoWithOffset(text)).toBeUndefined();
  });
});

describe('expiryMs', () => {
  it('reads every spelling of the zero time as never', () => {
    expect(expiryMs('0001-01-01T00:00:00Z')).toBeNull();
    expect(expiryMs('0001-01-01T00:00:00.000000Z')).toBeNull();
    expect(expiryMs('0001-01-01T01:00:00+01:00')).toBeNull();
    expect(expiryMs('0001-01-01T00:00:01Z')).toBe(-62135596799000);
  });

  it('throws on malformed input (validation runs first)', () => {
    expect(() => expiryMs('tomorrow')).toThrow('not an ISO 8601 timestamp with offset: tomorrow');
  });
});

describe('clocks', () => {
  it('a manual clock moves only when told', () => {
    const c = new ManualClock(10);
    expect(c.now()).toBe(10);
    c.advance(5.5);
    expect(c.now()).toBe(15.5);
    c.set(1);
    expect(c.now()).toBe(1);
  });

  it('the system clock stays within a millisecond of Date.now and never goes below it', () => {
    const c = systemClock();
    for (let i = 0; i < 1000; i++) {
      const before = Date.now();
      const t = c.now();
      const after = Date.now();
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThan(after + 1);
    }
  });
});

describe('wholeSeconds', () => {
  it('cuts the fraction of an RFC 3339 time and leaves everything else as it is', () => {
    expect(wholeSeconds('2030-02-01T00:00:00.999+02:00')).toBe('2030-02-01T00:00:00+02:00');
    expect(wholeSeconds('2030-02-01T00:00:00.123456789Z')).toBe('2030-02-01T00:00:00Z');
    expect(wholeSeconds('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00Z');
    expect(wholeSeconds('2030-02-01T00:00:00+02:00')).toBe('2030-02-01T00:00:00+02:00');
  });
});
