import { randomUUID } from 'node:crypto';
import {
  CompressionTypes,
  ConfigResourceTypes,
  Kafka,
  logLevel as kafkaLogLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type EachBatchHandler,
  type IHeaders,
  type KafkaMessage,
  type Message,
  type Producer,
} from 'kafkajs';
import {
  deadLetterTally,
  isTombstone,
  consumerLagTally,
  subscriptionHandler,
  splitToFit,
  subscriptionHealth,
  topicMaxBatchBytes,
  topics,
  type Bus,
  type BusMessage,
  type Following,
  type BusProducer,
  type Logger,
  type OutgoingMessage,
  type OutgoingRecord,
  type SubscribeOptions,
  type Subscription,
  type TopicSpec,
} from '@evp/core';
import { toInfraError, withTimeout } from './kafka-errors';
import { UnwrittenPartitionsError, partitionWitness } from './partition-witness';
import { serialProducer } from './serial-producer';

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
  /** Record batch limit per topic partition; default: the platform topics' (topicMaxBatchBytes). */
  maxBatchBytes?: (topic: string) => number;
  /**
   * How long the group waits for a silent member before moving its partitions (default 10 s).
   * Heartbeats continue while a handler runs, so a long batch does not count as silence.
   */
  sessionTimeoutMs?: number;
  /** Longest a `scan` may take before it fails (retriable). Default 60 s. */
  scanTimeoutMs?: number;
  /**
   * How the topics `ensureTopics` creates are replicated: `factor` copies (default 1: a single broker),
   * a write with acks=all acknowledged once `minInsyncReplicas` of them have it (default: the
   * broker's `min.insync.replicas`). A cluster of three takes 3 and 2 (docs/reliability.md).
   */
  replication?: { factor: number; minInsyncReplicas?: number };
}

function kafkaLogger(logger: Logger) {
  return () =>
    ({ level, log }: { level: kafkaLogLevel; log: { message: string } & Record<string, unknown> }) => {
      const { message, ...extra } = log;
      const fn = level <= kafkaLogLevel.ERROR ? 'error' : level === kafkaLogLevel.WARN ? 'warn' : level === kafkaLogLevel.INFO ? 'info' : 'debug';
      logger[fn]({ kafka: extra }, message);
    };
}

/**
 * How long a fetch waits on the broker for data that is not there yet (kafkajs's default is 5 s).
 * Data that arrives ends the wait at once, so this costs no latency; it bounds how long a stopping
 * consumer (a deploy, a rebalance, a scan's end) waits for its in-flight fetch to come back, at the
 * price of two empty fetches a second per idle consumer. Measured: the bus conformance suite on the
 * real broker went from 76 s to 23 s, each subscription's stop from up to 5 s to under 0.5 s.
 */
const FETCH_MAX_WAIT_MS = 500;

const headersOf = (h: IHeaders | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? String(v[0]) : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  }
  return out;
};

const toBusMessage = (topic: string, partition: number, m: KafkaMessage): BusMessage => ({
  topic,
  partition,
  offset: m.offset,
  key: m.key ? m.key.toString('utf8') : null,
  value: m.value ?? Buffer.alloc(0),
  headers: headersOf(m.headers),
  timestamp: Number(m.timestamp),
});

const toKafkaMessage = (m: OutgoingRecord): Message => ({
  key: m.key ?? null,
  value: m.value,
  ...(m.value !== null && m.headers ? { headers: m.headers } : {}),
});

