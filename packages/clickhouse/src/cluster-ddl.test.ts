import { loadMigrations, renderMigration } from './migrations';
import { clusterStatements } from './cluster-ddl';

const migration = (version: number) => {
  const m = loadMigrations().find((x) => x.version === version);
  if (!m) throw new Error(`no migration ${version}`);
  return m;
};

describe('the clustered form of the migrations', () => {
  it('renders events as a replicated local table and a Distributed table sharded by app_id, user_id', () => {
    const [local, distributed] = renderMigration(migration(1), 'evp');
    expect(local).toBe(
      migration(1)
        .statements[0]!.replace('CREATE TABLE IF NOT EXISTS events\n', 'CREATE TABLE IF NOT EXISTS events_local ON CLUSTER evp\n')
        .replace('ENGINE = ReplacingMergeTree\n', "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/events_local', '{replica}')\n")
        .replace('SETTINGS non_replicated_deduplication_window = 1000', 'SETTINGS replicated_deduplication_window = 1000'),
    );
    expect(local).toContain('\nPARTITION BY toYYYYMM(time)\nORDER BY (app_id, toDate(time), user_id, time, event_id)\n');
    expect(distributed).toBe(
      'CREATE TABLE IF NOT EXISTS events ON CLUSTER evp AS events_local\nENGINE = Distributed(evp, currentDatabase(), events_local, cityHash64(app_id, user_id))',
    );
    expect(renderMigration(migration(1), 'evp')).toHaveLength(2);
  });

  it('keeps a version column and shards a table without user_id by its sorting key', () => {
    const [local, distributed] = renderMigration(migration(3), 'evp');
    expect(local).toContain(
      "\nENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/catalog_user_local', '{replica}', received_at)\nORDER BY (app_id, id)\n",
    );
    expect(distributed).toBe(
      'CREATE TABLE IF NOT EXISTS catalog_user ON CLUSTER evp AS catalog_user_local\nENGINE = Distributed(evp, currentDatabase(), catalog_user_local, cityHash64(app_id, id))',
    );
    // rejected: the date expression of its sorting key is not a sharding column.
    expect(renderMigration(migration(2), 'evp')[1]).toBe(
      'CREATE TABLE IF NOT EXISTS rejected ON CLUSTER evp AS rejected_local\nENGINE = Distributed(evp, currentDatabase(), rejected_local, cityHash64(app_id, kind, rejection_id))',
    );
    // segment members live on their user's shard, beside the user's events.
    expect(renderMigration(migration(8), 'evp')[3]).toBe(
      'CREATE TABLE IF NOT EXISTS segment_members ON CLUSTER evp AS segment_members_local\nENGINE = Distributed(evp, currentDatabase(), segment_members_local, cityHash64(app_id, user_id))',
    );
  });

  it('runs column changes on both tables and index changes on the local one only', () => {
    expect(renderMigration(migration(14), 'evp')).toEqual([
      "ALTER TABLE events_local ON CLUSTER evp ADD COLUMN IF NOT EXISTS sent_at Nullable(DateTime64(3, 'UTC')) AFTER received_at",
      "ALTER TABLE events ON CLUSTER evp ADD COLUMN IF NOT EXISTS sent_at Nullable(DateTime64(3, 'UTC')) AFTER received_at",
      "ALTER TABLE events_local ON CLUSTER evp ADD COLUMN IF NOT EXISTS corrected_time DateTime64(3, 'UTC') DEFAULT time AFTER sent_at",
      "ALTER TABLE events ON CLUSTER evp ADD COLUMN IF NOT EXISTS corrected_time DateTime64(3, 'UTC') DEFAULT time AFTER sent_at",
    ]);
    expect(renderMigration(migration(13), 'evp')).toEqual([
      'ALTER TABLE events_local ON CLUSTER evp ADD INDEX IF NOT EXISTS user_bloom user_id TYPE bloom_filter(0.01) GRANULARITY 1',
      'ALTER TABLE events_local ON CLUSTER evp MATERIALIZE INDEX user_bloom',
    ]);
  });

  it('rebuilds a table on every shard: a copy beside the local table, copied shard by shard, swapped and dropped', () => {
    const rendered = renderMigration(migration(20), 'evp');
    expect(rendered.slice(0, 7)).toEqual([
      'DROP TABLE IF EXISTS events_parted ON CLUSTER evp SYNC',
      'DROP TABLE IF EXISTS events_parted_local ON CLUSTER evp SYNC',
      [
        'CREATE TABLE IF NOT EXISTS events_parted_local ON CLUSTER evp AS events_local',
        "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/events_parted_local/{uuid}', '{replica}')",
        'PARTITION BY (toYYYYMM(time), retention_days)',
        'ORDER BY (app_id, toDate(time), user_id, time, event_id)',
        "TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(time) + toIntervalDay(retention_days))",
        'SETTINGS ttl_only_drop_parts = 1, replicated_deduplication_window = 1000',
      ].join('\n'),
      // The same sharding key as events (001), so every row stays on its shard.
      'CREATE TABLE IF NOT EXISTS events_parted ON CLUSTER evp AS events_parted_local\nENGINE = Distributed(evp, currentDatabase(), events_parted_local, cityHash64(app_id, user_id))',
      'INSERT INTO events_parted SELECT * FROM events SETTINGS parallel_distributed_insert_select = 2',
      'EXCHANGE TABLES events_local AND events_parted_local ON CLUSTER evp',
      'DROP TABLE IF EXISTS events_parted ON CLUSTER evp SYNC',
    ]);
    // A catalog keeps its version column.
    expect(renderMigration(migration(21), 'evp')[2]).toContain(
      "\nENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/catalog_user_parted_local/{uuid}', '{replica}', received_at)\n",
    );
  });

  it('renders every repository migration, and leaves them as written without a cluster', () => {
    for (const m of loadMigrations()) {
      expect(renderMigration(m)).toEqual(m.statements);
      expect(renderMigration(m, 'evp').length).toBeGreaterThanOrEqual(m.statements.length);
    }
  });

  it('refuses what it has no clustered form for, and a cluster name that is not an identifier', () => {
    expect(() => clusterStatements('DROP TABLE events', 'evp')).toThrow('no clustered form for: DROP TABLE events');
    expect(() => clusterStatements('CREATE TABLE IF NOT EXISTS t\n(\n    x String\n)\nENGINE = MergeTree\nORDER BY x', 'evp')).toThrow(
      'table t: only ReplacingMergeTree tables have a clustered form',
    );
    expect(() => clusterStatements('ALTER TABLE events DROP INDEX x', "evp' --")).toThrow('cluster name "evp\' --" is not an identifier');
  });
});
