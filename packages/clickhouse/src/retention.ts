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
  const names = rows.map((r) => r.t).filter((t) => !t.endsWith('_local'));
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
}

/**
 * The explicit one-off step that applies an app's retention to the rows it already has
 * (docs/privacy.md, "Changing a retention"): rows are stamped when they are inserted, so a changed
 * setting reaches new rows only; this re-stamps the app's older rows of every class with today's
 * setting (a mutation per table that has rows to change; waited for), then has ClickHouse apply the
 * TTL to them at once (MATERIALIZE TTL), so rows already past the new retention are gone when it returns.
 * Re-running it changes nothing more. Rows of other apps are untouched.
 */
export async function restampRetention(analytics: Analytics, appId: string, retention: AppRetention, cluster?: string): Promise<RestampResult> {
  const tables = await retentionTables(analytics);
  const restamped: Record<string, number> = {};
  for (const c of RETENTION_CLASS_NAMES) {
    const days = retention[c];
    for (const table of tables[c]) {
      const [row] = await analytics.query<{ n: string | number }>(
        `SELECT count() AS n FROM ${table} WHERE app_id = {app:String} AND ${RETENTION_COLUMN} != {days:UInt16}`,
        { app: appId, days },
      );
      const n = Number(row?.n ?? 0);
      if (n === 0) continue;
      // Mutations run where the rows are: on a cluster, the local tables of every server.
      const target = cluster ? `${table}_local ON CLUSTER ${cluster}` : table;
      await analytics.command(
        `ALTER TABLE ${target} UPDATE ${RETENTION_COLUMN} = {days:UInt16} WHERE app_id = {app:String} AND ${RETENTION_COLUMN} != {days:UInt16} SETTINGS mutations_sync = 2`,
        { app: appId, days },
      );
      await analytics.command(`ALTER TABLE ${target} MATERIALIZE TTL SETTINGS mutations_sync = 2`);
      restamped[table] = n;
    }
  }
  return { restamped };
}
