import type { Zone } from 'luxon';
import { availableAt, localInstant, parseLocalTime, parseZone, quietHoursEnd, userZone } from './local-time';

const ms = (iso: string): number => Date.parse(iso);
const iso = (t: number): string => new Date(t).toISOString();
const zone = (text: string): Zone => {
  const z = parseZone(text);
  if (!z) throw new Error(`not a zone: ${text}`);
  return z;
};
const hhmm = (text: string): number => parseLocalTime(text) as number;
const at = (z: string, trigger: string, rules: { quiet?: [string, string]; send?: string }): string =>
  iso(
    availableAt(zone(z), ms(trigger), {
      ...(rules.quiet ? { quietHours: { start: hhmm(rules.quiet[0]), end: hhmm(rules.quiet[1]) } } : {}),
      ...(rules.send ? { sendAtLocal: hhmm(rules.send) } : {}),
    }),
  );
const NIGHT: [string, string] = ['21:00', '08:00'];

describe('parseLocalTime', () => {
  it('reads HH:MM, 24-hour', () => {
    expect(['00:00', '09:00', '21:30', '23:59'].map(parseLocalTime)).toEqual([0, 540, 1290, 1439]);
    expect(['24:00', '9:00', '09:60', '09:00:00', ' 09:00', ''].map(parseLocalTime)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('parseZone and userZone', () => {
  it('reads fixed offsets as clients send tz, and IANA names', () => {
    expect(['+05:45', '-09:30', '+0545', 'Z', 'UTC+5'].map((t) => zone(t).offset(0))).toEqual([345, -570, 345, 0, 300]);
    expect(zone('Asia/Kathmandu').offset(ms('2026-01-15T00:00:00Z'))).toBe(345);
    expect(zone('America/New_York').offset(ms('2026-07-01T00:00:00Z'))).toBe(-240);
    expect([undefined, '', 'Mars/Olympus', '+25:00', 'EST5EDT6'].map(parseZone)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it("prefers the user catalog's timezone, then the client's tz, then UTC", () => {
    const summary = (r: { zone: Zone; source: string }) => [r.source, r.zone.offset(ms('2026-01-15T00:00:00Z'))];
    expect(summary(userZone('Asia/Kathmandu', '-09:30'))).toEqual(['catalog', 345]);
    expect(summary(userZone('not a zone', '-09:30'))).toEqual(['client', -570]);
    expect(summary(userZone(undefined, undefined))).toEqual(['default', 0]);
  });
});

describe('a user at +05:45 (Nepal, as a fixed offset and by name)', () => {
  it.each(['+05:45', 'Asia/Kathmandu'])('%s: send at 09:00 local, today or tomorrow', (z) => {
    expect(at(z, '2026-01-15T03:00:00Z', { send: '09:00' })).toBe('2026-01-15T03:15:00.000Z'); // 08:45 local
    expect(at(z, '2026-01-15T03:15:00Z', { send: '09:00' })).toBe('2026-01-15T03:15:00.000Z'); // exactly 09:00
    expect(at(z, '2026-01-15T04:00:00Z', { send: '09:00' })).toBe('2026-01-16T03:15:00.000Z'); // 09:45 local
  });

  it.each(['+05:45', 'Asia/Kathmandu'])('%s: quiet hours 21:00–08:00', (z) => {
    expect(at(z, '2026-01-15T15:30:00Z', { quiet: NIGHT })).toBe('2026-01-16T02:15:00.000Z'); // 21:15 local → 08:00 next day
    expect(at(z, '2026-01-15T20:00:00Z', { quiet: NIGHT })).toBe('2026-01-16T02:15:00.000Z'); // 01:45 local
    expect(at(z, '2026-01-16T02:15:00Z', { quiet: NIGHT })).toBe('2026-01-16T02:15:00.000Z'); // 08:00: over
    expect(at(z, '2026-01-15T15:14:00Z', { quiet: NIGHT })).toBe('2026-01-15T15:14:00.000Z'); // 20:59 local
  });
});

describe('a user at −09:30 (Marquesas)', () => {
  it.each(['-09:30', 'Pacific/Marquesas'])('%s: send at 09:00 local', (z) => {
    expect(at(z, '2026-01-15T18:00:00Z', { send: '09:00' })).toBe('2026-01-15T18:30:00.000Z'); // 08:30 local
    expect(at(z, '2026-01-15T20:00:00Z', { send: '09:00' })).toBe('2026-01-16T18:30:00.000Z'); // 10:30 local
  });

  it.each(['-09:30', 'Pacific/Marquesas'])('%s: quiet hours 21:00–08:00, across the UTC date', (z) => {
    expect(at(z, '2026-01-16T07:00:00Z', { quiet: NIGHT })).toBe('2026-01-16T17:30:00.000Z'); // 21:30 on the 15th local
    expect(at(z, '2026-01-16T16:00:00Z', { quiet: NIGHT })).toBe('2026-01-16T17:30:00.000Z'); // 06:30 on the 16th local
    expect(at(z, '2026-01-16T18:00:00Z', { quiet: NIGHT })).toBe('2026-01-16T18:00:00.000Z'); // 08:30: not quiet
  });
});

describe('America/New_York across its DST changes', () => {
  const NY = 'America/New_York';

  it('09:00 local is 14:00Z before the March change and 13:00Z after it', () => {
    expect(at(NY, '2026-03-07T12:00:00Z', { send: '09:00' })).toBe('2026-03-07T14:00:00.000Z'); // 07:00 EST
    // 10:00 EST on the 7th: the next 09:00 is on the 8th, in EDT, 23 hours later.
    expect(at(NY, '2026-03-07T15:00:00Z', { send: '09:00' })).toBe('2026-03-08T13:00:00.000Z');
    expect(at(NY, '2026-03-08T12:00:00Z', { send: '09:00' })).toBe('2026-03-08T13:00:00.000Z'); // 08:00 EDT
  });

  it('09:00 local is 13:00Z before the November change and 14:00Z after it', () => {
    expect(at(NY, '2026-10-31T12:00:00Z', { send: '09:00' })).toBe('2026-10-31T13:00:00.000Z'); // 08:00 EDT
    // 10:00 EDT on the 31st: the next 09:00 is on 1 November, in EST, 25 hours later.
    expect(at(NY, '2026-10-31T14:00:00Z', { send: '09:00' })).toBe('2026-11-01T14:00:00.000Z');
  });

  it('quiet hours ending in the skipped hour (02:30 on 8 March) end when the clocks jump to 03:00', () => {
    expect(at(NY, '2026-03-08T06:30:00Z', { quiet: ['21:00', '02:30'] })).toBe('2026-03-08T07:00:00.000Z'); // 01:30 EST
    expect(at(NY, '2026-03-08T02:30:00Z', { quiet: ['21:00', '02:30'] })).toBe('2026-03-08T07:00:00.000Z'); // 21:30 EST on the 7th
    expect(at(NY, '2026-03-08T07:00:00Z', { quiet: ['21:00', '02:30'] })).toBe('2026-03-08T07:00:00.000Z'); // 03:00 EDT: over
    // The next night, 02:30 exists again (EDT).
    expect(at(NY, '2026-03-09T05:00:00Z', { quiet: ['21:00', '02:30'] })).toBe('2026-03-09T06:30:00.000Z');
  });

  it('a send time in the skipped hour is the jump', () => {
    expect(at(NY, '2026-03-08T05:00:00Z', { send: '02:30' })).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(localInstant(zone(NY), { year: 2026, month: 3, day: 8 }, hhmm('02:30')))).toBe('2026-03-08T07:00:00.000Z');
  });

  it('a repeated local time (01:30 on 1 November) is its first occurrence; quiet hours that ended do not start again', () => {
    expect(iso(localInstant(zone(NY), { year: 2026, month: 11, day: 1 }, hhmm('01:30')))).toBe('2026-11-01T05:30:00.000Z'); // EDT
    const quiet: [string, string] = ['21:00', '01:30'];
    expect(at(NY, '2026-11-01T05:20:00Z', { quiet })).toBe('2026-11-01T05:30:00.000Z'); // 01:20 EDT
    expect(at(NY, '2026-11-01T06:10:00Z', { quiet })).toBe('2026-11-01T06:10:00.000Z'); // 01:10 EST: ended at 01:30 EDT
  });

  it('quiet hours that started in the repeated hour hold through its second pass', () => {
    // 01:15–06:00: started at 01:15 EDT (05:15Z); 01:05 EST (06:05Z) is inside; they end at 06:00 EST.
    expect(at(NY, '2026-11-01T06:05:00Z', { quiet: ['01:15', '06:00'] })).toBe('2026-11-01T11:00:00.000Z');
    expect(at(NY, '2026-11-01T05:10:00Z', { quiet: ['01:15', '06:00'] })).toBe('2026-11-01T05:10:00.000Z'); // 01:10 EDT: before
  });
});

describe('quiet hours within one day, and both rules', () => {
  it('12:00–14:00 holds only between them', () => {
    const z = zone('+00:00');
    const quiet = { start: hhmm('12:00'), end: hhmm('14:00') };
    expect(
      [ms('2026-01-15T11:59:00Z'), ms('2026-01-15T12:00:00Z'), ms('2026-01-15T13:59:00Z'), ms('2026-01-15T14:00:00Z')].map((t) => quietHoursEnd(z, t, quiet)),
    ).toEqual([undefined, ms('2026-01-15T14:00:00Z'), ms('2026-01-15T14:00:00Z'), undefined]);
  });

  it('equal start and end are no quiet hours', () => {
    expect(quietHoursEnd(zone('Z'), ms('2026-01-15T09:00:00Z'), { start: 540, end: 540 })).toBeUndefined();
  });

  it('send_at_local first, then quiet hours; neither: the trigger instant', () => {
    expect(at('+05:45', '2026-01-15T16:00:00Z', { send: '09:00', quiet: NIGHT })).toBe('2026-01-16T03:15:00.000Z'); // 21:45 local → 09:00
    expect(at('+05:45', '2026-01-15T16:00:00Z', {})).toBe('2026-01-15T16:00:00.000Z');
  });
});
