import { allTopics, createLogger, topics, type Analytics, type Bus, type SchemaRegistry } from '@evp/core';
import { blockEventSchema, blockSubject, canonicalToAvro, type CanonicalEvent } from '@evp/schemas';
import { createSink, type Sink, type SinkConfig, type SinkDeps } from '../sink';
import { pageEvent } from './fixtures';

/**
 * The sink over the given bus, registry and Analytics, for tests (the tests pass the embedded
 * adapters; this module does not import them, as it is not a test file itself).
 */
export interface SinkHarness {
  bus: Bus;
  registry: SchemaRegistry;
  sink: Sink;
  send(topic: string, values: { key: string; value: Buffer }[]): Promise<void>;
  event(e: CanonicalEvent): Promise<{ key: string; value: Buffer }>;
  close(): Promise<void>;
}

export interface SinkHarnessOptions {
  bus: Bus;
  registry: SchemaRegistry;
  analytics: Analytics;
  config?: Partial<SinkConfig>;
  /** What the sink sees of the bus (tests wrap it to make its producer fail). */
  busForSink?: (bus: Bus) => Bus;
  onInserted?: SinkDeps['onInserted'];
  retention?: SinkDeps['retention'];
  suppressions?: SinkDeps['suppressions'];
}

const logger = createLogger('sink-test', 'silent');

export async function startSinkHarness(opts: SinkHarnessOptions): Promise<SinkHarness> {
  const { bus, registry } = opts;
  await bus.ensureTopics(allTopics());
  const coreId = await registry.register(blockSubject(topics.events('core')), blockEventSchema('core') as object);
  const sink = createSink({
    bus: opts.busForSink ? opts.busForSink(bus) : bus,
    registry,
    analytics: opts.analytics,
    logger,
    config: { batchMaxWaitMs: 20, retryInitialDelayMs: 5, retryMaxDelayMs: 20, retryBudgetMs: 50, ...opts.config },
    ...(opts.onInserted ? { onInserted: opts.onInserted } : {}),
    ...(opts.retention ? { retention: opts.retention } : {}),
    ...(opts.suppressions ? { suppressions: opts.suppressions } : {}),
  });
  await sink.start();
  const producer = await bus.producer();
  return {
    bus,
    registry,
    sink,
    send: (topic, values) => producer.send(topic, values),
    event: async (e) => ({ key: `${e.app_id}:${e.user_id}`, value: await registry.encode(coreId, canonicalToAvro(e)) }),
    close: async () => {
      await sink.stop();
      await producer.close();
      await bus.close();
    },
  };
}

/** A distinct event of the same user and session (its own id, time and path). */
export const nth = (app: string, i: number): CanonicalEvent => ({
  ...pageEvent,
  app_id: app,
  event_id: `${app}-e${i}`,
  time: pageEvent.time + i,
  props: { ...pageEvent.props, path: `/p/${i}` },
});
