/**
 * Timestamps on the wire: `queued_at` is UTC with microseconds (spec 2.5); `expired_at` is
 * ISO 8601 with an offset, and Go's zero time `0001-01-01T00:00:00Z` means "never".
 */

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `2025-01-31T12:00:00.123456Z` from epoch ms (fractional ms carry the microseconds). */
export function formatMicros(epochMs: number): string {
  const micros = Math.round(epochMs * 1000);
  const ms = Math.floor(micros / 1000);
  const sub = micros - ms * 1000;
  return `${new Date(ms).toISOString().slice(0, 23)}${pad(sub, 3)}Z`;
}

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Epoch ms of an RFC 3339 timestamp with offset, or undefined when malformed or not a real date.
 * Written by hand because `Date.parse` varies on more than 3 fraction digits and on years < 100.
 */
export function parseIsoWithOffset(s: string): number | undefined {
  const m = ISO_WITH_OFFSET.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  d.setUTCHours(hour, minute, second, 0);
  const fraction = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const zone = m[8] as string;
  let offsetMin = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const [oh, om] = zone.slice(1).split(':').map(Number) as [number, number];
    if (oh > 23 || om > 59) return undefined;
    offsetMin = sign * (oh * 60 + om);
  }
  return d.getTime() + fraction - offsetMin * 60_000;
}

const ZERO_TIME_MS = parseIsoWithOffset('0001-01-01T00:00:00Z') as number;

/** Expiry instant in epoch ms, or null for "never" (any spelling of the zero time). */
export function expiryMs(expiredAt: string): number | null {
  const ms = parseIsoWithOffset(expiredAt);
  if (ms === undefined) throw new Error(`not an ISO 8601 timestamp with offset: ${expiredAt}`);
  return ms === ZERO_TIME_MS ? null : ms;
}

/** An RFC 3339 timestamp without its fractional seconds (`…:00.999+02:00` → `…:00+02:00`); other text unchanged. */
export const wholeSeconds = (iso: string): string => iso.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d+(?=Z|[+-]\d{2}:\d{2}$)/, '$1');
