import request from 'supertest';
import { KeyRing, UnreadableMessageError, createLogger, deadLetterId, topics, type Analytics, type Subscription } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { createSegmenterApp } from '../api';
import { type SinkHarness, startSinkHarness } from '../testing';

// Dead letters end up where people look: a consumer's dead letter (the one envelope) is stored by
// the sink in `dead_letters` and listed by the inspector API for its app, and only for its app.
const chdb = useMigratedChdb('sink_dlq');
let analytics: Analytics;
let h: SinkHarness;
const subs: Subscription[] = [];

const API = 'api-key-dlq1-0123456789';
const API2 = 'api-key-dlq2-0123456789';
const SDK = 'sdk-key-dlq1-0123456789';
const keys = new KeyRing({
  keys: [
    { id: 'k-api', app_id: 'app-dlq', role: 'api', key: API },
    { id: 'k-api2', app_id: 'app-other', role: 'api', key: API2 },
    { id: 'k-sdk', app_id: 'app-dlq', role: 'sdk', key: SDK },
  ],
});

beforeAll(async () => {
  analytics = chdb.analytics;
  h = await startSinkHarness({ bus: createInProcessBus({ retryDelayMs: 5 }), registry: createInProcessRegistry(), analytics });
});
afterAll(async () => {
  await Promise.all(subs.map((s) => s.stop()));
  await h.close();
});

const rows = () =>
  analytics.query<Record<string, unknown>>(
    `SELECT * EXCEPT (inserted_at, failed_at, retention_days) FROM dead_letters FINAL WHERE source_topic = {t:String} ORDER BY source_offset`,
    { t: topics.campaignsTriggers },
  );

it('stores every dead letter in dead_letters with its app, and the inspector lists an app its own only', async () => {
  const group = 'dlq-test-consumer';
  subs.push(
    await h.bus.subscribe({
      groupId: group,
      topics: [topics.campaignsTriggers],
      processor: { name: 'dlq-test', version: '2.0.0' },
      handleBatch: async (batch) => {
        for (const m of batch.messages) throw new UnreadableMessageError('unreadable', `cannot read ${m.value.toString('hex')}`);
      },
    }),
  );
  const producer = await h.bus.producer();
  await producer.send(topics.campaignsTriggers, [
    { key: 'app-dlq:c-1', value: Buffer.from('{"kind":'), headers: { trace: 't-1' } },
    // No key, no app header: a dead letter of no app; and bytes that are not UTF-8 (stored as base64).
    { value: Buffer.from([0xff, 0xfe]) },
  ]);
  await producer.close();
  const stored = await waitFor(async () => ((await rows()).length === 2 ? await rows() : undefined), { timeoutMs: 10_000, what: 'two dead_letters rows' });
  const common = { source_topic: topics.campaignsTriggers, consumer_group: group, processor: 'dlq-test', processor_version: '2.0.0', error_kind: 'unreadable' };
  const byKey = new Map(stored.map((r) => [r.source_key, r]));
  const keyed = byKey.get('app-dlq:c-1') as Record<string, unknown>;
  const keyless = byKey.get(null) as Record<string, unknown>;
  expect(keyed).toEqual({
    ...common,
    dead_letter_id: deadLetterId(group, {
      topic: topics.campaignsTriggers,
      partition: keyed.source_partition as number,
      offset: keyed.source_offset as string,
      key: 'app-dlq:c-1',
      value: Buffer.from('{"kind":'),
    }),
    app_id: 'app-dlq',
    source_partition: expect.any(Number),
    source_offset: expect.stringMatching(/^\d+$/),
    source_key: 'app-dlq:c-1',
    error_message: `cannot read ${Buffer.from('{"kind":').toString('hex')}`,
    error_retriable: false,
    replay_of: null,
    replay_count: 0,
    headers: { trace: 't-1' },
    payload: '{"kind":',
    payload_encoding: 'utf8',
    payload_bytes: 8,
    payload_truncated: false,
  });
  expect(keyless).toMatchObject({
    ...common,
    app_id: '',
    source_key: null,
    payload: '//4=',
    payload_encoding: 'base64',
    payload_bytes: 2,
    error_message: 'cannot read fffe',
  });

  const api = createSegmenterApp({ analytics, keys, logger: createLogger('test', 'silent') }).app;
  const own = await request(api).get('/v1/inspect/deadletters').query({ source_topic: topics.campaignsTriggers }).set('Authorization', `Bearer ${API}`);
  expect(own.status).toBe(200);
  expect(own.body.data).toEqual([
    {
      dead_letter_id: keyed.dead_letter_id,
      failed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      source: { topic: topics.campaignsTriggers, partition: keyed.source_partition, offset: keyed.source_offset, key: 'app-dlq:c-1' },
      group,
      error: { kind: 'unreadable', message: keyed.error_message, retriable: false },
      processor: { name: 'dlq-test', version: '2.0.0' },
      replay: null,
      headers: { trace: 't-1' },
      payload: '{"kind":',
      payload_encoding: 'utf8',
      payload_bytes: 8,
      payload_truncated: false,
    },
  ]);
  // Another app's key sees none of them; the app-less one is shown to no app.
  const other = await request(api).get('/v1/inspect/deadletters').set('Authorization', `Bearer ${API2}`);
  expect([other.status, other.body.data]).toEqual([200, []]);
  const bad = await request(api).get('/v1/inspect/deadletters').query({ limit: '0' }).set('Authorization', `Bearer ${API}`);
  expect([bad.status, bad.body.error?.code, bad.body.error?.path]).toEqual([400, 'invalid_request', 'query.limit']);
  const none = await request(api).get('/v1/inspect/deadletters');
  expect(none.status).toBe(401);
  // The app's SDK key ships inside apps: it may not read them.
  const sdk = await request(api).get('/v1/inspect/deadletters').set('Authorization', `Bearer ${SDK}`);
  expect([sdk.status, sdk.body.error?.code]).toEqual([403, 'forbidden_role']);
  // And the bus counted both (dead_letters_total).
  expect(h.bus.deadLetterCounts()).toEqual([{ sourceTopic: topics.campaignsTriggers, group, count: 2 }]);
});
