import { isoUtc, localTime, tzOf } from './time';

describe('envelope times', () => {
  it('tz: sign, hours and minutes of the offset east of UTC', () => {
    expect([0, 330, -300, 765, -570, 840, -720].map(tzOf)).toEqual(['+00:00', '+05:30', '-05:00', '+12:45', '-09:30', '+14:00', '-12:00']);
  });

  it('time: the local wall clock at the offset, `YYYY-MM-DD HH:mm:ss.SSS`', () => {
    const ms = Date.UTC(2026, 10, 28, 23, 59, 58, 7);
    expect(localTime(ms, 0)).toBe('2026-11-28 23:59:58.007');
    expect(localTime(ms, 330)).toBe('2026-11-29 05:29:58.007');
    expect(localTime(ms, -300)).toBe('2026-11-28 18:59:58.007');
    expect(isoUtc(ms)).toBe('2026-11-28T23:59:58.007Z');
  });
});
