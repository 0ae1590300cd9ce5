import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { KeyRing, createLogger } from '@evp/core';
import { chdbScratchPath, createChdbAnalystSql } from '@evp/embedded';
import { requireProgram, uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';

// ClickHouse's official JDBC driver (com.clickhouse:clickhouse-jdbc from Maven Central, dev/jdbc/pom.xml)
// against the ClickHouse HTTP interface as `npm start` serves it, with the URL every guide gives and
// nothing else: the driver's defaults (compress=1: ClickHouse's compressed blocks) must work, the
// schema must be browsable, and only the key's app may show. dev/jdbc/JdbcCheck.java does what the
// tools do and prints one line per check.
const run = promisify(execFile);
const A_KEY = 'analyst_a_0123456789abcdef';
const B_KEY = 'analyst_b_0123456789abcdef';
const keys = new KeyRing({
  keys: [
    { id: 'a-analyst', app_id: 'app-a', role: 'analyst', key: A_KEY },
    { id: 'b-analyst', app_id: 'app-b', role: 'analyst', key: B_KEY },
  ],
});
/** JdbcCheck.java's list: every system table a key may read. */
const READABLE_SYSTEM_TABLES = [
  'databases',
  'tables',
  'columns',
  'one',
  'functions',
  'data_type_families',
  'table_engines',
  'table_functions',
  'formats',
  'settings',
  'time_zones',
  'collations',
  'build_options',
];
const POM = resolve(__dirname, '../../jdbc/pom.xml');
const CHECK = resolve(__dirname, '../../jdbc/JdbcCheck.java');

/**
 * The driver's classpath from Maven: offline from ~/.m2 when it holds the artifacts (every run but
 * the first), else downloaded once from Maven Central into ~/.m2.
 */
async function driverClasspath(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'evp-jdbc-'));
  const file = join(dir, 'classpath.txt');
  const args = ['-q', '-B', '-f', POM, 'dependency:build-classpath', `-Dmdep.outputFile=${file}`];
  try {
    try {
      await run(requireProgram('mvn'), ['-o', ...args], { timeout: 120_000 });
    } catch {
      await run(requireProgram('mvn'), args, { timeout: 600_000 });
    }
    return readFileSync(file, 'utf8').trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the ClickHouse JDBC driver on the HTTP interface', () => {
  let pipeline: RunningPipeline;
  const database = uniqueName('jdbc').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  let classpath: string;

  beforeAll(async () => {
    [pipeline, classpath] = await Promise.all([
      startPipeline({
        parts,
        keys,
        logger: createLogger('jdbc', 'silent'),
        analystSql: createChdbAnalystSql({ path: chdbScratchPath(), database }),
        analystDatabase: database,
        clickhouseHttpPort: 0,
      }),
      driverClasspath(),
    ]);
    const at = '2026-01-01 00:00:00.000';
    const event = (app: string, user: string, name: string) => ({
      event_id: `${app}-${user}-${name}`,
      app_id: app,
      user_id: user,
      name,
      time: at,
      received_at: at,
    });
    await parts.analytics.insert('events', [
      event('app-a', 'a-user-1', 'page'),
      event('app-a', 'a-user-1', 'purchase'),
      event('app-a', 'a-user-2', 'purchase'),
      event('app-b', 'b-user-1', 'purchase'),
      event('app-b', 'b-user-2', 'page'),
    ]);
  }, 700_000);
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  /**
   * A pass-through in front of the interface that notes each request's compress / decompress
   * parameters and the first byte of its body: what the driver really sent.
   */
  const seen: string[] = [];
  let proxy: Server;
  beforeAll(async () => {
    const target = new URL(pipeline.clickhouseHttpUrl as string);
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const q = new URL(req.url ?? '/', 'http://x').searchParams;
        seen.push(`compress=${q.get('compress')} decompress=${q.get('decompress')} body=${body.length > 16 && body[16] === 0x82 ? 'blocks' : 'text'}`);
        const up = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.end(body);
      });
    });
    await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  });
  afterAll(() => new Promise<void>((ok) => proxy.close(() => ok())));

  const check = async (key: string, query: string, ...forbidden: string[]) => {
    const url = `jdbc:clickhouse:http://127.0.0.1:${(proxy.address() as AddressInfo).port}/default${query}`;
    seen.length = 0;
    // A failed connection exits 1 with its `failed` line: the comparison below shows it.
    const { stdout } = await run(requireProgram('java'), ['-cp', classpath, CHECK, url, key, ...forbidden], { timeout: 120_000 }).catch(
      (err: { stdout?: string; stderr?: string }) => ({ stdout: `${err.stdout ?? ''}stderr\t${(err.stderr ?? '').replace(/\s+/g, ' ')}\n` }),
    );
    return Object.fromEntries(
      stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
  };

  /** Everything but the rows is the same for both apps: the schema of the platform's database. */
  const expected = async (query: string, prepared: string) => {
    const scoped = await parts.analytics.query<{ table: string }>(
      'SELECT table FROM system.columns WHERE database = {db:String} AND name = {c:String} ORDER BY table',
      { db: database, c: 'app_id' },
    );
    const columns = await parts.analytics.query<{ name: string; type: string }>(
      'SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String} ORDER BY position',
      { db: database, t: 'events' },
    );
    return {
      product: 'ClickHouse',
      schemas: database,
      tables: scoped.map((r) => `${database} ${r.table} TABLE`).join(', '),
      'columns of events': columns.map((c) => `${c.name} ${c.type}`).join(', '),
      // getPrimaryKeys: the sorting key's expressions, as the driver orders them (by name).
      'primary key of events': 'app_id, event_id, time, toDate(time), user_id',
      'type info has String': 'true',
      'functions named count': 'count',
      'table types has TABLE': 'true',
      query,
      'prepared query': prepared,
      ...Object.fromEntries(READABLE_SYSTEM_TABLES.map((t) => [`system.${t} mentions another app`, 'no'])),
      'SELECT * FROM system.parts': 'refused 497',
      'SELECT * FROM system.processes': 'refused 497',
      // chdb keeps no query log: ClickHouse answers that the table does not exist.
      'SELECT * FROM system.query_log': 'refused 60',
      // A table of the platform's database without app_id (the migrations' record): not the app's.
      'SELECT * FROM schema_migrations': 'refused 497',
      "INSERT INTO events (app_id, event_id) VALUES ('x', 'y')": 'refused 164',
      'ALTER TABLE events DELETE WHERE 1': 'refused 164',
      'SET readonly = 0': 'refused 164',
    };
  };

  it("works with the driver's defaults: the default URL, compressed answers; app-a's rows only", async () => {
    const out = await check(A_KEY, '', 'app-b', 'b-user-1', 'b-user-2');
    expect(out).toEqual(await expected('a-user-1 page, a-user-1 purchase, a-user-2 purchase', 'a-user-1 purchase, a-user-2 purchase'));
    // Every request asked for ClickHouse's compressed blocks (the driver's default) and sent plain SQL.
    expect([...new Set(seen)]).toEqual(['compress=1 decompress=null body=text']);
  });

  it("reads compressed requests too (the driver's decompress=true: decompress=1); app-b's rows only", async () => {
    const out = await check(B_KEY, '?decompress=true', 'app-a', 'a-user-1', 'a-user-2');
    expect(out).toEqual(await expected('b-user-1 purchase, b-user-2 page', 'b-user-1 purchase'));
    expect([...new Set(seen)]).toEqual(['compress=1 decompress=1 body=blocks']);
  });
});
