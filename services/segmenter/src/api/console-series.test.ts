import { formatDateTime64 } from '@evp/clickhouse';
import { useMigratedChdb } from '@evp/testkit';
import { TABLES, eventRow, rejectedRow } from '../sink';
import { pageEvent, rejectedRecord } from '../testing';
import { campaignActivity } from '../campaigns';
import { memberCounts, membershipHistory } from '../segments';
import { appHealth } from './health';

// The console's series on chdb with every migration, each checked against the rows seeded here.
const chdb = useMigratedChdb('consoleseries');
const APP = 'app-s';
const HOUR = 3_600_000;
const MIN = 60_000;
/** The series are read at NOW: half past an hour, 30 s into a minute. */
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 30 * MIN + 30_000;
const HOUR0 = Math.floor(NOW / HOUR) * HOUR;
const MIN0 = Math.floor(NOW / MIN) * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
const t = formatDateTime64;

describe('the console’s series', () => {
  beforeAll(async () => {
    const a = chdb.analytics;
    // Campaign k1 requested u1, u2, u3 (run 1) and u1 again (run 2); k2 requested u9. Created: k1's u1
    // and u2 this hour, u3 two hours ago, u1's second run 30 hours ago (outside 24 h); k2's u9 this
    // hour; an entry of an unrequested user and a delivered entry do not count; nor another app's;
    // nor a re-sent entry.
    const outcome = (campaign: string, inv: number, user: string, app = APP) => ({
      app_id: app,
      campaign_id: campaign,
      inv_id: inv,
      user_id: user,
      variant: 1,
      action_id: 7,
      outcome: 'requested',
      reason: '',
      trigger: 'api',
      at: t(NOW - 40 * HOUR),
    });
    await a.insert('campaign_outcomes', [
      outcome('k1', 1, 'u1'),
      outcome('k1', 1, 'u2'),
      outcome('k1', 1, 'u3'),
      outcome('k1', 2, 'u1'),
      outcome('k2', 3, 'u9'),
      outcome('k1', 1, 'u4', 'other'),
    ]);
    const log = (inv: number, user: string, at: number, kind = 'created', app = APP) => ({
      entry_id: `${app}-${inv}-${user}-${kind}`,
      app_id: app,
      user_id: user,
      inv_id: inv,
      action_id: 7,
      kind,
      at: t(at),
      created_at: t(at),
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
      expired_at: null,
      tags: [],
      attr: {},
      source: '',
      reason: '',
    });
    await a.insert('actions_log', [
      log(1, 'u1', HOUR0 + MIN),
      log(1, 'u2', HOUR0 + 2 * MIN),
      log(1, 'u3', HOUR0 - 2 * HOUR),
      log(2, 'u1', NOW - 30 * HOUR),
      log(3, 'u9', HOUR0 + MIN),
      log(1, 'u1', HOUR0 + 3 * MIN, 'delivered'),
      log(1, 'u5', HOUR0 + MIN),
      log(1, 'u4', HOUR0 + MIN, 'created', 'other'),
    ]);
    // The relay re-sent u1's entry (same entry id, another insert): still one action.
    await a.insert('actions_log', [log(1, 'u1', HOUR0 + MIN)]);

    // Segment s1: m1 entered an hour ago, exited this hour (seq 2, a later write: both changes still
    // unmerged; each row written twice, emitted false then true, as the engine does); m2 entered this
    // hour; m3 entered 3 hours ago. One insert's rows of a key are collapsed at once (as a merge would).
    const member = (segment: string, user: string, seq: number, isMember: boolean, entered: number, exited: number | null) =>
      [false, true].map((emitted) => ({
        app_id: APP,
        segment_id: segment,
        user_id: user,
        is_member: isMember,
        entered_at: t(entered),
        exited_at: exited === null ? null : t(exited),
        version: 1,
        seq,
        emitted,
        state_version: seq * 2 + (emitted ? 1 : 0),
        written_at: t(NOW),
      }));
    await a.insert('segment_members', member('s1', 'm1', 1, true, HOUR0 - HOUR + MIN, null));
    await a.insert('segment_members', [
      ...member('s1', 'm1', 2, false, HOUR0 - HOUR + MIN, HOUR0 + MIN),
      ...member('s1', 'm2', 1, true, HOUR0 + 2 * MIN, null),
      ...member('s1', 'm3', 1, true, HOUR0 - 3 * HOUR, null),
      ...member('s2', 'm1', 1, true, HOUR0, null),
    ]);

    // Intake: this minute 3 events (one sent twice: counted once), stored 1 s, 2 s and 4 s after receipt;
    // two minutes ago 1 event (0.5 s) and 2 rejections; an hour and a half ago 1 event (outside 60 minutes).
    const event = (id: string, received: number, storedAfter: number) => ({
      ...eventRow({ ...pageEvent, app_id: APP, event_id: id, received_at: received }),
      inserted_at: t(received + storedAfter),
    });
    await a.insert(TABLES.events, [
      event('e1', MIN0 + 1000, 1000),
      event('e2', MIN0 + 2000, 2000),
      event('e3', MIN0 + 3000, 4000),
      event('e3', MIN0 + 3000, 4000),
      event('e4', MIN0 - 2 * MIN, 500),
      event('e5', NOW - 90 * MIN, 100),
    ]);
    await a.insert(TABLES.rejected, [
      rejectedRow({ ...rejectedRecord, app_id: APP, rejection_id: 'r1', received_at: MIN0 - 2 * MIN + 5 }),
      rejectedRow({ ...rejectedRecord, app_id: APP, rejection_id: 'r2', received_at: MIN0 - 2 * MIN + 6 }),
    ]);
    const letter = (id: string, group: string, failed: number) => ({
      dead_letter_id: id,
      app_id: APP,
      source_topic: 'actions.requested',
      source_partition: 0,
      source_offset: '1',
      source_key: null,
      consumer_group: group,
      error_kind: 'unreadable',
      error_message: 'not json',
      error_retriable: false,
      processor: 'action-store',
      processor_version: '0.1.0',
      failed_at: t(failed),
      replay_of: null,
      replay_count: 0,
      headers: {},
      payload: 'x',
      payload_encoding: 'utf8',
      payload_bytes: 1,
      payload_truncated: false,
    });
    await a.insert('dead_letters', [
      letter('d1', 'g-b', NOW - MIN),
      letter('d2', 'g-a', NOW - 2 * MIN),
      letter('d3', 'g-b', NOW - 3 * MIN),
      letter('d4', 'g-a', NOW - 2 * HOUR),
    ]);
  });

  it('counts actions created per campaign and hour, of the runs each campaign requested', async () => {
    expect(await campaignActivity(chdb.analytics, APP, 24, NOW)).toEqual([
      { campaign_id: 'k1', hour: iso(HOUR0 - 2 * HOUR), created: 1 },
      { campaign_id: 'k1', hour: iso(HOUR0), created: 2 },
      { campaign_id: 'k2', hour: iso(HOUR0), created: 1 },
    ]);
    expect(await campaignActivity(chdb.analytics, APP, 1, NOW)).toEqual([
      { campaign_id: 'k1', hour: iso(HOUR0), created: 2 },
      { campaign_id: 'k2', hour: iso(HOUR0), created: 1 },
    ]);
  });

  it('counts each change of membership once, in the hour it happened', async () => {
    expect(await membershipHistory(chdb.analytics, APP, 's1', 24, NOW)).toEqual([
      { hour: iso(HOUR0 - 3 * HOUR), entered: 1, exited: 0 },
      { hour: iso(HOUR0 - HOUR), entered: 1, exited: 0 },
      { hour: iso(HOUR0), entered: 1, exited: 1 },
    ]);
    expect(await membershipHistory(chdb.analytics, APP, 's1', 2, NOW)).toEqual([
      { hour: iso(HOUR0 - HOUR), entered: 1, exited: 0 },
      { hour: iso(HOUR0), entered: 1, exited: 1 },
    ]);
    expect(Object.fromEntries(await memberCounts(chdb.analytics, APP))).toEqual({ s1: 2, s2: 1 });
  });

  it('gives intake per minute with freshness p95, and dead letters by group', async () => {
    expect(await appHealth(chdb.analytics, APP, 60, NOW)).toEqual({
      minutes: [
        { minute: iso(MIN0 - 2 * MIN), events: 1, rejected: 2, freshness_p95_seconds: 0.5 },
        // quantileExact(0.95) of [1, 2, 4, 4] s (the duplicate row is a row until merged): the element at ⌊0.95·4⌋ = 3.
        { minute: iso(MIN0), events: 3, rejected: 0, freshness_p95_seconds: 4 },
      ],
      dead_letters: [
        { group: 'g-a', count: 1 },
        { group: 'g-b', count: 2 },
      ],
    });
  });
});
