import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { stringifyWellFormed } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import type { CanonicalEvent } from '@evp/schemas';
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
 * RowBinary of the events columns, for a bench-only reference: what chdb's engine takes when the
 * rows arrive as binary. No binary format reaches chdb through @clickhouse/client (see above), and
 * chdb's native raw-insert entry (`InsertRawAsyncConnection`, which the JS wrapper limits to text
 * formats) loses bytes of binary bodies: a body holding two consecutive 0x0A bytes is cut there
 * (measured: a String value "\n\n", or a DateTime64 whose low bytes are 0x0A 0x0A, makes the insert
 * fail with CANNOT_READ_ALL_DATA; 64 of the first 10,000 bench rows hold such bytes). So the rows
 * are written to a file and read with `INSERT … SELECT * FROM file(path, 'RowBinary', structure)`:
 * bytes intact, JSON columns read as Strings and cast by the insert, as a JSON text is parsed.
 */
export class RowBinaryWriter {
  private buf = Buffer.allocUnsafe(1 << 20);
  private pos = 0;

  private room(n: number) {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private uvarint(n: number) {
    this.room(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  string(s: string) {
    const bytes = Buffer.byteLength(s);
    this.uvarint(bytes);
    this.room(bytes);
    this.pos += this.buf.write(s, this.pos);
  }

  /** Array(T): the length, then each element. */
  array<T>(items: readonly T[], write: (v: T) => void) {
    this.uvarint(items.length);
    for (const v of items) write(v);
  }

  u8(n: number) {
    this.room(1);
    this.buf[this.pos++] = n;
  }

  i32(n: number) {
    this.room(4);
    this.pos = this.buf.writeInt32LE(n, this.pos);
  }

  /** DateTime64(3): an Int64 of milliseconds. */
  ms(n: number) {
    this.room(8);
    this.pos = this.buf.writeBigInt64LE(BigInt(n), this.pos);
  }

  /** Nullable(T): a null flag, then the value. */
  nullable<T>(v: T | null | undefined, write: (v: T) => void) {
    this.u8(v === null || v === undefined ? 1 : 0);
    if (v !== null && v !== undefined) write(v);
  }

  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }
}

/** One canonical event as a RowBinary events row (EVENT_COLUMNS order, 001_events.sql types). */
export function rowBinaryEvent(w: RowBinaryWriter, e: CanonicalEvent): void {
  const str = (s: string) => w.string(s);
  const ms = (n: number) => w.ms(n);
  w.string(e.event_id);
  w.string(e.app_id);
  w.string(e.user_id);
  w.string(e.session_id);
  w.nullable(e.session_start, ms);
  w.nullable(e.session_end, ms);
  w.string(e.device_id);
  w.string(e.os);
  w.string(e.sdk_name);
  w.string(e.sdk_version);
  w.string(e.app_version);
  w.nullable(e.app_version_code, (n) => w.i32(n));
  w.string(e.tz);
  w.string(e.block);
  w.string(e.name);
  w.nullable(e.sent_name, str);
  w.nullable(e.property, str);
  w.ms(e.time);
  w.u8(e.online ? 1 : 0);
  w.ms(e.received_at);
  w.nullable(e.sent_at, ms);
  w.ms(e.corrected_time);
  w.string(e.request_id);
  w.u8(e.envelope === 'earlier' ? 2 : e.envelope === 'flat' ? 3 : 1);
  w.string(stringifyWellFormed(e.props ?? {}));
  w.nullable(e.meta === null || e.meta === undefined ? null : stringifyWellFormed(e.meta), str);
  w.string(stringifyWellFormed(e.client ?? {}));
  w.array(e.warnings, (r) => {
    w.string(r.path);
    w.string(r.rule);
    w.string(r.message);
  });
}

/** The events columns as RowBinary reads them (001_events.sql; JSON columns as their text). */
const EVENTS_ROWBINARY_STRUCTURE = [
  'event_id String',
  'app_id String',
  'user_id String',
  'session_id String',
  "session_start Nullable(DateTime64(3, 'UTC'))",
  "session_end Nullable(DateTime64(3, 'UTC'))",
  'device_id String',
  'os String',
  'sdk_name String',
  'sdk_version String',
  'app_version String',
  'app_version_code Nullable(Int32)',
  'tz String',
  'block String',
  'name String',
  'sent_name Nullable(String)',
  'property Nullable(String)',
  "time DateTime64(3, 'UTC')",
  'online Bool',
  "received_at DateTime64(3, 'UTC')",
  "sent_at Nullable(DateTime64(3, 'UTC'))",
  "corrected_time DateTime64(3, 'UTC')",
  'request_id String',
  "envelope Enum8('current' = 1, 'earlier' = 2, 'flat' = 3)",
  'props String',
  'meta Nullable(String)',
  'client String',
  'warnings Array(Tuple(path String, rule String, message String))',
].join(', ');

/** Inserts a RowBinary body of events rows into `table` through a file chdb reads (see above). */
export async function insertRowBinaryViaFile(analytics: Analytics, file: string, table: string, columns: readonly string[], body: Buffer): Promise<void> {
  await writeFile(file, body);
  await analytics.command(
    `INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM file('${file}', 'RowBinary', '${EVENTS_ROWBINARY_STRUCTURE.replace(/'/g, "\\'")}') SETTINGS insert_deduplication_token = ''`,
  );
}
