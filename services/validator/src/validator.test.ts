import { Registry } from 'prom-client';
import {
  CATALOG_KINDS,
  DEFAULT_PRIVACY_TABLE,
  allTopics,
  createLogger,
  resolvePrivacy,
  topicMaxBatchBytes,
  topics,
  type Bus,
  type PrivacyTable,
  type SchemaRegistry,
} from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
// Test-only import: checks that what the validator writes is what the sink's catalog reader expects.
import { catalogRow, customCatalogRow } from '@evp/segmenter';
import { startValidator, type RunningValidator } from './validator';

// The validator on the in-process bus and registry: raw messages in, decoded outputs compared exactly.
const logger = createLogger('validator-test', 'silent');
const FAILED_AT = 1_700_000_200_000;
const RECEIVED_AT = 1_700_000_100_000;
const OUTPUT_TOPICS = [...CATALOG_KINDS.map((k) => topics.catalog(k)), topics.customCatalog, topics.rejected, topics.events('core')];

interface Out {
  topic: string;
  key: string | null;
  headers: Record<string, string>;
  value: Record<string, unknown>;
}

interface Harness {
  bus: Bus;
  registry: SchemaRegistry;
  out: Out[];
  /** What the validator wrote to ingest.receipts, apart from `out` so that output counts stay as they were. */
  receipts: Out[];
  sendRaw(payloadKind: string | undefined, body: unknown, opts?: { requestId?: string; raw?: string }): Promise<void>;
  close(): Promise<void>;
}

const running: Harness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.close()));
});

