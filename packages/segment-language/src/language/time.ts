import { DateTime, Duration } from 'luxon';

/**
 * Windows' times. A relative window is an ISO 8601 duration back from the evaluation instant; an
 * absolute one two RFC 3339 timestamps. Both are read here, once, for validation and the compiler.
 */

/**
 * The ISO 8601 durations accepted: `P[nY][nM][nW][nD][T[nH][nM][n[.fff]S]]`, at least one part,
 * whole numbers except seconds (up to milliseconds, the precision of event times). Luxon reads more
 * (signs, fractions of any unit, an empty `P`), which a window has no use for.
 */
const DURATION = /^P(?=[0-9T])(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d{1,3})?S)?)?$/;

/** At most 100 years back: earlier than that leaves the range of event times (1900–2299). */
const MAX_MONTHS = 1200;
const DAY_MS = 86_400_000;

/**
 * A duration split as the compiler subtracts it from now: whole calendar months first (years are 12
 * months; month ends clamp, 31 March − P1M = 29 February), then a fixed number of milliseconds
 * (weeks, days, hours, minutes, seconds: in UTC a day is always 24 hours). That is also how
 * `DateTime.minus` computes it in UTC, which the tests hold the SQL to.
 */
export interface WindowDuration {
  months: number;
  millis: number;
}

export function parseDuration(text: string): WindowDuration | string {
  if (!DURATION.test(text)) {
    return `${JSON.stringify(text)} is not an ISO 8601 duration such as P30D, PT2H or P1M (whole numbers; seconds may have up to 3 decimals)`;
  }
  const d = Duration.fromISO(text);
  if (!d.isValid) return `${JSON.stringify(text)} is not an ISO 8601 duration`;
  const months = d.years * 12 + d.months;
  const millis = (d.weeks * 7 + d.days) * DAY_MS + d.hours * 3_600_000 + d.minutes * 60_000 + d.seconds * 1000 + d.milliseconds;
  if (months === 0 && millis === 0) return `${text} is empty: a window needs a duration longer than zero`;
  if (months + millis / (30 * DAY_MS) > MAX_MONTHS) return `${text} is longer than the limit of 100 years`;
  return { months, millis };
}

/** RFC 3339 with a `T`, seconds, an optional fraction of up to 3 digits and a zone (`Z` or `±hh:mm`). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/i;
const MIN_MS = Date.UTC(1900, 0, 1);
const MAX_MS = Date.UTC(2300, 0, 1);

/** An RFC 3339 timestamp → epoch ms, or why it is not one. */
export function parseTimestamp(text: string): number | string {
  const t = TIMESTAMP.test(text) ? DateTime.fromISO(text, { setZone: true }) : undefined;
  if (!t?.isValid) {
    return `${JSON.stringify(text)} is not an RFC 3339 timestamp such as 2024-03-01T00:00:00Z (seconds required, at most 3 decimals, Z or an offset)`;
  }
  const ms = t.toMillis();
  if (ms < MIN_MS || ms >= MAX_MS) return `${text} is outside the range of event times (1900–2299)`;
  return ms;
}
