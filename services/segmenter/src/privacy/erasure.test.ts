import { createLogger, type Analytics } from '@evp/core';
import { ManualClock } from '@evp/actions';
import { InMemoryActionStore } from '@evp/embedded';
import { SEEDED_RECORDS, seedPerson as seedActions, useMigratedChdb } from '@evp/testkit';
import { appSnapshot, seedPerson } from '../testing';
import { createPrivacyService, type ErasureRequest } from '.';

const chdb = useMigratedChdb('privacy_erase');
const logger = createLogger('test', 'silent');
const hashKey = 'test-key';

/** Counts the statements that change data, to check one per table per batch. */
function counting(analytics: Analytics, failOnDelete?: number) {
  const deletes: string[] = [];
  const wrapped: Analytics = {
    ...analytics,
    command: async (sql, params) => {
      if (/^(DELETE|ALTER)/.test(sql)) {
        deletes.push(sql);
        if (failOnDelete !== undefined && deletes.length === failOnDelete) throw new Error('killed mid-deleting');
      }
      return analytics.command(sql, params);
    },
  };
  return { analytics: wrapped, deletes };
}

/** Every table the erasure deletes from (the default targets). */
const chdbTables = () => createPrivacyService({ analytics: chdb.analytics, logger, hashKey }).targets.map((t) => t.table);

const seeded = { events: 3, catalog_user: 1, catalog_patient: 1, rejected: 1, dead_letters: 1, segment_members: 1, campaign_outcomes: 1, actions_log: 1 };

