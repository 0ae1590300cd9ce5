import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { createLogger } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import type { components, paths } from './generated/openapi';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, e2eKeys } from './testing/scenario';

// The document proven usable, not only valid: a client generated from it (openapi-typescript's types,
// openapi-fetch's calls, dev/src/generated/openapi.ts) runs a partner's action round trip against
// the pipeline `npm start` runs, over real HTTP. Every request and answer below is typed by the
// document alone: a path, parameter or field it got wrong fails to compile (`npm test`'s tsc) or
// fails here.
describe('a client generated from docs/openapi.json, against the one-process pipeline', () => {
  let pipeline: RunningPipeline;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('openapiclient').replace(/-/g, '_') });
  const zeroResponses = { shown: 0, open: 0, discard: 0, block: 0, expired: 0, error: 0 };

  beforeAll(async () => {
    pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger('openapi-client', 'silent'), sinkFlushMs: 50 });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  const client = () => createClient<paths>({ baseUrl: pipeline.baseUrl, headers: { Authorization: `Bearer ${API_KEY}` } });

  it('is generated from the document the pipeline serves at /openapi.json', async () => {
    const { data, response } = await client().GET('/openapi.json');
    expect(response.status).toBe(200);
    expect(data).toEqual(JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8')));
  });

  it('creates an action, bulk-pulls it once and reads its stats', async () => {
    const api = client();
    const action: components['schemas']['NewAction'] = {
      user_id: 'user-oa1',
      type: 'message',
      render_method: 'in_app_message',
      delivery_mode: 'one-off',
      content: { title: 'Refill ready', body: 'Your refill is ready at the pharmacy.' },
      tags: ['refill'],
      expired_at: '2099-01-01T00:00:00Z',
      inv_id: 7,
      action_id: 42,
    };
    const created = await api.POST('/v1/actions', { body: [action] });
    expect([created.response.status, created.data]).toEqual([
      200,
      { data: [{ status: 'created', user_id: 'user-oa1', inv_id: 7, action_id: 42 }], counts: { created: 1, duplicate: 0, expired: 0, blocked: 0 } },
    ]);

    const pull = { user_id: '*', type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' } as const;
    const pulled = await api.POST('/v1/action/pull', { body: pull });
    expect(pulled.response.status).toBe(200);
    expect(pulled.data?.more).toBe(false);
    expect(
      pulled.data?.data.map((e) => ({ user_id: e.user_id, error: e.error, content: e.payload.content, tags: e.payload.tags, ref: e.payload.internal.ref })),
    ).toEqual([{ user_id: 'user-oa1', error: null, content: action.content, tags: ['refill'], ref: '7:42' }]);
    // A one-off action is handed out by exactly one pull.
    expect((await api.POST('/v1/action/pull', { body: pull })).data).toEqual({ data: [], more: false });

    const stats = () => api.GET('/v1/actions/{action_id}/stats', { params: { path: { action_id: '42' } } });
    const counters = { created: 1, delivered: 1, expired: 0, responses: zeroResponses };
    await waitFor(async () => (await stats()).data?.totals.delivered === 1, { timeoutMs: 10_000, what: 'the pull counted as a delivery' });
    const read = await stats();
    expect([read.response.status, read.data]).toEqual([200, { action_id: 42, totals: counters, by_inv_id: { '7': counters }, last_errors: [] }]);

    // The error answers are typed by the document too.
    const unknown = await api.GET('/v1/actions/{action_id}/stats', { params: { path: { action_id: '43' } } });
    expect([unknown.response.status, unknown.error?.error.code]).toEqual([404, 'not_found']);
  });
});
