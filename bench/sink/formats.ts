import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { stringifyWellFormed, type RowBinaryWriter } from '@evp/clickhouse';
import type { Analytics, RowBinaryRows } from '@evp/core';
import type { CanonicalEvent } from '@evp/schemas';
import { createChdbConnection } from 'chdb/connection';

/**
 * Bare inserts of the same value arrays in other formats, straight through @clickhouse/client on
 * chdb's connection. What @clickhouse/client 1.23 inserts: the JSON formats from arrays, and CSV /
 * TabSeparated / CustomSeparated / Parquet from a byte stream. RowBinary and Native are not in that
 * list, and chdb's connection turns an insert body into a UTF-8 string before running it (binary
 * bytes would not survive): RowBinary reaches chdb only as a file it reads, which is what
 * Analytics.insertRowBinary does on chdb.
 */
export function benchClient(path: string): ClickHouseClient {
  type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;
  const connection = createChdbConnection({ path }) as unknown as ClientConnection;
  return createClient({ connection, log: { level: ClickHouseLogLevel.OFF }, json: { stringify: stringifyWellFormed } });
}

// TabSeparated escaping (ClickHouse's): backslash, tab, newline and the other control characters.
const TSV_SPECIAL = /[\\\t\n\r\0\b\f\v']/;
const TSV_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
  "'": "\\'",
};
const tsvText = (s: string) => (TSV_SPECIAL.test(s) ? s.replace(/[\\\t\n\r\0\b\f\v']/g, (c) => TSV_ESCAPES[c] as string) : s);

/** One value array → a TabSeparated line: NULL as \N, booleans as true/false, objects as JSON text. */
function tsvLine(values: readonly unknown[]): string {
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

/**
 * One canonical event as a RowBinary events row (EVENT_COLUMNS order), written by hand straight from
 * the event with the production writer (RowBinaryWriter, @evp/clickhouse): the fastest encoding of
 * these rows, the reference the sink's own writer (EVENTS_ROW_BINARY, from the field table and the
 * Avro record) is measured against. Its layout is the sink's: a test of the sink compares that with
 * the migrated table, and the insert (Analytics.insertRowBinary) reads it with those types.
 */
export function rowBinaryEvent(w: RowBinaryWriter, e: CanonicalEvent): Buffer {
  const str = (s: string) => w.string(s);
  const ms = (n: number) => w.i64(n);
  const nullable = <T>(v: T | null | undefined, write: (v: T) => void) => {
    w.u8(v === null || v === undefined ? 1 : 0);
    if (v !== null && v !== undefined) write(v);
  };
  w.string(e.event_id);
  w.string(e.app_id);
  w.string(e.user_id);
  w.string(e.session_id);
  nullable(e.session_start, ms);
  nullable(e.session_end, ms);
  w.string(e.device_id);
  w.string(e.os);
  w.string(e.sdk_name);
  w.string(e.sdk_version);
  w.string(e.app_version);
  nullable(e.app_version_code, (n) => w.i32(n));
  w.string(e.tz);
  w.string(e.block);
  w.string(e.name);
  nullable(e.sent_name, str);
  nullable(e.property, str);
  w.i64(e.time);
  w.u8(e.online ? 1 : 0);
  w.i64(e.received_at);
  nullable(e.sent_at, ms);
  w.i64(e.corrected_time);
  w.string(e.request_id);
  nullable(e.pseudonym_key, (n) => w.i32(n));
  w.i8(e.envelope === 'earlier' ? 2 : e.envelope === 'flat' ? 3 : 1);
  w.string(stringifyWellFormed(e.props ?? {}));
  nullable(e.meta === null || e.meta === undefined ? null : stringifyWellFormed(e.meta), str);
  w.string(stringifyWellFormed(e.client ?? {}));
  w.uvarint(e.warnings.length);
  for (const r of e.warnings) {
    w.string(r.path);
    w.string(r.rule);
    w.string(r.message);
  }
  return w.row();
}

/**
 * RowBinary rows inserted as bare as chdb allows, for a reference: one file, reused by every insert
 * (the port writes a file of its own per insert and removes it), read with the same statement and
 * settings as `Analytics.insertRowBinary` on chdb. ≈ 0.3–0.5 µs CPU per row cheaper in one process.
 */
export async function insertRowBinaryDirect(analytics: Analytics, file: string, table: string, block: RowBinaryRows): Promise<void> {
  await writeFile(file, Buffer.concat(block.rows));
  const structure = block.columns.map((c, i) => `${c} ${block.types[i] as string}`).join(', ');
  await analytics.command(
    `INSERT INTO ${table} (${block.columns.join(', ')}) SELECT * FROM file('${file}', 'RowBinary', '${structure.replace(/'/g, "\\'")}') ` +
      "SETTINGS input_format_try_infer_dates = 0, input_format_try_infer_datetimes = 0, insert_deduplication_token = '', input_format_binary_read_json_as_string = 1",
  );
}
