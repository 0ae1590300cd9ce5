import { allTopics, createLogger, topics } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { uniqueName, waitFor } from '@evp/testkit';
import { startValidator, type RunningValidator } from './validator';

// The validator on the real broker and registry: a catalog submission in, the exact records out on
// catalog.hcw and ingest.rejected. The broker is shared, so the validator's group starts at the end
// of ingest.raw and the submission is re-sent (with a new request id) until the group has joined.
describe('validator on the real stack: catalog submissions', () => {
  const logger = createLogger('validator-it', 'silent');
  const bus = createKafkaBus({ brokers: (process.env.KAFKA_BROKERS as string).split(','), clientId: uniqueName('validator-it'), logger });
  const registry = createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string });
  const appId = uniqueName('it-cat');
  const seen: { topic: string; key: string | null; value: Record<string, unknown> }[] = [];
  let validator: RunningValidator;
  let stopReader: () => Promise<void>;

  beforeAll(async () => {
    await bus.ensureTopics(allTopics());
    validator = await startValidator({
      bus,
      registry,
      logger,
      config: { groupId: uniqueName('validator-it'), fromBeginning: false, workers: 2 },
    });
    const reader = await bus.subscribe({
      groupId: uniqueName('validator-it-reader'),
      topics: [topics.catalog('hcw'), topics.rejected],
      handleBatch: async (b) => {
        for (const m of b.messages) {
          if (m.headers.app_id !== appId) continue;
          // Plain data: under load the registry client has handed back avro record objects whose
          // methods compare as properties.
          const decoded = (await registry.decode(m.value)) as Record<string, unknown>;
          seen.push({ topic: m.topic, key: m.key, value: Object.fromEntries(Object.entries(decoded).filter(([, v]) => typeof v !== 'function')) });
        }
      },
    });
    stopReader = () => reader.stop();
  }, 120_000);

  afterAll(async () => {
    await stopReader?.();
    await validator?.stop();
    await bus.close();
  });

  it('writes accepted records keyed <app>:<id> and rejects the bad one', async () => {
    const producer = await bus.producer();
    const body = JSON.stringify([{ id: 'h-1', role: 'chw', site_id_list: ['s-1'] }, { id: 'h-2', site_id_list: 's-1' }, { id: 'h-3' }]);
    let attempt = 0;
    const requestId = await waitFor(
      async () => {
        const done = seen.find((s) => typeof s.value.request_id === 'string');
        if (done) return done.value.request_id as string;
        attempt++;
        await producer.send(topics.raw, [
          {
            key: `${appId}:catalog:user_chw`,
            value: Buffer.from(body),
            headers: { app_id: appId, request_id: `req-${attempt}`, received_at: '1700000100000', key_id: 'k-it', payload_kind: 'catalog:user_chw' },
          },
        ]);
        return undefined;
      },
      { timeoutMs: 90_000, intervalMs: 1_500, what: 'the validator to process a submission' },
    );
    const mine = () => seen.filter((s) => s.value.request_id === requestId);
    await waitFor(() => mine().length >= 3, { timeoutMs: 30_000, what: 'three outputs' });
    expect(
      mine()
        .filter((s) => s.topic === topics.catalog('hcw'))
        .map((s) => [s.key, s.value]),
    ).toEqual([
      [
        `${appId}:h-1`,
        {
          app_id: appId,
          id: 'h-1',
          kind: 'hcw',
          received_at: 1_700_000_100_000,
          request_id: requestId,
          name: null,
          role: 'chw',
          site_id_list: ['s-1'],
          supervisor_id_list: null,
          extra_json: null,
        },
      ],
      [
        `${appId}:h-3`,
        {
          app_id: appId,
          id: 'h-3',
          kind: 'hcw',
          received_at: 1_700_000_100_000,
          request_id: requestId,
          name: null,
          role: null,
          site_id_list: null,
          supervisor_id_list: null,
          extra_json: null,
        },
      ],
    ]);
    const rejected = mine().filter((s) => s.topic === topics.rejected);
    expect(rejected.map((s) => [s.value.kind, s.value.errors, s.value.event_index, s.value.event_count, s.value.payload_kind])).toEqual([
      ['schema_violation', [{ path: '$[1].site_id_list', rule: 'type', message: 'expected an array' }], 1, 1, 'catalog:user_chw'],
    ]);
    await producer.close();
  }, 150_000);
});
