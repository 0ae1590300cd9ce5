import request from 'supertest';
import { rawHeaders } from '@evp/contract';
import { createInProcessBus } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
import { API, SDK, envelope, harness } from './test-fixtures';

/**
 * The server-side import routes (the synthetic data generator, docs/api.md "Server-side import"):
 * POST /data/ingest/log and /data/ingest/catalog/{kind} with an API key, answered like the SDK routes.
 */
const setup = () => harness(createInProcessBus());
const asImporter = (app: Parameters<typeof request>[0], path: string) => request(app).post(path).set('Authorization', `Bearer ${API}`);

/** A generator log (log_base.py as_payload_dict). */
const log = (user: string, type = 'identify') => ({
  u_id: user,
  d_id: '-3468023718459170331',
  os: 'android',
  ol: true,
  ts: '2025-03-04T09:12:45.381204Z',
  type,
  ip: '0.0.0.0',
  up: 63849,
  dn: 16846,
  block: 'core',
  props: { action: 'register' },
});

describe('server-side import routes', () => {
  it('splits a flat body into one raw message per user, in order of first appearance, each user’s logs in order', async () => {
    const s = await setup();
    const body = { data: [log('a'), log('b'), log('a', 'app')] };
    const res = await asImporter(s.app, '/data/ingest/log').set('X-Request-Id', 'req-flat').send(body);
    expect([res.status, res.body]).toEqual([200, { accepted: 3, request_id: 'req-flat' }]);
    await waitFor(() => s.raw.length === 2);
    expect(s.raw.map((m) => [m.key, JSON.parse(m.value.toString()), m.headers[rawHeaders.envelopeIndex], m.headers[rawHeaders.envelopeCount]])).toEqual([
      ['app-1:a', { data: [log('a'), log('a', 'app')] }, '0', '2'],
      ['app-1:b', { data: [log('b')] }, '1', '2'],
    ]);
    expect(s.raw[0]!.headers).toMatchObject({ [rawHeaders.keyId]: 'k-api', [rawHeaders.payloadKind]: 'log', [rawHeaders.appId]: 'app-1' });
    await s.close();
  });

  it('copies other top-level keys of a flat body into every part; logs without a user go together', async () => {
    const s = await setup();
    await asImporter(s.app, '/data/ingest/log').send({ data: [log('a'), { type: 'page' }, log('b')], batch: 7 });
    await waitFor(() => s.raw.length === 3);
    expect(s.raw.map((m) => [m.key, JSON.parse(m.value.toString())])).toEqual([
      ['app-1:a', { batch: 7, data: [log('a')] }],
      // Under the empty user: the validator rejects it (a log without a user cannot be attributed).
      ['app-1:', { batch: 7, data: [{ type: 'page' }] }],
      ['app-1:b', { batch: 7, data: [log('b')] }],
    ]);
    await s.close();
  });

  it('takes spec envelopes too, exactly as /v1/ingest/log does', async () => {
    const s = await setup();
    const res = await asImporter(s.app, '/data/ingest/log').send(envelope('u1', 2));
    expect(res.body.accepted).toBe(2);
    await waitFor(() => s.raw.length === 1);
    expect([s.raw[0]!.key, JSON.parse(s.raw[0]!.value.toString())]).toEqual(['app-1:u1', envelope('u1', 2)]);
    await s.close();
  });

  it('splits a flat body sent to the SDK route the same way', async () => {
    const s = await setup();
    await request(s.app)
      .post('/v1/ingest/log')
      .set('Authorization', `Bearer ${SDK}`)
      .send({ data: [log('a'), log('b')] });
    await waitFor(() => s.raw.length === 2);
    expect(s.raw.map((m) => m.key)).toEqual(['app-1:a', 'app-1:b']);
    await s.close();
  });

  it('takes catalog arrays at /data/ingest/catalog/{kind}', async () => {
    const s = await setup();
    const records = [{ id: 'd-1', name: 'Kevin', active_ingredients: "['Aspirin']" }];
    const res = await asImporter(s.app, '/data/ingest/catalog/drug').send(records);
    expect([res.status, res.body.accepted]).toEqual([200, 1]);
    await waitFor(() => s.raw.length === 1);
    expect([s.raw[0]!.key, s.raw[0]!.headers[rawHeaders.payloadKind], JSON.parse(s.raw[0]!.value.toString())]).toEqual([
      'app-1:catalog:drug',
      'catalog:drug',
      records,
    ]);
    const unknown = await asImporter(s.app, '/data/ingest/catalog/No-pe').send(records);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'unknown_catalog_kind']);
    await s.close();
  });

  it.each([
    ['/data/ingest/log', { data: [log('a')] }],
    ['/data/ingest/catalog/user', [{ id: 'u', timezone: 'Z' }]],
  ])('%s wants an API key: none 401, an SDK key 403, nothing produced', async (path, body) => {
    const s = await setup();
    const none = await request(s.app).post(path).send(body);
    const sdk = await request(s.app).post(path).set('Authorization', `Bearer ${SDK}`).send(body);
    expect([none.status, none.body.error.code, sdk.status, sdk.body.error.code]).toEqual([401, 'auth_missing', 403, 'forbidden_role']);
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it('keeps the SDK routes SDK-only', async () => {
    const s = await setup();
    const res = await asImporter(s.app, '/v1/ingest/log').send({ data: [log('a')] });
    expect([res.status, res.body.error.code]).toEqual([403, 'forbidden_role']);
    await s.close();
  });

  it('applies the same limits: events per request count across users', async () => {
    const s = await setup();
    // testLimits.maxEventsPerRequest is 3.
    const res = await asImporter(s.app, '/data/ingest/log').send({ data: [log('a'), log('b'), log('c'), log('d')] });
    expect([res.status, res.body.error.code]).toEqual([413, 'too_many_events']);
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it('answers no CORS on the import paths: an API key is not for browsers', async () => {
    const s = await setup();
    const preflight = await request(s.app).options('/data/ingest/log').set('Origin', 'https://shop.example').set('Access-Control-Request-Method', 'POST');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const post = await asImporter(s.app, '/data/ingest/log')
      .set('Origin', 'https://shop.example')
      .send({ data: [log('a')] });
    expect([post.status, post.headers['access-control-allow-origin']]).toEqual([200, undefined]);
    // The SDK routes still answer preflights.
    expect((await request(s.app).options('/v1/ingest/log').set('Origin', 'https://shop.example')).status).toBe(204);
    await s.close();
  });
});
