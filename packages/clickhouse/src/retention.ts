import { MigrationError } from './migration-error';
import { RETENTION_CLASS_NAMES, RETENTION_CLASSES, type Analytics, type AppRetention, type RetentionClass } from '@evp/core';

/** The column every row of a retention class carries (016_retention.sql): days kept, 0 = forever. */
export const RETENTION_COLUMN = 'retention_days';

/** The tables of each class as they are in the database (`catalog_*` expanded), by class. */
export async function retentionTables(analytics: Analytics): Promise<Record<RetentionClass, string[]>> {
  const rows = await analytics.query<{ t: string }>(
    `SELECT table AS t FROM system.columns WHERE database = currentDatabase() AND name = {column:String} ORDER BY table`,
    { column: RETENTION_COLUMN },
  );
  // On a cluster the readers' tables are the Distributed ones; their `_local` tables hold the rows.
  // A `_parted` table is a rebuild's copy (020_retention_parts.sql), there only while it runs.
  const names = rows.map((r) => r.t).filter((t) => !t.endsWith('_local') && !t.endsWith('_parted'));
  const out = {} as Record<RetentionClass, string[]>;
  for (const c of RETENTION_CLASS_NAMES) {
    const patterns: readonly string[] = RETENTION_CLASSES[c];
    out[c] = names.filter((n) => patterns.some((p) => (p.endsWith('*') ? n.startsWith(p.slice(0, -1)) : n === p)));
  }
  return out;
}

export interface RestampResult {
  /** Per table: the rows of the app whose stamp was changed. */
  restamped: Record<string, number>;
  /** Per table: the partitions (month-stamp ids) the app's rows were moved out of. */
  partitions: Record<string, string[]>;
}

/**
 * The explicit one-off step that applies an app's retention to the rows it already has
 * (docs/privacy.md, "Changing a retention"): rows are stamped when they are inserted, so a changed
 * setting reaches new rows only. The stamp is part of the partition key (020_retention_parts.sql), so
 * it cannot be updated in place: per partition holding rows of the app with another stamp, the rows
 * not yet past the new days are copied with today's setting (into the partition of their month and
 * the new stamp), then all the app's rows with another stamp are deleted from that partition (a
 * mutation of that partition only, waited for), so rows already past the new days are physically gone
 * when it returns. Safe to re-run after a crash at any point: a row whose copy is already there (same
 * sorting key and version) is not copied again, and the deletion only touches rows with another stamp.
 * Rows of other apps are untouched. Run it once the sinks stamp the new setting: a row written with
 * the old stamp while it runs may be deleted without its copy.
 */
export async function restampRetention(analytics: Analytics, appId: string, retention: AppRetention, cluster?: string): Promise<RestampResult> {
  const tables = await retentionTables(analytics);
  const result: RestampResult = { restamped: {}, partitions: {} };
  for (const c of RETENTION_CLASS_NAMES) {
    const days = retention[c];
    for (const table of tables[c]) {
      const params = { app: appId, days };
      const stale = `app_id = {app:String} AND ${RETENTION_COLUMN} != {days:UInt16}`;
      // On a cluster: the local tables hold the rows (a row's versions all on one shard), read on every shard.
      const local = cluster ? `${table}_local` : table;
      const everywhere = cluster ? `cluster('${cluster}', currentDatabase(), ${local})` : table;
      const parts = await analytics.query<{ p: string; n: string | number }>(
        `SELECT _partition_id AS p, count() AS n FROM ${everywhere} WHERE ${stale} GROUP BY p ORDER BY p`,
        params,
      );
      if (parts.length === 0) continue;
      const { key, time } = await rowKey(analytics, local);
      // Rows already past the new days are not copied: the deletion is their end.
      const alive = days === 0 ? '' : ` AND toDateTime(src.${time}) + toIntervalDay({days:UInt16}) > now()`;
      // Mutations run where the rows are: on a cluster, the local tables of every server.
      const target = cluster ? `${local} ON CLUSTER ${cluster}` : table;
      const copy = cluster ? ' SETTINGS parallel_distributed_insert_select = 2' : '';
      for (const { p } of parts) {
        await analytics.command(
          // The source's columns are named through its alias: plain `retention_days` would be the REPLACEd one.
          `INSERT INTO ${table} SELECT * REPLACE ({days:UInt16} AS ${RETENTION_COLUMN}) FROM ${table} AS src
           WHERE src.app_id = {app:String} AND src.${RETENTION_COLUMN} != {days:UInt16} AND src._partition_id = {p:String}${alive}
             AND (${key}) NOT IN (SELECT ${key} FROM ${local} WHERE app_id = {app:String} AND ${RETENTION_COLUMN} = {days:UInt16})${copy}`,
          { ...params, p },
        );
        await analytics.command(`ALTER TABLE ${target} DELETE IN PARTITION ID {p:String} WHERE ${stale} SETTINGS mutations_sync = 2`, { ...params, p });
      }
      result.restamped[table] = parts.reduce((sum, x) => sum + Number(x.n), 0);
      result.partitions[table] = parts.map((x) => x.p);
    }
  }
  return result;
}

/**
 * What identifies a row of a table (its sorting key, and the version column of a versioned table),
 * and the column its TTL counts from (016_retention.sql).
 */
async function rowKey(analytics: Analytics, table: string): Promise<{ key: string; time: string }> {
  const [meta] = await analytics.query<{ sorting_key: string; engine_full: string }>(
    `SELECT sorting_key, engine_full FROM system.tables WHERE database = currentDatabase() AND name = {table:String}`,
    { table },
  );
  const engine = meta?.engine_full ?? '';
  const version = /ReplacingMergeTree\((?:'[^']*', '[^']*', )?(\w+)\)/.exec(engine)?.[1];
  const time = /toDateTime\((\w+)\) \+ toIntervalDay\(retention_days\)/.exec(engine)?.[1];
  if (!meta || !time) throw new MigrationError(`table ${table} has no retention TTL (016_retention.sql)`);
  return { key: [meta.sorting_key, ...(version ? [version] : [])].join(', '), time };
}
