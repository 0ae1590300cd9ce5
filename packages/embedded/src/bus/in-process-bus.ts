import {
  InfraError,
  isTombstone,
  deadLetterTally,
  consumerLagTally,
  errorMessage,
  fitsOneBatch,
  subscriptionHandler,
  messageTooLarge,
  subscriptionHealth,
  topicMaxBatchBytes,
  topics as platformTopics,
  type Bus,
  type BusMessage,
  type Following,
  type BusProducer,
  type Logger,
  type OutgoingMessage,
  type OutgoingRecord,
  type SubscribeOptions,
  type Subscription,
} from '@evp/core';
import { partitionFor } from './partitioner';

/**
 * The Bus port in one process: an append-only log per partition, consumer groups with committed
 * offsets and partition assignment across members, at-least-once delivery (a batch whose handler
 * throws is delivered again after a back-off). Durable for the life of the process only — the
 * embedded mode's documented limit.
 */
export interface InProcessBusOptions {
  logger?: Logger;
  maxBatchSize?: number;
  /** Back-off after a failed handler, doubled up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Record batch limit per topic, enforced like Kafka's; default: the platform topics'. */
  maxBatchBytes?: (topic: string) => number;
}

interface Partition {
  log: BusMessage[];
}

interface Member {
  id: number;
  topics: string[];
  assigned: { topic: string; partition: number }[];
}

interface Group {
  committed: Map<string, number>;
  members: Member[];
}

