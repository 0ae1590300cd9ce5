import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { KeyRing, createLogger } from '@evp/core';
import { ManualClock, NEVER_EXPIRES } from '@evp/actions';
import { InMemoryActionStore } from '@evp/embedded';
import { createActionStoreApp } from './app';

/**
 * The older clients' single-user fetches on the in-memory store (docs/actions.md, "Older clients'
 * fetch"): GET /v1/nudge/sdk/{user_id} (CausalFoundry iOS 0.4.3–1.2.3, SDK key) and
 * GET /nudge/sdk/get (the synthetic data generator, API key).
 */
const API = 'api-key-app1-0123456789';
const SDK = 'sdk-key-app1-0123456789';
const API2 = 'api-key-app2-0123456789';
const SDK2 = 'sdk-key-app2-0123456789';
const keys = new KeyRing({
  keys: [
    { id: 'k-api', app_id: 'app-1', role: 'api', key: API },
    { id: 'k-sdk', app_id: 'app-1', role: 'sdk', key: SDK },
    { id: 'k-api2', app_id: 'app-2', role: 'api', key: API2 },
    { id: 'k-sdk2', app_id: 'app-2', role: 'sdk', key: SDK2 },
  ],
});
/** 2030-01-01T12:00:00.250125Z */
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0, 250) + 0.125;
const QUEUED = '2030-01-01T12:00:00.250125Z';

function setup() {
  const clock = new ManualClock(T0);
  const store = new InMemoryActionStore({ clock });
  const { app } = createActionStoreApp({ store, keys, logger: createLogger('test', 'silent') });
  return { app, clock };
}
type App = ReturnType<typeof setup>['app'];

const action = (inv: number, act: number, over: Record<string, unknown> = {}) => ({
  user_id: 'u1',
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: `Title ${act}`, body: `Body ${act}` },
  expired_at: NEVER_EXPIRES,
  inv_id: inv,
  action_id: act,
  ...over,
});
const create = async (app: App, actions: unknown[], key = API) => {
  const res = await request(app).post('/v1/actions').set('Authorization', `Bearer ${key}`).send(actions);
  expect(res.status).toBe(200);
};
/** As the iOS clients send it: Content-Type on a GET without a body. */
const olderFetch = (app: App, path: string, key = SDK) => request(app).get(path).set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json');
const generatorFetch = (app: App, query: Record<string, string>, key = API) =>
  request(app).get('/nudge/sdk/get').query(query).set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json');

/** The older iOS nudge as the platform builds it (only the message fields vary here). */
const nudge = (ref: string, renderMethod: string, expireAt = NEVER_EXPIRES, type = 'message', tags: string[] = []) => {
  const act = ref.split(':')[1];
  return { ref, time: QUEUED, expire_at: expireAt, nd: { type, message: { title: `Title ${act}`, body: `Body ${act}`, tags }, render_method: renderMethod } };
};

/**
 * Whether an answer decodes as `[BackendNudgeMainObject]` (CausalFoundrySDKCore
 * Models/BackendNudgeMainObject.swift, 0.9.5–1.2.3, the strictest: message title and body required):
 * one element that does not decode makes the client drop the whole answer.
 */
function decodesAsBackendNudges(body: unknown): boolean {
  const str = (v: unknown) => typeof v === 'string';
  const optStr = (v: unknown) => v === undefined || v === null || typeof v === 'string';
  const strList = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.every(str));
  if (!Array.isArray(body)) return false;
  return body.every((n: Record<string, any>) => {
    if (!n || !str(n.ref) || !str(n.time) || !optStr(n.expire_at) || !n.nd || typeof n.nd !== 'object') return false;
    const m = n.nd.message;
    if (!m || !str(m.title) || !str(m.body) || !strList(m.tags)) return false;
    if (!optStr(n.nd.type) || !optStr(n.nd.cta)) return false;
    if (![undefined, null, 'push_notification', 'in_app_message', 'in_app_component'].includes(n.nd.render_method)) return false;
    // ISO8601DateFormatter without fractional seconds, or the zero time.
    if (typeof n.expire_at === 'string' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(n.expire_at)) return false;
    return n.extra === undefined;
  });
}

