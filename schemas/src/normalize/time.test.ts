import fc from 'fast-check';
import { parseAnyForm, parseEventTime, hasSubMillisecondDigits } from './time';

describe('parseEventTime', () => {
  const at10 = Date.UTC(2023, 4, 1, 10, 0, 0, 0);
  it.each([
    // The chat samples' top-level ts: seconds without millis, `+0000` or `Z` (spec 2.2).
    ['2023-05-01 10:00:00+0000', at10],
    ['2023-05-01 10:00:00Z', at10],
    ['2023-05-01 10:00:00 +0000', at10],
    ['2023-05-01 12:00:00+0200', at10],
    ['2023-05-01 15:30:00+05:30', at10],
    ['2023-05-01T10:00:00.250Z', at10 + 250],
    ['2023-05-01T10:00:00.000-01:00', at10 + 3_600_000],
  ])('reads %s with its own offset', (s, expected) => {
    expect(parseEventTime(s, undefined)).toBe(expected);
  });

  it('reads local times, with or without millis, in the envelope tz', () => {
    expect(parseEventTime('2023-05-01 15:30:00.000', '+05:30')).toBe(at10);
    expect(parseEventTime('2023-05-01 15:30:00', '+0530')).toBe(at10);
  });

  it.each(['2023-05-01', '2023-05-01 10:00', '2023-02-30 10:00:00Z', '2023-05-01 10:00:00+2500', 'yesterday', '1682935200000'])('rejects %s', (s) => {
    expect(parseEventTime(s, undefined)).toBeUndefined();
  });

  it('needs an offset: a local time without envelope tz (earlier form) is rejected', () => {
    expect(parseEventTime('2023-05-01 10:00:00', undefined)).toBeUndefined();
  });
});

describe('hasSubMillisecondDigits', () => {
  it.each([
    ['2025-03-04T09:12:45.381204Z', true],
    ['2025-03-04T09:12:45.3812+05:30', true],
    ['2025-03-04 09:12:45.000001', true],
    ['2025-03-04T09:12:45.381000Z', false],
    ['2025-03-04T09:12:45.381Z', false],
    ['2025-03-04T09:12:45.38Z', false],
    ['2025-03-04T09:12:45Z', false],
    ['2023-11-15 03:43:20.123', false],
  ])('%s → %s', (value, expected) => {
    expect(hasSubMillisecondDigits(value)).toBe(expected);
  });
});

describe('parseEventTime’s read by position of the common forms', () => {
  it('gives what the regex path gives for every string of their shape (bent digits, dates, separators, zones)', () => {
    const digits = (n: number) =>
      fc.array(fc.constantFrom(...'0123456789'.split(''), '0', '1', '2', '9'), { minLength: n, maxLength: n }).map((a) => a.join(''));
    const field = (n: number, common: string[]) => fc.oneof(digits(n), fc.constantFrom(...common));
    const shaped = fc
      .tuple(
        field(4, ['2024', '2023', '1900', '2000', '2100', '0099', '0100', '0000', '1970']),
        field(2, ['01', '02', '12', '13', '00']),
        field(2, ['01', '28', '29', '30', '31', '00', '32']),
        fc.constantFrom(' ', 'T', 't', '_'),
        field(2, ['00', '23', '24', '12']),
        field(2, ['00', '59', '60', '99']),
        field(2, ['00', '59', '60', '99']),
        field(3, ['000', '999']),
        fc.constantFrom('', 'Z', 'z', '+05:30', ' ', 'X', '0'),
        fc.constantFrom('', ' ', 'x'),
      )
      .map(([y, mo, d, sep, h, mi, s, ms, zone, lead]) => `${lead}${y}-${mo}-${d}${sep}${h}:${mi}:${s}.${ms}${zone}`);
    const tz = fc.constantFrom(undefined, '+05:30', 'Z', '-08:00', 'UTC+5', 'bad', '+15:00');
    fc.assert(
      fc.property(fc.oneof(shaped, fc.string({ maxLength: 30 })), tz, (s, zone) => {
        expect(parseEventTime(s, zone)).toBe(parseAnyForm(s, zone));
      }),
      { numRuns: 20000 },
    );
  });
});
