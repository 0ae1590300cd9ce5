import { useMigratedChdb } from '@evp/testkit';
import { expireEndedMemberships } from './expire-ended';

// Ended memberships expire by key, never by row (why: expire-ended.ts), on chdb.
const chdb = useMigratedChdb('expire');
const DAY_MS = 86_400_000;
const NOW = Date.parse('2026-06-30T00:00:00Z');
const at = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** One version of a key, each insert a part of its own (as the segmenter writes them, one batch at a time). */
async function change(app: string, user: string, seq: number, isMember: boolean, changedMs: number, marks = [false, true]) {
  for (const emitted of marks)
    await chdb.analytics.command(
      `INSERT INTO segment_members (app_id, segment_id, user_id, is_member, entered_at, exited_at, version, seq, emitted, state_version, written_at)
       VALUES ('${app}', 's', '${user}', ${isMember}, '${at(NOW - 100 * DAY_MS)}', ${isMember ? 'NULL' : `'${at(changedMs)}'`}, 1, ${seq}, ${emitted}, ${seq * 2 + (emitted ? 1 : 0)}, '${at(changedMs)}')`,
    );
}

const members = async (app: string) =>
  (
    await chdb.analytics.query<{ user_id: string; is_member: boolean }>(
      `SELECT user_id, is_member FROM segment_members FINAL WHERE app_id = {app:String} ORDER BY user_id`,
      { app },
    )
  ).map((r) => `${r.user_id}:${r.is_member ? 'in' : 'out'}`);

const floors = () => chdb.analytics.query(`SELECT app_id, segment_id, floor FROM segment_seq_floors FINAL ORDER BY app_id, segment_id`);

describe('ended memberships expire by key', () => {
  it('deletes every version of a membership that ended more than the days ago; a recent exit, a re-entry, a pending exit and another app stay', async () => {
    for (const app of ['clinic', 'other']) {
      await change(app, 'left', 1, true, NOW - 100 * DAY_MS);
      await change(app, 'left', 2, false, NOW - 40 * DAY_MS);
    }
    await change('clinic', 'recent', 1, true, NOW - 100 * DAY_MS);
    await change('clinic', 'recent', 2, false, NOW - 10 * DAY_MS);
    await change('clinic', 'back', 1, true, NOW - 100 * DAY_MS);
    await change('clinic', 'back', 2, false, NOW - 60 * DAY_MS);
    await change('clinic', 'back', 3, true, NOW - 50 * DAY_MS);
    // An exit whose record is not known to be on the topic (emitted false only): the engine's
    // recovery publishes it first; the expiry leaves it.
    await change('clinic', 'pending', 1, true, NOW - 100 * DAY_MS);
    await change('clinic', 'pending', 2, false, NOW - 40 * DAY_MS, [false]);
    expect(await expireEndedMemberships(chdb.analytics, 'clinic', 30, NOW)).toEqual({ keys: 1, segments: 1 });
    expect(await members('clinic')).toEqual(['back:in', 'pending:out', 'recent:out']);
    // No version of 'left' is left to come back (merges may have folded the others' versions
    // already), not even on disk: the deleted mask was applied.
    expect(
      await chdb.analytics.query(
        `SELECT toString(count()) AS n FROM segment_members WHERE app_id = 'clinic' AND user_id = 'left' SETTINGS apply_deleted_mask = 0`,
      ),
    ).toEqual([{ n: '0' }]);
    // The segment's seq floor was raised to the deleted key's last seq first; the other app has none.
    expect(await floors()).toEqual([{ app_id: 'clinic', segment_id: 's', floor: 2 }]);
    expect(await members('other')).toEqual(['left:out']);
    // Forever (0) deletes nothing; a second run finds nothing more.
    expect(await expireEndedMemberships(chdb.analytics, 'other', 0, NOW)).toEqual({ keys: 0, segments: 0 });
    expect(await expireEndedMemberships(chdb.analytics, 'clinic', 30, NOW)).toEqual({ keys: 0, segments: 0 });
    expect(await members('other')).toEqual(['left:out']);
    expect(await members('clinic')).toEqual(['back:in', 'pending:out', 'recent:out']);
    expect(await floors()).toEqual([{ app_id: 'clinic', segment_id: 's', floor: 2 }]);
  });
});
