import request from 'supertest';
import { InfraError, KeyRing, allTopics, createLogger, type Analytics } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { commonSchemas, opsPaths } from '@evp/http';
import { describedRoutes, expressRoutes, undescribedAnswers, useMigratedChdb, waitFor, type SeenAnswer } from '@evp/testkit';
import { eventRow, receiptRow, rejectedRow, TABLES } from '../sink';
import { consoleBuildStub, insertEvents, pageEvent, rejectedRecord, userEvent } from '../testing';
import { clickhouseReport, createCampaigns } from '../campaigns';
import { createSegments } from '../segments';
import { createSegmenterApp } from './app';
import { loadConsoleAssets } from './console';
import { segmenterOpenApi } from './openapi';
import { createPrivacyService, type PrivacyService } from '../privacy';

const API = 'api-key-app1-0123456789';
const SDK = 'sdk-key-app1-0123456789';
const keys = new KeyRing({
  keys: [
    { id: 'k-api', app_id: 'app-1', role: 'api', key: API },
    { id: 'k-sdk', app_id: 'app-1', role: 'sdk', key: SDK },
  ],
});
const fragment = segmenterOpenApi();
const doc = { paths: { ...fragment.paths, ...opsPaths }, schemas: { ...commonSchemas, ...fragment.schemas } };
const logger = createLogger('test', 'silent');
// Recent: receipts expire 30 days after receipt (TTL).
const T = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

