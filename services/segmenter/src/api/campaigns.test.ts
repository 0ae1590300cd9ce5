import request from 'supertest';
import { createLogger, KeyRing } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';
import { assign, type Campaign, clickhouseReport, createCampaigns, variantActionId } from '../campaigns';
import { createSegmentStore } from '../segments';
import { ev, seed } from '../testing';
import { createSegmenterApp } from './app';

// The campaigns API on chdb (the real ClickHouse engine, in-process): what an API client sees, from
// a document to its states, settings and previews; the trigger and report routes with fakes of
// the two parts they call (the campaign worker's and the report's).
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
const chdb = useMigratedChdb('campaignapi');
const logger = createLogger('test', 'silent');
const NOW = Date.UTC(2026, 5, 10, 12, 0, 0);
const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

const action = {
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: 'Still thinking about {{ catalog.drug[event.item.id].name }}?', body: 'Hi {{ user.name }} ({{ user.os }}), it is in stock.' },
  tags: ['refill'],
  expires_after: 'P3D',
};
const refill = {
  name: 'Refill reminder',
  trigger: { event: { event: 'item', where: [{ prop: 'action', op: 'eq', value: 'view' }] } },
  action,
  variants: [
    { weight: 1, action: {} },
    { weight: 1, action: { content: { title: 'Your {{ catalog.drug[event.item.id].name }} is waiting' } } },
  ],
};
const viewed = { action: 'view', item: { id: 'D-1', type: 'drug' } };

