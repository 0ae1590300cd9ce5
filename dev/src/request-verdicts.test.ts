import { createLogger } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, OTHER_API_KEY, SDK_KEY, e2eKeys } from './testing/scenario';

/**
 * Over HTTP on `npm start`'s composition: an upload's `accepted` counts what was queued; its receipt
 * says what was valid, per event, with warnings and reasons, and the inspector API shows the same.
 */
describe('what became of each event of a request (embedded pipeline)', () => {
  let pipeline: RunningPipeline;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('verdicts').replace(/-/g, '_') });
  const user = `u-${Date.now().toString(36)}`;
  const requestId = `req-${Date.now().toString(36)}`;
  const envelope = (data: unknown[]) => ({
    id: user,
    tz: '+00:00',
    internal: { s_id: `${user}_1700000000000_0`, sdk: 'web/1.0.0', a_id: 'e2e-app', a_ver: '1.0.0 (1)', d_id: 'd-1', os: 'web' },
    data,
  });
  const page = {
    time: '2025-03-14 10:00:00.000',
    __ol: true,
    name: 'page',
    property: 'Home',
    ctx: { path: '/', title: 'Home', duration: 1.5, render_time: 120, referrer: 'ad' },
  };
  const badRate = { time: '2025-03-14 10:00:01.000', __ol: true, name: 'rate', property: 'x', ctx: { rate_value: 7, type: 'app', subject_id: 's' } };
  const app = { time: '2025-03-14 10:00:02.000', __ol: true, name: 'app', property: 'open', ctx: { action: 'open', start_time: 900 } };
  const get = async (path: string, key: string) => {
    const res = await fetch(`${pipeline.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger('verdicts', 'silent'), sinkFlushMs: 50 });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  it('lists every event of a two-envelope request as accepted (with warnings) or rejected (with reasons)', async () => {
    const res = await fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SDK_KEY}`, 'Content-Type': 'application/json', 'X-Request-Id': requestId },
      body: JSON.stringify([envelope([page, badRate]), envelope([app])]),
    });
    // `accepted` counts the events queued (3), not the events valid (2).
    expect([res.status, await res.json()]).toEqual([200, { accepted: 3, request_id: requestId }]);
    const verdicts = await waitFor(
      async () => {
        const r = await get(`/v1/ingest/requests/${requestId}`, SDK_KEY);
        return r.body.status === 'complete' ? r.body : undefined;
      },
      { timeoutMs: 20_000, what: 'the request to be validated' },
    );
    expect(verdicts).toEqual({
      request_id: requestId,
      status: 'complete',
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      payload_kind: 'log',
      envelopes: { count: 2, validated: 2 },
      counts: { events: 3, accepted: 2, rejected: 1, with_warnings: 1 },
      events: [
        {
          envelope_index: 0,
          event_index: 0,
          status: 'accepted',
          event_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          name: 'page',
          user_id: user,
          warnings: [{ path: '$.data[0].ctx.referrer', rule: 'unknown_property', message: 'referrer is not part of PageProps; kept as extra' }],
          warnings_total: 1,
        },
        {
          envelope_index: 0,
          event_index: 1,
          status: 'rejected',
          rejection_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          kind: 'schema_violation',
          name: 'rate',
          user_id: user,
          reasons: [{ path: '$.data[1].ctx.rate_value', rule: 'range', message: 'must be ≤ 5' }],
          reasons_total: 1,
          event_count: 1,
        },
        {
          envelope_index: 1,
          event_index: 0,
          status: 'accepted',
          event_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          name: 'app',
          user_id: user,
          warnings: [],
          warnings_total: 0,
        },
      ],
    });
    // The API key of another app learns nothing about it.
    const other = await get(`/v1/ingest/requests/${requestId}`, OTHER_API_KEY);
    expect([other.status, other.body.status, other.body.events]).toEqual([200, 'pending', []]);
  });

  it('shows the same events and rejection in the inspector API, for this app only', async () => {
    const events = await waitFor(
      async () => {
        const r = await get(`/v1/inspect/events?request_id=${requestId}`, API_KEY);
        return r.body.data.length === 2 ? r.body.data : undefined;
      },
      { timeoutMs: 20_000, what: 'both accepted events in the events table' },
    );
    expect(events.map((e: Record<string, any>) => [e.name, e.user_id, e.warnings.map((w: { rule: string }) => w.rule)])).toEqual([
      ['app', user, []],
      ['page', user, ['unknown_property']],
    ]);
    const rejected = await get(`/v1/inspect/rejected?user_id=${user}`, API_KEY);
    expect(rejected.body.data.map((r: Record<string, any>) => [r.name, r.kind, r.request_id, r.reasons.map((x: { rule: string }) => x.rule)])).toEqual([
      ['rate', 'schema_violation', requestId, ['range']],
    ]);
    expect((await get(`/v1/inspect/events?request_id=${requestId}`, OTHER_API_KEY)).body.data).toEqual([]);
  });
});
