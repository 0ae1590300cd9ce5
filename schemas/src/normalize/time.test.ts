import { parseEventTime, hasSubMillisecondDigits } from './time';

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
