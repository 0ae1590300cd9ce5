import type { OpenApiFragment } from '@evp/http';

const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
const failure = (description: string) => ({
  ...text(`${description} Body: \`Code: N. DB::Exception: … (NAME)\`; header \`X-ClickHouse-Exception-Code: N\`.`),
  headers: { 'X-ClickHouse-Exception-Code': { schema: { type: 'string' } } },
});
const credentials =
  'An analyst or API key of the app (never an SDK key), as ClickHouse clients give credentials: the basic auth password (any user name), `X-ClickHouse-Key`, or `?password=`. The query sees the key’s app’s rows only (docs/analytics.md, “Querying with your own ClickHouse tools”). Also served on CLICKHOUSE_HTTP_PORT (default 8123) without the /clickhouse prefix.';
const parameters = [
  { name: 'query', in: 'query', schema: { type: 'string' }, description: 'The SQL (joined by a newline with the body, if both are given).' },
  {
    name: 'default_format',
    in: 'query',
    schema: { type: 'string', default: 'TabSeparated' },
    description: 'Output format when the SQL has no FORMAT clause (also the X-ClickHouse-Format header).',
  },
  { name: 'database', in: 'query', schema: { type: 'string', enum: ['default', 'analytics'] } },
  { name: 'param_{name}', in: 'query', schema: { type: 'string' }, description: 'Value of a `{name:Type}` placeholder.' },
  {
    name: 'enable_http_compression',
    in: 'query',
    schema: { type: 'string', enum: ['0', '1'] },
    description: 'With Accept-Encoding: gzip, the result is gzipped.',
  },
  { name: 'query_id', in: 'query', schema: { type: 'string' } },
  {
    name: 'compress',
    in: 'query',
    schema: { type: 'string', enum: ['0', '1', 'true', 'false'] },
    description:
      'With 1 (what the JDBC driver asks by default), the answer comes in ClickHouse’s compressed blocks: LZ4 with a CityHash128 checksum per block (docs/analytics.md).',
  },
  {
    name: 'decompress',
    in: 'query',
    schema: { type: 'string', enum: ['0', '1', 'true', 'false'] },
    description: 'With 1, the request body is read as ClickHouse’s compressed blocks (a bad checksum answers 40 CHECKSUM_DOESNT_MATCH).',
  },
];
const responses = {
  '200': {
    ...text('The result in the asked format.'),
    headers: {
      'X-ClickHouse-Query-Id': { schema: { type: 'string' } },
      'X-ClickHouse-Summary': { schema: { type: 'string' } },
      'X-ClickHouse-Format': { schema: { type: 'string' } },
    },
  },
  '400': failure('Syntax error (62), several statements, unknown query parameter (456).'),
  '401': failure('No key (sql_auth_missing) or an unknown one (sql_auth_invalid): Code 516 AUTHENTICATION_FAILED.'),
  '403': failure(
    'An SDK key (sql_forbidden_role, 497); anything but a SELECT, SETTINGS, a setting in the URL (164 READONLY); a table or function outside the app’s tables (497 ACCESS_DENIED).',
  ),
  '404': failure('Unknown table (60).'),
  '500': failure('Over a limit: time (159), rows or bytes (396), memory (241).'),
};

/** ClickHouse's HTTP interface under the base URL (packages/clickhouse-http/src/handler.ts): not a service of the route table, so the edge's. */
export function clickhouseHttpOpenApi(): OpenApiFragment {
  return {
    service: 'edge',
    paths: {
      // `/clickhouse` and `/clickhouse/` are one handle (handler.ts reads an empty rest of the path as `/`).
      '/clickhouse': {
        get: {
          operationId: 'clickhouseQuery',
          summary: 'Run a read-only SQL query (ClickHouse HTTP interface)',
          description: credentials,
          security: [],
          parameters,
          responses,
        },
        post: {
          operationId: 'clickhouseQueryWithBody',
          summary: 'Run a read-only SQL query given in the body (ClickHouse HTTP interface)',
          description: credentials,
          security: [],
          parameters,
          requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } },
          responses,
        },
      },
      '/clickhouse/ping': {
        get: { operationId: 'clickhousePing', summary: 'ClickHouse HTTP interface liveness', security: [], responses: { '200': text('`Ok.`') } },
      },
    },
    schemas: {},
  };
}
