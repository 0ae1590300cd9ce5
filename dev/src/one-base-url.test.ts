import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createLogger } from '@evp/core';
import { PUBLIC_ROUTES, type PublicService } from '@evp/http';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { oneEventEnvelope, sdkPullBody } from './testing/one-event';
import { API_KEY, SDK_KEY, e2eKeys } from './testing/scenario';

/** One request per entry of the route table, with the answer the owning service gives it today. */
interface Probe {
  method: 'GET' | 'POST';
  path: string;
  key?: string;
  body?: unknown;
  status: number;
  /** The error code of a JSON error answer, or a check of a success body. */
  expect: string | ((body: Record<string, any>) => void);
}

const envelope = oneEventEnvelope;
/** The synthetic data generator's flat form (docs/api.md, "Server-side import"). */
const flatBody = {
  data: [
    { u_id: 'user-1', d_id: 'd-1', os: 'android', ol: true, ts: '2025-03-04T09:12:45.381204Z', type: 'identify', block: 'core', props: { action: 'login' } },
  ],
};
const sdkPull = sdkPullBody;

// Keyed by the table's path: a route added to the table without a probe fails the first test.
// Paths the clients call that no service serves yet (their shapes are another task) still reach
// their owner, which answers its own JSON 404.
const PROBES: Record<string, Probe[]> = {
  '/v1/ingest/': [
    { method: 'POST', path: '/v1/ingest/log', body: envelope, status: 401, expect: 'auth_missing' },
    { method: 'POST', path: '/v1/ingest/log', key: SDK_KEY, body: envelope, status: 200, expect: (b) => expect(b.accepted).toBe(1) },
    { method: 'POST', path: '/v1/ingest/events', body: envelope, status: 401, expect: 'auth_missing' },
    { method: 'POST', path: '/v1/ingest/catalog/user', body: [], status: 401, expect: 'auth_missing' },
  ],
  '/v1/ingest/requests/': [
    { method: 'GET', path: '/v1/ingest/requests/r-unknown', status: 401, expect: 'auth_missing' },
    {
      method: 'GET',
      path: '/v1/ingest/requests/r-unknown',
      key: SDK_KEY,
      status: 200,
      expect: (b) => expect([b.status, b.events]).toEqual(['pending', []]),
    },
  ],
  '/v1/inspect/': [
    { method: 'GET', path: '/v1/inspect/events', key: SDK_KEY, status: 403, expect: 'forbidden_role' },
    { method: 'GET', path: '/v1/inspect/rejected?user_id=nobody', key: API_KEY, status: 200, expect: (b) => expect(b).toEqual({ data: [] }) },
  ],
  '/v1/segments': [
    { method: 'GET', path: '/v1/segments', key: SDK_KEY, status: 403, expect: 'forbidden_role' },
    { method: 'GET', path: '/v1/segments', key: API_KEY, status: 200, expect: (b) => expect(b).toEqual({ data: [] }) },
  ],
  '/v1/segments/': [{ method: 'GET', path: '/v1/segments/none/members', key: API_KEY, status: 404, expect: 'not_found' }],
  '/v1/campaigns': [
    { method: 'GET', path: '/v1/campaigns', key: SDK_KEY, status: 403, expect: 'forbidden_role' },
    { method: 'GET', path: '/v1/campaigns', key: API_KEY, status: 200, expect: (b) => expect(b).toEqual({ data: [] }) },
  ],
  '/v1/campaigns/': [
    { method: 'GET', path: '/v1/campaigns/none', key: API_KEY, status: 404, expect: 'not_found' },
    { method: 'GET', path: '/v1/campaigns/settings', key: API_KEY, status: 200, expect: (b) => expect(b).toEqual({ max_per_user_per_day: null }) },
  ],
  '/v1/users/': [{ method: 'GET', path: '/v1/users/user-1/segments', key: API_KEY, status: 200, expect: (b) => expect(b).toEqual({ data: [] }) }],
  '/v1/audit/reads': [
    { method: 'GET', path: '/v1/audit/reads', key: SDK_KEY, status: 403, expect: 'forbidden_role' },
    { method: 'GET', path: '/v1/audit/reads?limit=0', key: API_KEY, status: 400, expect: 'invalid_request' },
  ],
  '/v1/audit/verify': [
    { method: 'GET', path: '/v1/audit/verify', key: SDK_KEY, status: 403, expect: 'forbidden_role' },
    // The probes before this one were recorded: the chain holds from 1 to its head.
    { method: 'GET', path: '/v1/audit/verify', key: API_KEY, status: 200, expect: (b) => expect([b.ok, b.entries]).toEqual([true, b.head?.seq]) },
  ],
  '/v1/privacy/': [
    { method: 'GET', path: '/v1/privacy/erasures', key: SDK_KEY, status: 403, expect: 'forbidden_role' },
    { method: 'GET', path: '/v1/privacy/suppressions', key: API_KEY, status: 200, expect: (b) => expect(b).toEqual({ data: [] }) },
  ],
  '/v1/keys': [
    { method: 'GET', path: '/v1/keys', key: SDK_KEY, status: 403, expect: 'forbidden_role' },
    {
      method: 'GET',
      path: '/v1/keys',
      key: API_KEY,
      status: 200,
      // The key's own app only; this very request is a use of e2e-api, so its last use is known at once.
      expect: (b) => {
        expect([b.app_id, b.data.map((k: Record<string, unknown>) => [k.id, k.role, k.created_at, k.revoked_at])]).toEqual([
          'e2e-app',
          [
            ['e2e-api', 'api', null, null],
            ['e2e-sdk', 'sdk', null, null],
          ],
        ]);
        expect(Date.parse(b.data[0].last_used_at)).toBeGreaterThan(Date.now() - 60_000);
      },
    },
  ],
  '/v1/keys/user-tokens': [
    { method: 'GET', path: '/v1/keys/user-tokens', key: SDK_KEY, status: 403, expect: 'forbidden_role' },
    {
      method: 'GET',
      path: '/v1/keys/user-tokens',
      key: API_KEY,
      status: 200,
      // Under off nothing is checked, so nothing is counted.
      expect: (b) =>
        expect([b.app_id, b.policy, b.keys, b.last_hour]).toEqual([
          'e2e-app',
          'off',
          [],
          { valid: 0, anonymous: 0, required: 0, invalid: 0, expired: 0, mismatch: 0 },
        ]),
    },
  ],
  '/console/keys': [{ method: 'GET', path: '/console/keys', status: 200, expect: (b) => expect(b.html).toContain('<title>Keys · console</title>') }],
  '/inspector': [{ method: 'GET', path: '/inspector', status: 200, expect: (b) => expect(b.html).toContain('<title>Event inspector · console</title>') }],
  '/console': [{ method: 'GET', path: '/console', status: 302, expect: (b) => expect(b.html).toContain('/console/campaigns') }],
  '/console/': [{ method: 'GET', path: '/console/health', status: 200, expect: (b) => expect(b.html).toContain('<title>Health · console</title>') }],
  // The web library's script build, built in process by esbuild (the pipeline's default).
  '/sdk/': [
    { method: 'GET', path: '/sdk/web.js', status: 200, expect: (b) => expect(b.html).toContain('evp') },
    { method: 'GET', path: '/sdk/nope.js', status: 404, expect: 'not_found' },
  ],
  '/data/ingest/': [
    { method: 'POST', path: '/data/ingest/log', key: API_KEY, body: flatBody, status: 200, expect: (b) => expect(b.accepted).toBe(1) },
    { method: 'POST', path: '/data/ingest/catalog/user', key: SDK_KEY, body: [{ id: 'u', timezone: 'Z' }], status: 403, expect: 'forbidden_role' },
  ],
  '/v1/action/': [
    { method: 'POST', path: '/v1/action/pull', body: sdkPull, status: 401, expect: 'auth_missing' },
    { method: 'POST', path: '/v1/action/sdk/pull', key: SDK_KEY, body: sdkPull, status: 200, expect: (b) => expect(b).toEqual({ data: [], more: false }) },
  ],
  '/v1/actions': [{ method: 'POST', path: '/v1/actions', body: [], status: 401, expect: 'auth_missing' }],
  '/v1/actions/': [{ method: 'GET', path: '/v1/actions/1/stats', key: API_KEY, status: 404, expect: 'not_found' }],
  '/v1/nudge/': [
    { method: 'GET', path: '/v1/nudge/sdk/user-1?render_method=push_notification', key: SDK_KEY, status: 200, expect: (b) => expect(b).toEqual([]) },
  ],
  '/nudge/': [
    {
      method: 'GET',
      path: '/nudge/sdk/get?subject_id=user-1&queued_at=2025-03-04T10%3A02%3A11.504118Z',
      key: API_KEY,
      status: 200,
      expect: (b) => expect(b).toEqual([]),
    },
  ],
};

