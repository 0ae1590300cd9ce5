import {
  CompressionTypes,
  Kafka,
  logLevel as kafkaLogLevel,
  Partitioners,
  type Admin,
  type IHeaders,
  type Message,
  type Producer,
} from 'kafkajs';
import type {
  Bus,
  BusMessage,
  BusProducer,
  Logger,
  OutgoingMessage,
  SubscribeOptions,
  Subscription,
} from '@evp/core';
import { toInfraError, withTimeout } from './kafka-errors';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** Upper bound for one produce call (ack from all in-sync replicas) before giving up. */
  produceTimeoutMs?: number;
  /** kafkajs connection timeout; short so an unreachable broker is reported quickly. */
  connectionTimeoutMs?: number;
  /** Largest batch handed to a handler, in bytes fetched per partition. */
  maxBytesPerPartition?: number;
  compression?: 'none' | 'gzip';
}

function kafkaLogger(logger: Logger) {
  return () =>
    ({ level, log }: { level: number; log: { message: string } & Record<string, unknown> }) => {
      const { message, ...extra } = log;
      const fn =
        level <= kafkaLogLevel.ERROR ? 'error' : level === kafkaLogLevel.WARN ? 'warn' : level === kafkaLogLevel.INFO ? 'info' : 'debug';
      logger[fn]({ kafka: extra }, message);
    };
}

const headersOf = (h: IHeaders | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? String(v[0]) : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  }
  return out;
};

const toKafkaMessage = (m: OutgoingMessage): Message => ({
  key: m.key ?? null,
  value: m.value,
  ...(m.headers ? { headers: m.headers } : {}),
});

/** The Bus port on Kafka: acks=all, idempotent producer; commits only what handlers finished. */
export function createKafkaBus(options: KafkaBusOptions): Bus {
  const produceTimeoutMs = options.produceTimeoutMs ?? 10_000;
  const compression = options.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: 10_000,
    logLevel: kafkaLogLevel.WARN,
    logCreator: kafkaLogger(options.logger.child({ component: 'kafkajs' })),
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
  });
  const closers = new Set<() => Promise<void>>();
  let admin: Admin | undefined;

  async function getAdmin(): Promise<Admin> {
    if (!admin) {
      const a = kafka.admin();
      await withTimeout(a.connect(), produceTimeoutMs, 'admin connect');
      admin = a;
    }
    return admin;
  }

  return {
    async producer(): Promise<BusProducer> {
      const producer: Producer = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 5,
        createPartitioner: Partitioners.DefaultPartitioner,
        // Producer retries stay inside the produce timeout; the caller answers 503 past it.
        retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
      });
      try {
        await withTimeout(producer.connect(), produceTimeoutMs, 'producer connect');
      } catch (err) {
        await producer.disconnect().catch(() => undefined);
        throw toInfraError(err, 'producer connect');
      }
      const close = () => producer.disconnect();
      closers.add(close);
      const sendBatch = async (entries: { topic: string; messages: OutgoingMessage[] }[]) => {
        const topicMessages = entries
          .filter((e) => e.messages.length > 0)
          .map((e) => ({ topic: e.topic, messages: e.messages.map(toKafkaMessage) }));
        if (topicMessages.length === 0) return;
        try {
          await withTimeout(
            producer.sendBatch({ topicMessages, acks: -1, timeout: produceTimeoutMs, compression }),
            produceTimeoutMs,
            'produce',
          );
        } catch (err) {
          throw toInfraError(err, 'produce');
        }
      };
      return {
        send: (topic, messages) => sendBatch([{ topic, messages }]),
        sendBatch,
        async close() {
          closers.delete(close);
          await close();
        },
      };
    },

    async subscribe(opts: SubscribeOptions): Promise<Subscription> {
      const consumer = kafka.consumer({
        groupId: opts.groupId,
        sessionTimeout: 30_000,
        heartbeatInterval: 3_000,
        maxBytesPerPartition: options.maxBytesPerPartition ?? 1_048_576,
        retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5_000 },
      });
      await consumer.connect();
      for (const topic of opts.topics) await consumer.subscribe({ topic, fromBeginning: opts.fromBeginning ?? true });
      await consumer.run({
        autoCommit: true,
        partitionsConsumedConcurrently: opts.concurrency ?? 1,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, isRunning, isStale }) => {
          if (!isRunning() || isStale() || batch.messages.length === 0) return;
          const messages: BusMessage[] = batch.messages.map((m) => ({
            topic: batch.topic,
            partition: batch.partition,
            offset: m.offset,
            key: m.key ? m.key.toString('utf8') : null,
            value: m.value ?? Buffer.alloc(0),
            headers: headersOf(m.headers),
            timestamp: Number(m.timestamp),
          }));
          // Throwing here leaves the offsets unresolved: kafkajs re-fetches the batch (at-least-once).
          await opts.handleBatch({ topic: batch.topic, partition: batch.partition, messages, highWatermark: batch.highWatermark });
          const last = messages[messages.length - 1] as BusMessage;
          resolveOffset(last.offset);
          await commitOffsetsIfNecessary();
          await heartbeat();
        },
      });
      const stop = async () => {
        closers.delete(stop);
        await consumer.disconnect();
      };
      closers.add(stop);
      return { stop };
    },

    async ensureTopics(wanted) {
      try {
        const a = await getAdmin();
        const existing = new Set(await a.listTopics());
        const missing = wanted.filter((t) => !existing.has(t.name));
        if (missing.length === 0) return;
        await a.createTopics({
          waitForLeaders: true,
          topics: missing.map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: 1 })),
        });
      } catch (err) {
        throw toInfraError(err, 'ensure topics');
      }
    },

    async listTopics() {
      try {
        const a = await getAdmin();
        return await withTimeout(a.listTopics(), produceTimeoutMs, 'list topics');
      } catch (err) {
        // A failed admin connection is not reused: the next call reconnects.
        const a = admin;
        admin = undefined;
        await a?.disconnect().catch(() => undefined);
        throw toInfraError(err, 'list topics');
      }
    },

    async close() {
      await Promise.allSettled([...closers].map((c) => c()));
      closers.clear();
      await admin?.disconnect().catch(() => undefined);
      admin = undefined;
    },
  };
}
