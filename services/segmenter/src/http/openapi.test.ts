import request from 'supertest';
import { InfraError, KeyRing, createLogger, type Analytics } from '@evp/core';
import { commonSchemas, opsPaths } from '@evp/http';
import { describedRoutes, expressRoutes, undescribedAnswers, useMigratedChdb, type SeenAnswer } from '@evp/testkit';
import { TABLES, eventRow, receiptRow, rejectedRow } from '../rows';
import { pageEvent, rejectedRecord } from '../test-fixtures';
import { createSegmenterApp } from './app';
import { segmenterOpenApi } from './openapi';

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
  const app = () => createSegmenterApp({ analytics: db.analytics, keys, logger }).app;

  beforeAll(async () => {
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

  it('describes every route the app has, and no other', () => {
    expect(expressRoutes(app())).toEqual(describedRoutes(doc.paths));
  });

  it('describes every status and answer body the app gives on each route', async () => {
    const down: Analytics = {
      ...db.analytics,
      query: async () => {
        throw new InfraError('clickhouse', 'connection refused', { retriable: true });
      },
    };
    const up = app();
    const failing = createSegmenterApp({ analytics: down, keys, logger }).app;
    const seen: SeenAnswer[] = [];
    const hit = async (a: typeof up, path: string, template: string, key?: string) => {
      const t = request(a).get(path);
      const res = await (key ? t.set('Authorization', `Bearer ${key}`) : t);
      seen.push({ template, method: 'get', status: res.status, contentType: res.headers['content-type'], body: res.body as unknown });
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
    for (const p of ['/inspector', '/inspector/inspector.js', '/inspector/inspector.css', '/healthz', '/readyz', '/metrics']) await hit(up, p, p);

    expect(undescribedAnswers(doc, seen)).toEqual([]);
    // The scenarios really produced each answer (so the check is not vacuous).
    expect(new Set(seen.map((a) => a.status))).toEqual(new Set([200, 400, 401, 403, 503]));
    const bodies = seen.filter((a) => a.status === 200 && a.template.startsWith('/v1/')).map((a) => a.body as { data?: unknown[]; events?: unknown[] });
    expect(bodies.map((b) => (b.data ?? b.events)?.length)).toEqual([3, 0, 3, 0, 2, 2, 2, 2, 0, 2]);
  });
});
