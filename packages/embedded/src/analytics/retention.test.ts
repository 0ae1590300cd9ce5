import { RETENTION_COLUMN, restampRetention, retentionTables } from '@evp/clickhouse';
import { RETENTION_CLASS_NAMES, type RetentionClass } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';

// Retention on the embedded engine (docs/privacy.md, "Retention"): every table of every class, as
// the migrations leave it (partitioned by month and stamp, ttl_only_drop_parts), drops the whole part
// of a row once its stamped days are over, keeps a row stamped 0 (forever) and a row whose days are
// not over, in the parts they were inserted as; and the one-off step moves an app's old rows.
const chdb = useMigratedChdb('retention');
const DAY_MS = 86_400_000;

/** The time each table's TTL counts from (016_retention.sql). */
const TIME_COLUMN: Record<string, string> = {
  events: 'time',
  rejected: 'received_at',
  dead_letters: 'failed_at',
  ingest_receipts: 'received_at',
  actions_log: 'created_at',
  campaign_outcomes: 'at',
  rejected_whole: 'received_at',
};
const timeColumn = (table: string) => TIME_COLUMN[table] ?? (table.startsWith('catalog_') ? 'received_at' : undefined);

const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** One row per app (app_id leads every sorting key, so no two collapse), with only the columns that matter here. */
async function insert(table: string, rows: { app: string; atMs: number; days: number }[]) {
  const col = timeColumn(table) as string;
  const values = rows.map((r) => `('${r.app}', '${chTime(r.atMs)}', ${r.days})`).join(', ');
  await chdb.analytics.command(`INSERT INTO ${table} (app_id, ${col}, ${RETENTION_COLUMN}) VALUES ${values}`);
}

const apps = async (table: string) => (await chdb.analytics.query<{ app_id: string }>(`SELECT app_id FROM ${table} ORDER BY app_id`)).map((r) => r.app_id);

const month = (ms: number) => new Date(ms).toISOString().slice(0, 7).replace('-', '');

/** The active parts of a table by partition id. */
async function activeParts(table: string): Promise<Record<string, string[]>> {
  const rows = await chdb.analytics.query<{ partition_id: string; name: string }>(
    `SELECT partition_id, name FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active ORDER BY partition_id, name`,
    { table },
  );
  const out: Record<string, string[]> = {};
  for (const r of rows) (out[r.partition_id] ??= []).push(r.name);
  return out;
}

const rowsIn = async (table: string, partition: string) =>
  Number(
    (
      await chdb.analytics.query<{ n: string }>(
        `SELECT toString(sum(rows)) AS n FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active AND partition_id = {partition:String}`,
        { table, partition },
      )
    )[0]?.n,
  );

/**
 * TTL runs at merges: the server schedules a TTL merge of an expired part by itself; OPTIMIZE of
 * the expired row's partition alone (no other partition is merged) makes it happen now. Polled until
 * the expected rows are left, with a deadline.
 */
