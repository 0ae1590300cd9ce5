import request from 'supertest';
import { InfraError, KeyRing, createLogger } from '@evp/core';
import { FIRST_GENERATED_ID, ManualClock, NEVER_EXPIRES, type ActionStore } from '@evp/actions';
import { InMemoryActionStore } from '@evp/embedded';
import { drainLog } from '@evp/testkit';
import { createActionStoreApp, type ActionStoreAppDeps } from './app';

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
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0, 250) + 0.125;

function setup(overrides: Partial<ActionStoreAppDeps> = {}) {
  const clock = new ManualClock(T0);
  const store = new InMemoryActionStore({ clock });
  const { app } = createActionStoreApp({ store, keys, logger: createLogger('test', 'silent'), ...overrides });
  return { app, clock, store };
}

const action = (overrides: Record<string, unknown> = {}) => ({
  user_id: 'u1',
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: 'Hi', body: 'There' },
  expired_at: NEVER_EXPIRES,
  ...overrides,
});
const pullBody = (overrides: Record<string, unknown> = {}) => ({
  user_id: 'u1',
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  ...overrides,
});

type App = ReturnType<typeof setup>['app'];
const create = (app: App, body: unknown, key = API) =>
  request(app)
    .post('/v1/actions')
    .set('Authorization', `Bearer ${key}`)
    .send(body as object);
const pull = (app: App, body: unknown, key = API) =>
  request(app)
    .post('/v1/action/pull')
    .set('Authorization', `Bearer ${key}`)
    .send(body as object);
const sdkPull = (app: App, body: unknown, key = SDK) =>
  request(app)
    .post('/v1/action/sdk/pull')
    .set('Authorization', `Bearer ${key}`)
    .send(body as object);

