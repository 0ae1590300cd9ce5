import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { setImmediate } from 'node:timers/promises';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ClickHouseFailure, errorCodes, type AnalystSql, type KeyRing, type Logger } from '@evp/core';
import type { AccessLog } from '@evp/http';
import { compressBlocks, compressedBlocks, decompressBlocks } from './compressed-blocks';

/**
 * ClickHouse's HTTP interface (https://clickhouse.com/docs/interfaces/http) over the analyst SQL
 * port, so analysts' own tools (curl, @clickhouse/client, JDBC over HTTP) work unchanged. Answers
 * are ClickHouse's: the result in the asked format, or `Code: N. DB::Exception: …` with
 * `X-ClickHouse-Exception-Code`. Served by `npm start` on CLICKHOUSE_HTTP_PORT and under `{base}/clickhouse/`,
 * and by the segmenter under `/clickhouse/` (over a ClickHouse server, packages/clickhouse's analyst-sql).
 */
export interface ClickHouseHttpOptions {
  sql: AnalystSql;
  keys: KeyRing;
  logger: Logger;
  /** The platform's database: the one a `database` parameter may name (besides `default`, which means it too). */
  database: string;
  /** Path prefix the interface is mounted under ('' on its own port, '/clickhouse' on the base URL). */
  prefix?: string;
  /**
   * Where each answered statement is recorded before its result is sent (docs/privacy.md, "Access
   * log"): no log, no read. Absent, statements are not recorded (tests of the protocol alone).
   */
  accessLog?: AccessLog;
}

/** Settings only the HTTP layer reads: accepted and not passed on (any other setting is refused by readonly). */
const HTTP_SETTINGS = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'user',
  'password',
  'enable_http_compression',
  'compress',
  'decompress',
  'http_zlib_compression_level',
  'wait_end_of_query',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'session_id',
  'session_timeout',
  'session_check',
  'extremes',
]);

/**
 * Settings clients send with every request at the value ClickHouse has anyway (the JDBC driver sends
 * async_insert=0): as in ClickHouse's readonly mode, "changing" a setting to its current value is
 * accepted; any other value is refused.
 */
const UNCHANGED_SETTINGS: Record<string, string> = { async_insert: '0', wait_for_async_insert: '1', readonly: '1' };

/** ClickHouse's own mapping of error codes to HTTP statuses (HTTPHandler), for the codes this interface answers. */
function httpStatus(code: number): number {
  if (code === 516 || code === 194) return 401;
  if (code === 164 || code === 497) return 403;
  if (code === 48) return 501;
  if (code === 60 || code === 81 || code === 46 || code === 47) return 404;
  if (code === 62 || code === 456 || code === 457 || code === 26 || code === 27 || code === 43) return 400;
  return 500;
}

const CONTENT_TYPES: Record<string, string> = {
  JSON: 'application/json; charset=UTF-8',
  JSONCompact: 'application/json; charset=UTF-8',
  JSONEachRow: 'application/x-ndjson; charset=UTF-8',
  CSV: 'text/csv; charset=UTF-8; header=absent',
  CSVWithNames: 'text/csv; charset=UTF-8; header=present',
};

/** Our own refusals of the credentials, in ClickHouse's shape (516 AUTHENTICATION_FAILED), registered in docs/errors.md. */
function authFailure(code: 'sql_auth_missing' | 'sql_auth_invalid' | 'sql_forbidden_role'): ClickHouseFailure {
  return new ClickHouseFailure(
    code === 'sql_forbidden_role' ? 497 : 516,
    code === 'sql_forbidden_role' ? 'ACCESS_DENIED' : 'AUTHENTICATION_FAILED',
    `${code}: ${errorCodes[code].message}`,
  );
}

/** The key as ClickHouse clients send credentials: X-ClickHouse-Key, basic auth's password (any user), or ?password=. */
function presentedKey(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers['x-clickhouse-key'];
  if (typeof header === 'string' && header !== '') return header;
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const password = decoded.slice(decoded.indexOf(':') + 1);
    if (password !== '') return password;
  }
  if (auth?.startsWith('Bearer ')) return auth.slice(7);
  return url.searchParams.get('password') ?? undefined;
}

/** A boolean setting as ClickHouse reads one in a URL: 1 or true. */
const isOn = (value: string | null) => value === '1' || value === 'true';

/** The body as sent: gzip (Content-Encoding) around ClickHouse's compressed blocks (decompress=1), either optional. */
async function readBody(req: IncomingMessage, framed: boolean): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  const unzipped = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
  return (framed ? decompressBlocks(unzipped) : unzipped).toString('utf8');
}