describe('erasure in ClickHouse', () => {
  it('deletes a user and a patient everywhere with one statement per table for the batch, proves it with counts, and leaves others alone', async () => {
    const db = chdb.analytics;
    await seedPerson(db, 'era', 'u-gone', 'p-gone');
    await seedPerson(db, 'era', 'u-gone2', 'p-gone2');
    await seedPerson(db, 'era', 'u-kept', 'p-kept');
    await seedPerson(db, 'erb', 'u-gone', 'p-gone');
    const tables = Object.keys(seeded);
    const keptBefore = await appSnapshot(db, 'erb', tables);
    const { analytics, deletes } = counting(db);
    const privacy = createPrivacyService({ analytics, logger, hashKey });
    const r1 = await privacy.createErasure('era', [
      { kind: 'user', id: 'u-gone' },
      { kind: 'patient', id: 'p-gone' },
    ]);
    const r2 = await privacy.createErasure('era', [
      { kind: 'user', id: 'u-gone2' },
      { kind: 'patient', id: 'p-gone2' },
    ]);
    await privacy.runOnce();
    // One DELETE and one APPLY DELETED MASK per table for both requests, then the work table's own (once for both).
    expect(deletes).toHaveLength(privacy.targets.length * 2 + 2);
    expect(deletes.every((s) => !s.includes('u-gone') && !s.includes('p-gone'))).toBe(true);
    for (const id of [r1.id, r2.id]) {
      const done = (await privacy.get('era', 'erasure', id)) as ErasureRequest;
      expect(done.state).toBe('completed');
      expect(done.steps.map((s) => s.state)).toEqual(['accepted', 'suppressed', 'deleting', 'verifying', 'completed']);
      const before = Object.fromEntries(done.stores.filter((e) => (e.before ?? 0) > 0).map((e) => [e.store, e.before]));
      // The user's rows (rejected payload, dead letter by key, memberships…) and the patient's (catalog, events naming them).
      expect(before).toEqual({
        'clickhouse.events': 3,
        'clickhouse.catalog_user': 1,
        'clickhouse.catalog_patient': 1,
        'clickhouse.rejected': 1,
        'clickhouse.dead_letters': 1,
        'clickhouse.segment_members': 1,
        'clickhouse.campaign_outcomes': 1,
        'clickhouse.actions_log': 1,
      });
      expect(done.stores.every((e) => e.after === 0 && e.after_physical === 0 && e.state === 'completed')).toBe(true);
      expect(done.kafka.find((k) => k.topic === 'ingest.raw')?.retention_ms).toBe(3 * 24 * 3600 * 1000);
    }
    // Physically gone: no row of either person, even with the deleted mask ignored.
    for (const t of tables) {
      const [row] = await db.query<{ n: number }>(
        `SELECT count() AS n FROM ${t} WHERE app_id = 'era' AND position(toJSONString(tuple(*)), 'gone') > 0 SETTINGS apply_deleted_mask = 0`,
      );
      expect([t, row?.n]).toEqual([t, 0]);
    }
    // The work table holds no id of an ended request.
    expect(await db.query(`SELECT * FROM privacy_work SETTINGS apply_deleted_mask = 0`)).toEqual([]);
    // The other app: unchanged byte for byte; the kept person of the same app: all rows still there.
    expect(await appSnapshot(db, 'erb', tables)).toEqual(keptBefore);
    const kept = await db.query<{ n: number }>(`SELECT count() AS n FROM events WHERE app_id = 'era' AND (user_id LIKE 'u-kept%')`);
    expect(kept[0]?.n).toBe(3);
    // The request stores hashes, never the ids.
    const stored = await db.query<{ t: string }>(`SELECT toJSONString(tuple(*)) AS t FROM privacy_requests`);
    expect(stored.some((s) => s.t.includes('u-gone') || s.t.includes('p-gone'))).toBe(false);
    expect((await privacy.suppressions('era')).map((s) => s.kind).sort()).toEqual(['patient', 'patient', 'user', 'user']);
  });

  it('issues the same statements per table for 1 request as for 4: one count per phase, one DELETE and one APPLY DELETED MASK per table for the batch', async () => {
    const db = chdb.analytics;
    const perTable = async (app: string, n: number) => {
      const users = Array.from({ length: n }, (_, i) => `u-many${i}`);
      for (const u of users) await seedPerson(db, app, u, `p-${u}`);
      const statements: string[] = [];
      const inserts: string[] = [];
      const analytics: Analytics = {
        ...db,
        command: async (sql, params) => (statements.push(sql), db.command(sql, params)),
        query: async (sql, params) => (statements.push(sql), db.query(sql, params)),
        insert: async (table, rows, opts) => (inserts.push(table), db.insert(table, rows, opts)),
      };
      const privacy = createPrivacyService({ analytics, logger, hashKey });
      const ids: string[] = [];
      for (const u of users) ids.push((await privacy.createErasure(app, [{ kind: 'user', id: u }])).id);
      statements.length = 0;
      inserts.length = 0;
      await privacy.runOnce();
      // Counted by the table the statement reads or changes (its first table named after FROM or TABLE).
      const counts: Record<string, number> = {};
      for (const sql of statements) {
        const table = /\b(?:FROM|TABLE) (\w+)/.exec(sql)?.[1] ?? '?';
        if (privacy.targets.some((t) => t.table === table)) counts[table] = (counts[table] ?? 0) + 1;
      }
      // Neither the people's ids nor the requests' are in the text: a batch of 1,000 request ids written
      // out in every subquery passed max_query_size; they are bound as a parameter.
      expect(statements.filter((sql) => [...users, ...ids].some((id) => sql.includes(id)))).toEqual([]);
      for (const u of users) expect((await db.query(`SELECT user_id FROM events WHERE app_id = '${app}' AND user_id = '${u}'`)).length).toBe(0);
      // The request store too: each step's states in one insert, the batch's ids in one read.
      const store: Record<string, number> = {};
      for (const sql of statements) {
        const table = /\b(?:FROM|TABLE) (privacy_\w+)/.exec(sql)?.[1];
        if (table) store[`read ${table}`] = (store[`read ${table}`] ?? 0) + 1;
      }
      for (const table of inserts) store[`insert ${table}`] = (store[`insert ${table}`] ?? 0) + 1;
      return { counts, store };
    };
    // Count before, count after, count after with the deleted mask ignored, DELETE, APPLY DELETED MASK.
    // segment_members: a sixth, the insert of its seq floors that reads it before the DELETE.
    const five = Object.fromEntries(chdbTables().map((t) => [t, t === 'segment_members' ? 6 : 5]));
    const one = await perTable('ern1', 1);
    const four = await perTable('ern4', 4);
    expect([one.counts, four.counts]).toEqual([five, five]);
    expect(four.store).toEqual(one.store);
    // Four states stored (suppressed, deleting, verifying, ended), one suppression insert, the open
    // requests read once per pass, and privacy_work named by every target statement's subquery.
    expect(one.store).toEqual({
      'insert privacy_requests': 4,
      'insert privacy_suppressions': 1,
      'read privacy_requests': 2,
      'read privacy_work': 40,
    });
  });

  it("raises the segments' seq floors to the erased memberships' seqs before deleting them, in the person's app only", async () => {
    const db = chdb.analytics;
    await seedPerson(db, 'erf', 'u-floor', 'p-floor');
    await seedPerson(db, 'erg', 'u-floor', 'p-floor');
    // The person left s1 (seq 6) and is in s2 at seq 3; another person of the app at seq 9 in s1.
    const at = '2026-01-01 00:00:00.000';
    await db.insert('segment_members', [
      { app_id: 'erf', segment_id: 's1', user_id: 'u-floor', is_member: false, entered_at: at, exited_at: at, written_at: at, seq: 6, state_version: 12 },
      { app_id: 'erf', segment_id: 's2', user_id: 'u-floor', is_member: true, entered_at: at, written_at: at, seq: 3, state_version: 6 },
      { app_id: 'erf', segment_id: 's1', user_id: 'u-other', is_member: true, entered_at: at, written_at: at, seq: 9, state_version: 18 },
    ]);
    const privacy = createPrivacyService({ analytics: db, logger, hashKey });
    const r = await privacy.createErasure('erf', [{ kind: 'user', id: 'u-floor' }]);
    await privacy.runOnce();
    expect(((await privacy.get('erf', 'erasure', r.id)) as ErasureRequest).state).toBe('completed');
    const floors = await db.query<{ app_id: string; segment_id: string; floor: number }>(
      `SELECT app_id, segment_id, toUInt32(max(floor)) AS floor FROM segment_seq_floors WHERE app_id IN ('erf', 'erg') GROUP BY app_id, segment_id ORDER BY app_id, segment_id`,
    );
    // A lifted suppression and a new entry then start above 6 in s1 and above 3 in s2 (evaluator.ts, firstSeq).
    expect(floors).toEqual([
      { app_id: 'erf', segment_id: 's1', floor: 6 },
      { app_id: 'erf', segment_id: 's2', floor: 3 },
    ]);
    expect(await db.query(`SELECT user_id FROM segment_members WHERE app_id = 'erf' ORDER BY user_id`)).toEqual([{ user_id: 'u-other' }]);
  });

  it('resumes a request whose processor died mid-deleting, and ends completed with nothing left', async () => {
    const db = chdb.analytics;
    await seedPerson(db, 'erc', 'u-crash', 'p-crash');
    const actions = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    await seedActions(actions, 'erc', 'u-crash');
    const dying = counting(db, 5);
    const first = createPrivacyService({ analytics: dying.analytics, logger, hashKey, actions });
    const r = await first.createErasure('erc', [
      { kind: 'user', id: 'u-crash' },
      { kind: 'patient', id: 'p-crash' },
    ]);
    await expect(first.runOnce()).rejects.toThrow('killed mid-deleting');
    expect((await first.get('erc', 'erasure', r.id))?.state).toBe('deleting');
    // A new process: nothing in memory, only what was stored.
    const second = createPrivacyService({ analytics: db, logger, hashKey, actions });
    await second.runOnce();
    const done = (await second.get('erc', 'erasure', r.id)) as ErasureRequest;
    expect(done.state).toBe('completed');
    const ch = done.stores.filter((e) => e.store.startsWith('clickhouse.'));
    expect(ch.reduce((n, e) => n + (e.before ?? 0), 0)).toBe(10);
    expect(ch.every((e) => e.after === 0 && e.after_physical === 0)).toBe(true);
    expect(done.stores.find((e) => e.store === 'redis.actions')).toMatchObject({ state: 'completed', before: SEEDED_RECORDS, after: 0, keys_after: 0 });
  });

  it('ends failed, naming the store, when rows remain after the delete', async () => {
    const db = chdb.analytics;
    await seedPerson(db, 'erd', 'u-stuck', 'p-stuck');
    // A store whose delete does nothing: its rows are still there at verification.
    const noop: Analytics = { ...db, command: async (sql, params) => (sql.startsWith('DELETE FROM segment_members') ? undefined : db.command(sql, params)) };
    const privacy = createPrivacyService({ analytics: noop, logger, hashKey });
    const r = await privacy.createErasure('erd', [{ kind: 'user', id: 'u-stuck' }]);
    await privacy.runOnce();
    const done = (await privacy.get('erd', 'erasure', r.id)) as ErasureRequest;
    expect(done.state).toBe('failed');
    expect(done.failure).toEqual({ stores: ['clickhouse.segment_members'] });
    expect(done.stores.find((e) => e.store === 'clickhouse.segment_members')).toMatchObject({ state: 'failed', before: 1, after: 1, after_physical: 1 });
  });
});