describe('GET /v1/nudge/sdk/{user_id} (CausalFoundry iOS 0.4.3–1.2.3)', () => {
  it('answers push notifications as a bare array the client decodes; one-off once, cached every time', async () => {
    const { app } = setup();
    await create(app, [
      action(1, 2, { expired_at: '2030-02-01T00:00:00.750+02:00', tags: ['refill'] }),
      action(1, 3, { render_method: 'in_app_message' }),
      action(1, 4, { type: 'custom', render_method: 'generic_message' }),
      action(1, 5, { delivery_mode: 'cached' }),
      action(1, 6, { user_id: 'u2' }),
    ]);
    const first = await olderFetch(app, '/v1/nudge/sdk/u1?render_method=push_notification');
    expect(first.status).toBe(200);
    // expire_at: UTC, whole seconds (the client reads no fraction); never = the Go zero time.
    expect(first.body).toEqual([nudge('1:2', 'push_notification', '2030-01-31T22:00:00Z', 'message', ['refill']), nudge('1:5', 'push_notification')]);
    expect(decodesAsBackendNudges(first.body)).toBe(true);
    const second = await olderFetch(app, '/v1/nudge/sdk/u1?render_method=push_notification');
    expect(second.body).toEqual([nudge('1:5', 'push_notification')]);
  });

  it('answers in-app messages of both types; render_page narrows to actions created for that screen', async () => {
    const { app } = setup();
    await create(app, [
      action(1, 2, { render_method: 'in_app_message', attr: { render_page: 'cart' } }),
      action(1, 3, { type: 'custom', render_method: 'in_app_message', delivery_mode: 'cached' }),
      action(1, 4, { render_method: 'in_app_message', attr: { render_page: 'home' } }),
    ]);
    const cart = await olderFetch(app, '/v1/nudge/sdk/u1?render_method=in_app_message&render_page=cart');
    expect(cart.body).toEqual([nudge('1:2', 'in_app_message')]);
    // The automatic fetch sends render_page= (NudgeScreenType.None): any screen.
    const any = await olderFetch(app, '/v1/nudge/sdk/u1?render_method=in_app_message&render_page=');
    expect(any.body).toEqual([nudge('1:4', 'in_app_message'), nudge('1:3', 'in_app_message', NEVER_EXPIRES, 'custom')]);
    expect(decodesAsBackendNudges(any.body)).toBe(true);
  });

  it('answers 0.4.3–0.5.3 (no query) with both render methods they know, never a generic message', async () => {
    const { app } = setup();
    await create(app, [
      action(1, 2),
      action(1, 3, { render_method: 'in_app_message' }),
      action(1, 4, { type: 'custom', render_method: 'generic_message' }),
      action(1, 5, { render_method: 'generic_message' }),
    ]);
    const res = await olderFetch(app, '/v1/nudge/sdk/u1');
    expect(res.body).toEqual([nudge('1:2', 'push_notification'), nudge('1:3', 'in_app_message')]);
    expect(decodesAsBackendNudges(res.body)).toBe(true);
    // The generic messages stay available for the clients that render them (the SDK pull).
    const sdk = await request(app)
      .post('/v1/action/sdk/pull')
      .set('Authorization', `Bearer ${SDK}`)
      .send({ user_id: 'u1', type: 'custom', render_method: 'generic_message', delivery_mode: 'one-off' });
    expect(sdk.body.data.map((r: { payload: { internal: { ref: string } } }) => r.payload.internal.ref)).toEqual(['1:4']);
  });

  it('answers [] when nothing is there, and never returns an expired action', async () => {
    const { app, clock } = setup();
    expect((await olderFetch(app, '/v1/nudge/sdk/nobody')).body).toEqual([]);
    await create(app, [action(1, 2, { expired_at: '2030-01-01T12:00:01Z' })]);
    clock.set(T0 + 1000);
    expect((await olderFetch(app, '/v1/nudge/sdk/u1')).body).toEqual([]);
  });

  it('takes an SDK key only, and shows an app only its own actions', async () => {
    const { app } = setup();
    await create(app, [action(1, 2)]);
    const api = await olderFetch(app, '/v1/nudge/sdk/u1', API);
    expect([api.status, api.body.error.code]).toEqual([403, 'forbidden_role']);
    const none = await request(app).get('/v1/nudge/sdk/u1');
    expect([none.status, none.body.error.code]).toEqual([401, 'auth_missing']);
    expect((await olderFetch(app, '/v1/nudge/sdk/u1', SDK2)).body).toEqual([]);
    // Still there for its own app.
    expect((await olderFetch(app, '/v1/nudge/sdk/u1')).body).toEqual([nudge('1:2', 'push_notification')]);
  });

  it.each([
    ['/v1/nudge/sdk/u1?render_method=generic_message', 'query.render_method', 'enum'],
    ['/v1/nudge/sdk/u1?render_method=push_notification&render_method=in_app_message', 'query.render_method', 'type'],
    ['/v1/nudge/sdk/u1?screen=cart', 'query.screen', 'unknown_field'],
    ['/v1/nudge/sdk/*', 'params.user_id', 'invalid'],
  ])('%s → 400 at %s', async (path, at, rule) => {
    const { app } = setup();
    const res = await olderFetch(app, path);
    expect([res.status, res.body.error.code, res.body.error.path, res.body.error.details.issues[0].rule]).toEqual([400, 'invalid_request', at, rule]);
  });
});

