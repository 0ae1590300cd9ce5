import { ClickHouseError, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { ClickHouseFailure, type AnalystQuery, type AnalystResult, type AnalystSql } from '@evp/core';
import { identifier } from '../identifiers';

/**
 * The ClickHouse user a key reads as (docker-compose: created with its row policies by the analyst
 * DDL, docs/analytics.md): one name for the DDL and for the adapter that logs in as it.
 */
export function analystUserName(keyId: string): string {
  return identifier(`key_${keyId.replace(/[^A-Za-z0-9_]/g, '_')}`, 'user name');
}

export interface HttpAnalystSqlOptions {
  /** The ClickHouse server's HTTP interface, e.g. http://clickhouse:8123 (internal network only). */
  url: string;
  database: string;
  /** Per statement; the users' settings profile bounds the statement itself. Default 60 s. */
  requestTimeoutMs?: number;
}

/**
 * Reverses the client's escaping of a query parameter's text (\t \n \r \' \\), so that the server
 * reads a `param_name` as the analyst sent it: the HTTP interface's values are already escaped
 * text. Other escapes (\N, \0, \xNN) reach the server with their backslash escaped once more.
 */
const unescapeParam = (value: string) => value.replace(/\\([tnr'\\])/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c);

/**
 * The real analyst SQL adapter: each statement runs on a ClickHouse server as the reading key's own
 * ClickHouse user (its password is the key), so the server's row policies and readonly profile,
 * not this process, decide what the statement sees. The answer is read whole, as the HTTP handler
 * records it in the access log before sending it (wait_end_of_query=1 makes the server's summary
 * header final: without it ClickHouse sends the header before the rows are read).
 */
export function createHttpAnalystSql(opts: HttpAnalystSqlOptions): AnalystSql {
  const client = createClient({
    url: opts.url,
    database: identifier(opts.database, 'database name'),
    request_timeout: opts.requestTimeoutMs ?? 60_000,
    application: 'evp-analyst-sql',
    // A failure is the analyst's answer (a ClickHouseFailure), logged by the handler if at all.
    log: { level: ClickHouseLogLevel.OFF },
  });
  return {
    async query(q: AnalystQuery): Promise<AnalystResult> {
      if (!q.credentials) throw new ClickHouseFailure(516, 'AUTHENTICATION_FAILED', 'no key to run the statement as');
      const started = process.hrtime.bigint();
      try {
        const res = await client.exec({
          query: q.sql,
          auth: { username: analystUserName(q.credentials.keyId), password: q.credentials.key },
          query_params: Object.fromEntries(Object.entries(q.params).map(([k, v]) => [k, unescapeParam(v)])),
          clickhouse_settings: { wait_end_of_query: 1 },
          // The default format as a header, not the default_format setting: a readonly user may not change settings.
          http_headers: { 'X-ClickHouse-Format': q.format },
        });
        const chunks: Buffer[] = [];
        for await (const chunk of res.stream) chunks.push(chunk as Buffer);
        const format = res.response_headers['x-clickhouse-format'];
        const summary = res.summary;
        return {
          body: Buffer.concat(chunks),
          format: typeof format === 'string' ? format : q.format,
          readRows: Number(summary?.read_rows ?? 0),
          readBytes: Number(summary?.read_bytes ?? 0),
          // Servers before 23.x send no elapsed_ns: then the time this process waited.
          elapsedNs: summary?.elapsed_ns !== undefined ? Number(summary.elapsed_ns) : Number(process.hrtime.bigint() - started),
        };
      } catch (err) {
        if (err instanceof ClickHouseError) {
          // The client's message keeps the `. ` before `(TYPE)`; ClickHouseFailure.text() puts it back.
          throw new ClickHouseFailure(Number(err.code), err.type ?? 'UNKNOWN', err.message.replace(/\.?\s*$/, ''));
        }
        throw ClickHouseFailure.from(err);
      }
    },
    close: () => client.close(),
  };
}
