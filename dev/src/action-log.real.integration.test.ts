import { Redis } from 'ioredis';
import { NEVER_EXPIRES, RedisActionStore, systemClock, type NewAction } from '@evp/actions';
import { startLogRelay, type LogRelay } from '@evp/action-store';
import { InfraError, createLogger, topics, type BusProducer, type Subscription } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { createSink } from '@evp/segmenter';
import { deletePrefix, randomActionPrefix, uniqueName, useMigratedChdb, waitFor } from '@evp/testkit';

/**
 * The action log across real parts: Redis (the outbox), the Kafka broker and the registry (the
 * relay's produce), the sink into ClickHouse (chdb). The topic is the shared `actions.log`; this
 * test's entries are told apart by an app id of its own.
 */
const logger = createLogger('action-log-it', 'silent');
const chdb = useMigratedChdb('action_log_it');
const redis = new Redis(process.env.REDIS_URL as string);
const prefix = randomActionPrefix();
const bus = createKafkaBus({ brokers: (process.env.KAFKA_BROKERS as string).split(','), clientId: uniqueName('action-log-it'), logger });
const registry = createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string });
const app = uniqueName('log').replace(/-/g, '_');
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  await bus.ensureTopics([{ name: topics.actionsLog, partitions: 3 }]);
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await bus.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

const action = (user: string, mode: 'one-off' | 'cached', act: number): NewAction => ({
  user_id: user,
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: mode,
  content: { title: 't', body: 'b' },
  attr: {},
  tags: [`t${act}`],
  expired_at: NEVER_EXPIRES,
  inv_id: 5,
  action_id: act,
});

/** This test's messages on actions.log, as `<kind> <user>/<action_id>`, collected from the start of the topic. */
async function watchTopic(): Promise<string[]> {
  const seen: string[] = [];
  const sub: Subscription = await bus.subscribe({
    groupId: uniqueName('action-log-it-reader'),
    topics: [topics.actionsLog],
    fromBeginning: true,
    handleBatch: async (b) => {
      for (const m of b.messages) {
        if (m.headers.app_id !== app) continue;
        const e = (await registry.decode(m.value)) as { kind: string; user_id: string; action_id: number };
        seen.push(`${e.kind} ${e.user_id}/${e.action_id}`);
      }
    },
  });
  cleanups.push(() => sub.stop());
  return seen;
}

describe('action log on the real stack: outbox in Redis → relay → actions.log → sink → actions_log', () => {
  it('acknowledges entries only after the produce; a relay that died before acknowledging has them re-sent, and actions_log keeps one row per entry', async () => {
    const clock = systemClock();
    // Two replicas' stores: one relay dies holding records, the other takes them over after the lease.
    const storeA = new RedisActionStore({ redis, clock, prefix, logConsumer: 'relay-a', logLeaseMs: 500 });
    const storeB = new RedisActionStore({ redis, clock, prefix, logConsumer: 'relay-b', logLeaseMs: 500 });
    await storeA.create(app, [action('u1', 'one-off', 1), action('u2', 'cached', 2), action('u3', 'one-off', 3)], { source: 'api' });
    await storeB.pull(app, { user_id: '*', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' });
    await storeB.pull(app, { user_id: '*', type: 'message', render_method: 'push_notification', delivery_mode: 'cached' });
    await storeB.pull(app, { user_id: '*', type: 'message', render_method: 'push_notification', delivery_mode: 'cached' });
    expect(await storeA.logLength()).toBe(3);
    const topic = await watchTopic();

    const producer = await bus.producer();
    cleanups.push(() => producer.close());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let sending = false;
    let sent = 0;
    const gated: BusProducer = {
      ...producer,
      send: async (t, messages) => {
        sending = true;
        await gate;
        await producer.send(t, messages);
        sent += messages.length;
      },
    };
    // Relay A's acknowledgement never lands: as if its process died right after the produce.
    storeA.ackLog = async () => {
      throw new InfraError('redis', 'the relay died before acknowledging', { retriable: true });
    };
    const relayA: LogRelay = startLogRelay({ store: storeA, producer: gated, registry, logger, idleMs: 20, backoffMs: 50 });
    await waitFor(() => sending, { timeoutMs: 10_000, what: 'relay A to produce' });
    // Read by relay A, being produced: not acknowledged.
    expect(await storeA.logLength()).toBe(3);
    release();
    await waitFor(() => sent === 6, { timeoutMs: 10_000, what: 'relay A to produce six entries' });
    await relayA.stop();
    expect(await storeB.logLength()).toBe(3);

    const relayB = startLogRelay({ store: storeB, producer, registry, logger, idleMs: 20 });
    cleanups.push(() => relayB.stop());
    await waitFor(async () => (await storeB.logLength()) === 0, { timeoutMs: 20_000, what: 'relay B to take over and acknowledge' });
    const expected = ['created u1/1', 'created u2/2', 'created u3/3', 'delivered u1/1', 'delivered u2/2', 'delivered u3/3'];
    await waitFor(() => topic.length >= 12, { timeoutMs: 20_000, what: 'every entry twice on actions.log' });
    expect([...topic].sort()).toEqual(expected.flatMap((e) => [e, e]));

    const sink = createSink({ bus, registry, analytics: chdb.analytics, logger, config: { groupId: uniqueName('action-log-it-sink'), batchMaxWaitMs: 50 } });
    await sink.start();
    cleanups.push(() => sink.stop());
    const rows = () =>
      chdb.analytics.query<{ step: string }>(
        `SELECT concat(toString(kind), ' ', user_id, '/', toString(action_id)) AS step FROM actions_log FINAL WHERE app_id = {app:String} ORDER BY kind, user_id`,
        { app },
      );
    await waitFor(async () => (await rows()).length >= 6, { timeoutMs: 60_000, what: 'the actions_log rows' });
    expect((await rows()).map((r) => r.step)).toEqual(expected);
    expect(
      await chdb.analytics.query(
        `SELECT uniqExact(entry_id) AS entries, arraySort(groupUniqArray(source)) AS sources FROM actions_log WHERE app_id = {app:String}`,
        {
          app,
        },
      ),
    ).toEqual([{ entries: 6, sources: ['', 'api'] }]);
  });
});
