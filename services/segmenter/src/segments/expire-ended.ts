import type { Analytics } from '@evp/core';

/**
 * Deletes the memberships of an app that ended more than `days` ago (docs/privacy.md, "Not under a
 * retention class"): every version of each such (segment, user) key in one statement. Not a row TTL:
 * a TTL deletes the newest row of a key (the exit) while its older versions (the entry, the exit's
 * `emitted = false` twin) may still sit unmerged in other parts, and FINAL would show the entry
 * again. Here the keys are chosen by their newest version (FINAL) and all their rows go together, so
 * no older version outlives the newest. A key that changed again since (a re-entry is newer) is not
 * chosen. Not scheduled yet: nothing calls it but its test.
 */
export async function expireEndedMemberships(analytics: Analytics, appId: string, days: number, nowMs: number): Promise<void> {
  if (days === 0) return;
  await analytics.command(
    `DELETE FROM segment_members WHERE app_id = {app:String} AND (segment_id, user_id) IN (
       SELECT segment_id, user_id FROM segment_members FINAL
       WHERE app_id = {app:String} AND NOT is_member AND exited_at < fromUnixTimestamp64Milli({now:Int64}) - toIntervalDay({days:UInt16}))`,
    { app: appId, now: nowMs, days },
  );
}
