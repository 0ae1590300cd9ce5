import { copyFileSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MIGRATIONS_DIR, MigrationError, loadMigrations, runMigrations } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import { chdbTestPath, testDatabase } from '@evp/testkit/src/conformance/analytics';
import { createChdbAnalytics } from './chdb-analytics';

// The repository's migrations on the embedded engine: what `migrate` does to a fresh database.
const database = testDatabase('mig');
let analytics: Analytics;

beforeAll(() => {
  analytics = createChdbAnalytics({ path: chdbTestPath(), database });
});
afterAll(async () => {
  await analytics.command(`DROP DATABASE IF EXISTS ${database}`);
  await analytics.close();
});

// The list itself is pinned by packages/clickhouse's loadMigrations test; here: what applying them does.
const ALL = loadMigrations().map((m) => m.file);

/** A database of its own with the migrations before 020 applied (the layout before the rebuilds), dropped after `run`. */
async function before020(name: string, run: (analytics: Analytics) => Promise<void>) {
  const db = testDatabase(name);
  const other = createChdbAnalytics({ path: chdbTestPath(), database: db });
  try {
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    for (const f of readdirSync(DEFAULT_MIGRATIONS_DIR).filter((f) => f < '020')) copyFileSync(join(DEFAULT_MIGRATIONS_DIR, f), join(dir, f));
    await runMigrations({ analytics: other, dir });
    await run(other);
  } finally {
    await other.command(`DROP DATABASE IF EXISTS ${db}`);
    await other.close();
  }
}

