import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { KeyRing, createLogger } from '@evp/core';
import { compressBlocks, decompressBlocks } from '@evp/clickhouse-http';
import { chdbScratchPath, createChdbAnalystSql } from '@evp/embedded';
import { uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';
import { campaignRow } from './campaign-rows';

// ClickHouse's HTTP interface as `npm start` serves it (dev/src/pipeline.ts), over real sockets on
// the embedded chdb: both apps' rows are in the tables, and every answer must hold app-a's only.
const A_KEY = 'analyst_a_0123456789abcdef';
const B_KEY = 'analyst_b_0123456789abcdef';
const A_API = 'api_a_0123456789abcdef0123';
const A_SDK = 'sdk_a_0123456789abcdef0123';
const keys = new KeyRing({
  keys: [
    { id: 'a-analyst', app_id: 'app-a', role: 'analyst', key: A_KEY },
    { id: 'b-analyst', app_id: 'app-b', role: 'analyst', key: B_KEY },
    { id: 'a-api', app_id: 'app-a', role: 'api', key: A_API },
    { id: 'a-sdk', app_id: 'app-a', role: 'sdk', key: A_SDK },
  ],
});

describe('ClickHouse HTTP interface on the embedded pipeline', () => {
  let pipeline: RunningPipeline;
  const database = uniqueName('chhttp').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  let port: string;
  let base: string;

  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      keys,
      logger: createLogger('chhttp', 'silent'),
      analystSql: createChdbAnalystSql({ path: chdbScratchPath(), database, limits: { maxExecutionSeconds: 1, maxResultRows: 1000 } }),
      analystDatabase: database,
      clickhouseHttpPort: 0,
    });
    port = pipeline.clickhouseHttpUrl as string;
    base = `${pipeline.baseUrl}/clickhouse`;
    const at = '2026-01-01 00:00:00.000';
    const campaign = (app: string, id: string) => campaignRow(app, id, at);
    await parts.analytics.insert('campaigns', [
      campaign('app-a', 'a1'),
      campaign('app-a', 'a2'),
      campaign('app-b', 'b1'),
      campaign('app-b', 'b2'),
      campaign('app-b', 'b3'),
    ]);
    const seg = (app: string, id: string) => ({ app_id: app, segment_id: id, version: 1, name: id, definition: '{}', created_at: at, updated_at: at });
    await parts.analytics.insert('segment_definitions', [seg('app-a', 'sa'), seg('app-b', 'sb1'), seg('app-b', 'sb2')]);
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  const get = async (url: string, key: string | undefined, query: string, extra: Record<string, string> = {}) => {
    const u = new URL(url + '/');
    u.searchParams.set('query', query);
    for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
    const res = await fetch(u, { headers: key ? { 'X-ClickHouse-Key': key } : {} });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };

  it('answers curl-shaped requests on its own port and under {base}/clickhouse/', async () => {
    for (const url of [port, base]) {
      expect(await (await fetch(`${url}/ping`)).text()).toBe('Ok.\n');
      const r = await get(url, A_KEY, 'SELECT campaign_id FROM campaigns ORDER BY campaign_id');
      expect([r.status, r.text]).toEqual([200, 'a1\na2\n']);
      expect(r.headers.get('x-clickhouse-format')).toBe('TabSeparated');
      expect(JSON.parse(r.headers.get('x-clickhouse-summary') as string)).toMatchObject({ read_rows: '2' });
      expect(r.headers.get('x-clickhouse-query-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('takes the query in the body, default_format, X-ClickHouse-Format, database, param_x, basic auth and ?password=', async () => {
    const auth = `Basic ${Buffer.from(`anyone:${A_KEY}`).toString('base64')}`;
    const body = await fetch(`${port}/?default_format=JSONEachRow&database=${database}&param_c=a2`, {
      method: 'POST',
      headers: { Authorization: auth },
      body: 'SELECT campaign_id FROM campaigns WHERE campaign_id = {c:String}',
    });
    expect([body.status, await body.text()]).toEqual([200, '{"campaign_id":"a2"}\n']);
    const header = await fetch(`${port}/?query=SELECT+count()+AS+n+FROM+campaigns`, {
      headers: { 'X-ClickHouse-Key': B_KEY, 'X-ClickHouse-Format': 'CSVWithNames' },
    });
    expect(await header.text()).toBe('"n"\n3\n');
    const pw = await fetch(`${port}/?password=${A_API}&query=SELECT+count()+FROM+segment_definitions`);
    expect(await pw.text()).toBe('1\n');
  });

  it('compresses the result when asked (enable_http_compression=1 and Accept-Encoding: gzip)', async () => {
    const res = await fetch(`${port}/?enable_http_compression=1&query=SELECT+campaign_id+FROM+campaigns+ORDER+BY+1`, {
      headers: { 'X-ClickHouse-Key': A_KEY, 'Accept-Encoding': 'gzip' },
    });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    // fetch decodes gzip itself: the text is the plain result.
    expect(await res.text()).toBe('a1\na2\n');
    const raw = await import('node:http').then(
      (http) =>
        new Promise<Buffer>((resolve, reject) =>
          http
            .get(`${port}/?enable_http_compression=1&query=SELECT+1`, { headers: { 'X-ClickHouse-Key': A_KEY, 'Accept-Encoding': 'gzip' } }, (r) => {
              const chunks: Buffer[] = [];
              r.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks)));
            })
            .on('error', reject),
        ),
    );
    expect(raw.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(gunzipSync(raw).toString()).toBe('1\n');
  });

  it('refuses missing, unknown and SDK keys with ClickHouse-shaped errors carrying our codes', async () => {
    const cases: [string | undefined, number, string, string][] = [
      [undefined, 401, '516', 'Code: 516. DB::Exception: sql_auth_missing:'],
      ['not-a-key-0123456789', 401, '516', 'Code: 516. DB::Exception: sql_auth_invalid:'],
      [A_SDK, 403, '497', 'Code: 497. DB::Exception: sql_forbidden_role:'],
    ];
    for (const [key, status, code, start] of cases) {
      const r = await get(port, key, 'SELECT 1');
      expect([r.status, r.headers.get('x-clickhouse-exception-code'), r.text.startsWith(start)]).toEqual([status, code, true]);
    }
  });

  it('works with @clickhouse/client on the port and on {base}/clickhouse', async () => {
    // A path in `url` names the database for this client; a proxy path is its `pathname` option.
    for (const where of [{ url: port }, { url: pipeline.baseUrl, pathname: '/clickhouse' }]) {
      const client = createClient({ ...where, username: 'analyst', password: A_KEY, log: { level: ClickHouseLogLevel.OFF } });
      try {
        expect((await client.ping()).success).toBe(true);
        const rs = await client.query({ query: 'SELECT campaign_id FROM campaigns ORDER BY campaign_id', format: 'JSONEachRow' });
        expect(await rs.json()).toEqual([{ campaign_id: 'a1' }, { campaign_id: 'a2' }]);
        const p = await client.query({
          query: 'SELECT count() AS n FROM campaigns WHERE campaign_id != {c:String}',
          query_params: { c: 'a1' },
          format: 'JSONEachRow',
        });
        expect(await p.json()).toEqual([{ n: 1 }]);
        await expect(client.query({ query: 'SELECT * FROM system.parts', format: 'JSONEachRow' })).rejects.toMatchObject({
          code: '497',
          type: 'ACCESS_DENIED',
        });
      } finally {
        await client.close();
      }
    }
  });

  // Every case with its exact outcome: app-a's rows only, or ClickHouse's error code.
  const ADVERSARIAL: { name: string; sql: string; rows?: string; code?: number }[] = [
    { name: "another app's id in WHERE", sql: "SELECT campaign_id FROM campaigns WHERE app_id = 'app-b'", rows: '' },
    { name: 'OR 1=1', sql: "SELECT campaign_id FROM campaigns WHERE app_id = 'app-b' OR 1=1 ORDER BY 1", rows: 'a1\na2\n' },
    {
      name: 'UNION with another table',
      // ORDER BY after a UNION belongs to its last SELECT in ClickHouse: the union is ordered from outside.
      sql: 'SELECT id FROM (SELECT campaign_id AS id FROM campaigns UNION ALL SELECT segment_id FROM segment_definitions) ORDER BY id',
      rows: 'a1\na2\nsa\n',
    },
    { name: 'subquery on another table', sql: 'SELECT count() FROM (SELECT * FROM segment_definitions)', rows: '1\n' },
    { name: 'CTE', sql: 'WITH s AS (SELECT * FROM segment_definitions) SELECT count() FROM s', rows: '1\n' },
    { name: 'JOIN', sql: 'SELECT count() FROM campaigns c CROSS JOIN segment_definitions s', rows: '2\n' },
    { name: 'IN subquery', sql: 'SELECT count() FROM campaigns WHERE app_id IN (SELECT app_id FROM segment_definitions)', rows: '2\n' },
    { name: 'qualified name', sql: `SELECT count() FROM ${database}.campaigns FINAL`, rows: '2\n' },
    // The schema views: the platform's database and its app-scoped tables only (jdbc.integration.test.ts browses them with the driver).
    { name: 'system.databases', sql: 'SELECT name FROM system.databases', rows: `${database}\n` },
    {
      name: 'system.tables',
      sql: "SELECT database, name FROM system.tables WHERE name IN ('campaigns', 'schema_migrations', 'one', 'tables')",
      rows: `${database}\tcampaigns\n`,
    },
    { name: 'system.columns', sql: "SELECT count() > 5, countIf(table = 'campaigns') FROM system.columns WHERE database != 'system'", rows: '1\t9\n' },
    { name: 'system.processes (other queries)', sql: 'SELECT query FROM system.processes', code: 497 },
    // chdb keeps no query log: ClickHouse itself answers that the table does not exist.
    { name: 'system.query_log', sql: 'SELECT query FROM system.query_log', code: 60 },
    { name: 'system.parts', sql: 'SELECT count() FROM system.parts', code: 497 },
    { name: 'system table in a subquery', sql: 'SELECT count() FROM campaigns WHERE campaign_id IN (SELECT name FROM system.parts)', code: 497 },
    { name: 'file() table function', sql: "SELECT * FROM file('/etc/hostname', 'LineAsString')", code: 497 },
    { name: 'file() scalar function', sql: "SELECT file('/etc/hostname')", code: 497 },
    { name: 'url()', sql: "SELECT * FROM url('http://127.0.0.1:1/', 'CSV', 'a String')", code: 497 },
    { name: 'remote()', sql: "SELECT * FROM remote('127.0.0.1', system.one)", code: 497 },
    { name: 'merge() over every table', sql: `SELECT count() FROM merge('${database}', '^campaigns$')`, code: 497 },
    { name: 'input()', sql: "SELECT * FROM input('a String')", code: 497 },
    { name: 'numbers() (harmless: allowed)', sql: 'SELECT sum(number) FROM numbers(4)', rows: '6\n' },
    { name: 'INTO OUTFILE', sql: "SELECT 1 INTO OUTFILE '/tmp/evp-analyst-outfile.txt'", code: 164 },
    { name: 'FORMAT Null hiding a table from the check', sql: 'SELECT name FROM system.parts FORMAT Null', code: 497 },
    { name: 'SETTINGS readonly=0', sql: 'SELECT count() FROM campaigns SETTINGS readonly = 0', code: 164 },
    { name: 'SETTINGS additional_table_filters', sql: "SELECT count() FROM campaigns SETTINGS additional_table_filters = {'campaigns': '1'}", code: 164 },
    { name: 'SETTINGS in a subquery', sql: 'SELECT count() FROM (SELECT * FROM campaigns SETTINGS readonly = 0)', code: 164 },
    { name: 'SET', sql: 'SET readonly = 0', code: 164 },
    { name: 'INSERT', sql: "INSERT INTO campaigns (app_id, campaign_id) VALUES ('app-b', 'x')", code: 164 },
    { name: 'CREATE', sql: 'CREATE TABLE t (a UInt8) ENGINE = Memory', code: 164 },
    { name: 'DROP', sql: 'DROP TABLE campaigns', code: 164 },
    { name: 'ALTER … DELETE', sql: 'ALTER TABLE campaigns DELETE WHERE 1', code: 164 },
    { name: 'OPTIMIZE', sql: 'OPTIMIZE TABLE campaigns', code: 164 },
    { name: 'SYSTEM', sql: 'SYSTEM FLUSH LOGS', code: 164 },
    { name: 'KILL QUERY', sql: 'KILL QUERY WHERE 1', code: 164 },
    { name: 'multi-statement ; DROP', sql: 'SELECT 1; DROP TABLE campaigns', code: 62 },
    { name: 'EXISTS (metadata: refused)', sql: 'EXISTS TABLE campaigns', code: 164 },
    // What Grafana's ClickHouse data source sends to browse: narrowed like the schema views.
    { name: 'SHOW DATABASES', sql: 'SHOW DATABASES', rows: `${database}\n` },
    { name: 'SHOW TABLES LIKE', sql: "SHOW TABLES LIKE 'campaign%'", rows: 'campaign_outcomes\ncampaign_settings\ncampaigns\n' },
    { name: 'SHOW TABLES FROM system', sql: 'SHOW TABLES FROM system', rows: '' },
    {
      name: 'DESCRIBE TABLE',
      sql: `DESC TABLE "${database}"."segment_definitions" FORMAT JSONEachRow`,
      rows: [
        ['app_id', 'LowCardinality(String)'],
        ['segment_id', 'String'],
        ['version', 'UInt32'],
        ['name', 'String'],
        ['definition', 'String', 'the definition as JSON text'],
        ['created_at', "DateTime64(3, 'UTC')"],
        ['updated_at', "DateTime64(3, 'UTC')"],
        ['deleted', 'Bool'],
      ]
        .map(
          ([name, type, comment = '']) =>
            `${JSON.stringify({ name, type, default_type: '', default_expression: '', comment, codec_expression: '', ttl_expression: '' })}\n`,
        )
        .join(''),
    },
    { name: 'DESCRIBE a table without app_id', sql: 'DESCRIBE TABLE schema_migrations', code: 497 },
    { name: 'DESCRIBE a system table', sql: 'DESCRIBE TABLE system.processes', code: 497 },
    { name: 'DESCRIBE a subquery', sql: 'DESCRIBE (SELECT * FROM system.parts)', code: 164 },
    { name: 'SHOW DICTIONARIES (refused)', sql: 'SHOW DICTIONARIES', code: 164 },
    { name: 'SHOW PROCESSLIST (refused)', sql: 'SHOW PROCESSLIST', code: 164 },
    { name: 'SHOW CREATE TABLE of a table without app_id', sql: 'SHOW CREATE TABLE schema_migrations', code: 497 },
    { name: 'SHOW CREATE DATABASE (refused)', sql: 'SHOW CREATE DATABASE default', code: 164 },
    { name: 'SHOW TABLES … INTO OUTFILE', sql: "SHOW TABLES INTO OUTFILE '/tmp/evp-analyst-outfile.txt'", code: 164 },
    { name: 'EXPLAIN (refused)', sql: 'EXPLAIN SELECT * FROM system.tables', code: 164 },
    { name: 'over the row limit (1000)', sql: 'SELECT number FROM numbers(5000)', code: 396 },
    { name: 'over the time limit (1 s)', sql: 'SELECT count() FROM numbers(100000000000)', code: 159 },
  ];

  it.each(ADVERSARIAL)('$name', async ({ sql, rows, code }) => {
    const r = await get(port, A_KEY, sql);
    if (rows !== undefined) expect([r.status, r.text]).toEqual([200, rows]);
    else {
      expect([r.headers.get('x-clickhouse-exception-code'), r.text]).toEqual([
        String(code),
        expect.stringMatching(new RegExp(`^Code: ${code}\\. DB::Exception: `)),
      ]);
      expect(r.status).toBe(code === 164 || code === 497 ? 403 : code === 62 ? 400 : code === 60 ? 404 : 500);
    }
  });

  it("answers SHOW CREATE TABLE of an app-scoped table (DBeaver's DDL tab)", async () => {
    const r = await get(port, A_KEY, 'SHOW CREATE TABLE campaigns FORMAT TSVRaw');
    expect([r.status, r.text.split('\n')[0]]).toEqual([200, `CREATE TABLE ${database}.campaigns`]);
  });

  // Statements the tools send at connect time and while browsing, as their sources write them
  // (docs/analytics.md, "Connect DBeaver / DataGrip / Metabase"); the driver's own are run by jdbc.integration.test.ts.
  const TOOLS: { tool: string; sql: string; rows: string | RegExp }[] = [
    { tool: 'Grafana: databases', sql: 'SHOW DATABASES', rows: `${database}\n` },
    { tool: 'Grafana: tables', sql: `SHOW TABLES FROM "${database}"`, rows: /^actions_log\n(\w+\n)+$/ },
    { tool: 'Grafana: columns', sql: `DESC TABLE "${database}"."campaigns"`, rows: /^app_id\tLowCardinality\(String\)\t/ },
    {
      tool: 'Grafana: columns for ad hoc filters',
      sql: `SELECT name, type, table FROM system.columns WHERE database IN ('${database}') AND table = 'segment_definitions'`,
      rows: /^app_id\tLowCardinality\(String\)\tsegment_definitions\n(\w+\t[^\n]+\tsegment_definitions\n){7}$/,
    },
    {
      // Grafana's LIMIT is 10000; this file's row limit is 1000.
      tool: 'Grafana: SQL functions',
      sql: 'SELECT name, is_aggregate, case_insensitive, alias_to, origin, description, syntax, arguments, returned_value, examples, categories FROM system.functions LIMIT 1000',
      rows: /^(.*\n){1000}$/,
    },
    {
      tool: 'DBeaver: tables',
      sql: `SELECT name as TABLE_NAME, engine as TABLE_TYPE, database as TABLE_SCHEM,comment as REMARKS, * FROM system.tables WHERE database = '${database}' and name='campaigns'`,
      rows: /^campaigns\tReplacingMergeTree\t/,
    },
    { tool: 'DBeaver: engines', sql: 'SELECT name FROM system.table_engines', rows: /\nReplacingMergeTree\n/ },
    { tool: 'Metabase: cloud probe', sql: "SELECT value='1' FROM system.settings WHERE name='cloud_mode'", rows: '0\n' },
    { tool: 'Metabase: database check', sql: `SELECT count(*) > 0 FROM system.databases WHERE name = '${database}'`, rows: '1\n' },
    {
      tool: 'Metabase: version',
      sql: "WITH s AS (SELECT version() AS ver, splitByChar('.', ver) AS verSplit) SELECT s.ver, toInt32(verSplit[1]), toInt32(verSplit[2]) FROM s",
      rows: /^\d+\.\d+[.\d]*\t\d+\t\d+\n$/,
    },
    { tool: 'Metabase: time zone', sql: 'SELECT timezone() AS tz', rows: /^(Etc\/)?UTC\n$/ },
  ];

  it.each(TOOLS)('answers $tool', async ({ sql, rows }) => {
    const r = await get(port, A_KEY, sql);
    expect([r.status, r.text]).toEqual([200, typeof rows === 'string' ? rows : expect.stringMatching(rows)]);
  });

  it("app-b's key sees app-b's rows only", async () => {
    expect((await get(port, B_KEY, 'SELECT campaign_id FROM campaigns ORDER BY 1')).text).toBe('b1\nb2\nb3\n');
  });

  it('leaves the pipeline’s own session writable (the analyst settings are per session)', async () => {
    await parts.analytics.command(
      `INSERT INTO campaigns (app_id, campaign_id, version, name, document, state, created_at, updated_at) VALUES ('app-a', 'a3', 1, 'a3', '{}', 'draft', now64(3), now64(3))`,
    );
    expect((await get(port, A_KEY, 'SELECT count() FROM campaigns')).text).toBe('3\n');
  });

  // docs/analytics.md: every example query runs as printed, with an analyst key, its {name:Type}
  // placeholders given as param_name (app-a's rows only, so the counts are app-a's).
  it('runs every example query of docs/analytics.md as printed', async () => {
    const doc = readFileSync(resolve(__dirname, '../../../docs/analytics.md'), 'utf8');
    const queries = [...doc.matchAll(/```(?:sql)?\n([\s\S]*?)```/g)].map((m) => m[1] as string).filter((q) => /^(--[^\n]*\n)*SELECT\b/.test(q));
    expect(queries).toHaveLength(11);
    const values: Record<string, string> = { app: 'app-a', from: '2000-01-01 00:00:00.000', to: '2100-01-01 00:00:00.000', inv: '1', segment: 'sa' };
    for (const q of queries) {
      const params = Object.fromEntries([...q.matchAll(/\{(\w+):[^}]+\}/g)].map((m) => [`param_${m[1]}`, values[m[1] as string] ?? 'x']));
      const r = await get(port, A_KEY, q, params);
      expect([q, r.status, r.text.startsWith('Code:') ? r.text : 'ok']).toEqual([q, 200, 'ok']);
    }
  });

  it("speaks ClickHouse's compressed blocks both ways (compress=1, decompress=1), errors included", async () => {
    const post = (query: string, sql: Buffer) =>
      fetch(`${port}/?${query}`, { method: 'POST', headers: { 'X-ClickHouse-Key': A_KEY }, body: new Uint8Array(sql) });
    const framed = compressBlocks(Buffer.from("SELECT campaign_id FROM campaigns WHERE campaign_id < 'a3' ORDER BY 1"));
    const ok = await post('compress=1&decompress=1', framed);
    expect([ok.status, decompressBlocks(Buffer.from(await ok.arrayBuffer())).toString()]).toEqual([200, 'a1\na2\n']);
    // An answer over 1 MiB comes in several blocks (written one by one).
    const big = await post('compress=1', Buffer.from("SELECT repeat('x', 1099) FROM numbers(1000)"));
    const bigBody = Buffer.from(await big.arrayBuffer());
    expect([bigBody.readUInt32LE(21), decompressBlocks(bigBody).toString()]).toEqual([1024 * 1024, `${'x'.repeat(1099)}\n`.repeat(1000)]);
    const spelled = await post('compress=true&decompress=true', framed);
    expect(decompressBlocks(Buffer.from(await spelled.arrayBuffer())).toString()).toBe('a1\na2\n');
    const plain = await post('compress=0&decompress=1', framed);
    expect([plain.status, await plain.text()]).toEqual([200, 'a1\na2\n']);
    // A failing query's answer is framed too (ClickHouse writes it into the compressed stream)…
    const bad = await post('compress=1', Buffer.from('SELECT nope FROM campaigns'));
    expect([bad.status, bad.headers.get('x-clickhouse-exception-code')]).toEqual([404, '47']);
    expect(decompressBlocks(Buffer.from(await bad.arrayBuffer())).toString()).toMatch(/^Code: 47\. DB::Exception: /);
    // …except 401/403, which the JDBC driver reads as they come.
    const denied = await post('compress=1', Buffer.from('SELECT count() FROM system.parts'));
    expect([denied.status, (await denied.text()).startsWith('Code: 497. DB::Exception: ')]).toEqual([403, true]);
    const corrupt = Buffer.from(framed);
    corrupt[corrupt.length - 1] = (corrupt[corrupt.length - 1] as number) ^ 1;
    const broken = await post('decompress=1', corrupt);
    expect([broken.status, broken.headers.get('x-clickhouse-exception-code')]).toEqual([500, '40']);
  });
});
