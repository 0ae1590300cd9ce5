import { createLogger, type Analytics } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';
import { insertEvents, seedPerson, userEvent } from '../testing';
import { createPrivacyService, type ErasureRequest } from '.';
import { clickhouseTargets, WORK_TABLE } from './targets';

const chdb = useMigratedChdb('privacy_chunks');
const logger = createLogger('test', 'silent');

/** A month before seedPerson's (November 2026): events' partitions are by month, so the person's events lie in two of them. */
const OCT = Date.UTC(2026, 9, 5, 12);

/**
 * The person in two partitions of events: seedPerson's three events (November: the user's own, one
 * naming the patient in `patient_id`, one in `patient_list[].id`), an October event of the user, and
 * October events naming the patient with a type the column does not fix: `patient_id` sent as a
 * number, and a list item's `id` too. The erasure names the patient by the id as text.
 */
async function seedTwoMonths(db: Analytics, app: string, user: string, patient: string) {
  await seedPerson(db, app, user, patient);
  await insertEvents(db, [
    userEvent(app, user, 'page', OCT),
    { ...userEvent(app, `${user}-nurse`, 'patient', OCT + 1), block: 'patient_mgmt', props: { patient_id: Number(patient), action: 'view' } },
    { ...userEvent(app, `${user}-nurse`, 'incident', OCT + 2), block: 'emergency_mgmt', props: { patient_list: [{ id: 7 }, { id: Number(patient) }] } },
    // Another patient's, and an event without the path: neither names the person.
    { ...userEvent(app, `${user}-nurse`, 'patient', OCT + 3), block: 'patient_mgmt', props: { patient_id: 4242, action: 'view' } },
    { ...userEvent(app, `${user}-nurse`, 'incident', OCT + 4), block: 'emergency_mgmt', props: {} },
  ]);
}

/** Every statement the processor sends, and a run of one erasure of `user` and `patient` in `app`. */
async function erase(app: string, user: string, patient: string, chunkRows?: number) {
  const statements: string[] = [];
  const db = chdb.analytics;
  const analytics: Analytics = {
    ...db,
    command: async (sql, params) => (statements.push(sql), db.command(sql, params)),
    query: async (sql, params) => (statements.push(sql), db.query(sql, params)),
  };
  const privacy = createPrivacyService({ analytics, logger, hashKey: 'test-key', chunkRows });
  const { id } = await privacy.createErasure(app, [
    { kind: 'user', id: user },
    { kind: 'patient', id: patient },
  ]);
  statements.length = 0;
  await privacy.runOnce();
  const done = (await privacy.get(app, 'erasure', id)) as ErasureRequest;
  const events = done.stores.find((e) => e.store === 'clickhouse.events');
  return { statements, done, events };
}

const eventsLeft = async (app: string) =>
  (await chdb.analytics.query<{ user_id: string }>(`SELECT user_id FROM events WHERE app_id = '${app}' ORDER BY user_id SETTINGS apply_deleted_mask = 0`)).map(
    (r) => r.user_id,
  );

