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

/**
 * Applies, in version order, every migration not yet recorded in `schema_migrations` of the
 * database the Analytics instance is bound to. ClickHouse DDL is not transactional, so each
 * statement must be idempotent (`IF NOT EXISTS`): a run that died half way is simply run again,
 * and the ledger row is written only after all statements of a migration succeeded.
 */
export async function runMigrations(opts: { analytics: Analytics; dir?: string; logger?: Logger; cluster?: string }): Promise<MigrationResult> {
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
    for (const statement of rendered.get(m.version) ?? []) await analytics.command(statement);
    await analytics.insert('schema_migrations', [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: formatDateTime64(Date.now()) }]);
    logger?.info({ migration: m.file, statements: m.statements.length }, 'applied ClickHouse migration');
    result.applied.push(m.file);
  }
  return result;
}