describe('POST /v1/actions', () => {
  it('creates actions from an array body and reports each outcome', async () => {
    const { app } = setup();
    const res = await create(app, [action({ inv_id: 1, action_id: 2 }), action({ user_id: 'u2' })]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { status: 'created', user_id: 'u1', inv_id: 1, action_id: 2 },
        { status: 'created', user_id: 'u2', inv_id: FIRST_GENERATED_ID, action_id: FIRST_GENERATED_ID + 1 },
      ],
      counts: { created: 2, duplicate: 0, expired: 0, blocked: 0 },
    });
  });

  it('logs the created actions with source api', async () => {
    const { app, store } = setup();
    await create(app, [action({ inv_id: 1, action_id: 2 }), action({ user_id: 'u2', inv_id: 1, action_id: 2 })]);
    expect((await drainLog(store)).map((e) => `${e.kind} ${e.user_id} ${e.source}`)).toEqual(['created u1 api', 'created u2 api']);
  });

  it('accepts available_at: no pull returns the action before it', async () => {
    const { app, clock } = setup();
    const res = await create(app, [action({ inv_id: 1, action_id: 2, available_at: '2030-01-01T12:30:00+00:00' })]);
    expect(res.body.counts).toEqual({ created: 1, duplicate: 0, expired: 0, blocked: 0 });
    expect((await pull(app, pullBody())).body).toEqual({ data: [], more: false });
    clock.set(Date.UTC(2030, 0, 1, 12, 30));
    expect((await pull(app, pullBody())).body.data.map((r: { payload: { internal: { ref: string } } }) => r.payload.internal.ref)).toEqual(['1:2']);
  });

  it('accepts {actions:[...]} and is idempotent on the ids', async () => {
    const { app } = setup();
    await create(app, { actions: [action({ inv_id: 1, action_id: 2 })] });
    const res = await create(app, { actions: [action({ inv_id: 1, action_id: 2 }), action({ inv_id: 1, action_id: 3, expired_at: '2030-01-01T12:00:00Z' })] });
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({ created: 0, duplicate: 1, expired: 1, blocked: 0 });
  });

  it.each([
    ['an unknown type', [action({ type: 'banner' })], '$[0].type', 'enum'],
    ['a missing field', { actions: [{ ...action(), content: undefined }] }, '$.actions[0].content', 'required'],
    ['push for a custom action', { actions: [action(), action({ type: 'custom' })] }, '$.actions[1].render_method', 'type_render_method'],
    ['an unknown field', [action({ expires_at: 'x' })], '$[0].expires_at', 'unknown_field'],
    ['a malformed expired_at', [action({ expired_at: '2030-01-01 00:00:00' })], '$[0].expired_at', 'invalid'],
    ['expired_at without offset', [action({ expired_at: '2030-01-01T00:00:00' })], '$[0].expired_at', 'invalid'],
    ["user_id '*'", [action({ user_id: '*' })], '$[0].user_id', 'invalid'],
    ['an empty user_id', [action({ user_id: '' })], '$[0].user_id', 'min'],
    ['a fractional inv_id', [action({ inv_id: 1.5 })], '$[0].inv_id', 'type'],
    ['a negative action_id', [action({ action_id: -1 })], '$[0].action_id', 'min'],
    ['an action_id above 2^31-1', [action({ action_id: 2 ** 31 })], '$[0].action_id', 'max'],
    ['a non-string attr value', [action({ attr: { screen: 1 } })], '$[0].attr.screen', 'type'],
    ['a non-string tag', [action({ tags: ['a', 2] })], '$[0].tags[1]', 'type'],
    ['a title that is not a string', [action({ content: { title: 1, body: 'b' } })], '$[0].content.title', 'type'],
    ['an empty list', [], '$', 'min'],
    ['an object without actions', { data: [] }, '$.actions', 'required'],
    ['actions that are not a list', { actions: 'x' }, '$.actions', 'type'],
    ['an extra top-level field', { actions: [action()], owner: 'app-2' }, '$.owner', 'unknown_field'],
    ['app_id inside an action', [action({ app_id: 'app-1' })], '$[0].app_id', 'unknown_field'],
    ['caps (campaigns only, through actions.requested)', [action({ caps: { app: { max: 1 } } })], '$[0].caps', 'unknown_field'],
    ['a malformed available_at', [action({ available_at: '09:00' })], '$[0].available_at', 'invalid'],
  ])('rejects %s with 400 invalid_request at the offending path', async (_what, body, path, rule) => {
    const { app } = setup();
    const res = await create(app, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', path });
    expect(res.body.error.details.issues[0]).toMatchObject({ path, rule });
  });

  it('reports every issue, first one as the error path', async () => {
    const { app } = setup();
    const res = await create(app, [action({ type: 'x' }), action({ delivery_mode: 'sometimes' })]);
    expect(res.status).toBe(400);
    expect(res.body.error.path).toBe('$[0].type');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['$[0].type', '$[1].delivery_mode']);
  });

  it('quotes attribute names that are not identifiers in paths', async () => {
    const { app } = setup();
    const res = await create(app, [action({ attr: { 'a b': 7 } })]);
    expect(res.body.error.path).toBe('$[0].attr["a b"]');
  });

  it('rejects more than 1,000 actions', async () => {
    const { app } = setup();
    const res = await create(
      app,
      Array.from({ length: 1001 }, () => action()),
    );
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([400, 'invalid_request', '$']);
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const { app } = setup();
    const res = await request(app).post('/v1/actions').set('Authorization', `Bearer ${API}`).set('Content-Type', 'application/json').send('{"actions": [');
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([400, 'invalid_json', '$']);
  });

  it('answers 415 for a body that is not JSON by content type', async () => {
    const { app } = setup();
    const res = await request(app).post('/v1/actions').set('Authorization', `Bearer ${API}`).set('Content-Type', 'application/xml').send('<a/>');
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([415, 'unsupported_media_type', 'headers.content-type']);
  });

  it('accepts text/plain JSON (browser simple requests)', async () => {
    const { app } = setup();
    const res = await request(app)
      .post('/v1/actions')
      .set('Authorization', `Bearer ${API}`)
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify([action()]));
    expect([res.status, res.body.counts.created]).toEqual([200, 1]);
  });

  it('answers 413 over the body limit', async () => {
    const { app } = setup({ maxBodyBytes: 200 });
    const res = await create(app, [action({ content: { title: 'x'.repeat(300), body: '' } })]);
    expect([res.status, res.body.error.code]).toEqual([413, 'payload_too_large']);
  });

  it('answers 401 without a key and with an unknown key, 403 for an SDK key', async () => {
    const { app } = setup();
    const none = await request(app).post('/v1/actions').send([action()]);
    expect([none.status, none.body.error.code, none.body.error.path]).toEqual([401, 'auth_missing', 'headers.authorization']);
    const unknown = await create(app, [action()], 'not-a-key-0123456789');
    expect([unknown.status, unknown.body.error.code]).toEqual([401, 'auth_invalid']);
    const sdk = await create(app, [action()], SDK);
    expect([sdk.status, sdk.body.error.code]).toEqual([403, 'forbidden_role']);
  });

  it('answers 503 with Retry-After when the store is unavailable, 500 on a bug', async () => {
    const failing = (err: Error): ActionStore => ({
      ...new InMemoryActionStore({ clock: new ManualClock(T0) }),
      create: async () => {
        throw err;
      },
      pull: async () => {
        throw err;
      },
      stats: async () => {
        throw err;
      },
      unblock: async () => {
        throw err;
      },
      recordFeedback: async () => 'unknown',
      sweepExpired: async () => 0,
      readLog: async () => ({ entries: [], acks: [] }),
      ackLog: async () => undefined,
      logLength: async () => 0,
      countPeople: async () => {
        throw err;
      },
      erasePeople: async () => {
        throw err;
      },
      personActions: () => {
        throw err;
      },
      ping: async () => false,
      close: async () => {},
    });
    const down = setup({ store: failing(new InfraError('redis', 'connection refused', { retriable: true })), retryAfterSeconds: 3 }).app;
    for (const res of [
      await create(down, [action()]),
      await pull(down, pullBody()),
      await sdkPull(down, pullBody()),
      await request(down).get('/v1/actions/1/stats').set('Authorization', `Bearer ${API}`),
      await request(down).delete('/v1/actions/1/blocks/u1').set('Authorization', `Bearer ${API}`),
    ]) {
      expect([res.status, res.body.error.code, res.headers['retry-after'], res.body.error.details]).toEqual([503, 'unavailable', '3', { retriable: true }]);
    }
    const bug = setup({ store: failing(new TypeError('oops')) }).app;
    const res = await create(bug, [action()]);
    expect([res.status, res.body.error.code]).toEqual([500, 'internal']);
  });
});