describe('GET /nudge/sdk/get (the synthetic data generator)', () => {
  it('answers every action of the user as {id, action, queued_at}; id is the ref it reports back', async () => {
    const { app } = setup();
    await create(app, [
      action(4, 9, { attr: { screen: 'cart' }, tags: ['refill'] }),
      action(4, 10, { type: 'custom', render_method: 'generic_message', delivery_mode: 'cached' }),
      action(4, 11, { user_id: 'u2' }),
    ]);
    const res = await generatorFetch(app, { subject_id: 'u1', queued_at: '2030-01-01T08:00:00.000000Z' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: '4:9',
        action: {
          type: 'message',
          render_method: 'push_notification',
          delivery_mode: 'one-off',
          content: { body: 'Body 9', title: 'Title 9' },
          attr: { screen: 'cart' },
          tags: ['refill'],
          internal: { inv_id: 4, action_id: 9, expired_at: NEVER_EXPIRES, ref: '4:9', ref_time: '2030-01-01T12:00:00.250125Z#4:9' },
        },
        queued_at: QUEUED,
      },
      {
        id: '4:10',
        action: {
          type: 'custom',
          render_method: 'generic_message',
          delivery_mode: 'cached',
          content: { body: 'Body 10', title: 'Title 10' },
          attr: {},
          tags: [],
          internal: { inv_id: 4, action_id: 10, expired_at: NEVER_EXPIRES, ref: '4:10', ref_time: '2030-01-01T12:00:00.250125Z#4:10' },
        },
        queued_at: QUEUED,
      },
    ]);
    // queued_at in the generator's strptime format '%Y-%m-%dT%H:%M:%S.%fZ'.
    for (const n of res.body) expect(n.queued_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    // The one-off action was delivered; the cached one comes again.
    expect((await generatorFetch(app, { subject_id: 'u1' })).body.map((n: { id: string }) => n.id)).toEqual(['4:10']);
  });

  it('leaves out cached actions queued at or before queued_at, but never an undelivered one-off action', async () => {
    const { app } = setup();
    await create(app, [action(1, 2), action(1, 3, { delivery_mode: 'cached' })]);
    const later = await generatorFetch(app, { subject_id: 'u1', queued_at: QUEUED });
    expect(later.body.map((n: { id: string }) => n.id)).toEqual(['1:2']);
    const before = await generatorFetch(app, { subject_id: 'u1', queued_at: '2030-01-01T12:00:00.250124Z' });
    expect(before.body.map((n: { id: string }) => n.id)).toEqual(['1:3']);
  });

  it('answers [] for a user without actions (never 404: the generator would retry for hours)', async () => {
    const { app } = setup();
    const res = await generatorFetch(app, { subject_id: 'nobody', queued_at: '2025-03-04T10:02:11.504118Z' });
    expect([res.status, res.body]).toEqual([200, []]);
  });

  it('takes the app API key only, and shows an app only its own actions', async () => {
    const { app } = setup();
    await create(app, [action(1, 2, { delivery_mode: 'cached' })]);
    const sdk = await generatorFetch(app, { subject_id: 'u1' }, SDK);
    expect([sdk.status, sdk.body.error.code]).toEqual([403, 'forbidden_role']);
    expect((await generatorFetch(app, { subject_id: 'u1' }, API2)).body).toEqual([]);
    expect((await generatorFetch(app, { subject_id: 'u1' })).body.map((n: { id: string }) => n.id)).toEqual(['1:2']);
  });

  it.each([
    [{ queued_at: '2025-03-04T10:02:11.504118Z' }, 'query.subject_id', 'required'],
    [{ subject_id: 'u1', queued_at: '2025-03-04 10:02:11' }, 'query.queued_at', 'format'],
    [{ subject_id: '*' }, 'query.subject_id', 'invalid'],
  ])('%j → 400 at %s', async (query, at, rule) => {
    const { app } = setup();
    const res = await generatorFetch(app, query);
    expect([res.status, res.body.error.code, res.body.error.path, res.body.error.details.issues[0].rule]).toEqual([400, 'invalid_request', at, rule]);
  });
});

describe('the real clients’ nudge fetches (schemas/corpus/clients)', () => {
  const dir = join(__dirname, '../../../schemas/corpus/clients');
  const fetches = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const corpus = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
        payloads: { id: string; request: { method: string; path: string; query?: Record<string, string>; auth: string }; expect?: { status: number } }[];
      };
      return corpus.payloads.filter((p) => p.request.method === 'GET' && /^\/(v1\/)?nudge\//.test(p.request.path)).map((p) => [`${f} ${p.id}`, p] as const);
    });

  it('has them', () => expect(fetches.length).toBeGreaterThan(0));

  it.each(fetches)('%s answers 200 with an array its client reads', async (_name, p) => {
    const { app } = setup();
    const user = p.request.query?.subject_id ?? decodeURIComponent(p.request.path.split('/').pop() as string);
    await create(app, [
      action(1, 2, { user_id: user, expired_at: '2030-02-01T00:00:00Z' }),
      action(1, 3, { user_id: user, render_method: 'in_app_message', delivery_mode: 'cached', attr: { render_page: 'cart' } }),
    ]);
    const key = p.request.auth === 'api' ? API : SDK;
    const res = await request(app)
      .get(p.request.path)
      .query(p.request.query ?? {})
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/json');
    expect(res.status).toBe(p.expect?.status ?? 200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.length).toBeGreaterThan(0);
    if (p.request.path.startsWith('/v1/')) expect(decodesAsBackendNudges(res.body)).toBe(true);
    else for (const n of res.body) expect(Object.keys(n).sort()).toEqual(['action', 'id', 'queued_at']);
  });
});
