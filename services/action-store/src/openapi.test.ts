import request from 'supertest';
import { InfraError, KeyRing, createLogger } from '@evp/core';
import { ManualClock, NEVER_EXPIRES, type ActionStore } from '@evp/actions';
import { InMemoryActionStore } from '@evp/embedded';
import { commonSchemas, opsPaths } from '@evp/http';
import { describedRoutes, expressRoutes, undescribedAnswers, type SeenAnswer } from '@evp/testkit';
import { createActionStoreApp, type ActionStoreAppDeps } from './app';
import { actionStoreOpenApi } from './openapi';

const API = 'api-key-app1-0123456789';
const SDK = 'sdk-key-app1-0123456789';
const keys = new KeyRing({
  keys: [
    { id: 'k-api', app_id: 'app-1', role: 'api', key: API },
    { id: 'k-sdk', app_id: 'app-1', role: 'sdk', key: SDK },
  ],
});
const fragment = actionStoreOpenApi();
const doc = { paths: { ...fragment.paths, ...opsPaths }, schemas: { ...commonSchemas, ...fragment.schemas } };
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0, 250);

function setup(overrides: Partial<ActionStoreAppDeps> = {}) {
  const store = new InMemoryActionStore({ clock: new ManualClock(T0) });
  const { app } = createActionStoreApp({ store, keys, logger: createLogger('test', 'silent'), corsOrigins: ['*'], ...overrides });
  return { app, store };
}

/** A store whose every operation fails with `err`. */
function failing(err: Error): ActionStore {
  const fail = async (): Promise<never> => {
    throw err;
  };
  return {
    create: fail,
    pull: fail,
    stats: fail,
    unblock: fail,
    recordFeedback: fail,
    sweepExpired: fail,
    readLog: fail,
    ackLog: fail,
    logLength: fail,
    countPeople: fail,
    erasePeople: fail,
    personActions: () => {
      throw err;
    },
    ping: async () => false,
    close: async () => {},
  };
}

const action = (over: Record<string, unknown> = {}) => ({
  user_id: 'u1',
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'cached',
  content: { title: 'Hi', body: 'There' },
  attr: { screen: 'cart' },
  tags: ['promo'],
  expired_at: NEVER_EXPIRES,
  ...over,
});
const pullBody = (over: Record<string, unknown> = {}) => ({
  user_id: 'u1',
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'cached',
  ...over,
});

