import { randomUUID } from 'node:crypto';
import type { Analytics } from '@evp/core';
import { chToRfc3339, formatDateTime64 } from './time';

/** What every versioned item has: its app, its id, its version, and when it was made and last changed (epoch ms). */
export interface Versioned {
  app_id: string;
  id: string;
  version: number;
  created_at: number;
  updated_at: number;
}

/** The item's own fields: everything but what the table keeps for every item. */
export type VersionedFields<T extends Versioned> = Omit<T, keyof Versioned>;

/** How one kind of item lies in its table, beside the columns every versioned table has. */
export interface VersionedTableSpec<T extends Versioned> {
  table: string;
  /** The id's column: `segment_id`, `campaign_id`. */
  idColumn: string;
  /** The item's own columns, as `toColumns` writes them and `fromColumns` reads them. */
  columns: readonly string[];
  toColumns(item: T): Record<string, unknown>;
  fromColumns(row: Record<string, unknown>, common: Versioned): VersionedFields<T>;
}

export interface VersionedTableDeps {
  analytics: Analytics;
  now?: () => number;
  newId?: () => string;
}

export interface VersionedTable<T extends Versioned> {
  /** The latest version of each item matching `where` (SQL over the table's columns), by app, creation and id. */
  select(where: string, params: Record<string, unknown>): Promise<T[]>;
  /** The latest version of one item; undefined when it never existed. */
  latest(appId: string, id: string): Promise<T | undefined>;
  /** Saves a new item as version 1, under a new id (`fields` may depend on it and on the creation instant, epoch ms). */
  first(appId: string, fields: (id: string, at: number) => VersionedFields<T>): Promise<T>;
  /** Saves `current` changed by `change` as version + 1, changed at `at` (epoch ms, default now), and returns it. */
  next(current: T, change: Partial<VersionedFields<T>>, at?: number): Promise<T>;
}

/**
 * Items kept as versions in a ClickHouse ReplacingMergeTree(version) ordered by (app_id, id) — segment
 * definitions (migration 008) and campaigns (migration 012): every save inserts the whole item with
 * the next version and FINAL reads the latest.
 *
 * ClickHouse has no compare-and-set: a change reads the latest version and inserts version + 1. Two
 * changes of one item at the same moment can both write version n + 1; both callers are answered
 * n + 1, and the row inserted last is the one kept (ReplacingMergeTree keeps the last inserted of
 * equal versions).
 */
export function versionedTable<T extends Versioned>(deps: VersionedTableDeps, spec: VersionedTableSpec<T>): VersionedTable<T> {
  const { analytics } = deps;
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? randomUUID;
  const columns = ['app_id', spec.idColumn, 'version', ...spec.columns, 'created_at', 'updated_at'].join(', ');

  const write = async (item: T): Promise<T> => {
    await analytics.insert(spec.table, [
      {
        app_id: item.app_id,
        [spec.idColumn]: item.id,
        version: item.version,
        ...spec.toColumns(item),
        created_at: formatDateTime64(item.created_at),
        updated_at: formatDateTime64(item.updated_at),
      },
    ]);
    return item;
  };

  const fromRow = (row: Record<string, unknown>): T => {
    const common: Versioned = {
      app_id: row.app_id as string,
      id: row[spec.idColumn] as string,
      version: Number(row.version),
      created_at: Date.parse(chToRfc3339(row.created_at as string)),
      updated_at: Date.parse(chToRfc3339(row.updated_at as string)),
    };
    return { ...common, ...spec.fromColumns(row, common) } as T;
  };

  const select = async (where: string, params: Record<string, unknown>): Promise<T[]> =>
    (await analytics.query(`SELECT ${columns} FROM ${spec.table} FINAL WHERE ${where} ORDER BY app_id, created_at, ${spec.idColumn}`, params)).map(fromRow);

  return {
    select,
    latest: async (appId, id) => (await select(`app_id = {app:String} AND ${spec.idColumn} = {id:String}`, { app: appId, id }))[0],
    first(appId, fields) {
      const at = now();
      const id = newId();
      return write({ app_id: appId, id, version: 1, created_at: at, updated_at: at, ...fields(id, at) } as T);
    },
    next: (current, change, at = now()) => write({ ...current, ...change, version: current.version + 1, updated_at: at }),
  };
}
