import type { Analytics } from '@evp/core';

/** Membership over time and member counts (the console's Segments pages, docs/console.md). Hours with nothing are left out. */

const iso = (ms: number) => new Date(ms).toISOString();
const hourStart = (ms: number) => Math.floor(ms / 3_600_000) * 3_600_000;

export interface MembershipHour {
  hour: string;
  entered: number;
  exited: number;
}

/**
 * A segment's entries and exits per hour. segment_members keeps every change until ClickHouse merges
 * a user's rows (then only the user's latest change remains), so each change is counted once by
 * (user, seq) from the rows still there: recent hours are exact, older ones at least each user's latest change.
 */
export async function membershipHistory(analytics: Analytics, appId: string, segmentId: string, hours: number, now: number): Promise<MembershipHour[]> {
  const rows = await analytics.query<{ hour_ms: number; entered: number; exited: number }>(
    `SELECT toUnixTimestamp(toStartOfHour(changed_at)) * 1000 AS hour_ms, countIf(entry) AS entered, countIf(NOT entry) AS exited
     FROM (
         SELECT user_id, seq, any(is_member) AS entry, any(if(is_member, entered_at, assumeNotNull(exited_at))) AS changed_at
         FROM segment_members
         WHERE app_id = {app:String} AND segment_id = {segment:String}
         GROUP BY user_id, seq
     )
     WHERE changed_at >= fromUnixTimestamp64Milli({from:Int64})
     GROUP BY hour_ms
     ORDER BY hour_ms`,
    { app: appId, segment: segmentId, from: hourStart(now) - (hours - 1) * 3_600_000 },
  );
  return rows.map((r) => ({ hour: iso(r.hour_ms), entered: r.entered, exited: r.exited }));
}

/** Current members of each of the app's segments (those with none are absent). */
export async function memberCounts(analytics: Analytics, appId: string): Promise<Map<string, number>> {
  const rows = await analytics.query<{ segment_id: string; members: number }>(
    `SELECT segment_id, countIf(is_member) AS members FROM segment_members FINAL WHERE app_id = {app:String} GROUP BY segment_id`,
    { app: appId },
  );
  return new Map(rows.map((r) => [r.segment_id, r.members]));
}