describe('campaigns API', () => {
  const triggered: { appId: string; campaign: Campaign; userIds: string[] }[] = [];
  let app: ReturnType<typeof createSegmenterApp>['app'];
  /** The same API without the campaign worker and the report. */
  let bare: ReturnType<typeof createSegmenterApp>['app'];
  let segmentId: string;
  let otherAppSegment: string;

  beforeAll(async () => {
    const segments = createSegmentStore({ analytics: chdb.analytics, now: () => NOW });
    segmentId = (await segments.create('app-1', { name: 'viewers', definition: { event: 'item' } })).id;
    otherAppSegment = (await segments.create('app-2', { name: 'theirs', definition: { event: 'item' } })).id;
    const campaigns = createCampaigns({
      analytics: chdb.analytics,
      segments,
      now: () => NOW,
      triggerApi: async (appId, campaign, userIds) => {
        triggered.push({ appId, campaign, userIds });
        return { inv_id: 77, users: userIds.length };
      },
      report: async (appId, campaign) => ({ app: appId, campaign: campaign.id, groups: [] }),
    });
    app = createSegmenterApp({ analytics: chdb.analytics, keys, logger, campaigns: campaigns.service }).app;
    bare = createSegmenterApp({ analytics: chdb.analytics, keys, logger, campaigns: createCampaigns({ analytics: chdb.analytics, segments }).service }).app;
    // u-1: a user catalog record (twice: the later one wins) and an event with client facts; u-2: an event only.
    // The drug D-1 in app-1, and another name for D-1 in app-2.
    await seed(
      chdb.analytics,
      [
        ev('app-1', 'u-1', 'page', NOW - 60_000, { path: '/', title: 'Home', duration: 1, render_time: 1 }),
        ev('app-1', 'u-2', 'page', NOW - 60_000, { path: '/', title: 'Home', duration: 1, render_time: 1 }, { os: 'ios' }),
      ],
      [
        { app: 'app-1', kind: 'user', id: 'u-1', record: { name: 'Ami' }, at: 1_000 },
        { app: 'app-1', kind: 'user', id: 'u-1', record: { name: 'Amina' }, at: 2_000 },
        { app: 'app-1', kind: 'drug', id: 'D-1', record: { name: 'Amoxicillin 500 mg' } },
        { app: 'app-2', kind: 'drug', id: 'D-1', record: { name: 'Not this app’s' } },
      ],
    );
  });

  const post = (path: string, body: unknown, key = API) =>
    request(app)
      .post(path)
      .set(auth(key))
      .send(body as object);
  const create = async (doc: object, key = API) => {
    const res = await post('/v1/campaigns', doc, key);
    expect(res.status).toBe(201);
    return res.body as { id: string; version: number; state: string };
  };

  it('refuses an SDK key (403 forbidden_role) and a request without a key (401 auth_missing)', async () => {
    for (const [method, path] of [
      ['post', '/v1/campaigns'],
      ['get', '/v1/campaigns'],
      ['get', '/v1/campaigns/settings'],
      ['post', '/v1/campaigns/preview'],
      ['post', '/v1/campaigns/x/resume'],
    ] as const) {
      const sdk = await request(app)[method](path).set(auth(SDK)).send({});
      expect([path, sdk.status, sdk.body.error.code]).toEqual([path, 403, 'forbidden_role']);
      const none = await request(app)[method](path).send({});
      expect([path, none.status, none.body.error.code]).toEqual([path, 401, 'auth_missing']);
    }
  });

  it('refuses an invalid document with every problem and its path from the body root', async () => {
    const res = await post('/v1/campaigns', {
      ...refill,
      trigger: { segment_entry: otherAppSegment },
      action: { ...action, content: { title: 'Hi {{ user.nme }}', body: 'x' } },
      holdout: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_campaign');
    expect(res.body.error.path).toBe('$.trigger.segment_entry');
    expect(res.body.error.details.issues.map((i: { path: string; rule: string }) => [i.path, i.rule])).toEqual([
      ['$.trigger.segment_entry', 'unknown_segment'],
      ['$.action.content.title', 'unknown_variable'],
      // The variants' templates read event, which a segment_entry trigger does not have.
      ['$.variants[1].action.content.title', 'unknown_variable'],
      ['$.holdout', 'range'],
    ]);
    expect(res.body.error.details.issue_count).toBe(4);
    const notObject = await post('/v1/campaigns', [refill]);
    expect([notObject.status, notObject.body.error.code, notObject.body.error.path]).toEqual([400, 'invalid_campaign', '$']);
    const badJson = await request(app).post('/v1/campaigns').set(auth(API)).set('Content-Type', 'application/json').send('{"name":');
    expect([badJson.status, badJson.body.error.code]).toEqual([400, 'invalid_json']);
    expect((await request(app).get('/v1/campaigns').set(auth(API))).body).toEqual({ data: [] });
  });

  it('creates a draft, reads and lists it for the key’s app only', async () => {
    const doc = { ...refill, trigger: { segment_entry: segmentId }, action: { ...action, content: { title: 'Hello', body: 'Hi {{ user.name }}' } } };
    delete (doc as { variants?: unknown }).variants;
    const created = await post('/v1/campaigns', doc);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const expected = {
      id,
      name: 'Refill reminder',
      version: 1,
      state: 'draft',
      document: doc,
      action_ids: [variantActionId('app-1', id, 1)],
      created_at: new Date(NOW).toISOString(),
      updated_at: new Date(NOW).toISOString(),
    };
    expect(created.body).toEqual(expected);
    expect((await request(app).get(`/v1/campaigns/${id}`).set(auth(API))).body).toEqual(expected);
    expect((await request(app).get('/v1/campaigns').set(auth(API))).body.data).toContainEqual(expected);
    // Another app sees nothing of it and can change nothing.
    const other = await request(app).get(`/v1/campaigns/${id}`).set(auth(API2));
    expect([other.status, other.body.error.code, other.body.error.path]).toEqual([404, 'not_found', 'params.campaign_id']);
    expect((await request(app).get('/v1/campaigns').set(auth(API2))).body).toEqual({ data: [] });
    expect((await post(`/v1/campaigns/${id}/resume`, {}, API2)).status).toBe(404);
    expect((await request(app).put(`/v1/campaigns/${id}`).set(auth(API2)).send(doc)).status).toBe(404);
    expect((await request(app).get(`/v1/campaigns/${id}`).set(auth(API))).body.state).toBe('draft');
    const malformed = await request(app).get('/v1/campaigns/a%20b').set(auth(API));
    expect([malformed.status, malformed.body.error.code, malformed.body.error.path]).toEqual([400, 'invalid_request', 'params.campaign_id']);
  });

  it('moves through the states of states.ts; PUT only while draft or paused; 409 conflict on a refused move', async () => {
    const { id } = await create(refill);
    const state = async (path: string, status: number) => {
      const res = await post(`/v1/campaigns/${id}/${path}`, {});
      expect([path, res.status]).toEqual([path, status]);
      return status === 200 ? [res.body.state, res.body.version] : [res.body.error.code, res.body.error.details];
    };
    const put = async (doc: object) => {
      const res = await request(app).put(`/v1/campaigns/${id}`).set(auth(API)).send(doc);
      return res.status === 200 ? [res.status, res.body.name, res.body.version] : [res.status, res.body.error.code, res.body.error.message];
    };
    expect(await state('pause', 409)).toEqual(['conflict', { state: 'draft' }]);
    expect(await put({ ...refill, name: 'Draft 2' })).toEqual([200, 'Draft 2', 2]);
    expect(await state('resume', 200)).toEqual(['active', 3]);
    // Repeated: no error, no new version.
    expect(await state('resume', 200)).toEqual(['active', 3]);
    expect(await put({ ...refill, name: 'Live edit' })).toEqual([409, 'conflict', 'cannot replace the document of a campaign that is active: pause it first']);
    expect(await state('pause', 200)).toEqual(['paused', 4]);
    const invalid = await request(app)
      .put(`/v1/campaigns/${id}`)
      .set(auth(API))
      .send({ ...refill, holdout: -1 });
    expect([invalid.status, invalid.body.error.code, invalid.body.error.path]).toEqual([400, 'invalid_campaign', '$.holdout']);
    expect(await put({ ...refill, name: 'Paused edit', variants: undefined })).toEqual([200, 'Paused edit', 5]);
    const edited = (await request(app).get(`/v1/campaigns/${id}`).set(auth(API))).body;
    // One variant now: one action id, the first variant's as before.
    expect([edited.state, edited.action_ids]).toEqual(['paused', [variantActionId('app-1', id, 1)]]);
    expect(await state('end', 200)).toEqual(['ended', 6]);
    expect(await state('end', 200)).toEqual(['ended', 6]);
    expect(await state('resume', 409)).toEqual(['conflict', { state: 'ended' }]);
    expect(await state('pause', 409)).toEqual(['conflict', { state: 'ended' }]);
    expect((await put(refill))[0]).toBe(409);
    const missing = await post('/v1/campaigns/no-such/pause', {});
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
  });

  it('keeps campaign settings per app, validated', async () => {
    const get = async (key: string) => (await request(app).get('/v1/campaigns/settings').set(auth(key))).body;
    expect(await get(API)).toEqual({ max_per_user_per_day: null });
    const put = await request(app).put('/v1/campaigns/settings').set(auth(API)).send({ max_per_user_per_day: 3 });
    expect([put.status, put.body]).toEqual([200, { max_per_user_per_day: 3 }]);
    expect(await get(API)).toEqual({ max_per_user_per_day: 3 });
    expect(await get(API2)).toEqual({ max_per_user_per_day: null });
    const bad = await request(app).put('/v1/campaigns/settings').set(auth(API)).send({ max_per_user_per_day: 0, other: 1 });
    expect([bad.status, bad.body.error.code, bad.body.error.details.issues.map((i: { path: string }) => i.path)]).toEqual([
      400,
      'invalid_campaign',
      ['$.other', '$.max_per_user_per_day'],
    ]);
    await request(app).put('/v1/campaigns/settings').set(auth(API)).send({ max_per_user_per_day: null });
    expect(await get(API)).toEqual({ max_per_user_per_day: null });
  });

  it('answers hostile bodies with a 4xx, never a 5xx', async () => {
    const { id } = await create({ ...refill, trigger: { api: true }, variants: undefined, action: { ...action, content: { title: 'x', body: 'y' } } });
    await post(`/v1/campaigns/${id}/resume`, {});
    const bodies: unknown[] = [
      null,
      [],
      1,
      'x',
      {},
      { campaign: 1, user_id: {} },
      { campaign: { name: {}, trigger: [], action: null, variants: [null, 1] }, user_id: 'u' },
      { campaign: { ...refill, variants: [{ weight: 1, action: { content: 'x' } }] }, user_id: 'u', event: { item: 'not an object' } },
      { campaign: refill, user_id: 'u-1', event: { item: { id: { nested: true } } } },
      { user_ids: null },
      { user_ids: Array.from({ length: 10_001 }, (_, i) => `u${i}`) },
      { max_per_user_per_day: '3' },
      { __proto__: { x: 1 }, constructor: 1 },
    ];
    const statuses = new Set<number>();
    for (const path of ['/v1/campaigns', '/v1/campaigns/preview', `/v1/campaigns/${id}/trigger`]) {
      for (const body of bodies) {
        const res = await request(app).post(path).set(auth(API)).set('Content-Type', 'application/json').send(JSON.stringify(body));
        expect([path, body, res.status < 500]).toEqual([path, body, true]);
        statuses.add(res.status);
      }
    }
    for (const body of bodies) {
      for (const path of ['/v1/campaigns/settings', `/v1/campaigns/${id}`]) {
        const res = await request(app).put(path).set(auth(API)).set('Content-Type', 'application/json').send(JSON.stringify(body));
        expect([path, body, res.status < 500]).toEqual([path, body, true]);
        statuses.add(res.status);
      }
    }
    expect([...statuses].sort()).toEqual([200, 400, 409]);
  });

  describe('preview', () => {
    const preview = async (body: object, key = API) => {
      const res = await post('/v1/campaigns/preview', body, key);
      return [res.status, res.body];
    };

    it('renders the user’s action from the user catalog record, client facts and a drug record', async () => {
      const variant = assign('preview', 'u-1', { holdout: 0, weights: [1, 1] });
      const title = variant.group === 'variant' && variant.variant === 1 ? 'Your Amoxicillin 500 mg is waiting' : 'Still thinking about Amoxicillin 500 mg?';
      expect(await preview({ campaign: refill, user_id: 'u-1', event: viewed })).toEqual([
        200,
        {
          user_id: 'u-1',
          variant: (variant as { variant: number }).variant + 1,
          outcome: 'requested',
          action: {
            user_id: 'u-1',
            type: 'message',
            render_method: 'push_notification',
            delivery_mode: 'one-off',
            content: { title, body: 'Hi Amina (android), it is in stock.' },
            attr: {},
            tags: ['refill'],
            expired_at: new Date(NOW + 3 * 86_400_000).toISOString(),
          },
        },
      ]);
    });

    it('previews a saved campaign by id: its assignment and its variant’s action_id', async () => {
      const { id } = await create(refill);
      const a = assign(id, 'u-1', { holdout: 0, weights: [1, 1] }) as { variant: number };
      const [status, body] = await preview({ campaign: id, user_id: 'u-1', event: viewed });
      expect([status, body.variant, body.outcome, body.action.action_id]).toEqual([
        200,
        a.variant + 1,
        'requested',
        variantActionId('app-1', id, a.variant + 1),
      ]);
      // Another app's key: no such campaign.
      expect((await preview({ campaign: id, user_id: 'u-1', event: viewed }, API2))[0]).toBe(404);
    });

    it('says why a user would be skipped: a missing variable, a missing catalog record, control', async () => {
      const variant = (assign('preview', 'u-2', { holdout: 0, weights: [1, 1] }) as { variant: number }).variant + 1;
      expect(await preview({ campaign: refill, user_id: 'u-2', event: viewed })).toEqual([
        200,
        { user_id: 'u-2', variant, outcome: 'skipped', reason: 'template_variable_missing: user.name' },
      ]);
      const one = { ...refill, variants: undefined };
      expect(await preview({ campaign: one, user_id: 'u-1', event: { ...viewed, item: { id: 'D-9', type: 'drug' } } })).toEqual([
        200,
        { user_id: 'u-1', variant: 1, outcome: 'skipped', reason: 'template_variable_missing: catalog.drug.D-9' },
      ]);
      // The drug record of app-2 is app-2's: app-2's user u-1 has no user record either.
      expect(
        (
          await preview(
            {
              campaign: { ...one, action: { ...action, content: { title: '{{ catalog.drug[event.item.id].name }}', body: 'x' } } },
              user_id: 'u-1',
              event: viewed,
            },
            API2,
          )
        )[1],
      ).toMatchObject({
        outcome: 'requested',
        action: { content: { title: 'Not this app’s', body: 'x' } },
      });
      // A user in control (holdout 0.9: find one deterministically).
      const held = ['u-1', 'u-2', 'u-3', 'u-4', 'u-5'].find((u) => assign('preview', u, { holdout: 0.9, weights: [1] }).group === 'control') as string;
      expect(await preview({ campaign: { ...one, holdout: 0.9 }, user_id: held, event: viewed })).toEqual([
        200,
        { user_id: held, variant: 0, outcome: 'control', reason: 'control' },
      ]);
    });

    it('refuses an invalid document under $.campaign, and malformed fields', async () => {
      const [status, body] = await preview({ campaign: { ...refill, holdout: 2 }, user_id: 'u-1' });
      expect([status, body.error.code, body.error.path]).toEqual([400, 'invalid_campaign', '$.campaign.holdout']);
      expect((await preview({ campaign: refill }))[1].error.path).toBe('$.user_id');
      expect((await preview({ user_id: 'u-1' }))[1].error.path).toBe('$.campaign');
      expect((await preview({ campaign: refill, user_id: 'u-1', event: [1] }))[1].error.path).toBe('$.event');
      const api = { ...refill, trigger: { api: true }, variants: undefined, action: { ...action, content: { title: 'x', body: 'y' } } };
      expect((await preview({ campaign: api, user_id: 'u-1', event: viewed }))[1].error).toMatchObject({ code: 'invalid_request', path: '$.event' });
      expect((await preview({ campaign: 'no-such', user_id: 'u-1' }))[0]).toBe(404);
    });
  });

  describe('trigger and report (the worker’s and the report’s parts faked)', () => {
    const apiCampaign = {
      name: 'By API',
      trigger: { api: true },
      action: { ...action, content: { title: 'Hello', body: 'Hi {{ user.name | default: "there" }}' } },
    };

    it('triggers an active API campaign: 202 with the run, users deduplicated', async () => {
      const { id } = await create(apiCampaign);
      const draft = await post(`/v1/campaigns/${id}/trigger`, { user_ids: ['u-1'] });
      expect([draft.status, draft.body.error.code, draft.body.error.details]).toEqual([409, 'conflict', { state: 'draft' }]);
      await post(`/v1/campaigns/${id}/resume`, {});
      const res = await post(`/v1/campaigns/${id}/trigger`, { user_ids: ['u-1', 'u-2', 'u-1'] });
      expect([res.status, res.body]).toEqual([202, { inv_id: 77, users: 2 }]);
      expect(triggered.map((t) => [t.appId, t.campaign.id, t.campaign.state, t.userIds])).toEqual([['app-1', id, 'active', ['u-1', 'u-2']]]);
      triggered.length = 0;
      for (const bad of [{}, { user_ids: [] }, { user_ids: ['u-1', 5] }, { user_ids: [''] }]) {
        const r = await post(`/v1/campaigns/${id}/trigger`, bad);
        expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
      }
      expect((await post(`/v1/campaigns/${id}/trigger`, { user_ids: ['u-1'] }, API2)).status).toBe(404);
      expect(triggered).toHaveLength(0);
    });

    it('refuses to trigger an active campaign outside [start_at, end_at)', async () => {
      for (const [window, message] of [
        [{ start_at: '2026-06-11T00:00:00Z' }, 'it starts at 2026-06-11T00:00:00Z'],
        [{ start_at: '2026-06-01T00:00:00Z', end_at: '2026-06-10T12:00:00Z' }, 'it ended at 2026-06-10T12:00:00Z'],
      ] as const) {
        const { id } = await create({ ...apiCampaign, ...window });
        await post(`/v1/campaigns/${id}/resume`, {});
        const res = await post(`/v1/campaigns/${id}/trigger`, { user_ids: ['u-1'] });
        expect([res.status, res.body.error.code, res.body.error.message]).toEqual([409, 'conflict', `campaign ${id} acts on no trigger now: ${message}`]);
      }
      const { id } = await create({ ...apiCampaign, start_at: '2026-06-10T12:00:00Z', end_at: '2026-06-10T12:00:01Z' });
      await post(`/v1/campaigns/${id}/resume`, {});
      expect((await post(`/v1/campaigns/${id}/trigger`, { user_ids: ['u-1'] })).status).toBe(202);
    });

    it('refuses to trigger a campaign whose trigger is not the API', async () => {
      const { id } = await create(refill);
      await post(`/v1/campaigns/${id}/resume`, {});
      const res = await post(`/v1/campaigns/${id}/trigger`, { user_ids: ['u-1'] });
      expect([res.status, res.body.error.code, res.body.error.message]).toEqual([
        409,
        'conflict',
        `campaign ${id} is not triggered by the API: its trigger is event`,
      ]);
    });

    it('answers the report of a campaign of the key’s app', async () => {
      const { id } = await create(apiCampaign);
      const res = await request(app).get(`/v1/campaigns/${id}/report`).set(auth(API));
      expect([res.status, res.body]).toEqual([200, { app: 'app-1', campaign: id, groups: [] }]);
      expect((await request(app).get(`/v1/campaigns/${id}/report`).set(auth(API2))).status).toBe(404);
    });

    it('answers the real report (report.ts on the same ClickHouse) as composed by main.ts: a campaign with no runs yet', async () => {
      const real = createSegmenterApp({
        analytics: chdb.analytics,
        keys,
        logger,
        campaigns: createCampaigns({
          analytics: chdb.analytics,
          segments: createSegmentStore({ analytics: chdb.analytics }),
          report: clickhouseReport(chdb.analytics, () => NOW),
        }).service,
      }).app;
      const { id } = await create(refill);
      const res = await request(real).get(`/v1/campaigns/${id}/report`).set(auth(API));
      expect(res.status).toBe(200);
      expect([res.body.campaign_id, res.body.as_of, res.body.goal, res.body.control.audience]).toEqual([id, new Date(NOW).toISOString(), null, 0]);
      expect(res.body.variants.map((v: { variant: number; action_id: number; audience: number }) => [v.variant, v.action_id, v.audience])).toEqual([
        [1, variantActionId('app-1', id, 1), 0],
        [2, variantActionId('app-1', id, 2), 0],
      ]);
    });

    it('answers 503 not_enabled where the worker and the report are not composed', async () => {
      const { id } = await create(apiCampaign);
      const t = await request(bare)
        .post(`/v1/campaigns/${id}/trigger`)
        .set(auth(API))
        .send({ user_ids: ['u-1'] });
      const r = await request(bare).get(`/v1/campaigns/${id}/report`).set(auth(API));
      expect([t.status, t.body.error.code, r.status, r.body.error.code]).toEqual([503, 'not_enabled', 503, 'not_enabled']);
    });
  });
});