describe('POST /v1/action/pull', () => {
  it('returns a one-off action once, with the exact record shape, and never again', async () => {
    const { app } = setup();
    await create(app, [action({ inv_id: 4, action_id: 9, attr: { screen: 'cart' }, tags: ['t1'] })]);
    const first = await pull(app, pullBody());
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      data: [
        {
          user_id: 'u1',
          payload: {
            type: 'message',
            render_method: 'push_notification',
            delivery_mode: 'one-off',
            content: { body: 'There', title: 'Hi' },
            attr: { screen: 'cart' },
            tags: ['t1'],
            internal: { inv_id: 4, action_id: 9, expired_at: '0001-01-01T00:00:00Z', ref: '4:9', ref_time: '2030-01-01T12:00:00.250125Z#4:9' },
          },
          error: null,
          queued_at: '2030-01-01T12:00:00.250125Z',
        },
      ],
      more: false,
    });
    expect((await pull(app, pullBody())).body).toEqual({ data: [], more: false });
    expect((await pull(app, pullBody({ user_id: '*' }))).body).toEqual({ data: [], more: false });
  });

  it('returns a cached action on every pull until it expires', async () => {
    const { app, clock } = setup();
    await create(app, [action({ delivery_mode: 'cached', inv_id: 1, action_id: 1, expired_at: '2030-01-01T13:00:00+01:00' })]);
    // 13:00+01:00 is 12:00Z, 250 ms before T0: already expired.
    expect((await pull(app, pullBody({ delivery_mode: 'cached' }))).body.data).toEqual([]);
    await create(app, [action({ delivery_mode: 'cached', inv_id: 1, action_id: 2, expired_at: '2030-01-01T12:01:00Z' })]);
    for (let i = 0; i < 3; i++) {
      expect(
        (await pull(app, pullBody({ delivery_mode: 'cached' }))).body.data.map((r: { payload: { internal: { ref: string } } }) => r.payload.internal.ref),
      ).toEqual(['1:2']);
    }
    clock.set(Date.UTC(2030, 0, 1, 12, 1, 0));
    expect((await pull(app, pullBody({ delivery_mode: 'cached' }))).body).toEqual({ data: [], more: false });
  });

  it('caps a pull at pullMax and hands out a cursor while more are waiting', async () => {
    const { app } = setup({ pullMax: 2 });
    await create(
      app,
      [1, 2, 3].map((n) => action({ user_id: `u${n}`, inv_id: 1, action_id: n, delivery_mode: 'cached' })),
    );
    const p1 = await pull(app, pullBody({ user_id: '*', delivery_mode: 'cached' }));
    expect([p1.body.data.map((r: { user_id: string }) => r.user_id), p1.body.more, typeof p1.body.cursor]).toEqual([['u1', 'u2'], true, 'string']);
    const p2 = await pull(app, pullBody({ user_id: '*', delivery_mode: 'cached', cursor: p1.body.cursor }));
    expect([p2.body.data.map((r: { user_id: string }) => r.user_id), p2.body.more, p2.body.cursor]).toEqual([['u3'], false, undefined]);
  });

  it('narrows by attr', async () => {
    const { app } = setup();
    await create(app, [action({ inv_id: 1, action_id: 1, attr: { screen: 'cart' } }), action({ inv_id: 1, action_id: 2, attr: { screen: 'home' } })]);
    const res = await pull(app, pullBody({ attr: { screen: 'home' } }));
    expect(res.body.data.map((r: { payload: { internal: { ref: string } } }) => r.payload.internal.ref)).toEqual(['1:2']);
  });

  it("never shows one app's actions to another app's key", async () => {
    const { app } = setup();
    await create(app, [action({ inv_id: 1, action_id: 1 })]);
    expect((await pull(app, pullBody({ user_id: '*' }), API2)).body).toEqual({ data: [], more: false });
    expect((await request(app).get('/v1/actions/1/stats').set('Authorization', `Bearer ${API2}`)).status).toBe(404);
    expect((await pull(app, pullBody())).body.data).toHaveLength(1);
  });

  it.each([
    ['a missing user_id', { ...pullBody(), user_id: undefined }, '$.user_id', 'required'],
    ['a missing type', { ...pullBody(), type: undefined }, '$.type', 'required'],
    ['a bad render_method', pullBody({ render_method: 'sms' }), '$.render_method', 'enum'],
    ['a bad delivery_mode', pullBody({ delivery_mode: 'OneOff' }), '$.delivery_mode', 'enum'],
    ['custom + push_notification', pullBody({ type: 'custom' }), '$.render_method', 'type_render_method'],
    ['a non-string attr value', pullBody({ attr: { a: true } }), '$.attr.a', 'type'],
    ['attr that is not an object', pullBody({ attr: ['a'] }), '$.attr', 'type'],
    ['a bad cursor', pullBody({ cursor: 'abc' }), '$.cursor', 'format'],
    ['an unknown field', pullBody({ limit: 5 }), '$.limit', 'unknown_field'],
    ['an array body', [pullBody()], '$', 'type'],
  ])('rejects %s with 400 at the path', async (_what, body, path, rule) => {
    const { app } = setup();
    const res = await pull(app, body);
    expect([res.status, res.body.error.code, res.body.error.path, res.body.error.details.issues[0].rule]).toEqual([400, 'invalid_request', path, rule]);
  });

  it('is closed to SDK keys (403) and to no key (401)', async () => {
    const { app } = setup();
    const sdk = await pull(app, pullBody(), SDK);
    expect([sdk.status, sdk.body.error.code]).toEqual([403, 'forbidden_role']);
    const none = await request(app).post('/v1/action/pull').send(pullBody());
    expect([none.status, none.body.error.code]).toEqual([401, 'auth_missing']);
  });
});

