import { InfraError, topics, type Analytics, type AppRetention } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import {
  actionLogEntrySchema,
  blockSubject,
  catalogSchema,
  catalogSubject,
  catalogToAvro,
  customCatalogSchema,
  rejectedRecordSchema,
  type ActionLogEntry,
} from '@evp/schemas';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { nth, pageEvent, pageEventRow, rejectedRecord, type SinkHarness, type SinkHarnessOptions, startSinkHarness } from '../testing';

// The sink on the embedded adapters: in-process bus and registry, ClickHouse in-process (chdb).
// One database per run; each test uses its own app id, so tests share the tables without seeing
// each other's rows.
const chdb = useMigratedChdb('sink');
let analytics: Analytics;

beforeAll(async () => {
  analytics = chdb.analytics;
});

const running: SinkHarness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.close()));
});

// The fixtures are dated 2024: under a finite retention ClickHouse may drop them at insert or at
// any merge, so these tests keep everything (the stamping itself is tested below).
const FOREVER: AppRetention = { events: 0, rejected: 0, catalogs: 0, action_log: 0, history: 0 };

async function start(opts: Partial<SinkHarnessOptions> & { maxBatchSize?: number } = {}): Promise<SinkHarness> {
  const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20, ...(opts.maxBatchSize ? { maxBatchSize: opts.maxBatchSize } : {}) });
  const h = await startSinkHarness({ bus, registry: createInProcessRegistry(), analytics, retention: () => FOREVER, ...opts });
  running.push(h);
  return h;
}

const rowsOf = (table: string, app: string, final = true) =>
  analytics.query<Record<string, unknown>>(
    `SELECT * EXCEPT (inserted_at, retention_days) FROM ${table} ${final ? 'FINAL' : ''} WHERE app_id = {app:String} ORDER BY received_at, ${table === 'rejected' ? 'rejection_id' : table === 'events' ? 'event_id' : 'id'}`,
    { app },
  );
const countOf = async (table: string, app: string, final = false) =>
  (await analytics.query<{ c: number }>(`SELECT count() AS c FROM ${table} ${final ? 'FINAL' : ''} WHERE app_id = {app:String}`, { app }))[0]?.c ?? 0;