describe('runMigrations on chdb', () => {
  it('applies every migration once, records it, and is a no-op the second time', async () => {
    const first = await runMigrations({ analytics });
    expect(first).toEqual({ applied: ALL, alreadyApplied: [] });
    const second = await runMigrations({ analytics });
    expect(second).toEqual({ applied: [], alreadyApplied: ALL });
    expect(await analytics.query('SELECT version, name FROM schema_migrations FINAL ORDER BY version')).toEqual(
      loadMigrations().map((m) => ({ version: m.version, name: m.name })),
    );
    // 006 added the flat form to the envelope enum.
    expect(await analytics.query("SELECT type FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND name = 'envelope'")).toEqual([
      { type: "Enum8('current' = 1, 'earlier' = 2, 'flat' = 3)" },
    ]);
    const tables = await analytics.query<{ name: string; engine: string; partition_key: string; sorting_key: string }>(
      `SELECT name, engine, partition_key, sorting_key FROM system.tables
       WHERE database = currentDatabase() AND name IN ('events', 'rejected', 'catalog_patient', 'catalog_custom', 'segment_definitions', 'segment_members') ORDER BY name`,
    );
    expect(tables).toEqual([
      // 020, 021: partitioned by month and retention stamp, so that expiry drops whole parts.
      { name: 'catalog_custom', engine: 'ReplacingMergeTree', partition_key: '(toYYYYMM(received_at), retention_days)', sorting_key: 'app_id, kind, id' },
      { name: 'catalog_patient', engine: 'ReplacingMergeTree', partition_key: '(toYYYYMM(received_at), retention_days)', sorting_key: 'app_id, id' },
      {
        name: 'events',
        engine: 'ReplacingMergeTree',
        partition_key: '(toYYYYMM(time), retention_days)',
        sorting_key: 'app_id, toDate(time), user_id, time, event_id',
      },
      {
        name: 'rejected',
        engine: 'ReplacingMergeTree',
        partition_key: '(toYYYYMM(received_at), retention_days)',
        sorting_key: 'app_id, toDate(received_at), kind, rejection_id',
      },
      // 008: the segment engine's tables, latest version per key.
      { name: 'segment_definitions', engine: 'ReplacingMergeTree', partition_key: '', sorting_key: 'app_id, segment_id' },
      { name: 'segment_members', engine: 'ReplacingMergeTree', partition_key: '', sorting_key: 'app_id, segment_id, user_id' },
    ]);
  });

  it("013: a user's rows are found through the bloom filter of user_id, not one granule per day", async () => {
    await runMigrations({ analytics });
    // Four days of 20,000 events, one per user per day: the sorting key (app, day, user) leaves a
    // lookup of one user with about one granule per day to read; the filter drops those without them.
    await analytics.command(
      `INSERT INTO events (event_id, app_id, user_id, block, name, time, received_at, request_id, envelope)
       SELECT toString(number), 'bloom-app', concat('u', leftPad(toString(number % 20000), 5, '0')), 'core', 'page',
              toDateTime64('2026-11-01 00:00:00', 3, 'UTC') + toIntervalDay(intDiv(number, 20000)), now64(3), 'r', 'current'
       FROM numbers(80000)`,
    );
    /** Granules left by the primary key, then by the user_id filter, for a lookup of `user`. */
    const granules = async (user: string): Promise<[number, number]> => {
      const plan = (
        await analytics.query<{ explain: string }>(
          `EXPLAIN indexes = 1 SELECT count() FROM events FINAL WHERE app_id = 'bloom-app' AND has([{user:String}], user_id)`,
          { user },
        )
      ).map((r) => r.explain.trim());
      const left = (section: string) => Number(/^Granules: (\d+)\//.exec(plan.slice(plan.indexOf(section)).find((l) => l.startsWith('Granules:')) ?? '')?.[1]);
      return [left('PrimaryKey'), left('Name: user_bloom')];
    };
    // A user without events: the key alone leaves a granule or so a day, the filter none (amid the
    // others, a few false positives of the filter: fewer than the key leaves).
    expect(await granules('n-new')).toEqual([3, 0]);
    const [amidKey, amidBloom] = await granules('u12345-new');
    expect(amidBloom).toBeLessThan(amidKey);
    // A user with an event every day keeps what holds its rows.
    const [key, bloom] = await granules('u12345');
    expect(bloom).toBeGreaterThanOrEqual(1);
    expect(bloom).toBeLessThanOrEqual(key);
    expect(await analytics.query("SELECT toString(count()) AS n FROM events FINAL WHERE app_id = 'bloom-app' AND user_id = 'u12345'")).toEqual([{ n: '4' }]);
  });

  it('refuses to run when an applied migration was edited afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    for (const f of readdirSync(DEFAULT_MIGRATIONS_DIR)) copyFileSync(join(DEFAULT_MIGRATIONS_DIR, f), join(dir, f));
    writeFileSync(join(dir, '002_rejected.sql'), 'CREATE TABLE IF NOT EXISTS rejected (x String) ENGINE = MergeTree ORDER BY x;');
    await expect(runMigrations({ analytics, dir })).rejects.toThrow(MigrationError);
    await expect(runMigrations({ analytics, dir })).rejects.toThrow(/migration 002_rejected.sql was changed after it was applied/);
  });

  it('applies a new migration after the recorded ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    for (const f of readdirSync(DEFAULT_MIGRATIONS_DIR)) copyFileSync(join(DEFAULT_MIGRATIONS_DIR, f), join(dir, f));
    writeFileSync(join(dir, '900_extra.sql'), 'CREATE TABLE IF NOT EXISTS extra (x String) ENGINE = MergeTree ORDER BY x;\n');
    expect(await runMigrations({ analytics, dir })).toEqual({ applied: ['900_extra.sql'], alreadyApplied: ALL });
    expect(await analytics.query('EXISTS TABLE extra')).toEqual([{ result: 1 }]);
  });

  // A rebuild (020, 021) that died after any of its statements is run again from the start of its file.
  it.each([
    ['the copy half made', 3],
    ['the tables swapped, the old one not dropped', 4],
  ])('020 re-run after %s: every row once, the new layout, no copy left', async (_state, done) => {
    await before020('migrerun', async (other) => {
      await other.command(
        `INSERT INTO events (app_id, user_id, event_id, time, retention_days) VALUES ('a', 'u', 'e1', '2026-01-02 00:00:00', 0), ('a', 'u', 'e2', '2026-02-02 00:00:00', 3650)`,
      );
      const rebuild = loadMigrations().find((m) => m.version === 20);
      for (const statement of rebuild?.statements.slice(0, done) ?? []) await other.command(statement);
      await runMigrations({ analytics: other, quietMs: 0 });
      expect(await other.query(`SELECT event_id, retention_days, _partition_id AS p FROM events ORDER BY event_id`)).toEqual([
        { event_id: 'e1', retention_days: 0, p: '202601-0' },
        { event_id: 'e2', retention_days: 3650, p: '202602-3650' },
      ]);
      expect(await other.query(`SELECT partition_key FROM system.tables WHERE database = currentDatabase() AND name LIKE 'events%' ORDER BY name`)).toEqual([
        { partition_key: '(toYYYYMM(time), retention_days)' },
      ]);
    });
  });

  // A rebuild copies a table and swaps the copy in: a row inserted in between would be lost, so it
  // is refused while the tables it rebuilds are being written (the sinks not stopped).
  it('refuses 020 while rows are inserted into a table it rebuilds, naming it; applies it once nothing writes', async () => {
    await before020('migbusy', async (other) => {
      const insert = (id: string) => other.command(`INSERT INTO rejected (app_id, received_at, rejection_id) VALUES ('a', '2026-01-02 00:00:00', '${id}')`);
      await insert('r1');
      // A sink still running: a row arrives while the runner watches.
      let waited: number | undefined;
      const busy = runMigrations({
        analytics: other,
        sleep: async (ms) => {
          waited = ms;
          await insert('r2');
        },
      });
      await expect(busy).rejects.toThrow(MigrationError);
      await expect(busy).rejects.toThrow(
        'migration 020_retention_parts.sql rebuilds events, rejected, dead_letters, ingest_receipts, actions_log, campaign_outcomes (copy, then swap), but rows were inserted into rejected in the last 5000 ms: ' +
          'a row written between the copy and the swap would be lost. Stop every sink (the segmenter replicas running the sink part, `npm start`) and run the migrations again.',
      );
      expect(waited).toBe(5_000);
      // Nothing of 020 ran: rejected has its old layout and both rows.
      expect(await other.query(`SELECT partition_key FROM system.tables WHERE database = currentDatabase() AND name = 'rejected'`)).toEqual([
        { partition_key: 'toYYYYMM(received_at)' },
      ]);
      // The sinks stopped: the same run applies 020 and what follows, every row kept.
      const quiet = await runMigrations({ analytics: other, sleep: async () => undefined });
      expect(quiet.applied).toEqual(ALL.filter((f) => f >= '020'));
      expect(await other.query(`SELECT toString(count()) AS n FROM rejected`)).toEqual([{ n: '2' }]);
    });
  });
});
