import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import { InfraError, type Analytics, type RowBinaryRows } from '@evp/core';
import { CLICKHOUSE_DEPENDENCY, toAnalyticsError } from './errors';
import { identifier, tableName } from './identifiers';
import { JsonRow } from './json-row';

export interface AnalyticsFromClientOptions {
  /**
   * Statements run once, in order, before the first operation (the chdb adapter selects its
   * database this way). A failed setup is tried again by the next call.
   */
  setup?: string[];
  /**
   * A directory of the engine's own machine: RowBinary bodies are written to a file there and read
   * with `INSERT … SELECT * FROM file(…)` instead of being sent as the statement's body. For chdb,
   * whose connection turns every body into a UTF-8 string (binary bytes would not survive) and
   * whose native raw insert cuts a body at two consecutive 0x0A bytes (bench/sink/README.md).
   */
  rowBinaryFileDir?: string;
}

/**
 * Settings sent with every insert.
 * - Strings inside JSON-typed columns stay strings: by default ClickHouse infers dates and
 *   datetimes from strings and re-renders them (`2024-01-01T10:00:00Z` comes back as
 *   `2024-01-01 10:00:00`), which would silently change what a client sent.
 * - `insert_deduplication_token` is always sent, empty when the caller gave none: the chdb
 *   connection applies settings as session-level `SET`s, so a token would otherwise stick to every
 *   later insert of the session and make ClickHouse drop them as duplicates.
 */
const insertSettings = (dedupToken: string | undefined): ClickHouseSettings => ({
  input_format_try_infer_dates: 0,
  input_format_try_infer_datetimes: 0,
  insert_deduplication_token: dedupToken ?? '',
});

/** A ClickHouse string literal: backslashes and quotes escaped. */
const sqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * Settings sent with every query. 64-bit integers are rendered as JSON numbers, so counts and
 * integers inside JSON columns read back as numbers. Every integer the platform writes came from a
 * JS number, so this is exact for our own data; a computed value beyond 2^53 (a cityHash64, a huge
 * sum) must be selected with toString(). Explicit because chdb's default differs from a server's.
 */
const QUERY_SETTINGS: ClickHouseSettings = { output_format_json_quote_64bit_integers: 0 };

/**
 * Column names go into the INSERT head, so they are plain identifiers. A row of the wrong shape is
 * a programming mistake: it is refused here, naming the row, before anything reaches the server.
 */
function checkedColumns(table: string, columns: readonly string[], rows: object[]): [string, ...string[]] {
  if (columns.length === 0) throw badInsert(table, 'an empty column list');
  for (const c of columns) identifier(c, 'column name');
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    // A JsonRow's text is its builder's responsibility (checking it would mean parsing it).
    if (row instanceof JsonRow) continue;
    if (!Array.isArray(row) || row.length !== columns.length) {
      throw badInsert(table, `row ${i}: expected an array of ${columns.length} values (one per column)`);
    }
  }
  return columns as [string, ...string[]];
}

const badInsert = (table: string, what: string) => new InfraError(CLICKHOUSE_DEPENDENCY, `insert into ${table} refused: ${what}`, { retriable: false });

/**
 * The Analytics port over an @clickhouse/client instance. The HTTP adapter and the embedded chdb
 * adapter are both this function; only the client's connection differs.
 */
export function analyticsFromClient(client: ClickHouseClient, options: AnalyticsFromClientOptions = {}): Analytics {
  let ready: Promise<void> | undefined;
  // Numbers this adapter's RowBinary files (with the pid and a UUID: no other insert uses the name).
  let rowBinaryFiles = 0;

  const setup = (): Promise<void> => {
    if (!options.setup || options.setup.length === 0) return Promise.resolve();
    ready ??= (async () => {
      for (const query of options.setup ?? []) await client.command({ query });
    })().catch((err: unknown) => {
      ready = undefined;
      throw toAnalyticsError(err, 'connection setup');
    });
    return ready;
  };

  async function run<T>(action: string, fn: () => Promise<T>): Promise<T> {
    await setup();
    try {
      return await fn();
    } catch (err) {
      throw toAnalyticsError(err, action);
    }
  }

  return {
    command: (sql, params) =>
      run('command', async () => {
        await client.command({ query: sql, ...(params ? { query_params: params } : {}) });
      }),

    insert: async (table, rows, opts) => {
      const target = tableName(table);
      const columns = opts?.columns === undefined ? undefined : checkedColumns(target, opts.columns, rows);
      // An empty insert would still be a round trip (and chdb rejects an empty body).
      if (rows.length === 0) return;
      await run(`insert into ${target}`, async () => {
        await client.insert({
          table: target,
          values: rows,
          ...(columns ? { format: 'JSONCompactEachRow' as const, columns } : { format: 'JSONEachRow' as const }),
          clickhouse_settings: insertSettings(opts?.dedupToken),
        });
      });
    },

    insertRowBinary: async (table, block: RowBinaryRows, opts) => {
      const target = tableName(table);
      const columns = checkedColumns(target, block.columns, []);
      if (block.types.length !== columns.length) throw badInsert(target, `${block.types.length} types for ${columns.length} columns`);
      if (block.rows.length === 0) return;
      const head = `INSERT INTO ${target} (${columns.join(', ')})`;
      // RowBinary rows carry JSON columns as their text (rowbinary.ts).
      const clickhouse_settings = { ...insertSettings(opts?.dedupToken), input_format_binary_read_json_as_string: 1 };
      const dir = options.rowBinaryFileDir;
      await run(`insert into ${target}`, async () => {
        if (dir === undefined) {
          const result = await client.exec({
            query: `${head} FORMAT RowBinary`,
            values: Readable.from(block.rows, { objectMode: false }),
            clickhouse_settings,
          });
          result.stream.destroy();
          return;
        }
        // A name no other insert (of this process or another) uses; removed whatever happens.
        const file = join(dir, `rowbinary-${process.pid}-${rowBinaryFiles++}-${randomUUID()}.bin`);
        const structure = columns.map((c, i) => `${c} ${block.types[i] as string}`).join(', ');
        try {
          await writeFile(file, Buffer.concat(block.rows));
          // The settings go in the statement's own SETTINGS clause: on chdb, clickhouse_settings
          // become session SETs, one statement each before the insert, and they would outlive it.
          const settings = Object.entries(clickhouse_settings)
            .map(([k, v]) => `${k} = ${typeof v === 'string' ? sqlString(v) : String(v)}`)
            .join(', ');
          await client.command({ query: `${head} SELECT * FROM file(${sqlString(file)}, 'RowBinary', ${sqlString(structure)}) SETTINGS ${settings}` });
        } finally {
          await rm(file, { force: true });
        }
      });
    },

    query: <T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>) =>
      run('query', async () => {
        const result = await client.query({
          query: sql,
          format: 'JSONEachRow',
          clickhouse_settings: QUERY_SETTINGS,
          ...(params ? { query_params: params } : {}),
        });
        return result.json<T>();
      }),

    ping: async () => {
      try {
        await setup();
        return (await client.ping()).success;
      } catch {
        return false;
      }
    },

    close: () => client.close(),
  };
}
