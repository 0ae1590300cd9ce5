import request from 'supertest';
import { allTopics, createLogger, KeyRing } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { insertEvents, userEvent } from '../testing';
import { createSegments } from '../segments';
import { createSegmenterApp } from './app';

// The segments API over the real engine on the embedded adapters (in-process bus and registry,
// chdb): what an API client sees, from a definition to its members.
const API = 'api-key-app1-0123456789';
const SDK = 'sdk-key-app1-0123456789';
const API2 = 'api-key-app2-0123456789';
const keys = new KeyRing({
  keys: [
    { id: 'k-api', app_id: 'app-1', role: 'api', key: API },
    { id: 'k-sdk', app_id: 'app-1', role: 'sdk', key: SDK },
    { id: 'k-api2', app_id: 'app-2', role: 'api', key: API2 },
  ],
});
const chdb = useMigratedChdb('segapi');
const NOW = Date.UTC(2026, 5, 10, 12, 0, 0);
const HOUR = 3_600_000;
const checkout = (app: string, user: string, time: number, ok: boolean) => ({
  ...userEvent(app, user, 'checkout', time),
  props: { id: 'o-1', cart_id: 'c-1', cart_price: 10, currency: 'EUR', items: [], is_successful: ok },
});
const twice = { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }], count: { gte: 2 }, within: 'P7D' };
const once = { ...twice, count: { gte: 1 } };