export function createClickHouseHttpHandler(opts: ClickHouseHttpOptions): RequestListener {
  const prefix = opts.prefix ?? '';
  return (req, res) => {
    void handle(req, res).catch((err: unknown) => {
      opts.logger.error({ err }, 'clickhouse http interface failed');
      if (!res.headersSent) fail(res, ClickHouseFailure.from(err), randomUUID());
    });
  };

  /** compress=1 (the JDBC driver's default): the answer, errors included, in ClickHouse's compressed blocks. */
  function fail(res: ServerResponse, f: ClickHouseFailure, queryId: string, framed = false, status = httpStatus(f.code)) {
    // As ClickHouse, an error is written into the compressed stream too, except 401/403: the JDBC
    // driver reads those bodies as they come (its LZ4 reader wraps every other status only).
    const text = Buffer.from(f.text());
    res
      .writeHead(status, {
        'Content-Type': 'text/plain; charset=UTF-8',
        'X-ClickHouse-Exception-Code': String(f.code),
        'X-ClickHouse-Query-Id': queryId,
      })
      .end(framed && status !== 401 && status !== 403 ? compressBlocks(text) : text);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.slice(prefix.length) || '/';
    if (path === '/ping') return void res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
    const queryId = url.searchParams.get('query_id') ?? randomUUID();
    if (path !== '/' || (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'HEAD')) {
      return fail(res, new ClickHouseFailure(0, 'UNKNOWN', `There is no handle ${path}; use / or /ping`), queryId, false, 404);
    }
    const framed = isOn(url.searchParams.get('compress'));
    const key = presentedKey(req, url);
    if (key === undefined) return fail(res, authFailure('sql_auth_missing'), queryId);
    const grant = opts.keys.lookup(key);
    if (!grant) return fail(res, authFailure('sql_auth_invalid'), queryId);
    if (grant.role !== 'api' && grant.role !== 'analyst') return fail(res, authFailure('sql_forbidden_role'), queryId);
    opts.keys.used(grant);

    const params: Record<string, string> = {};
    for (const [name, value] of url.searchParams) {
      if (name.startsWith('param_')) params[name.slice(6)] = value;
      else if (!HTTP_SETTINGS.has(name) && UNCHANGED_SETTINGS[name] !== value)
        return fail(res, new ClickHouseFailure(164, 'READONLY', `Cannot modify '${name}' setting in readonly mode`), queryId, framed);
    }
    const database = url.searchParams.get('database') ?? req.headers['x-clickhouse-database'];
    if (typeof database === 'string' && database !== 'default' && database !== opts.database) {
      return fail(res, new ClickHouseFailure(81, 'UNKNOWN_DATABASE', `Database ${database} does not exist`), queryId, framed);
    }
    let body = '';
    try {
      if (req.method === 'POST') body = await readBody(req, isOn(url.searchParams.get('decompress')));
    } catch (err) {
      return fail(res, ClickHouseFailure.from(err), queryId, framed);
    }
    const sql = [url.searchParams.get('query') ?? '', body].filter((s) => s !== '').join('\n');
    const header = req.headers['x-clickhouse-format'];
    const format = url.searchParams.get('default_format') ?? (typeof header === 'string' ? header : 'TabSeparated');
    try {
      const result = await opts.sql.query({ appId: grant.appId, sql, format, params, credentials: { keyId: grant.keyId, key } });
      if (opts.accessLog) {
        try {
          await opts.accessLog.append({
            appId: grant.appId,
            keyId: grant.keyId,
            role: grant.role,
            route: 'SQL',
            rows: result.readRows,
            bytes: result.body.length,
            elapsedMs: Math.round(result.elapsedNs / 1e3) / 1e3,
            statement: sql,
          });
        } catch (err) {
          opts.logger.warn({ err, queryId }, 'the access log cannot be written; refusing the result');
          const refusal = new ClickHouseFailure(1002, 'UNKNOWN_EXCEPTION', `access_log_unavailable: ${errorCodes.access_log_unavailable.message}`);
          return fail(res, refusal, queryId, framed, errorCodes.access_log_unavailable.status);
        }
      }
      const summary = {
        read_rows: String(result.readRows),
        read_bytes: String(result.readBytes),
        written_rows: '0',
        written_bytes: '0',
        total_rows_to_read: '0',
        result_rows: '0',
        result_bytes: String(result.body.length),
        elapsed_ns: String(result.elapsedNs),
      };
      const headers: Record<string, string> = {
        'Content-Type': CONTENT_TYPES[result.format] ?? 'text/plain; charset=UTF-8',
        'X-ClickHouse-Format': result.format,
        'X-ClickHouse-Query-Id': queryId,
        'X-ClickHouse-Summary': JSON.stringify(summary),
        'X-ClickHouse-Timezone': 'UTC',
      };
      const gzip = isOn(url.searchParams.get('enable_http_compression')) && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      if (framed && !gzip && req.method !== 'HEAD') {
        // Block by block, yielding between them: a large answer does not hold the event loop for all its checksums.
        res.writeHead(200, headers);
        for (const block of compressedBlocks(result.body)) {
          if (!res.write(block)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
          if (res.destroyed) return;
          await setImmediate();
        }
        return void res.end();
      }
      let out = framed ? compressBlocks(result.body) : result.body;
      if (gzip) {
        out = gzipSync(out);
        headers['Content-Encoding'] = 'gzip';
      }
      res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : out);
    } catch (err) {
      fail(res, ClickHouseFailure.from(err), queryId, framed);
    }
  }
}