/**
 * How the Kenkai iOS client decodes a pull answer (KenkaiSDKCore Models/BackendActionMainObject.swift,
 * strict JSONDecoder): one entry it cannot decode loses the whole answer. Returns the problems.
 */
function kenkaiDecodeProblems(body: unknown): string[] {
  const problems: string[] = [];
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data)) return ['data is not an array'];
  const isStringMap = (v: unknown) =>
    v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string'));
  // ISO8601DateFormatter() with its default options: no fractional seconds.
  const kenkaiDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})$/;
  const refTimes = new Set<string>();
  data.forEach((e: { error?: unknown; payload?: Record<string, unknown> }, i) => {
    if (e.error !== null && typeof e.error !== 'string') problems.push(`[${i}].error is neither null nor a string`);
    const p = e.payload ?? {};
    if (typeof p.type !== 'string' || typeof p.render_method !== 'string') problems.push(`[${i}] type/render_method not strings`);
    if (!isStringMap(p.content) || !isStringMap(p.attr)) problems.push(`[${i}] content/attr not string → string`);
    const internal = (p.internal ?? {}) as Record<string, unknown>;
    if (typeof internal.ref_time !== 'string' || refTimes.has(internal.ref_time)) problems.push(`[${i}].internal.ref_time is not a unique string`);
    else refTimes.add(internal.ref_time);
    if (typeof internal.expired_at !== 'string' || !kenkaiDate.test(internal.expired_at))
      problems.push(`[${i}].internal.expired_at does not parse without fractions`);
    if (typeof internal.ref !== 'string' || !Number.isInteger(internal.inv_id) || !Number.isInteger(internal.action_id))
      problems.push(`[${i}].internal lacks ref/inv_id/action_id`);
  });
  return problems;
}