describe('segments API', () => {
  let segments: ReturnType<typeof createSegments>;
  let app: ReturnType<typeof createSegmenterApp>['app'];
  const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

  beforeAll(async () => {
    const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
    await bus.ensureTopics(allTopics());
    const logger = createLogger('test', 'silent');
    segments = createSegments({
      analytics: chdb.analytics,
      bus,
      registry: createInProcessRegistry(),
      logger,
      now: () => NOW,
      config: { recomputeIntervalMs: 0, refreshIntervalMs: 0 },
    });
    await segments.engine.start();
    app = createSegmenterApp({ analytics: chdb.analytics, keys, logger, segments: segments.service }).app;
    await insertEvents(chdb.analytics, [
      checkout('app-1', 'u-1', NOW - 2 * HOUR, true),
      checkout('app-1', 'u-1', NOW - HOUR, true),
      checkout('app-1', 'u-2', NOW - HOUR, true),
      checkout('app-1', 'u-3', NOW - HOUR, false),
      // Another app's user with the same id and enough checkouts: never a member of app-1's segments.
      checkout('app-2', 'u-2', NOW - 2 * HOUR, true),
      checkout('app-2', 'u-2', NOW - HOUR, true),
    ]);
  });
  afterAll(() => segments.engine.stop());

  const members = async (id: string, key = API) =>
    (await request(app).get(`/v1/segments/${id}/members`).set(auth(key))).body as { data: { user_id: string }[] };
  const membersAre = (id: string, users: string[]) =>
    waitFor(async () => JSON.stringify((await members(id)).data.map((m) => m.user_id)) === JSON.stringify(users), {
      timeoutMs: 20_000,
      what: `members ${users.join(',')}`,
    });

  it('refuses an SDK key (403 forbidden_role) and a request without a key (401)', async () => {
    const sdk = await request(app).post('/v1/segments').set(auth(SDK)).send({ name: 'x', definition: once });
    expect([sdk.status, sdk.body.error.code]).toEqual([403, 'forbidden_role']);
    const none = await request(app).get('/v1/segments');
    expect([none.status, none.body.error.code]).toEqual([401, 'auth_missing']);
  });

  it('refuses a definition with every problem and its path from the body root', async () => {
    const res = await request(app)
      .post('/v1/segments')
      .set(auth(API))
      .send({
        name: 'bad',
        definition: { all: [{ event: 'checkout', where: [{ prop: 'cart_price', op: 'contains', value: 'x' }] }, { event: 'no_such_event' }] },
      });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_definition');
    expect(res.body.error.path).toBe('$.definition.all[0].where[0].op');
    expect(res.body.error.details.issue_count).toBe(2);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['$.definition.all[0].where[0].op', '$.definition.all[1].event']);
    const noName = await request(app).post('/v1/segments').set(auth(API)).send({ definition: once });
    expect([noName.status, noName.body.error.code, noName.body.error.path]).toEqual([400, 'invalid_request', '$.name']);
  });

  it('previews without saving: count, the first members and the SQL', async () => {
    const res = await request(app).post('/v1/segments/preview').set(auth(API)).send({ definition: once });
    expect(res.status).toBe(200);
    expect([res.body.count, res.body.sample]).toEqual([2, ['u-1', 'u-2']]);
    expect(res.body.sql).toContain('FROM events');
    expect((await request(app).get('/v1/segments').set(auth(API))).body.data).toEqual([]);
  });

  it('creates, computes, lists, pages, updates and deletes a segment of the key’s app only', async () => {
    const created = await request(app).post('/v1/segments').set(auth(API)).send({ name: 'twice this week', definition: twice });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toEqual({
      id,
      name: 'twice this week',
      version: 1,
      definition: twice,
      created_at: new Date(NOW).toISOString(),
      updated_at: new Date(NOW).toISOString(),
    });
    await membersAre(id, ['u-1']);
    expect((await request(app).get(`/v1/users/u-1/segments`).set(auth(API))).body).toEqual({
      data: [{ segment_id: id, name: 'twice this week', entered_at: new Date(NOW).toISOString() }],
    });
    // Another app sees neither the segment nor the membership.
    expect((await request(app).get(`/v1/segments/${id}`).set(auth(API2))).status).toBe(404);
    expect((await request(app).get(`/v1/segments/${id}/members`).set(auth(API2))).status).toBe(404);
    expect((await request(app).get(`/v1/users/u-2/segments`).set(auth(API2))).body).toEqual({ data: [] });

    const updated = await request(app).put(`/v1/segments/${id}`).set(auth(API)).send({ name: 'once this week', definition: once });
    expect([updated.status, updated.body.version, updated.body.name]).toEqual([200, 2, 'once this week']);
    await membersAre(id, ['u-1', 'u-2']);
    const page1 = await request(app).get(`/v1/segments/${id}/members?limit=1`).set(auth(API));
    expect(page1.body.data.map((m: { user_id: string }) => m.user_id)).toEqual(['u-1']);
    expect(typeof page1.body.cursor).toBe('string');
    const page2 = await request(app)
      .get(`/v1/segments/${id}/members?limit=1&cursor=${encodeURIComponent(page1.body.cursor)}`)
      .set(auth(API));
    expect([page2.body.data.map((m: { user_id: string }) => m.user_id), page2.body.cursor]).toEqual([['u-2'], undefined]);
    const badLimit = await request(app).get(`/v1/segments/${id}/members?limit=0`).set(auth(API));
    expect([badLimit.status, badLimit.body.error.path]).toEqual([400, 'query.limit']);

    // A segment referencing it keeps it from being deleted.
    const ref = await request(app)
      .post('/v1/segments')
      .set(auth(API))
      .send({ name: 'ref', definition: { not: { segment: id } } });
    expect(ref.status).toBe(201);
    const blocked = await request(app).delete(`/v1/segments/${id}`).set(auth(API));
    expect([blocked.status, blocked.body.error.code]).toEqual([409, 'conflict']);
    expect((await request(app).delete(`/v1/segments/${ref.body.id}`).set(auth(API))).status).toBe(204);
    expect((await request(app).delete(`/v1/segments/${id}`).set(auth(API))).status).toBe(204);
    expect((await request(app).get(`/v1/segments/${id}`).set(auth(API))).status).toBe(404);
    await waitFor(async () => ((await request(app).get(`/v1/users/u-1/segments`).set(auth(API))).body.data as unknown[]).length === 0, {
      timeoutMs: 20_000,
      what: 'u-1 out of every segment',
    });
  });

  it('a saved segment gets incremental work at once in the process that saved it (no periodic refresh runs here)', async () => {
    const orders = { prop: 'id', op: 'in', value: ['o-1', 'o-fresh'] };
    const created = await request(app)
      .post('/v1/segments')
      .set(auth(API))
      .send({ name: 'bought once', definition: { ...once, where: [...once.where, orders] } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const members = async () =>
      ((await request(app).get(`/v1/segments/${id}/members`).set(auth(API))).body.data as { user_id: string }[]).map((m) => m.user_id).join();
    // The creation's full recompute is done once it shows the stored buyers; then a new event is stored and handed to the engine as the sink does.
    await waitFor(async () => (await members()) === 'u-1,u-2', { what: 'the first computation' });
    const event = checkout('app-1', 'u-fresh', NOW - HOUR, true);
    await insertEvents(chdb.analytics, [{ ...event, props: { ...event.props, id: 'o-fresh' } }]);
    await segments.engine.onInserted([{ app_id: 'app-1', user_id: 'u-fresh', name: 'checkout' }]);
    await waitFor(async () => (await members()) === 'u-1,u-2,u-fresh', { timeoutMs: 10_000, what: 'u-fresh entering by incremental work' });
  });
});