const COUNTER: Record<PublicService, string> = {
  gateway: 'gateway_http_requests_total',
  'action-store': 'action_store_http_requests_total',
  segmenter: 'segmenter_http_requests_total',
};

/** Sum of one counter's samples in a Prometheus text exposition. */
function total(metrics: string, name: string): number {
  let sum = 0;
  for (const line of metrics.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

describe('npm start serves every public route on one base URL', () => {
  let pipeline: RunningPipeline;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('baseurl').replace(/-/g, '_') });

  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      keys: e2eKeys(),
      logger: createLogger('baseurl', 'silent'),
      sinkFlushMs: 50,
      privacyHashKey: 'one-base-url-test-key',
    });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  const send = async (p: Pick<Probe, 'method' | 'path' | 'key' | 'body'>) => {
    const headers: Record<string, string> = { 'X-Request-Id': 'probe-1' };
    if (p.key) headers.Authorization = `Bearer ${p.key}`;
    if (p.body !== undefined) headers['Content-Type'] = 'application/json';
    // Redirects are answers to check (GET /console), not to follow.
    const res = await fetch(`${pipeline.baseUrl}${p.path}`, {
      method: p.method,
      headers,
      body: p.body === undefined ? undefined : JSON.stringify(p.body),
      redirect: 'manual',
    });
    const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
    return {
      status: res.status,
      requestId: res.headers.get('x-request-id'),
      body: (json ? await res.json() : { html: await res.text() }) as Record<string, any>,
    };
  };
  const counts = async () => {
    const text = await (await fetch(`${pipeline.baseUrl}/metrics`)).text();
    return Object.fromEntries(Object.entries(COUNTER).map(([service, name]) => [service, total(text, name)])) as Record<PublicService, number>;
  };

  it('keeps the old names as the same base URL', () => {
    expect(pipeline.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect([pipeline.gatewayUrl, pipeline.actionsUrl]).toEqual([pipeline.baseUrl, pipeline.baseUrl]);
    expect(Object.keys(PROBES).sort()).toEqual(PUBLIC_ROUTES.map((r) => r.path).sort());
  });

  for (const route of PUBLIC_ROUTES) {
    for (const probe of PROBES[route.path] ?? []) {
      it(`${probe.method} ${probe.path} (${route.serves}) is answered ${probe.status} by the ${route.service}`, async () => {
        const before = await counts();
        const res = await send(probe);
        expect(res.status).toBe(probe.status);
        // The service's own request id middleware honoured the client's id.
        expect(res.requestId).toBe('probe-1');
        if (typeof probe.expect === 'string') expect(res.body.error).toMatchObject({ code: probe.expect, request_id: 'probe-1' });
        else probe.expect(res.body);
        // Exactly the owning service counted the request, no other.
        const after = await counts();
        const delta = Object.fromEntries(Object.keys(COUNTER).map((s) => [s, after[s as PublicService] - before[s as PublicService]]));
        expect(delta).toEqual(Object.fromEntries(Object.keys(COUNTER).map((s) => [s, s === route.service ? 1 : 0])));
      });
    }
  }

  it('answers an unknown path itself: 404 in the JSON error shape, no service reached', async () => {
    const before = await counts();
    const res = await send({ method: 'GET', path: '/v2/nope?x=1' });
    expect([res.status, res.body]).toEqual([404, { error: { code: 'not_found', message: 'No route GET /v2/nope.', request_id: 'probe-1' } }]);
    // A prefix without its slash belongs to nobody.
    expect((await send({ method: 'POST', path: '/v1/actionsx' })).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it('has one /healthz and one /readyz for all parts', async () => {
    expect(await send({ method: 'GET', path: '/healthz' })).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await send({ method: 'GET', path: '/readyz' })).toMatchObject({ status: 200, body: { ready: true, problems: [] } });
  });

  it('serves the OpenAPI document of every public route itself, as docs/openapi.json holds it', async () => {
    const before = await counts();
    const res = await send({ method: 'GET', path: '/openapi.json' });
    expect([res.status, res.requestId]).toEqual([200, 'probe-1']);
    expect(res.body).toEqual(JSON.parse(readFileSync(resolve(__dirname, '../../docs/openapi.json'), 'utf8')));
    expect(await counts()).toEqual(before);
  });

  it('counts a response to a nudge the platform never issued in /metrics (action_store_feedback_events_total{outcome="unknown"})', async () => {
    const unknown = async () => {
      const text = await (await fetch(`${pipeline.baseUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('action_store_feedback_events_total{outcome="unknown"}'));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const before = await unknown();
    const log = {
      time: '2025-03-14 10:00:00.000',
      __ol: true,
      name: 'nudge_response',
      property: 'open',
      ctx: { ref: '-4611686018427388000', time: '2025-03-14T10:00:00Z', response: 'open' },
    };
    const sent = await send({ method: 'POST', path: '/v1/ingest/log', key: SDK_KEY, body: { ...oneEventEnvelope, data: [log] } });
    expect([sent.status, sent.body.accepted]).toEqual([200, 1]);
    await waitFor(async () => (await unknown()) === before + 1, { timeoutMs: 30_000, what: 'the unknown response counted' });
  });

  it('has one /metrics with the gateway, action store, validator and sink series', async () => {
    const res = await fetch(`${pipeline.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    for (const name of [
      'edge_http_requests_total',
      'gateway_http_requests_total',
      'gateway_events_accepted_total',
      'action_store_http_requests_total',
      'action_store_actions_created_total',
      // The action store's consumers count on the same /metrics (issue 24: they were missing under npm start).
      'action_store_feedback_events_total',
      'action_store_requested_messages_total',
      'action_store_requested_actions_total',
      'validator_events_accepted_total',
      'segmenter_sink_rows_inserted_total',
      'segmenter_http_requests_total',
    ]) {
      expect([name, families.has(name)]).toEqual([name, true]);
    }
  });
});
