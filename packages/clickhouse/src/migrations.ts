import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Analytics, Logger } from '@evp/core';
import { clusterLedger, clusterStatements } from './cluster-ddl';
import { MigrationError } from './migration-error';
import { formatDateTime64 } from './time';

/** deploy/clickhouse/migrations in this repository (packages/clickhouse/src → repo root). */
export const DEFAULT_MIGRATIONS_DIR = resolve(__dirname, '../../../deploy/clickhouse/migrations');

export interface Migration {
  version: number;
  name: string;
  file: string;
  /** sha256 of the file text: an applied migration must never change afterwards. */
  checksum: string;
  statements: string[];
}

export { MigrationError };

const FILE = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/**
 * ClickHouse over HTTP runs one statement per request, so a file is split into statements: a
 * statement ends with `;` at the end of a line; whole-line `--` comments are dropped.
 */
export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n');
  return withoutComments
    .split(/;[ \t]*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Reads `NNN_name.sql` files in version order; two files with one version are refused. */
export function loadMigrations(dir: string = DEFAULT_MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const m = FILE.exec(file);
    if (!m) throw new MigrationError(`migration file ${file} is not named NNN_name.sql`);
    const text = readFileSync(join(dir, file), 'utf8');
    migrations.push({
      version: Number(m[1]),
      name: m[2] as string,
      file,
      checksum: createHash('sha256').update(text).digest('hex'),
      statements: splitStatements(text),
    });
  }
  for (let i = 1; i < migrations.length; i++) {
    if ((migrations[i] as Migration).version === (migrations[i - 1] as Migration).version) {
      throw new MigrationError(`two migrations have version ${(migrations[i] as Migration).version}`);
    }
  }
  return migrations;
}

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations
(
    version    UInt32,
    name       String,
    checksum   String,
    applied_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(applied_at)
ORDER BY version`;

/**
 * What a migration runs: its statements as written (one node), or their clustered form
 * (cluster-ddl.ts) with a cluster name. runMigrations renders every migration before it runs the
 * first statement, so one without a clustered form stops the run before it changed anything.
 */
export function renderMigration(m: Migration, cluster?: string): string[] {
  return cluster ? m.statements.flatMap((s) => clusterStatements(s, cluster)) : m.statements;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

export interface RunMigrationsOptions {
  analytics: Analytics;
  dir?: string;
  logger?: Logger;
  cluster?: string;
  /**
   * How long a pending rebuild watches the tables it rebuilds for inserts before it starts (default
   * 5 s, five times the sink's default SINK_BATCH_MAX_WAIT_MS): rebuildsWhileWritten.
   */
  quietMs?: number;
  /** How the watch waits (tests write rows meanwhile). Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** The tables a migration rebuilds (copy, then EXCHANGE TABLES: 020, 021): the sources of its `INSERT INTO copy SELECT * FROM table`. */
export function rebuiltTables(m: Migration): string[] {
  if (!m.statements.some((s) => /^EXCHANGE TABLES /.test(s))) return [];
  return m.statements.flatMap((s) => /^INSERT INTO \w+ SELECT \* FROM (\w+)$/.exec(s)?.[1] ?? []);
}

/**
 * Refuses a rebuild while something inserts into the tables it rebuilds (docs/privacy.md, "How it
 * works"): a row written to a table between its copy and its swap would be lost, and the sinks of
 * the version before the rebuild know nothing of it, so no lock of ours could stop them. The
 * highest block number of the tables' parts grows with every insert (a merge keeps it): read twice,
 * `quietMs` apart, any growth means a writer is running. Tables without a part (a new database)
 * have nothing to lose and are not watched. With a cluster, every replica's local tables are read.
 */
async function refuseRebuildWhileWritten(opts: RunMigrationsOptions, m: Migration, tables: string[]): Promise<void> {
  const { analytics, cluster } = opts;
  const parts = cluster ? `clusterAllReplicas(${cluster}, system.parts)` : 'system.parts';
  const names = cluster ? tables.map((t) => `${t}_local`) : tables;
  const blocks = async () =>
    new Map(
      (
        await analytics.query<{ table: string; block: number }>(
          `SELECT table, max(max_block_number) AS block FROM ${parts} WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)} GROUP BY table ORDER BY table`,
          { tables: names },
        )
      ).map((r) => [r.table, Number(r.block)]),
    );
  const before = await blocks();
  if (before.size === 0) return;
  const quietMs = opts.quietMs ?? 5_000;
  await (opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))))(quietMs);
  const written = [...(await blocks())].filter(([t, b]) => b > (before.get(t) ?? -1)).map(([t]) => t);
  if (written.length > 0) {
    throw new MigrationError(
      `migration ${m.file} rebuilds ${names.join(', ')} (copy, then swap), but rows were inserted into ${written.join(', ')} in the last ${quietMs} ms: ` +
        'a row written between the copy and the swap would be lost. Stop every sink (the segmenter replicas running the sink part, `npm start`) and run the migrations again.',
    );
  }
}

/**
 * Applies, in version order, every migration not yet recorded in `schema_migrations` of the
 * database the Analytics instance is bound to. ClickHouse DDL is not transactional, so each
 * statement must be idempotent (`IF NOT EXISTS`): a run that died half way is simply run again,
 * and the ledger row is written only after all statements of a migration succeeded. A rebuild
 * (rebuiltTables) is refused while its tables are being written (refuseRebuildWhileWritten).
 */
export async function runMigrations(opts: RunMigrationsOptions): Promise<MigrationResult> {
  const { analytics, logger, cluster } = opts;
  const migrations = loadMigrations(opts.dir);
  await analytics.command(cluster ? clusterLedger(cluster) : LEDGER);
  const rows = await analytics.query<{ version: number; checksum: string }>(
    'SELECT version, argMax(checksum, applied_at) AS checksum FROM schema_migrations GROUP BY version',
  );
  const recorded = new Map(rows.map((r) => [Number(r.version), r.checksum]));
  const result: MigrationResult = { applied: [], alreadyApplied: [] };
  const rendered = new Map(migrations.map((m) => [m.version, renderMigration(m, cluster)]));
  for (const m of migrations) {
    const checksum = recorded.get(m.version);
    if (checksum !== undefined) {
      if (checksum !== m.checksum) {
        throw new MigrationError(`migration ${m.file} was changed after it was applied (recorded sha256 ${checksum}); add a new migration instead`);
      }
      result.alreadyApplied.push(m.file);
      continue;
    }
    const rebuilt = rebuiltTables(m);
    if (rebuilt.length > 0) await refuseRebuildWhileWritten(opts, m, rebuilt);
    for (const statement of rendered.get(m.version) ?? []) await analytics.command(statement);
    await analytics.insert('schema_migrations', [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: formatDateTime64(Date.now()) }]);
    logger?.info({ migration: m.file, statements: m.statements.length }, 'applied ClickHouse migration');
    result.applied.push(m.file);
  }
  return result;
}
