/** `sent_at`: ISO 8601 UTC with milliseconds. */
export const isoUtc = (ms: number) => new Date(ms).toISOString();

/** `+05:30` for 330 minutes east of UTC (the envelope `tz`, spec 2.1): the hours and minutes of the ISO form of that many minutes after the epoch (offsets are under 24 h). */
export const tzOf = (offsetMin: number): string => (offsetMin < 0 ? '-' : '+') + isoUtc(Math.abs(offsetMin) * 60_000).slice(11, 16);

/** The spec sample form `YYYY-MM-DD HH:mm:ss.SSS`, local time at `offsetMin` (the envelope tz says which): the ISO form of the shifted instant without `T` and `Z`. */
export const localTime = (ms: number, offsetMin: number): string =>
  isoUtc(ms + offsetMin * 60_000)
    .replace('T', ' ')
    .slice(0, -1);
