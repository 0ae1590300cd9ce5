import { analystUserName, identifier } from '@evp/clickhouse';
import type { KeyGrant } from '@evp/core';

/**
 * The real-ClickHouse path (docker-compose): each analyst or API key is a ClickHouse user whose
 * password is the key (stored as its SHA-256, as in the keys file), readonly through a settings
 * profile whose limits it cannot change, with one row policy per app-scoped table. ClickHouse
 * enforces all of it itself; docs/analytics.md prints this DDL and a test checks it as text.
 */
export interface AnalystDdlInput {
  grant: KeyGrant;
  /** The key's SHA-256 hex (the keys file's `sha256`, or computed from `key`). */
  sha256: string;
  database: string;
  /** Every table of the database with an app_id column. */
  tables: readonly string[];
  limits: { maxExecutionSeconds: number; maxMemoryBytes: number; maxResultRows: number; maxResultBytes: number; queriesPerHour: number };
}

export function analystDdl(p: AnalystDdlInput): string[] {
  const db = identifier(p.database, 'database name');
  const user = analystUserName(p.grant.keyId);
  if (!/^[A-Za-z0-9._-]+$/.test(p.grant.appId) || !/^[0-9a-f]{64}$/.test(p.sha256)) throw new Error('invalid app id or key hash');
  const profile = 'analyst_readonly';
  const l = p.limits;
  return [
    `CREATE SETTINGS PROFILE IF NOT EXISTS ${profile} SETTINGS readonly = 1 CONST, max_execution_time = ${l.maxExecutionSeconds} CONST, max_memory_usage = ${l.maxMemoryBytes} CONST, max_result_rows = ${l.maxResultRows} CONST, max_result_bytes = ${l.maxResultBytes} CONST, result_overflow_mode = 'throw' CONST`,
    `CREATE QUOTA IF NOT EXISTS ${user}_quota FOR INTERVAL 1 hour MAX queries = ${l.queriesPerHour}, execution_time = ${l.maxExecutionSeconds * l.queriesPerHour} TO ${user}`,
    `CREATE USER IF NOT EXISTS ${user} IDENTIFIED WITH sha256_hash BY '${p.sha256}' DEFAULT DATABASE ${db} SETTINGS PROFILE ${profile}`,
    `GRANT SELECT ON ${db}.* TO ${user}`,
    ...p.tables.map((t) => `CREATE ROW POLICY IF NOT EXISTS ${user}_${identifier(t, 'table name')} ON ${db}.${t} USING app_id = '${p.grant.appId}' TO ${user}`),
  ];
}