describe('erasure of a large table, one partition at a time', () => {
  it('counts and deletes the same events by partition as in one statement, reading the ids from subcolumns, numbers as their digits', async () => {
    // One app erased with events as one chunk (the default: a small table), the other one partition at a time.
    await seedTwoMonths(chdb.analytics, 'chw', 'u-whole', '4711');
    await seedTwoMonths(chdb.analytics, 'chp', 'u-parts', '4711');
    // The numbers are stored as numbers (the mismatch is real): the column's type of each patient_id.
    const types = await chdb.analytics.query<{ t: string }>(
      `SELECT dynamicType(props.patient_id) AS t FROM events WHERE app_id = 'chw' AND name = 'patient' ORDER BY time`,
    );
    expect(types.map((r) => r.t)).toEqual(['Int64', 'Int64', 'String']);
    const whole = await erase('chw', 'u-whole', '4711');
    const parts = await erase('chp', 'u-parts', '4711', 1);

    // Before: the user's 2 events, the patient's 2 as text and 2 sent as numbers (a number is
    // compared as its digits: a type mismatch would have made these 2 silently stay). After: none.
    for (const run of [whole, parts]) {
      expect([run.done.state, run.events?.before, run.events?.after, run.events?.after_physical]).toEqual(['completed', 6, 0, 0]);
    }
    // Left: the other patient's event and the one without the path, in both apps alike.
    expect(await eventsLeft('chw')).toEqual(['u-whole-nurse', 'u-whole-nurse']);
    expect(await eventsLeft('chp')).toEqual(['u-parts-nurse', 'u-parts-nurse']);

    const onEvents = (sql: string[]) => sql.filter((s) => /^(DELETE FROM|ALTER TABLE) events\b/.test(s));
    // Whole: one DELETE and one APPLY DELETED MASK. By partition: one of each per partition (October, November).
    // Each issued without waiting (mutations.ts: the DELETE's setting is after its WHERE).
    expect(onEvents(whole.statements).map((s) => s.split(' WHERE ')[0])).toEqual([
      'DELETE FROM events',
      'ALTER TABLE events APPLY DELETED MASK SETTINGS mutations_sync = 0',
    ]);
    expect(onEvents(whole.statements)[0]).toMatch(/ SETTINGS lightweight_deletes_sync = 0$/);
    expect(onEvents(parts.statements).map((s) => s.split(' WHERE ')[0])).toEqual([
      "DELETE FROM events IN PARTITION ID '202610-0'",
      "ALTER TABLE events APPLY DELETED MASK IN PARTITION ID '202610-0' SETTINGS mutations_sync = 0",
      "DELETE FROM events IN PARTITION ID '202611-0'",
      "ALTER TABLE events APPLY DELETED MASK IN PARTITION ID '202611-0' SETTINGS mutations_sync = 0",
    ]);
    // The counts too: 3 phases (before, after, after with the mask off) × 2 partitions, each naming its partition.
    const counts = parts.statements.filter((s) => /FROM events WHERE _partition_id = '\d{6}-0' AND /.test(s));
    expect(counts).toHaveLength(6);
    // Every statement on events reads the props' id paths as subcolumns, never the whole props as text
    // (≈ 50 µs a row: 150 s a count on 10M events), and names no id.
    const eventStatements = parts.statements.filter((s) => /\bFROM events\b/.test(s));
    expect(eventStatements.length).toBe(8);
    for (const s of eventStatements) {
      expect(s).toContain('toJSONString(props.`patient_id`)');
      expect(s).toContain('toJSONString(props.`patient_list`)');
      expect(s).not.toContain('toJSONString(props)');
      expect(s).not.toMatch(/u-parts|4711/);
    }
  });
});

describe('the id paths of a JSON column as subcolumns', () => {
  it("reads a map's values through the sub-object (`{}`), strings and numbers alike, and nothing from an event without the path", async () => {
    // No field of the contract is a map of ids today: a field table of the test's own says where one is.
    const [events] = clickhouseTargets([{ source: 'event', name: 'patient', block: 'patient_mgmt', path: ['care', 'contacts', '{}'], person: 'patient' }]);
    const db = chdb.analytics;
    // Written as rows (the sink's mapping keeps only the contract's properties, and this path is not one).
    const row = (user: string, props: string) => `('chm', '${user}', 'patient', '2026-11-01 12:00:00', '${props}', 'e-${user}')`;
    await db.command(
      `INSERT INTO events (app_id, user_id, name, time, props, event_id) VALUES ${[
        row('u-a', '{"care":{"contacts":{"mother":"p-map","father":"p-other"}}}'),
        row('u-b', '{"care":{"contacts":{"nurse":99}}}'),
        row('u-c', '{"care":{"contacts":{"nurse":"p-other"}}}'),
        row('u-d', '{}'),
      ].join(', ')}`,
    );
    await db.insert(WORK_TABLE, [
      { app_id: 'chm', request_id: 'r-map', kind: 'patient', id: 'p-map' },
      { app_id: 'chm', request_id: 'r-map', kind: 'patient', id: '99' },
    ]);
    const where = events?.where("request_id = 'r-map'") ?? 'false';
    expect(where).toContain('toJSONString(props.^`care`.`contacts`)');
    const found = await db.query<{ user_id: string }>(`SELECT user_id FROM events WHERE app_id = 'chm' AND (${where}) ORDER BY user_id`);
    expect(found.map((r) => r.user_id)).toEqual(['u-a', 'u-b']);
    const keys = await db.query<{ user_id: string; keys: string[] }>(
      `SELECT user_id, ${events?.keys} AS keys FROM events WHERE app_id = 'chm' ORDER BY user_id`,
    );
    expect(keys.map((r) => [r.user_id, [...r.keys].sort()])).toEqual([
      ['u-a', ['patient:p-map', 'patient:p-other', 'user:u-a']],
      ['u-b', ['patient:99', 'user:u-b']],
      ['u-c', ['patient:p-other', 'user:u-c']],
      ['u-d', ['user:u-d']],
    ]);
  });
});