export function createInProcessBus(options: InProcessBusOptions = {}): Bus {
  const maxBatch = options.maxBatchSize ?? 500;
  const retryDelay = options.retryDelayMs ?? 50;
  const maxRetryDelay = options.maxRetryDelayMs ?? 2_000;
  const maxBatchBytes = options.maxBatchBytes ?? topicMaxBatchBytes;
  const topicLogs = new Map<string, Partition[]>();
  /**
   * Compacted topics keep no log here, only the latest value of each key (a tombstone removes it),
   * what Kafka's compaction converges to; they are read with `follow`.
   */
  const compacted = new Map<string, Map<string, Buffer>>();
  const followers = new Set<{ topic: string; visit: (key: string, value: Buffer | null) => void }>();
  const groups = new Map<string, Group>();
  const waiters = new Set<() => void>();
  const subscriptions = new Set<Subscription>();
  let roundRobin = 0;
  let nextMemberId = 1;
  let closed = false;

  const wake = () => {
    for (const w of [...waiters]) w();
  };

  function partitionsOf(topic: string): Partition[] {
    const p = topicLogs.get(topic);
    // Retriable, as on Kafka: the topic may be created (ensureTopics) and the write then succeeds.
    if (!p) throw new InfraError('bus', `topic ${topic} does not exist`, { retriable: true });
    return p;
  }

  function append(topic: string, messages: OutgoingRecord[]) {
    const latest = compacted.get(topic);
    if (latest) {
      for (const m of messages) {
        if (m.key === undefined) throw new InfraError('bus', `a message of compacted topic ${topic} needs a key`, { retriable: false });
        const value = m.value === null ? null : Buffer.from(m.value);
        if (value === null) latest.delete(m.key);
        else latest.set(m.key, value);
        for (const f of followers) if (f.topic === topic) f.visit(m.key, value);
      }
      return;
    }
    const parts = partitionsOf(topic);
    const now = Date.now();
    for (const m of messages) {
      const partition = m.key !== undefined ? partitionFor(m.key, parts.length) : roundRobin++ % parts.length;
      const log = (parts[partition] as Partition).log;
      log.push({
        topic,
        partition,
        offset: String(log.length),
        key: m.key ?? null,
        // Copies, so a producer reusing its buffers cannot change what was "written". A tombstone
        // means nothing outside a compacted topic: it is an empty value here.
        value: m.value === null ? Buffer.alloc(0) : Buffer.from(m.value),
        headers: m.value === null ? {} : { ...(m.headers ?? {}) },
        timestamp: now,
      });
    }
  }

  function rebalance(group: Group) {
    const all: { topic: string; partition: number }[] = [];
    const topicsWanted = new Set(group.members.flatMap((m) => m.topics));
    for (const topic of [...topicsWanted].sort()) {
      const parts = topicLogs.get(topic);
      parts?.forEach((_, partition) => all.push({ topic, partition }));
    }
    for (const m of group.members) m.assigned = [];
    const members = [...group.members].sort((a, b) => a.id - b.id);
    let i = 0;
    for (const tp of all) {
      const eligible = members.filter((m) => m.topics.includes(tp.topic));
      if (eligible.length === 0) continue;
      (eligible[i++ % eligible.length] as Member).assigned.push(tp);
    }
  }

  let deadLetterProducer: BusProducer | undefined;
  const deadLetters = deadLetterTally();
  const lag = consumerLagTally();
  const writeDeadLetters = async (messages: OutgoingMessage[]) => {
    deadLetterProducer ??= await bus.producer();
    await deadLetterProducer.send(platformTopics.deadLetters, messages);
  };

  const bus: Bus = {
    maxBatchBytes,
    deadLetterCounts: () => deadLetters.counts(),
    consumerLag: () => lag.readings(),

    async producer(): Promise<BusProducer> {
      let open = true;
      const sendBatch = async (entries: { topic: string; messages: OutgoingRecord[] }[]) => {
        if (!open || closed) throw new InfraError('bus', 'producer is closed', { retriable: false });
        // Validate every topic and size first so a multi-topic write is all-or-nothing. A message
        // Kafka would refuse is refused here too; many small ones are fine (Kafka's adapter splits).
        for (const e of entries) {
          partitionsOf(e.topic);
          const limit = maxBatchBytes(e.topic);
          const tooLarge = e.messages.find((m) => !fitsOneBatch(m, limit));
          if (tooLarge) throw messageTooLarge(e.topic, tooLarge, limit);
        }
        for (const e of entries) append(e.topic, e.messages);
        for (const e of entries) if (e.topic === platformTopics.deadLetters) deadLetters.record(e.messages.filter((m) => !isTombstone(m)));
        wake();
      };
      return {
        send: (topic, messages) => sendBatch([{ topic, messages }]),
        sendBatch,
        async close() {
          open = false;
        },
      };
    },

    async subscribe(opts: SubscribeOptions): Promise<Subscription> {
      const group = groups.get(opts.groupId) ?? { committed: new Map<string, number>(), members: [] };
      groups.set(opts.groupId, group);
      const member: Member = { id: nextMemberId++, topics: [...opts.topics], assigned: [] };
      group.members.push(member);
      rebalance(group);
      const logger = options.logger?.child({ component: 'in-process-bus', group: opts.groupId });
      const health = subscriptionHealth(opts.onDead);
      const handleBatch = subscriptionHandler(opts, { lag, writeDeadLetters, logger });
      let running = true;
      let failures = 0;

      const concurrency = Math.max(1, opts.concurrency ?? 1);

      /** Hands one partition its next batch; true when there was work. */
      const consume = async ({ topic, partition }: { topic: string; partition: number }): Promise<boolean> => {
        const log = (topicLogs.get(topic)?.[partition] as Partition).log;
        const key = `${topic}:${partition}`;
        const from = group.committed.get(key) ?? (opts.fromBeginning === false ? log.length : 0);
        if (!group.committed.has(key)) group.committed.set(key, from);
        if (from >= log.length) return false;
        const messages = log.slice(from, from + maxBatch);
        try {
          await handleBatch({ topic, partition, messages, highWatermark: String(log.length) });
          // Commit only if this member still owns the partition (a rebalance may have moved it).
          if (member.assigned.some((a) => a.topic === topic && a.partition === partition)) {
            group.committed.set(key, from + messages.length);
          }
          failures = 0;
        } catch (err) {
          failures++;
          const delay = Math.min(retryDelay * 2 ** (failures - 1), maxRetryDelay);
          logger?.warn({ err, topic, partition, offset: from, delayMs: delay }, `batch handler failed, redelivering: ${errorMessage(err)}`);
          await new Promise((r) => setTimeout(r, delay));
        }
        return true;
      };

      const loop = async () => {
        while (running && !closed) {
          let worked = false;
          // Up to `concurrency` partitions with pending messages at once; each partition still gets
          // one batch at a time, so its order holds.
          const pending = member.assigned.filter(({ topic, partition }) => {
            const log = (topicLogs.get(topic)?.[partition] as Partition).log;
            const key = `${topic}:${partition}`;
            // A group starting at the end starts at the end as of its first look, as Kafka's does at
            // its join: messages written after that are consumed.
            if (!group.committed.has(key) && opts.fromBeginning === false) group.committed.set(key, log.length);
            return (group.committed.get(key) ?? 0) < log.length;
          });
          for (let i = 0; i < pending.length && running; i += concurrency) {
            const results = await Promise.all(pending.slice(i, i + concurrency).map(consume));
            worked = worked || results.some(Boolean);
          }
          if (!worked && running) {
            await new Promise<void>((resolve) => {
              const done = () => {
                waiters.delete(done);
                clearTimeout(timer);
                resolve();
              };
              // The timer also notices partitions assigned by a rebalance.
              const timer = setTimeout(done, 100);
              waiters.add(done);
            });
          }
        }
      };
      const loopDone = loop();
      const subscription: Subscription = {
        health: health.health,
        async stop() {
          running = false;
          health.stopped();
          wake();
          await loopDone;
          group.members = group.members.filter((m) => m !== member);
          rebalance(group);
          subscriptions.delete(subscription);
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    async ensureTopics(wanted) {
      for (const t of wanted) {
        if (t.compacted && !compacted.has(t.name)) compacted.set(t.name, new Map());
        if (!topicLogs.has(t.name)) {
          topicLogs.set(
            t.name,
            Array.from({ length: t.partitions }, () => ({ log: [] })),
          );
        }
      }
      for (const g of groups.values()) rebalance(g);
    },

    async scan(topic, fromTimestampMs, visit) {
      const parts = partitionsOf(topic);
      // The ends as of the call: what a visitor (or anyone) writes meanwhile is not visited.
      const ends = parts.map((p) => p.log.length);
      for (let partition = 0; partition < parts.length; partition++) {
        const log = (parts[partition] as Partition).log;
        const end = ends[partition] as number;
        // Log times never decrease within a partition here (one clock, appends in order).
        let offset = 0;
        while (offset < end && (log[offset] as BusMessage).timestamp < fromTimestampMs) offset++;
        for (; offset < end; offset++) await visit(log[offset] as BusMessage);
      }
    },

    async follow(topic, visit): Promise<Following> {
      const latest = compacted.get(topic);
      if (!latest) throw new InfraError('bus', `topic ${topic} is not a compacted topic`, { retriable: !topicLogs.has(topic) });
      for (const [key, value] of latest) visit(key, value);
      const follower = { topic, visit };
      followers.add(follower);
      return {
        caughtUp: Promise.resolve(),
        async stop() {
          followers.delete(follower);
        },
      };
    },

    async listTopics() {
      return [...topicLogs.keys()];
    },

    async close() {
      await Promise.allSettled([...subscriptions].map((s) => s.stop()));
      closed = true;
      wake();
    },
  };
  return bus;
}
