import { createLogger, type Analytics } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, e2eKeys } from './testing/scenario';

/**
 * The synthetic data generator's loop against `npm start`, over HTTP on the one base URL, as its
 * code calls it (docs/clients/generator.md): flat logs and catalog arrays posted to /data/ingest/…,
 * nudges fetched from GET /nudge/sdk/get, the reaction reported with the fetched id, all with the
 * app's API key. The logs end in ClickHouse as flat events, the reaction in the action's stats.
 */
describe('the synthetic data generator, end to end (embedded)', () => {
  let pipeline: RunningPipeline;
  let analytics: Analytics;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('gen').replace(/-/g, '_') });
  const user = `average-${Date.now().toString(36)}`;

  beforeAll(async () => {
    analytics = parts.analytics;
    pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger('gen', 'silent'), sinkFlushMs: 50 });
  });
  afterAll(async () => {
    await pipeline.stop();
    await parts.bus.close();
  });

  /** requests.post(url, data=json.dumps(payload), headers={Content-Type, Authorization}). */
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${API_KEY}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const log = (type: string, block: string, ts: string, props: Record<string, unknown>) => ({
    u_id: user,
    d_id: '-3468023718459170331',
    os: 'android',
    ol: true,
    ts,
    type,
    ip: '0.0.0.0',
    up: 63849,
    dn: 16846,
    block,
    props,
  });

  it('stores its flat logs and catalog records, and counts its reaction to a fetched nudge', async () => {
    const logs = await call('POST', '/data/ingest/log', {
      data: [
        log('page', 'core', '2025-03-04T09:12:45.381204Z', { path: 'https://x.example/', title: 'T', duration: 41.5 }),
        log('schedule_delivery', 'e-commerce', '2025-03-04T09:12:46.000000Z', {
          order_id: 'o-1',
          is_urgent: false,
          action: 'schedule',
          delivery_ts: '2025-03-06T11:49:27.840000Z',
        }),
      ],
    });
    expect([logs.status, logs.body.accepted]).toEqual([200, 2]);
    const drugs = await call('POST', '/data/ingest/catalog/drug', [{ id: `drug-${user}`, name: 'Kevin', active_ingredients: "['Aspirin', 'Caffeine']" }]);
    expect(drugs.status).toBe(200);

    const rows = await waitFor(
      async () => {
        const r = await analytics.query<Record<string, unknown>>(
          `SELECT name, sent_name, block, envelope, session_id, sdk_name, device_id, toString(props.render_time) AS render_time,
                  toString(props.id) AS id, toString(props.est_delivery_ts) AS est, arraySort(arrayMap(w -> w.rule, warnings)) AS rules
           FROM events FINAL WHERE user_id = {user:String} ORDER BY time`,
          { user },
        );
        return r.length >= 2 ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'the flat events' },
    );
    expect(rows).toEqual([
      {
        name: 'page',
        sent_name: null,
        block: 'core',
        envelope: 'flat',
        session_id: '',
        sdk_name: '',
        device_id: '-3468023718459170331',
        render_time: '',
        id: '',
        est: '',
        rules: ['flat_envelope', 'required_missing', 'time_precision'],
      },
      {
        name: 'delivery',
        sent_name: 'schedule_delivery',
        block: 'e_commerce',
        envelope: 'flat',
        session_id: '',
        sdk_name: '',
        device_id: '-3468023718459170331',
        render_time: '',
        id: 'o-1',
        est: '2025-03-06T11:49:27.840000Z',
        rules: ['block_spelling', 'default_applied', 'event_alias', 'flat_envelope', 'property_alias'],
      },
    ]);
    const drug = await waitFor(
      async () => {
        const r = await analytics.query<{ ingredients: string[] }>(
          `SELECT CAST(record.active_ingredients, 'Array(String)') AS ingredients FROM catalog_drug FINAL WHERE id = {id:String}`,
          { id: `drug-${user}` },
        );
        return r.length > 0 ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'the drug record' },
    );
    expect(drug).toEqual([{ ingredients: ['Aspirin', 'Caffeine'] }]);

    // A campaign queues a nudge; the generator fetches it and reports the user's reaction.
    const created = await call('POST', '/v1/actions', [
      {
        user_id: user,
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: 'T', body: 'B' },
        expired_at: '2999-01-01T00:00:00Z',
        inv_id: 4,
        action_id: 9,
      },
    ]);
    expect(created.body.counts.created).toBe(1);
    const fetched = await call('GET', `/nudge/sdk/get?subject_id=${encodeURIComponent(user)}&queued_at=2025-03-04T10%3A02%3A11.504118Z`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.map((n: { id: string }) => n.id)).toEqual(['4:9']);
    const nudge = fetched.body[0];
    const reaction = await call('POST', '/data/ingest/log', {
      data: [
        log('nudge_response', 'core', '2025-03-04T14:02:11.504118Z', {
          nudge_id: nudge.id,
          type: 'push_notification',
          response: { action: 'open' },
          resolved_action: nudge.action,
        }),
      ],
    });
    expect(reaction.status).toBe(200);
    const stats = await waitFor(
      async () => {
        const s = await call('GET', '/v1/actions/9/stats');
        return s.status === 200 && s.body.totals.responses.open === 1 ? s.body : undefined;
      },
      { timeoutMs: 60_000, what: 'the open response counted' },
    );
    expect(stats.totals).toMatchObject({ created: 1, delivered: 1 });
  });
});
