const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `+05:30` for 330 minutes east of UTC (the envelope `tz`, spec 2.1). */
export function tzOf(offsetMin: number): string {
  const a = Math.abs(offsetMin);
  return `${offsetMin < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** The spec sample form `YYYY-MM-DD HH:mm:ss.SSS`, local time at `offsetMin` (the envelope tz says which). */
export function localTime(ms: number, offsetMin: number): string {
  const d = new Date(ms + offsetMin * 60_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

/** `sent_at`: ISO 8601 UTC with milliseconds. */
export const isoUtc = (ms: number) => new Date(ms).toISOString();
