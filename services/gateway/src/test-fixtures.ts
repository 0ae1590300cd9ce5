/** Shared by the gateway's tests: keys, envelopes, and an app harness on a bus the test supplies. */
import { Writable } from 'node:stream';
import { KeyRing, allTopics, createLogger, topics, type Bus, type BusMessage } from '@evp/core';
import { createGatewayApp, type GatewayDeps, type GatewayLimits } from './app';

export const SDK = 'sdk-key-0123456789abcdef';
export const API = 'api-key-0123456789abcdef';
export const testKeys = new KeyRing({
  keys: [
    { id: 'k-sdk', app_id: 'app-1', role: 'sdk', key: SDK },
    { id: 'k-api', app_id: 'app-1', role: 'api', key: API },
  ],
});
export const testLimits: GatewayLimits = { maxBodyBytes: 4096, maxEventsPerRequest: 3, maxCatalogRecordsPerRequest: 4, retryAfterSeconds: 7 };

export const envelope = (user: string, n = 1) => ({
  id: user,
  tz: '+00:00',
  internal: { s_id: `${user}_1_0`, sdk: 'web/1.0', a_id: 'x', a_ver: '1.0.0 (1)', d_id: 'd', os: 'web' },
  data: Array.from({ length: n }, () => ({ time: '2024-01-01 00:00:00.000', __ol: true, name: 'page', property: 'p', ctx: {} })),
});

/**
 * An app on a given bus (tests pass the in-process one) with a probe that collects ingest.raw.
 * `logs` holds every parsed log line the app wrote.
 */
export async function harness(bus: Bus, opts: { closedProducer?: boolean; deps?: Partial<GatewayDeps> } = {}) {
  await bus.ensureTopics(allTopics());
  const producer = await bus.producer();
  if (opts.closedProducer) await producer.close();
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  const logger = createLogger('test', 'debug', sink);
  const { app, metrics } = createGatewayApp({
    producer,
    keys: testKeys,
    limits: testLimits,
    logger,
    corsOrigins: ['https://shop.example'],
    now: () => 1_700_000_000_000,
    ...opts.deps,
  });
  const raw: BusMessage[] = [];
  const sub = await bus.subscribe({ groupId: 'probe', topics: [topics.raw], handleBatch: async (b) => void raw.push(...b.messages) });
  return { app, metrics, raw, logs, logger, producer, close: async () => (await sub.stop(), await bus.close()) };
}