/** A kafkajs producer and the witness of the partitions each of its sends chose. */
interface WitnessedProducer {
  producer: Producer;
  witness: ReturnType<typeof partitionWitness>;
}

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
  const maxBatchBytes = options.maxBatchBytes ?? topicMaxBatchBytes;
  const closers = new Set<() => Promise<void>>();
  let admin: Admin | undefined;
  let deadLetterProducer: Promise<BusProducer> | undefined;
  const deadLetters = deadLetterTally();
  const lag = consumerLagTally();

  async function getAdmin(): Promise<Admin> {
    if (!admin) {
      const a = kafka.admin();
      await withTimeout(a.connect(), produceTimeoutMs, 'admin connect');
      admin = a;
    }
    return admin;
  }

  /** One producer for every subscription's dead letters, made on the first one. */
  const writeDeadLetters = async (messages: OutgoingMessage[]) => {
    deadLetterProducer ??= bus.producer().catch((err: unknown) => {
      deadLetterProducer = undefined;
      throw err;
    });
    await (await deadLetterProducer).send(topics.deadLetters, messages);
  };

  /**
   * A consumer reading `topic` from its beginning in a group of its own that nothing is committed to
   * (kafkajs reads only as a group member): for scans and follows. The caller disconnects it.
   */
  async function readWithoutGroup(purpose: string, topic: string, eachBatch: EachBatchHandler): Promise<Consumer> {
    const consumer = kafka.consumer({
      groupId: `evp-${purpose}-${randomUUID()}`,
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
      maxBytesPerPartition: options.maxBytesPerPartition ?? 1_048_576,
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ autoCommit: false, eachBatch });
      return consumer;
    } catch (err) {
      await consumer.disconnect().catch(() => undefined);
      throw err;
    }
  }

  const bus: Bus = {
    maxBatchBytes,
    deadLetterCounts: () => deadLetters.counts(),
    consumerLag: () => lag.readings(),

    async producer(): Promise<BusProducer> {
      const logger = options.logger.child({ component: 'producer' });
      const open = async (): Promise<WitnessedProducer> => {
        const witness = partitionWitness(Partitioners.DefaultPartitioner);
        const producer = kafka.producer({
          idempotent: true,
          maxInFlightRequests: 5,
          createPartitioner: witness.createPartitioner,
          // Producer retries stay inside the produce timeout (≈ 2.5 s of back-off in all); the caller
          // answers 503 past it. Five, not three: right after a leader died, a broker can still name it
          // in its metadata for a second, and three retries (≈ 0.7 s) were used up against it.
          retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 },
        });
        try {
          await withTimeout(producer.connect(), produceTimeoutMs, 'producer connect');
        } catch (err) {
          await producer.disconnect().catch(() => undefined);
          throw toInfraError(err, 'producer connect');
        }
        return { producer, witness };
      };
      const serial = serialProducer<WitnessedProducer>({
        open,
        close: (p) => p.producer.disconnect(),
        timeoutMs: produceTimeoutMs,
        // A send kafkajs resolved without writing every partition is sent again whole on a new
        // producer while the produce timeout allows. Not one kafkajs gave up on: its own retries ran
        // on one producer id, so the broker took a repeated batch as a duplicate, while on a new one
        // it would be written twice; such a send fails (503, redelivery) as before.
        retry: { retries: 3, initialMs: 100, maxMs: 1_000, when: (err) => err instanceof UnwrittenPartitionsError },
        onReplace: (err) => logger.warn({ err }, 'produce failed: the producer is replaced (its sequence numbers are no longer certain)'),
      });
      // The first producer is opened now, so a caller learns at start-up that Kafka is unreachable.
      await serial.run(() => Promise.resolve());
      const close = () => serial.close();
      closers.add(close);
      const sendBatch = async (entries: { topic: string; messages: OutgoingRecord[] }[]) => {
        // Several produce requests when the messages exceed a record batch, one after the other so
        // order per key holds; the call resolves once all are durable (a failure may leave earlier
        // ones written: at-least-once, as for any failed send).
        for (const write of splitToFit(entries, maxBatchBytes)) {
          const topicMessages = write.map((e) => ({ topic: e.topic, messages: e.messages.map(toKafkaMessage) }));
          try {
            await serial.run(async ({ producer, witness }) => {
              witness.start();
              const answers = await producer.sendBatch({ topicMessages, acks: -1, timeout: produceTimeoutMs, compression });
              const unwritten = witness.unanswered(answers);
              if (unwritten.length > 0) {
                logger.warn({ unwritten }, 'kafkajs resolved a send without writing every partition: sent again');
                throw new UnwrittenPartitionsError(unwritten);
              }
            });
          } catch (err) {
            throw toInfraError(err, 'produce');
          }
          for (const e of write) if (e.topic === topics.deadLetters) deadLetters.record(e.messages.filter((m) => !isTombstone(m)));
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
      const health = subscriptionHealth(opts.onDead);
      const logger = options.logger.child({ component: 'bus', group: opts.groupId });
      const handleBatch = subscriptionHandler(opts, { lag, writeDeadLetters, logger });
      const sessionTimeoutMs = options.sessionTimeoutMs ?? 10_000;
      // A third of the session, as Kafka recommends, at most 3 s.
      const heartbeatMs = Math.min(3_000, Math.floor(sessionTimeoutMs / 3));
      const consumer = kafka.consumer({
        groupId: opts.groupId,
        sessionTimeout: sessionTimeoutMs,
        maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
        heartbeatInterval: heartbeatMs,
        maxBytesPerPartition: options.maxBytesPerPartition ?? 1_048_576,
        retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5_000 },
      });
      // kafkajs restarts a consumer after a retriable crash; one it does not restart is gone for good
      // and must be reported, or the process would stay up consuming nothing.
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        logger.error({ err: payload.error, restart: payload.restart }, `consumer crashed: ${payload.error.message}`);
        if (!payload.restart) health.dead(payload.error);
      });
      await consumer.connect();
      for (const topic of opts.topics) await consumer.subscribe({ topic, fromBeginning: opts.fromBeginning ?? true });
      await consumer.run({
        autoCommit: true,
        partitionsConsumedConcurrently: opts.concurrency ?? 1,
        eachBatchAutoResolve: false,
        // kafkajs documents destructuring this payload: its functions are closures, not methods.
        // eslint-disable-next-line @typescript-eslint/unbound-method
        eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, isRunning, isStale }) => {
          if (!isRunning() || isStale() || batch.messages.length === 0) return;
          const messages: BusMessage[] = batch.messages.map((m) => toBusMessage(batch.topic, batch.partition, m));
          // Heartbeats while the handler runs, so the session timeout can be short (fast failover)
          // without a slow batch making the group think this member died. A failed heartbeat (e.g.
          // a rebalance) is left to the next fetch to handle.
          const beat = setInterval(() => {
            heartbeat().catch((err: unknown) => logger.debug({ err }, 'heartbeat during a batch failed'));
          }, heartbeatMs);
          try {
            // Throwing here (a retriable error) leaves the offsets unresolved: kafkajs re-fetches
            // the batch (at-least-once). What no retry can cure was dead-lettered by the guard.
            await handleBatch({ topic: batch.topic, partition: batch.partition, messages, highWatermark: batch.highWatermark });
          } finally {
            clearInterval(beat);
          }
          const last = messages[messages.length - 1] as BusMessage;
          resolveOffset(last.offset);
          await commitOffsetsIfNecessary();
          await heartbeat();
        },
      });
      const stop = async () => {
        closers.delete(stop);
        health.stopped();
        // disconnect leaves the group, so the partitions move at once instead of after the session timeout.
        await consumer.disconnect();
      };
      closers.add(stop);
      return { stop, health: health.health };
    },

    async ensureTopics(wanted) {
      try {
        const a = await getAdmin();
        const existing = new Set(await a.listTopics());
        const missing = wanted.filter((t) => !existing.has(t.name));
        const { factor, minInsyncReplicas } = options.replication ?? { factor: 1 };
        const minInsync = minInsyncReplicas === undefined ? [] : [{ name: 'min.insync.replicas', value: String(minInsyncReplicas) }];
        const configOf = (t: TopicSpec) => [
          ...(t.maxMessageBytes === undefined ? [] : [{ name: 'max.message.bytes', value: String(t.maxMessageBytes) }]),
          ...(t.retentionMs === undefined ? [] : [{ name: 'retention.ms', value: String(t.retentionMs) }]),
          ...(t.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : []),
          ...minInsync,
        ];
        if (missing.length > 0) {
          await a.createTopics({
            waitForLeaders: true,
            topics: missing.map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: factor, configEntries: configOf(t) })),
          });
        }
        // Topics that existed before a limit or a retention was introduced get it too (created by an
        // older version or by stack.sh). alterConfigs replaces a topic's overrides; ours set only these.
        const limited = wanted.filter((t) => existing.has(t.name) && (t.maxMessageBytes !== undefined || t.retentionMs !== undefined || t.compacted));
        if (limited.length > 0) {
          await a.alterConfigs({
            validateOnly: false,
            resources: limited.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.name, configEntries: configOf(t) })),
          });
        }
      } catch (err) {
        throw toInfraError(err, 'ensure topics');
      }
    },

    async scan(topic, fromTimestampMs, visit) {
      // Where each partition's range starts (the first offset at or after the time; the end when
      // none is) and ends (the high watermark now).
      let ranges: { partition: number; start: number; end: number }[];
      try {
        const a = await getAdmin();
        const [ends, starts] = await Promise.all([a.fetchTopicOffsets(topic), a.fetchTopicOffsetsByTimestamp(topic, fromTimestampMs)]);
        ranges = ends.map((e) => {
          const start = Number(starts.find((s) => s.partition === e.partition)?.offset ?? e.high);
          return { partition: e.partition, start: start < 0 ? Number(e.high) : start, end: Number(e.high) };
        });
      } catch (err) {
        throw toInfraError(err, 'scan offsets');
      }
      const pending = new Map(ranges.filter((r) => r.start < r.end).map((r) => [r.partition, r]));
      if (pending.size === 0) return;
      let consumer: Consumer | undefined;
      let settle!: { resolve: () => void; reject: (err: unknown) => void };
      const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      // The visitor's own failure reaches the caller unchanged, not as a Kafka error.
      let visitFailed = false;
      try {
        consumer = await readWithoutGroup('scan', topic, async ({ batch }) => {
          const range = pending.get(batch.partition);
          if (!range) return;
          try {
            for (const m of batch.messages) {
              const offset = Number(m.offset);
              // A fetch can start before the sought offset (a record batch's base) or run past the end.
              if (offset < range.start) continue;
              if (offset >= range.end) break;
              await visit(toBusMessage(batch.topic, batch.partition, m));
              range.start = offset + 1;
            }
          } catch (err) {
            visitFailed = true;
            settle.reject(err);
            return;
          }
          if (range.start >= range.end) pending.delete(batch.partition);
          if (pending.size === 0) settle.resolve();
        });
        for (const r of ranges) consumer.seek({ topic, partition: r.partition, offset: String(pending.has(r.partition) ? r.start : r.end) });
        await withTimeout(done, options.scanTimeoutMs ?? 60_000, `scan of ${topic}`);
      } catch (err) {
        throw visitFailed ? err : toInfraError(err, 'scan');
      } finally {
        await consumer?.disconnect().catch(() => undefined);
      }
    },

    async follow(topic, visit): Promise<Following> {
      let ends: Map<number, number>;
      try {
        const offsets = await (await getAdmin()).fetchTopicOffsets(topic);
        ends = new Map(offsets.filter((o) => Number(o.high) > Number(o.low)).map((o) => [o.partition, Number(o.high)]));
      } catch (err) {
        throw toInfraError(err, 'follow offsets');
      }
      // Caught up once a record at or past each partition's end - 1 was read. Known limit: were the
      // partition's last record compacted away (possible only once its segment is no longer the
      // active one, e.g. a tombstone older than delete.retention.ms after a roll), no record reaches
      // that offset and `caughtUp` stays pending; kafkajs reports neither the fetch position nor
      // empty batches to tell.
      let caughtUp!: () => void;
      const done = new Promise<void>((resolve) => (caughtUp = resolve));
      if (ends.size === 0) caughtUp();
      // Never committed: every follower reads the topic whole from the beginning.
      let consumer: Consumer;
      try {
        consumer = await readWithoutGroup('follow', topic, async ({ batch }) => {
          for (const m of batch.messages) if (m.key !== null) visit(m.key.toString(), m.value);
          const end = ends.get(batch.partition);
          const last = batch.messages.at(-1);
          if (end !== undefined && last && Number(last.offset) + 1 >= end) {
            ends.delete(batch.partition);
            if (ends.size === 0) caughtUp();
          }
        });
      } catch (err) {
        throw toInfraError(err, 'follow');
      }
      const close = async () => {
        closers.delete(close);
        await consumer.disconnect().catch(() => undefined);
      };
      closers.add(close);
      return { caughtUp: done, stop: close };
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
      deadLetterProducer = undefined;
      closers.clear();
      await admin?.disconnect().catch(() => undefined);
      admin = undefined;
    },
  };
  return bus;
}
