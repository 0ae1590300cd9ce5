import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { stringifyWellFormed } from '@evp/clickhouse';
import { createChdbConnection } from 'chdb/connection';

/**
 * Bare inserts of the same value arrays in other formats, straight through @clickhouse/client on
 * chdb's connection (the Analytics port speaks JSON formats only). What @clickhouse/client 1.23
 * inserts: the JSON formats from arrays, and CSV / TabSeparated / CustomSeparated / Parquet from a
 * byte stream. RowBinary and Native are not in that list, and chdb's connection turns an insert body
 * into a UTF-8 string before running it (binary bytes would not survive), while chdb's own
 * `rawInsert` whitelists text formats only: no binary format reaches chdb through this code.
 */
export function benchClient(path: string): ClickHouseClient {
  type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;
  const connection = createChdbConnection({ path }) as unknown as ClientConnection;
  return createClient({ connection, log: { level: ClickHouseLogLevel.OFF }, json: { stringify: stringifyWellFormed } });
}

// TabSeparated escaping (ClickHouse's): backslash, tab, newline and the other control characters.
const TSV_SPECIAL = /[\\\t\n\r\0\b\f\v']/;
const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0', '\b': '\\b', '\f': '\\f', '\v': '\\v', "'": "\\'" };
const tsvText = (s: string) => (TSV_SPECIAL.test(s) ? s.replace(/[\\\t\n\r\0\b\f\v']/g, (c) => TSV_ESCAPES[c] as string) : s);

/** One value array → a TabSeparated line: NULL as \N, booleans as true/false, objects as JSON text. */
export function tsvLine(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) line += '\t';
    if (v === null || v === undefined) line += '\\N';
    else if (typeof v === 'string') line += tsvText(v);
    else if (typeof v === 'number' || typeof v === 'boolean') line += String(v);
    else line += tsvText(stringifyWellFormed(v));
  }
  return `${line}\n`;
}

export async function insertTsv(client: ClickHouseClient, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  let body = '';
  for (const r of rows) body += tsvLine(r);
  await client.insert({
    table,
    values: Readable.from([body], { objectMode: false }),
    format: 'TabSeparated',
    columns: columns as [string, ...string[]],
    clickhouse_settings: { input_format_try_infer_dates: 0, input_format_try_infer_datetimes: 0, insert_deduplication_token: '' },
  });
}
