import request from 'supertest';
import { KeyRing, createLogger } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';
import type { IngestReceipt } from '@evp/schemas';
import { eventRow, receiptRow, rejectedRow, TABLES } from '../sink';
import { consoleBuildStub, pageEvent, rejectedRecord } from '../testing';
import { loadConsoleAssets } from './console';
import { createSegmenterApp } from './app';

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

// Recent: receipts expire 30 days after receipt (TTL), so a fixed date would be gone on insert.
const T = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const warning = { path: '$.data[0].ctx.referrer', rule: 'unknown_property', message: 'referrer is not part of PageProps; kept as extra' };
const reason = { path: '$.data[1].ctx.rate_value', rule: 'range', message: 'must be ≤ 5' };

/** Envelope 0 of request req-2 of app-1: one accepted event with a warning, one rejected. */
const receipt = (over: Partial<IngestReceipt> = {}): IngestReceipt => ({
  receipt_id: `rc-${over.request_id ?? 'req-2'}-${over.envelope_index ?? 0}-${over.part ?? 0}`,
  app_id: 'app-1',
  request_id: 'req-2',
  key_id: 'k-sdk',
  received_at: T,
  processed_at: T + 40,
  payload_kind: 'log',
  envelope_index: 0,
  envelope_count: 2,
  part: 0,
  parts: 1,
  events_in: 2,
  accepted: 1,
  rejected: 1,
  items: [
    { event_index: 0, status: 'accepted', id: 'ev-1', name: 'page', user_id: 'u-1', kind: null, reasons: [warning], reasons_total: 1, event_count: 1 },
    {
      event_index: 1,
      status: 'rejected',
      id: 'rj-1',
      name: 'rate',
      user_id: 'u-1',
      kind: 'schema_violation',
      reasons: [reason],
      reasons_total: 1,
      event_count: 1,
    },
  ],
  ...over,
});

