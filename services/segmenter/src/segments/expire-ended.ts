import type { Analytics } from '@evp/core';
import { floorsBySegment, raiseFloorsOf } from './seq-floors';

/** What one expiry of an app deleted: the (segment, user) keys, and in how many segments. */
export interface ExpiredMemberships {
  keys: number;
  segments: number;
}

/**
 * The keys of an app whose newest version (FINAL) is an exit older than the cutoff and known to be
 * on the membership topic (`emitted`): a pending exit is left to the engine's recovery first.
 */
const ENDED = `SELECT segment_id, user_id, seq FROM segment_members FINAL
  WHERE app_id = {app:String} AND NOT is_member AND emitted AND exited_at < fromUnixTimestamp64Milli({now:Int64}) - toIntervalDay({days:UInt16})`;

/**
 * Deletes the memberships of an app that ended more than `days` ago (docs/privacy.md, "Segment
 * memberships"): every version of each such (segment, user) key in one statement. Not a row TTL:
 * a TTL deletes the newest row of a key (the exit) while its older versions (the entry, the exit's
 * `emitted = false` twin) may still sit unmerged in other parts, and FINAL would show the entry
 * again. Here the keys are chosen by their newest version (FINAL) and all their rows go together, so
 * no older version outlives the newest. A key that changed again since (a re-entry is newer) is not
 * chosen.
 *
 * Before anything is deleted, each segment's seq floor (`segment_seq_floors`) is raised to the
 * highest seq of its keys to go, and only keys at or below their segment's floor are deleted: a key
 * the evaluator creates again starts above the floor (evaluator.ts, `firstSeq`), so the user's
 * next change is never "not above the last seq" to a consumer of the membership topic. Then the
 * deleted rows are removed from disk (APPLY DELETED MASK), so they are physically gone when this
 * returns. Forever (0 days) deletes nothing.
 */
export async function expireEndedMemberships(analytics: Analytics, appId: string, days: number, nowMs: number): Promise<ExpiredMemberships> {
  if (days === 0) return { keys: 0, segments: 0 };
  const params = { app: appId, now: nowMs, days };
  const ending = await analytics.query<{ segment_id: string; keys: number }>(
    `SELECT segment_id, toUInt32(count()) AS keys FROM (${ENDED}) GROUP BY segment_id ORDER BY segment_id`,
    params,
  );
  if (ending.length === 0) return { keys: 0, segments: 0 };
  // The floors are raised to the newest seq of the keys ended now (max over all their versions).
  await analytics.command(
    raiseFloorsOf(`app_id = {app:String} AND (segment_id, user_id) IN (SELECT segment_id, user_id FROM (${ENDED}))`, 'fromUnixTimestamp64Milli({now:Int64})'),
    params,
  );
  // Chosen again at delete time, each key checked against its segment's floor as stored: a key
  // that ended after the floors were raised (its seq above them) waits for the next round.
  await analytics.command(
    `DELETE FROM segment_members WHERE app_id = {app:String} AND (segment_id, user_id) IN (
       SELECT e.segment_id, e.user_id FROM (${ENDED}) AS e
       INNER JOIN (${floorsBySegment('app_id = {app:String}')}) AS f
       ON e.segment_id = f.segment_id
       WHERE e.seq <= f.floor)`,
    params,
  );
  // The lightweight delete only masks rows; rewriting the parts that hold them removes them from disk.
  await analytics.command('ALTER TABLE segment_members APPLY DELETED MASK');
  return { keys: ending.reduce((n, e) => n + e.keys, 0), segments: ending.length };
}
