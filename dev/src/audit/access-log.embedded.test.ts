import { KeyRing, createLogger, sha256Hex } from '@evp/core';
import { chdbScratchPath, createChdbAnalystSql } from '@evp/embedded';
import { createAccessLog, createInMemoryAccessLogStorage, type AccessEntry } from '@evp/http';
import { uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';
import { verifyAll } from './verify';

// The issue's proof, on `npm start`'s pipeline over real sockets: a scripted sequence of SQL,
// inspector, segment member listing and bulk pull by app-a, and one SQL read by app-b; every read is
// in app-a's log exactly once with its fields, app-b's is not, and the chains verify.
const A_ANALYST = 'analyst_a_0123456789abcdef';
const A_API = 'api_a_0123456789abcdef0123';
const B_ANALYST = 'analyst_b_0123456789abcdef';
const B_API = 'api_b_0123456789abcdef0123';
const keys = new KeyRing({
  keys: [
    { id: 'a-analyst', app_id: 'app-a', role: 'analyst', key: A_ANALYST },
    { id: 'a-api', app_id: 'app-a', role: 'api', key: A_API },
    { id: 'b-analyst', app_id: 'app-b', role: 'analyst', key: B_ANALYST },
    { id: 'b-api', app_id: 'app-b', role: 'api', key: B_API },
  ],
});

describe('the access log after a scripted sequence of reads', () => {
  let pipeline: RunningPipeline;
  const database = uniqueName('audit').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  const accessLog = createAccessLog(createInMemoryAccessLogStorage());

  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      keys,
      logger: createLogger('audit', 'silent'),
      analystSql: createChdbAnalystSql({ path: chdbScratchPath(), database }),
      analystDatabase: database,
      accessLog,
    });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const sql = async (key: string, query: string) => {
    const res = await fetch(`${pipeline.baseUrl}/clickhouse/?query=${encodeURIComponent(query)}`, { headers: { 'X-ClickHouse-Key': key } });
    return { status: res.status, text: await res.text() };
  };

  it('holds each read once, with its fields; each app sees only its own', async () => {
    const statement = 'SELECT count() FROM events';
    expect(await sql(A_ANALYST, statement)).toEqual({ status: 200, text: '0\n' });
    expect((await call(A_API, 'GET', '/v1/inspect/events?user_id=patient-7&limit=5')).status).toBe(200);
    const created = await call(A_API, 'POST', '/v1/segments', { name: 'buyers', definition: { event: 'checkout', count: { gte: 1 } } });
    expect(created.status).toBe(201);
    const segmentId = (created.body as { id: string }).id;
    const members = await call(A_API, 'GET', `/v1/segments/${segmentId}/members?limit=10`);
    expect(members).toEqual({ status: 200, body: { data: [] } });
    const pull = await call(A_API, 'POST', '/v1/action/pull', {
      user_id: 'patient-7',
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
    });
    expect(pull).toEqual({ status: 200, body: { data: [], more: false } });
    expect((await sql(B_ANALYST, 'SELECT 1')).status).toBe(200);

    const a = await call(A_API, 'GET', '/v1/audit/reads');
    expect(a.status).toBe(200);
    const entries = (a.body.data as AccessEntry[]).map(({ at, hash, prev_hash, ...rest }) => {
      expect([typeof at, hash.length, prev_hash.length]).toEqual(['number', 64, 64]);
      return rest;
    });
    const none = { person: null, rows: null, bytes: null, elapsed_ms: null, statement_hash: null, statement: null };
    expect(entries).toEqual([
      { ...none, seq: 4, app_id: 'app-a', key_id: 'a-api', role: 'api', route: 'POST /v1/action/pull', person: 'patient-7' },
      { ...none, seq: 3, app_id: 'app-a', key_id: 'a-api', role: 'api', route: 'GET /v1/segments/{segment_id}/members', rows: 0 },
      { ...none, seq: 2, app_id: 'app-a', key_id: 'a-api', role: 'api', route: 'GET /v1/inspect/events', person: 'patient-7', rows: 0 },
      {
        ...none,
        seq: 1,
        app_id: 'app-a',
        key_id: 'a-analyst',
        role: 'analyst',
        route: 'SQL',
        rows: expect.any(Number) as number,
        bytes: 2,
        elapsed_ms: expect.any(Number) as number,
        statement_hash: sha256Hex(statement),
        statement,
      },
    ]);
    expect(a.body.cursor).toBeUndefined();

    // app-b's key sees its one read, and no filter of app-a's reaches app-b's.
    const b = await call(B_API, 'GET', '/v1/audit/reads?route=SQL');
    expect((b.body.data as AccessEntry[]).map((e) => [e.seq, e.app_id, e.key_id, e.statement])).toEqual([[1, 'app-b', 'b-analyst', 'SELECT 1']]);
    expect((await call(B_API, 'GET', '/v1/audit/reads?person=patient-7')).body).toEqual({ data: [] });

    // Filters and paging on app-a's.
    const byPerson = await call(A_API, 'GET', '/v1/audit/reads?person=patient-7');
    expect((byPerson.body.data as AccessEntry[]).map((e) => e.seq)).toEqual([4, 2]);
    const page1 = await call(A_API, 'GET', '/v1/audit/reads?limit=3');
    expect([(page1.body.data as AccessEntry[]).map((e) => e.seq), page1.body.cursor]).toEqual([[4, 3, 2], '2']);
    const page2 = await call(A_API, 'GET', '/v1/audit/reads?limit=3&cursor=2');
    expect(page2.body).toMatchObject({ data: [{ seq: 1 }] });
    const bad = await call(A_API, 'GET', '/v1/audit/reads?from=yesterday');
    expect([bad.status, bad.body.error]).toEqual([400, expect.objectContaining({ code: 'invalid_request', path: 'query.from' })]);
    const sdkish = await call(A_ANALYST, 'GET', '/v1/audit/reads');
    expect(sdkish.status).toBe(403);

    const lines: string[] = [];
    expect(await verifyAll(accessLog, [], (l) => lines.push(l))).toBe(true);
    expect(lines.map((l) => l.replace(/ [0-9a-f]{64}$/, ''))).toEqual(['app-a: ok, 4 entries, head 4', 'app-b: ok, 1 entries, head 1']);
  });
});
