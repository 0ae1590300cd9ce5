import { Redis } from 'ioredis';
import { RedisActionStore, systemClock } from '@evp/actions';
import { startFeedbackConsumer } from '@evp/action-store';
import { allTopics, createLogger, topics, type Subscription } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { canonicalFromAvro } from '@evp/schemas';
import { deletePrefix, randomActionPrefix, sampleAction, uniqueName, waitFor } from '@evp/testkit';
import { startValidator, type RunningValidator } from '@evp/validator';

// Issue 43: the validator copies each nudge_response to actions.feedback in the same durable send as
// its events.core original, and the action store's feedback consumer reads that topic alone. On the
// real broker, registry and Redis: an upload with a page and a response goes in as ingest.raw, and
// the response reaches the store, read from actions.feedback only. The broker is shared, so the
// validator's group starts at the end of ingest.raw and the upload is re-sent until it is handled.
describe('feedback through actions.feedback on the real stack (validator → Kafka → action store)', () => {
  const logger = createLogger('feedback-it', 'silent');
  const bus = createKafkaBus({ brokers: (process.env.KAFKA_BROKERS as string).split(','), clientId: uniqueName('feedback-it'), logger });
  const registry = createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string });
  const redis = new Redis(process.env.REDIS_URL as string);
  const prefix = randomActionPrefix();
  const store = new RedisActionStore({ redis, clock: systemClock(), prefix });
  const appId = uniqueName('it-fb');
  const feedbackGroup = uniqueName('action-store.feedback-it');
  let validator: RunningValidator;
  let feedback: Subscription;

  beforeAll(async () => {
    await bus.ensureTopics(allTopics());
    validator = await startValidator({ bus, registry, logger, config: { groupId: uniqueName('validator-fb-it'), fromBeginning: false, workers: 0 } });
    feedback = await startFeedbackConsumer({
      bus,
      store,
      logger,
      groupId: feedbackGroup,
      decode: async (value) => canonicalFromAvro((await registry.decode(value)) as Record<string, unknown>),
    });
  }, 120_000);

  afterAll(async () => {
    await feedback?.stop();
    await validator?.stop();
    await bus.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('records a nudge_response sent as an upload, read from actions.feedback and never from events.core', async () => {
    await store.create(appId, [sampleAction({ user_id: 'u-1', inv_id: 41, action_id: 42 })]);
    const upload = JSON.stringify({
      id: 'u-1',
      tz: '+00:00',
      internal: { s_id: 'u-1_1700000000000_0', sdk: 'android/2.4.1', a_id: 'it-app', a_ver: '1.0 (1)', d_id: 'd-1', os: 'android' },
      data: [
        { time: '2023-11-15 03:43:20.000', __ol: true, name: 'page', property: 'screen', ctx: { path: '/', title: 'Home', duration: 1, render_time: 2 } },
        {
          time: '2023-11-15 03:43:21.000',
          __ol: true,
          name: 'nudge_response',
          property: 'open',
          ctx: { ref: '41:42', time: '2023-11-15T03:43:20Z', response: 'open' },
        },
      ],
    });
    const producer = await bus.producer();
    let attempt = 0;
    await waitFor(
      async () => {
        const responses = (await store.stats(appId, 42))?.totals.responses;
        if (responses && responses.open > 0) return true;
        attempt++;
        await producer.send(topics.raw, [
          {
            key: `${appId}:u-1`,
            value: Buffer.from(upload),
            headers: { app_id: appId, request_id: `req-${attempt}`, received_at: '1700000100000', key_id: 'k-it' },
          },
        ]);
        return undefined;
      },
      { timeoutMs: 90_000, intervalMs: 2_000, what: 'the response to reach the store' },
    );
    await producer.close();
    // Sent again until handled, the response counts once.
    expect((await store.stats(appId, 42))?.totals.responses).toEqual({ shown: 0, open: 1, discard: 0, block: 0, expired: 0, error: 0 });
    // The group consumed actions.feedback and nothing else.
    const read = bus.consumerLag().filter((l) => l.group === feedbackGroup);
    expect(read.length).toBeGreaterThan(0);
    expect([...new Set(read.map((l) => l.topic))]).toEqual([topics.actionsFeedback]);
    // The copy and the original are both on the log: events.core still has it for the sink and partners.
    // By event id, as `<name>:<event_id>`: a send kafkajs left partly unwritten is sent again whole, so a
    // topic may hold a message twice (at least once), never miss one.
    const written = async (topic: string) => {
      const ids = new Set<string>();
      await bus.scan(topic, Date.now() - 300_000, (m) => {
        if (m.headers.app_id === appId) ids.add(`${m.headers.name}:${m.headers.event_id}`);
      });
      return [...ids].sort();
    };
    // Each handled upload wrote one page and one response to events.core and that response's copy
    // (an upload re-sent before the first was handled may still be on its way: read until they agree).
    let last: string[][] = [];
    const [onFeedback, onCore] = await waitFor(
      async () => {
        const both = [await written(topics.actionsFeedback), await written(topics.events('core'))];
        last = both;
        const responses = both[1]?.filter((n) => n.startsWith('nudge_response:')) ?? [];
        return JSON.stringify(both[0]) === JSON.stringify(responses) && both[1]?.length === 2 * responses.length ? both : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 1_000, what: 'events.core and actions.feedback to agree' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last read [actions.feedback, events.core]: ${JSON.stringify(last)}`);
    });
    expect(onFeedback?.length).toBeGreaterThan(0);
    expect(onFeedback?.every((n) => n.startsWith('nudge_response:'))).toBe(true);
    expect(onCore?.filter((n) => n.startsWith('page:'))).toHaveLength(onFeedback?.length ?? -1);
  }, 150_000);
});