async function start(
  opts: {
    topics?: { name: string; partitions: number }[];
    workers?: number;
    maxBatchBytes?: (topic: string) => number;
    privacy?: PrivacyTable;
    metrics?: Registry;
  } = {},
): Promise<Harness> {
  const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20, ...(opts.maxBatchBytes ? { maxBatchBytes: opts.maxBatchBytes } : {}) });
  await bus.ensureTopics(opts.topics ?? allTopics());
  const registry = createInProcessRegistry();
  const validator: RunningValidator = await startValidator({
    bus,
    registry,
    logger,
    now: () => FAILED_AT,
    config: { workers: opts.workers ?? 0 },
    ...(opts.privacy ? { privacy: () => opts.privacy as PrivacyTable } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
  const out: Out[] = [];
  const receipts: Out[] = [];
  const producer = await bus.producer();
  const sub = await bus.subscribe({
    groupId: 'validator-test-reader',
    topics: [...OUTPUT_TOPICS, topics.receipts].filter((t) => (opts.topics ?? allTopics()).some((x) => x.name === t)),
    handleBatch: async (b) => {
      for (const m of b.messages)
        (m.topic === topics.receipts ? receipts : out).push({
          topic: m.topic,
          key: m.key,
          headers: m.headers,
          value: (await registry.decode(m.value)) as Record<string, unknown>,
        });
    },
  });
  const h: Harness = {
    bus,
    registry,
    out,
    receipts,
    sendRaw: (payloadKind, body, o = {}) =>
      producer.send(topics.raw, [
        {
          key: `app-1:${payloadKind ?? 'log'}`,
          value: Buffer.from(o.raw ?? JSON.stringify(body)),
          headers: {
            app_id: 'app-1',
            request_id: o.requestId ?? 'req-1',
            received_at: String(RECEIVED_AT),
            key_id: 'k-sdk',
            ...(payloadKind === undefined ? {} : { payload_kind: payloadKind }),
          },
        },
      ]),
    close: async () => {
      await sub.stop();
      await validator.stop();
      await bus.close();
    },
  };
  running.push(h);
  return h;
}

const on = (h: Harness, topic: string) => h.out.filter((o) => o.topic === topic);
const until = (h: Harness, n: number, what: string) => waitFor(() => h.out.length >= n, { timeoutMs: 5_000, what });

describe('validator: catalog submissions', () => {
  it('writes accepted records to catalog.<kind> keyed <app>:<id>, exactly, and bad ones to ingest.rejected', async () => {
    const h = await start();
    await h.sendRaw('catalog:hcw', [
      { id: 'h-1', name: 'Dr. Otieno', site_id_list: ['s-1', 's-2'], badge: 7 },
      { id: 'h-2', site_id_list: 's-1' },
      { id: 'h-3' },
    ]);
    await until(h, 3, 'three outputs');
    expect(on(h, topics.catalog('hcw'))).toEqual([
      {
        topic: 'catalog.hcw',
        key: 'app-1:h-1',
        headers: { app_id: 'app-1', kind: 'hcw' },
        value: {
          app_id: 'app-1',
          id: 'h-1',
          kind: 'hcw',
          received_at: RECEIVED_AT,
          request_id: 'req-1',
          name: 'Dr. Otieno',
          role: null,
          site_id_list: ['s-1', 's-2'],
          supervisor_id_list: null,
          extra_json: '{"badge":7}',
        },
      },
      {
        topic: 'catalog.hcw',
        key: 'app-1:h-3',
        headers: { app_id: 'app-1', kind: 'hcw' },
        value: {
          app_id: 'app-1',
          id: 'h-3',
          kind: 'hcw',
          received_at: RECEIVED_AT,
          request_id: 'req-1',
          name: null,
          role: null,
          site_id_list: null,
          supervisor_id_list: null,
          extra_json: null,
        },
      },
    ]);
    expect(on(h, topics.rejected)).toEqual([
      {
        topic: 'ingest.rejected',
        key: expect.stringMatching(/^app-1:[0-9a-f]{32}$/),
        headers: { app_id: 'app-1', kind: 'schema_violation' },
        value: {
          rejection_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          kind: 'schema_violation',
          errors: [{ path: '$[1].site_id_list', rule: 'type', message: 'expected an array' }],
          payload: '{"id":"h-2","site_id_list":"s-1"}',
          payload_truncated: false,
          app_id: 'app-1',
          request_id: 'req-1',
          key_id: 'k-sdk',
          received_at: RECEIVED_AT,
          failed_at: FAILED_AT,
          processor: 'evp-validator/0.1',
          event_count: 1,
          envelope_index: null,
          event_index: 1,
          event_name: null,
          payload_kind: 'catalog:hcw',
          source: expect.stringMatching(/^ingest\.raw\/[0-2]\/0$/),
          user_id: null,
        },
      },
    ]);
    // One receipt: every record's verdict in submission order, the rejection by its id.
    await waitFor(() => h.receipts.length >= 1, { timeoutMs: 5_000, what: 'the receipt' });
    const rejectionId = (on(h, topics.rejected)[0]?.value as { rejection_id: string }).rejection_id;
    expect(h.receipts).toEqual([
      {
        topic: 'ingest.receipts',
        key: 'app-1:req-1',
        headers: { app_id: 'app-1' },
        value: {
          receipt_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          app_id: 'app-1',
          request_id: 'req-1',
          key_id: 'k-sdk',
          received_at: RECEIVED_AT,
          processed_at: FAILED_AT,
          payload_kind: 'catalog:hcw',
          envelope_index: 0,
          envelope_count: 1,
          part: 0,
          parts: 1,
          events_in: 3,
          accepted: 2,
          rejected: 1,
          items: [
            {
              event_index: 0,
              status: 'accepted',
              id: 'h-1',
              name: 'hcw',
              user_id: null,
              kind: null,
              reasons: [{ path: '$[0].badge', rule: 'unknown_property', message: 'badge is not part of HcwCatalogRecord; kept as extra' }],
              reasons_total: 1,
              event_count: 1,
            },
            {
              event_index: 1,
              status: 'rejected',
              id: rejectionId,
              name: null,
              user_id: null,
              kind: 'schema_violation',
              reasons: [{ path: '$[1].site_id_list', rule: 'type', message: 'expected an array' }],
              reasons_total: 1,
              event_count: 1,
            },
            { event_index: 2, status: 'accepted', id: 'h-3', name: 'hcw', user_id: null, kind: null, reasons: [], reasons_total: 0, event_count: 1 },
          ],
        },
      },
    ]);
  });

  it("produces what the sink's catalog reader turns into a catalog_<kind> row", async () => {
    const h = await start();
    await h.sendRaw('catalog:site', [{ id: 's-1', name: 'Clinic', type: 'clinic', attributes: { beds: 4 }, service_list: ['hiv'], color: 'blue' }]);
    await until(h, 1, 'the site record');
    expect(catalogRow(on(h, topics.catalog('site'))[0]!.value)).toEqual({
      app_id: 'app-1',
      id: 's-1',
      received_at: '2023-11-14 22:15:00.000',
      request_id: 'req-1',
      record: { color: 'blue', name: 'Clinic', type: 'clinic', attributes: { beds: 4 }, service_list: ['hiv'] },
    });
  });

  it('writes records of app-defined kinds to catalog.custom, keyed by app, kind and id, as the sink reads them; the receipt names the kind', async () => {
    const h = await start();
    await h.sendRaw('dimensions', {
      data: [
        { id: 'item-77', type: 'game_item', kv: { name: 'Game Item', power: '12' } },
        { id: 'u-1', type: 'user', kv: { timezone: 'Z' } },
      ],
    });
    await h.sendRaw('catalog:level_pack', [{ id: 'p-1', levels: [1, 2] }]);
    await until(h, 3, 'three records');
    expect(h.out.map((o) => [o.topic, o.key, o.headers])).toEqual([
      ['catalog.custom', 'app-1:game_item:item-77', { app_id: 'app-1', kind: 'game_item' }],
      ['catalog.user', 'app-1:u-1', { app_id: 'app-1', kind: 'user' }],
      ['catalog.custom', 'app-1:level_pack:p-1', { app_id: 'app-1', kind: 'level_pack' }],
    ]);
    expect(on(h, topics.customCatalog).map((o) => customCatalogRow(o.value))).toEqual([
      {
        app_id: 'app-1',
        kind: 'game_item',
        id: 'item-77',
        received_at: '2023-11-14 22:15:00.000',
        request_id: 'req-1',
        record: { name: 'Game Item', power: '12' },
      },
      { app_id: 'app-1', kind: 'level_pack', id: 'p-1', received_at: '2023-11-14 22:15:00.000', request_id: 'req-1', record: { levels: [1, 2] } },
    ]);
    await waitFor(() => h.receipts.length === 2, { what: 'two receipts' });
    expect(h.receipts[0]!.value.items).toEqual([
      {
        event_index: 0,
        status: 'accepted',
        id: 'item-77',
        name: 'game_item',
        user_id: null,
        kind: null,
        reasons: [
          {
            path: '$.data[0].type',
            rule: 'custom_catalog_kind',
            message: 'game_item is no built-in catalog kind: kept as an app-defined kind (table catalog_custom), its fields as sent and unchecked',
          },
        ],
        reasons_total: 1,
        event_count: 1,
      },
      { event_index: 1, status: 'accepted', id: 'u-1', name: 'user', user_id: null, kind: null, reasons: [], reasons_total: 0, event_count: 1 },
    ]);
  });

  it('defaults blood and oxygen ids and keys the records by them; user_chw is hcw', async () => {
    const h = await start();
    await h.sendRaw('catalog:blood', [{ blood_group: 'A+', blood_component: 'plasma' }]);
    await h.sendRaw('catalog:oxygen', [{ packaging: 'cylinder' }, {}]);
    await h.sendRaw('catalog:user_chw', [{ id: 'chw-1', role: 'chw' }]);
    await until(h, 4, 'four records');
    expect(h.out.map((o) => [o.topic, o.key, o.value.id, o.value.kind])).toEqual([
      ['catalog.blood', 'app-1:A+_plasma', 'A+_plasma', 'blood'],
      ['catalog.oxygen', 'app-1:oxygen_cylinder', 'oxygen_cylinder', 'oxygen'],
      ['catalog.oxygen', 'app-1:oxygen_default', 'oxygen_default', 'oxygen'],
      ['catalog.hcw', 'app-1:chw-1', 'chw-1', 'hcw'],
    ]);
  });

  it('a catalog kind name that is no kind is a parse_violation with rule unknown_catalog_kind; an unknown payload kind too', async () => {
    const h = await start();
    await h.sendRaw('catalog:Vehicle', [{ id: 'v-1' }, { id: 'v-2' }]);
    await h.sendRaw('bulk', [{ id: 'v-1' }]);
    await until(h, 2, 'two rejections');
    expect(on(h, topics.rejected).map((o) => [o.value.kind, o.value.errors, o.value.event_count, o.value.payload_kind])).toEqual([
      [
        'parse_violation',
        [
          {
            path: 'headers.payload_kind',
            rule: 'unknown_catalog_kind',
            message: expect.stringContaining('catalog kind "Vehicle" is neither a built-in kind (user, site, hcw, patient'),
          },
        ],
        2,
        'catalog:Vehicle',
      ],
      [
        'parse_violation',
        [{ path: 'headers.payload_kind', rule: 'unsupported_payload_kind', message: 'payload kind bulk is not log, crash, dimensions or catalog:<kind>' }],
        1,
        'bulk',
      ],
    ]);
  });

  it('a body that is not an array, or not JSON, is rejected whole', async () => {
    const h = await start();
    await h.sendRaw('catalog:drug', { id: 'd-1', name: 'x' });
    await h.sendRaw('catalog:drug', undefined, { raw: '[{"id":' });
    await until(h, 2, 'two rejections');
    expect(on(h, topics.rejected).map((o) => [o.value.kind, (o.value.errors as { rule: string }[])[0]!.rule, o.value.event_count])).toEqual([
      ['envelope_violation', 'type', 1],
      ['parse_violation', 'json', 1],
    ]);
  });

  it.each([0, 2])('events in = accepted + rejected for a mixed batch of catalog kinds and an event envelope (encode workers: %i)', async (workers) => {
    const h = await start({ workers });
    const submissions: [string | undefined, unknown[]][] = [
      [
        'catalog:user',
        [{ id: 'u-1', timezone: 'UTC' }, { id: 'u-2' }, { id: 'u-3', timezone: 'UTC', birth_year: 1850 }, { id: 'u-4', timezone: 'UTC', gender: 'male' }],
      ],
      ['catalog:patient', [{ id: 'p-1' }, 5, { id: 'p-3', has_email: 'no' }]],
      ['catalog:medical_equipment', [{ id: 'm-1', name: 'Oximeter' }, { name: 'no id' }]],
      ['catalog:facility', [{ id: 'f-1' }]],
      ['catalog:chat_group', []],
      ['catalog:grocery', [{ id: 'g-1' }, { id: 'g-2' }]], // both lack name
    ];
    for (const [kind, body] of submissions) await h.sendRaw(kind, body);
    // One current-form envelope: a valid page event and one with an unknown name.
    await h.sendRaw('log', {
      id: 'user-42',
      tz: '+05:30',
      internal: { s_id: 'user-42_1700000000000_0', sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd', os: 'android' },
      data: [
        { time: '2023-11-15 03:43:20.123', name: 'page', property: 'Home', ctx: { __ol: true, path: '/', title: 'H', duration: 1, render_time: 2 } },
        { time: '2023-11-15 03:43:20.123', name: 'nope', property: 'x', ctx: { __ol: true } },
      ],
    });
    const recordsIn = submissions.reduce((n, [, body]) => n + body.length, 0) + 2;
    const count = () => {
      const accepted = h.out.filter((o) => o.topic !== topics.rejected).length;
      const rejected = on(h, topics.rejected).reduce((n, o) => n + (o.value.event_count as number), 0);
      return { accepted, rejected };
    };
    await waitFor(() => count().accepted + count().rejected >= recordsIn, { timeoutMs: 5_000, what: 'every record accounted for' });
    expect(count()).toEqual({ accepted: 6, rejected: 8 });
    expect(recordsIn).toBe(14);
    expect(
      h.out
        .filter((o) => o.topic !== topics.rejected)
        .map((o) => `${o.topic} ${o.key}`)
        .sort(),
    ).toEqual([
      'catalog.facility app-1:f-1',
      'catalog.medical_equipment app-1:m-1',
      'catalog.patient app-1:p-1',
      'catalog.user app-1:u-1',
      'catalog.user app-1:u-4',
      'events.core app-1:user-42',
    ]);
  });

  it('an identify (login) carrying user properties also writes a catalog.user record', async () => {
    const h = await start();
    await h.sendRaw('log', {
      id: 'user-42',
      tz: '+05:30',
      internal: { s_id: 'user-42_1700000000000_0', sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd', os: 'android' },
      data: [
        { time: '2023-11-15 03:43:21.000', name: 'identify', property: 'login', ctx: { __ol: true, action: 'login', name: 'Amina', account_type: 'basic' } },
      ],
    });
    await until(h, 2, 'the event and the user record');
    expect(on(h, topics.events('core')).map((o) => o.key)).toEqual(['app-1:user-42']);
    // The canonical name rides in a header, so a consumer can pick events without decoding them.
    expect(on(h, topics.events('core')).map((o) => o.headers)).toEqual([{ app_id: 'app-1', event_id: expect.any(String), name: 'identify' }]);
    const [user] = on(h, topics.catalog('user'));
    expect(user!.key).toBe('app-1:user-42');
    expect(catalogRow(user!.value)).toEqual({
      app_id: 'app-1',
      id: 'user-42',
      received_at: '2023-11-14 22:15:00.000',
      request_id: 'req-1',
      record: { name: 'Amina', timezone: '+05:30', account_type: 'basic' },
    });
  });

  it('commits a raw batch only after its outputs are written (at-least-once)', async () => {
    // catalog.chat_bot is missing at first, so producing fails and the raw batch is redelivered.
    const withoutChatBot = allTopics().filter((t) => t.name !== topics.catalog('chat_bot'));
    const h = await start({ topics: withoutChatBot });
    await h.sendRaw('catalog:chat_bot', [{ id: 'b-1', name: 'Helper' }]);
    await new Promise((r) => setTimeout(r, 100));
    await h.bus.ensureTopics([{ name: topics.catalog('chat_bot'), partitions: 1 }]);
    const reader = await h.bus.subscribe({
      groupId: 'validator-test-late-reader',
      topics: [topics.catalog('chat_bot')],
      handleBatch: async (b) => {
        for (const m of b.messages)
          h.out.push({ topic: m.topic, key: m.key, headers: m.headers, value: (await h.registry.decode(m.value)) as Record<string, unknown> });
      },
    });
    try {
      await until(h, 1, 'the redelivered record');
      expect(h.out.map((o) => [o.topic, o.key, o.value.name])).toEqual([['catalog.chat_bot', 'app-1:b-1', 'Helper']]);
    } finally {
      await reader.stop();
    }
  });
});

describe('validator: privacy counters', () => {
  // The events of an upload and a patient catalog record, for app-1 (pseudonymises direct identifiers;
  // health blocks drop free text by default) and app-2 (the defaults).
  const encounter = (app: string) => ({
    id: 'u-1',
    tz: '+00:00',
    internal: { s_id: 'u-1_1700000000000_0', sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd', os: 'android' },
    data: [0, 1].map((i) => ({
      time: '2023-11-14 22:13:20.000',
      name: 'encounter',
      property: `x${i}`,
      ctx: {
        __ol: true,
        patient_id: `PAT-${app}`,
        site_id: 's-1',
        action: 'done',
        category: 'facility',
        type: 'screening',
        sub_type: 'hiv',
        encounter_summary: { id: 'enc-1', hcw_id_list: ['hcw-1', 'hcw-2'], remarks: 'patient said …' },
      },
    })),
  });

  it.each([0, 1])('counts the fields each app’s policy pseudonymised or dropped, by app and class, once written (%i encode workers)', async (workers) => {
    const metrics = new Registry();
    const privacy: PrivacyTable = {
      apps: { 'app-1': resolvePrivacy({ classes: { direct_identifier: 'pseudonymise' } }, { version: 1, secret: 'demo-app pseudonym key v1, 32 bytes!!' }) },
      default: DEFAULT_PRIVACY_TABLE.default,
    };
    const h = await start({ workers, privacy, metrics });
    await h.sendRaw(undefined, encounter('app-1'));
    await h.sendRaw('catalog:patient', [{ id: 'PAT-1', site_id: 's-1' }]);
    const producer = await h.bus.producer();
    await producer.send(topics.raw, [
      {
        key: 'app-2:log',
        value: Buffer.from(JSON.stringify(encounter('app-2'))),
        headers: { app_id: 'app-2', request_id: 'req-2', received_at: String(RECEIVED_AT), key_id: 'k-sdk' },
      },
    ]);
    await waitFor(() => h.receipts.length >= 3, { timeoutMs: 5_000, what: 'three receipts' });
    const counted = async () =>
      ((await metrics.getSingleMetric('validator_privacy_fields_total')?.get())?.values ?? [])
        .map((v) => [v.labels.app_id, v.labels.class, v.labels.action, v.value])
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    // Per event: patient_id and hcw_id_list pseudonymised (two values, one field), remarks dropped;
    // the patient record: its id. app-2 keeps identifiers, and drops the free text.
    await waitFor(async () => (await counted()).length === 3, { timeoutMs: 5_000, what: 'the counters' });
    expect(await counted()).toEqual([
      ['app-1', 'direct_identifier', 'pseudonymised', 5],
      ['app-1', 'free_text', 'dropped', 2],
      ['app-2', 'free_text', 'dropped', 2],
    ]);
  });
});

describe('validator: outputs that cannot fit the bus', () => {
  it('turns an event whose record cannot fit its topic into a size_violation with a payload prefix; the rest flows', async () => {
    // events.core takes 1,000-byte record batches here: an event of ~3 KB of properties cannot fit.
    const h = await start({ maxBatchBytes: (t) => (t === topics.events('core') ? 1_000 : topicMaxBatchBytes(t)) });
    const envelope = {
      id: 'user-42',
      tz: '+05:30',
      internal: { s_id: 'user-42_1700000000000_0', sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd', os: 'android' },
      data: [
        { time: '2023-11-15 03:43:20.123', name: 'page', property: 'Home', ctx: { __ol: true, path: '/home', title: 'Home', duration: 1, render_time: 2 } },
        {
          time: '2023-11-15 03:43:21.123',
          name: 'page',
          property: 'Big',
          ctx: { __ol: true, path: '/big', title: 'x'.repeat(3_000), duration: 1, render_time: 2 },
        },
      ],
    };
    await h.sendRaw('log', envelope);
    await until(h, 2, 'one event and one rejection');
    expect(on(h, topics.events('core')).map((o) => o.value.property)).toEqual(['Home']);
    const [rejected] = on(h, topics.rejected);
    expect([rejected!.value.kind, rejected!.value.event_count, rejected!.value.payload_truncated]).toEqual(['size_violation', 1, false]);
    expect((rejected!.value.errors as { rule: string; message: string }[]).map((e) => e.rule)).toEqual(['max_message_bytes']);
    expect((rejected!.value.errors as { message: string }[])[0]!.message).toMatch(/^the events\.core record is \d+ bytes; the topic takes at most 1000$/);
    expect(rejected!.value.payload).toBe(JSON.stringify(envelope));
    // Later uploads still flow.
    await h.sendRaw('log', { ...envelope, data: [envelope.data[0]] }, { requestId: 'req-2' });
    await until(h, 3, 'the next upload');
    expect(on(h, topics.events('core'))).toHaveLength(2);
  });
});
