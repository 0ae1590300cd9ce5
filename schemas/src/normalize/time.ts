/**
 * Event times arrive as `YYYY-MM-DD HH:mm:ss.SSS` (local time; the envelope's `tz` gives the offset)
 * or as ISO 8601 with an offset. Both become UTC epoch ms; anything else is rejected, never guessed.
 */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)$/i;
const OFFSET = /^(?:UTC|GMT)?\s*(Z|[+-]\d{1,2}(?::?\d{2})?)$/i;

/** Offset in minutes from `Z`, `+05:30`, `+0530`, `+05`, `UTC+5`, or undefined when not an offset. */
export function parseOffsetMinutes(tz: string): number | undefined {
  const m = OFFSET.exec(tz.trim());
  if (!m) return undefined;
  const s = m[1] as string;
  if (s.toUpperCase() === 'Z') return 0;
  const sign = s.startsWith('-') ? -1 : 1;
  const digits = s.slice(1).replace(':', '');
  const hours = Number(digits.length <= 2 ? digits : digits.slice(0, digits.length - 2));
  const minutes = digits.length <= 2 ? 0 : Number(digits.slice(-2));
  if (hours > 14 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

function utcMs(m: RegExpExecArray): number | undefined {
  // Plain locals, not a mapped array: this runs once per event.
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = Number(m[6]);
  const ms = Number(((m[7] ?? '0') + '00').slice(0, 3));
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const check = new Date(t);
  // Date.UTC rolls 2024-02-30 over to March; a real calendar date must survive the round trip.
  if (check.getUTCDate() !== d || check.getUTCMonth() !== mo - 1 || h > 23) return undefined;
  return t;
}

/** The envelope tz repeats for every event of an envelope: its offset is remembered (one entry). */
let lastTz: string | undefined;
let lastTzOffset: number | undefined;
function envelopeOffsetMinutes(tz: string): number | undefined {
  if (tz !== lastTz) {
    lastTzOffset = parseOffsetMinutes(tz);
    lastTz = tz;
  }
  return lastTzOffset;
}

export function parseEventTime(value: string, envelopeTz: string | undefined): number | undefined {
  return commonForm(value, envelopeTz) ?? parseAnyForm(value, envelopeTz);
}

/** Every accepted form, by regex: what parseEventTime returns for any input (exported for its test). */
export function parseAnyForm(value: string, envelopeTz: string | undefined): number | undefined {
  const trimmed = value.trim();
  const withOffset = WITH_OFFSET.exec(trimmed);
  if (withOffset) {
    const base = utcMs(withOffset);
    const offset = parseOffsetMinutes(withOffset[8] as string);
    return base === undefined || offset === undefined ? undefined : base - offset * 60_000;
  }
  const local = LOCAL.exec(trimmed);
  if (local && envelopeTz !== undefined) {
    const base = utcMs(local);
    const offset = envelopeOffsetMinutes(envelopeTz);
    return base === undefined || offset === undefined ? undefined : base - offset * 60_000;
  }
  return undefined;
}

/** Days per month of a common year; February of a leap year has 29. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The two digits at `i` as a number, or -1 when either is not a digit. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The two forms the SDKs send, read by position without a regex or a Date: `YYYY-MM-DD HH:mm:ss.SSS`
 * (or with `T`) in the envelope tz, and `YYYY-MM-DDTHH:mm:ss.SSSZ`. Undefined for anything else,
 * including what the regex path reads differently than plain fields would say (years below 100,
 * which Date.UTC takes as 19xx; minutes and seconds past 59, which it rolls over; dates that do
 * not exist, which it rejects): the general path then decides, so the result is always its result.
 */
function commonForm(v: string, envelopeTz: string | undefined): number | undefined {
  const len = v.length;
  let offset: number | undefined;
  if (len === 23) {
    if (envelopeTz === undefined) return undefined;
    offset = envelopeOffsetMinutes(envelopeTz);
    if (offset === undefined) return undefined;
  } else if (len === 24 && v.charCodeAt(23) === 90 /* Z */ && v.charCodeAt(10) === 84 /* T */) offset = 0;
  else return undefined;
  const sep = v.charCodeAt(10);
  if (
    v.charCodeAt(4) !== 45 ||
    v.charCodeAt(7) !== 45 ||
    (sep !== 32 && sep !== 84) ||
    v.charCodeAt(13) !== 58 ||
    v.charCodeAt(16) !== 58 ||
    v.charCodeAt(19) !== 46
  )
    return undefined;
  const y100 = two(v, 0);
  const y1 = two(v, 2);
  const mo = two(v, 5);
  const d = two(v, 8);
  const h = two(v, 11);
  const mi = two(v, 14);
  const s = two(v, 17);
  const ms10 = two(v, 20);
  const ms1 = v.charCodeAt(22) - 48;
  if (y100 < 1 || y1 < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || ms10 < 0 || ms1 < 0 || ms1 > 9)
    return undefined;
  const y = y100 * 100 + y1;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (mo === 2 && leap ? 29 : (MONTH_DAYS[mo - 1] as number))) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms10 * 10 + ms1) - offset * 60_000;
}

/**
 * True when a time has non-zero fraction digits below the millisecond (`…45.381204Z`): canonical
 * times are epoch ms, so those digits are not kept (the caller says so with a warning). Trailing
 * zeros (`.381000`) lose nothing. Call it on a time parseEventTime accepted. A scan, not a regex:
 * it runs for every event.
 */
export function hasSubMillisecondDigits(value: string): boolean {
  const dot = value.indexOf('.');
  if (dot < 0) return false;
  for (let i = dot + 4; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false; // the fraction ended (Z, an offset, a space)
    if (c !== 48) return true;
  }
  return false;
}
