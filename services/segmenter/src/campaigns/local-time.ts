import { parseOffsetMinutes } from '@evp/schemas';
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';

/**
 * When a campaign's action becomes available to a user, by the user's own clock: `send_at_local`
 * (the next such local time) and `quiet_hours` (none inside them). Pure: the trigger instant and
 * the user's zone in, an instant out (docs/campaigns.md, "Local time").
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** `HH:MM`, 24-hour, 00:00–23:59. */
const LOCAL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** `HH:MM` → minutes after midnight, or undefined when it is not one. */
export function parseLocalTime(text: string): number | undefined {
  const m = LOCAL_TIME.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

/**
 * A time zone as users' data carries it: an IANA name (`Asia/Kathmandu`, from the user catalog's
 * `timezone` or a client) or a fixed offset as clients send `tz` (`+05:45`, `-0930`, `Z`, `UTC+5`,
 * read as event times read it). Undefined when it is neither.
 */
export function parseZone(text: string | undefined): Zone | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const offset = parseOffsetMinutes(text);
  if (offset !== undefined) return FixedOffsetZone.instance(offset);
  // luxon keeps one IANAZone per name, its validity checked once: IANAZone.isValidZone builds an
  // Intl.DateTimeFormat on every call, half the CPU of planning a batch of 1,000 users (bench/campaigns).
  const zone = IANAZone.create(text);
  return zone.isValid ? zone : undefined;
}

export type ZoneSource = 'catalog' | 'client' | 'default';

/**
 * The user's zone: the user catalog's `timezone`, else the latest `tz` the client reported, else
 * UTC (`source: 'default'`, so a caller can count users whose local time was a guess).
 */
export function userZone(catalogTimezone: string | undefined, clientTz: string | undefined): { zone: Zone; source: ZoneSource } {
  const fromCatalog = parseZone(catalogTimezone);
  if (fromCatalog) return { zone: fromCatalog, source: 'catalog' };
  const fromClient = parseZone(clientTz);
  if (fromClient) return { zone: fromClient, source: 'client' };
  return { zone: FixedOffsetZone.utcInstance, source: 'default' };
}

/** A local calendar date. */
interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** Wall-clock time in `zone` at `ms`, read as if it were UTC (so wall times compare as numbers). */
const wallMs = (zone: Zone, ms: number): number => ms + zone.offset(ms) * MINUTE_MS;

/**
 * The first instant at which the local clock on `date` reads `minutes` after midnight or later.
 * A local time that happens twice (clocks set back) is its first occurrence; one that does not
 * happen (clocks set forward over it) is the moment the clocks jump, the first moment they read a
 * later time: quiet hours ending at 02:30 on a night whose 02:00–03:00 is skipped end at 03:00.
 */
export function localInstant(zone: Zone, date: LocalDate, minutes: number): number {
  const target = Date.UTC(date.year, date.month - 1, date.day) + minutes * MINUTE_MS;
  // The offsets in force around that day: an instant that shows the target must use one of them.
  const offsets = [...new Set([-DAY_MS, 0, DAY_MS].map((d) => zone.offset(target + d)))];
  const candidates = offsets.map((o) => target - o * MINUTE_MS);
  const showing = candidates.filter((ms) => wallMs(zone, ms) === target);
  if (showing.length > 0) return Math.min(...showing);
  // Skipped: between the candidates the clock jumps past the target; find the jump (to the ms).
  let lo = Math.min(...candidates);
  let hi = Math.max(...candidates);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallMs(zone, mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

function localDateOf(zone: Zone, ms: number): LocalDate {
  const t = DateTime.fromMillis(ms, { zone });
  return { year: t.year, month: t.month, day: t.day };
}

function addDays(d: LocalDate, days: number): LocalDate {
  const t = DateTime.utc(d.year, d.month, d.day).plus({ days });
  return { year: t.year, month: t.month, day: t.day };
}

/** The first instant at or after `fromMs` at which the local clock reads `minutes` (after midnight). */
function nextLocalTime(zone: Zone, fromMs: number, minutes: number): number {
  let date = localDateOf(zone, fromMs);
  // Today's, else tomorrow's; a third day only if a day's clock never reached it after fromMs (never in practice).
  for (let i = 0; i < 3; i++) {
    const at = localInstant(zone, date, minutes);
    if (at >= fromMs) return at;
    date = addDays(date, 1);
  }
  return localInstant(zone, date, minutes);
}

/**
 * When quiet hours that hold at `ms` end, or undefined when `ms` is outside them. Quiet hours are
 * the instants from `start` to `end` by the local clock (localInstant: a repeated time is its first
 * occurrence, a skipped one the jump); a start after the end spans midnight (21:00–08:00, from the
 * evening of one local date to the morning of the next). Once quiet hours have ended they do not
 * start again when the clocks are set back over their end.
 */
export function quietHoursEnd(zone: Zone, ms: number, quiet: { start: number; end: number }): number | undefined {
  if (quiet.start === quiet.end) return undefined;
  const spansMidnight = quiet.start > quiet.end;
  const today = localDateOf(zone, ms);
  // Spanning midnight, quiet hours holding now began yesterday evening or begin this evening.
  for (const startDate of spansMidnight ? [addDays(today, -1), today] : [today]) {
    const from = localInstant(zone, startDate, quiet.start);
    const to = localInstant(zone, addDays(startDate, spansMidnight ? 1 : 0), quiet.end);
    if (ms >= from && ms < to) return to;
  }
  return undefined;
}

export interface LocalTimeRules {
  /** `HH:MM` → minutes after midnight (parseLocalTime). */
  quietHours?: { start: number; end: number };
  sendAtLocal?: number;
}

/**
 * The instant a campaign's action for a user triggered at `triggerMs` should become available:
 * - `send_at_local` only: the first instant at or after the trigger when the user's clock reads it;
 * - quiet hours only: the trigger instant, or the end of quiet hours when it falls inside them;
 * - both: `send_at_local` first, then quiet hours applied to that instant (validation refuses a
 *   `send_at_local` inside quiet hours, so this moves it only across a clock change);
 * - neither: the trigger instant.
 * Never before the trigger.
 */
export function availableAt(zone: Zone, triggerMs: number, rules: LocalTimeRules): number {
  let at = rules.sendAtLocal === undefined ? triggerMs : nextLocalTime(zone, triggerMs, rules.sendAtLocal);
  if (rules.quietHours) at = quietHoursEnd(zone, at, rules.quietHours) ?? at;
  return at;
}