describe('erasure in the action store', () => {
  const clock = () => new ManualClock(Date.UTC(2030, 0, 1));

  it('deletes the user’s actions, blocks, caps and log entries (store redis.actions, with counts); the other user and app keep theirs', async () => {
    const db = chdb.analytics;
    const actions = new InMemoryActionStore({ clock: clock() });
    for (const app of ['era2', 'erb2']) for (const user of ['u-act', 'u-act-kept']) await seedActions(actions, app, user);
    const privacy = createPrivacyService({ analytics: db, logger, hashKey, actions });
    const r = await privacy.createErasure('era2', [
      { kind: 'user', id: 'u-act' },
      { kind: 'patient', id: 'p-act' },
    ]);
    expect(r.not_covered.some((c) => c.startsWith('redis'))).toBe(false);
    await privacy.runOnce();
    const done = (await privacy.get('era2', 'erasure', r.id)) as ErasureRequest;
    expect(done.state).toBe('completed');
    const entry = done.stores.find((e) => e.store === 'redis.actions');
    expect(entry).toEqual({
      store: 'redis.actions',
      state: 'completed',
      steps: [
        { state: 'deleting', at: expect.any(String) },
        { state: 'verifying', at: expect.any(String) },
        { state: 'completed', at: expect.any(String) },
      ],
      before: SEEDED_RECORDS,
      after: 0,
      keys_after: 0,
      storage: 'in memory: nothing on disk',
    });
    expect(await actions.countPeople('era2', ['u-act'])).toEqual({ records: 0, keys: 0 });
    for (const [app, user] of [
      ['era2', 'u-act-kept'],
      ['erb2', 'u-act'],
      ['erb2', 'u-act-kept'],
    ] as const) {
      expect([app, user, (await actions.countPeople(app, [user])).records]).toEqual([app, user, SEEDED_RECORDS]);
    }
  });

  it('ends failed naming redis.actions when the action store still holds the person after the delete', async () => {
    const actions = new InMemoryActionStore({ clock: clock() });
    await seedActions(actions, 'erd2', 'u-act');
    // An action store whose erasure does nothing: its records are still there at verification.
    const stuck = {
      countPeople: actions.countPeople.bind(actions),
      erasePeople: async () => ({ before: { records: 0, keys: 0 }, after: { records: 0, keys: 0 }, storage: 'noop' }),
      personActions: actions.personActions.bind(actions),
    };
    const privacy = createPrivacyService({ analytics: chdb.analytics, logger, hashKey, actions: stuck });
    const r = await privacy.createErasure('erd2', [{ kind: 'user', id: 'u-act' }]);
    await privacy.runOnce();
    const done = (await privacy.get('erd2', 'erasure', r.id)) as ErasureRequest;
    expect(done.state).toBe('failed');
    expect(done.failure).toEqual({ stores: ['redis.actions'] });
    expect(done.stores.find((e) => e.store === 'redis.actions')).toMatchObject({ state: 'failed', before: SEEDED_RECORDS, after: SEEDED_RECORDS });
  });

  it('says in every request that the action store is not erased when it has none', async () => {
    const privacy = createPrivacyService({ analytics: chdb.analytics, logger, hashKey });
    const r = await privacy.createErasure('ere2', [{ kind: 'user', id: 'u-x' }]);
    expect(r.not_covered.filter((c) => c.startsWith('redis'))).toHaveLength(1);
  });
});