describe("the action store's OpenAPI fragment", () => {
  it('describes every route the app has, and no other', () => {
    expect(expressRoutes(setup().app)).toEqual(describedRoutes(doc.paths));
  });

  it('describes every status and answer body the app gives on each route', async () => {
    // pullMax 1: a cached pull of two actions answers `more` and a cursor (and a fetch answers one action).
    const { app: up, store } = setup({ pullMax: 1, maxBodyBytes: 4096 });
    const down = setup({ store: failing(new InfraError('redis', 'connection refused', { retriable: true })) }).app;
    const bug = setup({ store: failing(new TypeError('oops')) }).app;
    const seen: SeenAnswer[] = [];
    type Method = 'get' | 'post' | 'delete' | 'options';
    const hit = async (app: typeof up, method: Method, path: string, template: string, opts: { key?: string; body?: unknown; type?: string } = {}) => {
      let t = request(app)[method](path);
      if (opts.key) t = t.set('Authorization', `Bearer ${opts.key}`);
      if (opts.type) t = t.set('Content-Type', opts.type);
      const res = await (opts.body === undefined ? t : t.send(opts.body as object));
      seen.push({ template, method, status: res.status, contentType: res.headers['content-type'], body: res.body as unknown });
    };

    await hit(up, 'post', '/v1/actions', '/v1/actions', {
      key: API,
      body: [action({ inv_id: 1, action_id: 7 }), action({ user_id: 'u2', inv_id: 1, action_id: 7 })],
    });
    await hit(up, 'post', '/v1/actions', '/v1/actions', {
      key: API,
      body: { app_id: 'app-1', actions: [action({ inv_id: 1, action_id: 7 }), action({ render_method: 'in_app_message' })] },
    });
    await store.recordFeedback('app-1', { user_id: 'u1', inv_id: 1, action_id: 7, response: 'error', details: 'image 404' });
    await store.recordFeedback('app-1', { user_id: 'u2', inv_id: 1, action_id: 7, response: 'block' });
    // The routes that read a JSON body: every way a body or key can be wrong, and the store down or failing.
    const bodyRoutes = [
      ['/v1/actions', API, [action()]],
      ['/v1/action/pull', API, pullBody({ user_id: '*' })],
      ['/v1/action/sdk/pull', SDK, pullBody({ type: 'Message', delivery_mode: 'Cached' })],
    ] as const;
    for (const [path, key, good] of bodyRoutes) {
      const wrong = key === API ? SDK : API;
      await hit(up, 'post', path, path, { key, body: good });
      await hit(up, 'post', path, path, { key, body: { app_id: 'app-2' } });
      await hit(up, 'post', path, path, { key, body: { nope: 1 } });
      await hit(up, 'post', path, path, { key, body: '{', type: 'application/json' });
      await hit(up, 'post', path, path, { key, body: '<a/>', type: 'application/xml' });
      await hit(up, 'post', path, path, { key, body: JSON.stringify({ pad: 'x'.repeat(5000) }), type: 'application/json' });
      await hit(up, 'post', path, path, { body: good });
      await hit(up, 'post', path, path, { key: 'nope', body: good });
      await hit(up, 'post', path, path, { key: wrong, body: good });
      await hit(down, 'post', path, path, { key, body: good });
      await hit(bug, 'post', path, path, { key, body: good });
    }
    await hit(up, 'post', '/v1/action/pull', '/v1/action/pull', { key: API, body: pullBody({ user_id: '*', cursor: '1' }) });
    await hit(up, 'options', '/v1/action/sdk/pull', '/v1/action/sdk/pull');

    const stats = '/v1/actions/{action_id}/stats';
    const unblock = '/v1/actions/{action_id}/blocks/{user_id}';
    const olderFetch = '/v1/nudge/sdk/{user_id}';
    const generatorFetch = '/nudge/sdk/get';
    const reads: [Method, string, string, string][] = [
      ['get', '/v1/actions/7/stats', stats, API],
      ['get', '/v1/actions/99/stats', stats, API],
      ['get', '/v1/actions/x/stats', stats, API],
      ['delete', '/v1/actions/7/blocks/u2', unblock, API],
      ['delete', '/v1/actions/7/blocks/u2', unblock, API],
      ['delete', '/v1/actions/99/blocks/u2', unblock, API],
      ['delete', '/v1/actions/7/blocks/*', unblock, API],
      ['get', '/v1/nudge/sdk/u1?render_method=push_notification&render_page=', olderFetch, SDK],
      ['get', '/v1/nudge/sdk/u1?render_method=generic_message', olderFetch, SDK],
      ['get', '/nudge/sdk/get?subject_id=u1&queued_at=2025-03-04T10%3A02%3A11.504118Z', generatorFetch, API],
      ['get', '/nudge/sdk/get?queued_at=yesterday', generatorFetch, API],
    ];
    for (const [method, path, template, key] of reads) {
      await hit(up, method, path, template, { key });
      await hit(up, method, path, template);
      await hit(up, method, path, template, { key: key === API ? SDK : API });
      await hit(down, method, path, template, { key });
    }
    for (const p of ['/healthz', '/readyz', '/metrics']) {
      await hit(up, 'get', p, p);
      await hit(down, 'get', p, p);
    }

    expect(undescribedAnswers(doc, seen)).toEqual([]);
    // The scenarios really produced each answer (so the check is not vacuous).
    expect(new Set(seen.map((a) => a.status))).toEqual(new Set([200, 204, 400, 401, 403, 404, 413, 415, 500, 503]));
    const answer = (template: string, method: string) =>
      seen.filter((a) => a.template === template && a.method === method && a.status === 200).map((a) => a.body);
    expect(answer('/v1/action/pull', 'post')).toEqual([
      expect.objectContaining({ more: true, cursor: expect.any(String) }),
      { data: [expect.objectContaining({ user_id: 'u1' })], more: false },
    ]);
    expect(answer(stats, 'get')).toEqual([expect.objectContaining({ last_errors: [expect.objectContaining({ user_id: 'u1', details: 'image 404' })] })]);
    expect(answer(unblock, 'delete').map((b) => (b as { status: string }).status)).toEqual(['unblocked', 'not_blocked']);
    expect(answer(olderFetch, 'get').map((b) => (b as unknown[]).length)).toEqual([1]);
    expect(answer(generatorFetch, 'get').map((b) => (b as unknown[]).length)).toEqual([1]);
  });
});