describe('sink (in-process bus + registry, chdb)', () => {
  it('writes a canonical page event from events.core as exactly this events row', async () => {
    const h = await start();
    await h.send(topics.events('core'), [await h.event(pageEvent)]);
    const rows = await waitFor(
      async () => {
        const r = await rowsOf('events', 'app-1');
        return r.length > 0 && r;
      },
      { timeoutMs: 10_000, what: 'the events row' },
    );
    expect(rows).toEqual([pageEventRow]);
    const metrics = await h.sink.metrics.getMetricsAsJSON();
    const inserted = metrics.find((m) => m.name === 'segmenter_sink_rows_inserted_total');
    expect(inserted?.values).toEqual([{ value: 1, labels: { table: 'events' } }]);
  });

  it('reports consumer lag in messages per partition: what the log holds beyond the last inserted batch', async () => {
    const app = 'app-lag';
    let inserts = 0;
    let releaseSecond!: () => void;
    const secondHeld = new Promise<void>((r) => (releaseSecond = r));
    const gated: Analytics = {
      ...analytics,
      insertRowBinary: async (table, block, opts) => {
        inserts += 1;
        if (inserts === 2) await secondHeld;
        return analytics.insertRowBinary(table, block, opts);
      },
    };
    // Two messages per batch, five messages on one partition: batches end at offsets 1, 3 and 4.
    const h = await start({ analytics: gated, maxBatchSize: 2 });
    await h.send(topics.events('core'), await Promise.all([1, 2, 3, 4, 5].map((i) => h.event(nth(app, i)))));
    // The bus reports the sink group's lag (every group's: Bus.consumerLag).
    const lag = async () => h.bus.consumerLag().flatMap((l) => (l.group === 'segmenter-sink' ? [[l.topic, l.messages]] : []));
    await waitFor(() => inserts === 2, { timeoutMs: 10_000, what: 'the second insert' });
    expect(await lag()).toEqual([['events.core', 3]]);
    releaseSecond();
    await waitFor(async () => (await countOf('events', app)) === 5, { timeoutMs: 10_000, what: 'all five rows' });
    await waitFor(async () => (await lag())[0]?.[1] === 0, { timeoutMs: 10_000, what: 'lag 0' });
  });

  it('shows one row for an event delivered twice and for the same upload sent again', async () => {
    const app = 'app-twice';
    const h = await start();
    const e = nth(app, 1);
    await h.send(topics.events('core'), [await h.event(e), await h.event(e)]);
    // The same upload sent again: same deterministic event id, another request and receipt time.
    await h.send(topics.events('core'), [await h.event({ ...e, request_id: 'req-again', received_at: e.received_at + 60_000 })]);
    await h.send(topics.events('core'), [await h.event(nth(app, 2))]);
    await waitFor(async () => (await countOf('events', app, true)) === 2, { timeoutMs: 10_000, what: 'two distinct events' });
    const rows = await analytics.query(`SELECT event_id, props.path::String AS path FROM events FINAL WHERE app_id = {app:String} ORDER BY event_id`, { app });
    expect(rows).toEqual([
      { event_id: `${app}-e1`, path: '/p/1' },
      { event_id: `${app}-e2`, path: '/p/2' },
    ]);
  });

  it('loses nothing and shows no duplicate when the sink dies between insert and commit', async () => {
    const app = 'app-crash';
    let crashes = 1;
    // The insert reaches ClickHouse, then the "process" fails before the bus could commit.
    const crashing: Analytics = {
      ...analytics,
      insertRowBinary: async (table, block, opts) => {
        await analytics.insertRowBinary(table, block, opts);
        if (table === 'events' && crashes-- > 0) throw new InfraError('clickhouse', 'connection reset after insert', { retriable: true });
      },
    };
    const h = await start({ analytics: crashing, config: { retryBudgetMs: 0 } });
    await h.send(topics.events('core'), await Promise.all([1, 2, 3].map((i) => h.event(nth(app, i)))));
    await waitFor(() => crashes < 0 || undefined, { timeoutMs: 10_000, what: 'the redelivered batch' });
    await waitFor(async () => (await countOf('events', app)) === 3, { timeoutMs: 10_000, what: '3 rows' });
    // The redelivered batch carried the same dedup token, so ClickHouse dropped the repeat: three
    // rows even without FINAL.
    await h.close();
    running.splice(running.indexOf(h), 1);
    expect(await countOf('events', app)).toBe(3);
  });

  it('keeps every row while ClickHouse is unavailable and inserts them when it returns', async () => {
    const app = 'app-outage';
    let available = false;
    let refused = 0;
    const flaky: Analytics = {
      ...analytics,
      insertRowBinary: async (table, block, opts) => {
        if (!available) {
          refused++;
          throw new InfraError('clickhouse', 'insert failed: server unreachable: connect ECONNREFUSED', { retriable: true });
        }
        await analytics.insertRowBinary(table, block, opts);
      },
    };
    const h = await start({ analytics: flaky });
    for (let i = 0; i < 4; i++) await h.send(topics.events('core'), [await h.event(nth(app, i))]);
    await waitFor(() => refused >= 5 || undefined, { timeoutMs: 10_000, what: 'refused inserts' });
    expect(await countOf('events', app)).toBe(0);
    available = true;
    await waitFor(async () => (await countOf('events', app)) === 4, { timeoutMs: 10_000, what: 'all 4 rows' });
    expect(await countOf('events', app, true)).toBe(4);
  });

  it('lets the event loop turn while it decodes a large batch (every 250 messages), so other work in the process goes on', async () => {
    const app = 'app-yield';
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    const registry = createInProcessRegistry();
    let atFirstDecode: number | undefined;
    const watched = {
      ...registry,
      register: registry.register.bind(registry),
      encode: registry.encode.bind(registry),
      decode: (value: Buffer) => {
        atFirstDecode ??= turns;
        return registry.decode(value);
      },
    };
    let atFirstInsert: number | undefined;
    const counting: Analytics = {
      ...analytics,
      insertRowBinary: async (table, block, opts) => {
        atFirstInsert ??= turns;
        await analytics.insertRowBinary(table, block, opts);
      },
    };
    const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20, maxBatchSize: 1_000 });
    const h = await startSinkHarness({ bus, registry: watched, analytics: counting });
    running.push(h);
    // One user ⇒ one partition ⇒ one batch of 1,000 messages, decoded with only microtasks between them.
    const values = await Promise.all(Array.from({ length: 1_000 }, (_, i) => h.event(nth(app, i))));
    setImmediate(spin);
    await h.send(topics.events('core'), values);
    await waitFor(async () => (await countOf('events', app)) === 1_000, { timeoutMs: 10_000, what: '1,000 rows' });
    spinning = false;
    // Three turns at least: after messages 250, 500 and 750.
    expect((atFirstInsert ?? 0) - (atFirstDecode ?? 0)).toBeGreaterThanOrEqual(3);
  });

  it('inserts a large batch in slices and commits it only once every slice is in', async () => {
    const app = 'app-slices';
    let inserts = 0;
    const counting: Analytics = {
      ...analytics,
      insertRowBinary: async (table, block, opts) => {
        inserts++;
        await analytics.insertRowBinary(table, block, opts);
      },
    };
    const h = await start({ analytics: counting, config: { sliceRows: 4 } });
    // One user ⇒ one partition ⇒ one batch of 10 messages ⇒ slices of 4, 4 and 2.
    await h.send(topics.events('core'), await Promise.all(Array.from({ length: 10 }, (_, i) => h.event(nth(app, i)))));
    await waitFor(async () => (await countOf('events', app)) === 10, { timeoutMs: 10_000, what: '10 rows' });
    expect(inserts).toBe(3);
    // The handler returned once (after the last slice), without a failure and redelivery.
    const handled = async () => {
      const metric = (await h.sink.metrics.getMetricsAsJSON()).find((m) => m.name === 'segmenter_sink_batch_duration_seconds');
      return (
        (metric?.values as { metricName?: string; value: number }[] | undefined)?.find((v) => v.metricName === 'segmenter_sink_batch_duration_seconds_count')
          ?.value || undefined
      );
    };
    expect(await waitFor(handled, { timeoutMs: 10_000, what: 'the batch to complete' })).toBe(1);
  });

  it('writes a typed rejected record from ingest.rejected as exactly this rejected row', async () => {
    const h = await start();
    const id = await h.registry.register(blockSubject(topics.rejected), rejectedRecordSchema);
    const record = { ...rejectedRecord, app_id: 'app-rej' };
    await h.send(topics.rejected, [{ key: `app-rej:${record.rejection_id}`, value: await h.registry.encode(id, record) }]);
    const rows = await waitFor(
      async () => {
        const r = await rowsOf('rejected', 'app-rej');
        return r.length > 0 && r;
      },
      { timeoutMs: 10_000, what: 'the rejected row' },
    );
    expect(rows).toEqual([
      {
        rejection_id: '0123456789abcdef0123456789abcdef',
        kind: 'schema_violation',
        errors: [
          { path: '$.data[0].ctx.rate_value', rule: 'range', message: 'must be at most 5' },
          { path: '$.data[0].ctx.type', rule: 'enum', message: 'must be one of order, item, …' },
        ],
        payload: '{"name":"rate","ctx":{"rate_value":9}}',
        payload_truncated: false,
        app_id: 'app-rej',
        request_id: 'req-8',
        key_id: 'sdk-1',
        received_at: '2024-03-01 00:01:40.001',
        failed_at: '2024-03-01 00:01:40.100',
        processor: 'evp-validator/0.1',
        event_count: 1,
        envelope_index: 0,
        event_index: 0,
        event_name: 'rate',
        payload_kind: 'log',
        source: 'ingest.raw/1/77',
        user_id: 'user-42',
      },
    ]);
  });

  it('stamps each row with its app’s retention at insert: a changed setting applies from the next batch, earlier rows keep theirs', async () => {
    const app = 'app-ret';
    let events = 3650;
    const asked: string[] = [];
    const h = await start({
      retention: (appId) => {
        asked.push(appId);
        return { ...FOREVER, events };
      },
    });
    const stamps = () =>
      analytics.query<{ event_id: string; retention_days: number }>(`SELECT event_id, retention_days FROM events WHERE app_id = {app:String} ORDER BY time`, {
        app,
      });
    // Twenty events of one app, appended at once, come as one batch: one lookup, not one per row.
    await h.send(topics.events('core'), await Promise.all(Array.from({ length: 20 }, (_, i) => h.event(nth(app, i + 1)))));
    await waitFor(async () => ((await stamps()).length === 20 ? true : undefined), { timeoutMs: 10_000, what: 'the first rows' });
    expect(asked).toEqual([app]);
    // The keys file changed (a reload): the next batch is stamped with the new value.
    events = 4000;
    await h.send(topics.events('core'), [await h.event(nth(app, 21))]);
    const rows = await waitFor(async () => ((await stamps()).length === 21 ? stamps() : undefined), { timeoutMs: 10_000, what: 'the last row' });
    expect(rows.map((r) => r.retention_days)).toEqual([...Array<number>(20).fill(3650), 4000]);
  });

  it('writes action log entries from actions.log as exactly these actions_log rows; a re-sent entry collapses, a bad one is rejected', async () => {
    const app = 'app-log';
    const h = await start();
    const id = await h.registry.register(blockSubject(topics.actionsLog), actionLogEntrySchema);
    const created: ActionLogEntry = {
      entry_id: 'e-created',
      kind: 'created',
      app_id: app,
      user_id: 'u1',
      inv_id: 2147483648,
      action_id: 7,
      at: Date.UTC(2030, 0, 1),
      created_at: Date.UTC(2030, 0, 1),
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'cached',
      expired_at: Date.UTC(2030, 1, 1),
      tags: ['promo', 'q1'],
      attr: { screen: 'cart' },
      source: 'campaign:42',
      reason: '',
      available_at: Date.UTC(2030, 0, 1, 9),
    };
    const delivered: ActionLogEntry = {
      ...created,
      entry_id: 'e-delivered',
      kind: 'delivered',
      at: created.at + 1500,
      tags: [],
      attr: {},
      source: '',
      available_at: null,
    };
    const capped: ActionLogEntry = { ...created, entry_id: 'e-capped', kind: 'capped', reason: 'campaign_cap', available_at: null };
    const msg = async (e: ActionLogEntry) => ({ key: `${app}:u1`, value: await h.registry.encode(id, e) });
    await h.send(topics.actionsLog, [
      await msg(created),
      await msg(delivered),
      await msg(created),
      await msg(capped),
      await msg({ ...created, entry_id: 'e-bad', kind: 'shown' as never }),
    ]);
    await waitFor(async () => (await countOf('dead_letters', app)) === 1 && (await countOf('actions_log', app)) >= 3, {
      timeoutMs: 10_000,
      what: 'the action log rows',
    });
    const common = {
      app_id: app,
      user_id: 'u1',
      inv_id: 2147483648,
      action_id: 7,
      created_at: '2030-01-01 00:00:00.000',
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'cached',
      expired_at: '2030-02-01 00:00:00.000',
      ref: '2147483648:7',
    };
    expect(
      await analytics.query(`SELECT * EXCEPT (inserted_at, retention_days), ref FROM actions_log FINAL WHERE app_id = {app:String} ORDER BY kind`, { app }),
    ).toEqual([
      {
        entry_id: 'e-created',
        kind: 'created',
        at: '2030-01-01 00:00:00.000',
        tags: ['promo', 'q1'],
        attr: { screen: 'cart' },
        source: 'campaign:42',
        reason: '',
        available_at: '2030-01-01 09:00:00.000',
        ...common,
      },
      {
        entry_id: 'e-delivered',
        kind: 'delivered',
        at: '2030-01-01 00:00:01.500',
        tags: [],
        attr: {},
        source: '',
        reason: '',
        available_at: null,
        ...common,
      },
      {
        entry_id: 'e-capped',
        kind: 'capped',
        at: '2030-01-01 00:00:00.000',
        tags: ['promo', 'q1'],
        attr: { screen: 'cart' },
        source: 'campaign:42',
        reason: 'campaign_cap',
        available_at: null,
        ...common,
      },
    ]);
    // The entry of an unknown kind is dead-lettered (it was a parse_violation row of `rejected`).
    expect(await analytics.query(`SELECT error_kind, error_message FROM dead_letters FINAL WHERE app_id = {app:String}`, { app })).toEqual([
      { error_kind: 'invalid', error_message: 'contract at $.kind: shown is not one of created, delivered, withdrawn, expired, capped' },
    ]);
    expect(await countOf('rejected', app)).toBe(0);
  });

  it('dead-letters an unreadable message (no rejected row), stores it in dead_letters, and still writes the rest of its batch', async () => {
    const app = 'app-garbage';
    const h = await start();
    const garbage = Buffer.from('{"not":"avro"}');
    await h.send(topics.events('core'), [{ key: `${app}:user-42`, value: garbage }, await h.event(nth(app, 1))]);
    await waitFor(async () => (await countOf('events', app)) === 1, { timeoutMs: 10_000, what: 'the good event' });
    const letters = await waitFor(
      async () => {
        const r = await analytics.query<Record<string, unknown>>(
          `SELECT source_topic, source_offset, source_key, consumer_group, error_kind, error_message, processor, payload, payload_encoding
           FROM dead_letters FINAL WHERE app_id = {app:String}`,
          { app },
        );
        return r.length > 0 && r;
      },
      { timeoutMs: 10_000, what: 'the dead letter, stored' },
    );
    expect(letters).toEqual([
      {
        source_topic: 'events.core',
        // First message of whichever partition the key maps to.
        source_offset: '0',
        source_key: `${app}:user-42`,
        consumer_group: 'segmenter-sink',
        error_kind: 'unreadable',
        error_message: expect.stringMatching(/^avro_decode at \$: /),
        processor: 'segmenter-sink',
        payload: '{"not":"avro"}',
        payload_encoding: 'utf8',
      },
    ]);
    expect(await countOf('rejected', app)).toBe(0);
    expect(h.bus.deadLetterCounts()).toEqual([{ sourceTopic: 'events.core', group: 'segmenter-sink', count: 1 }]);
  });

  it('keeps the latest version of a catalog record', async () => {
    const h = await start();
    const id = await h.registry.register(catalogSubject('patient'), catalogSchema('patient') as object);
    const version = async (receivedAt: number, country: string) => ({
      key: 'app-cat:p-1',
      value: await h.registry.encode(
        id,
        catalogToAvro({
          app_id: 'app-cat',
          id: 'p-1',
          kind: 'patient',
          received_at: receivedAt,
          request_id: `r${receivedAt}`,
          record: { id: 'p-1', country, site_id_list: ['s1'], insurance_status: false },
          extra: receivedAt > 1_500 ? { ward: '7B' } : null,
        }),
      ),
    });
    await h.send(topics.catalog('patient'), [await version(2_000, 'Uganda'), await version(1_000, 'Kenya')]);
    await waitFor(async () => (await countOf('catalog_patient', 'app-cat')) >= 1, { timeoutMs: 10_000, what: 'catalog rows' });
    expect(await rowsOf('catalog_patient', 'app-cat')).toEqual([
      {
        app_id: 'app-cat',
        id: 'p-1',
        received_at: '1970-01-01 00:00:02.000',
        request_id: 'r2000',
        record: { country: 'Uganda', insurance_status: false, site_id_list: ['s1'], ward: '7B' },
      },
    ]);
  });

  it('writes records of app-defined kinds to catalog_custom: the latest version per (app, kind, id), fields as sent', async () => {
    const h = await start();
    const id = await h.registry.register(blockSubject(topics.customCatalog), customCatalogSchema);
    const version = async (kind: string, receivedAt: number, record: Record<string, unknown>) => ({
      key: `app-custom:${kind}:item-1`,
      value: await h.registry.encode(
        id,
        catalogToAvro({ custom: true, app_id: 'app-custom', id: 'item-1', kind, received_at: receivedAt, request_id: `r${receivedAt}`, record }),
      ),
    });
    await h.send(topics.customCatalog, [
      await version('game_item', 2_000, { name: 'Sword', power: '12', stats: { atk: 3 } }),
      await version('game_item', 1_000, { name: 'Old sword' }),
      // The same id in another kind is another record.
      await version('level_pack', 1_500, { levels: [1, 2] }),
    ]);
    // One row per (kind, id) once the versions are merged (ClickHouse already does on insert).
    await waitFor(async () => (await countOf('catalog_custom', 'app-custom')) >= 2, { timeoutMs: 10_000, what: 'custom catalog rows' });
    expect(await rowsOf('catalog_custom', 'app-custom')).toEqual([
      { app_id: 'app-custom', kind: 'level_pack', id: 'item-1', received_at: '1970-01-01 00:00:01.500', request_id: 'r1500', record: { levels: [1, 2] } },
      {
        app_id: 'app-custom',
        kind: 'game_item',
        id: 'item-1',
        received_at: '1970-01-01 00:00:02.000',
        request_id: 'r2000',
        record: { name: 'Sword', power: '12', stats: { atk: 3 } },
      },
    ]);
  });
});
