import { KeyRing, type Analytics } from '@evp/core';
import { waitFor } from '@evp/testkit';
import type { RunningPipeline } from '../pipeline';

export const SDK_KEY = 'sdk_e2e_0123456789abcdef';
export const API_KEY = 'api_e2e_0123456789abcdef';
export const OTHER_API_KEY = 'api_e2e_other_0123456789';
export const OTHER_SDK_KEY = 'sdk_e2e_other_0123456789';

export const e2eKeys = () =>
  new KeyRing({
    keys: [
      { id: 'e2e-sdk', app_id: 'e2e-app', role: 'sdk', key: SDK_KEY },
      { id: 'e2e-api', app_id: 'e2e-app', role: 'api', key: API_KEY },
      { id: 'other-api', app_id: 'other-app', role: 'api', key: OTHER_API_KEY },
      { id: 'other-sdk', app_id: 'other-app', role: 'sdk', key: OTHER_SDK_KEY },
    ],
  });

const post = async (url: string, key: string, body: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

/**
 * The walking skeleton, end to end over real HTTP: an upload becomes exact ClickHouse rows (and a
 * rejected record for its bad event); an action is created and pulled, once for one-off, every time
 * for cached, and every step of an action reaches actions_log. Shared by the embedded and the
 * real-stack tests so both prove the same behaviour.
 */
export function defineSkeletonScenario(get: () => { pipeline: RunningPipeline; analytics: Analytics }) {
  const user = `u-${Date.now().toString(36)}`;

  it('stores every event of an acknowledged upload in ClickHouse with exact values, rejected ones with reasons', async () => {
    const { pipeline, analytics } = get();
    const envelope = {
      id: user,
      tz: '+05:30',
      internal: { s_id: `${user}_1700000000000_0`, sdk: 'android/2.4.1', a_id: 'spoofed-app', a_ver: '1.2.3 (45)', d_id: 'device-9', os: 'android' },
      data: [
        {
          time: '2023-11-15 03:43:20.123',
          name: 'page',
          property: 'Home',
          ctx: { __ol: true, path: '/home', title: 'Home', duration: 12.5, render_time: 340 },
        },
        { time: '2023-11-15 03:43:21.000', __ol: false, name: 'identify', property: 'login', ctx: { action: 'login', referral_code: 'REF1' } },
        { time: '2023-11-15 03:43:22.000', __ol: true, name: 'rate', property: 'x', ctx: { rate_value: 7, type: 'app', subject_id: 's' } },
      ],
    };
    const res = await post(`${pipeline.gatewayUrl}/v1/ingest/log`, SDK_KEY, envelope);
    expect(res.status).toBe(200);
    expect(res.body.accepted).toBe(3);

    const rows = await waitFor(
      async () => {
        const r = await analytics.query<Record<string, unknown>>(
          `SELECT app_id, user_id, name, block, property, toString(toUnixTimestamp64Milli(time)) AS time_ms, online, session_start,
                  session_end, device_id, os, sdk_name, sdk_version, app_version, app_version_code, envelope, request_id,
                  toString(props.path) AS path, toFloat64(props.duration) AS duration, toString(props.action) AS action
           FROM events FINAL WHERE user_id = {user:String} ORDER BY time`,
          { user },
        );
        return r.length >= 2 ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'two event rows' },
    );
    expect(rows).toEqual([
      expect.objectContaining({
        app_id: 'e2e-app',
        user_id: user,
        name: 'page',
        block: 'core',
        property: 'Home',
        time_ms: String(Date.UTC(2023, 10, 14, 22, 13, 20, 123)),
        online: true,
        session_start: '2023-11-14 22:13:20.000',
        session_end: null,
        device_id: 'device-9',
        os: 'android',
        sdk_name: 'android',
        sdk_version: '2.4.1',
        app_version: '1.2.3',
        app_version_code: 45,
        envelope: 'current',
        request_id: res.body.request_id,
        path: '/home',
        duration: 12.5,
      }),
      expect.objectContaining({ name: 'identify', online: false, action: 'login', time_ms: String(Date.UTC(2023, 10, 14, 22, 13, 21, 0)) }),
    ]);

    const rejected = await waitFor(
      async () => {
        const r = await analytics.query<Record<string, unknown>>(
          `SELECT kind, errors, event_count, event_index, event_name, app_id, request_id FROM rejected FINAL WHERE request_id = {rid:String}`,
          { rid: res.body.request_id },
        );
        return r.length >= 1 ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'the rejected record' },
    );
    expect(rejected).toEqual([
      {
        kind: 'schema_violation',
        errors: [{ path: '$.data[2].ctx.rate_value', rule: 'range', message: 'must be ≤ 5' }],
        event_count: 1,
        event_index: 2,
        event_name: 'rate',
        app_id: 'e2e-app',
        request_id: res.body.request_id,
      },
    ]);
  });

  it('stores sent_at and the corrected time beside the device time; a re-sent batch (another sent_at) stays one event', async () => {
    const { pipeline, analytics } = get();
    const skewed = `${user}-skew`;
    // By the device's clock the event happened 1 h 31 min 39.877 s before the upload was sent, whatever
    // that clock's error: so it happened that long before the gateway received it.
    const batch = (sentAt: string) => ({
      id: skewed,
      tz: 'Z',
      sent_at: sentAt,
      internal: { s_id: `${skewed}_1700000000000_0`, sdk: 'web/0.1.0', a_id: 'shop', a_ver: '1.0.0', d_id: 'device-skew', os: 'web' },
      data: [
        { time: '2023-11-14 22:13:20.123', __ol: true, name: 'page', property: 'Home', ctx: { path: '/home', title: 'Home', duration: 1, render_time: 2 } },
      ],
    });
    const first = await post(`${pipeline.gatewayUrl}/v1/ingest/log`, SDK_KEY, batch('2023-11-14T23:45:00.000Z'));
    expect([first.status, first.body.accepted]).toEqual([200, 1]);
    const read = () =>
      analytics.query<Record<string, string>>(
        `SELECT event_id, toString(toUnixTimestamp64Milli(time)) AS time_ms, toString(toUnixTimestamp64Milli(sent_at)) AS sent_ms,
                toString(toUnixTimestamp64Milli(corrected_time) - toUnixTimestamp64Milli(received_at)) AS corrected_minus_received, request_id
         FROM events FINAL WHERE user_id = {user:String}`,
        { user: skewed },
      );
    const [row] = await waitFor(async () => ((await read()).length === 1 ? read() : undefined), { timeoutMs: 60_000, what: 'the skewed event' });
    // corrected_time = time + received_at − sent_at, so corrected_time − received_at = time − sent_at.
    expect(row).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      time_ms: String(Date.UTC(2023, 10, 14, 22, 13, 20, 123)),
      sent_ms: String(Date.UTC(2023, 10, 14, 23, 45, 0, 0)),
      corrected_minus_received: String(-(91 * 60_000 + 39_877)),
      request_id: first.body.request_id,
    });

    // The batch re-sent a minute later by the device's clock: same event id, so it stays one event.
    // The sink's insert of the copy is a no-op when it leaves alone (its dedup token comes from the
    // event ids), but on a busy stack the copy can share an insert with other rows; ReplacingMergeTree
    // then collapses the two at a merge, and FINAL at query time (docs/analytics.md).
    const again = await post(`${pipeline.gatewayUrl}/v1/ingest/log`, SDK_KEY, batch('2023-11-14T23:46:00.000Z'));
    expect([again.status, again.body.accepted]).toEqual([200, 1]);
    // A later event of the same user (same key, same partition, so sunk after the re-sent copy).
    const marker = { ...batch('2023-11-14T23:47:00.000Z'), data: [{ ...batch('').data[0], time: '2023-11-14 22:14:00.000', property: 'Marker' }] };
    const third = await post(`${pipeline.gatewayUrl}/v1/ingest/log`, SDK_KEY, marker);
    expect(third.status).toBe(200);
    const all = () =>
      analytics.query<{ event_id: string; request_id: string }>(`SELECT event_id, request_id FROM events FINAL WHERE user_id = {user:String} ORDER BY time`, {
        user: skewed,
      });
    const stored = await waitFor(async () => ((await all()).some((r) => r.request_id === third.body.request_id) ? all() : undefined), {
      timeoutMs: 60_000,
      what: 'the later event stored',
    });
    expect(stored.map((r) => r.event_id)).toEqual([row!.event_id, expect.stringMatching(/^[0-9a-f]{32}$/)]);
    expect([first.body.request_id, again.body.request_id]).toContain(stored[0]!.request_id);
    expect(stored[1]!.request_id).toBe(third.body.request_id);
  });

  it('stores catalog records of kinds the app defines itself in catalog_custom, fields as sent; a name that is no kind is rejected', async () => {
    const { pipeline, analytics } = get();
    // The Unity SDK's LogOtherCatalog("item-…", "Game Item", {rarity, power, tradable}), and the same kind by the catalog route.
    const unity = await post(`${pipeline.baseUrl}/v1/ingest/dimensions`, SDK_KEY, {
      data: [
        { id: `item-${user}`, type: 'game_item', kv: { name: 'Game Item', power: '12', rarity: 'epic', tradable: 'true' } },
        { id: `bad-${user}`, type: 'Game-Item', kv: { name: 'x' } },
      ],
    });
    const byPath = await post(`${pipeline.baseUrl}/v1/ingest/catalog/game_item`, SDK_KEY, [{ id: `shield-${user}`, power: 3, stats: { def: 9 } }]);
    expect([unity.status, unity.body.accepted, byPath.status, byPath.body.accepted]).toEqual([200, 2, 200, 1]);
    const rows = await waitFor(
      async () => {
        const r = await analytics.query<Record<string, unknown>>(
          `SELECT app_id, kind, id, request_id, toString(record) AS record FROM catalog_custom FINAL WHERE endsWith(id, {user:String}) ORDER BY id`,
          { user },
        );
        return r.length >= 2 ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'two catalog_custom rows' },
    );
    expect(rows).toEqual([
      {
        app_id: 'e2e-app',
        kind: 'game_item',
        id: `item-${user}`,
        request_id: unity.body.request_id,
        record: '{"name":"Game Item","power":"12","rarity":"epic","tradable":"true"}',
      },
      { app_id: 'e2e-app', kind: 'game_item', id: `shield-${user}`, request_id: byPath.body.request_id, record: '{"power":3,"stats":{"def":9}}' },
    ]);
    const rejected = await waitFor(
      async () => {
        const r = await analytics.query<Record<string, unknown>>(
          `SELECT kind, errors[1].2 AS rule, event_index FROM rejected FINAL WHERE request_id = {rid:String}`,
          {
            rid: unity.body.request_id,
          },
        );
        return r.length >= 1 ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'the rejected record of the bad kind name' },
    );
    expect(rejected).toEqual([{ kind: 'schema_violation', rule: 'unknown_catalog_kind', event_index: 1 }]);
  });

  it('delivers a one-off action once and a cached one on every pull, to its own app only', async () => {
    const { pipeline } = get();
    const action = (mode: string, actionId: number) => ({
      user_id: user,
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: mode,
      content: { title: `t-${mode}`, body: 'b' },
      attr: { screen: 'cart' },
      expired_at: '2999-01-01T00:00:00Z',
      inv_id: 77,
      action_id: actionId,
    });
    const created = await post(`${pipeline.actionsUrl}/v1/actions`, API_KEY, { actions: [action('one-off', 1), action('cached', 2)] });
    expect(created.status).toBe(200);
    expect(created.body.counts).toEqual({ created: 2, duplicate: 0, expired: 0, blocked: 0 });

    const pull = (mode: string, key = API_KEY) =>
      post(`${pipeline.actionsUrl}/v1/action/pull`, key, {
        user_id: '*',
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: mode,
        attr: { screen: 'cart' },
      });

    expect((await pull('one-off', OTHER_API_KEY)).body.data).toEqual([]);
    const first = await pull('one-off');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.data[0]).toMatchObject({
      user_id: user,
      error: null,
      payload: {
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: 't-one-off', body: 'b' },
        attr: { screen: 'cart' },
        internal: { inv_id: 77, action_id: 1 },
      },
    });
    expect(first.body.data[0].queued_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect((await pull('one-off')).body.data).toEqual([]);

    for (let i = 0; i < 3; i++) {
      const cached = await pull('cached');
      expect(cached.body.data.map((d: any) => d.payload.internal.action_id)).toEqual([2]);
    }
  });

  it('logs every step of an action into actions_log: created, first delivery, withdrawn by a block, expired unpulled', async () => {
    const { pipeline, analytics } = get();
    const logUser = `${user}-log`;
    // Whole seconds: the expiry is compared on the store's clock, a couple of seconds ahead.
    const soon = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const action = (actionId: number, mode: string, renderMethod = 'push_notification', expiredAt = '2999-01-01T00:00:00Z') => ({
      user_id: logUser,
      type: 'message',
      render_method: renderMethod,
      delivery_mode: mode,
      content: { title: 't', body: 'b' },
      tags: [`tag-${actionId}`],
      expired_at: expiredAt,
      inv_id: 77,
      action_id: actionId,
    });
    const created = await post(`${pipeline.actionsUrl}/v1/actions`, API_KEY, [
      action(11, 'one-off'),
      action(12, 'cached'),
      action(13, 'cached'),
      action(14, 'one-off', 'in_app_message', soon),
    ]);
    expect(created.body.counts).toEqual({ created: 4, duplicate: 0, expired: 0, blocked: 0 });
    const pull = (mode: string, renderMethod = 'push_notification') =>
      post(`${pipeline.actionsUrl}/v1/action/pull`, API_KEY, { user_id: logUser, type: 'message', render_method: renderMethod, delivery_mode: mode });
    expect((await pull('one-off')).body.data.map((d: any) => d.payload.internal.ref)).toEqual(['77:11']);
    expect((await pull('one-off')).body.data).toEqual([]);
    for (let i = 0; i < 2; i++) expect((await pull('cached')).body.data.map((d: any) => d.payload.internal.ref)).toEqual(['77:12', '77:13']);

    // The user blocks 77:13 from the app: the feedback consumer withdraws it.
    const block = await post(`${pipeline.gatewayUrl}/v1/ingest/log`, SDK_KEY, {
      id: logUser,
      tz: '+00:00',
      internal: { s_id: `${logUser}_1700000000000_0`, sdk: 'android/2.4.1', a_id: 'e2e-app', a_ver: '1.2.3 (45)', d_id: 'device-9', os: 'android' },
      data: [
        {
          time: '2023-11-15 03:43:20.123',
          __ol: true,
          name: 'nudge_response',
          property: 'block',
          ctx: { ref: '77:13', time: '2023-11-15T03:43:20Z', response: 'block' },
        },
      ],
    });
    expect([block.status, block.body.accepted]).toEqual([200, 1]);
    await waitFor(async () => (await pull('cached')).body.data.length === 1, { timeoutMs: 60_000, what: 'the block to withdraw 77:13' });

    // 77:14 expires unpulled; the next pull of the app retires it.
    await waitFor(async () => Date.now() > Date.parse(soon) && (await pull('one-off', 'in_app_message')).body.data.length === 0, {
      timeoutMs: 30_000,
      what: '77:14 to expire',
    });

    const expected = [
      'created 77:11 tag-11',
      'created 77:12 tag-12',
      'created 77:13 tag-13',
      'created 77:14 tag-14',
      'delivered 77:11',
      'delivered 77:12',
      'delivered 77:13',
      'withdrawn 77:13',
      'expired 77:14',
    ];
    const rows = await waitFor(
      async () => {
        const r = await analytics.query<{ step: string }>(
          `SELECT trim(concat(toString(kind), ' ', ref, ' ', arrayStringConcat(tags, ','))) AS step
           FROM actions_log FINAL WHERE app_id = 'e2e-app' AND user_id = {user:String} ORDER BY kind, ref`,
          { user: logUser },
        );
        return r.length >= expected.length ? r.map((x) => x.step) : undefined;
      },
      { timeoutMs: 60_000, what: 'nine actions_log rows' },
    );
    expect(rows).toEqual(expected);
  });
}