async function expire(table: string, partition: string, expected: string[], deadlineMs = 30_000): Promise<string[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    await chdb.analytics.command(`OPTIMIZE TABLE ${table} PARTITION ID {partition:String}`, { partition });
    const left = await apps(table);
    if (JSON.stringify(left) === JSON.stringify(expected) || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('retention per class on chdb', () => {
  it('stamps every table of a class, and every stamped table is in a class', async () => {
    const tables = await retentionTables(chdb.analytics);
    expect(tables.events).toEqual(['events']);
    expect(tables.rejected).toEqual(['dead_letters', 'ingest_receipts', 'rejected']);
    expect(tables.action_log).toEqual(['actions_log']);
    expect(tables.history).toEqual(['campaign_outcomes']);
    expect(tables.catalogs).toHaveLength(17);
    const all = (
      await chdb.analytics.query<{ t: string }>(`SELECT DISTINCT table AS t FROM system.columns WHERE database = currentDatabase() AND name = 'retention_days'`)
    ).length;
    expect(Object.values(tables).flat()).toHaveLength(all);
    // Rows written before the migration read as kept forever, but for the receipts' earlier 30 days.
    const defaults = await chdb.analytics.query<{ table: string; default_expression: string }>(
      `SELECT table, default_expression FROM system.columns WHERE database = currentDatabase() AND name = 'retention_days' AND default_expression != '0' ORDER BY table`,
    );
    expect(defaults).toEqual([{ table: 'ingest_receipts', default_expression: '30' }]);
  });

  it.each(RETENTION_CLASS_NAMES)(
    '%s: an expired row goes with its whole part; a forever row and a younger one stay, their parts untouched',
    async (cls: RetentionClass) => {
      const tables = (await retentionTables(chdb.analytics))[cls];
      expect(tables.length).toBeGreaterThan(0);
      const now = Date.now();
      const before: Record<string, Record<string, string[]>> = {};
      for (const table of tables) {
        // 'short' is one day old less 4 s: inside its day at insert (kept), past it 4 s later. Each
        // stamp is a partition of its own, so each row is a part of its own.
        await insert(table, [
          { app: 'forever', atMs: now - 400 * DAY_MS, days: 0 },
          { app: 'short', atMs: now - DAY_MS + 4_000, days: 1 },
          { app: 'younger', atMs: now - DAY_MS, days: 2 },
        ]);
        expect(await apps(table)).toEqual(['forever', 'short', 'younger']);
        before[table] = await activeParts(table);
      }
      await new Promise((r) => setTimeout(r, 4_500));
      for (const table of tables) {
        const shortPartition = `${month(now - DAY_MS + 4_000)}-1`;
        expect([table, await expire(table, shortPartition, ['forever', 'younger'])]).toEqual([table, ['forever', 'younger']]);
        const after = await activeParts(table);
        // The expired part was dropped (an empty part stands in for it until the next merge), not rewritten
        // row by row; the parts of the rows that stay are the very parts they were inserted as.
        expect([table, await rowsIn(table, shortPartition)]).toEqual([table, 0]);
        for (const [partition, parts] of Object.entries(before[table] ?? {}))
          if (partition !== shortPartition) expect([table, after[partition]]).toEqual([table, parts]);
      }
    },
  );

  it('keeps a row past its days while its part holds a row that is not: the part goes as a whole', async () => {
    const now = Date.now();
    const expiredAt = now - DAY_MS + 4_000;
    // A sibling in the same insert and partition (same month, same stamp), an hour younger; within
    // the month (the partition), however close its end is.
    const nextMonth = Date.UTC(new Date(expiredAt).getUTCFullYear(), new Date(expiredAt).getUTCMonth() + 1);
    const siblingAt = Math.min(expiredAt + 3_600_000, nextMonth - 1);
    // A table of its own, as rejected is (CREATE … AS copies the engine, key and settings), so no part
    // of the tests above shares the partition.
    await chdb.analytics.command('CREATE TABLE IF NOT EXISTS rejected_whole AS rejected');
    await insert('rejected_whole', [
      { app: 'whole-a', atMs: expiredAt, days: 1 },
      { app: 'whole-b', atMs: siblingAt, days: 1 },
    ]);
    await new Promise((r) => setTimeout(r, 4_500));
    const partition = `${month(expiredAt)}-1`;
    // What made the lone expired parts above go: here it finds no part wholly expired, so no TTL merge.
    // (A merge the part takes part in for other reasons drops its expired rows on the way.)
    await chdb.analytics.command(`OPTIMIZE TABLE rejected_whole PARTITION ID '${partition}'`);
    expect(await rowsIn('rejected_whole', partition)).toBe(2);
    expect(await apps('rejected_whole')).toEqual(['whole-a', 'whole-b']);
  });

  it('re-stamps an app’s older rows with a shorter retention by the one-off step, leaving other apps alone', async () => {
    const now = Date.now();
    // Written under "forever": 10 and 2 days old, for the app and for another app; and 'half', as a
    // run that died between its copy and its deletion leaves it: the old row and its copy both there.
    await chdb.analytics.command(
      `INSERT INTO events (app_id, user_id, event_id, time, retention_days) VALUES
       ('clinic', 'u', 'old', '${chTime(now - 10 * DAY_MS)}', 0), ('clinic', 'u', 'new', '${chTime(now - 2 * DAY_MS)}', 0),
       ('clinic', 'u', 'half', '${chTime(now - 3 * DAY_MS)}', 0), ('clinic', 'u', 'half', '${chTime(now - 3 * DAY_MS)}', 7),
       ('other', 'u', 'old', '${chTime(now - 10 * DAY_MS)}', 0)`,
    );
    const retention = { events: 7, rejected: 30, catalogs: 0, action_log: 0, history: 0 };
    const first = await restampRetention(chdb.analytics, 'clinic', retention);
    // Moved out of the app's forever partitions (one per month the rows fall in).
    expect(first).toEqual({
      restamped: { events: 3 },
      partitions: { events: [...new Set([month(now - 10 * DAY_MS), month(now - 3 * DAY_MS), month(now - 2 * DAY_MS)])].sort().map((m) => `${m}-0`) },
    });
    // 'old' (10 days) is past 7 days: not copied, so gone; the others are each there once, stamped 7.
    const rows = await chdb.analytics.query(
      `SELECT app_id, event_id, retention_days, _partition_id AS p FROM events WHERE app_id IN ('clinic', 'other') ORDER BY app_id, event_id`,
    );
    expect(rows).toEqual([
      { app_id: 'clinic', event_id: 'half', retention_days: 7, p: `${month(now - 3 * DAY_MS)}-7` },
      { app_id: 'clinic', event_id: 'new', retention_days: 7, p: `${month(now - 2 * DAY_MS)}-7` },
      { app_id: 'other', event_id: 'old', retention_days: 0, p: `${month(now - 10 * DAY_MS)}-0` },
    ]);
    // Run again: nothing left to change.
    expect(await restampRetention(chdb.analytics, 'clinic', retention)).toEqual({ restamped: {}, partitions: {} });
  });
});