describe('the SDK pull answer decodes under the Kenkai client rules', () => {
  it('error null, string maps, a unique ref_time per action, expired_at without fractions, ref and ids in internal', async () => {
    const { app } = setup();
    // One create call, so every action shares queued_at: ref_time must still tell them apart.
    await create(app, [
      action({ inv_id: 7, action_id: 1, attr: { render_page: 'cart' }, expired_at: '2030-02-01T00:00:00.999+02:00' }),
      action({ inv_id: 7, action_id: 2, expired_at: '2030-02-01T00:00:00Z' }),
      action({ action_id: 3 }),
    ]);
    const res = await sdkPull(app, { user_id: 'u1', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' });
    expect(res.body.data).toHaveLength(3);
    expect(kenkaiDecodeProblems(res.body)).toEqual([]);
    const internals = res.body.data.map((r: { payload: { internal: unknown } }) => r.payload.internal);
    expect(internals[0]).toEqual({ inv_id: 7, action_id: 1, expired_at: '2030-02-01T00:00:00+02:00', ref: '7:1', ref_time: '2030-01-01T12:00:00.250125Z#7:1' });
  });

  it('the decoder check itself catches what breaks the client', () => {
    const entry = (internal: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      payload: { type: 'message', render_method: 'push_notification', content: { title: 't', body: 'b' }, attr: {}, internal },
      error: null,
      ...extra,
    });
    const ok = { inv_id: 1, action_id: 1, ref: '1:1', ref_time: 'a', expired_at: '2030-01-01T00:00:00Z' };
    expect(kenkaiDecodeProblems({ data: [entry(ok)] })).toEqual([]);
    expect(kenkaiDecodeProblems({ data: [entry(ok), entry({ ...ok, expired_at: '2030-01-01T00:00:00.5Z' }, { error: { code: 'x' } })] })).toEqual([
      '[1].error is neither null nor a string',
      '[1].internal.ref_time is not a unique string',
      '[1].internal.expired_at does not parse without fractions',
    ]);
  });
});

describe('POST /v1/action/sdk/pull', () => {
  it('serves one user and accepts the client-library spellings', async () => {
    const { app } = setup();
    await create(app, [
      action({ inv_id: 1, action_id: 1, type: 'custom', render_method: 'generic_message', delivery_mode: 'cached' }),
      action({ inv_id: 1, action_id: 2, type: 'custom', render_method: 'in_app_message' }),
      action({ user_id: 'u2', inv_id: 1, action_id: 3, type: 'custom', render_method: 'generic_message', delivery_mode: 'cached' }),
    ]);
    const refs = (res: request.Response) => res.body.data.map((r: { payload: { internal: { ref: string } } }) => r.payload.internal.ref);
    const component = await sdkPull(app, { user_id: 'u1', type: 'ui-component', render_method: 'in_app_component', delivery_mode: 'Cached' });
    expect([component.status, refs(component), component.body.more]).toEqual([200, ['1:1'], false]);
    const again = await sdkPull(app, { user_id: 'u1', type: 'UIComponent', render_method: 'InAppComponent', delivery_mode: 'cached' });
    expect(refs(again)).toEqual(['1:1']);
    const message = await sdkPull(app, { user_id: 'u1', type: 'Custom', render_method: 'InAppMessage', delivery_mode: 'OneOff' });
    expect(refs(message)).toEqual(['1:2']);
    expect(refs(await sdkPull(app, { user_id: 'u1', type: 'custom', render_method: 'in_app_message', delivery_mode: 'one-off' }))).toEqual([]);
  });

  it('caps at pullMax and pages cached actions with the cursor, like the bulk pull', async () => {
    const { app } = setup({ pullMax: 2 });
    await create(
      app,
      [1, 2, 3].map((n) => action({ inv_id: 1, action_id: n, delivery_mode: 'cached' })),
    );
    const refs = (res: request.Response) => res.body.data.map((r: { payload: { internal: { ref: string } } }) => r.payload.internal.ref);
    const p1 = await sdkPull(app, pullBody({ delivery_mode: 'Cached' }));
    expect([refs(p1), p1.body.more, typeof p1.body.cursor]).toEqual([['1:1', '1:2'], true, 'string']);
    const p2 = await sdkPull(app, pullBody({ delivery_mode: 'Cached', cursor: p1.body.cursor }));
    expect([refs(p2), p2.body.more, p2.body.cursor]).toEqual([['1:3'], false, undefined]);
    const bad = await sdkPull(app, pullBody({ cursor: 'x' }));
    expect([bad.status, bad.body.error.path]).toEqual([400, '$.cursor']);
  });

  it.each([
    ['a missing user_id', { ...pullBody(), user_id: undefined }, '$.user_id', 'required'],
    ['an unknown type spelling', pullBody({ type: 'Banner' }), '$.type', 'enum'],
    ['an unknown delivery_mode spelling', pullBody({ delivery_mode: 'Once' }), '$.delivery_mode', 'enum'],
    ['UIComponent + PushNotification', pullBody({ type: 'UIComponent', render_method: 'PushNotification' }), '$.render_method', 'type_render_method'],
    ['an unknown field', pullBody({ limit: 1 }), '$.limit', 'unknown_field'],
    ['an array body', [pullBody()], '$', 'type'],
  ])('rejects %s with 400 at the path', async (_what, body, path, rule) => {
    const { app } = setup();
    const res = await sdkPull(app, body);
    expect([res.status, res.body.error.code, res.body.error.path, res.body.error.details.issues[0].rule]).toEqual([400, 'invalid_request', path, rule]);
  });

  it("rejects '*' and unknown spellings with 400", async () => {
    const { app } = setup();
    const star = await sdkPull(app, pullBody({ user_id: '*' }));
    expect([star.status, star.body.error.code, star.body.error.path]).toEqual([400, 'invalid_request', '$.user_id']);
    const bad = await sdkPull(app, pullBody({ render_method: 'InAppBanner' }));
    expect([bad.status, bad.body.error.path]).toEqual([400, '$.render_method']);
  });

  it('is closed to API keys (403)', async () => {
    const { app } = setup();
    const res = await sdkPull(app, pullBody(), API);
    expect([res.status, res.body.error.code]).toEqual([403, 'forbidden_role']);
  });

  it('answers CORS preflight for allowed origins only, and only on the SDK route', async () => {
    const { app } = setup({ corsOrigins: ['https://shop.example'] });
    const ok = await request(app).options('/v1/action/sdk/pull').set('Origin', 'https://shop.example');
    expect([ok.status, ok.headers['access-control-allow-origin']]).toEqual([204, 'https://shop.example']);
    const other = await request(app).options('/v1/action/sdk/pull').set('Origin', 'https://evil.example');
    expect([other.status, other.headers['access-control-allow-origin']]).toEqual([204, undefined]);
    const bulk = await pull(app, pullBody()).set('Origin', 'https://shop.example');
    expect(bulk.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('GET /v1/actions/:action_id/stats', () => {
  it('returns the counters of the action in the key’s app', async () => {
    const { app, store } = setup();
    await create(app, [action({ inv_id: 3, action_id: 8 }), action({ user_id: 'u2', inv_id: 3, action_id: 8 })]);
    await pull(app, pullBody({ user_id: '*' }));
    await store.recordFeedback('app-1', { user_id: 'u1', inv_id: 3, action_id: 8, response: 'open' });
    const res = await request(app).get('/v1/actions/8/stats').set('Authorization', `Bearer ${API}`);
    expect(res.status).toBe(200);
    const counters = { created: 2, delivered: 2, expired: 0, responses: { shown: 0, open: 1, discard: 0, block: 0, expired: 0, error: 0 } };
    expect(res.body).toEqual({ action_id: 8, totals: counters, by_inv_id: { '3': counters }, last_errors: [] });
  });

  it('lists the latest error details per user, newest first', async () => {
    const { app, store, clock } = setup();
    await create(app, [action({ inv_id: 3, action_id: 8 }), action({ user_id: 'u2', inv_id: 3, action_id: 8 })]);
    await store.recordFeedback('app-1', { user_id: 'u1', inv_id: 3, action_id: 8, response: 'error', details: 'image 404' });
    clock.advance(1500);
    await store.recordFeedback('app-1', { user_id: 'u2', inv_id: 3, action_id: 8, response: 'error' });
    const res = await request(app).get('/v1/actions/8/stats').set('Authorization', `Bearer ${API}`);
    expect([res.status, res.body.totals.responses.error, res.body.last_errors]).toEqual([
      200,
      2,
      [
        { user_id: 'u2', inv_id: 3, details: null, at: '2030-01-01T12:00:01.750000Z' },
        { user_id: 'u1', inv_id: 3, details: 'image 404', at: '2030-01-01T12:00:00.250000Z' },
      ],
    ]);
  });

  it('answers 404 for an unknown action and 400 for a malformed id', async () => {
    const { app } = setup();
    const missing = await request(app).get('/v1/actions/5/stats').set('Authorization', `Bearer ${API}`);
    expect([missing.status, missing.body.error.code, missing.body.error.path]).toEqual([404, 'not_found', 'params.action_id']);
    const bad = await request(app).get('/v1/actions/abc/stats').set('Authorization', `Bearer ${API}`);
    expect([bad.status, bad.body.error.code, bad.body.error.path]).toEqual([400, 'invalid_request', 'params.action_id']);
    const sdk = await request(app).get('/v1/actions/5/stats').set('Authorization', `Bearer ${SDK}`);
    expect([sdk.status, sdk.body.error.code]).toEqual([403, 'forbidden_role']);
  });
});

describe('service shell', () => {
  it('answers 404 not_found for unknown routes', async () => {
    const { app } = setup();
    const res = await request(app).post('/v1/action/push').set('Authorization', `Bearer ${API}`).send({});
    expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
  });

  it('is ready when the store answers, not ready otherwise', async () => {
    expect((await request(setup().app).get('/readyz')).status).toBe(200);
    const store = new InMemoryActionStore({ clock: new ManualClock(T0) });
    store.ping = async () => false;
    const res = await request(setup({ store }).app).get('/readyz');
    expect([res.status, res.body]).toEqual([503, { ready: false, problems: ['action store: not reachable'] }]);
  });
});

describe('DELETE /v1/actions/:action_id/blocks/:user_id', () => {
  const unblock = (app: App, path: string, key = API) => request(app).delete(path).set('Authorization', `Bearer ${key}`);

  it('lifts a block so later actions reach the user again, and is idempotent', async () => {
    const { app, store } = setup();
    await create(app, [action({ inv_id: 1, action_id: 5 })]);
    await store.recordFeedback('app-1', { user_id: 'u1', inv_id: 1, action_id: 5, response: 'block' });
    expect((await create(app, [action({ inv_id: 2, action_id: 5 })])).body.counts.blocked).toBe(1);
    const first = await unblock(app, '/v1/actions/5/blocks/u1');
    expect([first.status, first.body]).toEqual([200, { action_id: 5, user_id: 'u1', status: 'unblocked' }]);
    const again = await unblock(app, '/v1/actions/5/blocks/u1');
    expect([again.status, again.body]).toEqual([200, { action_id: 5, user_id: 'u1', status: 'not_blocked' }]);
    expect((await create(app, [action({ inv_id: 3, action_id: 5 })])).body.counts.created).toBe(1);
    expect((await pull(app, pullBody())).body.data.map((r: { payload: { internal: { ref: string } } }) => r.payload.internal.ref)).toEqual(['3:5']);
  });

  it('decodes the user id from the path', async () => {
    const { app, store } = setup();
    await create(app, [action({ user_id: 'a/b c', inv_id: 1, action_id: 5 })]);
    await store.recordFeedback('app-1', { user_id: 'a/b c', inv_id: 1, action_id: 5, response: 'block' });
    const res = await unblock(app, `/v1/actions/5/blocks/${encodeURIComponent('a/b c')}`);
    expect([res.status, res.body]).toEqual([200, { action_id: 5, user_id: 'a/b c', status: 'unblocked' }]);
  });

  it("answers 404 for an action id of another app (or none), and never lifts another app's block", async () => {
    const { app, store } = setup();
    await create(app, [action({ inv_id: 1, action_id: 5 })]);
    await store.recordFeedback('app-1', { user_id: 'u1', inv_id: 1, action_id: 5, response: 'block' });
    const other = await unblock(app, '/v1/actions/5/blocks/u1', API2);
    expect([other.status, other.body.error.code, other.body.error.path]).toEqual([404, 'not_found', 'params.action_id']);
    expect((await create(app, [action({ inv_id: 2, action_id: 5 })])).body.counts.blocked).toBe(1);
  });

  it.each([
    ['a non-numeric action id', '/v1/actions/x/blocks/u1', 'params.action_id'],
    ["user id '*'", '/v1/actions/5/blocks/*', 'params.user_id'],
    ['a user id over 256 characters', `/v1/actions/5/blocks/${'u'.repeat(257)}`, 'params.user_id'],
  ])('rejects %s with 400 at the path', async (_what, path, at) => {
    const { app } = setup();
    await create(app, [action({ inv_id: 1, action_id: 5 })]);
    const res = await unblock(app, path);
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([400, 'invalid_request', at]);
  });

  it('is closed to SDK keys (403) and unknown keys (401)', async () => {
    const { app } = setup();
    const sdk = await unblock(app, '/v1/actions/5/blocks/u1', SDK);
    expect([sdk.status, sdk.body.error.code]).toEqual([403, 'forbidden_role']);
    const bad = await unblock(app, '/v1/actions/5/blocks/u1', 'not-a-key-0123456789');
    expect([bad.status, bad.body.error.code]).toEqual([401, 'auth_invalid']);
  });
});

describe('keys and apps on every route', () => {
  const routes: [string, (app: App, key: string) => request.Test][] = [
    ['POST /v1/actions', (app, key) => create(app, [action()], key)],
    ['POST /v1/action/pull', (app, key) => pull(app, pullBody(), key)],
    ['POST /v1/action/sdk/pull', (app, key) => sdkPull(app, pullBody(), key)],
    ['GET /v1/actions/1/stats', (app, key) => request(app).get('/v1/actions/1/stats').set('Authorization', `Bearer ${key}`)],
    ['DELETE /v1/actions/1/blocks/u1', (app, key) => request(app).delete('/v1/actions/1/blocks/u1').set('Authorization', `Bearer ${key}`)],
  ];

  it.each(routes)('%s answers 401 auth_invalid for an unknown key', async (_route, call) => {
    const res = await call(setup().app, 'not-a-key-0123456789');
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([401, 'auth_invalid', 'headers.authorization']);
  });

  it.each(routes)('%s answers 403 forbidden_role for a key of the other role', async (route, call) => {
    const res = await call(setup().app, route.includes('sdk') ? API : SDK);
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([403, 'forbidden_role', 'headers.authorization']);
  });

  it.each([
    ['POST /v1/actions', (app: App) => create(app, { app_id: 'app-2', actions: [action()] })],
    ['POST /v1/action/pull', (app: App) => pull(app, pullBody({ app_id: 'app-2' }))],
    ['POST /v1/action/sdk/pull', (app: App) => sdkPull(app, pullBody({ app_id: 'app-2' }))],
  ])("%s answers 403 forbidden_app when the body names another app than the key's", async (_route, call) => {
    const { app, store } = setup();
    const res = await call(app);
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([403, 'forbidden_app', '$.app_id']);
    expect(await store.stats('app-2', FIRST_GENERATED_ID + 1)).toBeNull();
  });

  it("accepts app_id naming the key's own app (and only as a string equal to it)", async () => {
    const { app } = setup();
    const ok = await create(app, { app_id: 'app-1', actions: [action({ inv_id: 1, action_id: 1 })] });
    expect([ok.status, ok.body.counts.created]).toEqual([200, 1]);
    const pulled = await pull(app, pullBody({ app_id: 'app-1' }));
    expect([pulled.status, pulled.body.data.length]).toEqual([200, 1]);
    const wrongType = await pull(app, pullBody({ app_id: ['app-1'] }));
    expect([wrongType.status, wrongType.body.error.code]).toEqual([403, 'forbidden_app']);
  });
});