describe("the segmenter's OpenAPI fragment", () => {
  const db = useMigratedChdb('segopenapi');
  const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
  const segmentsOn = (analytics: Analytics) =>
    createSegments({ analytics, bus, registry: createInProcessRegistry(), logger, config: { recomputeIntervalMs: 0, refreshIntervalMs: 0 } });
  let segments: ReturnType<typeof createSegments>;
  // The campaign worker is faked (its route's HTTP layer is what is described here); the report is the real one on chdb.
  const campaignsOn = (analytics: Analytics, parts = true) =>
    createCampaigns({
      analytics,
      segments: segments.engine.definitions,
      ...(parts
        ? { triggerApi: async (_app: string, _c: unknown, users: string[]) => ({ inv_id: 5, users: users.length }), report: clickhouseReport(analytics) }
        : {}),
    }).service;
  const consoleAssets = loadConsoleAssets({ build: consoleBuildStub() });
  const app = () =>
    createSegmenterApp({
      analytics: db.analytics,
      keys,
      logger,
      segments: segments.service,
      campaigns: campaignsOn(db.analytics),
      console: consoleAssets,
      privacy,
    }).app;
  afterAll(() => segments.engine.stop());
  let privacy: PrivacyService;
  beforeAll(() => {
    privacy = createPrivacyService({ analytics: db.analytics, logger, hashKey: 'openapi-test-key' });
  });

  beforeAll(async () => {
    await bus.ensureTopics(allTopics());
    segments = segmentsOn(db.analytics);
    await segments.engine.start();
    const warning = { path: '$.data[0].ctx.x', rule: 'unknown_property', message: 'kept as extra' };
    await db.analytics.insert(TABLES.receipts, [
      receiptRow({
        receipt_id: 'rc-1',
        app_id: 'app-1',
        request_id: 'req-1',
        key_id: 'k-sdk',
        received_at: T,
        processed_at: T + 40,
        payload_kind: 'log',
        envelope_index: 0,
        envelope_count: 1,
        part: 0,
        parts: 1,
        events_in: 3,
        accepted: 1,
        rejected: 2,
        items: [
          { event_index: 0, status: 'accepted', id: 'ev-1', name: 'page', user_id: 'u-1', kind: null, reasons: [warning], reasons_total: 1, event_count: 1 },
          {
            event_index: 1,
            status: 'rejected',
            id: 'rj-1',
            name: 'rate',
            user_id: 'u-1',
            kind: 'schema_violation',
            reasons: [warning],
            reasons_total: 1,
            event_count: 1,
          },
          {
            event_index: null,
            status: 'rejected',
            id: 'rj-2',
            name: null,
            user_id: null,
            kind: 'envelope_violation',
            reasons: [],
            reasons_total: 0,
            event_count: 1,
          },
        ],
      }),
    ]);
    await db.analytics.insert(TABLES.events, [
      eventRow({ ...pageEvent, received_at: T, request_id: 'req-1' }),
      eventRow({ ...pageEvent, event_id: 'ev-2', meta: null, sent_name: 'screen', property: null, envelope: 'flat', received_at: T }),
    ]);
    await db.analytics.insert(TABLES.rejected, [
      rejectedRow({ ...rejectedRecord, received_at: T }),
      rejectedRow({ ...rejectedRecord, rejection_id: 'rj-9', user_id: null, event_name: null, envelope_index: null, event_index: null, received_at: T }),
    ]);
  });

  // OPTIONS of the verdicts is answered by the CORS middleware before the router (as in the gateway).
  it('describes every route the app has, and no other', () => {
    expect(expressRoutes(app())).toEqual(describedRoutes(doc.paths, ['options']));
  });

  it('describes every status and answer body the app gives on each route', async () => {
    const down: Analytics = {
      ...db.analytics,
      query: async () => {
        throw new InfraError('clickhouse', 'connection refused', { retriable: true });
      },
    };
    const up = app();
    const failing = createSegmenterApp({
      analytics: down,
      keys,
      logger,
      segments: segmentsOn(down).service,
      campaigns: campaignsOn(down),
      privacy: createPrivacyService({ analytics: down, logger, hashKey: 'k' }),
    }).app;
    const partless = createSegmenterApp({ analytics: db.analytics, keys, logger, campaigns: campaignsOn(db.analytics, false) }).app;
    const seen: SeenAnswer[] = [];
    const hit = async (
      a: typeof up,
      path: string,
      template: string,
      key?: string,
      method: 'get' | 'post' | 'put' | 'delete' = 'get',
      body?: unknown,
      type?: string,
    ) => {
      let t = request(a)[method](path);
      if (key) t = t.set('Authorization', `Bearer ${key}`);
      if (type) t = t.set('Content-Type', type);
      const res = await (body === undefined ? t : t.send(body as object));
      seen.push({ template, method, status: res.status, contentType: res.headers['content-type'], body: res.body as unknown });
      return res.body as Record<string, unknown>;
    };
    const verdicts = '/v1/ingest/requests/{request_id}';
    for (const key of [SDK, API]) {
      await hit(up, '/v1/ingest/requests/req-1', verdicts, key);
      await hit(up, '/v1/ingest/requests/unknown', verdicts, key);
    }
    await hit(up, '/v1/ingest/requests/req-1', verdicts);
    await hit(up, '/v1/ingest/requests/req-1', verdicts, 'nope');
    await hit(up, '/v1/ingest/requests/a%20b', verdicts, SDK);
    await hit(failing, '/v1/ingest/requests/req-1', verdicts, SDK);
    for (const kind of ['events', 'rejected']) {
      const template = `/v1/inspect/${kind}`;
      for (const q of ['', '?user_id=user-42&name=page&limit=5', `?since=${T - 1}`, '?limit=0', '?since=yesterday', '?user_id=a&user_id=b']) {
        await hit(up, `${template}${q}`, template, API);
      }
      await hit(up, template, template, SDK);
      await hit(up, template, template);
      await hit(failing, template, template, API);
    }
    for (const p of ['/inspector', '/healthz', '/readyz', '/metrics']) await hit(up, p, p);

    const verdictBodies = seen.filter((a) => a.status === 200 && a.template.startsWith('/v1/')).map((a) => a.body as { data?: unknown[]; events?: unknown[] });
    expect(verdictBodies.map((b) => (b.data ?? b.events)?.length)).toEqual([3, 0, 3, 0, 2, 2, 2, 2, 0, 2]);

    // The console: its pages and files, and the series its charts draw.
    for (const p of [
      '/console',
      '/console/campaigns',
      '/console/segments',
      '/console/sql',
      '/console/health',
      '/console/keys',
      '/console/privacy',
      '/console/audit',
      '/console/assets/chart.umd.min.js',
      '/console/assets/sql-examples.json',
    ])
      await hit(up, p, p);
    for (const file of ['inspector-STUB0000.js', 'console-STUB0000.css', 'nope.js']) await hit(up, `/console/assets/${file}`, '/console/assets/{file}');
    await hit(up, '/console/campaigns/c-1', '/console/campaigns/{campaign_id}');
    await hit(up, '/console/segments/s-1', '/console/segments/{segment_id}');
    const health = '/v1/inspect/health';
    for (const q of ['', '?minutes=5', '?minutes=0', '?minutes=x']) await hit(up, `${health}${q}`, health, API);
    await hit(up, health, health, SDK);
    await hit(up, health, health);
    await hit(failing, health, health, API);
    const activity = '/v1/campaigns/activity';
    for (const q of ['', '?hours=2', '?hours=100000']) await hit(up, `${activity}${q}`, activity, API);
    await hit(failing, activity, activity, API);

    // Segments: every route, its successes and its errors.
    await insertEvents(db.analytics, [userEvent('app-1', 'u-1', 'page', T), userEvent('app-1', 'u-2', 'page', T)]);
    const definition = { event: 'page' };
    const all = '/v1/segments';
    const one = '/v1/segments/{segment_id}';
    const members = '/v1/segments/{segment_id}/members';
    const created = await hit(up, all, all, API, 'post', { name: 'paged', definition });
    const id = String(created.id);
    await hit(up, all, all, API, 'post', { name: 'bad', definition: { event: 'nope' } });
    await hit(up, all, all, API, 'post', '{"name":', 'application/json');
    await hit(up, all, all, API, 'post', { name: 'big', definition: { any: [{ event: 'x'.repeat(300 * 1024) }] } });
    await hit(up, all, all, API, 'post', 'name=x', 'application/x-www-form-urlencoded');
    await hit(up, all, all, SDK, 'post', { name: 'x', definition });
    await hit(up, all, all, undefined, 'get');
    await hit(up, all, all, API);
    await hit(failing, all, all, API);
    await hit(up, '/v1/segments/preview', '/v1/segments/preview', API, 'post', { definition });
    await hit(up, `/v1/segments/${id}`, one, API);
    await hit(up, '/v1/segments/none', one, API);
    await hit(up, '/v1/segments/a%20b', one, API);
    await hit(up, `/v1/segments/${id}`, one, API, 'put', { name: 'paged 2', definition });
    await waitFor(
      async () => ((await request(up).get(`/v1/segments/${id}/members`).set('Authorization', `Bearer ${API}`)).body.data as unknown[]).length === 3,
      {
        timeoutMs: 20_000,
        what: 'three members (u-1, u-2, user-42)',
      },
    );
    await hit(up, `/v1/segments/${id}/members?limit=1`, members, API);
    await hit(up, `/v1/segments/${id}/members?limit=5000`, members, API);
    await hit(up, '/v1/segments/none/members', members, API);
    const history = '/v1/segments/{segment_id}/history';
    await hit(up, `/v1/segments/${id}/history`, history, API);
    await hit(up, `/v1/segments/${id}/history?hours=0`, history, API);
    await hit(up, '/v1/segments/none/history', history, API);
    await hit(failing, `/v1/segments/${id}/history`, history, API);
    await hit(up, `${all}?member_counts=true`, all, API);
    await hit(up, `${all}?member_counts=yes`, all, API);
    await hit(up, '/v1/users/u-1/segments', '/v1/users/{user_id}/segments', API);
    const ref = await hit(up, all, all, API, 'post', { name: 'ref', definition: { segment: id } });
    await hit(up, `/v1/segments/${id}`, one, API, 'delete');
    await hit(up, `/v1/segments/${String(ref.id)}`, one, API, 'delete');
    await hit(up, `/v1/segments/${id}`, one, API, 'delete');

    // Campaigns: every route, its successes and its errors.
    const campaigns = '/v1/campaigns';
    const campaign = '/v1/campaigns/{campaign_id}';
    const content = { title: 'Hi {{ user.name | default: "there" }}', body: 'x' };
    const action = { type: 'message', render_method: 'push_notification', delivery_mode: 'one-off', content, expires_after: 'P1D' };
    const document = { name: 'api', trigger: { api: true }, action };
    const c = await hit(up, campaigns, campaigns, API, 'post', document);
    const cid = String(c.id);
    await hit(up, campaigns, campaigns, API, 'post', { ...document, holdout: 2 });
    await hit(up, campaigns, campaigns, API, 'post', { ...document, name: 'x'.repeat(300 * 1024) });
    await hit(up, campaigns, campaigns, API, 'post', 'name=x', 'application/x-www-form-urlencoded');
    await hit(up, campaigns, campaigns, SDK, 'post', document);
    await hit(up, campaigns, campaigns);
    await hit(up, campaigns, campaigns, API);
    await hit(failing, campaigns, campaigns, API);
    const preview = '/v1/campaigns/preview';
    await hit(up, preview, preview, API, 'post', { campaign: document, user_id: 'u-1' });
    await hit(up, preview, preview, API, 'post', {
      campaign: { ...document, action: { ...action, content: { title: '{{ user.name }}', body: 'x' } } },
      user_id: 'u-1',
    });
    await hit(up, preview, preview, API, 'post', { campaign: { ...document, holdout: 0.99 }, user_id: 'u-1' });
    await hit(up, preview, preview, API, 'post', { campaign: cid, user_id: 'u-1' });
    await hit(up, preview, preview, API, 'post', { campaign: 'none', user_id: 'u-1' });
    await hit(up, preview, preview, API, 'post', { campaign: document });
    const settings = '/v1/campaigns/settings';
    await hit(up, settings, settings, API);
    await hit(up, settings, settings, API, 'put', { max_per_user_per_day: 2 });
    await hit(up, settings, settings, API, 'put', { max_per_user_per_day: 0 });
    await hit(up, campaign.replace('{campaign_id}', cid), campaign, API);
    await hit(up, '/v1/campaigns/none', campaign, API);
    await hit(up, '/v1/campaigns/a%20b', campaign, API);
    await hit(up, `/v1/campaigns/${cid}`, campaign, API, 'put', { ...document, name: 'api 2' });
    await hit(up, `/v1/campaigns/${cid}/pause`, `${campaign}/pause`, API, 'post');
    await hit(up, `/v1/campaigns/${cid}/trigger`, `${campaign}/trigger`, API, 'post', { user_ids: ['u-1'] });
    await hit(up, `/v1/campaigns/${cid}/resume`, `${campaign}/resume`, API, 'post');
    await hit(up, `/v1/campaigns/${cid}`, campaign, API, 'put', document);
    await hit(up, `/v1/campaigns/${cid}/trigger`, `${campaign}/trigger`, API, 'post', { user_ids: ['u-1', 'u-2'] });
    await hit(up, `/v1/campaigns/${cid}/trigger`, `${campaign}/trigger`, API, 'post', { user_ids: [] });
    await hit(partless, `/v1/campaigns/${cid}/trigger`, `${campaign}/trigger`, API, 'post', { user_ids: ['u-1'] });
    await hit(up, `/v1/campaigns/${cid}/report`, `${campaign}/report`, API);
    await hit(up, '/v1/campaigns/none/report', `${campaign}/report`, API);
    await hit(partless, `/v1/campaigns/${cid}/report`, `${campaign}/report`, API);
    await hit(up, `/v1/campaigns/${cid}/end`, `${campaign}/end`, API, 'post');
    await hit(up, `/v1/campaigns/${cid}/pause`, `${campaign}/pause`, API, 'post');
    await hit(up, '/v1/campaigns/none/end', `${campaign}/end`, API, 'post');
    await hit(up, '/v1/campaigns/none/resume', `${campaign}/resume`, API, 'post');

    // Privacy: requests, their states once processed, an export's data, suppressions.
    const erasures = '/v1/privacy/erasures';
    const erasure = await hit(up, erasures, erasures, API, 'post', { user_ids: ['u-erased'], patient_ids: ['p-erased'] });
    await hit(up, erasures, erasures, API, 'post', { user_ids: [] });
    await hit(up, erasures, erasures, API, 'post', { user_ids: ['x'] }, undefined);
    await hit(up, erasures, erasures, SDK, 'post', { user_ids: ['x'] });
    const exports = '/v1/privacy/exports';
    const exp = await hit(up, exports, exports, API, 'post', { user_id: 'u-1' });
    await hit(up, exports, exports, API, 'post', { user_id: 'u-1', patient_id: 'p' });
    await hit(up, `${exports}/${String(exp.id)}/data`, `${exports}/{id}/data`, API);
    await privacy.runOnce();
    await hit(up, erasures, erasures, API);
    await hit(up, `${erasures}/${String(erasure.id)}`, `${erasures}/{id}`, API);
    await hit(up, `${erasures}/00000000-0000-4000-8000-000000000000`, `${erasures}/{id}`, API);
    await hit(up, `${exports}/${String(exp.id)}`, `${exports}/{id}`, API);
    await hit(up, `${exports}/${String(exp.id)}/data`, `${exports}/{id}/data`, API);
    await hit(up, '/v1/privacy/suppressions', '/v1/privacy/suppressions', API);
    await hit(up, '/v1/privacy/suppressions/u-erased', '/v1/privacy/suppressions/{user_id}', API, 'delete');
    await hit(up, '/v1/privacy/suppressions/u-erased', '/v1/privacy/suppressions/{user_id}', API, 'delete');
    await hit(failing, erasures, erasures, API);

    expect(undescribedAnswers(doc, seen)).toEqual([]);
    // The scenarios really produced each answer (so the check is not vacuous).
    expect(new Set(seen.map((a) => a.status))).toEqual(new Set([200, 201, 202, 204, 302, 400, 401, 403, 404, 409, 413, 415, 503]));
    const campaignCodes = seen.filter((a) => a.template.startsWith('/v1/campaigns')).map((a) => (a.body as { error?: { code: string } }).error?.code);
    expect(new Set(campaignCodes)).toEqual(
      new Set([
        undefined,
        'invalid_campaign',
        'payload_too_large',
        'unsupported_media_type',
        'forbidden_role',
        'auth_missing',
        'unavailable',
        'not_found',
        'invalid_request',
        'conflict',
        'not_enabled',
      ]),
    );
  });
});
