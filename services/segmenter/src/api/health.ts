import { ApiError, type Analytics } from '@evp/core';

/**
 * GET /v1/inspect/health (the console's Health page, docs/console.md): an app's events stored and
 * records rejected per minute, the freshness p95 of its events, and its dead letters by consumer
 * group, each one ClickHouse query scoped to the key's app. Minutes with nothing are left out.
 */

export const HOURS_DEFAULT = 24;
export const HOURS_MAX = 24 * 14;
export const MINUTES_DEFAULT = 60;
export const MINUTES_MAX = 24 * 60;

/** `hours` or `minutes` of a query string: an integer from 1 to max, default when absent. */
export function spanParam(q: Record<string, unknown>, name: 'hours' | 'minutes', fallback: number, max: number): number {
  const raw = q[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^[0-9]{1,5}$/.test(raw) || n < 1 || n > max) {
    throw new ApiError('invalid_request', { message: `${name} must be an integer from 1 to ${max}`, path: `query.${name}` });
  }
  return n;
}

const iso = (ms: number) => new Date(ms).toISOString();

interface HealthMinute {
  minute: string;
  events: number;
  rejected: number;
  /** 95th percentile of inserted_at − received_at of the minute's events, in seconds; null without events. */
  freshness_p95_seconds: number | null;
}

export interface AppHealth {
  minutes: HealthMinute[];
  /** The app's dead letters in the span, by consumer group. */
  dead_letters: { group: string; count: number }[];
}

/** The app's intake per minute (events stored, records rejected, freshness p95) and its dead letters by group. */
export async function appHealth(analytics: Analytics, appId: string, minutes: number, now: number): Promise<AppHealth> {
  const params = { app: appId, from: Math.floor(now / 60_000) * 60_000 - (minutes - 1) * 60_000 };
  const since = 'received_at >= fromUnixTimestamp64Milli({from:Int64})';
  const [events, rejected, letters] = await Promise.all([
    analytics.query<{ minute_ms: number; n: number; p95: number }>(
      `SELECT toUnixTimestamp(toStartOfMinute(received_at)) * 1000 AS minute_ms, uniqExact(event_id) AS n,
              quantileExact(0.95)(toFloat64(dateDiff('millisecond', received_at, inserted_at))) / 1000 AS p95
       FROM events WHERE app_id = {app:String} AND ${since} GROUP BY minute_ms`,
      params,
    ),
    analytics.query<{ minute_ms: number; n: number }>(
      `SELECT toUnixTimestamp(toStartOfMinute(received_at)) * 1000 AS minute_ms, uniqExact(rejection_id) AS n
       FROM rejected WHERE app_id = {app:String} AND ${since} GROUP BY minute_ms`,
      params,
    ),
    analytics.query<{ group: string; n: number }>(
      `SELECT consumer_group AS group, uniqExact(dead_letter_id) AS n FROM dead_letters
       WHERE app_id = {app:String} AND failed_at >= fromUnixTimestamp64Milli({from:Int64}) GROUP BY group ORDER BY group`,
      params,
    ),
  ]);
  const byMinute = new Map<number, HealthMinute>();
  const at = (ms: number): HealthMinute => {
    const m = byMinute.get(ms) ?? { minute: iso(ms), events: 0, rejected: 0, freshness_p95_seconds: null };
    byMinute.set(ms, m);
    return m;
  };
  for (const r of events) Object.assign(at(r.minute_ms), { events: r.n, freshness_p95_seconds: r.p95 });
  for (const r of rejected) at(r.minute_ms).rejected = r.n;
  return {
    minutes: [...byMinute.entries()].sort(([a], [b]) => a - b).map(([, m]) => m),
    dead_letters: letters.map((r) => ({ group: r.group, count: r.n })),
  };
}
