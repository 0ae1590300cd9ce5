import type { Reason } from '../rules/registry';

/**
 * How far after the upload's receipt an event may be dated before it is flagged: 10 minutes. An event
 * fires before its upload is received, so a later time is the device's clock (drift, a wrong time
 * zone, a user-set date) or a client bug. Ordinary drift of a synced clock is seconds; 10 minutes
 * leaves room for an unsynced one without hiding hours-off clocks (the generator's events up to 15 h
 * ahead, issue 24).
 */
export const FUTURE_TIME_TOLERANCE_MS = 10 * 60 * 1000;

/**
 * The warning `future_time` for an event dated more than the tolerance after `receivedAt`; the time
 * is kept as sent. Kept rather than replaced because the device time is the only record of when the
 * event happened, and order within a session survives a skewed clock; replaced only where the upload
 * tells the skew (an upload-level sent time, as Snowplow's derived_tstamp and PostHog's sent_at
 * correction do). PostHog instead clamps times more than 23 h ahead to the receipt time, with an
 * ingestion warning: a cut-off that long would not flag the hours-off clocks seen here.
 */
export function futureTimeWarning(time: number, receivedAt: number, path: string): Reason | undefined {
  const ahead = time - receivedAt;
  if (ahead <= FUTURE_TIME_TOLERANCE_MS) return undefined;
  return {
    path,
    rule: 'future_time',
    message: `the event is dated ${describe(ahead)} after the upload was received (tolerance ${FUTURE_TIME_TOLERANCE_MS / 60_000} min): kept as sent; check the device clock and time zone`,
  };
}

function describe(ms: number): string {
  if (ms >= 3_600_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${Math.round(ms / 60_000)} min`;
}
