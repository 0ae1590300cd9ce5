import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_KINDS } from '@evp/core';
import { loadMigrations, rebuiltTables, splitStatements, type Migration } from './migrations';

describe('splitStatements', () => {
  it('splits on ; at line ends and drops whole-line comments', () => {
    const sql = [
      '-- header; with a semicolon',
      'CREATE TABLE a (x String) ENGINE = MergeTree ORDER BY x;',
      '',
      'CREATE TABLE b',
      '(',
      "    s String DEFAULT 'a;b'",
      ') ENGINE = MergeTree ORDER BY s;  ',
      'SELECT 1',
    ].join('\n');
    expect(splitStatements(sql)).toEqual([
      'CREATE TABLE a (x String) ENGINE = MergeTree ORDER BY x',
      "CREATE TABLE b\n(\n    s String DEFAULT 'a;b'\n) ENGINE = MergeTree ORDER BY s",
      'SELECT 1',
    ]);
  });
});

describe('loadMigrations', () => {
  it('reads the repository migrations in version order: events, rejected, one table per catalog kind, one for the app-defined kinds', () => {
    const ms = loadMigrations();
    // 005: the kinds real clients upload that the spec lacks (media, survey, reward).
    const clientKinds = 3;
    expect(ms.map((m) => [m.version, m.name, m.statements.length])).toEqual([
      [1, 'events', 1],
      [2, 'rejected', 1],
      [3, 'catalog', CATALOG_KINDS.length - clientKinds],
      [4, 'receipts', 3],
      [5, 'client_catalogs', clientKinds],
      [6, 'flat_envelope', 1],
      [7, 'custom_catalog', 1],
      // 008: segment definitions and membership.
      [8, 'segments', 2],
      [9, 'actions_log', 1],
      [10, 'actions_log_caps', 3],
      [11, 'campaign_outcomes', 1],
      // 012: saved campaigns and each app's campaign settings.
      [12, 'campaigns', 2],
      // 013: a bloom filter of user_id on events, for questions about a few users over all history.
      [13, 'events_user_index', 2],
      // 014: the upload's sent_at and the corrected time (clock skew).
      [14, 'events_sent_at', 2],
      // 015: dead letters, so the inspector can list an app's own.
      [15, 'dead_letters', 1],
      // 016: retention_days and its TTL on every table a retention class covers (6 + every catalog table).
      [16, 'retention', 2 * (6 + CATALOG_KINDS.length + 1)],
      // 017: the version of the app's pseudonym key a row's pseudonyms were made with.
      [17, 'events_pseudonym_key', 1],
      // 018: each campaign's split history, for the report's sample-ratio check.
      [18, 'campaign_splits', 1],
      // 019: erasure and export requests, and the work table their ids go through.
      [19, 'privacy', 3],
      // 020, 021: every table of a retention class rebuilt partitioned by month and retention_days
      // (drop a leftover copy, create, copy, swap, drop: 5 statements a table).
      [20, 'retention_parts', 5 * 6],
      [21, 'retention_parts_catalogs', 5 * (CATALOG_KINDS.length + 1)],
      // 023: each segment's seq floor, raised by the expiry of ended memberships.
      [23, 'segment_seq_floors', 1],
    ]);
    // The rebuilds, which the runner refuses while their tables are written (migrations.test.ts on chdb).
    expect(ms.filter((m) => rebuiltTables(m).length > 0).map((m) => [m.version, rebuiltTables(m).length])).toEqual([
      [20, 6],
      [21, CATALOG_KINDS.length + 1],
    ]);
    expect(rebuiltTables(ms.find((m) => m.version === 20) as Migration)).toEqual([
      'events',
      'rejected',
      'dead_letters',
      'ingest_receipts',
      'actions_log',
      'campaign_outcomes',
    ]);
    const catalog = [...(ms[2]?.statements ?? []), ...(ms[4]?.statements ?? [])];
    expect(catalog.map((s) => /CREATE TABLE IF NOT EXISTS (\w+)/.exec(s)?.[1])).toEqual(CATALOG_KINDS.map((k) => `catalog_${k}`));
    // 007: one table for every app-defined kind.
    expect(ms[6]?.statements.map((s) => /CREATE TABLE IF NOT EXISTS (\w+)/.exec(s)?.[1])).toEqual(['catalog_custom']);
    // Every statement must be re-runnable: a migration that died half way is run again. (Modifying a
    // column to the type it already has is a no-op, and so is setting a TTL to the one the table has;
    // materializing an index again rebuilds it. A rebuild drops its leftover copy first and redoes it:
    // 020_retention_parts.sql says why that is safe from any statement on.)
    for (const m of ms)
      for (const s of m.statements)
        expect(s).toMatch(
          /^(CREATE TABLE IF NOT EXISTS |ALTER TABLE \w+ (ADD COLUMN IF NOT EXISTS|MODIFY COLUMN|MODIFY TTL|ADD INDEX IF NOT EXISTS|MATERIALIZE INDEX) |DROP TABLE IF EXISTS \w+_parted$|INSERT INTO (\w+)_parted SELECT \* FROM \3$|EXCHANGE TABLES (\w+) AND \4_parted$)/,
        );
  });

  it('refuses badly named files and duplicate versions', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    writeFileSync(join(dir, '001_a.sql'), 'SELECT 1;');
    writeFileSync(join(dir, '001_b.sql'), 'SELECT 2;');
    expect(() => loadMigrations(dir)).toThrow('two migrations have version 1');
    const bad = mkdtempSync(join(tmpdir(), 'mig-'));
    writeFileSync(join(bad, '1-first.sql'), 'SELECT 1;');
    expect(() => loadMigrations(bad)).toThrow('migration file 1-first.sql is not named NNN_name.sql');
  });
});
