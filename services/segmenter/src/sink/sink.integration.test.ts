import { InfraError, createLogger, topics, type Analytics, type BusProducer } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { blockEventSchema, blockSubject, canonicalToAvro, type CanonicalEvent } from '@evp/schemas';
import { uniqueName, useMigratedChdb, waitFor } from '@evp/testkit';
import { createSink, type Sink } from './sink';
import { pageEvent } from '../testing';

// The sink through the real stack: a Kafka broker, the schema registry at SCHEMA_REGISTRY_URL, and
// ClickHouse in-process (chdb). Each test reads the real events.core with a consumer group of its
// own and writes one app id of its own, so it neither disturbs nor sees other tests' rows.
const chdb = useMigratedChdb('sink_it');
const logger = createLogger('sink-it', 'silent');
const brokers = () => (process.env.KAFKA_BROKERS as string).split(',');
let analytics: Analytics;

beforeAll(async () => {
  analytics = chdb.analytics;
});

const count = async (app: string, final = false) =>
  (await analytics.query<{ c: number }>(`SELECT count() AS c FROM events ${final ? 'FINAL' : ''} WHERE app_id = {app:String}`, { app }))[0]?.c ?? 0;

async function harness(sinkAnalytics: Analytics) {
  const bus = createKafkaBus({ brokers: brokers(), clientId: uniqueName('sink-it'), logger });
  const registry = createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string });
  const schemaId = await registry.register(blockSubject(topics.events('core')), blockEventSchema('core') as object);
  const producer: BusProducer = await bus.producer();
  const sink: Sink = createSink({
    bus,
    registry,
    analytics: sinkAnalytics,
    logger,
    config: { groupId: uniqueName('segmenter-sink-it'), batchMaxWaitMs: 50, retryInitialDelayMs: 20, retryMaxDelayMs: 200, retryBudgetMs: 300 },
  });
  const app = uniqueName('app').replace(/-/g, '_');
  const event = (i: number, over: Partial<CanonicalEvent> = {}): CanonicalEvent => ({
    ...pageEvent,
    app_id: app,
    event_id: `${app}-e${i}`,
    time: pageEvent.time + i,
    props: { ...pageEvent.props, path: `/p/${i}` },
    ...over,
  });
  const send = async (events: CanonicalEvent[]) =>
    producer.send(
      topics.events('core'),
      await Promise.all(events.map(async (e) => ({ key: `${e.app_id}:${e.user_id}`, value: await registry.encode(schemaId, canonicalToAvro(e)) }))),
    );
  return {
    sink,
    app,
    event,
    send,
    close: async () => {
      await sink.stop();
      await producer.close();
      await bus.close();
    },
  };
}

describe('sink through Kafka and the schema registry into chdb', () => {
  it('shows one row per event when the same upload arrives twice', async () => {
    const h = await harness(analytics);
    try {
      await h.sink.start();
      const upload = [h.event(1), h.event(2), h.event(3)];
      await h.send(upload);
      await h.send(upload.map((e) => ({ ...e, request_id: 'req-resent', received_at: e.received_at + 30_000 })));
      await waitFor(async () => (await count(h.app, true)) === 3 && (await count(h.app)) >= 3, { timeoutMs: 60_000, what: '3 events' });
      expect(
        await analytics.query(`SELECT event_id, props.path::String AS path FROM events FINAL WHERE app_id = {app:String} ORDER BY event_id`, { app: h.app }),
      ).toEqual([1, 2, 3].map((i) => ({ event_id: `${h.app}-e${i}`, path: `/p/${i}` })));
    } finally {
      await h.close();
    }
  });

  it('loses nothing and shows no duplicate when the sink fails between insert and commit', async () => {
    let failAfterInsert = 1;
    const crashing: Analytics = {
      ...analytics,
      insertRowBinary: async (table, block, opts) => {
        await analytics.insertRowBinary(table, block, opts);
        if (failAfterInsert-- > 0) throw new InfraError('clickhouse', 'connection reset after the insert', { retriable: true });
      },
    };
    const h = await harness(crashing);
    try {
      await h.send([h.event(1), h.event(2)]);
      await h.sink.start();
      await waitFor(async () => failAfterInsert < 0 && (await count(h.app)) === 2, { timeoutMs: 60_000, what: 'the redelivered batch' });
      expect([await count(h.app), await count(h.app, true)]).toEqual([2, 2]);
    } finally {
      await h.close();
    }
  });

  it('keeps every row while ClickHouse is unavailable and inserts them once it is back', async () => {
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
    const h = await harness(flaky);
    try {
      await h.sink.start();
      await h.send([h.event(1), h.event(2), h.event(3), h.event(4)]);
      await waitFor(() => refused >= 6 || undefined, { timeoutMs: 60_000, what: 'refused inserts' });
      expect(await count(h.app)).toBe(0);
      available = true;
      await waitFor(async () => (await count(h.app)) === 4, { timeoutMs: 60_000, what: 'all rows after the outage' });
      expect(await count(h.app, true)).toBe(4);
    } finally {
      await h.close();
    }
  });
});