describe('segmenter HTTP: request verdicts and the inspector', () => {
  const db = useMigratedChdb('segapi');
  const app = () => createSegmenterApp({ analytics: db.analytics, keys, logger: createLogger('test', 'silent') }).app;

  beforeAll(async () => {
    const a = db.analytics;
    await a.insert(TABLES.receipts, [receipt()].map(receiptRow));
    // Events: two of app-1 (different users, names, times) and one of app-2 with the same request id.
    await a.insert(
      TABLES.events,
      [
        { ...pageEvent, event_id: 'ev-old', user_id: 'u-1', received_at: T - 60_000, time: T - 61_000, request_id: 'req-1', warnings: [] },
        { ...pageEvent, event_id: 'ev-1', user_id: 'u-1', received_at: T, time: T - 1_000, request_id: 'req-2', warnings: [warning] },
        { ...pageEvent, event_id: 'ev-other', app_id: 'app-2', user_id: 'u-1', received_at: T, request_id: 'req-2' },
      ].map(eventRow),
    );
    await a.insert(TABLES.rejected, [
      rejectedRow({ ...rejectedRecord, rejection_id: 'rj-1', request_id: 'req-2', received_at: T, user_id: 'u-1', errors: [reason], event_index: 1 }),
      rejectedRow({ ...rejectedRecord, rejection_id: 'rj-other', app_id: 'app-2', request_id: 'req-2', received_at: T, user_id: 'u-1' }),
    ]);
  });

  describe('GET /v1/ingest/requests/{request_id}', () => {
    it('is pending while an envelope of the request has no receipt, listing what is validated', async () => {
      const res = await request(app()).get('/v1/ingest/requests/req-2').set('Authorization', `Bearer ${SDK}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        request_id: 'req-2',
        status: 'pending',
        received_at: iso(T),
        payload_kind: 'log',
        envelopes: { count: 2, validated: 1 },
        counts: { events: 2, accepted: 1, rejected: 1, with_warnings: 1 },
        events: [
          { envelope_index: 0, event_index: 0, status: 'accepted', event_id: 'ev-1', name: 'page', user_id: 'u-1', warnings: [warning], warnings_total: 1 },
          {
            envelope_index: 0,
            event_index: 1,
            status: 'rejected',
            rejection_id: 'rj-1',
            kind: 'schema_violation',
            name: 'rate',
            user_id: 'u-1',
            reasons: [reason],
            reasons_total: 1,
            event_count: 1,
          },
        ],
      });
    });

    it('is complete once every envelope (every part of it) has its receipt; the API key may ask too', async () => {
      const second = receipt({
        request_id: 'req-3',
        envelope_count: 1,
        parts: 2,
        items: [{ event_index: 0, status: 'accepted', id: 'ev-9', name: 'app', user_id: 'u-2', kind: null, reasons: [], reasons_total: 0, event_count: 1 }],
        events_in: 2,
        accepted: 2,
        rejected: 0,
      });
      await db.analytics.insert(TABLES.receipts, [receiptRow(second)]);
      const half = await request(app()).get('/v1/ingest/requests/req-3').set('Authorization', `Bearer ${API}`);
      expect([half.body.status, half.body.envelopes]).toEqual(['pending', { count: 1, validated: 0 }]);
      await db.analytics.insert(TABLES.receipts, [
        receiptRow({
          ...second,
          receipt_id: 'rc-req-3-0-1',
          part: 1,
          items: [{ event_index: 1, status: 'accepted', id: 'ev-10', name: 'app', user_id: 'u-2', kind: null, reasons: [], reasons_total: 0, event_count: 1 }],
        }),
      ]);
      const done = await request(app()).get('/v1/ingest/requests/req-3').set('Authorization', `Bearer ${API}`);
      expect([done.body.status, done.body.envelopes, done.body.counts, done.body.events.map((e: { event_id: string }) => e.event_id)]).toEqual([
        'complete',
        { count: 1, validated: 1 },
        { events: 2, accepted: 2, rejected: 0, with_warnings: 0 },
        ['ev-9', 'ev-10'],
      ]);
    });

    it('shows another app nothing of this app’s request, and an unknown request as pending with no events', async () => {
      const res = await request(app()).get('/v1/ingest/requests/req-2').set('Authorization', `Bearer ${API2}`);
      expect([res.status, res.body.status, res.body.events, res.body.envelopes]).toEqual([200, 'pending', [], { count: null, validated: 0 }]);
    });

    it('answers a page on another origin (a web library’s debug mode) with CORS; another app’s SDK key sees nothing', async () => {
      const browserApp = createSegmenterApp({ analytics: db.analytics, keys, logger: createLogger('test', 'silent'), corsOrigins: ['*'] }).app;
      const origin = 'https://shop.example';
      const preflight = await request(browserApp)
        .options('/v1/ingest/requests/req-2')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'GET')
        .set('Access-Control-Request-Headers', 'authorization');
      expect([
        preflight.status,
        preflight.headers['access-control-allow-origin'],
        preflight.headers['access-control-allow-methods'],
        preflight.headers['access-control-allow-headers'],
      ]).toEqual([204, '*', 'GET, OPTIONS', 'Authorization, X-Request-Id']);
      const own = await request(browserApp).get('/v1/ingest/requests/req-2').set('Origin', origin).set('Authorization', `Bearer ${SDK}`);
      expect([own.status, own.headers['access-control-allow-origin'], own.body.counts]).toEqual([
        200,
        '*',
        { events: 2, accepted: 1, rejected: 1, with_warnings: 1 },
      ]);
      // app-2 has an event and a rejection under the same request id: its SDK key sees only those of
      // its own request (none has a receipt), never app-1's.
      const other = await request(browserApp).get('/v1/ingest/requests/req-2').set('Origin', origin).set('Authorization', `Bearer ${SDK2}`);
      expect([other.status, other.body.status, other.body.events, other.body.counts.accepted]).toEqual([200, 'pending', [], 0]);
      // The API-key routes stay without CORS: a browser may not read them.
      const inspector = await request(browserApp).get('/v1/inspect/events').set('Origin', origin).set('Authorization', `Bearer ${API}`);
      expect([inspector.status, inspector.headers['access-control-allow-origin']]).toEqual([200, undefined]);
      // Without configured origins (the default), no CORS at all.
      const closed = await request(app()).get('/v1/ingest/requests/req-2').set('Origin', origin).set('Authorization', `Bearer ${SDK}`);
      expect([closed.status, closed.headers['access-control-allow-origin']]).toEqual([200, undefined]);
    });

    it('refuses a missing key and a malformed id', async () => {
      expect((await request(app()).get('/v1/ingest/requests/req-2')).body.error.code).toBe('auth_missing');
      const bad = await request(app()).get('/v1/ingest/requests/a%20b').set('Authorization', `Bearer ${SDK}`);
      expect([bad.status, bad.body.error.code, bad.body.error.path]).toEqual([400, 'invalid_request', 'params.request_id']);
    });
  });

  describe('GET /v1/inspect/events and /v1/inspect/rejected', () => {
    it('lists the app’s events newest first, with their warnings, and nothing of another app', async () => {
      const res = await request(app()).get('/v1/inspect/events').set('Authorization', `Bearer ${API}`);
      expect(res.status).toBe(200);
      expect(res.body.data.map((e: { event_id: string }) => e.event_id)).toEqual(['ev-1', 'ev-old']);
      expect(res.body.data[0]).toEqual({
        event_id: 'ev-1',
        user_id: 'u-1',
        name: 'page',
        sent_name: null,
        block: 'core',
        property: 'Home',
        time: iso(T - 1_000),
        received_at: iso(T),
        request_id: 'req-2',
        envelope: 'current',
        sdk: 'android/2.1.0',
        app_version: '1.4.2 (142)',
        props: { path: '/home', title: 'Home', duration: 12.5, render_time: 340 },
        meta: { campaign: 'spring', n: 1 },
        warnings: [warning],
      });
    });

    it.each([
      ['request_id=req-1', ['ev-old']],
      ['user_id=u-1&name=page', ['ev-1', 'ev-old']],
      ['name=rate', []],
      [`since=${T - 1}`, ['ev-1']],
      [`since=${iso(T - 60_000)}`, ['ev-1']],
      ['limit=1', ['ev-1']],
    ])('filters events by %s', async (query, ids) => {
      const res = await request(app()).get(`/v1/inspect/events?${query}`).set('Authorization', `Bearer ${API}`);
      expect(res.body.data.map((e: { event_id: string }) => e.event_id)).toEqual(ids);
    });

    it('lists the app’s rejections with their reasons, filterable by user and name', async () => {
      const res = await request(app()).get('/v1/inspect/rejected?user_id=u-1&name=rate').set('Authorization', `Bearer ${API}`);
      expect(res.body.data).toEqual([
        {
          rejection_id: 'rj-1',
          kind: 'schema_violation',
          user_id: 'u-1',
          name: 'rate',
          request_id: 'req-2',
          received_at: iso(T),
          envelope_index: 0,
          event_index: 1,
          event_count: 1,
          payload_kind: 'log',
          reasons: [reason],
          payload: rejectedRecord.payload,
          payload_truncated: false,
        },
      ]);
      const other = await request(app()).get('/v1/inspect/rejected').set('Authorization', `Bearer ${API2}`);
      expect(other.body.data.map((r: { rejection_id: string }) => r.rejection_id)).toEqual(['rj-other']);
    });

    it.each([
      ['since=yesterday', 'query.since'],
      ['limit=0', 'query.limit'],
      ['limit=1001', 'query.limit'],
      ['user_id=', 'query.user_id'],
    ])('answers 400 for %s', async (query, path) => {
      const res = await request(app()).get(`/v1/inspect/events?${query}`).set('Authorization', `Bearer ${API}`);
      expect([res.status, res.body.error.code, res.body.error.path]).toEqual([400, 'invalid_request', path]);
    });

    it('is for the API key only: an SDK key (public, in apps) gets 403', async () => {
      const res = await request(app()).get('/v1/inspect/rejected').set('Authorization', `Bearer ${SDK}`);
      expect([res.status, res.body.error.code]).toEqual([403, 'forbidden_role']);
    });
  });

  it('serves the inspector page and its assets (the console’s build it is given) with a same-origin content policy', async () => {
    const assets = loadConsoleAssets({ build: consoleBuildStub() });
    const withConsole = createSegmenterApp({ analytics: db.analytics, keys, logger: createLogger('test', 'silent'), console: assets }).app;
    const inspector = await request(withConsole).get('/inspector');
    expect(inspector.text).toContain('<script src="/console/assets/inspector-STUB0000.js"></script>');
    expect(inspector.text).toContain('<link rel="stylesheet" href="/console/assets/console-STUB0000.css">');
    for (const [path, type, cache] of [
      ['/inspector', 'text/html', 'no-cache'],
      ['/console/assets/inspector-STUB0000.js', 'text/javascript', 'public, max-age=31536000, immutable'],
      ['/console/assets/console-STUB0000.css', 'text/css', 'public, max-age=31536000, immutable'],
    ] as const) {
      const res = await request(withConsole).get(path);
      expect([path, res.status, res.headers['content-type'], res.headers['content-security-policy'], res.headers['cache-control']]).toEqual([
        path,
        200,
        `${type}; charset=utf-8`,
        "default-src 'self'; frame-ancestors 'none'",
        cache,
      ]);
    }
    // Without the console's files (a segmenter run without CONSOLE_ASSETS_DIR), no page.
    expect((await request(app()).get('/inspector')).status).toBe(404);
  });
});
