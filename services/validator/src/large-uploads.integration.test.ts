import { allTopics, createLogger, topics, type BusProducer } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { uniqueName, waitFor } from '@evp/testkit';
import { startValidator, type RunningValidator } from './validator';

// Uploads at the documented limits through the real validator on the real broker. All events of one
// upload share one `app:user` key, so their ~2× larger Avro lands on one partition: far more than a
// Kafka record batch takes, which once crashed the consumer for good (MESSAGE_TOO_LARGE).
describe('validator on the real stack: uploads at the limits', () => {
  const logger = createLogger('validator-large-it', 'silent');
  const bus = createKafkaBus({ brokers: (process.env.KAFKA_BROKERS as string).split(','), clientId: uniqueName('validator-large-it'), logger });
  const registry = createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string });
  const appId = uniqueName('it-large');
  /** Distinct event ids written to events.core, per request id. */
  const events = new Map<string, Set<string>>();
  let validator: RunningValidator;
  let producer: BusProducer;
  let stopReader: () => Promise<void>;

  const envelope = (n: number, pad: number) => ({
    id: 'user-1',
    tz: '+05:30',
    internal: { s_id: 'user-1_1700000000000_0', sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd', os: 'android' },
    data: Array.from({ length: n }, (_, i) => ({
      time: '2023-11-15 03:43:20.123',
      name: 'page',
      property: `page-${i}`,
      ctx: { __ol: true, path: `/p/${i}`, title: `t${'x'.repeat(pad)}`, duration: i, render_time: 1 },
    })),
  });
  const send = (requestId: string, body: string) =>
    producer.send(topics.raw, [
      {
        key: `${appId}:user-1`,
        value: Buffer.from(body),
        headers: { app_id: appId, request_id: requestId, received_at: '1700000100000', key_id: 'k-it', payload_kind: 'log' },
      },
    ]);
  const countOf = (requestId: string) => events.get(requestId)?.size ?? 0;

  beforeAll(async () => {
    // Gives ingest.raw its 6 MiB limit where the topic predates it.
    await bus.ensureTopics(allTopics());
    validator = await startValidator({
      bus,
      registry,
      logger,
      config: { groupId: uniqueName('validator-large-it'), fromBeginning: false, workers: 2 },
    });
    const reader = await bus.subscribe({
      groupId: uniqueName('validator-large-it-reader'),
      topics: [topics.events('core')],
      fromBeginning: false,
      handleBatch: async (b) => {
        for (const m of b.messages) {
          if (m.headers.app_id !== appId) continue;
          const { request_id: requestId } = (await registry.decode(m.value)) as { request_id: string };
          const ids = events.get(requestId) ?? new Set<string>();
          events.set(requestId, ids.add(m.headers.event_id as string));
        }
      },
    });
    stopReader = () => reader.stop();
    producer = await bus.producer();
    // Both groups start at the end of shared topics: probe until a small upload comes through.
    let attempt = 0;
    await waitFor(
      async () => {
        if ([...events.keys()].some((r) => r.startsWith('probe-'))) return true;
        await send(`probe-${++attempt}`, JSON.stringify(envelope(1, 0)));
        return false;
      },
      { timeoutMs: 90_000, intervalMs: 2_000, what: 'the validator and the reader to join' },
    );
  }, 150_000);

  afterAll(async () => {
    await producer?.close();
    await stopReader?.();
    await validator?.stop();
    await bus.close();
  });

  it('processes a 2,700-event (~470 KB) upload and a 5,000-event (~5 MiB) upload in full, and later uploads still flow', async () => {
    const medium = JSON.stringify(envelope(2_700, 22));
    const maximal = JSON.stringify(envelope(5_000, 890));
    expect(medium.length).toBeGreaterThan(450_000);
    expect(medium.length).toBeLessThan(500_000);
    expect(maximal.length).toBeGreaterThan(5_200_000);
    expect(maximal.length).toBeLessThanOrEqual(5 * 1024 * 1024);
    await send('medium', medium);
    await send('maximal', maximal);
    await send('after', JSON.stringify(envelope(3, 0)));
    await waitFor(() => countOf('medium') >= 2_700 && countOf('maximal') >= 5_000 && countOf('after') >= 3, {
      timeoutMs: 120_000,
      what: 'every event of the three uploads on events.core',
    });
    expect([countOf('medium'), countOf('maximal'), countOf('after')]).toEqual([2_700, 5_000, 3]);
    expect(validator.health()).toEqual({ state: 'running' });
  }, 180_000);
});
