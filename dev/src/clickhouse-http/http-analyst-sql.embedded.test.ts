import { createHttpAnalystSql } from '@evp/clickhouse';
import { ClickHouseFailure, KeyRing, createLogger, sha256Hex, type AnalystQuery, type AnalystSql } from '@evp/core';
import { chdbScratchPath, createChdbAnalystSql } from '@evp/embedded';
import { closeServer, createAccessLog, createInMemoryAccessLogStorage, listen, type AccessLog } from '@evp/http';
import { createClickHouseHttpHandler } from '@evp/clickhouse-http';
import { uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';
import { campaignRow } from './campaign-rows';

// The segmenter's SQL gateway (docker-compose) end to end, except for the server: no ClickHouse
// server runs here, so the "server" is `npm start`'s own ClickHouse HTTP interface over chdb, which
// speaks the same protocol and takes the key as basic auth's password (the user name it ignores, so
// the `key_<id>` users and their row policies are NOT exercised: those are ClickHouse's own).
const A_KEY = 'analyst_a_0123456789abcdef';
const keys = new KeyRing({
  keys: [
    { id: 'a-analyst', app_id: 'app-a', role: 'analyst', key: A_KEY },
    { id: 'b-analyst', app_id: 'app-b', role: 'analyst', key: 'analyst_b_0123456789abcdef' },
  ],
});
const asA = (sql: string, extra: Partial<AnalystQuery> = {}): AnalystQuery => ({
  appId: 'app-a',
  sql,
  format: 'TabSeparated',
  params: {},
  credentials: { keyId: 'a-analyst', key: A_KEY },
  ...extra,
});

async function failure(p: Promise<unknown>): Promise<ClickHouseFailure> {
  try {
    await p;
  } catch (err) {
    return err as ClickHouseFailure;
  }
  throw new Error('expected a ClickHouseFailure');
}

describe('createHttpAnalystSql over a ClickHouse HTTP interface (npm start’s, on chdb)', () => {
  let pipeline: RunningPipeline;
  const database = uniqueName('chgw').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  // The same chdb the "server" answers from, asked directly: the figures the adapter must carry over.
  let direct: AnalystSql;
  let sql: AnalystSql;
  let gateway: Awaited<ReturnType<typeof listen>>;
  let accessLog: AccessLog;

  beforeAll(async () => {
    const path = chdbScratchPath();
    direct = createChdbAnalystSql({ path, database });
    pipeline = await startPipeline({
      parts,
      keys,
      logger: createLogger('chgw', 'silent'),
      analystSql: createChdbAnalystSql({ path, database }),
      analystDatabase: database,
      clickhouseHttpPort: 0,
    });
    const at = '2026-01-01 00:00:00.000';
    const campaign = (app: string, id: string) => campaignRow(app, id, at);
    await parts.analytics.insert('campaigns', [campaign('app-a', 'a1'), campaign('app-a', 'a2'), campaign('app-b', 'b1')]);
    sql = createHttpAnalystSql({ url: pipeline.clickhouseHttpUrl as string, database });
    // The segmenter's composition (services/segmenter/src/main.ts): the handler over the adapter, with an access log.
    accessLog = createAccessLog(createInMemoryAccessLogStorage());
    gateway = await listen(
      createClickHouseHttpHandler({ sql, keys, logger: createLogger('chgw', 'silent'), database, prefix: '/clickhouse', accessLog }),
      0,
      '127.0.0.1',
    );
  });
  afterAll(async () => {
    await closeServer(gateway.server);
    await Promise.allSettled([sql.close(), direct.close()]);
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  it('answers the body, format and the server’s summary figures', async () => {
    const statement = 'SELECT campaign_id FROM campaigns ORDER BY campaign_id';
    const [got, want] = await Promise.all([sql.query(asA(statement)), direct.query(asA(statement))]);
    expect(got.body.toString()).toBe('a1\na2\n');
    expect(got.format).toBe('TabSeparated');
    expect({ readRows: got.readRows, readBytes: got.readBytes }).toEqual({ readRows: want.readRows, readBytes: want.readBytes });
    expect(got.readRows).toBe(2);
    expect(Number.isInteger(got.elapsedNs) && got.elapsedNs > 0).toBe(true);
  });

  it('asks the requested format, and a FORMAT clause wins', async () => {
    const json = await sql.query(asA('SELECT campaign_id FROM campaigns ORDER BY campaign_id', { format: 'JSONEachRow' }));
    expect([json.format, json.body.toString()]).toEqual(['JSONEachRow', '{"campaign_id":"a1"}\n{"campaign_id":"a2"}\n']);
    const csv = await sql.query(asA('SELECT campaign_id, 1 FROM campaigns ORDER BY campaign_id FORMAT CSV', { format: 'JSONEachRow' }));
    expect([csv.format, csv.body.toString()]).toEqual(['CSV', '"a1",1\n"a2",1\n']);
  });

  it('passes {name:Type} parameters on as the analyst sent them', async () => {
    // The client escapes a value's text once more; the adapter undoes exactly that, so the server
    // reads the analyst's own text (npm start's interface takes it verbatim, as the direct run shows).
    const q = asA('SELECT {s:String}, {n:UInt8}', { params: { s: "it\\'s a\\tb\\\\", n: '7' } });
    const [got, want] = await Promise.all([sql.query(q), direct.query(q)]);
    expect(got.body.toString()).toBe(want.body.toString());
    expect(got.body.toString()).toBe("it\\\\\\'s a\\\\tb\\\\\\\\\t7\n");
  });

  it('passes ClickHouse errors through as ClickHouseFailure with their code and type', async () => {
    const insert = "INSERT INTO campaigns (app_id, campaign_id) VALUES ('app-b', 'x')";
    const [got, want] = await Promise.all([failure(sql.query(asA(insert))), failure(direct.query(asA(insert)))]);
    expect(got).toBeInstanceOf(ClickHouseFailure);
    expect({ code: got.code, type: got.type, message: got.message }).toEqual({ code: want.code, type: want.type, message: want.message });
    expect(got.code).toBe(164);
    const missing = await failure(sql.query(asA('SELECT * FROM no_such_table')));
    expect({ code: missing.code, type: missing.type }).toEqual({ code: 60, type: 'UNKNOWN_TABLE' });
    const wrongKey = await failure(sql.query(asA('SELECT 1', { credentials: { keyId: 'a-analyst', key: 'analyst_x_0123456789abcdef' } })));
    expect({ code: wrongKey.code, type: wrongKey.type }).toEqual({ code: 516, type: 'AUTHENTICATION_FAILED' });
    const noKey = await failure(sql.query(asA('SELECT 1', { credentials: undefined })));
    expect({ code: noKey.code, type: noKey.type }).toEqual({ code: 516, type: 'AUTHENTICATION_FAILED' });
  });

  it('through the gateway: one access log entry per answered statement, with hash, text, rows, bytes and time; none for a refusal', async () => {
    const before = (await accessLog.list('app-a', { limit: 100 })).data.length;
    const ask = async (statement: string) => {
      const u = new URL(`http://127.0.0.1:${gateway.port}/clickhouse/`);
      u.searchParams.set('query', statement);
      const res = await fetch(u, { headers: { Authorization: `Basic ${Buffer.from(`anyone:${A_KEY}`).toString('base64')}` } });
      return { status: res.status, text: await res.text(), summary: res.headers.get('x-clickhouse-summary') };
    };
    const statement = 'SELECT campaign_id FROM campaigns ORDER BY campaign_id';
    const ok = await ask(statement);
    expect([ok.status, ok.text]).toEqual([200, 'a1\na2\n']);
    expect(JSON.parse(ok.summary as string)).toMatchObject({ read_rows: '2', result_bytes: '6' });
    const refused = await ask("INSERT INTO campaigns (app_id, campaign_id) VALUES ('app-b', 'x')");
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/^Code: 164\. DB::Exception: .*\(READONLY\)\n$/);
    const entries = (await accessLog.list('app-a', { limit: 100 })).data;
    expect(entries.length - before).toBe(1);
    const entry = entries[0];
    expect({ ...entry, elapsed_ms: typeof entry?.elapsed_ms }).toMatchObject({
      app_id: 'app-a',
      key_id: 'a-analyst',
      role: 'analyst',
      route: 'SQL',
      rows: 2,
      bytes: 6,
      elapsed_ms: 'number',
      statement,
      statement_hash: sha256Hex(statement),
    });
    expect((await accessLog.list('app-b', { limit: 100 })).data).toEqual([]);
  });
});
