import { RETENTION_COLUMN, restampRetention, retentionTables } from '@evp/clickhouse';
import { RETENTION_CLASS_NAMES, type RetentionClass } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';

// Retention on the embedded engine (docs/privacy.md, "Retention"): every table of every class, as
// the migrations leave it, drops a row once its stamped days are over, keeps a row stamped 0
// (forever), and keeps a row whose days are not over; and the one-off step re-stamps an app's old rows.
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

/** TTL runs at merges: OPTIMIZE … FINAL forces one; polled until the expected rows are left, with a deadline. */
async function settle(table: string, expected: string[], deadlineMs = 30_000): Promise<string[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    await chdb.analytics.command(`OPTIMIZE TABLE ${table} FINAL`);
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

  it.each(RETENTION_CLASS_NAMES)('%s: a row is gone once its days are over; a forever row and a younger one stay', async (cls: RetentionClass) => {
    const tables = (await retentionTables(chdb.analytics))[cls];
    expect(tables.length).toBeGreaterThan(0);
    const now = Date.now();
    for (const table of tables) {
      // 'short' is one day old less 4 s: inside its day at insert (kept), past it 4 s later.
      await insert(table, [
        { app: 'forever', atMs: now - 400 * DAY_MS, days: 0 },
        { app: 'short', atMs: now - DAY_MS + 4_000, days: 1 },
        { app: 'younger', atMs: now - DAY_MS, days: 2 },
      ]);
      expect(await apps(table)).toEqual(['forever', 'short', 'younger']);
    }
    await new Promise((r) => setTimeout(r, 4_500));
    for (const table of tables) expect([table, await settle(table, ['forever', 'younger'])]).toEqual([table, ['forever', 'younger']]);
  });

  it('re-stamps an app’s older rows with a shorter retention by the one-off step, leaving other apps alone', async () => {
    const now = Date.now();
    const month = (ms: number) => new Date(ms).toISOString().slice(0, 7).replace('-', '');
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
